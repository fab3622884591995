"""Figures of Experiment 4 (beyond the paper): metacognition from reward alone. The paper has
no number here: no paper marks are drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.figures.marks import Group, add_seed_bars, seed_numbers
from labcore.figures.style import (
    add_note,
    chance_level_line,
    color_of,
    empty_figure,
    has_columns,
    label_of,
    rgba,
    style_figure,
)
from labcore.render import UNDEFINED, chance_text
from labcore.stats import seed_summary

CURVE_PANELS = (
    ("heldout_auroc", "Type-2 AUROC (held-out)"),
    ("heldout_wager_reward", "wager reward per wager trial"),
)
"""The two learning-curve panels: column of ``e4_curves.csv`` and its axis title."""
SPREAD = "heldout_spread_bets"
"""The column with each AUROC's spread in bets (protocol 8.8.4), shown on hover where recorded."""


def learning_curves(
    curves: pd.DataFrame | None,
    *,
    arms: Sequence[str] | None = None,
    title: str = "Learning curves: does reward teach the confidence to tell right from wrong?",
) -> go.Figure:
    """Held-out Type-2 AUROC (left) and expected wager reward (right) at each evaluation of
    training: per arm the mean over seeds thick and each seed thin.

    An arm without recorded values is named in a note. The AUROC is teacher-forced on held-out
    demonstrations; the registered AUROC is measured afterwards on the agent's own rollouts.
    """
    needed = ("arm", "seed", "update", *(c for c, _ in CURVE_PANELS))
    if not has_columns(curves, needed):
        return empty_figure(title, "no learning curves in this result set (e4_curves.csv)")
    frame = curves.copy()
    for column in needed[1:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    order = list(arms) if arms is not None else list(dict.fromkeys(frame["arm"]))
    recorded = [
        a
        for a in order
        if frame.loc[frame["arm"] == a, [c for c, _ in CURVE_PANELS]].notna().any().any()
    ]
    if not recorded:
        return empty_figure(
            title, "no arm in this result set recorded a held-out AUROC or wager reward"
        )
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=[t for _, t in CURVE_PANELS]
    )
    for col, (column, _) in enumerate(CURVE_PANELS, start=1):
        for arm in recorded:
            rows = frame[(frame["arm"] == arm) & frame[column].notna()]
            if rows.empty:
                continue
            for seed, one in rows.groupby("seed"):
                one = one.sort_values("update")
                spread = pd.to_numeric(one[SPREAD], errors="coerce") if SPREAD in one else None
                shown = column == "heldout_auroc" and spread is not None and spread.notna().any()
                fig.add_trace(
                    go.Scatter(
                        x=one["update"],
                        y=one[column],
                        mode="lines",
                        line={"color": rgba(color_of(arm), 0.35), "width": 1},
                        name=f"{label_of(arm)}, seed {seed:g}",
                        legendgroup=arm,
                        showlegend=False,
                        customdata=spread if shown else None,
                        hovertemplate=f"{label_of(arm)}, seed {seed:g}<br>update %{{x}}<br>"
                        "%{y:.3f}"
                        + (
                            "<br>spread %{customdata:.3g} bets (meaningful at >= 1)"
                            if shown
                            else ""
                        )
                        + "<extra></extra>",
                    ),
                    row=1,
                    col=col,
                )
            mean = rows.groupby("update")[column].agg(["mean", "count"]).reset_index()
            fig.add_trace(
                go.Scatter(
                    x=mean["update"],
                    y=mean["mean"],
                    mode="lines+markers",
                    line={"color": color_of(arm), "width": 3},
                    marker={"size": 5},
                    name=label_of(arm),
                    legendgroup=arm,
                    showlegend=col == 1,
                    customdata=mean["count"],
                    hovertemplate=f"{label_of(arm)}<br>update %{{x}}<br>mean %{{y:.3f}} over "
                    "%{customdata} seed(s)"
                    "<extra></extra>",
                ),
                row=1,
                col=col,
            )
    chance_level_line(fig, "auroc", row=1, col=1)
    fig.update_xaxes(title_text="optimizer updates")
    fig.update_yaxes(
        title_text=f"Type-2 AUROC ({chance_text('auroc')})", range=[0, 1.02], row=1, col=1
    )
    fig.update_yaxes(title_text="expected reward per wager trial (-1..1)", row=1, col=2)
    fig = style_figure(fig, title, height=500)
    silent = [a for a in order if a not in recorded]
    if silent:
        add_note(
            fig,
            f"{', '.join(label_of(a) for a in silent)}: not recorded (confidence "
            "trained on labels; "
            "its training record keeps agreement only)",
        )
    return fig


def arms_figure(
    seed_values: pd.DataFrame | None,
    arms: Sequence[str],
    title: str = "Every arm: does the confidence tell right from wrong, and is it calibrated?",
) -> go.Figure:
    """Type-2 AUROC (left) and expected calibration error (right) of every arm, self-model intact;
    arms without values are named in a note.
    """
    panels = (
        ("auroc", f"Type-2 AUROC ({chance_text('auroc')})"),
        ("ece", "calibration error ECE (0 = calibrated)"),
    )
    found = {
        m: [Group(a, *seed_numbers(seed_values, f"e4.{m}.{a}.self_on")) for a in arms]
        for m, _ in panels
    }
    kept = [a for i, a in enumerate(arms) if all(found[m][i].values.size for m, _ in panels)]
    if not kept:
        return empty_figure(title, "no E4 values in this result set (seed_values.csv)")
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=[t for _, t in panels]
    )
    for col, (metric, axis) in enumerate(panels, start=1):
        add_seed_bars(
            fig, [g for g in found[metric] if g.key in kept], row=1, col=col, legend=col == 1
        )
        fig.update_yaxes(title_text=axis, rangemode="tozero", row=1, col=col)
    chance_level_line(fig, "auroc", row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], row=1, col=1)
    fig = style_figure(fig, title, height=500)
    if len(kept) < len(arms):
        add_note(
            fig, "not in this result set: " + ", ".join(label_of(a) for a in arms if a not in kept)
        )
    return fig


def history_frame(
    history: Sequence[dict], arm: str = "reward_wager", seed: int = 0
) -> pd.DataFrame:
    """A live training run's history as ``e4_curves`` rows.

    >>> history_frame([{"update": 10, "heldout_auroc": 0.4,
    ...                 "heldout_wager_reward": None}])["update"].tolist()
    [10]
    """
    rows = [
        {
            "arm": arm,
            "seed": seed,
            "update": h.get("update"),
            **{c: (np.nan if h.get(c) is None else float(h[c])) for c, _ in CURVE_PANELS},
        }
        for h in history
    ]
    return pd.DataFrame(rows, columns=["arm", "seed", "update", *(c for c, _ in CURVE_PANELS)])


ARM_TABLE_METRICS = (
    ("accuracy", "task accuracy"),
    ("auroc", "Type-2 AUROC"),
    ("spread_bets", "spread in bets (AUROC meaningful at >= 1)"),
    ("confidence_sd", "confidence SD"),
    ("ece", "calibration error (ECE)"),
    ("skip", "opt-outs (wager trials)"),
    ("confidence", "mean confidence"),
)
"""The columns of :func:`arms_table`: metric key and its display name (the AUROC beside its
confidence's spread, protocol 8.8.4; "undefined" in sets made before the rule)."""
PERCENT_METRICS = ("accuracy", "skip")
"""Metrics that are shares of trials: shown as percentages (the rest as numbers: scores on 0-1, the
spread in bets in units of one bet)."""


def arms_table(
    seed_values: pd.DataFrame | None, arms: Sequence[str], condition: str = "self_on"
) -> pd.DataFrame:
    """Mean ± SD over seeds of each arm's headline numbers as text, one row per arm with values
    (:data:`labcore.render.UNDEFINED` where no seed has one).
    """
    rows = []
    for arm in arms:
        row: dict[str, object] = {"arm": label_of(arm)}
        counts = []
        for metric, name in ARM_TABLE_METRICS:
            _, values = seed_numbers(seed_values, f"e4.{metric}.{arm}.{condition}")
            counts.append(values.size)
            s = seed_summary(values, "none")
            if metric in PERCENT_METRICS:  # shares as percentages, as the page's metrics show them
                sd = f" ± {100 * s.sd:.2g} pts" if s.n > 1 else ""
                row[name] = f"{s.mean:.1%}{sd}" if s.n else UNDEFINED
            else:
                sd = f" ± {s.sd:.2g}" if s.n > 1 else ""
                row[name] = f"{s.mean:.3g}{sd}" if s.n else UNDEFINED
        if any(counts):
            rows.append({**row, "seeds": max(counts)})
    return pd.DataFrame(rows, columns=["arm", *(n for _, n in ARM_TABLE_METRICS), "seeds"])
