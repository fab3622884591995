"""Figures of one episode, step by step (Rollout theatre and Workspace pages).

The wager is not an action of the policy: the agent bets when its confidence at the choice
point is above 0.5 (:func:`wager_reading`), so the wager step shows that reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labcore.envs import ACTION_NAMES, WAGERING
from labcore.envs.batch import StepKind
from labcore.envs.labels import PRIMARY_CUE_NAMES, SECONDARY_CUE_NAMES
from labcore.envs.wagering import BET_ACTION
from labcore.figures.style import (
    PALETTE,
    chance_line,
    empty_figure,
    legend_entry,
    one_above_another,
    style_figure,
)
from labcore.measures import cue_kinds
from labcore.rollout import Trace

BET, OPT_OUT = "bet", "opt out"
HEAD, MAX_SOFTMAX = "confidence head", "max softmax probability"
"""What a wager reads: the confidence head, or for an agent without one the policy's largest
probability."""
BET_THRESHOLD = 0.5
"""The wager rule of paper sec. 4.2: bet if the confidence at the choice point is above 0.5."""
MOVE_NAMES = ("turn left", "turn right", "move forward", "pick up", "drop", "toggle", "done")


def action_axis(task_id: str, step_kind: int) -> tuple[list[str], str]:
    """What each of the seven actions means at one step: tick labels and the axis title.

    >>> action_axis("CTLab-DualTask-v0", StepKind.REPORT_2)[0][:2]
    ['key', 'ball']
    >>> action_axis("CTLab-Wagering-v0", StepKind.ORDINARY)[0][:3]
    ['turn left', 'turn right', 'move forward']
    """
    if task_id == WAGERING:
        if step_kind == StepKind.WAGER:
            return (
                [
                    f"{BET if a == BET_ACTION else OPT_OUT} ({n})"
                    for a, n in enumerate(ACTION_NAMES)
                ],
                "wager (the confidence decides, not these bars)",
            )
        where = (
            "at the junction: the turn is the decision"
            if step_kind == StepKind.REPORT_1
            else "walking"
        )
        return list(MOVE_NAMES), f"movement ({where})"
    if step_kind == StepKind.REPORT_2:
        return list(PRIMARY_CUE_NAMES), "object answer (action k = object k)"
    if step_kind == StepKind.REPORT_1:
        return list(SECONDARY_CUE_NAMES), "colour answer (action k = colour k)"
    return list(
        SECONDARY_CUE_NAMES
    ), "colour rehearsed (action k = colour k; not scored until the report)"


@dataclass(frozen=True)
class WagerReading:
    """The quantity that decides a wagering episode's bet, and where it was read."""

    step: int
    """Step of the choice point (-1 if never reached; then ``confidence`` is nan)."""
    confidence: float
    source: str
    """``HEAD`` or ``MAX_SOFTMAX``."""
    bet: bool


def wager_reading(trace: Trace, episode: int = 0) -> WagerReading:
    """The confidence at the choice point (``StepKind.REPORT_1``), the value a wager follows."""
    at = np.flatnonzero(trace.valid[episode] & (trace.step_kind[episode] == StepKind.REPORT_1))
    if at.size == 0:
        return WagerReading(-1, float("nan"), HEAD, False)
    step = int(at[0])
    head = float(trace.confidence[episode, step])
    if np.isfinite(head):
        value, source = head, HEAD
    else:
        value, source = float(trace.probs[episode, step].max()), MAX_SOFTMAX
    return WagerReading(step, value, source, bool(value > BET_THRESHOLD))


def step_caption(trace: Trace, t: int, reward: float, episode: int = 0) -> str:
    """The Rollout theatre's plain-language line about step ``t`` of one episode."""
    n = int(trace.valid[episode].sum())
    if t >= n:
        return f"Episode over. Reward {reward:g}."
    kind = int(trace.step_kind[episode, t])
    chosen, expert = int(trace.action[episode, t]), int(trace.oracle[episode, t])
    labels, _ = action_axis(trace.task_id, kind)
    if trace.task_id == WAGERING:
        if kind == StepKind.WAGER:
            w = wager_reading(trace, episode)
            verb = "bets" if chosen == BET_ACTION else "opts out"
            side = "above" if w.bet else "not above"
            return (
                f"Wager: the agent {verb}: its {w.source} at the choice point (step {w.step}) was "
                f"{w.confidence:.2f}, {side} {BET_THRESHOLD:g}."
            )
        verb = "decides at the junction" if kind == StepKind.REPORT_1 else "walks"
        return f"The agent {verb}: {labels[chosen]} (the expert would: {labels[expert]})."
    what = {StepKind.REPORT_1: "reports the colour", StepKind.REPORT_2: "reports the object"}.get(
        kind, "rehearses the colour"
    )
    ok = "✓" if chosen == expert else "✗"
    return f"The agent {what}: {labels[chosen]} {ok} (the expert: {labels[expert]})."


def workspace_heatmap(
    slots: Any,
    occupied: Any,
    cue_kinds: Sequence[str | None] | None = None,
    report_steps: Sequence[int] = (),
    highlight_step: int | None = None,
    title: str = "Workspace slots over time: when a slot fills and when it is overwritten",
) -> go.Figure:
    """What each workspace slot holds at every step of one episode.

    Top: one row per slot, coloured by the event that wrote its content (``cue_kinds`` of the write
    step: the slot whose content changed most at an event step), or "empty". Bottom: the raw slot
    activations. ``slots`` is (T, K, D), ``occupied`` (T, K).
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
    cat_colours = (  # empty, then Okabe & Ito's colours
        "#f4f4f4 #0072B2 #009E73 #D55E00 #CC79A7 #E69F00 #56B4E9 #F0E442 #555555".split()
    )
    colourscale = []
    for i in range(n_cat):
        c = cat_colours[i % len(cat_colours)] if names[i] != "unlabelled write" else "#bdbdbd"
        colourscale += [[i / n_cat, c], [(i + 1) / n_cat, c]]
    # the report steps' dashed lines are named in the title: a "report" label on top of the panel
    # sat on this title
    fig = one_above_another(
        "what each slot holds" + (" (dashed line: report step)" if len(report_steps) else ""),
        "slot activations (each row = one number)",
        row_heights=[0.35, 0.65],
        vertical_spacing=0.08,
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
            showscale=False,  # named in the legend below: a colour bar's names took a phone's width
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
            colorbar={"len": 0.55, "y": 0.3, "thickness": 12, "title": {"text": "value"}},
            hovertemplate="step %{x}<br>%{y}<br>value %{z:.2f}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    for i, name in enumerate(names):  # the slots' contents, named in the legend
        marker = {"symbol": "square", "size": 12, "color": colourscale[2 * i][1]}
        fig.add_trace(
            legend_entry(f"holds: {name}", marker | {"line": {"width": 1, "color": "#333"}}),
            row=1,
            col=1,
        )
    for k in range(1, n_slots):
        fig.add_hline(y=k * dim - 0.5, line={"color": "white", "width": 2}, row=2, col=1)
    for s in report_steps:
        fig.add_vline(x=s, line={"dash": "dash", "color": "#333", "width": 1.5})
    _highlight(fig, highlight_step, n_steps)
    fig.update_yaxes(autorange="reversed", row=1, col=1)
    fig.update_yaxes(autorange="reversed", showticklabels=dim * n_slots <= 32, row=2, col=1)
    fig.update_xaxes(title_text="environment step", row=2, col=1)
    return style_figure(fig, title, height=560)


def _highlight(fig: go.Figure, step: int | None, n: int) -> None:
    """Shade step ``step`` (the one the page shows) if it is one of the ``n`` drawn."""
    if step is not None and 0 <= step < n:
        fig.add_vrect(x0=step - 0.5, x1=step + 0.5, fillcolor="#F0E442", opacity=0.35, line_width=0)


def action_probabilities(
    probs: Any,
    chosen: int,
    expert: int | None,
    labels: Sequence[str],
    title: str = "What the agent is about to do",
    axis_title: str = "action",
) -> go.Figure:
    """Bar chart of the policy's action probabilities at one step, the chosen action highlighted
    and the expert's starred.
    """
    p = np.asarray(probs, float).ravel() if probs is not None else np.array([])
    if p.size == 0:
        return empty_figure(title, "no action probabilities")
    labels = (
        list(labels)
        if labels is not None and len(labels) == p.size
        else [f"action {i}" for i in range(p.size)]
    )
    colours = [PALETTE["b1"] if i == chosen else "#bdbdbd" for i in range(p.size)]
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
                marker={"symbol": "star", "size": 16, "color": "#D55E00"},
                hoverinfo="name",
            )
        )
    chance_line(fig, 1 / p.size, f"uniform 1/{p.size}")
    fig.update_yaxes(title_text="probability (fraction)", range=[0, 1.3])
    fig.update_xaxes(
        title_text=(
            f"{axis_title}<br>agent chose: {labels[chosen] if 0 <= chosen < p.size else 'none'}"
        ),
        automargin=True,
    )
    return style_figure(fig, title, height=380)


def wager_figure(reading: WagerReading, title: str = "The wager: bet or opt out?") -> go.Figure:
    """The confidence read at the choice point against the bet threshold, one horizontal bar."""
    if not np.isfinite(reading.confidence):
        return empty_figure(
            title, "the agent never reached the choice point, so no confidence was read"
        )
    chosen = BET if reading.bet else OPT_OUT
    fig = go.Figure(
        go.Bar(
            x=[reading.confidence],
            y=[f"step {reading.step}"],
            orientation="h",
            width=0.5,
            name="confidence read at the choice point",
            marker={"color": PALETTE["correct"] if reading.bet else PALETTE["chance"]},
            text=[f"{reading.confidence:.2f}"],
            textposition="outside",
            hovertemplate=f"{reading.source} at step {reading.step}: %{{x:.3f}}<extra></extra>",
        )
    )
    for x0, x1, name in ((0.0, BET_THRESHOLD, OPT_OUT), (BET_THRESHOLD, 1.0, BET)):
        fig.add_vrect(
            x0=x0,
            x1=x1,
            fillcolor="#F0E442" if name == chosen else "#f4f4f4",
            opacity=0.35,
            line_width=0,
            layer="below",
        )
        fig.add_annotation(
            x=(x0 + x1) / 2,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            showarrow=False,
            text=f"<b>{name}</b>" if name == chosen else name,
            font={"size": 14},
        )
    fig.add_vline(x=BET_THRESHOLD, line={"dash": "dot", "color": "#333", "width": 1.5})
    fig.update_xaxes(
        range=[0, 1.08],
        title_text=f"{reading.source} at the choice point (bet above {BET_THRESHOLD:g})",
        automargin=True,
    )
    fig.update_yaxes(title_text="read at", automargin=True)
    return style_figure(fig, title, height=300, legend_below=False)


READ_TEXT_SPAN = 0.15
"""How far the text of the value read reaches from its marker, in confidence units."""


def read_text_position(
    confidence: Any, step: int, threshold: float = BET_THRESHOLD, top: float = 1.05
) -> str:
    """Above or below its marker, where the text of the value read at ``step`` goes: away from a
    side without room, then from the threshold's line, then from the neighbouring steps' line.

    >>> read_text_position([0.49] * 5, 3), read_text_position([0.51] * 5, 3)
    ('bottom center', 'top center')
    >>> read_text_position([0.3, 0.86, 0.3], 1), read_text_position([0.3, 0.97, 0.3], 1)
    ('top center', 'bottom center')
    """
    c = np.asarray(confidence, float)
    value = float(c[step])
    neighbours = [
        float(c[i]) for i in (step - 1, step + 1) if 0 <= i < c.size and np.isfinite(c[i])
    ]

    def cost(above: bool) -> tuple[int, int, int, bool]:
        lo, hi = (value, value + READ_TEXT_SPAN) if above else (value - READ_TEXT_SPAN, value)
        no_room = hi > top if above else lo < 0
        on_threshold = lo <= threshold <= hi
        crossed = sum((n > value) if above else (n < value) for n in neighbours)
        return no_room, on_threshold, crossed, above != (value >= threshold)

    return "top center" if cost(True) < cost(False) else "bottom center"


def internal_state_timeline(
    confidence: Any,
    z_self_norm: Any,
    step_labels: Sequence[str] | None = None,
    highlight_step: int | None = None,
    title: str = "Inside the agent: confidence and self-model activity over the episode",
    decision_step: int | None = None,
) -> go.Figure:
    """Confidence (top) and the norm of z_self (bottom) over the steps of one episode; with
    ``decision_step`` the value the task reads is a large marker and the other steps faint.
    """
    c = np.asarray(confidence if confidence is not None else [], float).ravel()
    z = np.asarray(z_self_norm if z_self_norm is not None else [], float).ravel()
    n = max(c.size, z.size)
    if n == 0 or not (np.isfinite(c).any() or np.isfinite(z).any()):
        return empty_figure(title, "no confidence or self-model in this agent")
    steps = np.arange(n)
    labels = list(step_labels) if step_labels is not None and len(step_labels) == n else [""] * n
    rows = 2 if z.size else 1  # without the self-model's activity (a mystery puzzle), one panel
    fig = one_above_another(
        *("confidence (will my decision be right?)", "self-model activity ‖z_self‖")[:rows],
        vertical_spacing=0.1,
    )
    hover = [f"step {t}" + (f": {labels[t]}" if labels[t] else "") for t in range(n)]
    read = decision_step is not None and 0 <= decision_step < c.size
    if c.size:
        fig.add_trace(
            go.Scatter(
                x=steps[: c.size],
                y=c,
                mode="lines+markers",
                name="confidence" + (" (not read by the task at other steps)" if read else ""),
                line={"color": PALETTE["self_on"], "width": 1.5 if read else 2.5},
                opacity=0.45 if read else 1.0,
                text=hover[: c.size],
                hovertemplate="%{text}<br>confidence %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if read:
        fig.add_trace(
            go.Scatter(
                x=[decision_step],
                y=[c[decision_step]],
                mode="markers+text",
                name="confidence read at the choice point",
                text=[f"read here: {c[decision_step]:.2f}"],
                textposition=read_text_position(c, decision_step),
                marker={
                    "size": 15,
                    "color": PALETTE["self_on"],
                    "line": {"width": 2, "color": "#111"},
                },
                hovertemplate="choice point, step %{x}: confidence %{y:.3f} (the wager follows it)"
                "<extra></extra>",
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
                line={"color": "#CC79A7", "width": 2.5},
                text=hover[: z.size],
                hovertemplate="%{text}<br>‖z_self‖ %{y:.3f}<extra></extra>",
            ),
            row=2,
            col=1,
        )
    # The bet threshold is named in the legend, not labelled on its line: the label sat on the
    # marker and the value read at the choice point, and the value's text on the line ("read here:
    # 0.49" overprinted by the line at 0.5).
    fig.add_trace(
        go.Scatter(
            x=[-0.5, n - 0.5],
            y=[BET_THRESHOLD, BET_THRESHOLD],
            mode="lines",
            name=f"bet if above {BET_THRESHOLD:g} at the choice point"
            if read
            else f"bet threshold {BET_THRESHOLD:g}",
            line={"dash": "dot", "color": PALETTE["chance"], "width": 1.5},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    _highlight(fig, highlight_step, n)
    ticks = [t for t in range(n) if labels[t]]
    if ticks:
        fig.update_xaxes(
            tickmode="array", tickvals=ticks, ticktext=[labels[t] for t in ticks], row=rows, col=1
        )
    fig.update_yaxes(title_text="confidence (0-1)", range=[0, 1.05], row=1, col=1)
    if z.size:
        fig.update_yaxes(title_text="norm", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="environment step", row=rows, col=1)
    return style_figure(fig, title, height=480 if z.size else 300)


EMPTY_WORKSPACE_NOTE = (
    "The workspace holds nothing at any step of this episode (with 0 slots nothing is "
    "written to it), so there is no heatmap of its slots to draw."
)


@dataclass(frozen=True)
class StepFigures:
    """What a page shows of one step of one episode (Rollout theatre, Mystery agent)."""

    action: go.Figure
    """The wager at the wager step, else the action probabilities."""
    action_is_wager: bool
    timeline: go.Figure | None
    """None without a self-model."""
    slots: go.Figure | None
    """None without a workspace, or with one empty throughout (``slots_note`` says so)."""
    slots_note: str | None = None


def step_figures(
    trace: Trace, t: int, n_steps: int, episode: int = 0, *, self_model_activity: bool = True
) -> StepFigures:
    """The figures of step ``t`` of ``episode`` (its first ``n_steps`` steps drawn), from its trace;
    ``self_model_activity=False`` leaves the norm of z_self out of the timeline.
    """
    wager = wager_reading(trace, episode) if trace.task_id == WAGERING else None
    step_kind = int(trace.step_kind[episode, t])
    is_wager = wager is not None and step_kind == StepKind.WAGER
    if is_wager:
        action = wager_figure(wager)
    else:
        labels, axis_title = action_axis(trace.task_id, step_kind)
        action = action_probabilities(
            trace.probs[episode, t],
            int(trace.action[episode, t]),
            int(trace.oracle[episode, t]),
            labels,
            axis_title=axis_title,
        )
    timeline = None
    if trace.z_self is not None:
        znorm = np.linalg.norm(trace.z_self[episode, :n_steps], axis=-1)
        timeline = internal_state_timeline(
            trace.confidence[episode, :n_steps],
            znorm if self_model_activity else None,
            [str(s) for s in range(n_steps)],
            highlight_step=t,
            decision_step=wager.step if wager else None,
        )
    slots, slots_note = None, None
    if trace.slots is not None and not np.asarray(trace.occupied[episode, :n_steps]).any():
        slots_note = EMPTY_WORKSPACE_NOTE
    elif trace.slots is not None:
        slots = workspace_heatmap(
            trace.slots[episode, :n_steps],
            trace.occupied[episode, :n_steps],
            cue_kinds(trace, episode)[:n_steps],
            list(trace.report_steps(episode)),
            highlight_step=t,
        )
    return StepFigures(action, is_wager, timeline, slots, slots_note)
