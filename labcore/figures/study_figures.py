"""The headline figure of each registered study, written beside its files as ``figure.json``
(plotly JSON: the app and the report draw it offline, nothing fetched from a CDN)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import plotly.graph_objects as go

from labcore.figures.explore import design_figure
from labcore.figures.integration import study_figure as integration_figure
from labcore.figures.pdw import explorer_headline, neurogym_figure, pdw_figure
from labcore.io import atomic_write

STUDY_FIGURES: dict[str, Callable[[Path], go.Figure]] = {
    "e3_design": design_figure,
    "integration": integration_figure,
    "pdw": pdw_figure,
    "pdw_sweep": partial(explorer_headline, name="pdw_sweep"),
    "pdw_held": partial(explorer_headline, name="pdw_held"),
    "neurogym": neurogym_figure,
}
"""Study name -> the builder of its headline figure from its folder."""
FIGURE = "figure.json"


def write_study_figure(name: str, directory: Path | str) -> Path | None:
    """Write ``figure.json`` of study ``name`` in ``directory``; None for a study without one."""
    build = STUDY_FIGURES.get(name)
    if build is None:
        return None
    path = Path(directory) / FIGURE
    fig = build(Path(directory))
    atomic_write(path, lambda tmp: tmp.write_text(fig.to_json(), encoding="utf-8"))
    return path
