"""Figure of the NeuroGym study (protocol 8.6, beyond the paper): sure-option choice against
coherence for agents trained from NeuroGym's reward, beside the Bayesian ideal observer.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.experiments.neurogym import BY_COHERENCE
from labcore.experiments.study import load_study
from labcore.figures.style import (
    add_note,
    chance_level_line,
    color_of,
    empty_figure,
    has_columns,
    rgba,
    style_figure,
)

OBSERVER_STYLE = {
    "reward": ("trained from reward alone (mean over seeds)", color_of("reward_all"), "solid"),
    "imitation": ("same network imitating the ideal observer (post hoc)", color_of("b2_ws"), "dot"),
    "ideal": ("ideal observer (same trials)", "#555555", "dash"),
}
"""Legend name, colour and line dash of each observer."""
ACCURACY_PANEL = (
    ("accuracy_not_offered", "sure option not offered", "circle"),
    ("accuracy_waived", "offered and declined", "diamond"),
)


def _coherence_axis(values: pd.Series) -> list[str]:
    return [f"{c:g}" for c in values]


def sure_curve_figure(
    table: pd.DataFrame | None,
    *,
    title: str = ("Does the agent take the sure option more often when the evidence is weak?"),
) -> go.Figure:
    """Sure-option rate (left) and accuracy without the offer and when declined (right) against
    coherence (``neurogym_by_coherence.csv``): means over seeds thick, each seed thin.
    """
    needed = (
        "seed",
        "observer",
        "coherence",
        "sure_rate",
        "accuracy_not_offered",
        "accuracy_waived",
    )
    if not has_columns(table, needed):
        return empty_figure(
            title, "no NeuroGym study in this result set (neurogym_by_coherence.csv)"
        )
    frame = table.copy()
    for column in needed[2:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame = frame.sort_values("coherence")
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=[
            "sure option taken (share of trials offering it)",
            "accuracy of the side choices",
        ],
    )
    for observer, (name, colour, dash) in OBSERVER_STYLE.items():
        rows = frame[frame["observer"] == observer]
        if rows.empty:
            continue
        if observer != "ideal":
            for seed, one in rows.groupby("seed"):
                fig.add_trace(
                    go.Scatter(
                        x=_coherence_axis(one["coherence"]),
                        y=one["sure_rate"],
                        mode="lines",
                        line={"color": rgba(colour, 0.35), "width": 1},
                        legendgroup=observer,
                        showlegend=False,
                        name=f"seed {seed:g}",
                        hovertemplate=f"seed {seed:g}<br>coherence %{{x}}%<br>"
                        "sure %{y:.2f}<extra></extra>",
                    ),
                    row=1,
                    col=1,
                )
        mean = rows.groupby("coherence")[
            ["sure_rate", "accuracy_not_offered", "accuracy_waived"]
        ].mean()
        mean = mean.reset_index()
        n = rows["seed"].nunique()
        fig.add_trace(
            go.Scatter(
                x=_coherence_axis(mean["coherence"]),
                y=mean["sure_rate"],
                mode="lines+markers",
                line={"color": colour, "width": 3, "dash": dash},
                marker={"size": 7},
                name=name,
                legendgroup=observer,
                hovertemplate=(
                    f"{name}<br>coherence %{{x}}%<br>sure %{{y:.2f}} (mean of {n} "
                    "seed(s))<extra></extra>"
                ),
            ),
            row=1,
            col=1,
        )
        for column, label, symbol in ACCURACY_PANEL:
            fig.add_trace(
                go.Scatter(
                    x=_coherence_axis(mean["coherence"]),
                    y=mean[column],
                    mode="lines+markers",
                    line={"color": colour, "width": 2, "dash": dash},
                    marker={"size": 8, "symbol": symbol},
                    name=f"{name.split(' (')[0]}: {label}",
                    legendgroup=f"{observer}-{column}",
                    hovertemplate=(
                        f"{name}<br>{label}<br>coherence %{{x}}%<br>accuracy "
                        "%{y:.3f}<extra></extra>"
                    ),
                ),
                row=1,
                col=2,
            )
    chance_level_line(fig, "wager", row=1, col=2)
    fig.update_xaxes(title_text="motion coherence (%)", type="category")
    fig.update_yaxes(title_text="share choosing the sure option", range=[-0.02, 1.02], row=1, col=1)
    fig.update_yaxes(title_text="share correct", range=[0.4, 1.02], row=1, col=2)
    fig = style_figure(fig, title, height=480)
    if not frame[frame["observer"] != "ideal"].empty:
        add_note(
            fig,
            "NeuroGym's payoff: correct 1, wrong 0, sure option 0.7 (only when "
            "offered, on half the "
            "trials); each agent measured on 6,000 held-out trials",
        )
    return fig


def sure_propensity_figure(
    curves: pd.DataFrame | None,
    *,
    title: str = ("How early does reward training give up the sure option?"),
) -> go.Figure:
    """The policy's probability of the sure option over training, with and without the offer
    (``neurogym_curves.csv``; a log axis, update 0 drawn at 1).
    """
    needed = ("seed", "trainer", "update", "heldout_p_sure_offered", "heldout_p_sure_not_offered")
    if not has_columns(curves, needed):
        return empty_figure(
            title, "no sure-option probabilities in this study (neurogym_curves.csv)"
        )
    frame = curves[curves["trainer"] == "reward"].copy()
    for column in needed[2:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame = frame.dropna(subset=list(needed[3:])).sort_values("update")
    if frame.empty:
        return empty_figure(
            title, "no sure-option probabilities of reward-trained agents in this study"
        )
    frame["shown_update"] = frame["update"].clip(lower=1)
    fig = go.Figure()
    colour = color_of("reward_all")
    for column, label, dash in (
        ("heldout_p_sure_offered", "sure option offered", "solid"),
        ("heldout_p_sure_not_offered", "not offered", "dot"),
    ):
        for seed, one in frame.groupby("seed"):
            fig.add_trace(
                go.Scatter(
                    x=one["shown_update"],
                    y=one[column],
                    mode="lines",
                    showlegend=False,
                    line={"color": rgba(colour, 0.3), "width": 1, "dash": dash},
                    legendgroup=column,
                    hovertemplate=f"seed {seed:g}, {label}<br>update %{{customdata}}<br>"
                    "P(sure) %{y:.4f}<extra></extra>",
                    customdata=one["update"],
                )
            )
        mean = frame.groupby("shown_update")[column].mean().reset_index()
        fig.add_trace(
            go.Scatter(
                x=mean["shown_update"],
                y=mean[column],
                mode="lines+markers",
                name=label,
                line={"color": colour, "width": 3, "dash": dash},
                legendgroup=column,
                hovertemplate=f"{label}<br>mean P(sure) %{{y:.4f}}<extra></extra>",
            )
        )
    fig.update_xaxes(
        title_text="optimizer updates (log scale; before training drawn at 1)", type="log"
    )
    fig.update_yaxes(title_text="probability of the sure option", range=[-0.01, 0.5])
    fig = style_figure(fig, title, height=420)
    add_note(
        fig,
        (
            "Trained from reward alone; the probability is read at the decision step of "
            "held-out trials"
        ),
    )
    return fig


def neurogym_figure(directory: Path | str) -> go.Figure:
    """The NeuroGym study's headline figure (:func:`sure_curve_figure`) from its folder."""
    study = load_study("neurogym", directory, tables=(BY_COHERENCE.name,))
    if study.summary is None:
        return empty_figure("NeuroGym's wager", "; ".join(study.problems) or "no result")
    return sure_curve_figure(study.frame(BY_COHERENCE.name))
