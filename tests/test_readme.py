"""The README's numbers are the bundled result sets' own: the verdict counts of each set and the
integration study's answer, between markers, equal what the summaries generate (issue 22: the
README once counted two values as evidence that the set flagged as true by construction)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labcore.paper import verdict_sentence

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def marked(name: str) -> str:
    """The README's text between ``<!-- name -->`` and the next closing marker."""
    found = re.search(rf"<!-- {re.escape(name)} -->(.*?)<!-- /verdict-counts -->", README, re.S)
    assert found, f"README.md has no {name} block"
    return found.group(1)


@pytest.mark.parametrize("result_set", ["bundled", "seeds20"])
def test_the_readme_counts_are_the_sets_own(result_set):
    summary = json.loads((ROOT / "results" / result_set / "summary.json").read_text())
    assert "construction_audit" in summary, (
        f"results/{result_set} predates the construction audit: regenerate it"
    )
    expected = verdict_sentence(summary["claims"])
    assert marked(f"verdict-counts:{result_set}") == expected, f"write in README.md: {expected}"


def test_the_readme_split_follows_the_flags():
    # The split counts a claim as evidence only when the set does not flag it: the relative and
    # empty-bus values issue 22 found counted as evidence are among the flagged ones.
    summary = json.loads((ROOT / "results" / "bundled" / "summary.json").read_text())
    flagged = {c["id"] for c in summary["claims"] if c.get("by_construction")}
    assert {"e1.accuracy.self_off", "e2.dnrs.scale_0"} <= flagged
    assert "reproduced as evidence" not in README  # the old wording, which counted them


def test_the_readme_integration_answer_is_the_studys():
    from labcore.experiments.explore_integration_findings import readme_block

    found = re.search(
        r"<!-- integration-answer:start -->(.*?)<!-- integration-answer:end -->", README, re.S
    )
    expected = readme_block(ROOT / "results" / "explore_integration")
    assert found and found.group(1) == expected, f"write in README.md: {expected}"


def test_the_marker_reader_can_fail():
    with pytest.raises(AssertionError, match="no nothing-here block"):
        marked("nothing-here")


def test_the_n20_sentence_holds():
    # README: "Every claim has the same verdict and the same flag at n = 20 as at n = 5".
    def verdicts(name: str) -> dict:
        summary = json.loads((ROOT / "results" / name / "summary.json").read_text())
        return {c["id"]: (c["verdict"], c["by_construction"]) for c in summary["claims"]}

    if "Every claim has the same verdict and the same flag at n = 20 as at n = 5" in README:
        assert verdicts("seeds20") == verdicts("bundled")
