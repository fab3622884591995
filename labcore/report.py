"""The self-contained HTML report: every figure of the paper rebuilt from a result set."""

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

from labcore.experiments.e4_hypotheses import answer_context
from labcore.experiments.paper_results import EXPERIMENTS, REPORT, ResultSet, load_results
from labcore.experiments.study import STUDIES, load_study
from labcore.figures.explore import design_figure
from labcore.figures.findings import claim_description, claim_ours_text, claim_paper_text
from labcore.figures.registry import (
    E4_FIGURES,
    EXPERIMENT_INTROS,
    EXPERIMENT_TITLES,
    FIGURES,
    FigureSpec,
)
from labcore.figures.scorecards import claims_table
from labcore.findings import VERDICTS, Finding, apart_by_kind, evidence_split
from labcore.io import atomic_write
from labcore.paper import PAPER_INCONSISTENCIES
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import (
    answer,
    findings_table,
    fmt,
    has_template,
    markdown_html,
    note_text,
    render,
    verdict_text,
)

__all__ = ["REPORTED_STUDIES", "build_report_html", "main", "write_report"]

REPORTED_STUDIES: tuple[str, ...] = ("paper", "e4")
"""The studies whose folder gets a report.html (``python -m labcore study NAME``)."""
TEMPLATE = "report.html.j2"
BUDGETS = (
    ("e1_trials", "E1 trials per seed and condition"),
    ("e2_episodes", "E2 episodes per seed"),
    ("decoding_episodes", "E2 decoding episodes"),
    ("e3_episodes", "E3 episodes per noise level"),
    ("masking_soa", "masking SOA (steps)"),
    ("masking_count", "masks"),
)
"""The budgets the header lists (config field, what it is)."""
EXPLORATORY_PREFIXES = {
    "e2.gbi_abs.": "GBI on |cosine| couplings (non-negative, as the participation formula "
    "presupposes), per capacity",
    "e3.gbi_abs.": "GBI on |cosine| couplings, per E3 agent kind",
    "e2.gbi_signed.": "the paper's GBI equation computed on signed couplings (outside [0, 1]: not "
    "defined here)",
    "e3.gbi_signed.": "the paper's GBI equation on signed couplings, per E3 agent kind (not "
    "defined here)",
    "e2.gbi_two.": "share of report steps with exactly two occupied slots (GBI 0 by construction "
    "there)",
    "e3.ood_gap_overflow.": "accuracy lost when more masks arrive than the workspace can hold "
    "(second OOD shift)",
    "e3.explore.composite_abs.": "composite regression on the registered OOD gap, with GBI on "
    "|cosine| couplings",
    "e3.explore.composite_overflow.": "composite regression on the overflow shift, with GBI on "
    "|cosine| couplings",
}
"""The post hoc values the report lists (key prefix, what they are)."""


# --------------------------------------------------------------------------- pieces
def _figure_html(fig: go.Figure, slug: str) -> str:
    # The title goes above the chart as text: plotly does not wrap titles to the plot width.
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else ""
    if title:
        top = fig.layout.margin.t or 95
        fig = go.Figure(fig)
        fig.update_layout(title_text="", margin_t=40, height=(fig.layout.height or 460) - top + 40)
        title = f'<p class="figtitle">{html.escape(title.replace("<br>", " "))}</p>'
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


NOT_DRAWN = "could not be drawn"
"""What the report says of a figure whose builder failed on these files."""


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def finding_rows(findings: Sequence[Finding]) -> list[dict[str, str]]:
    """The report's rows of some findings: :func:`labcore.render.findings_table` with each id and
    why its verdict came out as it did (the rule's branch and the flags)."""
    rows = findings_table(findings)
    for row, f in zip(rows, findings, strict=True):
        contrast = (CLAIMS_BY_ID[f.id].contrast or "") if f.id in CLAIMS_BY_ID else ""
        row["id"] = f.id
        row["why"] = "; ".join(x for x in (verdict_text(f, contrast), note_text(f)) if x)
    return rows


def _figure(spec: FigureSpec, res: ResultSet) -> dict[str, Any]:
    try:
        plot = _figure_html(spec.build(res), spec.slug)
    except Exception as exc:  # a broken input must not lose the rest of the report
        plot = _note(f"This figure {NOT_DRAWN} from these files ({exc.__class__.__name__}: {exc}).")
    try:
        sentences = spec.findings(res) if spec.findings else []
    except Exception as exc:
        sentences = [f"(summary sentences unavailable: {exc.__class__.__name__})"]
    found = [res.finding(c) for c in spec.claims if res.finding(c) is not None]
    return {
        "slug": spec.slug,
        "title": spec.title,
        "plot": plot,
        "what": spec.what,
        "paper": [(claim_description(c, res), claim_paper_text(c, res)) for c in spec.claims],
        "paper_note": spec.paper_note,
        "found": [(claim_description(f.id, res), claim_ours_text(f.id, res)) for f in found],
        "sentences": sentences,
        "rows": finding_rows(found),
    }


def _section(exp: str, res: ResultSet) -> dict[str, Any]:
    specs = [f for f in (*FIGURES, *E4_FIGURES) if f.experiment == exp]
    out: dict[str, Any] = {
        "id": exp,
        "title": EXPERIMENT_TITLES[exp],
        "intro": EXPERIMENT_INTROS[exp],
        "present": exp in res.experiments,
        "skipped": [f.title for f in specs],
    }
    if not out["present"]:
        return out
    used = {c for f in specs for c in f.claims}
    others = [f for f in res.claims if f.id.startswith(exp + ".") and f.id not in used]
    out |= {
        "figures": [_figure(f, res) for f in specs],
        "others": finding_rows(others),
    }
    return out


def _design(res: ResultSet) -> dict[str, Any] | None:
    """The E3 design study (``python -m labcore study e3_design``), when it sits beside the
    result set: its long answer, figure and medians."""
    directory = res.directory.parent / STUDIES["e3_design"].folder
    if res.study != "paper" or not directory.is_dir():
        return None
    study = load_study("e3_design", directory)
    if study.summary is None or study.tables is None:
        return {"problems": study.problems}
    return {
        "problems": [],
        "answer": markdown_html(answer(study.summary, "long")),
        "figure": _figure_html(design_figure(directory), "design_study"),
        "groups": study.tables.groups,
    }


def _created(res: ResultSet) -> str | None:
    if res.summary is not None and res.summary.created:
        return res.summary.created
    path = res.directory / "summary.json"
    if path.exists():
        mtime = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.UTC)
        return mtime.strftime("%Y-%m-%d %H:%M UTC") + " (file time)"
    return None


def command(res: ResultSet) -> str:
    """The command that writes this result set again (its study, budgets, seeds, code path)."""
    summary = res.summary
    config = summary.config if summary is not None else {}
    compute = summary.compute if summary is not None else {}
    quick = " --quick" if config.get("quick") else ""
    default = [0, 1] if config.get("quick") else [0, 1, 2, 3, 4]
    seeds = res.seeds
    more = f" --set seeds={','.join(map(str, seeds))}" if seeds and seeds != default else ""
    exps = config.get("experiments")
    if res.study == "paper" and exps and exps != ["e1", "e2", "e3"]:
        more += f" --set experiments={','.join(exps)}"
    portable = " --compute portable" if compute.get("mode") == "portable" else ""
    return f"python -m labcore{portable} study {res.study}{quick}{more} --out {res.directory}"


def report_context(res: ResultSet) -> dict[str, Any]:
    """Everything the template shows, from the result set (numbers as findings and tables)."""
    summary, tables = res.summary, res.tables
    config = summary.config if summary is not None else {}
    budgets = [(what, config[key]) for key, what in BUDGETS if key in config]
    if config.get("sigmas"):
        budgets.append(("noise levels σ", ", ".join(fmt(x) for x in config["sigmas"])))
    if "quick" in config:
        budgets.append(("budgets", "quick" if config["quick"] else "full"))
    claims = res.claims
    split = evidence_split(claims)
    new = VERDICTS[-1]  # counted only where a claim has no paper number
    shown = [v for v in VERDICTS if v != new or any(f.verdict == new for f in claims)]
    apart = apart_by_kind(claims)
    try:
        claims_figure = _figure_html(claims_table(claims), "claims")
    except Exception as exc:
        claims_figure = _note(f"The claims table {NOT_DRAWN} ({exc.__class__.__name__}).")
    extra = answer_context() if summary is not None and summary.study == "e4" else {}
    template_answer = (
        answer(summary, "long", **extra)
        if summary is not None and has_template(summary.study)
        else ""
    )
    values = sorted(res.values.items())
    return {
        "study": res.study,
        "plotlyjs": get_plotlyjs(),
        "experiments": res.experiments,
        "seeds": res.seeds,
        "budgets": budgets,
        "created": _created(res),
        "wall_seconds": summary.wall_seconds if summary is not None else None,
        "python": (summary.compute.get("python") if summary is not None else None),
        "excluded": tables.excluded if tables is not None else [],
        "trained": tables.trained if tables is not None else [],
        "directory": str(res.directory),
        "problems": res.problems,
        "answer": markdown_html(template_answer) if template_answer else "",
        "n_claims": len(claims),
        "evidence": {v: split["evidence"][v] for v in shown},
        "n_apart": sum(split["apart"].values()),
        "apart_detail": ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in apart.items()),
        "claims_figure": claims_figure,
        "sections": [_section(e, res) for e in EXPERIMENTS],
        "exploratory": [
            (
                prefix,
                meaning,
                [(k[len(prefix) :], fmt(v)) for k, v in values if k.startswith(prefix)],
            )
            for prefix, meaning in EXPLORATORY_PREFIXES.items()
            if any(k.startswith(prefix) for k, _ in values)
        ],
        "gain": res.gain,
        "design": _design(res),
        "inconsistencies": (tables.paper_inconsistencies if tables is not None else [])
        or list(PAPER_INCONSISTENCIES),
        "command": command(res),
        "values": values,
    }


def build_report_html(res: ResultSet) -> str:
    """The whole page as one HTML string (plotly.js inlined once, in the head)."""
    return render(TEMPLATE, **report_context(res))


def write_report(result_dir: Path | str, out: Path | None = None) -> Path:
    """Write the self-contained ``report.html`` of a result directory (any file may be missing)
    atomically to ``out`` (default: in the directory); FileNotFoundError if it is no directory."""
    if not Path(result_dir).is_dir():
        raise FileNotFoundError(f"result directory not found: {result_dir}")
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
