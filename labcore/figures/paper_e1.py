"""The paper's Experiment 1 figures (Fig. 1a-d) and the logits control, from a result set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.figures.live import (
    calibration_figure,
    risk_coverage_figure,
    type2_roc_figure,
)
from labcore.figures.marks import Group, add_seed_bars, seed_numbers
from labcore.figures.style import (
    E1_CONDITIONS,
    chance_level_line,
    empty_figure,
    has_columns,
    paper_of,
    style_figure,
)

# --------------------------------------------------------------------------- E1 (HOT)


def trial_curves(
    trials: pd.DataFrame | None, conditions: Sequence[str] = E1_CONDITIONS
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``e1_trials.csv`` -> ``{condition: (correct, confidence)}`` pooled over seeds, of the trials
    the pipeline scores (a decision made, a finite confidence), conditions without trials skipped.
    """
    if not has_columns(trials, ("condition", "correct", "confidence")):
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
    """Fig. 1a: first-order accuracy (left) and Type-2 AUROC (right) per E1 condition."""
    title = "Fig. 1a: doing vs knowing: task accuracy and Type-2 AUROC by condition"
    conds = [
        c
        for c in E1_CONDITIONS
        if seed_numbers(seed_values, f"e1.accuracy.{c}")[1].size
        or seed_numbers(seed_values, f"e1.auroc.{c}")[1].size
    ]
    if not conds:
        return empty_figure(title, "no E1 per-seed values (seed_values.csv without e1.* keys)")
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            "First-order task accuracy (doing)",
            "Type-2 AUROC (knowing that you know)",
        ),
        horizontal_spacing=0.1,
    )
    for col, metric, level in ((1, "accuracy", "wager"), (2, "auroc", "auroc")):
        groups = [
            Group(c, *seed_numbers(seed_values, f"e1.{metric}.{c}"), paper_of(f"e1.{metric}.{c}"))
            for c in conds
        ]
        add_seed_bars(fig, groups, row=1, col=col, legend=col == 1)
        chance_level_line(fig, level, row=1, col=col)
    fig.update_yaxes(title_text="accuracy (fraction correct)", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="Type-2 AUROC (0.5 = no insight)", range=[0, 1.05], row=1, col=2)
    return style_figure(fig, title, height=520)


def fig1b_type2_roc(
    trials: pd.DataFrame | None, seed_values: pd.DataFrame | None = None
) -> go.Figure:
    """Fig. 1b: Type-2 ROC per E1 condition, trials pooled over seeds (:func:`type2_roc_figure`);
    with ``seed_values`` the right panel shows the per-seed AUROCs.
    """
    paper = {c: paper_of(f"e1.auroc.{c}").value for c in E1_CONDITIONS if paper_of(f"e1.auroc.{c}")}
    curves = trial_curves(trials)
    seeds = (
        {c: seed_numbers(seed_values, f"e1.auroc.{c}")[1] for c in curves}
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


def fig1c_calibration(trials: pd.DataFrame | None) -> go.Figure:
    """Fig. 1c: calibration per E1 condition (pooled trials), the paper's self-removed point."""
    conf, acc = paper_of("e1.confidence.self_off"), paper_of("e1.accuracy.self_off")
    paper = {"self_off": (conf.value, acc.value)} if conf and acc else None
    return calibration_figure(
        trial_curves(trials),
        paper_points=paper,
        title="Fig. 1c: calibration: confidence against the fraction of correct trials",
    )


def fig1d_risk_coverage(trials: pd.DataFrame | None) -> go.Figure:
    """Fig. 1d: wagering utility as risk-coverage curves per E1 condition (AURC, lower is better).

    The paper gives no number for this panel.
    """
    return risk_coverage_figure(
        trial_curves(trials),
        title=(
            "Fig. 1d: selective prediction: error rate when betting only on the most "
            "confident trials"
        ),
    )


def logits_control(seed_values: pd.DataFrame | None) -> go.Figure:
    """Control not in the paper: the confidence head's AUROC per seed against two confidences read
    from the intact policy's logits at the choice point (the paper's 0.92 on the head only).
    """
    title = "Control: Type-2 AUROC of z_self's confidence vs confidence read off the logits"
    keys = {
        "zself": "e1.auroc.self_on",
        "logits_max_softmax": "e1.auroc.logits_max_softmax",
        "logits_neg_entropy": "e1.auroc.logits_neg_entropy",
    }
    groups = [
        Group(k, *seed_numbers(seed_values, key), paper_of(key) if k == "zself" else None)
        for k, key in keys.items()
    ]
    if not any(g.values.size for g in groups):
        return empty_figure(title, "no E1 per-seed AUROC values")
    fig = go.Figure()
    add_seed_bars(fig, groups)
    chance_level_line(fig, "auroc")
    fig.update_yaxes(title_text="Type-2 AUROC (0.5 = no insight)", range=[0, 1.05])
    return style_figure(fig, title, height=480)
