"""Entry point of the Consciousness-Theories Ablation Lab (``streamlit run app.py``).

Navigation is declared once here; each page is a thin script in ``app_pages/``.

The folder is not called ``pages/`` on purpose: Streamlit treats a ``pages/`` folder beside the main
script as its legacy multipage mode until ``st.navigation`` first runs, so the first shared deep
link
to a freshly started server opened with a "Page not found" dialog.
"""

from pathlib import Path
from urllib.parse import urlsplit

import streamlit as st

from labcore.config import PAGE_URLS
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

PAGES = [
    st.Page(
        "app_pages/home.py",
        title="Home",
        icon=":material/home:",
        url_path=PAGE_URLS["home"],
        default=True,
    ),
    st.Page(
        "app_pages/agents.py",
        title="Agents",
        icon=":material/smart_toy:",
        url_path=PAGE_URLS["agents"],
    ),
    st.Page(
        "app_pages/metacognition.py",
        title="Metacognition — HOT",
        icon=":material/psychology:",
        url_path=PAGE_URLS["metacognition"],
    ),
    st.Page(
        "app_pages/reward.py",
        title="From reward alone",
        icon=":material/emoji_events:",
        url_path=PAGE_URLS["reward"],
    ),
    st.Page(
        "app_pages/workspace.py",
        title="Workspace — GWT",
        icon=":material/hub:",
        url_path=PAGE_URLS["workspace"],
    ),
    st.Page(
        "app_pages/robustness.py",
        title="Robustness — triangulation",
        icon=":material/cyclone:",
        url_path=PAGE_URLS["robustness"],
    ),
    st.Page(
        "app_pages/integration.py",
        title="Integration — IIT",
        icon=":material/join_inner:",
        url_path=PAGE_URLS["integration"],
    ),
    st.Page(
        "app_pages/rollouts.py",
        title="Rollout theatre",
        icon=":material/movie:",
        url_path=PAGE_URLS["rollouts"],
    ),
    st.Page(
        "app_pages/replication.py",
        title="Replication",
        icon=":material/fact_check:",
        url_path=PAGE_URLS["replication"],
    ),
    st.Page(
        "app_pages/scorecards.py",
        title="Scorecards",
        icon=":material/receipt_long:",
        url_path=PAGE_URLS["scorecards"],
    ),
    st.Page(
        "app_pages/mystery.py",
        title="Mystery agent",
        icon=":material/help:",
        url_path=PAGE_URLS["mystery"],
    ),
    st.Page(
        "app_pages/lesson.py",
        title="Lesson",
        icon=":material/school:",
        url_path=PAGE_URLS["lesson"],
    ),
    st.Page(
        "app_pages/your_data.py",
        title="Your data",
        icon=":material/upload_file:",
        url_path=PAGE_URLS["your_data"],
    ),
    st.Page(
        "app_pages/be_the_agent.py",
        title="Be the agent",
        icon=":material/sports_esports:",
        url_path=PAGE_URLS["be_the_agent"],
    ),
    st.Page(
        "app_pages/join.py",
        title="Join a class",
        icon=":material/groups:",
        url_path=PAGE_URLS["join"],
    ),
]

# A student who joins a class sees the question alone: no menu (the page links back to Home).
path = urlsplit(st.context.url or "").path.rstrip("/")
joining = path.rsplit("/", 1)[-1] == PAGE_URLS["join"]
page = st.navigation(PAGES, position="hidden" if joining else "sidebar")
note_arrival(page.url_path)
accessible_style()  # contrast and keyboard fixes of Streamlit's own parts (WCAG 2.1 AA)
projector_switch()  # in the sidebar of every page (issue 34: type the back row can read)
settle_role()  # teacher, student or visitor: what the page may send (docs/classroom.md)
page.run()
