"""Streamlit glue for the lab (the only code besides ``app.py``/``app_pages/`` that imports
streamlit)."""
