"""The paper's claims as findings (labcore.experiments.paper_findings): each claim one finding with
its verdict's branch, its flags (from the claims table and the construction audit) and their
sentences filled from the flag's own numbers; E4's hypotheses as findings with an outcome; the
answer's counts and dissociations; rows read back into the pipelines' per-seed results."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from labcore import render
from labcore.experiments import paper_findings as PF
from labcore.experiments.paper_study import PaperConfig
from labcore.experiments.paper_tables import figures_json, l75_cell, l75_record, value_rows
from labcore.findings import Finding, Flag, evidence_split, load_summary
from labcore.paper_claims import CLAIMS_BY_ID


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


AUDIT = {
    "untrained": {"rule": "untrained", "ours": 0.5, "reference": 0.5, "se": 0.0},
    "ceiling": {
        "rule": "ceiling",
        "ours": 0.44,
        "reference": 0.4286,
        "se": 0.02,
        "low": 0.39,
        "high": 0.468,
    },
    "contrast": {
        "rule": "contrast",
        "ours": None,
        "reference": None,
        "se": 0.0,
        "arms": ("e2.conjunction.k4", "e2.conjunction.k2"),
    },
    "empty bus": {"rule": "empty bus", "ours": 0.01, "reference": 0.0, "se": 0.0},
    "relative": {
        "rule": "relative",
        "ours": 0.856,
        "reference": 0.856,
        "se": 0.0,
        "condition": "self_off",
        "reference_condition": "self_on",
        "reassigned": False,
    },
    "reassigned": {
        "rule": "relative",
        "ours": 0.49,
        "reference": 0.5,
        "se": 0.0,
        "condition": "blind_permute",
        "reference_condition": "self_on",
        "reassigned": True,
    },
}


@pytest.mark.parametrize("name", sorted(AUDIT))
def test_every_audit_rule_is_a_flag_whose_sentence_is_filled_from_its_numbers(name):
    flag = PF.audit_flag(AUDIT[name])
    assert flag.kind == "by_construction"
    template = render.FLAG_RULES[(flag.kind, flag.rule)]
    assert placeholders(template) <= set(flag.params) | {"note"}
    if AUDIT[name]["ours"] is not None:  # a contrast has no value of its own: it names its arms
        assert render.fmt(AUDIT[name]["ours"]) in render.flag_text(flag)
    else:
        named = [CLAIMS_BY_ID[arm].description for arm in AUDIT[name]["arms"]]
        assert all(arm in render.flag_text(flag) for arm in named)


def test_the_claims_tables_reasons_are_flags_with_their_notes():
    spec = CLAIMS_BY_ID["e2.ignition.k4"]  # not comparable, as the table states
    flags = PF.claim_flags(spec, "stated", None)
    assert [(f.kind, f.rule) for f in flags] == [("not_comparable", "stated")]
    assert render.flag_text(flags[0]) == spec.not_comparable
    spec = CLAIMS_BY_ID["e2.gbi.k4"]  # undefined here, with the table's reason
    assert PF.claim_flags(spec, "undefined", None)[-1] == Flag(
        kind="undefined", note=spec.undefined_reason
    )
    both = PF.claim_flags(CLAIMS_BY_ID["e1.auroc.self_off"], "ci", AUDIT["untrained"])
    assert [(f.kind, f.rule) for f in both] == [
        ("by_construction", "spec"),
        ("by_construction", "untrained"),
    ]


def test_a_claim_becomes_a_finding_with_its_verdicts_branch_and_interval():
    spec = CLAIMS_BY_ID["e1.accuracy.self_on"]
    ours = {"mean": 0.856, "sd": 0.014, "n": 5, "ci95": [0.845, 0.868]}
    f = PF.claim_finding(spec, ours, {"e1.accuracy.self_on": 0.856}, None)
    assert (f.verdict, f.verdict_rule) == ("reproduced", "tolerance")
    assert f.interval.low == 0.845 and f.interval.method == "bootstrap" and f.evidence
    assert f.paper.value == spec.paper.value and f.pattern == spec.pattern
    assert render.fmt(0.885) in render.verdict_text(f) and render.fmt(0.856) in render.value_text(f)
    censored = {
        "mean": None, "sd": None, "n": 5, "ci95": None, "censored": "right", "bound": 0.5,
        "n_right_censored": 4, "n_left_censored": 0, "n_seeds": 5,
    }  # fmt: skip
    l75 = PF.claim_finding(CLAIMS_BY_ID["e3.l75.b2"], censored, {"e3.l75.b1": 0.04}, None)
    assert (l75.censored, l75.bound, l75.n_censored, l75.verdict_rule) == ("right", 0.5, 4, "bound")
    assert render.value_text(l75) == "> 0.5 (4/5 seeds)"


@pytest.mark.parametrize("rule", sorted(render.VERDICT_RULES))
def test_every_branch_of_the_verdict_rule_has_its_sentence(rule):
    f = Finding(id="x", question="?", value=0.4, n=5, verdict="reproduced", verdict_rule=rule)
    assert render.verdict_text(f)


def test_a_hypothesis_is_a_finding_with_an_outcome():
    entry = {
        "id": "H1",
        "statement": "above chance",
        "primary": True,
        "outcome": "not supported",
        "by_construction": None,
        "conditions": [
            {
                "what": "arm (a) AUROC",
                "key": "e4.auroc.reward_wager.self_on",
                "estimate": 0.31,
                "ci95": [0.21, 0.41],
                "interval": "t interval",
                "n": 5,
                "holds": False,
                "tested": True,
            }
        ],
    }
    f = PF.hypothesis_finding(entry)
    assert (f.id, f.outcome, f.value, f.n, f.verdict) == (
        "e4.hypothesis.H1",
        "not supported",
        0.31,
        5,
        None,
    )
    assert (f.interval.low, f.interval.high) == (0.21, 0.41)
    why = "the wiring fixes it"  # a reason typed once in the hypotheses' table, carried as it is
    built = PF.hypothesis_finding({**entry, "by_construction": why})
    assert built.flag("by_construction").note == why


def test_the_answer_counts_evidence_apart_and_names_the_dissociations():
    def f(i, verdict, *flags):
        return Finding(id=i, question="?", verdict=verdict, flags=tuple(flags))

    built = Flag(kind="by_construction", rule="spec")
    findings = [
        f("e1.accuracy.self_off", "reproduced", built),
        f("e1.auroc.self_off", "reproduced"),
        f("e2.conjunction.k4", "reproduced"),
        f("e2.conjunction.k2", "partly reproduced"),
        f("e2.conjunction.k0", "reproduced"),
        f("e3.l75.b1", "not reproduced"),
        f("e3.l75.b2", "reproduced"),
        f("e3.l75.b2_ws", "reproduced"),
    ]
    answer = PF.paper_answer(findings, seeds=5)
    assert answer.params["dissociations"] == {"e1": "construction", "e2": "evidence", "e3": "fails"}
    assert answer.params["evidence"] == evidence_split(findings)["evidence"]
    assert answer.params["apart"]["reproduced"] == 1 and answer.outcome == "some"


def test_rows_read_back_into_the_pipelines_results():
    config = PaperConfig(seeds=(0, 1), experiments=("e3",), audit_seeds=0)
    l75 = {"e3.l75.b1": {"value": None, "censored": "right", "bound": 0.5}}
    rows = {
        "seed_values": value_rows("e3", 0, {"e3.accuracy.b1": 0.9, "e3.dpci.b1": float("nan")}, l75)
        + value_rows("e3", 1, {"e3.accuracy.b1": 0.8}, {"e3.l75.b1": l75_record("0.31")}),
        "e3_points": [
            {"agent": "b1", "seed": 0, "ood_gap": 0.1, "ood_gap_overflow": 0.2, "gbi": 0.0,
             "gbi_abs": 0.3, "dpci": None, "auroc": 0.5},
        ],
    }  # fmt: skip
    results = PF.seed_results(rows, config)["e3"]
    assert [r.seed for r in results] == [0, 1]
    assert results[0].values["e3.accuracy.b1"] == 0.9 and results[0].l75 == l75
    assert results[1].l75["e3.l75.b1"] == {"value": 0.31, "censored": "none", "bound": 0.31}
    assert results[0].figures["points"]["b1"]["gap"] == 0.1
    assert [r["key"] for r in rows["seed_values"]][:3] == [
        "e3.accuracy.b1",
        "e3.dpci.b1",
        "e3.l75.b1",
    ]
    assert l75_cell(l75["e3.l75.b1"]) == "> 0.5" and rows["seed_values"][1]["value"] == "nan"
    assert figures_json(rows, ["e3"], [0, 1], 2, 6)["e3"]["points"][0]["dpci"] is None
    with pytest.raises(ValueError, match=r"\be3\b\D+\b1\b"):  # names the row: e3, seed 1
        PF.seed_results(rows, PaperConfig(seeds=(0,), experiments=("e3",)))


# ------------------------------------------------------------------ the answer, from paper.j2
BUNDLED = Path(__file__).resolve().parents[2] / "results" / "bundled"


@pytest.fixture(scope="module")
def bundled():
    loaded = load_summary(BUNDLED, study="paper")
    assert loaded.ok, loaded.problems
    return loaded.summary


def test_the_answer_is_filled_from_the_findings_within_its_word_limits(bundled):
    evidence = bundled.answer.params["evidence"]
    short, readme = render.answer(bundled, "short"), render.answer(bundled, "readme")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.words(readme) <= render.WORD_LIMITS["readme"]
    assert f"{evidence['reproduced']} reproduce" in short and short in readme
    long = render.answer(bundled, "long")  # every finding it cites exists (StrictUndefined)
    for finding_id in bundled.answer.findings:
        f = bundled.finding(finding_id)
        assert render.value_text(f) in long and f.question in long


def test_the_counts_sentence_counts_the_findings(bundled):
    split = evidence_split(bundled.findings)
    counts = render.macro(bundled, "counts")
    tokens = counts.split()
    assert tokens[0] == str(len(bundled.findings))  # every claim counted
    assert tokens[tokens.index("apart") + 1] == str(sum(split["apart"].values()))
    for verdict, n in split["evidence"].items():
        assert (f"{n} {verdict}" in counts) == bool(n), verdict


def test_every_flag_of_the_bundled_sets_renders_its_own_sentence():
    for name in ("bundled", "seeds20", "quick", "e4"):
        summary = load_summary(BUNDLED.parent / name).summary
        for f in summary.findings:
            for flag in f.flags:
                template = render.FLAG_RULES.get((flag.kind, flag.rule))
                assert template is not None or flag.note, (name, f.id, flag.kind, flag.rule)
                if template:
                    assert placeholders(template) <= set(flag.params) | {"note"}, (f.id, flag)
