"""Figures of the Song et al. (2017) studies on NeuroGym's post-decision wager (protocol 8.6-8.7;
beyond the paper, so no paper marks): the reproduction, the reward explorer, a live run, and the
NeuroGym study's sure-option curves beside the Bayesian ideal observer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.experiments.neurogym import BY_COHERENCE as NEUROGYM_BY_COHERENCE
from labcore.experiments.pdw import BY_COHERENCE
from labcore.experiments.pdw_sweep import ROWS
from labcore.experiments.study import load_study
from labcore.figures.style import (
    add_note,
    chance_level_line,
    chance_line,
    color_of,
    empty_figure,
    has_columns,
    network_label,
    one_above_another,
    rgba,
    seed_line,
    side_by_side,
    style_figure,
)

_GRU, _B2, _IDEAL = (network_label(a) for a in ("plain_gru", "b2_ws", "ideal_observer"))
_IMITATING = "imitating the ideal observer (post hoc)"
OBSERVERS = {
    ("plain_gru", "reward"): (f"{_GRU}, from reward", "#D55E00", "solid"),
    ("b2_ws", "reward"): (f"{_B2}, from reward", color_of("reward_all"), "solid"),
    ("plain_gru", "imitation"): (f"{_GRU} {_IMITATING}", "#D55E00", "dot"),
    ("b2_ws", "imitation"): (f"{_B2} {_IMITATING}", color_of("reward_all"), "dot"),
    ("ideal_observer", "ideal"): (f"{_IDEAL} (same trials)", "#555555", "dash"),
}
"""Legend name, colour and dash of each (agent, training)."""
ACCURACY_LINES = (
    ("accuracy_waived", "offered, waived", "diamond", 1.0),
    ("accuracy_not_offered", "not offered", "circle", 0.45),
)


def _axis(values: pd.Series) -> list[str]:
    return [f"{c:g}" for c in values]


def kiani_shadlen_figure(
    table: pd.DataFrame | None,
    *,
    policy: str = "sampled",
    imitation: bool | str = False,
    title: str = "Does the sure option follow the evidence, as in monkeys?",
) -> go.Figure:
    """Kiani & Shadlen's (2009) pair against coherence: P(sure | offered) (left) and accuracy on
    waived vs not-offered trials (right), from ``pdw_by_coherence.csv``.

    ``imitation`` also draws the post-hoc imitation ceiling (``"legendonly"``: drawn when clicked in
    the legend). Values no seed defines are named in a note.
    """
    needed = (
        "agent",
        "training",
        "seed",
        "policy",
        "coherence",
        "p_sure",
        "accuracy_waived",
        "accuracy_not_offered",
    )
    if not has_columns(table, needed):
        return empty_figure(
            title, "no Song et al. reproduction in this folder (pdw_by_coherence.csv)"
        )
    frame = table[(table["policy"] == policy) | (table["training"] == "ideal")].copy()
    frame[list(needed[4:])] = frame[list(needed[4:])].apply(pd.to_numeric, errors="coerce")
    frame = frame.sort_values("coherence")
    fig = side_by_side(
        "sure option chosen (share of trials offering it)",
        "accuracy of side choices: waived vs not offered",
        horizontal_spacing=0.12,
    )
    drawn, lowest, undefined = 0, 0.4, []
    for (agent, training), (name, colour, dash) in OBSERVERS.items():
        rows = frame[(frame["agent"] == agent) & (frame["training"] == training)]
        if rows.empty or (training == "imitation" and not imitation):
            continue
        drawn += 1
        shown = "legendonly" if training == "imitation" and imitation == "legendonly" else True
        if training == "reward":
            for seed, one in rows.groupby("seed"):
                fig.add_trace(
                    seed_line(
                        _axis(one["coherence"]),
                        one["p_sure"],
                        colour,
                        legendgroup=name,
                        visible=shown,
                        name=f"seed {seed:g}",
                        hovertemplate=(
                            f"{name}, seed {seed:g}<br>coherence %{{x}}%<br>P(sure) "
                            "%{y:.2f}<extra></extra>"
                        ),
                    ),
                    row=1,
                    col=1,
                )
        mean = (
            rows.groupby("coherence")[["p_sure", "accuracy_waived", "accuracy_not_offered"]]
            .mean()
            .reset_index()
        )
        n = rows["seed"].nunique()
        for column, what in (
            ("p_sure", "P(sure | offered)"),
            ("accuracy_waived", "accuracy on waived trials"),
            ("accuracy_not_offered", "accuracy when not offered"),
        ):
            if missing := [
                f"{c:g}%"
                for c, v in zip(mean["coherence"], mean[column], strict=True)
                if pd.isna(v)
            ]:
                undefined.append(f"{name}: {what} at {', '.join(missing)}")
        accuracies = mean[["accuracy_waived", "accuracy_not_offered"]].to_numpy(
            float
        )  # hidden ones too: a click shows them
        if np.isfinite(accuracies).any():
            lowest = min(lowest, float(np.nanmin(accuracies)) - 0.03)
        fig.add_trace(
            go.Scatter(
                x=_axis(mean["coherence"]),
                y=mean["p_sure"],
                mode="lines+markers",
                name=name,
                legendgroup=name,
                visible=shown,
                line={"color": colour, "width": 3, "dash": dash},
                marker={"size": 7},
                hovertemplate=f"{name}<br>coherence %{{x}}%<br>P(sure | offered) "
                f"%{{y:.2f}} (mean of {n} seed(s))<extra></extra>",
            ),
            row=1,
            col=1,
        )
        for column, label, symbol, opacity in ACCURACY_LINES:
            fig.add_trace(
                go.Scatter(
                    x=_axis(mean["coherence"]),
                    y=mean[column],
                    mode="lines+markers",
                    legendgroup=name,
                    showlegend=False,
                    visible=shown,
                    line={"color": rgba(colour, opacity), "width": 2, "dash": dash},
                    marker={"size": 8, "symbol": symbol, "color": rgba(colour, opacity)},
                    name=f"{name}: {label}",
                    hovertemplate=(
                        f"{name}<br>{label}<br>coherence %{{x}}%<br>accuracy "
                        "%{y:.3f}<extra></extra>"
                    ),
                ),
                row=1,
                col=2,
            )
    if not drawn:
        return empty_figure(title, f"no {policy} choices of any observer in pdw_by_coherence.csv")
    chance_level_line(fig, "wager", row=1, col=2)
    fig.update_xaxes(title_text="motion coherence (%)", type="category")
    fig.update_yaxes(title_text="P(sure | offered)", range=[-0.02, 1.02], row=1, col=1)
    fig.update_yaxes(title_text="share correct", range=[max(lowest, -0.02), 1.02], row=1, col=2)
    fig = style_figure(fig, title, height=480)
    add_note(
        fig,
        f"Right panel: diamonds = offered and waived, circles = not offered. Networks' {policy} "
        "choices on each seed's evaluation trials; NeuroGym's payoff: correct 1, wrong 0, sure 0.7",
    )
    if undefined:
        add_note(
            fig,
            "Not drawn, undefined (no trial to count: no offer, or the option taken or waived on "
            "every offered trial, at that coherence in every seed): " + "; ".join(undefined),
        )
    return fig


def training_curve_figure(
    curves: pd.DataFrame | None,
    agent: str = "plain_gru",
    *,
    cell: str = "repro",
    title: str | None = None,
) -> go.Figure:
    """P(sure | offered) (top) and accuracy (bottom) over training of one reward-trained agent kind
    (``pdw_curves.csv``): each seed thin, the sampled mean thick, the greedy mean dotted.
    """
    title = title or f"The sure option over training: {network_label(agent)}, trained from reward"
    needed = ("cell", "agent", "training", "seed", "update", "policy", "p_sure_offered", "accuracy")
    if not has_columns(curves, needed):
        return empty_figure(title, "no learning curves in this folder (pdw_curves.csv)")
    frame = curves[
        (curves["cell"] == cell)
        & (curves["agent"] == agent)
        & (curves["training"] == "reward")
        & curves["policy"].isin(["sampled", "greedy"])
    ].copy()
    for column in ("update", "p_sure_offered", "accuracy"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    if frame.empty:
        return empty_figure(title, f"no reward-trained {agent} in cell {cell!r}")
    colour = OBSERVERS.get((agent, "reward"), ("", color_of(agent), ""))[1]
    fig = one_above_another(
        "P(sure | offered), held-out checks", "accuracy of side choices", vertical_spacing=0.08
    )
    for row, column in ((1, "p_sure_offered"), (2, "accuracy")):
        sampled = frame[frame["policy"] == "sampled"].sort_values("update")
        for seed, one in sampled.groupby("seed"):
            fig.add_trace(
                seed_line(
                    one["update"],
                    one[column],
                    colour,
                    hovertemplate=f"seed {seed:g}<br>update %{{x}}<br>%{{y:.3f}}<extra></extra>",
                ),
                row=row,
                col=1,
            )
        for policy, dash in (("sampled", "solid"), ("greedy", "dot")):
            mean = frame[frame["policy"] == policy].groupby("update")[column].mean().reset_index()
            fig.add_trace(
                go.Scatter(
                    x=mean["update"],
                    y=mean[column],
                    mode="lines",
                    name=f"{policy} (mean over seeds)",
                    legendgroup=policy,
                    showlegend=row == 1,
                    line={"color": colour, "width": 3 if policy == "sampled" else 2, "dash": dash},
                    hovertemplate=f"{policy}<br>update %{{x}}<br>mean %{{y:.3f}}<extra></extra>",
                ),
                row=row,
                col=1,
            )
    fig.update_xaxes(title_text="optimizer updates", row=2, col=1)
    fig.update_yaxes(range=[-0.02, 1.02])
    fig = style_figure(fig, title, height=560)
    add_note(
        fig,
        "Each seed stops when the registered criterion holds at two checks in a row, or at "
        "its cap, so later updates average fewer seeds",
    )
    return fig


def explorer_figure(
    rows: pd.DataFrame | None,
    cell: str,
    cells: Sequence[str],
    keeps_at: float,
    *,
    title: str = "The reward explorer: S1 of every agent, the chosen cell highlighted",
) -> go.Figure:
    """S1's contrast of every agent of the reward explorer by cell (``pdw_sweep.csv``), ``cell``
    highlighted, the keep threshold dashed; undefined S1 counted in a note.
    """
    if not has_columns(rows, ("cell", "seed", "s1_contrast")):
        return empty_figure(title, "no reward explorer in this folder (pdw_sweep.csv)")
    frame = rows[rows["cell"].isin(cells)].copy()
    frame["s1_contrast"] = pd.to_numeric(frame["s1_contrast"], errors="coerce")
    values = frame["s1_contrast"].to_numpy(float)
    if not np.isfinite(values).any():
        return empty_figure(title, "no agent of the explorer has a defined S1 contrast")
    colour = OBSERVERS[("plain_gru", "reward")][1]
    fig = go.Figure()
    others_listed = False
    for name in cells:
        one = frame[frame["cell"] == name].sort_values("seed")
        if one.empty:
            continue
        chosen = name == cell
        fig.add_trace(
            go.Scatter(
                x=[name] * len(one),
                y=one["s1_contrast"],
                mode="markers+text" if chosen else "markers",
                text=[f"seed {s:g}" for s in one["seed"]] if chosen else None,
                textposition="middle right",
                marker={
                    "size": 13 if chosen else 8,
                    "color": colour if chosen else "#888888",
                    "line": {"width": 1, "color": "white"},
                },
                name="the chosen cell's agents" if chosen else "other cells' agents",
                legendgroup=str(chosen),
                showlegend=chosen or not others_listed,
                hovertemplate=f"cell {name}<br>seed %{{customdata}}<br>S1 "
                "%{y:+.3f}<extra></extra>",
                customdata=one["seed"],
            )
        )
        others_listed = others_listed or not chosen
        mean = one["s1_contrast"].mean()
        if pd.notna(mean):
            fig.add_trace(
                go.Scatter(
                    x=[name],
                    y=[mean],
                    mode="markers",
                    showlegend=False,
                    marker={
                        "symbol": "line-ew-open",
                        "size": 26,
                        "color": colour if chosen else "#555",
                        "line": {"width": 3 if chosen else 1.5},
                    },
                    hovertemplate=f"cell {name}<br>mean S1 %{{y:+.3f}}<extra></extra>",
                )
            )
    chance_line(fig, keeps_at, f"keeps the sure option at {keeps_at:g} or more")
    low = min(0.0, float(np.nanmin(values)), keeps_at)
    high = max(float(np.nanmax(values)), keeps_at)
    pad = 0.08 * (high - low or 1.0)
    fig.update_yaxes(
        title_text="S1: P(sure | offered) at 0-3.2% minus at 25.6-51.2%",
        range=[low - pad, high + pad],
        zeroline=True,
    )
    fig.update_xaxes(
        title_text="cell (S: Song's setting, O: our old default; -x / +x: one choice changed)",
        type="category",
        categoryorder="array",
        categoryarray=list(cells),
    )
    fig = style_figure(fig, title, height=440)
    if n_undefined := int(np.isnan(values).sum()):
        add_note(
            fig,
            (
                f"{n_undefined} agent(s) not drawn: S1 undefined (no trial offering the "
                "sure option at one end)"
            ),
        )
    return fig


LIVE_COLOUR = "#E69F00"


def live_curve_figure(
    history: Sequence[dict],
    reference: pd.DataFrame | None,
    *,
    budget: int,
    reference_name: str = "bundled runs, Song's setting (mean over seeds)",
    title: str = "Your live run: the sure option and accuracy as it learns",
) -> go.Figure:
    """P(sure | offered) (top) and accuracy (bottom) of a live run's checks, beside the bundled
    curves of ``reference``; ``budget`` is the run's update cap (dotted).
    """
    fig = one_above_another(
        "P(sure | offered), held-out checks", "accuracy of side choices", vertical_spacing=0.1
    )
    live = pd.DataFrame(list(history), columns=["update", "p_sure_offered", "accuracy"]).apply(
        pd.to_numeric, errors="coerce"
    )
    right = float(budget)
    ref = None
    if has_columns(reference, ("update", "policy", "p_sure_offered", "accuracy")):
        ref = reference[reference["policy"] == "sampled"].copy()
        for column in ("update", "p_sure_offered", "accuracy"):
            ref[column] = pd.to_numeric(ref[column], errors="coerce")
        ref = ref.groupby("update")[["p_sure_offered", "accuracy"]].mean().reset_index()
        if not ref.empty:
            right = max(right, float(ref["update"].max()))
    if not live.empty:
        right = max(right, float(live["update"].max()))
    missing = 0
    for row, column in ((1, "p_sure_offered"), (2, "accuracy")):
        if ref is not None and not ref.empty:
            fig.add_trace(
                go.Scatter(
                    x=ref["update"],
                    y=ref[column],
                    mode="lines",
                    name=reference_name,
                    legendgroup="ref",
                    showlegend=row == 1,
                    line={"color": "#777", "width": 2, "dash": "dash"},
                    hovertemplate="bundled<br>update %{x}<br>%{y:.3f}<extra></extra>",
                ),
                row=row,
                col=1,
            )
        shown = live.dropna(subset=[column])
        missing += len(live) - len(shown)
        fig.add_trace(
            go.Scatter(
                x=shown["update"],
                y=shown[column],
                mode="lines+markers",
                name="your run",
                legendgroup="live",
                showlegend=row == 1,
                line={"color": LIVE_COLOUR, "width": 3},
                marker={"size": 6},
                hovertemplate="your run<br>update %{x}<br>%{y:.3f}<extra></extra>",
            ),
            row=row,
            col=1,
        )
        fig.add_vline(x=budget, line={"dash": "dot", "color": "#999"}, row=row, col=1)
    fig.update_xaxes(range=[0, right * 1.02], row=1, col=1)
    fig.update_xaxes(
        range=[0, right * 1.02],
        title_text="optimizer updates (dotted: the end of your run's budget)",
        row=2,
        col=1,
    )
    fig.update_yaxes(range=[-0.02, 1.02])
    fig = style_figure(fig, title, height=520)
    if missing:
        add_note(
            fig,
            f"{missing} check value(s) not drawn: undefined (no side chosen, or no "
            "trial offering the sure option, among the checked trials)",
        )
    return fig


def _from_folder(
    name: str,
    directory: Path | str,
    table: str,
    title: str,
    draw: Callable[[pd.DataFrame], go.Figure],
) -> go.Figure:
    """``draw`` of study ``name``'s ``table`` in ``directory``, or an empty figure that says why."""
    study = load_study(name, directory, tables=(table,))
    if study.summary is None:
        return empty_figure(title, "; ".join(study.problems) or "no result")
    return draw(study.frame(table))


def pdw_figure(directory: Path | str) -> go.Figure:
    """The reproduction's headline figure: Kiani & Shadlen's pair from its folder."""
    return _from_folder(
        "pdw", directory, BY_COHERENCE.name, "Song et al. reproduced", kiani_shadlen_figure
    )


def explorer_headline(directory: Path | str, name: str = "pdw_sweep") -> go.Figure:
    """The explorer's (``"pdw_sweep"``) or its follow-up's (``"pdw_held"``) headline figure: S1
    of every agent by cell, the reference cell (S, or O for the follow-up) highlighted."""
    study = load_study(name, directory, tables=(ROWS.name,))
    if study.tables is None:
        return empty_figure("The reward explorer", "; ".join(study.problems) or "no result")
    cells = study.tables.design_cells
    return explorer_figure(
        study.frame(ROWS.name),
        cells[0],
        cells,
        study.tables.keeps_at,
        title=(
            "What the explorer held: S1 of every agent, the old default highlighted"
            if name == "pdw_held"
            else "The reward explorer: S1 of every agent, Song's setting highlighted"
        ),
    )


OBSERVER_STYLE = {
    "reward": ("trained from reward alone (mean over seeds)", color_of("reward_all"), "solid"),
    "imitation": ("same network imitating the ideal observer (post hoc)", color_of("b2_ws"), "dot"),
    "ideal": ("ideal observer (same trials)", "#555555", "dash"),
}
ACCURACY_PANEL = (
    ("accuracy_not_offered", "sure option not offered", "circle"),
    ("accuracy_waived", "offered and declined", "diamond"),
)


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
    frame[list(needed[2:])] = frame[list(needed[2:])].apply(pd.to_numeric, errors="coerce")
    frame = frame.sort_values("coherence")
    fig = side_by_side(
        "sure option taken (share of trials offering it)",
        "accuracy of the side choices",
        horizontal_spacing=0.12,
    )
    for observer, (name, colour, dash) in OBSERVER_STYLE.items():
        rows = frame[frame["observer"] == observer]
        if rows.empty:
            continue
        if observer != "ideal":
            for seed, one in rows.groupby("seed"):
                fig.add_trace(
                    seed_line(
                        _axis(one["coherence"]),
                        one["sure_rate"],
                        colour,
                        0.35,
                        legendgroup=observer,
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
                x=_axis(mean["coherence"]),
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
                    x=_axis(mean["coherence"]),
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
            "offered, on half the trials); each agent measured on 6,000 held-out trials",
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
    frame[list(needed[2:])] = frame[list(needed[2:])].apply(pd.to_numeric, errors="coerce")
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
                seed_line(
                    one["shown_update"],
                    one[column],
                    colour,
                    line={"dash": dash},
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
    return _from_folder(
        "neurogym", directory, NEUROGYM_BY_COHERENCE.name, "NeuroGym's wager", sure_curve_figure
    )
