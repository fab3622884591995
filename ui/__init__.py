"""Streamlit glue for the lab (the only code besides ``app.py``/``pages/`` that imports streamlit)."""
