"""The marks that draw data in the house style: seed bars, the paper's marks, L75 groups, bands."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.figures.style import (
    JITTER,
    OURS,
    PALETTE,
    PAPER,
    PAPER_BOUND,
    PAPER_MARKER,
    PAPER_OFFSET,
    SEEDS,
    category_axis,
    color_of,
    has_columns,
    label_of,
    rgba,
    wrap_tick,
)
from labcore.findings import PaperValue
from labcore.markers import pearson_r
from labcore.render import finite, fmt, paper_text
from labcore.stats import seed_summary
from labcore.storage.formatting import format_l75, parse_l75

CROSSED = "ours: mean ± SD of seeds that crossed"
"""The L75 marks' mean of the seeds whose L75 is not censored."""


def seed_numbers(seed_values: pd.DataFrame | None, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(seeds, values) of one key, numeric and finite only, sorted by seed."""
    if not has_columns(seed_values, ("seed", "key", "value")):
        return np.array([], int), np.array([], float)
    rows = seed_values[seed_values["key"] == key]
    vals = pd.to_numeric(rows["value"], errors="coerce").to_numpy(float)
    seeds = rows["seed"].to_numpy()
    keep = np.isfinite(vals)
    order = np.argsort(seeds[keep], kind="stable")
    return seeds[keep][order], vals[keep][order]


def jitter(n: int) -> np.ndarray:
    """Horizontal offsets that spread ``n`` seed dots around their bar."""
    return np.zeros(n) if n <= 1 else np.linspace(-JITTER, JITTER, n)


def bar_of(values: np.ndarray) -> tuple[float, float]:
    """The bar drawn for per-seed values: :func:`labcore.stats.seed_summary`'s mean and SD, the
    SD drawn as 0 for a single seed (a bar without a band); nan, nan if empty."""
    s = seed_summary(values, "none")
    return s.mean, 0.0 if s.n == 1 else s.sd


@dataclass(frozen=True)
class Group:
    """One x position of a seed-summary panel."""

    key: str
    seeds: np.ndarray
    values: np.ndarray
    paper: PaperValue | None = None
    label: str | None = None
    note: str = ""

    @property
    def name(self) -> str:
        """Display name: the explicit label, else :func:`label_of` of the key."""
        return self.label or label_of(self.key)


def add_seed_bars(
    fig: go.Figure,
    groups: Sequence[Group],
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
) -> None:
    """Bars (mean +/- SD over seeds), one dot per seed, the paper's value as a hollow diamond."""
    rc = {"row": row, "col": col} if row is not None else {}
    x = np.arange(len(groups), dtype=float)
    stats = [bar_of(g.values) for g in groups]
    hover = [
        f"<b>{g.name}</b><br>ours: {fmt(m)} ± {fmt(s, digits=2)} (n = {g.values.size} seeds)"
        + (f"<br>{g.note}" if g.note else "")
        for g, (m, s) in zip(groups, stats, strict=True)
    ]
    fig.add_trace(
        go.Bar(
            x=x,
            y=[m for m, _ in stats],
            error_y={
                "type": "data",
                "array": [s for _, s in stats],
                "visible": True,
                "color": "#333",
            },
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
        sx += list(i + jitter(g.values.size))
        sy += list(g.values)
        sc += [color_of(g.key)] * g.values.size
        sh += [f"{g.name}<br>seed {s}: {fmt(v)}" for s, v in zip(g.seeds, g.values, strict=True)]
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
    add_paper_marks(
        fig,
        [(i + PAPER_OFFSET, g.paper, g.name) for i, g in enumerate(groups)],
        legend=legend,
        **rc,
    )
    for first, last, note in _empty_runs(groups):
        # one note per run of neighbouring empty groups, centred over the run and wrapped to its
        # width: five "not defined here" side by side would overlap
        fig.add_annotation(
            x=(first + last) / 2,
            y=0,
            text=wrap_tick(note, 12 * (last - first + 1)),
            showarrow=False,
            yanchor="bottom",
            font={"size": 11, "color": "#999"},
            **axref(fig, row, col),
        )
    category_axis(fig, [g.name for g in groups], **rc)


def _empty_runs(groups: Sequence[Group]) -> list[tuple[int, int, str]]:
    """(first, last, note) of each run of neighbouring groups without values and with the same
    note."""
    runs: list[tuple[int, int, str]] = []
    for i, g in enumerate(groups):
        if g.values.size:
            continue
        note = (g.note or "no data").replace("<br>", " ")
        if runs and runs[-1][1] == i - 1 and runs[-1][2] == note:
            runs[-1] = (runs[-1][0], i, note)
        else:
            runs.append((i, i, note))
    return runs


def axref(fig: go.Figure, row: int | None, col: int | None) -> dict:
    """``xref``/``yref`` of a subplot, for annotations placed in its data coordinates."""
    if row is None:
        return {}
    sub = fig.get_subplot(row, col)
    return {
        "xref": sub.xaxis.plotly_name.replace("axis", ""),
        "yref": sub.yaxis.plotly_name.replace("axis", ""),
    }


def add_paper_marks(
    fig: go.Figure,
    marks: Sequence[tuple[float, PaperValue | None, str]],
    *,
    legend: bool = True,
    **rc: Any,
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
                marker={**PAPER_MARKER, "size": 13},
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
                marker={**PAPER_MARKER, "symbol": "triangle-up-open", "size": 13},
                hovertext=[
                    f"<b>{n}</b><br>paper: {paper_text(p)} (sec. {p.section}; censored "
                    "at the largest tested σ)"
                    for _, p, n in bounds
                ],
                hoverinfo="text",
            ),
            **rc,
        )


def add_l75_groups(
    fig: go.Figure,
    groups: Sequence[tuple[str, list[tuple[Any, Any]], PaperValue | None]],
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
) -> None:
    """Per-seed L75 (dots, censored seeds as triangles at the bound), mean +/- SD as squares."""
    rc = {"row": row, "col": col} if row is not None else {}
    names = [label_of(k) for k, _, _ in groups]
    mx, my, msd, mcol, mhover = [], [], [], [], []
    seeds: dict[str, list] = {"none": [], "right": [], "left": []}
    for i, (key, raw, _paper_value) in enumerate(groups):
        parsed = [(seed, *parse_l75(v)) for seed, v in raw]
        parsed = [p for p in parsed if p[2] != "missing"]
        text, mean, sd = format_l75([p[1:] for p in parsed])
        if finite(mean):
            mx.append(i)
            my.append(mean)
            msd.append(sd)
            mcol.append(color_of(key))
            mhover.append(f"<b>{names[i]}</b><br>ours: {text}")
        offsets = jitter(len(parsed))
        for off, (seed, value, censored, bound) in zip(offsets, parsed, strict=True):
            what = {
                "none": f"L75 = {fmt(value)}",
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
                **axref(fig, row, col),
            )
    if mx:
        fig.add_trace(
            go.Scatter(
                x=mx,
                y=my,
                mode="markers",
                name=CROSSED,
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
    add_paper_marks(
        fig,
        [(i + PAPER_OFFSET, p, names[i]) for i, (_, _, p) in enumerate(groups)],
        legend=legend,
        **rc,
    )
    category_axis(fig, names, **rc)


def add_mean_with_band(
    fig: go.Figure,
    key: str,
    x: np.ndarray,
    arr: np.ndarray,
    *,
    alpha: float,
    marker_size: int,
    hover: str,
) -> None:
    """One line per key: the mean over rows (seeds) of ``arr``, with a +/- SD band if there are
    several."""
    per_x = [seed_summary(column, "none") for column in np.asarray(arr, float).T]
    mean = np.array([s.mean for s in per_x])
    if arr.shape[0] > 1:
        sd = np.array([s.sd for s in per_x])
        fig.add_trace(
            go.Scatter(
                x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([mean + sd, (mean - sd)[::-1]]),
                fill="toself",
                fillcolor=rgba(color_of(key), alpha),
                line={"width": 0},
                hoverinfo="skip",
                name=f"{label_of(key)} ± SD",
                legendgroup=key,
                showlegend=False,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=mean,
            mode="lines+markers",
            name=label_of(key),
            legendgroup=key,
            line={"color": color_of(key), "width": 2.5},
            marker={"size": marker_size},
            hovertemplate=hover,
        )
    )


def pearson_finite(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r over the finite pairs (nan with fewer than 3, or a constant side)."""
    keep = np.isfinite(x) & np.isfinite(y)
    return pearson_r(x[keep], y[keep]) if keep.sum() >= 3 else math.nan
