"""The E3 design study (``labcore.experiments.e3_design``) shown: titration curves beside the
ceiling an ideal observer of the same workspace reaches. Its answer in words is its template
(``labcore/templates/e3_design.j2``, :func:`labcore.render.answer`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.experiments.e3_design import CURVES, KINDS, ROWS
from labcore.experiments.paper_results import ResultSet
from labcore.experiments.study import LoadedStudy, load_study
from labcore.figures.findings import sentences
from labcore.figures.live import titration_figure
from labcore.figures.paper import titration_curves
from labcore.figures.style import add_note, color_of, empty_figure, label_of

STUDY_NAME = "e3_design"


def design_titration_figure(
    study: LoadedStudy, cell: str, schedule: str = "fast", protocol: str = "stored"
) -> go.Figure:
    """Accuracy vs workspace noise for B1, B2 and B2 workspace-read in one cell of the study:
    mean with SD band, median L75 marked, and each kind's median ceiling (dotted).
    """
    title = f"Design study: {cell}, {schedule} schedule, {protocol} noise"
    curves, tables = study.frame(CURVES.name), study.tables
    if curves is None or curves.empty or tables is None:
        return empty_figure(title, "no design study loaded")
    sel = curves[
        (curves["cell"] == cell)
        & (curves["schedule"] == schedule)
        & (curves["protocol"] == protocol)
    ]
    if sel.empty:
        return empty_figure(title, f"the study has no {schedule}-schedule agents in cell {cell}")
    left_out = excluded_agents(study)
    keep = [
        (c, s, k, int(seed)) not in left_out
        for c, s, k, seed in zip(
            sel["cell"], sel["schedule"], sel["kind"], sel["seed"], strict=True
        )
    ]
    dropped = sel.loc[[not k for k in keep], ["kind", "seed"]].drop_duplicates()
    sel = sel[keep]
    if sel.empty:
        return empty_figure(title, "every agent of this cell missed the training criterion")
    lines, l75 = titration_curves(sel, KINDS, by="kind"), {}
    for kind, (sigmas, _) in lines.items():
        group = tables.group(cell, schedule, protocol, kind)
        if group:
            value = group.l75
            l75[kind] = (
                f"> {max(sigmas):g}" if value is not None and value >= max(sigmas) else value
            )
    fig = titration_figure(lines, l75, title=title)
    top = float(sel["sigma"].max())
    for i, kind in enumerate(lines):
        group = tables.group(cell, schedule, protocol, kind)
        ceiling = group.ceiling if group else None
        if ceiling is None or not np.isfinite(ceiling):
            continue
        shown = min(ceiling, top)
        fig.add_vline(x=shown, line_dash="dot", line_color=color_of(kind), opacity=0.8)
        # labels stacked: the three ceilings often lie within a few hundredths of each other
        fig.add_scatter(
            x=[shown],
            y=[1.04 + 0.07 * i],
            mode="markers+text",
            marker={"symbol": "line-ns-open", "size": 12, "color": color_of(kind)},
            text=[f"ceiling {label_of(kind)}" + (" (beyond)" if ceiling > top else "")],
            textposition="middle right" if shown < 0.6 * top else "middle left",
            showlegend=False,
            hovertemplate=f"ideal-observer L75 of {label_of(kind)}: {ceiling:.3g}<extra></extra>",
        )
    fig.update_yaxes(range=[-0.02, 1.28])
    if len(dropped):
        names = ", ".join(
            f"{label_of(k)} seed {int(sd)}" for k, sd in dropped.itertuples(index=False)
        )
        add_note(fig, f"Left out (below the training criterion): {names}")
    add_note(
        fig, "Dotted lines: the L75 an ideal observer of the same workspace reaches (the ceiling)."
    )
    return fig


def design_figure(directory: Path | str) -> go.Figure:
    """The study's headline figure: the cell closest to the paper's pattern (fast schedule)."""
    study = load_study(STUDY_NAME, directory)
    closest = study.tables.closest.get("fast") if study.tables is not None else None
    if closest is None or not closest.cell:
        return empty_figure("Design study", "; ".join(study.problems) or "no result")
    return design_titration_figure(study, closest.cell, "fast", closest.protocol)


def excluded_agents(study: LoadedStudy) -> set[tuple[str, str, str, int]]:
    """(cell, schedule, kind, seed) of the study's agents below its training criterion."""
    rows = study.frame(ROWS.name)
    if rows is None or study.tables is None:
        return set()
    bad: pd.DataFrame = rows[rows["agreement"] < study.tables.exclude_below]
    return {
        (c, s, k, int(seed))
        for c, s, k, seed in zip(
            bad["cell"], bad["schedule"], bad["kind"], bad["seed"], strict=True
        )
    }


def e3_robustness_verdict(res: ResultSet) -> list[str]:
    """The plain-language verdict on the paper's E3 robustness hierarchy (macro ``hierarchy`` of
    ``figures.j2``), from the result set's own findings.
    """
    return sentences("hierarchy", res)
