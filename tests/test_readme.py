"""The README's numbers are the bundled result sets' own: the verdict counts of each set (the
paper template's ``counts``, labcore.render.macro) and the integration study's answer, between
markers, equal what the summaries generate (issue 22: the README once counted two values as
evidence that the set flagged as true by construction)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labcore.findings import load_summary
from labcore.render import macro

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def marked(name: str) -> str:
    """The README's text between ``<!-- name -->`` and the next closing marker."""
    found = re.search(rf"<!-- {re.escape(name)} -->(.*?)<!-- /verdict-counts -->", README, re.S)
    assert found, f"README.md has no {name} block"
    return found.group(1)


def counts(result_set: str) -> str:
    """The verdict counts' sentence of a bundled set (README.md's block generator)."""
    summary = load_summary(ROOT / "results" / result_set, study="paper").summary
    assert summary is not None, f"results/{result_set} cannot be read: regenerate it"
    return macro(summary, "counts")


@pytest.mark.parametrize("result_set", ["bundled", "seeds20"])
def test_the_readme_counts_are_the_sets_own(result_set):
    expected = counts(result_set)
    assert marked(f"verdict-counts:{result_set}") == expected, f"write in README.md: {expected}"


def test_the_readme_split_follows_the_flags():
    # The split counts a claim as evidence only when the set does not flag it: the relative and
    # empty-bus values issue 22 found counted as evidence are among the flagged ones.
    summary = load_summary(ROOT / "results" / "bundled").summary
    apart = {f.id for f in summary.findings if not f.evidence}
    assert {"e1.accuracy.self_off", "e2.dnrs.scale_0"} <= apart
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
        summary = load_summary(ROOT / "results" / name).summary
        return {f.id: (f.verdict, f.evidence) for f in summary.findings}

    if "Every claim has the same verdict and the same flag at n = 20 as at n = 5" in README:
        assert verdicts("seeds20") == verdicts("bundled")


def test_the_readme_reward_answer_is_the_studies():
    # The "From reward alone" block: the readme form (at most 120 words), the findings it cites
    # and the links, generated from the five bundled studies (labcore.experiments.reward_answer).
    from labcore.experiments import reward_answer as ra
    from labcore.render import WORD_LIMITS, words

    block = ra.readme_block(README)
    expected = ra.readme_text(ROOT / "results")
    assert block == expected.strip(), (
        "write in README.md: python -m labcore.experiments.reward_answer --readme"
    )
    assert words(ra.answer(ra.read_summaries(ROOT / "results"), "readme")) <= WORD_LIMITS["readme"]


def test_the_reward_block_is_rewritten_in_place_and_checked(tmp_path, capsys):
    from labcore.experiments import reward_answer as ra

    readme = tmp_path / "README.md"
    readme.write_text(f"# T\n\nbefore\n\n{ra.START}\nold text\n{ra.END}\n\nafter\n")
    args = ["--readme-path", str(readme), "--results", str(tmp_path / "none")]
    assert ra.main(["--check", *args]) == 1
    assert ra.main(["--readme", *args]) == 0
    text = readme.read_text()
    assert text.startswith("# T\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert ra.readme_block(text) == ra.readme_text(tmp_path / "none").strip()
    assert ra.main(["--check", *args]) == 0
    with pytest.raises(ValueError, match="no <!-- reward-answer:start -->"):
        ra.rewrite_readme("no markers", "x")
