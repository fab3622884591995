"""The README's generated blocks: every number the README states, rendered from the bundled
summaries through the one renderer.

A block sits between ``<!-- readme:NAME -->`` and ``<!-- /readme:NAME -->``. ``python -m
labcore.readme`` rewrites every block of README.md from the summaries; ``--check`` only says
which block differs (exit status 1), as tests/test_readme.py does.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from labcore import render
from labcore.findings import Finding, StudySummary, load_summary

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
README = ROOT / "README.md"


def _summary(folder: str, study: str) -> StudySummary:
    loaded = load_summary(RESULTS / folder, study=study)
    if loaded.summary is None:
        raise ValueError(f"results/{folder}: {'; '.join(loaded.problems)}")
    return loaded.summary


MAX_ROWS = 3
"""A README table shows at most this many findings; the rest are named by a link to the set."""


def findings_markdown(
    findings: Iterable[Finding], *, paper: bool = True, more: str = "", limit: int = MAX_ROWS
) -> str:
    """Findings as a markdown table (the README's): question, ours, (paper, verdict,) evidence.
    Beyond ``limit`` rows a last line says how many more there are and where (``more``).

    >>> print(findings_markdown([Finding(id="a", question="Right?", value=0.5)], paper=False))
    | Question | Ours | Evidence |
    |---|---|---|
    | Right? | 0.5 | yes |
    """
    rows = render.findings_table(findings, paper=paper)
    columns = [c for c in ("Question", "Ours", "Paper", "Verdict", "Evidence") if c in rows[0]]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:limit]:
        cells = [str(row[c]).replace("|", "/") for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    if len(rows) > limit:
        lines.append(f"\n{len(rows) - limit} more in {more or 'the study'}.")
    return "\n".join(lines)


def _answer_block(folder: str, study: str, *, paper: bool = False) -> str:
    summary = _summary(folder, study)
    cited = [summary.by_id[i] for i in (summary.answer.findings if summary.answer else ())]
    # The claims that count as evidence first: the ones a reader weighs.
    cited.sort(key=lambda f: not f.evidence)
    more = f"`results/{folder}/" + (
        "report.html`" if (RESULTS / folder / "report.html").exists() else "summary.json`"
    )
    table = f"\n\n{findings_markdown(cited, paper=paper, more=more)}" if cited else ""
    return f"{render.answer(summary, 'readme')}{table}"


def _reward_block() -> str:
    # Five studies' summaries composed into one answer (labcore/templates/reward.j2).
    from labcore.experiments import reward_answer

    found = reward_answer.read_summaries(RESULTS)
    table = findings_markdown(
        reward_answer.cited(found), paper=False, more='the "From reward alone" page'
    )
    links = reward_answer.answer(found, "links")
    return "\n\n".join([reward_answer.answer(found, "readme"), table, links])


def _dissociations_block(folder: str) -> str:
    # the lab's three dissociations: E1 and E2 measured (this study), E3 the paper's result set
    measured, paper = _summary(folder, "dissociations"), _summary("bundled", "paper")
    return render.compose("lab_dissociations.j2", "readme", measured=measured, paper=paper)


BLOCKS: dict[str, Callable[[], str]] = {
    "counts:seeds20": lambda: render.macro(_summary("seeds20", "paper"), "counts"),
    "answer:paper": lambda: _answer_block("bundled", "paper", paper=True),
    "answer:e3_design": lambda: _answer_block("explore_e3", "e3_design"),
    "answer:integration": lambda: _answer_block("explore_integration", "integration"),
    "answer:reward": _reward_block,
    "answer:dissociations": lambda: _dissociations_block("dissociations"),
    "answer:dissociations:seeds20": lambda: render.answer(
        _summary("dissociations_seeds20", "dissociations"), "short"
    ),
}
"""Every generated block of README.md, by name."""


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- readme:{re.escape(name)} -->\n?)(.*?)(\n?<!-- /readme:{re.escape(name)} -->)", re.S
    )


def block(readme: str, name: str) -> str | None:
    """The text of block ``name`` in ``readme`` (None if it has no such block)."""
    found = _pattern(name).search(readme)
    return None if found is None else found.group(2)


def rewrite(readme: str) -> str:
    """``readme`` with every block of :data:`BLOCKS` it holds rewritten."""
    for name, make in BLOCKS.items():
        text = make()
        readme = _pattern(name).sub(lambda m, t=text: m.group(1) + t + m.group(3), readme)
    return readme


def differing(readme: str) -> list[str]:
    """The blocks of ``readme`` that differ from what the summaries generate, or that it lacks."""
    return [name for name, make in BLOCKS.items() if block(readme, name) != make()]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.readme [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m labcore.readme", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="only check; exit 1 if a block differs"
    )
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    if args.check:
        stale = differing(text)
        for name in stale:
            print(f"README.md block {name!r} differs from the summaries", file=sys.stderr)
        return 1 if stale else 0
    README.write_text(rewrite(text), encoding="utf-8")
    print("README.md blocks rewritten: " + ", ".join(BLOCKS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
