"""The self-contained HTML report: every figure of the paper rebuilt from a result directory.

HTML only. ``write_report(result_dir)`` reads the files of the result contract
(:func:`labcore.storage.results.load_results`), builds the figures listed in
:data:`labcore.figures.registry.FIGURES` and writes ``report.html`` atomically. The page works
offline: plotly.js
is inlined once, in the page head. Any piece may be missing (an E1-only run, a lost file):
the figure is replaced by a short visible note and the rest of the report is written.

Every number in the captions comes from the result files or from the paper's reference
table (:data:`labcore.paper_claims.CLAIMS_BY_ID`); none is typed here. All text is
HTML-escaped.

Run from the command line::

    python -m labcore.report results/bundled            # -> results/bundled/report.html
    python -m labcore.report results/bundled --out /tmp/r.html
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from labcore.experiments.study import load_study
from labcore.figures.explore import design_figure
from labcore.figures.findings import (
    caption_number,
    claim_description,
    claim_ours_text,
    claim_paper_text,
)
from labcore.figures.registry import (
    E4_FIGURES,
    EXPERIMENT_INTROS,
    EXPERIMENT_TITLES,
    FIGURES,
    FigureSpec,
)
from labcore.figures.scorecards import claims_table
from labcore.io import atomic_write
from labcore.paper import NEW, verdict_split
from labcore.render import answer, fmt, markdown_html
from labcore.storage.results import EXPERIMENTS, REPORT, Results, load_results
from labcore.storage.studies import EXPLORE_DIR

__all__ = ["REPORTED_STUDIES", "build_report_html", "main", "write_report"]

REPORTED_STUDIES: tuple[str, ...] = ()
"""The studies whose folder gets a report.html (``python -m labcore study NAME``)."""

SCOPE = (
    "These agents are not conscious. They are small reference implementations of mechanisms that "
    "theories of consciousness propose; we test functional predictions, nothing about experience."
)
VERDICT_MEANING = {
    "reproduced": "the paper's number lies in our 95% CI or within the pre-registered tolerance",
    "partly reproduced": "the number differs, but the paper's qualitative pattern holds",
    "not reproduced": "neither the number nor the pattern holds",
    "not comparable": "the paper's number has no counterpart we can compute, or ours is undefined",
    NEW: (
        "the paper has no number (E4, beyond the paper): its pre-registered hypothesis is "
        "tested instead"
    ),
}
# --------------------------------------------------------------------------- text helpers


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------- HTML

CSS = """
.figtitle { font-weight: 600; margin: 0.6em 0 0 0; }
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:0;background:#fafafa;line-height:1.45}
main{max-width:1180px;margin:0 auto;padding:24px 32px 64px;background:#fff}
h1{font-size:1.9em;margin:0.2em 0} h2{border-bottom:2px solid #e8eef7;padding-bottom:4px;margin-top:2.2em}
h3{margin-top:1.8em}
.scope{background:#fff8e1;border-left:5px solid #f0b400;padding:10px 14px;font-weight:bold}
.meta td{padding:2px 12px 2px 0;vertical-align:top} .meta td:first-child{color:#555;white-space:nowrap}
.badge{display:inline-block;border-radius:4px;padding:1px 8px;font-size:0.9em;border:1px solid #ccc}
.v-reproduced{background:#d4edda}.v-partly-reproduced{background:#fff3cd}.v-not-reproduced{background:#f8d7da}
.v-not-comparable{background:#e2e3e5}
.counts{display:flex;gap:12px;flex-wrap:wrap;margin:10px 0}
.count{border-radius:6px;padding:8px 14px;min-width:150px}.count b{font-size:1.6em;display:block}
figure{margin:28px 0;border:1px solid #e5e5e5;border-radius:6px;padding:10px 14px}
figcaption{font-size:0.95em} figcaption p{margin:6px 0} .label{font-weight:bold;color:#34495e}
.claims{font-size:0.9em;margin:6px 0 0 0;padding-left:18px} .claims li{margin:3px 0}
.note{color:#7a4b00;background:#fff4e5;border:1px solid #ffd8a8;border-radius:4px;padding:8px 12px}
table.data{border-collapse:collapse;font-size:0.9em} table.data td,table.data th{border:1px solid #ddd;
padding:3px 8px;text-align:left} table.data th{background:#e8eef7}
code,pre{background:#f3f3f3;border-radius:4px;padding:2px 5px} pre{padding:10px;overflow-x:auto}
nav ul{columns:2} .explore{border-left:5px solid #dd8452;padding-left:12px}
"""  # noqa: E501 - the stylesheet of the bundled reports, kept byte for byte


def _badge(verdict: str) -> str:
    cls = "v-" + "-".join(str(verdict).split())
    return f'<span class="badge {_esc(cls)}">{_esc(verdict)}</span>'


def _claim_item(claim_id: str, res: Results) -> str:
    claim = res.claims.get(claim_id)
    desc = _esc(claim_description(claim_id, res))
    if claim is None:
        return (
            f"<li><code>{_esc(claim_id)}</code> ({desc}): paper "
            f"{_esc(claim_paper_text(claim_id, res))}; "
            "not evaluated in this run.</li>"
        )
    by = " <em>(true by construction)</em>" if claim.get("by_construction") else ""
    return (
        f"<li>{_badge(claim.get('verdict', ''))} <code>{_esc(claim_id)}</code> {desc}{by}: "
        f"paper {_esc(claim_paper_text(claim_id, res))}, ours "
        f"{_esc(claim_ours_text(claim_id, res))}. "
        f"{_esc(claim.get('reason', ''))}</li>"
    )


def _figure_html(fig: go.Figure, slug: str) -> str:
    # The title goes above the chart as text: plotly does not wrap titles to the plot width.
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else ""
    if title:
        top = fig.layout.margin.t or 95
        fig = go.Figure(fig)
        fig.update_layout(title_text="", margin_t=40, height=(fig.layout.height or 460) - top + 40)
        title = f'<p class="figtitle">{_esc(title.replace("<br>", " "))}</p>'
    return title + fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"plot-{slug}",
        config={
            "displaylogo": False,
            "responsive": True,
            "toImageButtonOptions": {"filename": slug, "scale": 2},
        },
    )


def _section_figure(spec: FigureSpec, res: Results) -> str:
    try:
        fig = spec.build(res)
        plot = _figure_html(fig, spec.slug)
    except Exception as exc:  # a broken input must not lose the rest of the report
        plot = (
            f'<p class="note">This figure could not be drawn from these files '
            f"({_esc(exc.__class__.__name__)}: {_esc(exc)}).</p>"
        )
    paper_items = [f"{claim_description(c, res)}: {claim_paper_text(c, res)}" for c in spec.claims]
    found_items = [
        f"{claim_description(c, res)}: {claim_ours_text(c, res)}"
        for c in spec.claims
        if c in res.claims
    ]
    try:
        extra = spec.findings(res) if spec.findings else []
    except Exception as exc:
        extra = [f"(summary sentences unavailable: {exc.__class__.__name__})"]
    paper = "; ".join(paper_items) + ("." if paper_items else "")
    if spec.paper_note:
        paper = (paper + " " + spec.paper_note).strip()
    found = "; ".join(found_items) + ("." if found_items else "")
    found = " ".join([found, *extra]).strip() or "No numbers for this figure in this run."
    claims = "".join(_claim_item(c, res) for c in spec.claims)
    return (
        f'<figure id="{_esc(spec.slug)}"><h3>{_esc(spec.title)}</h3>{plot}<figcaption>'
        f'<p><span class="label">What you are looking at.</span> {_esc(spec.what)}</p>'
        f'<p><span class="label">What the paper reported.</span> '
        f"{_esc(paper or 'No number for this panel.')}</p>"
        f'<p><span class="label">What we found.</span> {_esc(found)}</p>'
        + (
            f'<p><span class="label">Verdicts.</span></p><ul class="claims">{claims}</ul>'
            if claims
            else ""
        )
        + "</figcaption></figure>"
    )


def _header(res: Results) -> str:
    s = res.summary
    seeds = s.get("seeds") or []
    cfg = s.get("config") or {}
    date = s.get("date") or s.get("created")
    if not date and (res.directory / "summary.json").exists():
        mtime = (res.directory / "summary.json").stat().st_mtime
        date = (
            dt.datetime.fromtimestamp(mtime, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
            + " (file time)"
        )
    budgets = []
    for key, what in (
        ("e1_trials", "E1 trials per seed and condition"),
        ("e2_episodes", "E2 episodes per seed"),
        ("decoding_episodes", "E2 decoding episodes"),
        ("e3_episodes", "E3 episodes per noise level"),
        ("masking_soa", "masking SOA (steps)"),
        ("masking_count", "masks"),
    ):
        if key in cfg:
            budgets.append(f"{what}: {cfg[key]}")
    if cfg.get("sigmas"):
        budgets.append("noise levels σ: " + ", ".join(f"{x:g}" for x in cfg["sigmas"]))
    if "quick" in cfg:
        budgets.append("quick mode" if cfg["quick"] else "full budgets")
    rows = [
        ("Experiments", ", ".join(e.upper() for e in res.experiments) or "none found"),
        ("Seeds", f"{len(seeds)} ({', '.join(map(str, seeds))})" if seeds else "unknown"),
        ("Budgets", "; ".join(budgets) or "unknown"),
        ("Results written", date or "unknown"),
        ("Run time", f"{s['wall_seconds']} s" if s.get("wall_seconds") is not None else "unknown"),
        ("Python", s.get("python") or "unknown"),
        ("Agents excluded (below the 95% criterion)", ", ".join(s.get("excluded") or []) or "none"),
        (
            "Agents trained for this run",
            ", ".join(s.get("trained") or []) or "none (all bundled or cached)",
        ),
        ("Result directory", str(res.directory)),
    ]
    meta = "".join(f"<tr><td>{_esc(k)}</td><td>{_esc(v)}</td></tr>" for k, v in rows)
    return (
        "<header><h1>Consciousness-Theories Ablation Lab: replication report</h1>"
        "<p>This page rebuilds every figure of Phua (2025), <em>Can We Test "
        "Consciousness Theories on AI? "
        "Ablations, Markers, and Robustness</em>, from our own runs, and puts the paper's numbers "
        "beside ours. "
        "Each figure says what it shows, what the paper reported, what we found, and "
        "the verdict that rules "
        "fixed before any result was computed assign to each claim. Hover over any "
        "point for its exact "
        "value; "
        "the camera icon above a figure saves it as a picture.</p>"
        f'<p class="scope">{_esc(SCOPE)}</p><table class="meta">{meta}</table></header>'
    )


def _verdict_counts(res: Results) -> str:
    split = verdict_split(list(res.claims.values()))
    boxes = "".join(
        f'<div class="count {_esc("v-" + "-".join(str(v).split()))}"><b>{_esc(n)}</b>{_esc(v)}<br>'
        f"<small>{_esc(VERDICT_MEANING.get(v, ''))}</small></div>"
        for v, n in split["evidence"].items()
    )
    built = sum(split["construction"].values())
    detail = ", ".join(f"{n} {v}" for v, n in split["construction"].items() if n)
    return (
        "<section id='verdicts'><h2>Verdicts at a glance</h2>"
        f"<p>{len(res.claims)} claims were compared with the paper's numbers (or, "
        "without one, tested against "
        "their pre-registered hypothesis) by rules written down "
        "before any experiment was run (<code>docs/verdicts.md</code>). The boxes "
        "count the claims that are "
        f"evidence. {built} more are <em>true by construction</em> "
        f"({_esc(detail) or 'none'}): our design fixes "
        "their value in advance (an untrained agent of the same wiring gives the same "
        "number, or the "
        "workspace's allocation rule does), so they are not evidence either way.</p>"
        f'<div class="counts">{boxes}</div></section>'
    )


def _experiment_section(exp: str, res: Results) -> str:
    specs = [
        f for f in (*FIGURES, *E4_FIGURES) if f.experiment == exp
    ]  # E4: beyond the paper, its own figures
    head = (
        "<section "
        f"id='{exp}'><h2>{_esc(EXPERIMENT_TITLES[exp])}</h2><p>{_esc(EXPERIMENT_INTROS[exp])}</p>"
    )
    if exp not in res.experiments:
        titles = ", ".join(f.title for f in specs)
        return (
            head + f'<p class="note">{_esc(exp.upper())} is not part of this result set, so '
            "these figures are "
            f"skipped: {_esc(titles)}.</p></section>"
        )
    body = "".join(_section_figure(f, res) for f in specs)
    used = {c for f in specs for c in f.claims}
    others = [c for c in res.claims if c.startswith(exp + ".") and c not in used]
    if others:
        body += (
            "<h3>Other claims of this experiment</h3><ul class='claims'>"
            + "".join(_claim_item(c, res) for c in others)
            + "</ul>"
        )
    return head + body + "</section>"


EXPLORATORY_PREFIXES = {
    "e2.gbi_abs.": "GBI on |cosine| couplings (non-negative, as the participation formula "
    "presupposes), "
    "per capacity",
    "e3.gbi_abs.": "GBI on |cosine| couplings, per E3 agent kind",
    "e2.gbi_signed.": (
        "the paper's GBI equation computed on signed couplings (outside [0, 1]: not defined here)"
    ),
    "e3.gbi_signed.": "the paper's GBI equation on signed couplings, per E3 agent kind "
    "(not defined here)",
    "e2.gbi_two.": (
        "share of report steps with exactly two occupied slots (GBI 0 by construction there)"
    ),
    "e3.ood_gap_overflow.": "accuracy lost when more masks arrive than the workspace can hold "
    "(second OOD shift)",
    "e3.explore.composite_abs.": "composite regression on the registered OOD gap, with GBI on "
    "|cosine| couplings",
    "e3.explore.composite_overflow.": "composite regression on the overflow shift, with GBI on "
    "|cosine| couplings",
}


def _exploratory(res: Results) -> str:
    rows = []
    for prefix, meaning in EXPLORATORY_PREFIXES.items():
        keys = sorted(k for k in res.values if k.startswith(prefix))
        if keys:
            cells = ", ".join(f"{k[len(prefix) :]} = {caption_number(res.values[k])}" for k in keys)
            rows.append(
                f"<tr><td><code>{_esc(prefix)}*</code></td><td>{_esc(meaning)}</td>"
                f"<td>{_esc(cells)}</td></tr>"
            )
    intro = (
        "<p>These analyses were added after the results were seen. They are not "
        "pre-registered, carry no "
        "verdict, and should be read as hypotheses for a future, pre-registered run. "
        "The orange bars of "
        "Fig. 3b and the middle panel of the GBI figure show some of them.</p>"
    )
    table = (
        (
            (
                "<table class='data'><tr><th>keys</th><th>what</th><th>values (mean over "
                "seeds)</th></tr>"
            )
            + "".join(rows)
            + "</table>"
        )
        if rows
        else "<p>No exploratory values in this run.</p>"
    )
    return (
        "<section id='exploratory' class='explore'><h2>Exploratory analyses (post hoc, "
        "not pre-registered)"
        f"</h2>{intro}{table}{_gain_table(res)}</section>"
    )


def _design_study(res: Results) -> str:
    """The E3 design study (``python -m labcore study e3_design``), when it sits beside the
    result set: its long answer, figure and medians."""
    directory = res.directory.parent / EXPLORE_DIR
    if not directory.is_dir():
        return ""
    study = load_study("e3_design", directory)
    if study.summary is None or study.tables is None:
        return (
            "<section id='design-study'><h2>The E3 design study</h2><p "
            f"class='note'>{_esc('; '.join(study.problems))}</p></section>"
        )
    rows = "".join(
        f"<tr><td>{_esc(g.cell)}</td><td>{_esc(g.schedule)}</td>"
        f"<td>{_esc(g.protocol)}</td><td>{_esc(g.kind)}</td>"
        f"<td>{fmt(g.l75)}</td><td>{fmt(g.ceiling)}</td>"
        f"<td>{fmt(g.efficiency, digits=2)}</td><td>{fmt(g.jacobian)}</td></tr>"
        for g in study.tables.groups
    )
    return (
        "<section id='design-study' class='explore'><h2>The E3 design study "
        "(pre-registered in docs/protocol.md sec. 7)</h2>"
        f"{markdown_html(answer(study.summary, 'long'))}"
        f"{_figure_html(design_figure(directory), 'design_study')}"
        "<details><summary>Medians per design, agent and noise "
        "protocol</summary><table class='data'><tr>"
        "<th>design</th><th>schedule</th><th>noise</th><th>agent</th><th>median "
        "L75</th><th>ceiling (ideal "
        "observer)</th><th>L75 / ceiling</th><th>bus "
        f"Jacobian</th></tr>{rows}</table></details></section>"
    )


def _gain_table(res: Results) -> str:
    """Training length vs B1's noise tolerance (labcore.experiments.gain), if it was run."""
    rows = res.gain.get("rows") if isinstance(res.gain, dict) else None
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{_esc(r.get('seed'))}</td><td>{_esc(r.get('training'))}</td>"
        f"<td>{_esc(r.get('updates'))}</td><td>{caption_number(r.get('jacobian'), 2)}</td>"
        f"<td>{_esc(r.get('l75_text'))}</td><td>{caption_number(r.get('accuracy'), 2)}</td></tr>"
        for r in rows
    )
    return (
        "<h3>Does training length decide B1's fragility?</h3>"
        f"<p>{_esc(res.gain.get('description', ''))} B1 retrained for a fixed number of updates "
        "(no early stopping) beside the bundled agents: the median norm of d(report "
        "logits)/d(workspace) "
        "(the paper reports 78-175) and L75 under stored workspace noise "
        "(<code>python -m labcore.experiments.gain</code>).</p>"
        "<table "
        "class='data'><tr><th>seed</th><th>training</th><th>updates</th><th>Jacobian "
        "norm</th>"
        f"<th>L75</th><th>clean accuracy</th></tr>{body}</table>"
    )


def _inconsistencies(res: Results) -> str:
    items = res.summary.get("paper_inconsistencies") or []
    body = (
        ("<ul>" + "".join(f"<li>{_esc(x)}</li>" for x in items) + "</ul>")
        if items
        else "<p>None listed in this result set.</p>"
    )
    return (
        "<section id='inconsistencies'><h2>Inconsistencies inside the "
        "paper</h2><p>Numbers in the paper that "
        f"cannot all be true at once. We compare with them as printed.</p>{body}</section>"
    )


def _reproduce(res: Results) -> str:
    seeds = res.summary.get("seeds") or []
    n = len(seeds) or 5
    exp = res.summary.get("experiment") or (
        "all" if len(res.experiments) != 1 else res.experiments[0]
    )
    quick = " --quick" if (res.summary.get("config") or {}).get("quick") else ""
    out = res.directory
    cmd = f"python -m labcore reproduce --experiment {exp} --seeds {n}{quick} --out {out}"
    note = ""
    if seeds and list(seeds) != list(range(n)):
        note = (
            f"<p class='note'>This run used seeds {_esc(seeds)}; the command runs seeds 0 "
            f"to {n - 1}.</p>"
        )
    return (
        "<section id='reproduce'><h2>Reproduce this</h2><p>From the repository root, "
        "with the project's "
        "Python environment (agents missing from the bundle are trained on demand and cached):</p>"
        f"<pre>{_esc(cmd)}</pre>{note}<p>To rebuild only this page from existing result files:</p>"
        f"<pre>{_esc(f'python -m labcore.report {out}')}</pre></section>"
    )


def _problems(res: Results) -> str:
    if not res.problems:
        return ""
    return (
        "<p class='note'>Some result files are missing or unreadable; figures that need them are "
        "replaced by a "
        "note. " + _esc("; ".join(res.problems)) + ".</p>"
    )


def _all_values(res: Results) -> str:
    if not res.values:
        return ""
    rows = "".join(
        f"<tr><td><code>{_esc(k)}</code></td><td>{_esc(caption_number(v, 4))}</td></tr>"
        for k, v in sorted(res.values.items())
    )
    return (
        "<section id='values'><h2>Every aggregated number</h2><details><summary>Show all "
        f"{len(res.values)} values (mean over seeds; censored L75 at its bound)</summary>"
        f"<table class='data'><tr><th>key</th><th>value</th></tr>{rows}</table></details></section>"
    )


def build_report_html(res: Results) -> str:
    """The whole page as one HTML string (plotly.js inlined once, in the head)."""
    study_html = _design_study(res)
    nav = [
        "<li><a href='#verdicts'>Verdicts at a glance</a></li>",
        "<li><a href='#claims'>Every claim</a></li>",
    ]
    nav += [f"<li><a href='#{e}'>{_esc(EXPERIMENT_TITLES[e])}</a></li>" for e in EXPERIMENTS]
    nav += [
        "<li><a href='#exploratory'>Exploratory analyses</a></li>",
        *(["<li><a href='#design-study'>The E3 design study</a></li>"] if study_html else []),
        "<li><a href='#inconsistencies'>Inconsistencies inside the paper</a></li>",
        "<li><a href='#reproduce'>Reproduce this</a></li>",
    ]
    try:
        claims_fig = _figure_html(claims_table(list(res.claims.values())), "claims")
    except Exception as exc:
        claims_fig = (
            "<p class='note'>The claims table could not be drawn "
            f"({_esc(exc.__class__.__name__)}).</p>"
        )
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>Replication report: Phua (2025), consciousness-theory ablations</title>",
        f"<style>{CSS}</style>",
        f'<script type="text/javascript">{get_plotlyjs()}</script>',
        "</head><body><main>",
        _header(res),
        _problems(res),
        f"<nav><h2>Contents</h2><ul>{''.join(nav)}</ul></nav>",
        _verdict_counts(res),
        f"<section id='claims'><h2>Every claim</h2>{claims_fig}</section>",
        *(_experiment_section(e, res) for e in EXPERIMENTS),
        _exploratory(res),
        study_html,
        _inconsistencies(res),
        _reproduce(res),
        _all_values(res),
        "</main></body></html>",
    ]
    return "\n".join(parts)


def write_report(result_dir: Path | str, out: Path | None = None) -> Path:
    """Read a result directory and write the self-contained ``report.html``.

    Parameters
    ----------
    result_dir : path
        A directory of the result contract (any file may be missing).
    out : path, optional
        Where to write; default ``result_dir / "report.html"``.

    Returns
    -------
    Path
        The written file (written atomically: readers see the old file or the new one).

    Raises
    ------
    FileNotFoundError
        If ``result_dir`` is not a directory.
    """
    res = load_results(result_dir)
    page = build_report_html(res)
    path = Path(out) if out is not None else res.directory / REPORT
    atomic_write(path, lambda tmp: tmp.write_text(page, encoding="utf-8"))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.report RESULT_DIR [--out FILE]``."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.report", description="Write report.html for a result directory."
    )
    parser.add_argument("result_dir", help="directory with summary.json and the result files")
    parser.add_argument("--out", default=None, help="output file (default: RESULT_DIR/report.html)")
    args = parser.parse_args(argv)
    try:
        path = write_report(args.result_dir, Path(args.out) if args.out else None)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
