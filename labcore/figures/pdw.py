"""Figures of protocol 8.7 (Song et al. 2017 on NeuroGym's post-decision wager; beyond the paper).

- :func:`kiani_shadlen_figure`: Kiani & Shadlen's (2009) pair: P(sure | offered) against coherence,
  and accuracy on waived vs not-offered trials against coherence, for reward-trained networks
  beside the ideal observer (``pdw_by_coherence.csv``);
- :func:`training_curve_figure`: P(sure | offered) and accuracy over training (``pdw_curves.csv``),
  where the sure option's early rise, its collapse and any revival show.

The paper has no number here: no paper marks are drawn.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.figures.style import (
    add_note,
    chance_line,
    color_of,
    empty_figure,
    has_columns,
    rgba,
    style_figure,
)
from labcore.io import atomic_write
from labcore.results_pdw import BY_COHERENCE, CURVES, load_pdw

OBSERVERS = {("plain_gru", "reward"): ("plain GRU (Song et al.), trained from reward", "#d62728", "solid"),
             ("b2_ws", "reward"): ("B2 workspace-read, trained from reward", color_of("reward_all"), "solid"),
             ("plain_gru", "imitation"): ("plain GRU imitating the ideal observer (post hoc)", "#d62728", "dot"),
             ("b2_ws", "imitation"): ("B2 imitating the ideal observer (post hoc)", color_of("reward_all"), "dot"),
             ("ideal_observer", "ideal"): ("ideal observer (same trials)", "#555555", "dash")}
"""Legend name, colour and dash of each (agent, training)."""
ACCURACY_LINES = (("accuracy_waived", "offered, waived", "diamond", 1.0),
                  ("accuracy_not_offered", "not offered", "circle", 0.45))
"""Right panel: the two accuracies (column, label, marker, opacity)."""


def _axis(values: pd.Series) -> list[str]:
    return [f"{c:g}" for c in values]


def kiani_shadlen_figure(table: pd.DataFrame | None, *, policy: str = "sampled", imitation: bool = False,
                         title: str = "Does the sure option follow the evidence, as in monkeys?") -> go.Figure:
    """P(sure | offered) (left) and accuracy waived vs not offered (right) against coherence.

    Parameters
    ----------
    table : DataFrame
        ``pdw_by_coherence.csv``: ``agent``, ``training``, ``seed``, ``policy``, ``coherence``,
        ``p_sure``, ``accuracy_waived``, ``accuracy_not_offered``.
    policy : "sampled" (registered) or "greedy": which choices of the networks to draw.
    imitation : also draw the post-hoc imitation ceiling.

    Returns
    -------
    go.Figure
        Left: thick lines are means over seeds, thin lines each reward-trained seed; the ideal
        observer dashed. Right: per observer, accuracy when the option was offered and waived
        (diamonds) and when it was not offered (circles, fainter), means over seeds; chance 0.5.
        Kiani & Shadlen's signatures: the left curves fall with coherence; on the right the
        diamonds lie above the circles.
    """
    needed = ("agent", "training", "seed", "policy", "coherence", "p_sure", "accuracy_waived", "accuracy_not_offered")
    if not has_columns(table, needed):
        return empty_figure(title, "no Song et al. reproduction in this folder (pdw_by_coherence.csv)")
    frame = table[(table["policy"] == policy) | (table["training"] == "ideal")].copy()
    for column in needed[4:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame = frame.sort_values("coherence")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=["sure option chosen (share of trials offering it)",
                                        "accuracy of side choices: waived vs not offered"])
    drawn = 0
    for (agent, training), (name, colour, dash) in OBSERVERS.items():
        rows = frame[(frame["agent"] == agent) & (frame["training"] == training)]
        if rows.empty or (training == "imitation" and not imitation):
            continue
        drawn += 1
        if training == "reward":
            for seed, one in rows.groupby("seed"):
                fig.add_trace(go.Scatter(
                    x=_axis(one["coherence"]), y=one["p_sure"], mode="lines", showlegend=False, legendgroup=name,
                    line={"color": rgba(colour, 0.3), "width": 1}, name=f"seed {seed:g}",
                    hovertemplate=f"{name}, seed {seed:g}<br>coherence %{{x}}%<br>P(sure) %{{y:.2f}}<extra></extra>"),
                    row=1, col=1)
        mean = rows.groupby("coherence")[["p_sure", "accuracy_waived", "accuracy_not_offered"]].mean().reset_index()
        n = rows["seed"].nunique()
        fig.add_trace(go.Scatter(
            x=_axis(mean["coherence"]), y=mean["p_sure"], mode="lines+markers", name=name, legendgroup=name,
            line={"color": colour, "width": 3, "dash": dash}, marker={"size": 7},
            hovertemplate=f"{name}<br>coherence %{{x}}%<br>P(sure | offered) %{{y:.2f}} (mean of {n} seed(s))"
                          "<extra></extra>"), row=1, col=1)
        for column, label, symbol, opacity in ACCURACY_LINES:
            fig.add_trace(go.Scatter(
                x=_axis(mean["coherence"]), y=mean[column], mode="lines+markers", legendgroup=name, showlegend=False,
                line={"color": rgba(colour, opacity), "width": 2, "dash": dash},
                marker={"size": 8, "symbol": symbol, "color": rgba(colour, opacity)}, name=f"{name}: {label}",
                hovertemplate=f"{name}<br>{label}<br>coherence %{{x}}%<br>accuracy %{{y:.3f}}<extra></extra>"),
                row=1, col=2)
    if not drawn:
        return empty_figure(title, f"no {policy} choices of any observer in pdw_by_coherence.csv")
    chance_line(fig, 0.5, "chance 0.5", row=1, col=2)
    fig.update_xaxes(title_text="motion coherence (%)", type="category")
    fig.update_yaxes(title_text="P(sure | offered)", range=[-0.02, 1.02], row=1, col=1)
    fig.update_yaxes(title_text="share correct", range=[0.4, 1.02], row=1, col=2)
    fig = style_figure(fig, title, height=480)
    add_note(fig, f"Right panel: diamonds = offered and waived, circles = not offered. Networks' {policy} choices "
                  "on each seed's 12,000 evaluation trials; NeuroGym's payoff: correct 1, wrong 0, sure 0.7")
    return fig


def training_curve_figure(curves: pd.DataFrame | None, agent: str = "plain_gru", *, cell: str = "repro",
                          title: str | None = None) -> go.Figure:
    """P(sure | offered) (top) and accuracy of side choices (bottom) over training, one reward-trained agent kind.

    Parameters
    ----------
    curves : DataFrame
        ``pdw_curves.csv`` (or ``pdw_sweep_curves.csv``): ``cell``, ``agent``, ``training``,
        ``seed``, ``update``, ``policy``, ``p_sure_offered``, ``accuracy``.
    agent, cell : which networks (the reproduction's cell is "repro"; the explorer's are its cells).

    Returns
    -------
    go.Figure
        Sampled held-out checks: one thin line per seed, the seed mean thick; the greedy mean
        dotted. The sure option rising early, collapsing when the sides are learned and coming
        back later (the issue's pilot) would show in the top panel.
    """
    title = title or f"The sure option over training: {agent.replace('_', ' ')}, trained from reward"
    needed = ("cell", "agent", "training", "seed", "update", "policy", "p_sure_offered", "accuracy")
    if not has_columns(curves, needed):
        return empty_figure(title, "no learning curves in this folder (pdw_curves.csv)")
    frame = curves[(curves["cell"] == cell) & (curves["agent"] == agent) & (curves["training"] == "reward")
                   & curves["policy"].isin(["sampled", "greedy"])].copy()
    for column in ("update", "p_sure_offered", "accuracy"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    if frame.empty:
        return empty_figure(title, f"no reward-trained {agent} in cell {cell!r}")
    colour = OBSERVERS.get((agent, "reward"), ("", color_of(agent), ""))[1]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=["P(sure | offered), held-out checks", "accuracy of side choices"])
    for row, column in ((1, "p_sure_offered"), (2, "accuracy")):
        sampled = frame[frame["policy"] == "sampled"].sort_values("update")
        for seed, one in sampled.groupby("seed"):
            fig.add_trace(go.Scatter(x=one["update"], y=one[column], mode="lines", showlegend=False,
                                     line={"color": rgba(colour, 0.3), "width": 1},
                                     hovertemplate=f"seed {seed:g}<br>update %{{x}}<br>%{{y:.3f}}<extra></extra>"),
                          row=row, col=1)
        for policy, dash in (("sampled", "solid"), ("greedy", "dot")):
            mean = frame[frame["policy"] == policy].groupby("update")[column].mean().reset_index()
            fig.add_trace(go.Scatter(x=mean["update"], y=mean[column], mode="lines", name=f"{policy} (mean over seeds)",
                                     legendgroup=policy, showlegend=row == 1,
                                     line={"color": colour, "width": 3 if policy == "sampled" else 2, "dash": dash},
                                     hovertemplate=f"{policy}<br>update %{{x}}<br>mean %{{y:.3f}}<extra></extra>"),
                          row=row, col=1)
    fig.update_xaxes(title_text="optimizer updates", row=2, col=1)
    fig.update_yaxes(range=[-0.02, 1.02])
    fig = style_figure(fig, title, height=560)
    add_note(fig, "Each seed stops when the registered criterion holds at two checks in a row (protocol 8.7) or at "
                  "its cap, so later updates average fewer seeds")
    return fig


def write_figure(out: Path) -> Path:
    """Write ``figure.json`` (the Kiani & Shadlen pair, plotly JSON: drawn offline) beside a study's files."""
    study = load_pdw(out, (BY_COHERENCE, CURVES))
    fig = kiani_shadlen_figure(study.frames.get(BY_COHERENCE))
    path = Path(out) / "figure.json"
    atomic_write(path, lambda tmp: tmp.write_text(fig.to_json(), encoding="utf-8"))
    return path
