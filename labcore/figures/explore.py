"""The E3 design study (``labcore.experiments.explore_e3``) shown: titration curves beside the
ceiling an ideal observer of the same workspace reaches, and the study's answer in sentences."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.figures.findings import caption_number
from labcore.figures.live import titration_figure
from labcore.figures.paper_e3 import titration_curves
from labcore.figures.style import add_note, color_of, empty_figure, label_of
from labcore.paper import paper_text
from labcore.storage.formatting import l75_summary
from labcore.storage.results import Results
from labcore.storage.studies import ExploreStudy, load_explore

KINDS = ("b1", "b2", "b2_ws")


def design_titration_figure(
    study: ExploreStudy, cell: str, schedule: str = "fast", protocol: str = "stored"
) -> go.Figure:
    """Accuracy vs workspace noise for B1, B2 and B2 workspace-read in one cell of the study.

    Lines: mean over seeds with SD band; crosses/triangles: median L75 (triangle: beyond the
    tested range); dotted verticals: the median ceiling of each kind (an ideal observer of
    that kind's report-step workspace), i.e. how much noise the code itself could bear.
    """
    title = f"Design study: {cell}, {schedule} schedule, {protocol} noise"
    curves = study.curves
    if curves is None or curves.empty:
        return empty_figure(title, "no design study loaded")
    sel = curves[
        (curves["cell"] == cell)
        & (curves["schedule"] == schedule)
        & (curves["protocol"] == protocol)
    ]
    if sel.empty:
        return empty_figure(title, f"the study has no {schedule}-schedule agents in cell {cell}")
    left_out = excluded_agents(study)
    keep = [
        (c, s, k, int(seed)) not in left_out
        for c, s, k, seed in zip(
            sel["cell"], sel["schedule"], sel["kind"], sel["seed"], strict=True
        )
    ]
    dropped = sel.loc[[not k for k in keep], ["kind", "seed"]].drop_duplicates()
    sel = sel[keep]
    if sel.empty:
        return empty_figure(title, "every agent of this cell missed the training criterion")
    lines, l75 = titration_curves(sel, KINDS, by="kind"), {}
    for kind, (sigmas, _) in lines.items():
        group = study.group(cell, schedule, protocol, kind)
        if group:
            value = group.get("l75")
            l75[kind] = (
                f"> {max(sigmas):g}" if value is not None and value >= max(sigmas) else value
            )
    fig = titration_figure(lines, l75, title=title)
    top = float(sel["sigma"].max())
    for i, kind in enumerate(lines):
        ceiling = study.group(cell, schedule, protocol, kind).get("ceiling")
        if ceiling is None or not np.isfinite(ceiling):
            continue
        shown = min(ceiling, top)
        fig.add_vline(x=shown, line_dash="dot", line_color=color_of(kind), opacity=0.8)
        # labels stacked: the three ceilings often lie within a few hundredths of each other
        fig.add_scatter(
            x=[shown],
            y=[1.04 + 0.07 * i],
            mode="markers+text",
            marker={"symbol": "line-ns-open", "size": 12, "color": color_of(kind)},
            text=[f"ceiling {label_of(kind)}" + (" (beyond)" if ceiling > top else "")],
            textposition="middle right" if shown < 0.6 * top else "middle left",
            showlegend=False,
            hovertemplate=f"ideal-observer L75 of {label_of(kind)}: {ceiling:.3g}<extra></extra>",
        )
    fig.update_yaxes(range=[-0.02, 1.28])
    if len(dropped):
        names = ", ".join(
            f"{label_of(k)} seed {int(sd)}" for k, sd in dropped.itertuples(index=False)
        )
        add_note(fig, f"Left out (below the training criterion, protocol 5.3): {names}")
    add_note(
        fig, "Dotted lines: the L75 an ideal observer of the same workspace reaches (the ceiling)."
    )
    return fig


def design_figure(directory: Path | str) -> go.Figure:
    """The study's headline figure: the cell closest to the paper's pattern (fast schedule)."""
    study = load_explore(directory)
    closest = (study.summary.get("answer") or {}).get("closest", {}).get("fast") or {}
    if not closest.get("closest_cell"):
        return empty_figure("Design study", "; ".join(study.problems) or "no result")
    return design_titration_figure(
        study, closest["closest_cell"], "fast", closest.get("protocol", "stored")
    )


def _study_medians(study: ExploreStudy, cell: str, schedule: str, protocol: str) -> dict[str, dict]:
    return {kind: study.group(cell, schedule, protocol, kind) for kind in KINDS}


def _study_obstacle(study: ExploreStudy) -> list[str]:
    """What stands between the study's agents and the paper's pattern, from its medians: how far
    B2 and B2 workspace-read move away from B1 in any design, and the most fragile B1's company."""
    triples = []
    for g in study.groups:
        if g.get("kind") != "b1":
            continue
        key = (g.get("cell"), g.get("schedule"), g.get("protocol"))
        b2, ws = study.group(*key, "b2"), study.group(*key, "b2_ws")
        values = [g.get("l75"), b2.get("l75"), ws.get("l75")]
        if all(isinstance(v, int | float) and math.isfinite(v) and v > 0 for v in values):
            triples.append((key, *values))
    if not triples:
        return []
    r2 = [t[2] / t[1] for t in triples]
    rw = [t[3] / t[1] for t in triples]
    key, b1, b2, ws = min(triples, key=lambda t: t[1])
    return [
        f"What stands in the way: the three agents move together. Over {len(triples)} "
        "combinations of design and "
        f"noise protocol, B2's median L75 is {caption_number(min(r2), 2)} to "
        f"{caption_number(max(r2), 2)} times "
        f"B1's, and B2 workspace-read's {caption_number(min(rw), 2)} to "
        f"{caption_number(max(rw), 2)} times (censored "
        "values at their bound; the paper's pattern needs more than 5 times, 0.5 against 0.1).",
        f"B1 can be made as fragile as the paper's: {key[0]} with {key[2]} noise gives "
        f"B1 {caption_number(b1)}, but "
        f"B2 {caption_number(b2)} and B2 workspace-read {caption_number(ws)} with it. "
        "All three read one workspace. "
        "Under strong-lesion cue routing a cue reaches the recurrent state only "
        "through the workspace (in the open "
        "loop not at all), so z_self is computed from the same noisy workspace as the "
        "policy's input and holds no "
        "noise-free copy of the cue to fall back on.",
    ]


SCHEDULE_WORDS = "the paper's schedule (online, one update per step, 8,000 episodes)"
"""The paper schedule of protocol sec. 7.4, in words."""


def _schedule_sentences(effect: dict) -> list[str]:
    """The schedule's effect (protocol sec. 7.6, ``summary["schedule_effect"]``) in one sentence per
    noise protocol: what the paper's schedule multiplies each kind's median L75 by, per cell."""
    out = []
    for protocol in ("stored", "read"):
        parts = []
        for kind, name in (("b1", "B1"), ("b2", "B2"), ("b2_ws", "B2 workspace-read")):
            entry = effect.get(f"{kind} {protocol}") or {}
            ratio, cells = entry.get("log_ratio"), entry.get("cells") or {}
            if ratio is None or not math.isfinite(ratio):
                continue
            each = ", ".join(f"{c} x{caption_number(math.exp(v))}" for c, v in cells.items())
            parts.append(f"{name}'s by {caption_number(math.exp(ratio))} ({each})")
        if parts:
            out.append(
                f"Against the fast schedule, {SCHEDULE_WORDS} multiplies the median L75 "
                f"with {protocol} noise: " + "; ".join(parts) + "."
            )
    return out


def _excluded_rows(study: ExploreStudy) -> pd.DataFrame | None:
    """The study's rows of agents below its training criterion (the summary's ``exclude_below``,
    protocol sec. 5.3); None for a study that states no criterion (older studies excluded none)."""
    threshold, rows = (study.summary or {}).get("exclude_below"), study.rows
    if threshold is None or rows is None or "agreement" not in rows:
        return None
    return rows[rows["agreement"] < threshold]


def excluded_agents(study: ExploreStudy) -> set[tuple[str, str, str, int]]:
    """(cell, schedule, kind, seed) of the study's agents below its training criterion; empty for
    a study that states none."""
    bad = _excluded_rows(study)
    if bad is None:
        return set()
    return {
        (c, s, k, int(seed))
        for c, s, k, seed in zip(
            bad["cell"], bad["schedule"], bad["kind"], bad["seed"], strict=True
        )
    }


def _exclusion_sentences(study: ExploreStudy) -> list[str]:
    """Which agents missed the training criterion (protocol sec. 5.3), per cell and schedule, with
    their held-out agreement: they are left out of the medians the answer reads."""
    out = []
    bad = _excluded_rows(study)
    if bad is None:
        return out
    threshold = study.summary["exclude_below"]
    names = {"b1": "B1", "b2": "B2", "b2_ws": "B2 workspace-read"}
    places = sorted({(g["cell"], g["schedule"]) for g in study.groups if g.get("n_excluded")})
    for cell, schedule in places:
        counts = []
        for kind, name in names.items():
            g = study.group(cell, schedule, "stored", kind)
            if g.get("n_excluded"):
                counts.append(f"{name} {g['n_excluded']} of {g['n_excluded'] + g.get('n', 0)}")
        low = bad.loc[(bad["cell"] == cell) & (bad["schedule"] == schedule), "agreement"]
        spread = ""
        if len(low):
            lo, hi = caption_number(low.min(), 2), caption_number(low.max(), 2)
            spread = f" (held-out agreement {lo} to {hi})"
        out.append(
            f"In {cell} on the {schedule} schedule, some agents did not learn the task: "
            + ", ".join(counts)
            + f" seeds stayed below {threshold:.0%} agreement with the oracle{spread}. "
            "By the paper's rule (protocol sec. 5.3) they are excluded: the medians there rest on "
            "the other seeds."
        )
    return out


def study_answer(study: ExploreStudy) -> list[str]:
    """The E3 design study's answer in plain sentences, from its numbers (protocol sec. 7.1).

    Empty when no study is loaded. Every number comes from ``study.summary``.
    """
    summary = study.summary or {}
    answer = summary.get("answer") or {}
    if not answer:
        return []
    n_agents = (
        0
        if study.rows is None
        else study.rows[["cell", "schedule", "kind", "seed"]].drop_duplicates().shape[0]
    )
    out = []
    registered = _study_medians(study, "layernorm-open-g1", "fast", "stored")
    # a group whose every agent was excluded has no medians (None in the summary)
    if all(
        g and g.get("ceiling") is not None and g.get("l75") is not None for g in registered.values()
    ):
        b1, b2, ws = (registered[k] for k in KINDS)
        out.append(
            "Under the lab's registered design (layer-normalised writes, open loop, "
            "gain 1) and stored noise, "
            "an ideal observer of the workspace itself reaches an L75 of about "
            f"{caption_number(b1.get('ceiling'))} "
            f"(B1; B2 {caption_number(b2.get('ceiling'))}): noise accumulates in a "
            "stored slot until the report"
            + (
                ", so no readout of it could reach the paper's > 0.5. "
                if max(b1.get("ceiling", 1), b2.get("ceiling", 1)) < 0.5
                else ". "
            )
            + "The agents reach "
            f"{caption_number(b1.get('l75'))} (B1), {caption_number(b2.get('l75'))} (B2) and "
            f"{caption_number(ws.get('l75'))} (B2 workspace-read): efficiencies "
            f"{caption_number(b1.get('efficiency'), 2)}, "
            f"{caption_number(b2.get('efficiency'), 2)} and "
            f"{caption_number(ws.get('efficiency'), 2)} of that ceiling."
        )
    if answer.get("pattern_found"):
        where = "; ".join(
            f"{h['cell']} ({h['schedule']} schedule, {h['protocol']} noise)"
            for h in answer.get("cells_with_pattern", [])
        )
        out.append(
            "The paper's pattern (B1 below 0.1 while both B2 variants stay above 0.5) "
            f"appears in: {where}."
        )
    else:
        out.append(
            f"No design of the study ({n_agents} agents) gives the paper's pattern: B1 "
            "below 0.1 while both "
            "B2 variants stay above 0.5."
        )
    out += _study_obstacle(study)
    effects = (summary.get("factor_effects") or {}).get("fast") or {}
    factor_names = {
        "geometry": "Write geometry",
        "loop": "Closing the loop",
        "gain": "Readout gain",
    }
    for factor, items in effects.items():
        parts = []
        for label, entry in items.items():
            kind, protocol, change = label.split(" ", 2)
            ratio = entry.get("log_ratio") if isinstance(entry, dict) else None
            if (
                kind in ("b1", "b2")
                and protocol == "stored"
                and ratio is not None
                and math.isfinite(ratio)
            ):
                parts.append(
                    f"{change} multiplies {kind.upper()}'s L75 by {caption_number(math.exp(ratio))}"
                )
        if parts:
            out.append(
                f"{factor_names.get(factor, factor)} (stored noise, fast schedule, "
                "median over seeds, "
                f"averaged over the other factors): " + "; ".join(parts) + "."
            )
    out += _exclusion_sentences(study)
    out += _schedule_sentences(summary.get("schedule_effect") or {})
    for schedule, best in (answer.get("closest") or {}).items():
        med = best.get("medians") or {}
        if not med:
            continue
        out.append(
            f"Closest ({schedule} schedule): {best.get('closest_cell')} with "
            f"{best.get('protocol')} noise, where the "
            f"median L75 is {caption_number((med.get('b1') or {}).get('l75'))} for B1, "
            f"{caption_number((med.get('b2') or {}).get('l75'))} for B2 and "
            f"{caption_number((med.get('b2_ws') or {}).get('l75'))} for B2 workspace-read."
        )
    return out


B1_FRAGILITY = {
    "reproduced": "fragile, as in the paper",
    "partly reproduced": "fragile in the paper's sense, though not at the paper's value",
    "not reproduced": "not fragile",
    "not comparable": "not comparable with the paper",
}
"""What each verdict of ``e3.l75.b1`` (the paper: B1 is fragile) says about B1, in words."""
HIERARCHY = {
    "reproduced": "The paper's E3 robustness hierarchy reproduces here.",
    "partly reproduced": "The paper's E3 robustness hierarchy reproduces only in part here.",
    "not reproduced": "The paper's E3 robustness hierarchy does not reproduce here.",
    "not comparable": "The paper's E3 robustness hierarchy cannot be compared here.",
}
"""The overall sentence, keyed by the weakest of the three L75 verdicts."""
HIERARCHY_CLAIMS = ("e3.l75.b1", "e3.l75.b2", "e3.l75.b2_ws")


def e3_robustness_verdict(res: Results, study: ExploreStudy | None = None) -> list[str]:
    """The plain-language verdict on the paper's E3 robustness hierarchy here, with the design
    study's answer when one is loaded.

    The verdicts are the result set's own (``summary.json`` claims ``e3.l75.b1``, ``e3.l75.b2``,
    ``e3.l75.b2_ws``, decided by the pre-registered rules of :mod:`labcore.paper`); this only
    puts them into words, with the seed summaries of ``seed_values.csv`` and the paper's values.
    """
    claims = res.claims
    if not all(k in claims for k in HIERARCHY_CLAIMS):
        out = [
            (
                "This result set holds no E3 robustness verdicts (run `python -m labcore "
                "reproduce --experiment e3`)."
            )
        ]
        return out + (study_answer(study) if study is not None else [])
    verdicts = {k: str(claims[k].get("verdict") or "not comparable") for k in HIERARCHY_CLAIMS}
    b1, b2, ws = (l75_summary(res.seed_values, k) for k in HIERARCHY_CLAIMS)
    paper = {k: paper_text(claims[k].get("paper")) for k in HIERARCHY_CLAIMS}
    first = (
        f"Here B1 is {B1_FRAGILITY.get(verdicts['e3.l75.b1'], verdicts['e3.l75.b1'])}: "
        f"its L75 is {b1}, "
        f"against the paper's {paper['e3.l75.b1']}. B2: {b2}, against the paper's "
        f"{paper['e3.l75.b2']} "
        f"({verdicts['e3.l75.b2']}); B2 workspace-read: {ws}, against the paper's "
        f"{paper['e3.l75.b2_ws']} "
        f"({verdicts['e3.l75.b2_ws']}). "
    )
    order = ("not comparable", "not reproduced", "partly reproduced", "reproduced")
    weakest = min(verdicts.values(), key=lambda v: order.index(v) if v in order else 0)
    out = [first + HIERARCHY.get(weakest, HIERARCHY["not comparable"])]
    if study is not None:
        out += study_answer(study)
    return out
