"""The report's figures: how to build each from a result set, and its caption's words
(``labcore/templates/figure_list.json``: title, what it shows, the claims the caption lists); and
each registered study's headline figure (``figure.json`` beside its files). Every number in the
prose comes from the result files or from the paper's table; none is typed here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import plotly.graph_objects as go

from labcore.experiments.e4 import ARMS
from labcore.experiments.paper_results import ResultSet
from labcore.figures.explore import design_figure
from labcore.figures.findings import masking_runs, sentences
from labcore.figures.integration import study_figure as integration_figure
from labcore.figures.live import confidence_histogram
from labcore.figures.paper import (
    arms_figure,
    dnrs_by_scale,
    fig1a_accuracy_and_auroc,
    fig1b_type2_roc,
    fig1c_calibration,
    fig1d_risk_coverage,
    fig2a_conjunction_by_capacity,
    fig2b_dual_task_cost,
    fig2c_masking_traces,
    fig3a_l75,
    fig3b_marker_correlations,
    fig3c_titration,
    fig4_attribution,
    gbi_and_ignition_by_capacity,
    learning_curves,
    logits_control,
    table3_pci,
    trial_curves,
)
from labcore.figures.pdw import explorer_headline, neurogym_figure, pdw_figure
from labcore.io import atomic_write
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import TEMPLATES


def _points(res: ResultSet) -> list:
    return (res.figures.get("e3") or {}).get("points") or []


_BUILDERS: dict[str, Callable[[ResultSet], go.Figure]] = {
    "fig1a": lambda r: fig1a_accuracy_and_auroc(r.seed_values),
    "fig1b": lambda r: fig1b_type2_roc(r.trials, r.seed_values),
    "fig1c": lambda r: fig1c_calibration(r.trials),
    "fig1d": lambda r: fig1d_risk_coverage(r.trials),
    "confidence_histogram": lambda r: confidence_histogram(
        trial_curves(r.trials),
        title="Confidence on right (green) and wrong (red) trials",
        paper_marks={"self_off": CLAIMS_BY_ID["e1.confidence.self_off"].paper.value},
    ),
    "logits_control": lambda r: logits_control(r.seed_values),
    "fig2a": lambda r: fig2a_conjunction_by_capacity(r.capacity),
    "fig2b": lambda r: fig2b_dual_task_cost(r.capacity),
    "fig2c": lambda r: fig2c_masking_traces(masking_runs(r)),
    "gbi_ignition": lambda r: gbi_and_ignition_by_capacity(r.seed_values),
    "dnrs": lambda r: dnrs_by_scale(r.seed_values),
    "fig3a": lambda r: fig3a_l75(r.seed_values),
    "fig3b": lambda r: fig3b_marker_correlations(_points(r), r.values),
    "fig3c": lambda r: fig3c_titration(r.titration, r.seed_values),
    "fig4": lambda r: fig4_attribution(r.seed_values),
    "table3": lambda r: table3_pci(r.seed_values),
    "e4_arms": lambda r: arms_figure(r.seed_values, [a.name for a in ARMS]),
    "e4_curves": lambda r: learning_curves(r.e4_curves),
}


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: how to build it and what its caption says."""

    slug: str
    experiment: str
    title: str
    build: Callable[[ResultSet], go.Figure]
    what: str
    """What you are looking at (plain language, no numbers)."""
    claims: tuple[str, ...] = ()
    """Claims whose paper value / ours / verdict the caption lists."""
    paper_note: str = ""
    findings: Callable[[ResultSet], list[str]] | None = None
    """Extra data-driven sentences for "what we found" (a macro of ``figures.j2``)."""
    exploratory: bool = False


def _specs(entries: list[dict]) -> tuple[FigureSpec, ...]:
    return tuple(
        FigureSpec(
            e["slug"],
            e["experiment"],
            e["title"],
            _BUILDERS[e["slug"]],
            e["what"],
            tuple(e.get("claims", ())),
            e.get("paper_note", ""),
            (lambda res, slug=e["slug"]: sentences(slug, res)) if e.get("findings", True) else None,
        )
        for e in entries
    )


_LIST = json.loads((TEMPLATES / "figure_list.json").read_text(encoding="utf-8"))
EXPERIMENT_TITLES = {k: v["title"] for k, v in _LIST["experiments"].items()}
EXPERIMENT_INTROS = {k: v["intro"] for k, v in _LIST["experiments"].items()}
FIGURES = _specs(_LIST["figures"])
E4_FIGURES = _specs(_LIST["e4_figures"])
"""E4 is beyond the paper: kept apart from its FIGURES."""


# The headline figure of each registered study, written beside its files as ``figure.json``
# (plotly JSON: the app and the report draw it offline).
STUDY_FIGURES: dict[str, Callable[[Path], go.Figure]] = {
    "e3_design": design_figure,
    "integration": integration_figure,
    "pdw": pdw_figure,
    "pdw_sweep": partial(explorer_headline, name="pdw_sweep"),
    "pdw_held": partial(explorer_headline, name="pdw_held"),
    "neurogym": neurogym_figure,
}
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
