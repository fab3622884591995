"""Figures of the live lab: curves of one agent (or a few) drawn from arrays (Metacognition,
Workspace and Robustness pages); the paper's figures reuse them on pooled results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.figures.marks import Group, add_mean_with_band, add_paper_marks, add_seed_bars
from labcore.figures.style import (
    PALETTE,
    PAPER,
    PAPER_BOUND,
    PAPER_MARKER,
    PAPER_OFFSET,
    UNITS_SIGMA,
    add_note,
    category_axis,
    chance_level_line,
    chance_line,
    color_of,
    empty_figure,
    label_of,
    one_above_another,
    paper_of,
    side_by_side,
    style_figure,
)
from labcore.findings import PaperValue
from labcore.markers import (
    calibration_curve,
    risk_coverage_curve,
    type2_auroc,
    type2_roc,
    undefined_as_nan,
)
from labcore.markers.robustness import L75_THRESHOLD
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import chance, finite, fmt, paper_text
from labcore.storage.formatting import parse_l75

POOLED = "ours (pooled trials)"
PERFECT_CALIBRATION = "perfect calibration"
L75_OURS = "L75 (ours)"


def type2_roc_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    paper_auroc: float | Mapping[str, float] | None = None,
    *,
    seed_aurocs: Mapping[str, Sequence[float]] | None = None,
    title: str = "Type-2 ROC: does confidence separate correct from wrong answers?",
) -> go.Figure:
    """Type-2 ROC curves (left) and their AUROC beside the paper's (right).

    ``curves`` is ``{key: (correct, confidence)}``; ``paper_auroc`` one number (for the first key)
    or ``{key: value}``. With ``seed_aurocs`` (``{key: per-seed AUROCs}``) the right panel shows
    their mean +/- SD and the seeds, else the pooled trials' AUROC: pooling seeds can move an AUROC
    away from every seed's own value.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    if paper_auroc is not None and not isinstance(paper_auroc, Mapping):
        paper_auroc = {next(iter(curves)): float(paper_auroc)}
    paper_auroc = dict(paper_auroc or {})
    fig = side_by_side(
        "ROC curve (pooled trials)",
        "Area under the curve",
        column_widths=[0.62, 0.38],
        horizontal_spacing=0.12,
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="chance (diagonal; AUROC 0.5)",
            legendgroup="chance",
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
        auc = undefined_as_nan(type2_auroc, correct, confidence)  # nan with one class only
        fpr, tpr, _ = (
            type2_roc(correct, confidence) if finite(auc) else (np.array([]), np.array([]), None)
        )
        keys.append(key)
        aurocs.append(auc)
        fig.add_trace(
            go.Scatter(
                x=fpr,
                y=tpr,
                mode="lines",
                name=f"{label_of(key)} (AUROC {fmt(auc)})",
                line={"color": color_of(key), "width": 3, "shape": "linear"},
                hovertemplate=(
                    f"{label_of(key)}<br>false alarms %{{x:.2f}}<br>hits %{{y:.2f}}<extra></extra>"
                ),
            ),
            row=1,
            col=1,
        )
        if not finite(auc):
            add_note(fig, f"{label_of(key)}: AUROC undefined (all trials correct or all wrong)")
    papers = {
        k: PaperValue(value=float(paper_auroc[k]))
        for k in keys
        if k in paper_auroc and finite(paper_auroc[k])
    }
    if seed_aurocs:
        groups = []
        for k in keys:
            vals = np.asarray([v for v in seed_aurocs.get(k, []) if finite(v)], float)
            groups.append(Group(k, np.arange(vals.size), vals, papers.get(k)))
        add_seed_bars(fig, groups, row=1, col=2)
    else:
        fig.add_trace(
            go.Scatter(
                x=list(range(len(keys))),
                y=aurocs,
                mode="markers",
                name=POOLED,
                marker={
                    "size": 13,
                    "symbol": "square",
                    "color": [color_of(k) for k in keys],
                    "line": {"width": 1, "color": "#333"},
                },
                hovertext=[
                    f"{label_of(k)}: AUROC {fmt(a)} (n = {len(curves[k][0])} trials)"
                    for k, a in zip(keys, aurocs, strict=True)
                ],
                hoverinfo="text",
                showlegend=False,
            ),
            row=1,
            col=2,
        )
        add_paper_marks(
            fig,
            [(i + PAPER_OFFSET, papers.get(k), label_of(k)) for i, k in enumerate(keys)],
            row=1,
            col=2,
        )
        category_axis(fig, [label_of(k) for k in keys], row=1, col=2)
    # The chance line of the AUROC panel is named in the legend with the diagonal, not labelled
    # in the panel: a label at either end sits on a marker ("chance 0.5" on the paper's diamond of
    # the zeroed self-model, whose AUROC is 0.5).
    fig.add_trace(
        go.Scatter(
            x=[-0.6, len(keys) - 0.4],
            y=[chance("auroc").value] * 2,
            mode="lines",
            name=f"chance (diagonal; AUROC {chance('auroc').text})",
            legendgroup="chance",
            showlegend=False,
            line={"dash": "dash", "color": PALETTE["chance"], "width": 1.5},
            hoverinfo="skip",
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(
        title_text="false-alarm rate<br>(wrong trials with c > t)",  # two lines: fits a phone
        range=[0, 1],
        constrain="domain",
        row=1,
        col=1,
    )
    fig.update_yaxes(
        title_text="type-2 hit rate (fraction)",
        range=[0, 1.02],
        scaleanchor="x",
        constrain="domain",
        row=1,
        col=1,
    )
    # On the panel's far side: between the panels its title crossed the ROC curve on a phone,
    # where the square ROC panel fills its whole width.
    fig.update_yaxes(
        title_text="Type-2 AUROC", range=[0.3, 1.02], side="right", automargin=True, row=1, col=2
    )
    return style_figure(fig, title, height=560)


def calibration_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    *,
    n_bins: int = 10,
    paper_points: Mapping[str, tuple[float, float]] | None = None,
    chance: str | None = None,
    title: str = "Calibration: is confidence the probability of being right?",
) -> go.Figure:
    """Reliability diagram: accuracy against mean confidence in ``n_bins`` equal-width bins
    (marker size ~ trials), with the paper's ``{key: (confidence, accuracy)}`` points and, with
    ``chance`` (a level of :data:`labcore.config.CHANCE_LEVELS`), a chance line.
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
            name=PERFECT_CALIBRATION,
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
                    for c, a, n in zip(
                        cc.mean_confidence[m], cc.accuracy[m], cc.counts[m], strict=True
                    )
                ],
                hoverinfo="text",
            )
        )
    if paper_points:
        pts = [(k, c, a) for k, (c, a) in paper_points.items() if finite(c) and finite(a)]
        if pts:
            fig.add_trace(
                go.Scatter(
                    x=[c for _, c, _ in pts],
                    y=[a for _, _, a in pts],
                    mode="markers",
                    name=PAPER,
                    marker=PAPER_MARKER,
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
    if chance is not None:
        chance_level_line(fig, chance)
    fig.update_xaxes(title_text="mean confidence in the bin (0-1)", range=[0, 1.02])
    fig.update_yaxes(title_text="accuracy in the bin (fraction correct)", range=[0, 1.05])
    return style_figure(fig, title, height=520)


def risk_coverage_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    title: str = "Selective prediction: error rate when answering only the most confident trials",
) -> go.Figure:
    """Risk-coverage curves of ``{key: (correct, confidence)}`` (lower is better), AURC named."""
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
                name=f"{label_of(key)} (AURC {fmt(aurc)})",
                line={"color": color_of(key), "width": 2.5},
                hovertemplate=f"{label_of(key)}<br>answering %{{x:.0%}} of trials<br>error rate "
                "%{y:.3f}<extra></extra>",
            )
        )
    fig.update_xaxes(
        title_text="coverage (fraction of trials answered, most confident first)", range=[0, 1.01]
    )
    fig.update_yaxes(title_text="risk (error rate among answered, fraction)", rangemode="tozero")
    return style_figure(fig, title, height=480)


def confidence_histogram(
    curves: Mapping[str, tuple[Any, Any]] | None,
    *,
    paper_marks: Mapping[str, float] | None = None,
    n_bins: int = 25,
    title: str = "Confidence on correct and wrong trials",
) -> go.Figure:
    """Histograms of confidence on correct and wrong trials, one row per key; ``paper_marks``
    (``{key: confidence}``) drawn as diamonds.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and len(v[0]) > 0}
    if not curves:
        return empty_figure(title, "no trials with a confidence")
    keys = list(curves)
    fig = one_above_another(*[label_of(k) for k in keys], vertical_spacing=0.06)
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
        if key in paper_marks and finite(paper_marks[key]):
            fig.add_trace(
                go.Scatter(
                    x=[paper_marks[key]],
                    y=[0],
                    mode="markers",
                    name=PAPER,
                    legendgroup="paper",
                    showlegend=not any(t.name == PAPER for t in fig.data),
                    marker=PAPER_MARKER,
                    hovertext=f"paper: {label_of(key)} confidence {paper_marks[key]:g}",
                    hoverinfo="text",
                ),
                row=r,
                col=1,
            )
        fig.update_yaxes(title_text="fraction", row=r, col=1, rangemode="tozero")
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(
        title_text="confidence (0-1; bet if above 0.5)", range=[0, 1], row=len(keys), col=1
    )
    return style_figure(fig, title, height=170 + 150 * len(keys))


def masking_figure(
    traces: Mapping[str, Any] | None,
    soa: int,
    count: int,
    *,
    interval: int = 1,
    title: str = "Backward masking: how much of the colour is still in the workspace",
) -> go.Figure:
    """Colour-retention traces over steps (:func:`labcore.markers.cue_retention`), cue and mask
    onsets marked.

    ``traces`` is ``{key: (T,) or (n_seeds, T)}`` (several seeds: mean +/- SD band); ``soa`` steps
    from the colour cue to the first of ``count`` masks, one every ``interval`` steps.
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
        add_mean_with_band(
            fig,
            key,
            np.arange(arr.shape[1]),
            arr,
            alpha=0.18,
            marker_size=5,
            hover=f"{label_of(key)}<br>step %{{x}}<br>colour retained %{{y:.2f}}"
            f"<extra>n = {arr.shape[0]}</extra>",
        )

    # Only the first line of each kind carries a label (an annotation without text would show
    # plotly's "new text" placeholder).
    def label(text: str, position: str, colour: str) -> dict[str, Any]:
        font = {"size": 11, "color": colour}
        return {"annotation_text": text, "annotation_position": position, "annotation_font": font}

    for s in (0, 1):  # the two cue steps; the masks count from the first
        cue = label("cues", "top right", "#0072B2") if s == 0 else {}
        fig.add_vline(x=s, line={"dash": "dash", "color": "#0072B2", "width": 1.5}, **cue)
    for j in range(count):
        mask = label("masks", "bottom right", "#D55E00") if j == 0 else {}
        fig.add_vline(
            x=soa + j * interval, line={"dash": "dot", "color": "#D55E00", "width": 1.2}, **mask
        )
    last = soa + max(count - 1, 0) * interval
    fig.update_xaxes(range=[-0.5, min(max(len(a[0]) for a in traces.values()) - 0.5, last + 6.5)])
    fig.add_hline(y=0, line={"color": "#bbb", "width": 1})
    fig.update_xaxes(title_text="environment step")
    fig.update_yaxes(title_text="colour retained (1 = held, 0 = displaced)")
    return style_figure(fig, title, height=480)


def titration_figure(
    curves: Mapping[str, tuple[Any, Any]] | None,
    l75: Mapping[str, Any] | None = None,
    *,
    paper_l75: Mapping[str, Any] | None = None,
    title: str = "Noise titration: accuracy as latent noise grows",
) -> go.Figure:
    """Accuracy vs noise sigma per agent, mean +/- SD band over seeds, L75 marked on the 0.75 line.

    ``curves`` is ``{agent: (sigmas (S,), accuracies (n_seeds, S) or (S,))}``; ``l75`` and
    ``paper_l75`` are ``{agent: value}`` (a number, a censored string such as ``"> 0.5"``, or a
    PaperValue), censored ones drawn as triangles at the bound.
    """
    curves = {k: v for k, v in (curves or {}).items() if v is not None and np.size(v[1]) > 0}
    if not curves:
        return empty_figure(title, "no titration curves")
    fig = go.Figure()
    for agent, (sigmas, acc) in curves.items():
        a = np.atleast_2d(np.asarray(acc, float))
        add_mean_with_band(
            fig,
            agent,
            np.asarray(sigmas, float),
            a,
            alpha=0.15,
            marker_size=6,
            hover=f"{label_of(agent)}<br>σ = %{{x:g}}<br>accuracy %{{y:.3f}}"
            f"<extra>mean of {a.shape[0]} seed(s)</extra>",
        )
    pts = []
    for agent, value in (l75 or {}).items():
        v, censored, bound = parse_l75(value)
        if censored == "missing":
            continue
        symbol = {"none": "x", "right": "triangle-right", "left": "triangle-left"}[censored]
        text = {
            "none": f"L75 = {fmt(v)}",
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
                name=L75_OURS,
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
            p = PaperValue(value=bound, bound=">" if censored == "right" else None)
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
                    marker={**PAPER_MARKER, "symbol": symbol},
                    hovertext=[f"paper, {n}: L75 {paper_text(p)}" for p, n in sel],
                    hoverinfo="text",
                )
            )
    chance_line(fig, L75_THRESHOLD, "L75 threshold: 75% accuracy")
    chance_level_line(fig, "decision")
    fig.update_xaxes(title_text=UNITS_SIGMA)
    fig.update_yaxes(title_text="report-window decision accuracy (fraction)", range=[0, 1.05])
    return style_figure(fig, title, height=540)


def pci_bars(
    table: pd.DataFrame | None,
    normalisation: str,
    *,
    paper_normalisation: bool = False,
    seed: int | None = None,
) -> go.Figure:
    """Live perturbational complexity per agent (left) and dPCI (right) of one seed (no SD drawn);
    the paper's Table 3 beside ours when ``paper_normalisation``.
    """
    title = f"Perturbational complexity after a pulse ({normalisation})"
    if table is None or len(table) == 0:
        return empty_figure(title, "no agents to poke")
    fig = side_by_side(
        "complexity of the echo", "dPCI: correct minus wrong trials", horizontal_spacing=0.12
    )
    names = [label_of(a) for a in table["agent"]]
    colours = [color_of(a) for a in table["agent"]]
    ours = f"ours ({'one seed' if seed is None else f'seed {seed}'}, no SD)"
    fig.add_trace(
        go.Bar(
            x=names,
            y=table["pci"],
            marker_color=colours,
            name=ours,
            hovertemplate="%{x}<br>%{y:.3f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=names,
            y=table["dpci"],
            marker_color=colours,
            name="dPCI",
            showlegend=False,
            hovertemplate="%{x}<br>dPCI %{y:.3f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    if paper_normalisation:
        marks = [
            (names[i], paper_of(f"e3.pci_a.{a}"), names[i])
            for i, a in enumerate(table["agent"])
            if f"e3.pci_a.{a}" in CLAIMS_BY_ID
        ]
        add_paper_marks(fig, marks, row=1, col=1)
    fig.update_yaxes(title_text="complexity (1 = as complex as coin flips)", row=1, col=1)
    fig.update_yaxes(title_text="difference in complexity", row=1, col=2)
    return style_figure(fig, title, height=420)
