"""The README's numbers are the bundled summaries' own: every block between ``<!-- readme:NAME -->``
markers equals what :mod:`labcore.readme` generates (one README writer, so the README never counts
as evidence a value the set flags as true by construction), and a newcomer reads it in ten
minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from labcore import readme
from labcore.findings import Finding, load_summary
from labcore.render import WORD_LIMITS, words

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_generated_block_is_current():
    assert readme.differing(README) == [], "run: .venv/bin/python -m labcore.readme"


def test_the_readme_stays_short():
    # Under 2,500 words, a newcomer's read of ten minutes.
    assert len(README.split()) < 2_500


def test_a_block_is_rewritten_in_place_and_a_stale_one_is_found():
    name = "counts:seeds20"
    text = f"# T\n\nbefore\n<!-- readme:{name} -->\nstale\n<!-- /readme:{name} -->\nafter\n"
    assert name in readme.differing(text)
    rewritten = readme.rewrite(text)
    assert rewritten.startswith("# T\n\nbefore\n") and rewritten.endswith("\nafter\n")
    assert readme.block(rewritten, name) == readme.BLOCKS[name]()
    assert name not in readme.differing(rewritten)
    assert readme.block("no markers", name) is None


def test_a_readme_table_is_capped_and_names_the_rest():
    many = [Finding(id=f"f{i}", question=f"Q{i}", value=float(i)) for i in range(7)]
    where = "the page"
    table = readme.findings_markdown(many, paper=False, more=where, limit=4)
    rows = [line for line in table.splitlines()[2:] if line.startswith("| Q")]
    assert [r.split(" | ")[0] for r in rows] == ["| Q0", "| Q1", "| Q2", "| Q3"]
    last = table.strip().splitlines()[-1]
    assert last.split()[0] == "3" and where in last  # the three left out, and where they are


def test_the_split_follows_the_flags():
    # A claim counts as evidence only when the set does not flag it: the relative and empty-bus
    # values are among the flagged ones.
    summary = load_summary(ROOT / "results" / "bundled").summary
    apart = {f.id for f in summary.findings if not f.evidence}
    assert {"e1.accuracy.self_off", "e2.dnrs.scale_0"} <= apart


def test_n20_counts_the_same_claims_under_the_same_rules():
    # The README puts the n = 20 counts beside n = 5's: the same claims, judged by the same rules
    # (each rule's row in the history), whose outcomes may differ where the data do (E1's opt-outs
    # are at the ideal's 0 at n = 5 only: docs/protocol.md sec. 10.7).
    n5, n20 = (load_summary(ROOT / "results" / name).summary for name in ("bundled", "seeds20"))
    assert [f.id for f in n20.findings] == [f.id for f in n5.findings]
    rules = [[row["rule"] for row in s.answer.params["history"]] for s in (n5, n20)]
    assert rules[0] == rules[1] and len(rules[0]) > 1
    assert n20.answer.params["dissociations"] == n5.answer.params["dissociations"]


def test_the_reward_answer_keeps_its_word_limit():
    from labcore.experiments import reward_answer as ra

    text = ra.answer(ra.read_summaries(ROOT / "results"), "readme")
    assert words(text) <= WORD_LIMITS["readme"]
    assert readme.block(README, "answer:reward").startswith(text)


@pytest.mark.parametrize("name", [n for n in readme.BLOCKS if n.startswith("answer:")])
def test_every_answer_in_the_readme_keeps_its_word_limit(name):
    # Each answer in at most 120 words, rendered from the bundled findings (its first
    # paragraph; the findings table and links follow it).
    answer = readme.block(README, name).strip().split("\n\n")[0]
    assert 0 < words(answer) <= WORD_LIMITS["readme"], name
