"""Entry point of the Consciousness-Theories Ablation Lab (``streamlit run app.py``).

The pages are declared once, in :data:`labcore.config.PAGES` (file, title, icon; the lesson's
links need their paths too); the navigation is built here from them, and each page is a thin
script in ``app_pages/``.

The folder is not called ``pages/`` on purpose: Streamlit treats a ``pages/`` folder beside the main
script as its legacy multipage mode until ``st.navigation`` first runs, so the first shared deep
link
to a freshly started server opened with a "Page not found" dialog.
"""

from pathlib import Path
from urllib.parse import urlsplit

import streamlit as st

from labcore.config import PAGE_URLS, PAGES
from ui.classroom import settle_role
from ui.components import accessible_style
from ui.controls import note_arrival
from ui.projector import projector_switch

# A local image, not a ":material/...:" or emoji icon: those favicons are fetched from a font or
# emoji host, and the lab must work offline and never phone home.
ICON = Path(__file__).resolve().parent / "assets" / "icon.png"
st.set_page_config(
    page_title="Consciousness-Theories Ablation Lab", page_icon=str(ICON), layout="wide"
)

# A student who joins a class sees the question alone: no menu (the page links back to Home).
path = urlsplit(st.context.url or "").path.rstrip("/")
joining = path.rsplit("/", 1)[-1] == PAGE_URLS["join"]
page = st.navigation(
    [
        st.Page(
            f"app_pages/{p.name}.py",
            title=p.title,
            icon=p.icon,
            url_path=PAGE_URLS[p.name],
            default=p is PAGES[0],
        )
        for p in PAGES
    ],
    position="hidden" if joining else "sidebar",
)
note_arrival(page.url_path)
accessible_style()  # contrast and keyboard fixes of Streamlit's own parts (WCAG 2.1 AA)
projector_switch()  # in the sidebar of every page: type the back row can read
settle_role()  # teacher, student or visitor: what the page may send (docs/classroom.md)
page.run()
