"""The paper's figures rebuilt from a result set: Experiment 1 (Fig. 1a-d, the logits control),
2 (Fig. 2a-c, GBI / ignition, dNRS), 3 (Fig. 3a-c, Fig. 4, Table 3), and Experiment 4 (beyond the
paper: no paper marks).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.config import AGENT_KINDS, KINDS_OF_EXPERIMENT, NOISE_MODES, Intervention
from labcore.figures.live import (
    calibration_figure,
    masking_figure,
    risk_coverage_figure,
    titration_figure,
    type2_roc_figure,
)
from labcore.figures.marks import (
    Group,
    add_l75_groups,
    add_paper_marks,
    add_seed_bars,
    bar_of,
    jitter,
    pearson_finite,
    seed_numbers,
)
from labcore.figures.style import (
    CAPACITY_KEYS,
    E1_CONDITIONS,
    PALETTE,
    add_note,
    category_axis,
    chance_level_line,
    chance_line,
    color_of,
    empty_figure,
    has_columns,
    label_of,
    paper_of,
    seed_line,
    side_by_side,
    sigma_axis,
    style_figure,
    styled_table,
)
from labcore.findings import PaperValue
from labcore.paper_claims import l75_key
from labcore.render import UNDEFINED, chance_text, finite, fmt, paper_text
from labcore.stats import seed_summary
from labcore.storage.formatting import l75_point, seed_raw


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
    fig = side_by_side(
        "First-order task accuracy (doing)",
        "Type-2 AUROC (knowing that you know)",
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
    seeds = {c: seed_numbers(seed_values, f"e1.auroc.{c}")[1] for c in curves}
    return type2_roc_figure(
        curves,
        paper,
        seed_aurocs=seeds if any(v.size for v in seeds.values()) else None,
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


PRIMARY_CUE = "primary cue (the paper's)"
"""ΔNRS of the primary cue, the paper's measure (the secondary cue's is auxiliary)."""

B1_SLOTS = AGENT_KINDS["b1"].n_slots


_SHORT = {"k0": "bus off", "a0": "A0", "a1": "A1"}


def _capacity_groups(
    capacity: pd.DataFrame, metric: str, slots: Sequence[int], baselines: bool, short: bool = False
) -> list[Group]:
    b1 = capacity[capacity["agent"] == "b1"]
    cap = pd.to_numeric(b1["capacity"], errors="coerce")
    parts = [(f"k{k}", b1[cap == k]) for k in slots]
    if baselines:
        parts += [(kind, capacity[capacity["agent"] == kind]) for kind in ("a0", "a1")]
    groups = []
    for key, rows in parts:
        vals = pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
        keep = np.isfinite(vals)
        groups.append(
            Group(
                key,
                rows["seed"].to_numpy()[keep],
                vals[keep],
                paper_of(f"e2.{metric}.{key}"),
                label=_SHORT.get(key) if short else None,
            )
        )
    return groups


_E2_COLUMNS = ("agent", "seed", "capacity", "per_step", "decision", "conjunction")


def fig2a_conjunction_by_capacity(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2a: B1's conjunction accuracy at 4, 2 and 0 slots, with A0 / A1 for reference."""
    title = "Fig. 2a: conjunction accuracy (both reports right) by workspace capacity"
    if not has_columns(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    fig = go.Figure()
    add_seed_bars(fig, _capacity_groups(capacity, "conjunction", (4, 2, 0), baselines=True))
    chance_level_line(fig, "conjunction")
    fig.update_yaxes(title_text="conjunction accuracy (fraction of episodes)", range=[0, 1.08])
    return style_figure(fig, title, height=480)


def fig2b_dual_task_cost(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2b: per-step, report-window decision and conjunction accuracy by capacity 0-4."""
    title = "Fig. 2b: dual-task cost: three accuracies by workspace capacity"
    if not has_columns(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    metrics = (
        ("per_step", "per-step accuracy", "decision"),
        ("decision", "report-window decision accuracy", "decision"),
        ("conjunction", "conjunction (both reports right)", "conjunction"),
    )
    fig = side_by_side(*(m[1] for m in metrics), horizontal_spacing=0.06, shared_yaxes=True)
    for col, (metric, _name, level) in enumerate(metrics, start=1):
        groups = _capacity_groups(capacity, metric, (4, 3, 2, 1, 0), baselines=True, short=True)
        add_seed_bars(fig, groups, row=1, col=col, legend=col == 1)
        chance_level_line(fig, level, row=1, col=col)
    fig.update_yaxes(title_text="accuracy (fraction)", range=[0, 1.08], row=1, col=1)
    fig.update_xaxes(tickfont={"size": 11})
    return style_figure(fig, title, height=520)


def fig2c_masking_traces(masking_by_seed: Mapping[str, Mapping] | None) -> go.Figure:
    """Fig. 2c: colour retention vs step at 4, 2 and 0 slots, mean +/- SD over seeds.

    The paper's 0.78 "cue signal" at entry is another measure (a projection on reference states)
    and is not drawn: retention is 1 at entry by construction.
    """
    title = "Fig. 2c: backward masking: how much of the colour is still in the workspace"
    runs = [
        m for m in (masking_by_seed or {}).values() if isinstance(m, Mapping) and m.get("traces")
    ]
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
    return masking_figure(
        ordered,
        int(runs[0]["soa"]),
        int(runs[0]["count"]),
        interval=int(runs[0].get("interval", 1)),
        title=title,
    )


def gbi_and_ignition_by_capacity(seed_values: pd.DataFrame | None) -> go.Figure:
    """GBI by the paper's equation, GBI on |cosine| couplings, and ignition sharpness by capacity.

    The paper's GBI is defined only for non-negative couplings; with our zero-mean slots the panel
    says "not defined here" rather than draw a number outside [0, 1].
    """
    title = "GBI (paper's equation | on |cosine| couplings) and ignition sharpness, by capacity"
    slots = (4, 3, 2, 1, 0)
    panels = (
        ("e2.gbi", "GBI, paper's equation<br>(needs non-negative couplings)", True),
        ("e2.gbi_abs", "GBI on |cosine| couplings<br>(0 by construction with 2 slots)", False),
        ("e2.ignition", "ignition sharpness<br>(fixed by the write's norm)", True),
    )
    notes = {
        "e2.gbi": "not defined here<br>(signed couplings)",
        "e2.gbi_abs": "undefined<br>(< 2 slots)",
    }
    groups: dict[str, list[Group]] = {}
    for prefix, _, paper in panels:
        groups[prefix] = []
        for k in (f"k{n}" for n in slots):
            seeds, values = seed_numbers(seed_values, f"{prefix}.{k}")
            note = "" if values.size else notes.get(prefix, "")
            mark = paper_of(f"{prefix}.{k}") if paper else None
            groups[prefix].append(Group(k, seeds, values, mark, note=note))
    if not any(g.values.size for prefix in ("e2.gbi_abs", "e2.ignition") for g in groups[prefix]):
        return empty_figure(title, "no E2 GBI / ignition values")
    fig = side_by_side(*(p[1] for p in panels), horizontal_spacing=0.08)
    for col, (prefix, _, _) in enumerate(panels, start=1):
        add_seed_bars(fig, groups[prefix], row=1, col=col, legend=col == 1)
    fig.update_yaxes(
        title_text="GBI (participation, 0-2/3 for 4 slots)", range=[0, 1.05], row=1, col=1
    )
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    fig.update_yaxes(
        title_text="max step increase of RMS activation", rangemode="tozero", row=1, col=3
    )
    fig.update_xaxes(tickfont={"size": 11})
    return style_figure(fig, title, height=540)


def dnrs_by_scale(seed_values: pd.DataFrame | None) -> go.Figure:
    """dNRS (no-report decoding above a shuffled baseline) by capacity scale, primary and
    secondary cue.
    """
    title = "ΔNRS: is the cue decodable before any report? (by workspace capacity)"
    scales = ("0", "0.25", "0.5", "0.75", "1")
    series = (
        ("e2.dnrs", PRIMARY_CUE, "#0072B2"),
        ("e2.dnrs_secondary", "secondary cue (auxiliary)", "#56B4E9"),
    )
    if not any(
        seed_numbers(seed_values, f"{p}.scale_{s}")[1].size for p, _, _ in series for s in scales
    ):
        return empty_figure(title, "no E2 dNRS values")
    fig = go.Figure()
    x = np.array([float(s) for s in scales])
    offsets = {"e2.dnrs": -0.02, "e2.dnrs_secondary": 0.02}
    for prefix, name, colour in series:
        means, sds, sx, sy, sh = [], [], [], [], []
        for s, xs in zip(scales, x, strict=True):
            seeds, vals = seed_numbers(seed_values, f"{prefix}.scale_{s}")
            m, sd = bar_of(vals)
            means.append(m)
            sds.append(sd)
            sx += list(xs + offsets[prefix] + jitter(vals.size) * 0.05)
            sy += list(vals)
            sh += [
                f"{name}, scale {s}, seed {seed}: {fmt(v)}"
                for seed, v in zip(seeds, vals, strict=True)
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
    add_paper_marks(
        fig,
        [
            (xs + 0.045, paper_of(f"e2.dnrs.scale_{s}"), f"scale {s}")
            for s, xs in zip(scales, x, strict=True)
        ],
    )
    chance_line(fig, 0.0, "shuffled-label baseline (0)")
    fig.update_xaxes(
        title_text="workspace capacity scale (0 = bus off, 1 = 4 slots)",
        tickvals=list(x),
        ticktext=[
            f"{s}<br>({Intervention(capacity_scale=float(s)).active_slots(B1_SLOTS)} slots)"
            for s in scales
        ],
    )
    fig.update_yaxes(title_text="ΔNRS (decoder AUC − shuffled AUC)")
    return style_figure(fig, title, height=480)


EXPLORATORY = "exploratory, post hoc"


FIG3A_AGENTS = ("b1", "b1_reg", "b1_noise", "b2", "b2_ws")
FIG3C_AGENTS = ("a0", "a1", "b1", "b1_reg", "b1_noise", "b2", "b2_ws")
FIG4_WORKSPACE_AGENTS = ("b1", "b2", "bc_linear", "bc_mlp", "bc_random")
FIG4_CARRIER_AGENTS = ("b1", "b2", "b2_ws", "hot_only")


def fig3a_l75(seed_values: pd.DataFrame | None, agents: Sequence[str] = FIG3A_AGENTS) -> go.Figure:
    """Fig. 3a: L75 under workspace noise per agent kind, stored (left) and read-copy (right)
    protocol.
    """
    title = "Fig. 3a: noise tolerance L75 under workspace noise (higher = more robust)"
    raw = {(a, p): seed_raw(seed_values, l75_key(a, p)) for a in agents for p in NOISE_MODES}
    if not any(raw.values()):
        return empty_figure(title, "no E3 L75 values")
    fig = side_by_side(
        "noise stays in the stored slots (default)",
        "fresh noise on the copy that is read",
        shared_yaxes=True,
        horizontal_spacing=0.06,
    )
    for col, noise_mode in enumerate(NOISE_MODES, start=1):
        groups = [(a, raw[(a, noise_mode)], paper_of(l75_key(a, noise_mode))) for a in agents]
        add_l75_groups(fig, groups, row=1, col=col, legend=col == 1)
    sigma_axis(fig)
    return style_figure(fig, title, height=560)


def fig3b_marker_correlations(
    points: pd.DataFrame | Sequence[Mapping] | None, composite: Mapping[str, float] | None = None
) -> go.Figure:
    """Fig. 3b: Pearson r of each marker with the OOD gap (and the exploratory overflow shift),
    with the points behind the registered r's below.

    As in the pipeline's regression, GBI is 0 for agents without a workspace and an undefined dPCI
    counts as 0; a marker constant over the points has an undefined r, said in the figure.
    """
    title = "Fig. 3b: which markers predict OOD fragility? (Pearson r with the OOD gap)"
    df = (
        pd.DataFrame(list(points))
        if points is not None and not isinstance(points, pd.DataFrame)
        else points
    )
    need = ("agent", "ood_gap", "gbi", "dpci", "auroc")
    if not has_columns(df, need):
        return empty_figure(title, "no E3 composite points (figures.json without e3 points)")

    def col(name: str, fill: float | None = None) -> np.ndarray:
        if name not in df:
            return np.full(len(df), np.nan)
        x = pd.to_numeric(df[name], errors="coerce").to_numpy(float)
        return np.nan_to_num(x, nan=fill) if fill is not None else x

    markers = (
        ("GBI", "gbi", "gbi_abs"),
        ("ΔPCI", "dpci", "dpci"),
        ("Type-2 AUROC", "auroc", "auroc"),
    )
    sets = (
        ("registered: OOD gap (longer delay)", "ood_gap", 1, PALETTE["registered"], ""),
        (
            f"{EXPLORATORY}: overflow shift (GBI on |cosine|)",
            "ood_gap_overflow",
            2,
            PALETTE["exploratory"],
            "/",
        ),
    )
    names = [m[0] for m in markers] + ["composite of the three<br>(leave-one-out r)"]
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
            r = pearson_finite(
                col(
                    reg_key if which == 1 else exp_key,
                    fill=0.0 if label != "Type-2 AUROC" else None,
                ),
                y,
            )
            rs.append(r)
            hover.append(
                f"{set_name}<br>{label}: r = {fmt(r)}"
                + ("" if finite(r) else " (marker or gap constant)")
            )
            if not finite(r):
                undefined.append(
                    f"{label} ({'registered' if which == 1 else 'exploratory'}): r undefined, "
                    "constant over the points"
                )
        loo_key = (
            "e3.composite.r_loo_full" if which == 1 else "e3.explore.composite_overflow.r_loo_full"
        )
        loo = (composite or {}).get(loo_key)
        rs.append(loo if finite(loo) else math.nan)
        hover.append(f"{set_name}<br>composite, leave-one-out r = {fmt(loo)}")
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
        gaps = [i for i, r in enumerate(rs) if not finite(r)]
        if gaps:  # a missing bar is said so where it would stand (else the panel looks empty)
            fig.add_trace(
                go.Scatter(
                    x=x[gaps],
                    y=[0.0] * len(gaps),
                    mode="text",
                    text=["undefined"] * len(gaps),
                    textposition="top center",
                    textfont={"size": 11, "color": colour},
                    hovertext=[hover[i] for i in gaps],
                    hoverinfo="text",
                    showlegend=False,
                    name=f"{set_name}: undefined",
                ),
                row=1,
                col=1,
            )
    r2 = paper_of("e3.composite.r2_gbi")
    loo_paper = paper_of("e3.composite.r_loo_full")
    marks = []
    if r2:
        marks.append(
            (-0.18, PaperValue(value=math.sqrt(r2.value), section=r2.section), "GBI (r = √R²)")
        )
    if loo_paper:
        marks.append((3 - 0.18, loo_paper, "composite, leave-one-out r"))
    add_paper_marks(fig, marks, row=1, col=1)
    category_axis(fig, names, row=1, col=1)
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
                    showlegend=c == 1,  # one legend entry per agent; a click hides it in all panels
                    marker={"size": 7, "color": color_of(agent), "opacity": 0.8},
                    hovertemplate=f"{label_of(agent)}<br>{label} %{{x:.3g}}<br>OOD gap %{{y:.3f}}"
                    "<extra></extra>",
                ),
                row=2,
                col=c,
            )
        fig.update_xaxes(
            title_text=label
            + (" (signed form, not defined here; 0 without a bus)" if key == "gbi" else ""),
            row=2,
            col=c,
        )
    fig.update_yaxes(title_text="OOD gap (ID − OOD accuracy)", row=2, col=1)
    signed = col("gbi")
    if np.isfinite(signed).any() and (np.nanmin(signed) < 0 or np.nanmax(signed) > 1):
        # the registered composite keeps the paper's formula; say why its GBI leaves [0, 1]
        undefined.append(
            "GBI (registered signed form) is not defined on our signed slot couplings (values from "
            f"{np.nanmin(signed):.3g} to {np.nanmax(signed):.3g}): plotted as computed "
            "because the composite was registered with it; the orange bars use GBI on |cosine|"
        )
    if undefined:
        add_note(fig, "; ".join(undefined))
    return style_figure(fig, title, height=760)


def titration_rows(
    titration: pd.DataFrame, agents: Sequence[str], noise_mode: str, noise: str | None = None
) -> pd.DataFrame:
    """The rows of ``e3_titration.csv`` of ``agents`` under ``noise_mode``, in file order; with
    ``noise=None`` each agent's own latent state (workspace, else the recurrent carrier).
    """
    rows = titration[(titration["noise_mode"] == noise_mode) & titration["agent"].isin(agents)]
    if noise is not None:
        return rows[rows["noise"] == noise]
    has_workspace = rows.groupby("agent")["noise"].transform(lambda n: (n == "workspace").any())
    return rows[rows["noise"] == np.where(has_workspace, "workspace", "carrier")]


def titration_curves(
    rows: pd.DataFrame, keys: Sequence[str], by: str = "agent"
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{key: (sigmas, accuracy[seed, sigma])}`` for
    :func:`~labcore.figures.live.titration_figure`,
    in the order of ``keys`` (those without rows left out); ``by`` names the key column."""
    curves = {}
    for key in keys:
        one = rows[rows[by] == key]
        if one.empty:
            continue
        table = one.pivot_table(index="seed", columns="sigma", values="accuracy", aggfunc="mean")
        curves[key] = (table.columns.to_numpy(float), table.to_numpy(float))
    return curves


def fig3c_titration(
    titration: pd.DataFrame | None,
    seed_values: pd.DataFrame | None = None,
    agents: Sequence[str] = FIG3C_AGENTS,
    noise_mode: str = "stored",
) -> go.Figure:
    """Fig. 3c: noise titration curves (stored protocol), mean +/- SD over seeds, L75 marked."""
    title = "Fig. 3c: noise titration: decision accuracy as workspace noise grows"
    if not has_columns(titration, ("agent", "noise_mode", "noise", "seed", "sigma", "accuracy")):
        return empty_figure(title, "no E3 titration results (e3_titration.csv)")
    curves = titration_curves(titration_rows(titration, agents, noise_mode), agents)
    keys = {a: l75_key(a, noise_mode) for a in curves}
    l75 = {a: p for a, k in keys.items() if (p := l75_point(seed_values, k)) is not None}
    paper = {a: p for a, k in keys.items() if (p := paper_of(k))}
    return titration_figure(curves, l75, paper_l75=paper, title=title)


def fig4_attribution(seed_values: pd.DataFrame | None) -> go.Figure:
    """Fig. 4: L75 of the attribution controls under workspace noise (left) and under carrier
    (post-GRU) noise (right).
    """
    title = "Fig. 4: attribution controls: which bottleneck brings noise tolerance?"
    left = [
        (a, seed_raw(seed_values, f"e3.l75.{a}"), paper_of(f"e3.l75.{a}"))
        for a in FIG4_WORKSPACE_AGENTS
    ]
    right = [
        (
            a,
            seed_raw(seed_values, f"e3.l75.{a}" if a == "hot_only" else f"e3.l75_carrier.{a}"),
            paper_of("e3.l75.hot_only") if a == "hot_only" else None,
        )
        for a in FIG4_CARRIER_AGENTS
    ]
    if not any(raw for _, raw, _ in left + right):
        return empty_figure(title, "no E3 L75 values")
    fig = side_by_side(
        "noise in the workspace slots",
        "noise in the recurrent carrier (post-GRU)",
        shared_yaxes=True,
        horizontal_spacing=0.06,
    )
    add_l75_groups(fig, left, row=1, col=1, legend=True)
    add_l75_groups(fig, right, row=1, col=2, legend=False)
    sigma_axis(fig)
    return style_figure(fig, title, height=560)


def table3_pci(seed_values: pd.DataFrame | None, agents: Sequence[str] | None = None) -> go.Figure:
    """Table 3: raw PCI-A per architecture, ours vs the paper, with the evoked variant (a table
    beside the bars).
    """
    title = "Table 3: raw perturbational complexity PCI-A (higher = less compressible)"
    agents = list(agents or KINDS_OF_EXPERIMENT["e3"])
    raw = {a: seed_numbers(seed_values, f"e3.pci_a.{a}") for a in agents}
    evoked = {a: seed_numbers(seed_values, f"e3.pci_a_evoked.{a}") for a in agents}
    agents = [a for a in agents if raw[a][1].size or evoked[a][1].size]
    if not agents:
        return empty_figure(title, "no E3 PCI-A values")

    def cell(vals: np.ndarray) -> str:
        m, s = bar_of(vals)
        return "—" if not vals.size else f"{fmt(m, digits=2)} ± {fmt(s, digits=1)}"

    papers = {a: paper_of(f"e3.pci_a.{a}") for a in agents}
    fig = side_by_side(
        "ours (mean ± SD over seeds) beside the paper's Table 3",
        "raw PCI-A: the paper's three architectures",
        column_widths=[0.56, 0.44],
        horizontal_spacing=0.08,
        specs=[[{"type": "table"}, {"type": "xy"}]],
    )
    fig.add_trace(
        styled_table(
            ("architecture", "paper raw", "ours raw", "ours evoked"),
            [
                [label_of(a) for a in agents],
                [paper_text(papers[a]) if papers[a] else "—" for a in agents],
                [cell(raw[a][1]) for a in agents],
                [cell(evoked[a][1]) for a in agents],
            ],
            [2.4, 1.3, 1.3, 1.3],
            height=26,
            fill_color=[["#f7f7f7" if papers[a] else "white" for a in agents]],
        ),
        row=1,
        col=1,
    )
    bar_agents = [a for a in ("a0", "a1", "b1") if a in agents]
    add_seed_bars(fig, [Group(a, *raw[a], papers[a]) for a in bar_agents], row=1, col=2)
    fig.update_yaxes(
        title_text="raw PCI-A (compressed size / fair-coin size)", range=[0, 1.1], row=1, col=2
    )
    return style_figure(fig, title, height=120 + 30 * max(len(agents), 10))


CURVE_PANELS = (
    ("heldout_auroc", "Type-2 AUROC (held-out)"),
    ("heldout_wager_reward", "wager reward per wager trial"),
)
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
    frame[list(needed[1:])] = frame[list(needed[1:])].apply(pd.to_numeric, errors="coerce")
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
    fig = side_by_side(*(t for _, t in CURVE_PANELS), horizontal_spacing=0.1)
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
                    seed_line(
                        one["update"],
                        one[column],
                        color_of(arm),
                        0.35,
                        name=f"{label_of(arm)}, seed {seed:g}",
                        legendgroup=arm,
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
                    "%{customdata} seed(s)<extra></extra>",
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
            "trained on labels; its training record keeps agreement only)",
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
    fig = side_by_side(*(t for _, t in panels), horizontal_spacing=0.12)
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
