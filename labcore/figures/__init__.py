"""Plotly figure builders: pure functions from arrays or result tables to figures.

- :mod:`labcore.figures.style`: palette, names, layout and shared styling helpers;
- :mod:`labcore.figures.marks`: the marks that draw data (seed bars, paper marks, L75 groups);
- :mod:`labcore.figures.live`: the live lab's curves (ROC, calibration, masking, titration, PCI);
- :mod:`labcore.figures.episode`: one episode step by step (workspace heatmap, actions, confidence);
- :mod:`labcore.figures.paper_e1`, ``paper_e2``, ``paper_e3``: the paper's figures rebuilt from a
  result set, per experiment;
- :mod:`labcore.figures.scorecards`: the scorecards' radar and FCS plane, the claims table;
- :mod:`labcore.figures.registry`: the report's figure list with captions;
- :mod:`labcore.figures.findings`: the captions' texts and the findings under each figure.

Nothing here reads a file or imports Streamlit.
"""
