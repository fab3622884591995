"""Plotly figure builders for the Streamlit pages and the HTML report.

Every builder is a pure function: arrays, dicts or pandas DataFrames in, a
:class:`plotly.graph_objects.Figure` out. Nothing here reads a file or imports Streamlit
(``labcore.report`` reads the result files and calls these builders; the pages call them
with arrays from a single rollout).

Conventions shared by every figure
----------------------------------
- One colour per agent kind, E1 condition and workspace capacity (:data:`PALETTE`), the same
  in every figure; display names in :data:`LABELS`.
- Ours is drawn as the mean +/- SD over seeds (bars or squares) with every seed as a small
  dot; the paper's value, read from :data:`labcore.paper.CLAIMS_BY_ID` (never
  retyped), as a hollow black diamond with the legend entry ``"paper"``. A paper bound such
  as L75 "> 0.50" is a hollow triangle at the bound.
- Chance levels and thresholds are dashed horizontal lines: 1/7 for a dual-task report,
  1/49 for a conjunction, 0.5 for E1 accuracy and Type-2 AUROC, 0.75 for the L75 threshold.
- Censored L75 values (a seed that never dropped to 75% accuracy, or was below it already
  at the smallest noise) are triangles at the bound, as in the paper's Fig. 4.
- A missing or empty input never raises: the builder returns a figure whose only content
  is an annotation saying what is missing (:func:`empty_figure`).

Input tables (the result-file contract, :mod:`labcore.results`)
--------------------------------------------------------------
``seed_values``: columns ``seed``, ``key``, ``value`` (a number, or for censored L75 a
string such as ``"> 0.5"`` / ``"<= 0"``). ``trials``: ``e1_trials.csv`` (``condition``,
``correct``, ``confidence``, ``decision``, ...). ``capacity``: ``e2_capacity.csv``.
``titration``: ``e3_titration.csv``. ``points``: ``figures.json["e3"]["points"]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.markers import (
    calibration_curve,
    pearson_r,
    risk_coverage_curve,
    type2_auroc,
    type2_roc,
)
from labcore.markers.robustness import L75_THRESHOLD
from labcore.paper import CLAIMS_BY_ID, PaperValue, paper_text
from labcore.results import finite as _finite
from labcore.results import fmt as _fmt
from labcore.results import format_l75, ours_text, parse_l75
from labcore.results import seed_raw as _seed_raw

__all__ = [
    "CHANCE_CONJUNCTION",
    "CHANCE_DUAL_TASK",
    "CHANCE_E1",
    "E1_CONDITIONS",
    "LABELS",
    "PALETTE",
    "action_probabilities",
    "calibration_figure",
    "claims_table",
    "color_of",
    "confidence_histogram",
    "dnrs_by_scale",
    "empty_figure",
    "fcs_plane",
    "fig1a_accuracy_and_auroc",
    "fig1b_type2_roc",
    "fig1c_calibration",
    "fig1d_risk_coverage",
    "fig2a_conjunction_by_capacity",
    "fig2b_dual_task_cost",
    "fig2c_masking_traces",
    "fig3a_l75",
    "fig3b_marker_correlations",
    "fig3c_titration",
    "fig4_attribution",
    "format_l75",
    "gbi_and_ignition_by_capacity",
    "internal_state_timeline",
    "label_of",
    "logits_control",
    "masking_figure",
    "osmd_radar",
    "ours_text",
    "parse_l75",
    "pci_bars",
    "risk_coverage_figure",
    "table3_pci",
    "titration_figure",
    "trial_curves",
    "type2_roc_figure",
    "workspace_heatmap",
]

# --------------------------------------------------------------------------- constants

CHANCE_DUAL_TASK = 1 / 7
"""Chance of one dual-task report (7 actions; protocol sec. 2.1)."""
CHANCE_CONJUNCTION = 1 / 49
"""Chance of a conjunction (both reports right) under independent guessing."""
CHANCE_E1 = 0.5
"""Chance of the two-choice wagering task, and of a Type-2 AUROC."""

E1_CONDITIONS = ("self_on", "self_off", "bus_off", "blind_noise", "blind_permute")
"""E1 conditions in display order (the keys of ``e1_trials.csv``)."""
CAPACITY_KEYS = ("k4", "k3", "k2", "k1", "k0")

PALETTE: dict[str, str] = {
    # E1 conditions (paper Fig. 1: self-on green, self-removed red)
    "self_on": "#1b9e77",
    "self_off": "#d62728",
    "bus_off": "#7f7f7f",
    "blind_noise": "#9467bd",
    "blind_permute": "#e377c2",
    # agent kinds
    "a0": "#8c564b",
    "a1": "#bcbd22",
    "b1": "#1f77b4",
    "b1_reg": "#17becf",
    "b1_noise": "#393b79",
    "b2": "#2ca02c",
    "b2_workspace_read": "#98c379",
    "hot_only": "#ff7f0e",
    "bc_linear": "#c49c94",
    "bc_mlp": "#a55194",
    "bc_random": "#ce6dbd",
    # workspace capacity (B1): full capacity is B1's own colour, bus-off grey
    "k4": "#1f77b4",
    "k3": "#4a98d3",
    "k2": "#7fb7e6",
    "k1": "#aecde8",
    "k0": "#7f7f7f",
    # E1 logits control
    "zself": "#1b9e77",
    "logits_max_softmax": "#e6a117",
    "logits_neg_entropy": "#b8860b",
    # outcomes and reference marks
    "correct": "#1b9e77",
    "error": "#d62728",
    "paper": "#111111",
    "chance": "#888888",
    "registered": "#4c72b0",
    "exploratory": "#dd8452",
}
"""One colour per agent kind, E1 condition, capacity and mark, shared by every figure."""

LABELS: dict[str, str] = {
    "self_on": "self-model on",
    "self_off": "self-model zeroed",
    "bus_off": "workspace off (self-model on)",
    "blind_noise": "z_self replaced by noise",
    "blind_permute": "z_self shuffled across trials",
    "a0": "A0 (feed-forward)",
    "a1": "A1 (recurrent)",
    "b1": "B1 (workspace, GWT)",
    "b1_reg": "B1 + dropout/weight decay",
    "b1_noise": "B1 + noise training",
    "b2": "B2 (policy reads z_self)",
    "b2_workspace_read": "B2 workspace-read, self-model off",
    "hot_only": "HOT-only (no workspace)",
    "bc_linear": "BC-only linear",
    "bc_mlp": "BC-only MLP",
    "bc_random": "BC-only random projection",
    "k4": "4 slots",
    "k3": "3 slots",
    "k2": "2 slots",
    "k1": "1 slot",
    "k0": "bus off (0 slots)",
    "zself": "confidence head (reads z_self)",
    "logits_max_softmax": "logits: max softmax",
    "logits_neg_entropy": "logits: negative entropy",
}
"""Display names of the keys of :data:`PALETTE`."""

_FALLBACK_COLOURS = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
_TEMPLATE = "plotly_white"
_FONT = {"family": "Helvetica, Arial, sans-serif", "size": 14}
OURS = "ours (mean ± SD over seeds)"
SEEDS = "seeds"
PAPER = "paper"
PAPER_BOUND = "paper (lower bound)"
_JITTER = 0.14
_PAPER_OFFSET = 0.34
_UNITS_SIGMA = "noise SD σ (units of the slot's own SD)"


def color_of(key: str) -> str:
    """Colour of an agent kind / condition / capacity key; a stable fallback otherwise.

    >>> color_of("b1")
    '#1f77b4'
    >>> color_of("something new") == color_of("something new")
    True
    """
    if key in PALETTE:
        return PALETTE[key]
    return _FALLBACK_COLOURS[sum(map(ord, str(key))) % len(_FALLBACK_COLOURS)]


def label_of(key: str) -> str:
    """Display name of a key (the key itself if it has none).

    >>> label_of("b2"), label_of("mine")
    ('B2 (policy reads z_self)', 'mine')
    """
    return LABELS.get(key, str(key))


# --------------------------------------------------------------------------- small helpers


def _paper(claim_id: str) -> PaperValue | None:
    """The paper's value of a claim, or None if the claim or its value is not in the table."""
    spec = CLAIMS_BY_ID.get(claim_id)
    if spec is None or spec.paper.value is None:
        return None
    return spec.paper


def _escape_plotly(text: str) -> str:
    """Neutralise plotly's pseudo-HTML in free text (tags and entities shown literally)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def empty_figure(title: str, message: str) -> go.Figure:
    """A figure with no data and a visible note saying what is missing.

    Parameters
    ----------
    title : str
        The title the full figure would have had.
    message : str
        What is missing, e.g. ``"no E2 results in this run"``.

    Returns
    -------
    go.Figure
        No traces; one annotation ``"Not available: <message>"``.

    Examples
    --------
    >>> fig = empty_figure("Fig. 2a", "no E2 results")
    >>> fig.layout.annotations[0].text
    'Not available: no E2 results'
    """
    fig = go.Figure()
    fig.add_annotation(
        text=f"Not available: {message}",
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        showarrow=False,
        font={"size": 16, "color": "#666"},
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    _style(fig, title, height=260)
    return fig


def _legend_entries(fig: go.Figure) -> int:
    seen = set()
    for trace in fig.data:
        if trace.type == "table" or trace.showlegend is False:
            continue
        seen.add(trace.legendgroup or trace.name)
    return len(seen)


def _style(fig: go.Figure, title: str, height: int = 460, legend_below: bool = True) -> go.Figure:
    """House layout: white template, readable fonts, title top left, legend under the axes.

    The legend sits at the bottom of the figure (container coordinates) in a bottom margin
    sized for the tick labels, the axis title and an estimate of the legend's rows, so it
    never covers data.
    """
    entries = _legend_entries(fig)
    title = _wrap_title(title)
    rows = math.ceil(entries / 3) if legend_below and entries else 0
    bottom = 120 + 24 * rows if legend_below and entries else 70
    fig.update_layout(
        template=_TEMPLATE,
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 17}},
        font=_FONT,
        height=height + (bottom - 70) + 22 * title.count("<br>"),
        margin={"l": 80, "r": 30, "t": 95 + 22 * title.count("<br>"), "b": bottom},
        hoverlabel={"font_size": 13},
    )
    if legend_below:
        fig.update_layout(
            legend={
                "orientation": "h",
                "yref": "container",
                "yanchor": "bottom",
                "y": 0.0,
                "xanchor": "left",
                "x": 0.0,
                "font": {"size": 12},
            }
        )
    return fig


def _wrap_title(text: str, width: int = 58) -> str:
    """Break a long title at word boundaries (plotly does not wrap; half-width columns clip)."""
    if len(text) <= width or "<br>" in text:
        return text
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(lines)


def _note(fig: go.Figure, text: str) -> None:
    """Add a short caveat under the figure title (plotly subtitle), never over the data."""
    old = fig.layout.title.subtitle.text if fig.layout.title and fig.layout.title.subtitle else None
    fig.update_layout(
        title_subtitle_text=f"{old}; {text}" if old else text,
        title_subtitle_font={"size": 12, "color": "#a33"},
    )


def _hline(
    fig: go.Figure,
    y: float,
    text: str,
    *,
    row: int | None = None,
    col: int | None = None,
    dash: str = "dash",
    color: str | None = None,
) -> None:
    kwargs = {"row": row, "col": col} if row is not None else {}
    fig.add_hline(
        y=y,
        line={"dash": dash, "color": color or PALETTE["chance"], "width": 1.5},
        annotation_text=text,
        annotation_position="top right",
        annotation_font={"size": 11, "color": color or "#666"},
        **kwargs,
    )


def _has(df: Any, columns: Iterable[str]) -> bool:
    return isinstance(df, pd.DataFrame) and not df.empty and set(columns) <= set(df.columns)


def _seed_numbers(seed_values: pd.DataFrame | None, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(seeds, values) of one key, numeric and finite only, sorted by seed."""
    if not _has(seed_values, ("seed", "key", "value")):
        return np.array([], int), np.array([], float)
    rows = seed_values[seed_values["key"] == key]
    vals = pd.to_numeric(rows["value"], errors="coerce").to_numpy(float)
    seeds = rows["seed"].to_numpy()
    keep = np.isfinite(vals)
    order = np.argsort(seeds[keep], kind="stable")
    return seeds[keep][order], vals[keep][order]


def _jitter(n: int) -> np.ndarray:
    return np.zeros(n) if n <= 1 else np.linspace(-_JITTER, _JITTER, n)


def _mean_sd(values: np.ndarray) -> tuple[float, float]:
    if values.size == 0:
        return math.nan, math.nan
    if values.size == 1 or np.ptp(values) == 0:  # exactly constant: SD 0, not a rounding residue
        return float(values.mean()), 0.0
    return float(values.mean()), float(values.std(ddof=1))


@dataclass(frozen=True)
class _Group:
    """One x position of a seed-summary panel."""

    key: str
    seeds: np.ndarray
    values: np.ndarray
    paper: PaperValue | None = None
    label: str | None = None
    note: str = ""

    @property
    def name(self) -> str:
        return self.label or label_of(self.key)


def _add_seed_bars(
    fig: go.Figure,
    groups: Sequence[_Group],
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
    unit: str = "",
) -> None:
    """Bars (mean +/- SD over seeds), one dot per seed, the paper's value as a hollow diamond."""
    rc = {"row": row, "col": col} if row is not None else {}
    x = np.arange(len(groups), dtype=float)
    stats = [_mean_sd(g.values) for g in groups]
    hover = [
        f"<b>{g.name}</b><br>ours: {_fmt(m)} ± {_fmt(s, 2)}{unit} (n = {g.values.size} seeds)"
        + (f"<br>{g.note}" if g.note else "")
        for g, (m, s) in zip(groups, stats, strict=True)
    ]
    fig.add_trace(
        go.Bar(
            x=x,
            y=[m for m, _ in stats],
            error_y={"type": "data", "array": [s for _, s in stats], "visible": True, "color": "#333"},
            marker={"color": [color_of(g.key) for g in groups], "opacity": 0.8},
            width=0.55,
            name=OURS,
            legendgroup="ours",
            showlegend=legend,
            hovertext=hover,
            hoverinfo="text",
        ),
        **rc,
    )
    sx, sy, sc, sh = [], [], [], []
    for i, g in enumerate(groups):
        sx += list(i + _jitter(g.values.size))
        sy += list(g.values)
        sc += [color_of(g.key)] * g.values.size
        sh += [f"{g.name}<br>seed {s}: {_fmt(v)}{unit}" for s, v in zip(g.seeds, g.values, strict=True)]
    fig.add_trace(
        go.Scatter(
            x=sx,
            y=sy,
            mode="markers",
            name=SEEDS,
            legendgroup="seeds",
            showlegend=legend,
            marker={"size": 7, "color": sc, "line": {"width": 1, "color": "#333"}},
            hovertext=sh,
            hoverinfo="text",
        ),
        **rc,
    )
    _add_paper_marks(
        fig, [(i + _PAPER_OFFSET, g.paper, g.name) for i, g in enumerate(groups)], legend=legend, **rc
    )
    for i, g in enumerate(groups):
        if g.values.size == 0:
            fig.add_annotation(
                x=i,
                y=0,
                text=g.note or "no data",
                showarrow=False,
                yanchor="bottom",
                font={"size": 11, "color": "#999"},
                **_axref(fig, row, col),
            )
    _category_axis(fig, [g.name for g in groups], **rc)


def _axref(fig: go.Figure, row: int | None, col: int | None) -> dict:
    if row is None:
        return {}
    sub = fig.get_subplot(row, col)
    return {
        "xref": sub.xaxis.plotly_name.replace("axis", ""),
        "yref": sub.yaxis.plotly_name.replace("axis", ""),
    }


def _add_paper_marks(
    fig: go.Figure,
    marks: Sequence[tuple[float, PaperValue | None, str]],
    *,
    legend: bool = True,
    y_of_x: bool = False,
    **rc,
) -> None:
    """Hollow diamonds (values, with the paper's SD as error bar) and hollow triangles (bounds)."""
    values = [(x, p, name) for x, p, name in marks if p is not None and not p.bound]
    bounds = [(x, p, name) for x, p, name in marks if p is not None and p.bound]
    if values:
        fig.add_trace(
            go.Scatter(
                x=[x for x, _, _ in values],
                y=[p.value for _, p, _ in values],
                mode="markers",
                name=PAPER,
                legendgroup="paper",
                showlegend=legend,
                marker={
                    "symbol": "diamond-open",
                    "size": 13,
                    "color": PALETTE["paper"],
                    "line": {"width": 2.5},
                },
                error_y={
                    "type": "data",
                    "array": [p.sd or 0.0 for _, p, _ in values],
                    "visible": True,
                    "color": PALETTE["paper"],
                    "thickness": 1.2,
                    "width": 4,
                },
                hovertext=[
                    f"<b>{n}</b><br>paper: {paper_text(p)} (sec. {p.section})" for _, p, n in values
                ],
                hoverinfo="text",
            ),
            **rc,
        )
    if bounds:
        fig.add_trace(
            go.Scatter(
                x=[x for x, _, _ in bounds],
                y=[p.value for _, p, _ in bounds],
                mode="markers+text",
                name=PAPER_BOUND,
                legendgroup="paper_bound",
                showlegend=legend,
                text=[paper_text(p) for _, p, _ in bounds],
                textposition="top center",
                textfont={"size": 11},
                marker={
                    "symbol": "triangle-up-open",
                    "size": 13,
                    "color": PALETTE["paper"],
                    "line": {"width": 2.5},
                },
                hovertext=[
                    f"<b>{n}</b><br>paper: {paper_text(p)} (sec. {p.section}; censored at the largest "
                    f"tested σ)"
                    for _, p, n in bounds
                ],
                hoverinfo="text",
            ),
            **rc,
        )


def _category_axis(fig: go.Figure, names: Sequence[str], **rc) -> None:
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(len(names))),
        ticktext=[_wrap_tick(n) for n in names],
        range=[-0.6, len(names) - 0.4],
        **rc,
    )


def _wrap_tick(text: str, width: int = 16) -> str:
    """Break a tick label into lines of about ``width`` characters (plotly ``<br>``)."""
    words, lines, line = str(text).split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    lines.append(line)
    return "<br>".join(lines)


def _add_l75_groups(
    fig: go.Figure,
    groups: Sequence[tuple[str, list[tuple[Any, Any]], PaperValue | None]],
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
    label: Mapping[str, str] | None = None,
) -> None:
    """Per-seed L75 (dots, censored seeds as triangles at the bound), mean +/- SD as squares."""
    rc = {"row": row, "col": col} if row is not None else {}
    names = [(label or {}).get(k, label_of(k)) for k, _, _ in groups]
    mx, my, msd, mcol, mhover = [], [], [], [], []
    seeds: dict[str, list] = {"none": [], "right": [], "left": []}
    for i, (key, raw, _paper_value) in enumerate(groups):
        parsed = [(seed, *parse_l75(v)) for seed, v in raw]
        parsed = [p for p in parsed if p[2] != "missing"]
        text, mean, sd = format_l75([p[1:] for p in parsed])
        if _finite(mean):
            mx.append(i)
            my.append(mean)
            msd.append(sd)
            mcol.append(color_of(key))
            mhover.append(f"<b>{names[i]}</b><br>ours: {text}")
        offsets = _jitter(len(parsed))
        for off, (seed, value, censored, bound) in zip(offsets, parsed, strict=True):
            what = {
                "none": f"L75 = {_fmt(value)}",
                "right": f"L75 > {bound:g}: accuracy never dropped to 75%",
                "left": f"L75 <= {bound:g}: accuracy at or below 75% already at σ = {bound:g}",
            }[censored]
            seeds[censored].append(
                (i + off, bound, color_of(key), f"<b>{names[i]}</b><br>seed {seed}: {what}")
            )
        if not parsed:
            fig.add_annotation(
                x=i,
                y=0,
                text="no data",
                showarrow=False,
                yanchor="bottom",
                font={"size": 11, "color": "#999"},
                **_axref(fig, row, col),
            )
    if mx:
        fig.add_trace(
            go.Scatter(
                x=mx,
                y=my,
                mode="markers",
                name="ours: mean ± SD of seeds that crossed",
                legendgroup="ours",
                showlegend=legend,
                error_y={"type": "data", "array": msd, "visible": True, "color": "#333"},
                marker={
                    "symbol": "square",
                    "size": 14,
                    "color": mcol,
                    "line": {"width": 1.5, "color": "#333"},
                },
                hovertext=mhover,
                hoverinfo="text",
            ),
            **rc,
        )
    styles = {
        "none": ("circle", SEEDS, 7),
        "right": ("triangle-up", "seed never dropped to 75% (L75 > largest σ)", 11),
        "left": ("triangle-down", "seed at or below 75% already at the smallest σ", 11),
    }
    for kind, pts in seeds.items():
        if not pts:
            continue
        symbol, name, size = styles[kind]
        fig.add_trace(
            go.Scatter(
                x=[p[0] for p in pts],
                y=[p[1] for p in pts],
                mode="markers",
                name=name,
                legendgroup=f"seeds_{kind}",
                showlegend=legend,
                marker={
                    "symbol": symbol,
                    "size": size,
                    "color": [p[2] for p in pts],
                    "line": {"width": 1, "color": "#333"},
                },
                hovertext=[p[3] for p in pts],
                hoverinfo="text",
            ),
            **rc,
        )
    _add_paper_marks(
        fig,
        [(i + _PAPER_OFFSET, p, names[i]) for i, (_, _, p) in enumerate(groups)],
        legend=legend,
        **rc,
    )
    _category_axis(fig, names, **rc)


# --------------------------------------------------------------------------- E1 (HOT)


def trial_curves(
    trials: pd.DataFrame | None, conditions: Sequence[str] = E1_CONDITIONS
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``e1_trials.csv`` -> ``{condition: (correct, confidence)}``, pooled over seeds.

    Keeps the trials the pipeline scores (a decision was made and the confidence is finite),
    conditions in the given order, skipping those without trials.

    Parameters
    ----------
    trials : DataFrame
        Columns ``condition``, ``correct`` (0/1), ``confidence`` (may be empty), and
        optionally ``decision`` (-1 = none).
    conditions : sequence of str
        Which conditions, in display order.

    Returns
    -------
    dict
        ``{condition: (correct bool array, confidence float array)}``.
    """
    if not _has(trials, ("condition", "correct", "confidence")):
        return {}
    out = {}
    for cond in conditions:
        rows = trials[trials["condition"] == cond]
        conf = pd.to_numeric(rows["confidence"], errors="coerce").to_numpy(float)
        keep = np.isfinite(conf)
        if "decision" in rows:
            keep &= rows["decision"].to_numpy() >= 0
        if keep.any():
            out[cond] = (rows["correct"].to_numpy()[keep].astype(bool), conf[keep])
    return out


def fig1a_accuracy_and_auroc(seed_values: pd.DataFrame | None) -> go.Figure:
    """Fig. 1a: first-order accuracy (left) and Type-2 AUROC (right) per E1 condition.

    Parameters
    ----------
    seed_values : DataFrame
        ``seed_values.csv`` (keys ``e1.accuracy.<condition>``, ``e1.auroc.<condition>``).

    Returns
    -------
    go.Figure
        Two panels; per panel a bar trace ``OURS``, a ``"seeds"`` trace and ``"paper"``
        diamonds (claims ``e1.accuracy.*``, ``e1.auroc.*``); dashed chance line at 0.5.
    """
    title = "Fig. 1a: doing vs knowing: task accuracy and Type-2 AUROC by condition"
    conds = [
        c
        for c in E1_CONDITIONS
        if _seed_numbers(seed_values, f"e1.accuracy.{c}")[1].size
        or _seed_numbers(seed_values, f"e1.auroc.{c}")[1].size
    ]
    if not conds:
        return empty_figure(title, "no E1 per-seed values (seed_values.csv without e1.* keys)")
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("First-order task accuracy (doing)", "Type-2 AUROC (knowing that you know)"),
        horizontal_spacing=0.1,
    )
    for col, metric in ((1, "accuracy"), (2, "auroc")):
        groups = [
            _Group(c, *_seed_numbers(seed_values, f"e1.{metric}.{c}"), _paper(f"e1.{metric}.{c}"))
            for c in conds
        ]
        _add_seed_bars(fig, groups, row=1, col=col, legend=col == 1)
        _hline(fig, CHANCE_E1, "chance 0.5", row=1, col=col)
    fig.update_yaxes(title_text="accuracy (fraction correct)", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="Type-2 AUROC (0.5 = no insight)", range=[0, 1.05], row=1, col=2)
    return _style(fig, title, height=520)


def type2_roc_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    paper_auroc: float | Mapping[str, float] | None = None,
    *,
    seed_aurocs: Mapping[str, Sequence[float]] | None = None,
    title: str = "Type-2 ROC: does confidence separate correct from wrong answers?",
) -> go.Figure:
    """Type-2 ROC curves (left) and their AUROC beside the paper's (right).

    Parameters
    ----------
    curves : mapping
        ``{key: (correct, confidence)}``, 1-D arrays of equal length per key. Keys are
        condition / agent keys (colours from :data:`PALETTE`) or any label.
    paper_auroc : float or mapping, optional
        The paper's AUROC: one number (drawn against the first key) or ``{key: value}``.
    seed_aurocs : mapping, optional
        ``{key: per-seed AUROCs}``. When given, the right panel shows their mean +/- SD
        and the seeds (the seed is the unit of analysis); otherwise the AUROC of the pooled
        trials. Pooling trials of several seeds can move an AUROC away from every seed's own
        value (e.g. seeds with different constant confidences pool to a value != 0.5).
    title : str

    Returns
    -------
    go.Figure
        One line per key (named by :func:`label_of`, pooled AUROC in the legend), a dashed
        ``"chance (diagonal)"`` line; right panel: ``OURS`` bars and ``"seeds"`` (with
        ``seed_aurocs``) or a ``"ours (pooled trials)"`` marker trace, and ``"paper"``
        diamonds if given.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    if paper_auroc is not None and not isinstance(paper_auroc, Mapping):
        paper_auroc = {next(iter(curves)): float(paper_auroc)}
    paper_auroc = dict(paper_auroc or {})
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.62, 0.38],
        horizontal_spacing=0.12,
        subplot_titles=("ROC curve (pooled trials)", "Area under the curve"),
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="chance (diagonal)",
            line={"dash": "dash", "color": PALETTE["chance"]},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    keys, aurocs = [], []
    for key, (correct, confidence) in curves.items():
        correct = np.asarray(correct, bool)
        confidence = np.asarray(confidence, float)
        if correct.all() or not correct.any():
            auc, fpr, tpr = math.nan, np.array([]), np.array([])
        else:
            fpr, tpr, _ = type2_roc(correct, confidence)
            auc = type2_auroc(correct, confidence)
        keys.append(key)
        aurocs.append(auc)
        fig.add_trace(
            go.Scatter(
                x=fpr,
                y=tpr,
                mode="lines",
                name=f"{label_of(key)} (AUROC {_fmt(auc)})",
                line={"color": color_of(key), "width": 3, "shape": "linear"},
                hovertemplate=f"{label_of(key)}<br>false alarms %{{x:.2f}}<br>hits %{{y:.2f}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        if not _finite(auc):
            _note(fig, f"{label_of(key)}: AUROC undefined (all trials correct or all wrong)")
    papers = {
        k: PaperValue(float(paper_auroc[k]))
        for k in keys
        if k in paper_auroc and _finite(paper_auroc[k])
    }
    if seed_aurocs:
        groups = []
        for k in keys:
            vals = np.asarray([v for v in seed_aurocs.get(k, []) if _finite(v)], float)
            groups.append(_Group(k, np.arange(vals.size), vals, papers.get(k)))
        _add_seed_bars(fig, groups, row=1, col=2)
    else:
        fig.add_trace(
            go.Scatter(
                x=list(range(len(keys))),
                y=aurocs,
                mode="markers",
                name="ours (pooled trials)",
                marker={
                    "size": 13,
                    "symbol": "square",
                    "color": [color_of(k) for k in keys],
                    "line": {"width": 1, "color": "#333"},
                },
                hovertext=[
                    f"{label_of(k)}: AUROC {_fmt(a)} (n = {len(curves[k][0])} trials)"
                    for k, a in zip(keys, aurocs, strict=True)
                ],
                hoverinfo="text",
                showlegend=False,
            ),
            row=1,
            col=2,
        )
        _add_paper_marks(
            fig,
            [(i + _PAPER_OFFSET, papers.get(k), label_of(k)) for i, k in enumerate(keys)],
            row=1,
            col=2,
        )
        _category_axis(fig, [label_of(k) for k in keys], row=1, col=2)
    _hline(fig, CHANCE_E1, "chance 0.5", row=1, col=2)
    fig.update_xaxes(
        title_text="false-alarm rate (wrong trials with c > t)",
        range=[0, 1],
        constrain="domain",
        row=1,
        col=1,
    )
    fig.update_yaxes(
        title_text="type-2 hit rate (fraction)", range=[0, 1.02], scaleanchor="x", constrain="domain",
        row=1, col=1,
    )
    fig.update_yaxes(title_text="Type-2 AUROC", range=[0.3, 1.02], row=1, col=2)
    return _style(fig, title, height=560)


def fig1b_type2_roc(trials: pd.DataFrame | None, seed_values: pd.DataFrame | None = None) -> go.Figure:
    """Fig. 1b: Type-2 ROC per E1 condition, trials pooled over seeds.

    Paper AUROC per condition from claims ``e1.auroc.<condition>`` (0.92 self-on, 0.50
    self-removed, ...). With ``seed_values`` the right panel shows the per-seed AUROCs
    (``e1.auroc.<condition>``), as in Fig. 1a. See :func:`type2_roc_figure`.
    """
    paper = {c: _paper(f"e1.auroc.{c}").value for c in E1_CONDITIONS if _paper(f"e1.auroc.{c}")}
    curves = trial_curves(trials)
    seeds = (
        {c: _seed_numbers(seed_values, f"e1.auroc.{c}")[1] for c in curves}
        if seed_values is not None
        else None
    )
    if seeds is not None and not any(v.size for v in seeds.values()):
        seeds = None
    return type2_roc_figure(
        curves,
        paper,
        seed_aurocs=seeds,
        title="Fig. 1b: Type-2 ROC: does confidence separate correct from wrong trials?",
    )


def calibration_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    *,
    n_bins: int = 10,
    paper_points: Mapping[str, tuple[float, float]] | None = None,
    title: str = "Calibration: is confidence the probability of being right?",
) -> go.Figure:
    """Reliability diagram: accuracy against mean confidence in equal-width bins.

    Parameters
    ----------
    curves : mapping
        ``{key: (correct, confidence)}`` with confidence in [0, 1].
    n_bins : int
        Number of equal-width confidence bins (empty bins are not drawn).
    paper_points : mapping, optional
        ``{key: (confidence, accuracy)}`` the paper reports (e.g. the self-removed agent's
        constant confidence 0.54 at accuracy 0.882), drawn as ``"paper"`` diamonds.

    Returns
    -------
    go.Figure
        One line per key (marker size ~ trials in the bin), the dashed diagonal
        ``"perfect calibration"`` and a dotted 0.5 line (bet / opt-out threshold).
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="perfect calibration",
            line={"dash": "dash", "color": PALETTE["chance"]},
            hoverinfo="skip",
        )
    )
    for key, (correct, confidence) in curves.items():
        conf = np.clip(np.asarray(confidence, float), 0.0, 1.0)
        cc = calibration_curve(np.asarray(correct, bool), conf, n_bins=n_bins)
        m = cc.nonempty
        size = 7 + 18 * np.sqrt(cc.counts[m] / max(cc.counts.max(), 1))
        fig.add_trace(
            go.Scatter(
                x=cc.mean_confidence[m],
                y=cc.accuracy[m],
                mode="lines+markers",
                name=label_of(key),
                line={"color": color_of(key), "width": 2.5},
                marker={"size": size, "color": color_of(key)},
                hovertext=[
                    f"{label_of(key)}<br>confidence {c:.2f}, accuracy {a:.2f}<br>{n} trials"
                    for c, a, n in zip(cc.mean_confidence[m], cc.accuracy[m], cc.counts[m], strict=True)
                ],
                hoverinfo="text",
            )
        )
    if paper_points:
        pts = [(k, c, a) for k, (c, a) in paper_points.items() if _finite(c) and _finite(a)]
        if pts:
            fig.add_trace(
                go.Scatter(
                    x=[c for _, c, _ in pts],
                    y=[a for _, _, a in pts],
                    mode="markers",
                    name=PAPER,
                    marker={
                        "symbol": "diamond-open",
                        "size": 14,
                        "color": PALETTE["paper"],
                        "line": {"width": 2.5},
                    },
                    hovertext=[
                        f"paper, {label_of(k)}: confidence {c:g}, accuracy {a:g}" for k, c, a in pts
                    ],
                    hoverinfo="text",
                )
            )
    fig.add_vline(
        x=0.5,
        line={"dash": "dot", "color": PALETTE["chance"]},
        annotation_text="bet above 0.5",
        annotation_position="bottom right",
        annotation_font={"size": 11, "color": "#666"},
    )
    fig.update_xaxes(title_text="mean confidence in the bin (0-1)", range=[0, 1.02])
    fig.update_yaxes(title_text="accuracy in the bin (fraction correct)", range=[0, 1.05])
    return _style(fig, title, height=520)


def fig1c_calibration(trials: pd.DataFrame | None) -> go.Figure:
    """Fig. 1c: calibration per E1 condition (pooled trials).

    The paper's self-removed point is (claim ``e1.confidence.self_off``, claim
    ``e1.accuracy.self_off``): a constant confidence of 0.54 at 88.2% accuracy.
    """
    conf, acc = _paper("e1.confidence.self_off"), _paper("e1.accuracy.self_off")
    paper = {"self_off": (conf.value, acc.value)} if conf and acc else None
    return calibration_figure(
        trial_curves(trials),
        paper_points=paper,
        title="Fig. 1c: calibration: confidence against the fraction of correct trials",
    )


def risk_coverage_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    title: str = "Selective prediction: error rate when answering only the most confident trials",
) -> go.Figure:
    """Risk-coverage curves (lower is better) with the AURC in the legend.

    Parameters
    ----------
    curves : mapping
        ``{key: (correct, confidence)}``.

    Returns
    -------
    go.Figure
        One line per key, named ``"<label> (AURC x)"``.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    fig = go.Figure()
    for key, (correct, confidence) in curves.items():
        rc = risk_coverage_curve(np.asarray(correct, bool), np.asarray(confidence, float))
        aurc = float(rc.risk.mean())
        step = max(1, rc.coverage.size // 400)  # at most ~400 points per line
        fig.add_trace(
            go.Scatter(
                x=rc.coverage[::step],
                y=rc.risk[::step],
                mode="lines",
                name=f"{label_of(key)} (AURC {_fmt(aurc)})",
                line={"color": color_of(key), "width": 2.5},
                hovertemplate=f"{label_of(key)}<br>answering %{{x:.0%}} of trials<br>error rate %{{y:.3f}}"
                "<extra></extra>",
            )
        )
    fig.update_xaxes(
        title_text="coverage (fraction of trials answered, most confident first)", range=[0, 1.01]
    )
    fig.update_yaxes(title_text="risk (error rate among answered, fraction)", rangemode="tozero")
    return _style(fig, title, height=480)


def fig1d_risk_coverage(trials: pd.DataFrame | None) -> go.Figure:
    """Fig. 1d: wagering utility as risk-coverage curves per E1 condition (AURC, lower is better).

    The paper gives no number for this panel.
    """
    return risk_coverage_figure(
        trial_curves(trials),
        title="Fig. 1d: selective prediction: error rate when betting only on the most confident trials",
    )


def confidence_histogram(
    curves: Mapping[str, tuple[Any, Any]] | None,
    *,
    paper_marks: Mapping[str, float] | None = None,
    n_bins: int = 25,
    title: str = "Confidence on correct and wrong trials",
) -> go.Figure:
    """Histograms of confidence, correct vs wrong trials, one row per key.

    Parameters
    ----------
    curves : mapping
        ``{key: (correct, confidence)}`` (confidence in [0, 1]).
    paper_marks : mapping, optional
        ``{key: confidence}`` the paper reports for that key (e.g. the self-removed constant
        0.54), drawn as a ``"paper"`` diamond on the row's axis.
    n_bins : int

    Returns
    -------
    go.Figure
        Per row two bar traces ``"correct trials"`` and ``"wrong trials"`` (fraction of that
        row's trials; row titles name the keys), a dotted bet threshold at 0.5.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    keys = list(curves)
    fig = make_subplots(
        rows=len(keys),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=[label_of(k) for k in keys],
    )
    edges = np.linspace(0, 1, n_bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    paper_marks = dict(paper_marks or {})
    for r, key in enumerate(keys, start=1):
        correct = np.asarray(curves[key][0], bool)
        conf = np.clip(np.asarray(curves[key][1], float), 0, 1)
        n = max(conf.size, 1)
        for outcome, mask in (("correct", correct), ("wrong", ~correct)):
            counts, _ = np.histogram(conf[mask], bins=edges)
            colour = PALETTE["correct"] if outcome == "correct" else PALETTE["error"]
            fig.add_trace(
                go.Bar(
                    x=centers,
                    y=counts / n,
                    width=1 / n_bins,
                    name=f"{outcome} trials",
                    marker={"color": colour, "opacity": 0.6},
                    legendgroup=outcome,
                    showlegend=r == 1,
                    hovertemplate=f"{label_of(key)}, {outcome} trials<br>confidence %{{x:.2f}}<br>"
                    "%{y:.1%} of this condition's trials<extra></extra>",
                ),
                row=r,
                col=1,
            )
        fig.add_vline(x=0.5, line={"dash": "dot", "color": PALETTE["chance"]}, row=r, col=1)
        if key in paper_marks and _finite(paper_marks[key]):
            fig.add_trace(
                go.Scatter(
                    x=[paper_marks[key]],
                    y=[0],
                    mode="markers",
                    name=PAPER,
                    legendgroup="paper",
                    showlegend=not any(t.name == PAPER for t in fig.data),
                    marker={
                        "symbol": "diamond-open",
                        "size": 14,
                        "color": PALETTE["paper"],
                        "line": {"width": 2.5},
                    },
                    hovertext=f"paper: {label_of(key)} confidence {paper_marks[key]:g}",
                    hoverinfo="text",
                ),
                row=r,
                col=1,
            )
        fig.update_yaxes(title_text="fraction", row=r, col=1, rangemode="tozero")
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title_text="confidence (0-1; bet if above 0.5)", range=[0, 1], row=len(keys), col=1)
    return _style(fig, title, height=170 + 150 * len(keys))


def logits_control(seed_values: pd.DataFrame | None) -> go.Figure:
    """Control not in the paper: is the metacognitive signal already in the policy's logits?

    Type-2 AUROC per seed of the confidence head (reads z_self; key ``e1.auroc.self_on``)
    against two confidences computed from the intact policy's logits at the choice point
    (``e1.auroc.logits_max_softmax``, ``e1.auroc.logits_neg_entropy``). The paper's 0.92 is
    drawn for the z_self confidence only (it reports no logits control).
    """
    title = "Control: Type-2 AUROC of z_self's confidence vs confidence read off the logits"
    keys = {
        "zself": "e1.auroc.self_on",
        "logits_max_softmax": "e1.auroc.logits_max_softmax",
        "logits_neg_entropy": "e1.auroc.logits_neg_entropy",
    }
    groups = [
        _Group(k, *_seed_numbers(seed_values, key), _paper(key) if k == "zself" else None)
        for k, key in keys.items()
    ]
    if not any(g.values.size for g in groups):
        return empty_figure(title, "no E1 per-seed AUROC values")
    fig = go.Figure()
    _add_seed_bars(fig, groups)
    _hline(fig, CHANCE_E1, "chance 0.5")
    fig.update_yaxes(title_text="Type-2 AUROC (0.5 = no insight)", range=[0, 1.05])
    return _style(fig, title, height=480)


# --------------------------------------------------------------------------- E2 (GWT)


_SHORT = {
    "k4": "4 slots",
    "k3": "3 slots",
    "k2": "2 slots",
    "k1": "1 slot",
    "k0": "bus off",
    "a0": "A0",
    "a1": "A1",
}


def _capacity_groups(
    capacity: pd.DataFrame, metric: str, slots: Sequence[int], baselines: bool, short: bool = False
) -> list[_Group]:
    groups = []
    b1 = capacity[capacity["agent"] == "b1"]
    cap = pd.to_numeric(b1["capacity"], errors="coerce")
    for k in slots:
        rows = b1[cap == k]
        vals = pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
        keep = np.isfinite(vals)
        groups.append(
            _Group(
                f"k{k}",
                rows["seed"].to_numpy()[keep],
                vals[keep],
                _paper(f"e2.{metric}.k{k}"),
                label=_SHORT[f"k{k}"] if short else None,
            )
        )
    if baselines:
        for kind in ("a0", "a1"):
            rows = capacity[capacity["agent"] == kind]
            vals = pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
            keep = np.isfinite(vals)
            groups.append(
                _Group(
                    kind,
                    rows["seed"].to_numpy()[keep],
                    vals[keep],
                    _paper(f"e2.{metric}.{kind}"),
                    label=_SHORT[kind] if short else None,
                )
            )
    return groups


_E2_COLUMNS = ("agent", "seed", "capacity", "per_step", "decision", "conjunction")


def fig2a_conjunction_by_capacity(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2a: B1's conjunction accuracy at 4, 2 and 0 slots, with A0 / A1 for reference.

    Parameters
    ----------
    capacity : DataFrame
        ``e2_capacity.csv`` (one row per agent, seed and capacity).

    Returns
    -------
    go.Figure
        ``OURS`` bars, ``"seeds"`` dots, ``"paper"`` diamonds (claims
        ``e2.conjunction.k4/k2/k0``), and a dashed chance line at 1/49.
    """
    title = "Fig. 2a: conjunction accuracy (both reports right) by workspace capacity"
    if not _has(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    fig = go.Figure()
    _add_seed_bars(fig, _capacity_groups(capacity, "conjunction", (4, 2, 0), baselines=True))
    _hline(fig, CHANCE_CONJUNCTION, "chance (1/7)² ≈ 0.02")
    fig.update_yaxes(title_text="conjunction accuracy (fraction of episodes)", range=[0, 1.08])
    return _style(fig, title, height=480)


def fig2b_dual_task_cost(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2b: per-step, report-window decision and conjunction accuracy by capacity 0-4.

    Three panels, x = slots (4..0) then A0 and A1; chance 1/7 (per step, decision) and
    1/49 (conjunction); paper values from claims ``e2.<metric>.k<slots>`` / ``.a0`` / ``.a1``.
    """
    title = "Fig. 2b: dual-task cost: three accuracies by workspace capacity"
    if not _has(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    metrics = (
        ("per_step", "per-step accuracy", CHANCE_DUAL_TASK, "chance 1/7"),
        ("decision", "report-window decision accuracy", CHANCE_DUAL_TASK, "chance 1/7"),
        ("conjunction", "conjunction (both reports right)", CHANCE_CONJUNCTION, "chance 1/49"),
    )
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[m[1] for m in metrics],
        horizontal_spacing=0.06,
        shared_yaxes=True,
    )
    for col, (metric, _name, chance, chance_text) in enumerate(metrics, start=1):
        groups = _capacity_groups(capacity, metric, (4, 3, 2, 1, 0), baselines=True, short=True)
        _add_seed_bars(fig, groups, row=1, col=col, legend=col == 1)
        _hline(fig, chance, chance_text, row=1, col=col)
    fig.update_yaxes(title_text="accuracy (fraction)", range=[0, 1.08], row=1, col=1)
    fig.update_xaxes(tickfont={"size": 11})
    return _style(fig, title, height=520)


def _mean_with_band(fig: go.Figure, key: str, x: np.ndarray, arr: np.ndarray, *, alpha: float,
                    marker_size: int, hover: str) -> None:
    """One line per key: the mean over rows (seeds) of ``arr``, with a +/- SD band if there are several."""
    mean = np.nanmean(arr, axis=0)
    if arr.shape[0] > 1:
        sd = np.nanstd(arr, axis=0, ddof=1)
        fig.add_trace(go.Scatter(
            x=np.concatenate([x, x[::-1]]), y=np.concatenate([mean + sd, (mean - sd)[::-1]]), fill="toself",
            fillcolor=_rgba(color_of(key), alpha), line={"width": 0}, hoverinfo="skip",
            name=f"{label_of(key)} ± SD", legendgroup=key, showlegend=False))
    fig.add_trace(go.Scatter(
        x=x, y=mean, mode="lines+markers", name=label_of(key), legendgroup=key,
        line={"color": color_of(key), "width": 2.5}, marker={"size": marker_size}, hovertemplate=hover))


def masking_figure(
    traces: Mapping[str, Any] | None,
    soa: int,
    count: int,
    *,
    interval: int = 1,
    cue_steps: Sequence[int] = (0, 1),
    paper_entry: float | None = None,
    title: str = "Backward masking: how much of the colour is still in the workspace",
) -> go.Figure:
    """Colour-retention traces over steps, with the cue and mask onsets marked.

    A trace is :func:`labcore.markers.cue_retention` (1 = the colour's trace fully held, 0 = gone),
    as computed by :func:`labcore.measures.masking_traces`.

    Parameters
    ----------
    traces : mapping
        ``{key: trace}``; a trace is ``(T,)`` (one rollout) or ``(n_seeds, T)`` (mean +/- SD
        band drawn). Keys like ``"k4"`` get the capacity colours and names.
    soa : int
        Steps from the colour cue (``cue_steps[0]``) to the first mask.
    count : int
        Number of masks, one every ``interval`` steps.
    interval : int
    cue_steps : sequence of int
        Steps at which cues arrive (the colour, then the object).
    paper_entry : float, optional
        The paper's cue signal at cue entry, drawn as a ``"paper"`` diamond at the last
        cue step.

    Returns
    -------
    go.Figure
        One line per key (plus a band trace per key with several seeds), dashed vertical
        lines at cues, dotted ones at masks, a zero line.
    """
    traces = {
        k: np.atleast_2d(np.asarray(v, float))
        for k, v in (traces or {}).items()
        if v is not None and np.size(v) > 0
    }
    if not traces:
        return empty_figure(title, "no masking traces")
    fig = go.Figure()
    for key, arr in traces.items():
        _mean_with_band(fig, key, np.arange(arr.shape[1]), arr, alpha=0.18, marker_size=5,
                        hover=f"{label_of(key)}<br>step %{{x}}<br>colour retained %{{y:.2f}}"
                        f"<extra>n = {arr.shape[0]}</extra>")
    # Only the first line of each kind carries a label (an annotation without text would show
    # plotly's "new text" placeholder).
    for i, s in enumerate(cue_steps):
        label = {"annotation_text": "cues", "annotation_position": "top right",
                 "annotation_font": {"size": 11, "color": "#2b8cbe"}} if i == 0 else {}
        fig.add_vline(x=s, line={"dash": "dash", "color": "#2b8cbe", "width": 1.5}, **label)
    first = (cue_steps[0] if cue_steps else 0) + soa
    for j in range(count):
        label = {"annotation_text": "masks", "annotation_position": "bottom right",
                 "annotation_font": {"size": 11, "color": "#e6550d"}} if j == 0 else {}
        fig.add_vline(x=first + j * interval, line={"dash": "dot", "color": "#e6550d", "width": 1.2}, **label)
    last = first + max(count - 1, 0) * interval
    fig.update_xaxes(range=[-0.5, min(max(len(a[0]) for a in traces.values()) - 0.5, last + 6.5)])
    fig.add_hline(y=0, line={"color": "#bbb", "width": 1})
    if paper_entry is not None and _finite(paper_entry):
        entry = cue_steps[-1] if cue_steps else 0
        _add_paper_marks(fig, [(entry, PaperValue(paper_entry), "cue entry")])
    fig.update_xaxes(title_text="environment step")
    fig.update_yaxes(title_text="colour retained (1 = held, 0 = displaced)")
    return _style(fig, title, height=480)


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def fig2c_masking_traces(masking_by_seed: Mapping[str, Mapping] | None) -> go.Figure:
    """Fig. 2c: colour retention vs step at 4, 2 and 0 slots, mean +/- SD over seeds.

    Parameters
    ----------
    masking_by_seed : mapping
        ``figures.json["e2"]`` reduced to ``{seed: {"soa", "count", "traces": {"4": [...],
        "2": [...], "0": [...]}}}`` (the ``"masking"`` entry of each seed).

    Notes
    -----
    The paper's 0.78 "cue signal" at entry (claim ``e2.masking.entry``) is not drawn: it is a
    different measure (a projection on reference states), while retention is 1 at entry by
    construction.
    """
    title = "Fig. 2c: backward masking: how much of the colour is still in the workspace"
    runs = [m for m in (masking_by_seed or {}).values() if isinstance(m, Mapping) and m.get("traces")]
    if not runs:
        return empty_figure(title, "no masking traces (figures.json without e2 masking)")
    traces: dict[str, list] = {}
    for run in runs:
        for k, trace in run["traces"].items():
            traces.setdefault(f"k{k}", []).append(trace)
    lengths = {len(t) for ts in traces.values() for t in ts}
    if len(lengths) != 1:
        return empty_figure(title, "masking traces of different lengths across seeds")
    ordered = {k: np.array(traces[k], float) for k in CAPACITY_KEYS if k in traces}
    return masking_figure(ordered, int(runs[0]["soa"]), int(runs[0]["count"]),
                          interval=int(runs[0].get("interval", 1)), title=title)


def _capacity_seed_groups(
    seed_values: pd.DataFrame | None, prefix: str, slots: Sequence[int], paper: bool = True
) -> list[_Group]:
    return [
        _Group(
            f"k{k}",
            *_seed_numbers(seed_values, f"{prefix}.k{k}"),
            _paper(f"{prefix}.k{k}") if paper else None,
        )
        for k in slots
    ]


def gbi_and_ignition_by_capacity(seed_values: pd.DataFrame | None) -> go.Figure:
    """GBI in both variants and ignition sharpness by capacity (4..0 slots).

    Left: the paper's GBI equation with signed couplings (claims ``e2.gbi.k4/k2``); values
    below -1 are off the drawn scale and shown as triangles at -1 (hover gives the value).
    Middle: negative couplings clipped to 0 (``e2.gbi_clip.*``, exploratory). Right:
    ignition sharpness (``e2.ignition.*``; the paper's 0.15 / 0.06 are in units it does not
    define). GBI is undefined with fewer than two occupied slots.
    """
    title = (
        "GBI (paper's signed equation | negative couplings clipped) and ignition sharpness, by capacity"
    )
    slots = (4, 3, 2, 1, 0)
    panels = (
        ("e2.gbi", "GBI, paper's equation<br>(signed couplings)", True),
        ("e2.gbi_clip", "GBI, negative couplings<br>clipped to 0 (exploratory)", False),
        ("e2.ignition", "ignition sharpness<br>(RMS activation per step)", True),
    )
    groups = {
        prefix: [
            g
            if g.values.size or prefix == "e2.ignition"
            else _Group(g.key, g.seeds, g.values, g.paper, note="undefined<br>(< 2 slots)")
            for g in _capacity_seed_groups(seed_values, prefix, slots, paper)
        ]
        for prefix, _, paper in panels
    }
    if not any(g.values.size for gs in groups.values() for g in gs):
        return empty_figure(title, "no E2 GBI / ignition values")
    fig = make_subplots(rows=1, cols=3, subplot_titles=[p[1] for p in panels], horizontal_spacing=0.08)
    floor = -1.0
    for col, (prefix, _, _) in enumerate(panels, start=1):
        gs = groups[prefix]
        if prefix == "e2.gbi":
            _add_seed_bars(fig, gs, row=1, col=col, legend=True)
            off = [
                (i, x, s)
                for i, g in enumerate(gs)
                for s, x in zip(g.seeds, g.values, strict=True)
                if x < floor
            ]
            if off:
                fig.add_trace(
                    go.Scatter(
                        x=[i + 0.05 for i, _, _ in off],
                        y=[floor] * len(off),
                        mode="markers",
                        name="seed below −1 (off scale; hover for value)",
                        legendgroup="offscale",
                        marker={"symbol": "triangle-down", "size": 11, "color": "#444"},
                        hovertext=[f"seed {s}: GBI = {_fmt(x)}" for _, x, s in off],
                        hoverinfo="text",
                    ),
                    row=1,
                    col=1,
                )
                fig.update_yaxes(range=[floor - 0.15, 1.05], row=1, col=1)
                for i, g in enumerate(gs):
                    m, _ = _mean_sd(g.values)
                    if _finite(m) and m < floor:
                        fig.add_annotation(
                            x=i,
                            y=floor - 0.1,
                            text=f"mean {_fmt(m)} ↓",
                            showarrow=False,
                            font={"size": 10, "color": "#a33"},
                            **_axref(fig, 1, col),
                        )
        else:
            _add_seed_bars(fig, gs, row=1, col=col, legend=False)
    fig.update_yaxes(title_text="GBI (participation, 0-2/3 for 4 slots)", row=1, col=1)
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    fig.update_yaxes(title_text="max step increase of RMS activation", rangemode="tozero", row=1, col=3)
    fig.update_xaxes(tickfont={"size": 11})
    return _style(fig, title, height=540)


def dnrs_by_scale(seed_values: pd.DataFrame | None) -> go.Figure:
    """dNRS (no-report decoding above a shuffled baseline) by capacity scale 0-1.

    Primary cue (claims ``e2.dnrs.scale_*``, paper 0.51 / -0.12) and, as an auxiliary
    series, the secondary cue (``e2.dnrs_secondary.scale_*``); zero line = shuffled baseline.
    """
    title = "ΔNRS: is the cue decodable before any report? (by workspace capacity)"
    scales = ("0", "0.25", "0.5", "0.75", "1")
    series = (
        ("e2.dnrs", "primary cue (the paper's)", "#1f77b4"),
        ("e2.dnrs_secondary", "secondary cue (auxiliary)", "#9ecae1"),
    )
    if not any(
        _seed_numbers(seed_values, f"{p}.scale_{s}")[1].size for p, _, _ in series for s in scales
    ):
        return empty_figure(title, "no E2 dNRS values")
    fig = go.Figure()
    x = np.array([float(s) for s in scales])
    offsets = {"e2.dnrs": -0.02, "e2.dnrs_secondary": 0.02}
    for prefix, name, colour in series:
        means, sds, sx, sy, sh = [], [], [], [], []
        for s, xs in zip(scales, x, strict=True):
            seeds, vals = _seed_numbers(seed_values, f"{prefix}.scale_{s}")
            m, sd = _mean_sd(vals)
            means.append(m)
            sds.append(sd)
            sx += list(xs + offsets[prefix] + _jitter(vals.size) * 0.05)
            sy += list(vals)
            sh += [
                f"{name}, scale {s}, seed {seed}: {_fmt(v)}" for seed, v in zip(seeds, vals, strict=True)
            ]
        fig.add_trace(
            go.Scatter(
                x=x + offsets[prefix],
                y=means,
                mode="lines+markers",
                name=f"ours: {name}",
                error_y={"type": "data", "array": sds, "visible": True},
                line={"color": colour, "width": 2.5},
                marker={"size": 11, "symbol": "square"},
                hovertemplate="scale %{x:.2f}<br>ΔNRS %{y:.3f}<extra>mean ± SD</extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=sx,
                y=sy,
                mode="markers",
                name=f"seeds: {name}",
                showlegend=False,
                marker={"size": 6, "color": colour, "line": {"width": 1, "color": "#333"}},
                hovertext=sh,
                hoverinfo="text",
            )
        )
    _add_paper_marks(
        fig,
        [
            (xs + 0.045, _paper(f"e2.dnrs.scale_{s}"), f"scale {s}")
            for s, xs in zip(scales, x, strict=True)
        ],
    )
    _hline(fig, 0.0, "shuffled-label baseline (0)")
    fig.update_xaxes(
        title_text="workspace capacity scale (0 = bus off, 1 = 4 slots)",
        tickvals=list(x),
        ticktext=[f"{s}<br>({round(float(s) * 4)} slots)" for s in scales],
    )
    fig.update_yaxes(title_text="ΔNRS (decoder AUC − shuffled AUC)")
    return _style(fig, title, height=480)


# --------------------------------------------------------------------------- E3


FIG3A_AGENTS = ("b1", "b1_reg", "b1_noise", "b2", "b2_workspace_read")
FIG3C_AGENTS = ("a0", "a1", "b1", "b1_reg", "b1_noise", "b2", "b2_workspace_read")
FIG4_WORKSPACE_AGENTS = ("b1", "b2", "bc_linear", "bc_mlp", "bc_random")
FIG4_CARRIER_AGENTS = ("b1", "b2", "b2_workspace_read", "hot_only")


def fig3a_l75(seed_values: pd.DataFrame | None, agents: Sequence[str] = FIG3A_AGENTS) -> go.Figure:
    """Fig. 3a: L75 under workspace noise, per agent kind, in both noise protocols.

    Parameters
    ----------
    seed_values : DataFrame
        ``seed_values.csv`` with keys ``e3.l75.<agent>`` (stored protocol) and
        ``e3.l75.<agent>.read`` (read-copy protocol); values may be censored strings.
    agents : sequence of str

    Returns
    -------
    go.Figure
        Two panels (stored | read); per-seed dots, censored seeds as triangles at the bound,
        mean +/- SD squares, ``"paper"`` / ``"paper (lower bound)"`` marks from the claims.
    """
    title = "Fig. 3a: noise tolerance L75 under workspace noise (higher = more robust)"
    raw = {
        (a, p): _seed_raw(seed_values, f"e3.l75.{a}{'' if p == 'stored' else '.read'}")
        for a in agents
        for p in ("stored", "read")
    }
    if not any(raw.values()):
        return empty_figure(title, "no E3 L75 values")
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=(
            "noise stays in the stored slots (default)",
            "fresh noise on the copy that is read",
        ),
    )
    for col, protocol in enumerate(("stored", "read"), start=1):
        suffix = "" if protocol == "stored" else ".read"
        groups = [(a, raw[(a, protocol)], _paper(f"e3.l75.{a}{suffix}")) for a in agents]
        _add_l75_groups(fig, groups, row=1, col=col, legend=col == 1)
    _sigma_axis(fig)
    return _style(fig, title, height=560)


def _sigma_axis(fig: go.Figure) -> None:
    fig.update_yaxes(title_text=f"L75: {_UNITS_SIGMA}", rangemode="tozero", row=1, col=1)
    fig.update_xaxes(tickfont={"size": 11})


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r over the finite pairs (nan with fewer than 3, or a constant side)."""
    keep = np.isfinite(x) & np.isfinite(y)
    return pearson_r(x[keep], y[keep]) if keep.sum() >= 3 else math.nan


def fig3b_marker_correlations(
    points: pd.DataFrame | Sequence[Mapping] | None, composite: Mapping[str, float] | None = None
) -> go.Figure:
    """Fig. 3b: Pearson r of each marker with the OOD gap, plus the exploratory overflow shift.

    Parameters
    ----------
    points : DataFrame or list of dict
        ``figures.json["e3"]["points"]``: one row per (agent, seed) with ``ood_gap``,
        ``ood_gap_overflow``, ``gbi``, ``gbi_clip``, ``dpci``, ``auroc``.
    composite : mapping, optional
        Summary values; ``e3.composite.r_loo_full`` and
        ``e3.explore.composite_overflow.r_loo_full`` add the composite's leave-one-out r.

    Returns
    -------
    go.Figure
        Top: grouped bars ``"registered: OOD gap (longer delay)"`` and ``"exploratory, post
        hoc: overflow shift"``, paper diamonds (GBI: r = sqrt of the paper's R^2 0.15; full
        composite: r_LOO 0.62). Bottom: the points behind the registered r's.

    Notes
    -----
    As in the pipeline's regression (``labcore.experiments.e3.composite``), GBI is 0 for
    agents without a workspace and an undefined dPCI counts as 0. A marker that is constant
    over the points (e.g. every AUROC imputed 0.5) has an undefined r, stated in the figure.
    """
    title = "Fig. 3b: which markers predict OOD fragility? (Pearson r with the OOD gap)"
    df = (
        pd.DataFrame(list(points))
        if points is not None and not isinstance(points, pd.DataFrame)
        else points
    )
    need = ("agent", "ood_gap", "gbi", "dpci", "auroc")
    if not _has(df, need):
        return empty_figure(title, "no E3 composite points (figures.json without e3 points)")

    def col(name: str, fill: float | None = None) -> np.ndarray:
        if name not in df:
            return np.full(len(df), np.nan)
        x = pd.to_numeric(df[name], errors="coerce").to_numpy(float)
        return np.nan_to_num(x, nan=fill) if fill is not None else x

    markers = (("GBI", "gbi", "gbi_clip"), ("ΔPCI", "dpci", "dpci"), ("Type-2 AUROC", "auroc", "auroc"))
    sets = (
        ("registered: OOD gap (longer delay)", "ood_gap", 1, PALETTE["registered"], ""),
        (
            "exploratory, post hoc: overflow shift (GBI clipped)",
            "ood_gap_overflow",
            2,
            PALETTE["exploratory"],
            "/",
        ),
    )
    names = [m[0] for m in markers] + ["composite GBI + ΔPCI + AUROC<br>(leave-one-out r)"]
    fig = make_subplots(
        rows=2,
        cols=3,
        specs=[[{"colspan": 3}, None, None], [{}, {}, {}]],
        row_heights=[0.58, 0.42],
        vertical_spacing=0.2,
        horizontal_spacing=0.07,
        subplot_titles=(
            "Pearson r with the OOD gap (points = agent kinds × seeds)",
            "OOD gap vs GBI",
            "OOD gap vs ΔPCI",
            "OOD gap vs Type-2 AUROC",
        ),
    )
    undefined = []
    for set_name, gap_key, which, colour, pattern in sets:
        y = col(gap_key)
        if not np.isfinite(y).any():
            undefined.append(f"{set_name}: no values")
            continue
        rs, hover = [], []
        for label, reg_key, exp_key in markers:
            r = _pearson(
                col(reg_key if which == 1 else exp_key, fill=0.0 if label != "Type-2 AUROC" else None), y
            )
            rs.append(r)
            hover.append(
                f"{set_name}<br>{label}: r = {_fmt(r)}"
                + ("" if _finite(r) else " (marker or gap constant)")
            )
            if not _finite(r):
                undefined.append(
                    f"{label} ({'registered' if which == 1 else 'exploratory'}): r undefined, "
                    "constant over the points"
                )
        loo_key = "e3.composite.r_loo_full" if which == 1 else "e3.explore.composite_overflow.r_loo_full"
        loo = (composite or {}).get(loo_key)
        rs.append(loo if _finite(loo) else math.nan)
        hover.append(f"{set_name}<br>composite, leave-one-out r = {_fmt(loo)}")
        x = np.arange(len(names)) + (-0.18 if which == 1 else 0.18)
        fig.add_trace(
            go.Bar(
                x=x,
                y=rs,
                width=0.34,
                name=set_name,
                marker={"color": colour, "pattern": {"shape": pattern}},
                hovertext=hover,
                hoverinfo="text",
            ),
            row=1,
            col=1,
        )
    r2 = _paper("e3.composite.r2_gbi")
    loo_paper = _paper("e3.composite.r_loo_full")
    marks = []
    if r2:
        marks.append((-0.18, PaperValue(math.sqrt(r2.value), section=r2.section), "GBI (r = √R²)"))
    if loo_paper:
        marks.append((3 - 0.18, loo_paper, "composite, leave-one-out r"))
    _add_paper_marks(fig, marks, row=1, col=1)
    _category_axis(fig, names, row=1, col=1)
    fig.add_hline(y=0, line={"color": "#999", "width": 1}, row=1, col=1)
    fig.update_yaxes(title_text="Pearson r", range=[-1.05, 1.05], row=1, col=1)
    for c, (label, key, _) in enumerate(markers, start=1):
        xs = col(key, fill=0.0 if label != "Type-2 AUROC" else None)
        gap = col("ood_gap")
        for agent in dict.fromkeys(df["agent"]):
            m = (df["agent"] == agent).to_numpy()
            fig.add_trace(
                go.Scatter(
                    x=xs[m],
                    y=gap[m],
                    mode="markers",
                    name=label_of(agent),
                    legendgroup=agent,
                    showlegend=False,
                    marker={"size": 7, "color": color_of(agent), "opacity": 0.8},
                    hovertemplate=f"{label_of(agent)}<br>{label} %{{x:.3g}}<br>OOD gap %{{y:.3f}}"
                    "<extra></extra>",
                ),
                row=2,
                col=c,
            )
        fig.update_xaxes(
            title_text=label + (" (signed; 0 without a bus)" if key == "gbi" else ""), row=2, col=c
        )
    fig.update_yaxes(title_text="OOD gap (ID − OOD accuracy)", row=2, col=1)
    if undefined:
        _note(fig, "; ".join(undefined))
    _style(fig, title, height=760)
    fig.update_layout(margin={"t": 115})
    return fig


def titration_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    l75: Mapping[str, Any] | None = None,
    *,
    paper_l75: Mapping[str, Any] | None = None,
    title: str = "Noise titration: accuracy as latent noise grows",
) -> go.Figure:
    """Accuracy vs noise sigma per agent, mean +/- SD band over seeds, L75 marked.

    Parameters
    ----------
    curves : mapping
        ``{agent: (sigmas (S,), accuracies (n_seeds, S) or (S,))}``.
    l75 : mapping, optional
        ``{agent: L75}`` as a number, a string (``"> 0.5"``) or an L75Result; drawn on the
        0.75 line (censored: a triangle at the bound).
    paper_l75 : mapping, optional
        ``{agent: PaperValue | number | "> 0.5"}``: the paper's L75, hollow diamond /
        triangle on the 0.75 line.

    Returns
    -------
    go.Figure
        Per agent a line (named by :func:`label_of`) and a band; a ``"L75 (ours)"`` trace; the
        dashed 0.75 threshold and the dashed 1/7 chance line.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and np.size(v[1]) > 0}
    if not curves:
        return empty_figure(title, "no titration curves")
    fig = go.Figure()
    for agent, (sigmas, acc) in curves.items():
        a = np.atleast_2d(np.asarray(acc, float))
        _mean_with_band(fig, agent, np.asarray(sigmas, float), a, alpha=0.15, marker_size=6,
                        hover=f"{label_of(agent)}<br>σ = %{{x:g}}<br>accuracy %{{y:.3f}}"
                        f"<extra>mean of {a.shape[0]} seed(s)</extra>")
    pts = []
    for agent, value in (l75 or {}).items():
        v, censored, bound = parse_l75(value)
        if censored == "missing":
            continue
        symbol = {"none": "x", "right": "triangle-right", "left": "triangle-left"}[censored]
        text = {
            "none": f"L75 = {_fmt(v)}",
            "right": f"L75 > {bound:g} (never dropped to 75%)",
            "left": f"L75 <= {bound:g} (below 75% from the start)",
        }[censored]
        pts.append((bound, symbol, color_of(agent), f"{label_of(agent)}: {text}"))
    if pts:
        fig.add_trace(
            go.Scatter(
                x=[p[0] for p in pts],
                y=[L75_THRESHOLD] * len(pts),
                mode="markers",
                name="L75 (ours)",
                marker={
                    "symbol": [p[1] for p in pts],
                    "size": 14,
                    "color": [p[2] for p in pts],
                    "line": {"width": 2, "color": "#333"},
                },
                hovertext=[p[3] for p in pts],
                hoverinfo="text",
            )
        )
    marks = []
    for agent, value in (paper_l75 or {}).items():
        if isinstance(value, PaperValue):
            p = value
        else:
            v, censored, bound = parse_l75(value)
            if censored == "missing":
                continue
            p = PaperValue(bound, bound=">" if censored == "right" else None)
        marks.append((p.value, p, label_of(agent)))
    for bound, name, symbol in (
        (False, PAPER, "diamond-open"),
        (True, PAPER_BOUND, "triangle-right-open"),
    ):
        sel = [(p, n) for _, p, n in marks if bool(p.bound) == bound]
        if sel:
            fig.add_trace(
                go.Scatter(
                    x=[p.value for p, _ in sel],
                    y=[L75_THRESHOLD] * len(sel),
                    mode="markers",
                    name=name,
                    marker={
                        "symbol": symbol,
                        "size": 14,
                        "color": PALETTE["paper"],
                        "line": {"width": 2.5},
                    },
                    hovertext=[f"paper, {n}: L75 {paper_text(p)}" for p, n in sel],
                    hoverinfo="text",
                )
            )
    _hline(fig, L75_THRESHOLD, "L75 threshold: 75% accuracy")
    _hline(fig, CHANCE_DUAL_TASK, "chance 1/7")
    fig.update_xaxes(title_text=_UNITS_SIGMA)
    fig.update_yaxes(title_text="report-window decision accuracy (fraction)", range=[0, 1.05])
    return _style(fig, title, height=540)


def fig3c_titration(
    titration: pd.DataFrame | None,
    seed_values: pd.DataFrame | None = None,
    agents: Sequence[str] = FIG3C_AGENTS,
    protocol: str = "stored",
) -> go.Figure:
    """Fig. 3c: noise titration curves (stored protocol), mean +/- SD over seeds, L75 marked.

    Each agent is perturbed where its latent state is: the workspace if it has one, else the
    recurrent carrier (A0, A1). L75 per agent is the seed summary of ``e3.l75.<agent>``; the
    paper's L75 from the claims.
    """
    title = "Fig. 3c: noise titration: decision accuracy as workspace noise grows"
    if not _has(titration, ("agent", "protocol", "noise", "seed", "sigma", "accuracy")):
        return empty_figure(title, "no E3 titration results (e3_titration.csv)")
    curves, l75 = {}, {}
    rows_p = titration[titration["protocol"] == protocol]
    for agent in agents:
        rows = rows_p[rows_p["agent"] == agent]
        if rows.empty:
            continue
        noise = "workspace" if (rows["noise"] == "workspace").any() else "carrier"
        rows = rows[rows["noise"] == noise]
        table = rows.pivot_table(
            index="seed", columns="sigma", values="accuracy", aggfunc="mean"
        ).sort_index(axis=1)
        curves[agent] = (table.columns.to_numpy(float), table.to_numpy(float))
        raw = _seed_raw(seed_values, f"e3.l75.{agent}{'' if protocol == 'stored' else '.read'}")
        if raw:
            text, mean, _ = format_l75([parse_l75(v) for _, v in raw])
            l75[agent] = mean if _finite(mean) else text.split(" (")[0]
    suffix = "" if protocol == "stored" else ".read"
    paper = {a: _paper(f"e3.l75.{a}{suffix}") for a in curves if _paper(f"e3.l75.{a}{suffix}")}
    return titration_figure(curves, l75, paper_l75=paper, title=title)


def fig4_attribution(seed_values: pd.DataFrame | None) -> go.Figure:
    """Fig. 4: denoising attribution controls.

    Left: L75 under workspace noise (stored protocol) of B1, B2 and the BC-only compressor
    controls (``e3.l75.<agent>``). Right: L75 under carrier (post-GRU) noise of the
    workspace agents (``e3.l75_carrier.<agent>``) and of HOT-only (``e3.l75.hot_only``,
    whose only latent noise target is the carrier). Paper values from the claims.
    """
    title = "Fig. 4: attribution controls: which bottleneck brings noise tolerance?"
    left = [
        (a, _seed_raw(seed_values, f"e3.l75.{a}"), _paper(f"e3.l75.{a}")) for a in FIG4_WORKSPACE_AGENTS
    ]
    right = [
        (
            a,
            _seed_raw(seed_values, f"e3.l75.{a}" if a == "hot_only" else f"e3.l75_carrier.{a}"),
            _paper("e3.l75.hot_only") if a == "hot_only" else None,
        )
        for a in FIG4_CARRIER_AGENTS
    ]
    if not any(raw for _, raw, _ in left + right):
        return empty_figure(title, "no E3 L75 values")
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=("noise in the workspace slots", "noise in the recurrent carrier (post-GRU)"),
    )
    _add_l75_groups(fig, left, row=1, col=1, legend=True)
    _add_l75_groups(fig, right, row=1, col=2, legend=False)
    _sigma_axis(fig)
    return _style(fig, title, height=560)


def table3_pci(seed_values: pd.DataFrame | None, agents: Sequence[str] | None = None) -> go.Figure:
    """Table 3: raw PCI-A per architecture, ours vs the paper, with the evoked variant.

    Left: a table (architecture, paper raw PCI-A, ours raw, ours evoked). Right: raw PCI-A
    bars for A0, A1 and B1 (``OURS``, ``"seeds"``, ``"paper"``). Keys ``e3.pci_a.<agent>`` and
    ``e3.pci_a_evoked.<agent>``.
    """
    title = "Table 3: raw perturbational complexity PCI-A (higher = less compressible)"
    agents = list(
        agents
        or (
            "a0",
            "a1",
            "b1",
            "b1_reg",
            "b1_noise",
            "b2",
            "b2_workspace_read",
            "hot_only",
            "bc_linear",
            "bc_mlp",
            "bc_random",
        )
    )
    raw = {a: _seed_numbers(seed_values, f"e3.pci_a.{a}") for a in agents}
    evoked = {a: _seed_numbers(seed_values, f"e3.pci_a_evoked.{a}") for a in agents}
    agents = [a for a in agents if raw[a][1].size or evoked[a][1].size]
    if not agents:
        return empty_figure(title, "no E3 PCI-A values")

    def cell(vals: np.ndarray) -> str:
        m, s = _mean_sd(vals)
        return "—" if not vals.size else f"{_fmt(m, 2)} ± {_fmt(s, 1)}"

    papers = {a: _paper(f"e3.pci_a.{a}") for a in agents}
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.56, 0.44],
        horizontal_spacing=0.08,
        specs=[[{"type": "table"}, {"type": "xy"}]],
        subplot_titles=(
            "ours (mean ± SD over seeds) beside the paper's Table 3",
            "raw PCI-A: the paper's three architectures",
        ),
    )
    fig.add_trace(
        go.Table(
            columnwidth=[2.4, 1.3, 1.3, 1.3],
            header={
                "values": [
                    "<b>architecture</b>",
                    "<b>paper raw</b>",
                    "<b>ours raw</b>",
                    "<b>ours evoked</b>",
                ],
                "fill_color": "#e8eef7",
                "align": "left",
                "font": {"size": 13},
            },
            cells={
                "values": [
                    [label_of(a) for a in agents],
                    [paper_text(papers[a]) if papers[a] else "—" for a in agents],
                    [cell(raw[a][1]) for a in agents],
                    [cell(evoked[a][1]) for a in agents],
                ],
                "align": "left",
                "font": {"size": 12},
                "height": 26,
                "fill_color": [["#f7f7f7" if papers[a] else "white" for a in agents]],
            },
        ),
        row=1,
        col=1,
    )
    bar_agents = [a for a in ("a0", "a1", "b1") if a in agents]
    _add_seed_bars(fig, [_Group(a, *raw[a], papers[a]) for a in bar_agents], row=1, col=2)
    fig.update_yaxes(
        title_text="raw PCI-A (compressed size / fair-coin size)", range=[0, 1.1], row=1, col=2
    )
    return _style(fig, title, height=120 + 30 * max(len(agents), 10))


VERDICT_COLOURS = {
    "reproduced": "#d4edda",
    "partly reproduced": "#fff3cd",
    "not reproduced": "#f8d7da",
    "not comparable": "#e2e3e5",
}
"""Cell colours of the verdicts (claims table, report badges)."""


def pci_bars(table: pd.DataFrame | None, normalisation: str, *, paper_normalisation: bool = False) -> go.Figure:
    """Live perturbational complexity per agent (left) and dPCI (right), one seed.

    Parameters
    ----------
    table : DataFrame with columns ``agent`` (kind), ``pci`` and ``dpci``
    normalisation : the normalisation's name (shown in the title)
    paper_normalisation : draw the paper's Table 3 values beside ours (only meaningful when
        ``normalisation`` is the paper's raw PCI-A)
    """
    title = f"Perturbational complexity after a pulse ({normalisation})"
    if table is None or len(table) == 0:
        return empty_figure(title, "no agents to poke")
    fig = make_subplots(rows=1, cols=2, subplot_titles=("complexity of the echo", "dPCI: correct minus wrong trials"),
                        horizontal_spacing=0.12)
    names = [label_of("b2_workspace_read" if a == "b2_ws" else a) for a in table["agent"]]
    colours = [color_of("b2_workspace_read" if a == "b2_ws" else a) for a in table["agent"]]
    fig.add_trace(go.Bar(x=names, y=table["pci"], marker_color=colours, name=OURS,
                         hovertemplate="%{x}<br>%{y:.3f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=table["dpci"], marker_color=colours, name="dPCI", showlegend=False,
                         hovertemplate="%{x}<br>dPCI %{y:.3f}<extra></extra>"), row=1, col=2)
    if paper_normalisation:
        marks = [(names[i], _paper(f"e3.pci_a.{a}"), names[i]) for i, a in enumerate(table["agent"])
                 if f"e3.pci_a.{a}" in CLAIMS_BY_ID]
        _add_paper_marks(fig, marks, row=1, col=1)
    fig.update_yaxes(title_text="complexity (1 = as complex as coin flips)", row=1, col=1)
    fig.update_yaxes(title_text="difference in complexity", row=1, col=2)
    return _style(fig, title, height=420)


def osmd_radar(systems: Mapping[str, Sequence[Any]], *, title: str = "Self-model density by cluster") -> go.Figure:
    """8-cluster radar of OSMD scores, architectural (dashed) and behavioural (solid), per system.

    Parameters
    ----------
    systems : ``{name: cluster subtotals}`` with objects having ``cluster_id``,
        ``architectural``, ``behavioural`` and ``max_points``
        (:class:`labcore.scorecards.rubric.ClusterSubtotal`). Values are drawn as fractions of
        each cluster's maximum, so clusters of 6 and 15 points share one scale.
    """
    if not systems:
        return empty_figure(title, "no system to draw")
    fig = go.Figure()
    palette = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#c53030"]
    for i, (name, subtotals) in enumerate(systems.items()):
        clusters = [c.cluster_id for c in subtotals] + [subtotals[0].cluster_id]
        colour = palette[i % len(palette)]
        for field, dash in (("architectural", "dash"), ("behavioural", "solid")):
            r = [getattr(c, field) / c.max_points if c.max_points else 0.0 for c in subtotals]
            r.append(r[0])
            hover = [f"{c.cluster_id}: {getattr(c, field)} / {c.max_points}" for c in subtotals]
            fig.add_trace(go.Scatterpolar(r=r, theta=clusters, name=f"{name}: {field}", mode="lines+markers",
                                          line={"color": colour, "dash": dash, "width": 2.5 if dash == "solid" else 1.5},
                                          text=[*hover, hover[0]], hoverinfo="text"))
    fig.update_layout(polar={"radialaxis": {"range": [0, 1], "tickformat": ".0%", "title": "of cluster max"}})
    return _style(fig, title, height=520)


def fcs_plane(points: Sequence[Mapping[str, Any]], *, title: str = "Functional Consciousness Score: R x P") -> go.Figure:
    """Systems on log axes of representational capacity R and reasoning power P, iso-FCS curves.

    Parameters
    ----------
    points : each with ``name``, ``R``, ``P``, ``group`` ("reference" or "lab") and optional
        ``standin`` (True when P is a stand-in, drawn hollow). Systems with R = 0 or P = 0 have
        FCS 0 and cannot sit on log axes; they are listed in a note instead.
    """
    if not points:
        return empty_figure(title, "no systems")
    drawable = [p for p in points if p["R"] > 0 and p["P"] > 0]
    zero = [p["name"] for p in points if not (p["R"] > 0 and p["P"] > 0)]
    fig = go.Figure()
    xs = [p["R"] for p in drawable] or [1.0]
    ys = [p["P"] for p in drawable] or [1.0]
    lo_x, hi_x = min(xs) / 3, max(xs) * 3
    grid = np.logspace(np.log10(lo_x), np.log10(hi_x), 60)
    for level in (1, 1e2, 1e4, 1e6, 1e8):
        fig.add_trace(go.Scatter(x=grid, y=level / grid, mode="lines", line={"color": "#cccccc", "dash": "dot"},
                                 name=f"FCS = {level:g}", showlegend=False, hoverinfo="skip"))
        fig.add_annotation(x=np.log10(grid[-1]), y=np.log10(level / grid[-1]), text=f"FCS {level:g}",
                           showarrow=False, font={"size": 10, "color": "#999999"}, xanchor="right")
    for group, symbol, colour in (("reference", "circle", "#4a5568"), ("lab", "star", "#c05621")):
        members = [p for p in drawable if p.get("group") == group]
        if not members:
            continue
        fig.add_trace(go.Scatter(
            x=[p["R"] for p in members], y=[p["P"] for p in members], mode="markers+text",
            text=[p["name"] for p in members], textposition="top center", name=group,
            marker={"symbol": [symbol + ("-open" if p.get("standin") else "") for p in members], "size": 13,
                    "color": colour, "line": {"width": 2}},
            hovertemplate="%{text}<br>R = %{x:.3g} bits<br>P = %{y:.3g}<extra></extra>"))
    fig.update_xaxes(type="log", title_text="R: representational capacity (self-model variables x bits)")
    fig.update_yaxes(type="log", title_text="P: reasoning power (hollow = stand-in)",
                     range=[np.log10(min(ys) / 3), np.log10(max(ys) * 3)])
    if zero:
        fig.add_annotation(xref="paper", yref="paper", x=0, y=-0.22, showarrow=False, align="left",
                           text="FCS = 0 (not on log axes): " + ", ".join(zero))
    return _style(fig, title, height=560)


def claims_table(claims: Sequence[Mapping[str, Any]] | None) -> go.Figure:
    """All claims: id, description, paper, ours, verdict (verdict cells coloured).

    Parameters
    ----------
    claims : sequence of dict
        ``summary.json["claims"]``.

    Returns
    -------
    go.Figure
        One :class:`go.Table` trace. Free text is escaped for plotly's pseudo-HTML.
    """
    title = "Every claim: the paper's number, ours, and the pre-registered verdict"
    claims = list(claims or [])
    if not claims:
        return empty_figure(title, "no claims in summary.json")
    verdicts = [str(c.get("verdict", "")) for c in claims]
    fill = [VERDICT_COLOURS.get(v, "white") for v in verdicts]
    fig = go.Figure(
        go.Table(
            columnwidth=[2.2, 3.6, 1.3, 1.8, 1.4],
            header={
                "values": [
                    "<b>claim</b>",
                    "<b>what</b>",
                    "<b>paper</b>",
                    "<b>ours</b>",
                    "<b>verdict</b>",
                ],
                "fill_color": "#e8eef7",
                "align": "left",
                "font": {"size": 13},
            },
            cells={
                "values": [
                    [_escape_plotly(c.get("id", "")) for c in claims],
                    [
                        _escape_plotly(c.get("description", ""))
                        + (" (by construction)" if c.get("by_construction") else "")
                        for c in claims
                    ],
                    [_escape_plotly(paper_text(c.get("paper") or {})) for c in claims],
                    [_escape_plotly(ours_text(c.get("ours") or {})) for c in claims],
                    [_escape_plotly(v) for v in verdicts],
                ],
                "fill_color": [["white"] * len(claims)] * 4 + [fill],
                "align": "left",
                "font": {"size": 12},
                "height": 24,
            },
        )
    )
    return _style(fig, title, height=min(140 + 30 * len(claims), 2400), legend_below=False)


# --------------------------------------------------------------------------- live lab (single rollout)


def workspace_heatmap(
    slots: Any,
    occupied: Any,
    cue_kinds: Sequence[str | None] | None = None,
    report_steps: Sequence[int] = (),
    highlight_step: int | None = None,
    title: str = "Workspace slots over time: when a slot fills and when it is overwritten",
) -> go.Figure:
    """What each workspace slot holds at every step of one episode.

    Top panel (the readable one): one row per slot; the colour says what the slot holds,
    named after the event that wrote it (``cue_kinds`` of the write step), or "empty".
    A write is attributed to the slot whose content changed most at an event step (the
    bus writes only on cue-channel events, protocol sec. 2.4), so a later write over an
    occupied slot shows as a colour change ("overwritten"). Bottom panel: the raw slot
    activations (K x D rows, grouped by slot) for readers who want the numbers.

    Parameters
    ----------
    slots : array of shape (T, K, D)
        Slot contents per step.
    occupied : array of shape (T, K), bool
        Slot occupancy per step.
    cue_kinds : sequence of length T, optional
        What arrived on the cue channel at each step (e.g. ``"colour cue"``, ``"object
        cue"``, ``"mask"``), ``None`` where nothing arrived.
    report_steps : sequence of int
        Steps at which the agent reports (dashed vertical lines).
    highlight_step : int, optional
        A step to highlight (e.g. the step shown in the rollout theatre).

    Returns
    -------
    go.Figure
        Two heatmap traces, ``"slot contents"`` and ``"activations"``.
    """
    if slots is None or occupied is None or np.size(slots) == 0:
        return empty_figure(title, "no workspace in this agent (or no steps)")
    x = np.asarray(slots, float)
    occ = np.asarray(occupied, bool)
    if x.ndim != 3 or occ.shape != x.shape[:2]:
        return empty_figure(
            title, f"slots must be (T, K, D) and occupied (T, K); got {x.shape} and {occ.shape}"
        )
    n_steps, n_slots, dim = x.shape
    kinds = list(cue_kinds) if cue_kinds is not None else [None] * n_steps
    kinds = (kinds + [None] * n_steps)[:n_steps]
    holder = np.full((n_steps, n_slots), -1)  # step of the write each slot holds
    current = np.full(n_slots, -1)
    for t in range(n_steps):
        prev = x[t - 1] if t else np.zeros_like(x[0])
        if kinds[t] is not None:
            change = np.linalg.norm(x[t] - prev, axis=1) * occ[t]
            if change.max() > 0:
                current[int(change.argmax())] = t
        current[~occ[t]] = -1
        current[occ[t] & (current < 0)] = t  # content appeared without a named event
        holder[t] = current
    names = ["empty", *dict.fromkeys(str(k) for k in kinds if k is not None), "unlabelled write"]
    code = np.zeros((n_slots, n_steps))
    hover = [["" for _ in range(n_steps)] for _ in range(n_slots)]
    for t in range(n_steps):
        for k in range(n_slots):
            s = holder[t, k]
            if s < 0:
                what = "empty"
            else:
                what = str(kinds[s]) if kinds[s] is not None else "unlabelled write"
            code[k, t] = names.index(what)
            norm = float(np.linalg.norm(x[t, k]))
            hover[k][t] = (
                f"step {t}, slot {k}: {what}"
                + (f" (written at step {s})" if s >= 0 else "")
                + f"<br>norm {norm:.2f}"
            )
    n_cat = len(names)
    cat_colours = [
        "#f0f0f0",
        "#2b8cbe",
        "#31a354",
        "#e6550d",
        "#756bb1",
        "#de2d26",
        "#636363",
        "#fdae6b",
        "#9e9ac8",
    ]
    colourscale = []
    for i in range(n_cat):
        c = cat_colours[i % len(cat_colours)] if names[i] != "unlabelled write" else "#bdbdbd"
        colourscale += [[i / n_cat, c], [(i + 1) / n_cat, c]]
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.35, 0.65],
        vertical_spacing=0.08,
        subplot_titles=("what each slot holds", "slot activations (each row = one number)"),
    )
    fig.add_trace(
        go.Heatmap(
            z=code,
            x=np.arange(n_steps),
            y=[f"slot {k}" for k in range(n_slots)],
            zmin=0,
            zmax=n_cat,
            colorscale=colourscale,
            name="slot contents",
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=3,
            colorbar={
                "tickvals": [i + 0.5 for i in range(n_cat)],
                "ticktext": names,
                "len": 0.38,
                "y": 0.82,
                "title": {"text": "holds"},
            },
        ),
        row=1,
        col=1,
    )
    flat = x.reshape(n_steps, n_slots * dim).T
    lim = float(np.nanmax(np.abs(flat))) or 1.0
    fig.add_trace(
        go.Heatmap(
            z=flat,
            x=np.arange(n_steps),
            y=[f"s{k} d{d}" for k in range(n_slots) for d in range(dim)],
            zmin=-lim,
            zmax=lim,
            colorscale="RdBu_r",
            name="activations",
            colorbar={"len": 0.55, "y": 0.3, "title": {"text": "value"}},
            hovertemplate="step %{x}<br>%{y}<br>value %{z:.2f}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    for k in range(1, n_slots):
        fig.add_hline(y=k * dim - 0.5, line={"color": "white", "width": 2}, row=2, col=1)
    for s in report_steps:
        fig.add_vline(x=s, line={"dash": "dash", "color": "#333", "width": 1.5})
    if report_steps:
        fig.add_annotation(
            x=next(iter(report_steps)),
            y=1.0,
            xref="x",
            yref="paper",
            text="report",
            showarrow=False,
            yanchor="bottom",
            font={"size": 11},
        )
    if highlight_step is not None and 0 <= highlight_step < n_steps:
        fig.add_vrect(
            x0=highlight_step - 0.5,
            x1=highlight_step + 0.5,
            fillcolor="#ffd92f",
            opacity=0.35,
            line_width=0,
        )
    fig.update_yaxes(autorange="reversed", row=1, col=1)
    fig.update_yaxes(autorange="reversed", showticklabels=dim * n_slots <= 32, row=2, col=1)
    fig.update_xaxes(title_text="environment step", row=2, col=1)
    return _style(fig, title, height=560, legend_below=False)


def action_probabilities(
    probs: Any,
    chosen: int,
    expert: int | None,
    labels: Sequence[str],
    title: str = "What the agent is about to do",
) -> go.Figure:
    """Bar chart of the policy's action probabilities at one step.

    Parameters
    ----------
    probs : array of shape (A,)
        Action probabilities (softmax of the logits).
    chosen : int
        The action the agent takes (greedy: argmax), highlighted.
    expert : int or None
        The oracle's action at this step, marked with a star (None: no expert).
    labels : sequence of str, length A
        Action names.

    Returns
    -------
    go.Figure
        A ``"probability"`` bar trace, an ``"expert's action"`` star trace, a dashed
        ``1/A`` uniform line.
    """
    p = np.asarray(probs, float).ravel() if probs is not None else np.array([])
    if p.size == 0:
        return empty_figure(title, "no action probabilities")
    labels = (
        list(labels)
        if labels is not None and len(labels) == p.size
        else [f"action {i}" for i in range(p.size)]
    )
    colours = [PALETTE["b1"] if i == chosen else "#c7c7c7" for i in range(p.size)]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=p,
            marker={"color": colours},
            name="probability",
            text=[f"{v:.0%}" for v in p],
            textposition="outside",
            hovertemplate="%{x}: %{y:.1%}<extra></extra>",
        )
    )
    if expert is not None and 0 <= expert < p.size:
        fig.add_trace(
            go.Scatter(
                x=[labels[expert]],
                y=[min(1.0, p[expert]) + 0.12],
                mode="markers+text",
                name="expert's action",
                text=["expert"],
                textposition="top center",
                marker={"symbol": "star", "size": 16, "color": "#e6550d"},
                hoverinfo="name",
            )
        )
    _hline(fig, 1 / p.size, f"uniform 1/{p.size}")
    fig.update_yaxes(title_text="probability (fraction)", range=[0, 1.3])
    fig.update_xaxes(
        title_text=f"action (agent chose: {labels[chosen] if 0 <= chosen < p.size else 'none'})"
    )
    return _style(fig, title, height=380)


def internal_state_timeline(
    confidence: Any,
    z_self_norm: Any,
    step_labels: Sequence[str] | None = None,
    highlight_step: int | None = None,
    title: str = "Inside the agent: confidence and self-model activity over the episode",
) -> go.Figure:
    """Confidence (top) and the norm of z_self (bottom) over the steps of one episode.

    Parameters
    ----------
    confidence : array of shape (T,)
        Confidence head output per step (nan where undefined or no head).
    z_self_norm : array of shape (T,)
        Euclidean norm of z_self per step (nan without a self-model).
    step_labels : sequence of str, length T, optional
        What happens at each step (e.g. ``"cue"``, ``"decision"``); shown on hover and as
        tick labels where not empty.
    highlight_step : int, optional

    Returns
    -------
    go.Figure
        Traces ``"confidence"`` and ``"‖z_self‖"``; a dotted 0.5 bet threshold.
    """
    c = np.asarray(confidence if confidence is not None else [], float).ravel()
    z = np.asarray(z_self_norm if z_self_norm is not None else [], float).ravel()
    n = max(c.size, z.size)
    if n == 0 or not (np.isfinite(c).any() or np.isfinite(z).any()):
        return empty_figure(title, "no confidence or self-model in this agent")
    steps = np.arange(n)
    labels = list(step_labels) if step_labels is not None and len(step_labels) == n else [""] * n
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.1,
        subplot_titles=("confidence (will my decision be right?)", "self-model activity ‖z_self‖"),
    )
    hover = [f"step {t}" + (f": {labels[t]}" if labels[t] else "") for t in range(n)]
    if c.size:
        fig.add_trace(
            go.Scatter(
                x=steps[: c.size],
                y=c,
                mode="lines+markers",
                name="confidence",
                line={"color": PALETTE["self_on"], "width": 2.5},
                text=hover[: c.size],
                hovertemplate="%{text}<br>confidence %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if z.size:
        fig.add_trace(
            go.Scatter(
                x=steps[: z.size],
                y=z,
                mode="lines+markers",
                name="‖z_self‖",
                line={"color": "#756bb1", "width": 2.5},
                text=hover[: z.size],
                hovertemplate="%{text}<br>‖z_self‖ %{y:.3f}<extra></extra>",
            ),
            row=2,
            col=1,
        )
    fig.add_hline(
        y=0.5,
        line={"dash": "dot", "color": PALETTE["chance"]},
        annotation_text="bet above 0.5",
        annotation_font={"size": 11, "color": "#666"},
        row=1,
        col=1,
    )
    if highlight_step is not None and 0 <= highlight_step < n:
        fig.add_vrect(
            x0=highlight_step - 0.5,
            x1=highlight_step + 0.5,
            fillcolor="#ffd92f",
            opacity=0.35,
            line_width=0,
        )
    ticks = [t for t in range(n) if labels[t]]
    if ticks:
        fig.update_xaxes(
            tickmode="array", tickvals=ticks, ticktext=[labels[t] for t in ticks], row=2, col=1
        )
    fig.update_yaxes(title_text="confidence (0-1)", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="norm", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="environment step", row=2, col=1)
    return _style(fig, title, height=480)
