"""Scorecards: two outside instruments, their documents' numbers checked, and the lab's agents.

* **OSMD** -- "Operational Self-Model Density" (working paper): a 30-item, 90-point rubric in 8
  clusters. Its rules: :mod:`~labcore.scorecards.rubric`.
* **FCS** -- the "Functional Consciousness Score" page, ``FCS = R · P``. Its formulas:
  :mod:`~labcore.scorecards.fcs`.

Data where data belongs (``data/``), each file read through one pydantic model: the two
documents' tables (:mod:`~labcore.scorecards.documents`), the checks of their arithmetic
(``checks.json``, evaluated by :mod:`~labcore.scorecards.checks`), and the lab's pre-registered
mapping of its agents A0/A1/B1/B2 (``lab_agents.json``, :mod:`~labcore.scorecards.lab_agents`).
:mod:`~labcore.scorecards.user_systems` scores a user's own system and reads and writes its file;
:mod:`~labcore.scorecards.contract` words a refused file in one sentence;
:mod:`~labcore.scorecards.caveats` says what neither instrument is.

Pure data and pure functions; no Streamlit, no plotting. See docs/scorecards.md.
"""
