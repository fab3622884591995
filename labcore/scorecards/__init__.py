"""Scorecards: two outside instruments, their documents' numbers checked, and the lab's agents.

OSMD ("Operational Self-Model Density", a 30-item, 90-point rubric: :mod:`.rubric`) and FCS (the
"Functional Consciousness Score" page, ``FCS = R · P``: :mod:`.fcs`). Their tables, the checks of
their arithmetic, the lab agents' mapping and the caveats are data files (``data/``) read through
pydantic. Pure data and pure functions; no Streamlit, no plotting. See docs/scorecards.md.
"""
