"""The HTML report: built from the bundled results, from an E1-only run, escaped, offline."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import markupsafe
import pytest

from labcore import render, report
from labcore.experiments.paper_results import load_results
from labcore.figures import registry
from labcore.figures.registry import FIGURES
from labcore.figures.style import NOT_AVAILABLE
from labcore.findings import VERDICTS, evidence_split
from labcore.paper_claims import CLAIMS_BY_ID

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "results" / "bundled"
PLOTLY_BANNER = "/**\n* plotly.js v"  # the opening comment of the inlined bundle

pytestmark = pytest.mark.skipif(
    not (BUNDLED / "summary.json").exists(), reason="no bundled results"
)


def captions(page: str) -> list[str]:
    return re.findall(r"<figcaption>(.*?)</figcaption>", page, flags=re.S)


def visible_text(page: str) -> str:
    no_scripts = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", no_scripts))


@pytest.fixture(scope="module")
def bundled_page(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("report") / "r.html"
    path = report.write_report(BUNDLED, out=out)
    assert path == out and out.exists()
    return out.read_text(encoding="utf-8")


def test_every_figure_and_section_is_there(bundled_page):
    for spec in registry.FIGURES:
        assert f"<h3>{html.escape(spec.title)}</h3>" in bundled_page, spec.title
        assert f'id="plot-{spec.slug}"' in bundled_page, spec.slug
    for plotly_title in (
        "Fig. 1a",
        "Fig. 1b",
        "Fig. 1c",
        "Fig. 1d",
        "Fig. 2a",
        "Fig. 2b",
        "Fig. 2c",
        "Fig. 3a",
        "Fig. 3b",
        "Fig. 3c",
        "Fig. 4",
        "Table 3",
    ):
        assert f'<p class="figtitle">{plotly_title}' in bundled_page, plotly_title
    text = visible_text(bundled_page)
    for heading in (
        "Exploratory analyses (post hoc, not pre-registered)",
        "Inconsistencies inside the paper",
        "Reproduce this",
        "Verdicts at a glance",
        "these agents are not conscious",
    ):
        assert heading.lower() in text.lower(), heading
    assert f"python -m labcore --compute portable study paper --out {BUNDLED}" in text
    assert report.NOT_DRAWN not in text and NOT_AVAILABLE not in bundled_page  # every figure


def test_claims_verdicts_and_numbers_come_from_the_files(bundled_page):
    res = load_results(BUNDLED)
    text = visible_text(bundled_page)
    for claim in res.claims:
        assert claim.id in text
    # Evidence and the findings counted apart: the boxes count the evidence, the rest apart.
    split = evidence_split(res.claims)
    for verdict in VERDICTS[:4]:
        assert re.search(rf"\b{split['evidence'][verdict]}\s+{re.escape(verdict)}\b", text)
    apart = sum(split["apart"].values())
    assert re.search(rf"\b{apart}\s+more\b", text)  # the findings counted apart, counted
    for item in res.tables.paper_inconsistencies:
        assert item in text
    assert render.answer(res.summary, "short") in text  # the answer, from its template
    # a caption quotes the paper's value from the reference table and ours from the findings
    fig1a = next(c for c in captions(bundled_page) if "Type-2 AUROC, self-model intact" in c)
    assert render.fmt(CLAIMS_BY_ID["e1.auroc.self_on"].paper.value) in fig1a
    assert render.fmt(res.finding("e1.auroc.self_on").value) in fig1a
    assert "e3.explore.composite_overflow" in text and "e2.gbi_abs" in text


def test_no_nan_in_captions_and_plotly_inlined_once(bundled_page):
    caps = captions(bundled_page)
    assert len(caps) == len(registry.FIGURES)
    for cap in caps:
        assert not re.search(r"\bnan\b", cap, flags=re.I), cap[:200]
    assert bundled_page.count(PLOTLY_BANNER) == 1
    outside_plotlyjs = re.sub(
        r"<script[^>]*>/\*\*\s*\* plotly\.js v.*?</script>", "", bundled_page, flags=re.S
    )
    assert PLOTLY_BANNER not in outside_plotlyjs  # the inline bundle was the one removed
    assert (
        "cdn.plot.ly" not in outside_plotlyjs and "<script src=" not in bundled_page
    )  # works offline
    # + the claims table, + the design study's figure when the study sits beside the result set
    study = (BUNDLED.parent / "explore_e3" / "summary.json").exists()
    assert ("id='design-study'" in bundled_page) == study
    assert bundled_page.count("Plotly.newPlot(") == len(registry.FIGURES) + 1 + study


@pytest.fixture
def e1_only(tmp_path) -> Path:
    summary = json.loads((BUNDLED / "summary.json").read_text())
    summary["config"]["experiments"] = summary["tables"]["experiments"] = ["e1"]
    summary["findings"] = [f for f in summary["findings"] if f["id"].startswith("e1.")]
    values = summary["tables"]["values"]
    summary["tables"]["values"] = {k: v for k, v in values.items() if k.startswith("e1.")}
    summary["files"] = {k: v for k, v in summary.get("files", {}).items() if k == "e1_trials.csv"}
    answer = summary["answer"]  # as an E1-only run answers: its own claims and dissociation
    answer["findings"] = [f for f in answer["findings"] if f.startswith("e1.")]
    answer["params"]["dissociations"] = {"e1": answer["params"]["dissociations"]["e1"]}
    directory = tmp_path / "e1run"
    directory.mkdir()
    (directory / "summary.json").write_text(json.dumps(summary))
    shutil.copy(BUNDLED / "e1_trials.csv", directory / "e1_trials.csv")
    return directory


def test_e1_only_result_dir(e1_only):
    path = report.write_report(e1_only)
    assert path == e1_only / "report.html"
    page = path.read_text(encoding="utf-8")
    text = visible_text(page)
    for experiment in ("E2", "E3"):  # a note says each is not part of this set
        assert f'<p class="note">{experiment} ' in page
    problems = load_results(e1_only).problems
    assert [p.name for p in problems if p.kind == "missing"] == ["seed_values.csv"]
    assert all(p in text for p in problems)  # each problem, said on the page
    fig1b = next(spec for spec in FIGURES if spec.slug == "fig1b")
    assert fig1b.title in page and NOT_AVAILABLE in page  # fig1a needs seed_values.csv: a note
    assert page.count(PLOTLY_BANNER) == 1
    assert "--set experiments=e1" in text
    for cap in captions(page):
        assert not re.search(r"\bnan\b", cap, flags=re.I)


def test_malicious_text_is_escaped(tmp_path):
    directory = tmp_path / "evil"
    shutil.copytree(BUNDLED, directory)
    summary = json.loads((directory / "summary.json").read_text())
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    summary["findings"][0]["question"] = evil
    summary["findings"][1]["flags"] = [{"kind": "calibrated", "note": evil}]
    summary["tables"]["paper_inconsistencies"].append(evil)
    summary["compute"]["python"] = evil
    (directory / "summary.json").write_text(json.dumps(summary))
    page = report.write_report(directory, out=tmp_path / "evil.html").read_text(encoding="utf-8")
    assert evil not in page and "<img src=x" not in page
    assert str(markupsafe.escape(evil)) in page
    assert page.count("<script>alert") == 0


def test_cli_and_missing_directory(tmp_path, capsys):
    out = tmp_path / "cli.html"
    small = tmp_path / "small"
    small.mkdir()
    (small / "summary.json").write_text("{not json")
    assert report.main([str(small), "--out", str(out)]) == 0
    problem = next(p for p in load_results(small).problems if p.name == "summary.json")
    assert problem.kind == "unreadable" and problem in visible_text(out.read_text(encoding="utf-8"))
    assert report.main([str(tmp_path / "nope")]) == 2
    with pytest.raises(FileNotFoundError):
        report.write_report(tmp_path / "nope")
