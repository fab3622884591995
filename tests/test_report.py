"""The HTML report: built from the bundled results, from an E1-only run, escaped, offline."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from labcore import report
from labcore.figures import registry
from labcore.paper_claims import CLAIMS_BY_ID

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "results" / "bundled"
PLOTLY_BANNER = "* plotly.js v"

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
    assert "python -m labcore reproduce --experiment all --seeds 5 --out" in text
    assert "could not be drawn" not in text and "Not available" not in bundled_page


def test_claims_verdicts_and_numbers_come_from_the_files(bundled_page):
    summary = json.loads((BUNDLED / "summary.json").read_text())
    text = visible_text(bundled_page)
    for claim in summary["claims"]:
        assert claim["id"] in text
    # Evidence and construction are counted apart, and together make the totals.
    split = summary["verdict_split"]
    for verdict, n in split["evidence"].items():
        assert re.search(rf"\b{n}\s+{re.escape(verdict)}\b", text), verdict
        assert n + split["construction"][verdict] == summary["verdict_counts"][verdict]
    built = sum(split["construction"].values())
    assert re.search(rf"\b{built} more are\s+true by construction", text)
    for item in summary["paper_inconsistencies"]:
        assert item in text
    # a caption quotes the paper's value from the reference table and ours from the summary
    fig1a = next(c for c in captions(bundled_page) if "Type-2 AUROC, self-model intact" in c)
    assert f"{CLAIMS_BY_ID['e1.auroc.self_on'].paper.value:g}" in fig1a
    ours = next(c for c in summary["claims"] if c["id"] == "e1.auroc.self_on")["ours"]["mean"]
    assert f"{ours:.3g}" in fig1a
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
    summary["experiment"], summary["experiments"] = "e1", ["e1"]
    summary["claims"] = [c for c in summary["claims"] if c["id"].startswith("e1.")]
    summary["values"] = {k: v for k, v in summary["values"].items() if k.startswith("e1.")}
    summary["verdict_counts"] = {"reproduced": 1}
    summary["files"] = {k: v for k, v in summary.get("files", {}).items() if k == "e1_trials.csv"}
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
    assert (
        "E2 is not part of this result set" in text and "E3 is not part of this result set" in text
    )
    assert "seed_values.csv is missing" in text and "e2_capacity.csv is missing" not in text
    assert (
        "Fig. 1b" in page and "Not available" in page
    )  # fig1a needs seed_values.csv: a visible note
    assert page.count(PLOTLY_BANNER) == 1
    assert "--experiment e1 --seeds 5" in text
    for cap in captions(page):
        assert not re.search(r"\bnan\b", cap, flags=re.I)


def test_malicious_text_is_escaped(tmp_path):
    directory = tmp_path / "evil"
    shutil.copytree(BUNDLED, directory)
    summary = json.loads((directory / "summary.json").read_text())
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    summary["claims"][0]["description"] = evil
    summary["claims"][0]["reason"] = evil
    summary["paper_inconsistencies"].append(evil)
    summary["python"] = evil
    (directory / "summary.json").write_text(json.dumps(summary))
    page = report.write_report(directory, out=tmp_path / "evil.html").read_text(encoding="utf-8")
    assert evil not in page and "<img src=x" not in page
    assert html.escape(evil) in page
    assert page.count("<script>alert") == 0


def test_cli_and_missing_directory(tmp_path, capsys):
    out = tmp_path / "cli.html"
    small = tmp_path / "small"
    small.mkdir()
    (small / "summary.json").write_text("{not json")
    assert report.main([str(small), "--out", str(out)]) == 0
    assert "summary.json could not be read" in visible_text(out.read_text(encoding="utf-8"))
    assert report.main([str(tmp_path / "nope")]) == 2
    with pytest.raises(FileNotFoundError):
        report.write_report(tmp_path / "nope")
