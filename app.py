"""Entry point of the Consciousness-Theories Ablation Lab (``streamlit run app.py``).

Navigation is declared once here; each page is a thin script in ``pages/``.
"""

import streamlit as st

st.set_page_config(page_title="Consciousness-Theories Ablation Lab", page_icon="🧪", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", url_path="", default=True),
]

st.navigation(PAGES).run()
