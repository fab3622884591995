"""The lab's answer to "does metacognition emerge from reward alone?" (issue 23, items 6-7).

Each registered branch of protocol 8.7's rewrite rules on hand-made summaries; every decimal the
text states is a number of the summaries it was built from (and moves when they move, in the style
of tests/test_findings.py); missing and partial studies; and the README's marked block is the text
generated from the bundled studies.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from labcore.experiments import pdw_sweep_findings as W
from labcore.experiments import reward_answer as ra
from labcore.experiments import reward_answer_explorer as rx
from labcore.experiments import reward_answer_parts as rp
from labcore.experiments.e4_hypotheses import ideal_observer
from labcore.experiments.pdw import PDWConfig
from labcore.findings import Finding, Interval, StudySummary, load_summary
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES, WAIVED_COHERENCES
from tests.test_findings import decimals as finding_decimals
from tests.test_findings import matches

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = re.compile(r"(?:protocol|sec\.)(?:,?\s*\d+(?:\.\d+)+(?:-\d+(?:\.\d+)+)?)+|\b8\.\d's")


def decimals(text: str) -> list[str]:
    """The decimal numbers of a text, protocol section numbers ("protocol 8.8, 8.3-8.5", "8.6's")
    left out."""
    return finding_decimals(PROTOCOL.sub("", text))


BUNDLED_NEUROGYM = load_summary(ROOT / "results" / "explore_neurogym", study="neurogym").summary
FACTORS = W.FACTORS


# --------------------------------------------------------------------------- hand-made summaries
def estimate(mean: float, half: float, n: int = 5) -> dict:
    lo, hi = mean - half, mean + half
    return {
        "mean": mean,
        "sd": half / 1.3,
        "n": n,
        "ci95": [lo, hi],
        "interval": "t",
        "above_zero": lo > 0,
    }


def reading(s1: bool | None, s2: bool | None, base: float) -> dict:
    """An agent's reading with S1 and S2 above 0 or not (None: undefined), distinct numbers from
    ``base``."""

    def one(above: bool | None, mean: float) -> dict:
        if above is None:
            return {
                "mean": mean,
                "sd": None,
                "n": 1,
                "ci95": None,
                "interval": "t",
                "above_zero": None,
            }
        return estimate(mean, mean * 0.6 if above else mean * 1.7)

    out = {"s1": one(s1, base), "s2": one(s2, base / 3.7)}
    tests = [out["s1"]["above_zero"], out["s2"]["above_zero"]]
    return {**out, "signatures_appear": None if None in tests else all(tests), "n_seeds": 5}


def findings_of(observer: str, reading: dict) -> list[Finding]:
    """An observer's S1 and S2 findings from a hand-made reading (its estimates)."""
    out = []
    for key, name in (("s1", "s1_contrast"), ("s2", "s2_waived_advantage")):
        e = reading[key]
        ci = e["ci95"]
        out.append(
            Finding(
                id=f"pdw.{observer}.{name}",
                question="?",
                value=e["mean"],
                sd=e["sd"],
                n=e["n"],
                interval=None if ci is None else Interval(low=ci[0], high=ci[1]),
            )
        )
    return out


def pdw_summary(plain=(True, True), b2=(True, True), b2_imitation=(True, True)) -> StudySummary:
    readings = {
        "plain_gru.reward": reading(*plain, 0.3127),
        "b2_ws.reward": reading(*b2, 0.2411),
        "plain_gru.imitation": reading(True, True, 0.4813),
        "b2_ws.imitation": reading(*b2_imitation, 0.4572),
        "ideal_observer.ideal": reading(True, True, 0.5618),
    }
    described = [
        Finding(id=f"pdw.{a}.reward.{k}", question="?", value=v, n=5)
        for a, vals in (("plain_gru", (0.3433, 0.0716)), ("b2_ws", (0.2917, 0.0633)))
        for k, v in zip(("p_sure_offered", "pooled_difference"), vals, strict=True)
    ]
    networks = [
        {
            "agent": a,
            "training": "reward",
            "seed": s,
            "updates": 3100 + 700 * s + (900 if a == "b2_ws" else 0),
            "stopped": "criterion" if s < 4 else "cap",
            "wall_seconds": 200.0,
        }
        for a in ("plain_gru", "b2_ws")
        for s in range(5)
    ]
    return StudySummary(
        study="pdw",
        seeds=[0, 1, 2, 3, 4],
        config=json.loads(json.dumps(asdict(PDWConfig()))),
        findings=[f for obs, r in readings.items() for f in findings_of(obs, r)] + described,
        tables={"networks": networks, "coherences": []},
    )


def sweep_summary(keeping: set[str], complete: bool = True) -> StudySummary:
    """An explorer whose cells in ``keeping`` keep the option (S1 0.3x in 3 of 3 seeds) and the
    others not (its first five cells only when not ``complete``)."""
    cells = W.cell_names()
    rows = [
        {
            "cell": name,
            "seed": s,
            "s1_contrast": (0.31 + 0.017 * i + 0.011 * s)
            if name in keeping
            else 0.005 + 0.004 * i + 0.009 * s,
        }
        for i, name in enumerate(cells)
        for s in range(3)
    ]
    if not complete:
        rows = [r for r in rows if r["cell"] in cells[:5]]
    return W.summarise(W.SweepConfig(), {W.ROWS.name: rows})


def held_summary(
    losing: set[str], all_keeps: bool = False, old_keeps: bool = True, complete: bool = True
) -> StudySummary:
    """The explorer's post hoc follow-up: cells in ``losing`` lose the option (S1 near 0), others
    keep it."""
    names = W.cell_names("held")
    lose = (
        set(losing) | ({"O~all"} if not all_keeps else set()) | ({"O"} if not old_keeps else set())
    )
    rows = [
        {
            "cell": n,
            "seed": s,
            "s1_contrast": (0.29 + 0.013 * i + 0.007 * s)
            if n not in lose
            else 0.004 + 0.003 * i + 0.002 * s,
        }
        for i, n in enumerate(names)
        for s in range(3)
    ]
    if not complete:
        rows = [r for r in rows if r["cell"] in names[:3]]
    return W.summarise(W.HeldConfig(), {W.ROWS.name: rows})


def e4_summary(again: bool = True, r1: str = "supported", r2: str = "supported") -> dict:
    values = {
        "e4.accuracy.reward_wager.self_on": 0.8531,
        "e4.auroc.reward_wager.self_on": 0.2913,
        "e4.accuracy.supervised.self_on": 0.8562,
        "e4.auroc.supervised.self_on": 0.8417,
        "e4.ece.supervised.self_on": 0.0391,
    }
    hypotheses = [{"id": "H1", "outcome": "not supported", "conditions": []}]
    if again:
        values.update(
            {
                "e4.accuracy.reward_late.self_on": 0.8548,
                "e4.auroc.reward_late.self_on": 0.7389,
                "e4.ece.reward_late.self_on": 0.1784,
                "e4.skip_low.reward_late_risky.self_on": 0.5947,
                "e4.skip_high.reward_late_risky.self_on": 0.0633,
            }
        )
        hypotheses += [
            {"id": "R1", "outcome": r1, "conditions": []},
            {"id": "R2", "outcome": r2, "conditions": []},
        ]
    return {
        "study": "e4",
        "seeds": [0, 1, 2, 3, 4],
        "findings": [],
        "tables": {"values": values, "hypotheses": hypotheses, "auroc_spread": {}},
    }


def summaries(**over) -> dict:
    base = {
        "pdw": pdw_summary(),
        "pdw_sweep": sweep_summary({"S", "S-entropy", "O+readout_init"}),
        "e4": e4_summary(),
        "neurogym": BUNDLED_NEUROGYM,
    }
    return {**base, **over}


# --------------------------------------------------------------------------- the registered
# branches
def test_both_signatures_for_both_agents_say_yes_and_name_the_deciding_factors():
    answer = ra.compose(summaries())
    assert answer.lead.startswith(
        "**Yes under Song's training; 8.6's no was a property of our training.**"
    )
    assert "readout init" in answer.lead  # the explorer's deciding factor, named in the lead
    assert rp.ANCHOR in answer.lead
    text = answer.markdown()
    assert (
        "This answer was a property of that training, not of reward alone" in text
    )  # 8.6, labelled
    assert f"Older cell: NeuroGym's task, {rp.OLD_CELL}" in text
    assert (
        "+0.313 (95% t interval +0.125 to +0.500, n = 5)" in text
    )  # plain GRU's S1, from its reading
    assert "4 of 5 seeds met the stopping criterion (after 3,100-5,200 updates)" in text


def test_plain_gru_yes_b2_no_says_so_with_the_imitation_ceiling():
    lead = ra.compose(summaries(pdw=pdw_summary(b2=(False, False)))).lead
    assert lead.startswith(
        "**Reward teaches it to a plain GRU; our architecture does not learn it under the same "
        "training.**"
    )
    assert "our B2 family (workspace + z_self) shows neither signature" in lead
    assert "so the architecture can represent the behaviour" in lead  # its ceiling shows both
    lead = ra.compose(
        summaries(pdw=pdw_summary(b2=(False, False), b2_imitation=(False, False)))
    ).lead
    assert "so this set does not show that the architecture can represent it" in lead


def test_plain_gru_no_is_not_reproduced_and_8_6_stands_with_the_caveat():
    answer = ra.compose(summaries(pdw=pdw_summary(plain=(False, False), b2=(False, False))))
    assert answer.lead.startswith("**Not reproduced here.**")
    assert "a claim about our optimisation of Song's setting until shown otherwise" in answer.lead
    assert "8.6's answer stands with that caveat" in answer.lead
    assert "This answer stands, with a caveat" in answer.markdown()


@pytest.mark.parametrize(
    ("plain", "shown", "missing"), [((True, False), "S1", "S2"), ((False, True), "S2", "S1")]
)
def test_one_signature_without_the_other_is_said_per_signature(plain, shown, missing):
    lead = ra.compose(summaries(pdw=pdw_summary(plain=plain, b2=(True, False)))).lead
    assert lead.startswith(
        f"**Partly: under Song's training the plain GRU shows {shown} but not {missing}.**"
    )
    assert (
        "our B2 family (workspace + z_self) shows S1 but not S2" in lead
    )  # B2's own signature, said too


def test_an_undefined_interval_is_not_decided():
    lead = ra.compose(summaries(pdw=pdw_summary(plain=(None, True)))).lead
    assert lead.startswith("**Not decided by this set.**") and "fewer than 2 seeds" in lead


def test_no_single_deciding_factor_names_the_cells_that_keep_the_option():
    keep = {
        "S",
        "S-entropy",
        "S-baseline",
        "O",
        "O+readout_init",
    }  # every S-cell but two keeps; O keeps too
    keep |= {n for n in W.cell_names() if n.startswith("S")}
    answer = ra.compose(summaries(pdw_sweep=sweep_summary(keep)))
    assert "no single choice decides whether the sure option survives" in answer.lead
    assert "`S-readout_init`" in answer.lead and "`O`" in answer.lead
    part = next(p for p in answer.parts if p.key == "pdw_sweep")
    assert "No single choice decides it." in part.text
    assert "the old-default cell already keeps it, so the O side answers nothing" in part.text
    assert "`S-entropy` (Song's setting with entropy bonus 0.003, 3 of 3 seeds)" in part.text


def test_the_explorer_names_a_deciding_factor_with_its_effects():
    part = rx.sweep_part(
        sweep_summary({"S", *[f"S-{f}" for f in FACTORS if f != "readout_init"], "O+readout_init"})
    )
    assert "Deciding factor(s): readout init." in part.text
    assert "readout init moves S1's contrast by" in part.text and "Welch 95% interval" in part.text


def test_the_held_follow_up_names_the_choice_that_loses_the_option_and_is_labelled_post_hoc():
    answer = ra.compose(summaries(pdw_held=held_summary({"O~return"})))
    part = next(p for p in answer.parts if p.key == "pdw_held")
    assert part.ran and "post hoc" in part.title and "GAE's lambda 0.95" in part.text
    assert "GAE's lambda 0.95 alone loses the option the old default keeps" in part.text
    assert "Post hoc, on what the explorer held: GAE's lambda 0.95 alone loses" in answer.lead
    assert (
        "`O~return` (GAE's lambda 0.95 instead of the full return): keeps it in 0 of 3 seeds"
        in part.text
    )
    assert "Welch 95% interval" in part.text and "study pdw_held" in part.text


def test_a_held_follow_up_that_keeps_the_option_everywhere_points_at_the_network():
    part = rx.held_part(held_summary(set(), all_keeps=True))
    assert "No held choice alone" in part.text and "its network (the B2 family" in part.text


def test_a_partial_held_follow_up_waits_and_adds_nothing_to_the_lead():
    answer = ra.compose(summaries(pdw_held=held_summary(set(), complete=False)))
    part = next(p for p in answer.parts if p.key == "pdw_held")
    assert part.ran and "Incomplete (3 of 7 cells" in part.text and "Post hoc" not in answer.lead


# --------------------------------------------------------------------------- missing and partial
# studies
def test_each_missing_study_says_not_run_yet_with_its_command():
    answer = ra.compose(
        {"pdw": None, "pdw_sweep": None, "pdw_held": None, "e4": None, "neurogym": None}
    )
    assert answer.lead.startswith("**Not settled yet.**")
    for key, command in rp.COMMANDS.items():
        assert f"`{command}`" in answer.markdown(), key
        part = next((p for p in answer.parts if p.key == key), None)
        assert part is not None and not part.ran and part.text.startswith("Not run yet")
    assert not any(
        ch.isdigit() and "." in ch for ch in decimals(answer.markdown())
    )  # no number is invented


def test_a_partial_explorer_shows_its_cells_and_waits_for_the_rest():
    answer = ra.compose(summaries(pdw_sweep=sweep_summary({"S"}, complete=False)))
    assert "The reward explorer is incomplete (5 of 16 cells)" in answer.lead
    part = next(p for p in answer.parts if p.key == "pdw_sweep")
    assert (
        part.ran
        and "Incomplete: 5 of 16 cells" in part.text
        and "`S` (Song's setting, 3 of 3 seeds)" in part.text
    )


def test_a_summary_of_another_study_is_not_read_as_this_one():
    wrong = {
        "pdw": {"study": "pdw_sweep", "cells": {}},
        "pdw_sweep": pdw_summary(),  # a summary of another study
        "e4": {"values": {}},
        "neurogym": {"study": "neurogym"},
    }
    assert all(not p.ran for p in ra.compose(wrong).parts if p.key != "anchor")


def test_e4_without_the_again_cells_is_labelled_as_the_first_cells():
    answer = ra.compose(summaries(e4=e4_summary(again=False)))
    assert (
        "only E4's first training has run" in answer.lead
        and "E4 again is not run yet" in answer.lead
    )
    part = next(p for p in answer.parts if p.key == "e4")
    assert part.title.startswith("On our wagering task: E4's first cells only (default init")
    assert "The cells of E4 again (protocol 8.8) are not in this set yet" in part.text


@pytest.mark.parametrize(
    ("r1", "r2", "verdict"),
    [
        ("supported", "supported", "yes, once the training artefacts are removed"),
        ("supported", "not supported", "partly"),
        ("not supported", "supported", "partly"),
        (
            "not supported",
            "not supported",
            "not from reward alone, even without the training artefacts",
        ),
        ("undefined", "supported", "not settled by this result set"),
    ],
)
def test_e4_again_in_the_lead_follows_8_8_6(r1, r2, verdict):
    sentence = rp.e4_sentence(e4_summary(r1=r1, r2=r2))
    assert f"opting out kept alive), {verdict}:" in sentence
    assert f"R1 {r1}" in sentence and f"R2 {r2}" in sentence
    assert "0.18 against 0.04 supervised, less calibrated (descriptive, not tested)" in sentence


def test_a_not_meaningful_auroc_is_said_as_such():
    summary = e4_summary(r1="not supported")
    summary["tables"]["auroc_spread"] = {"e4.auroc.reward_late.self_on": {"meaningful": False}}
    assert "Type-2 AUROC 0.74, not meaningful: its variation changes no bet" in rp.e4_sentence(
        summary
    )


# --------------------------------------------------------------------------- every number from the
# summaries
def _pool(x, out: list[float]) -> list[float]:
    if isinstance(x, StudySummary):
        x = x.model_dump(mode="json")
    if isinstance(x, bool):
        return out
    if isinstance(x, int | float) and math.isfinite(x):
        out += [abs(float(x)), abs(float(x)) * 100]  # percentages state 100 x a share
    elif isinstance(x, dict):
        for v in x.values():
            _pool(v, out)
    elif isinstance(x, list | tuple):
        for v in x:
            _pool(v, out)
    return out


def _scaled(x, k: float):
    """Every measured float times ``k``; the explorer's registered factor levels are design, not
    data."""
    if isinstance(x, StudySummary):
        return StudySummary.model_validate(_scaled(x.model_dump(mode="json"), k))
    if isinstance(x, float):
        return x * k
    if isinstance(x, dict):
        return {key: v if key == "levels" else _scaled(v, k) for key, v in x.items()}
    if isinstance(x, list):
        return [_scaled(v, k) for v in x]
    return x


DESIGN = sorted(
    {
        *LOW_COHERENCES,
        *HIGH_COHERENCES,
        *WAIVED_COHERENCES,
        0.5,
        0.7,
        0.1,
        0.3,
        0.05,
        *[100 * v for p in (-1.0, -3.0) for v in ideal_observer(p).values()],
        *[
            float(v)
            for song_old in W.LEVELS.values()
            for level in song_old
            for v in level.values()
            if isinstance(v, float)
        ],
        *[
            float(v)
            for levels in W.HELD.values()
            for level in levels
            for v in level.values()
            if isinstance(v, float)
        ],
    }
)
"""Numbers the design fixes, which the text may quote: the coherence levels, NeuroGym's payoffs and
chance (in 8.6's paragraph), the explorer's registered factor levels, the ideal observer of protocol
8.2 and the bet floor of 8.8.3 in its schedule label (in E4's)."""
BRANCHES = {
    "both": summaries(),
    "plain yes, B2 no": summaries(pdw=pdw_summary(b2=(False, True))),
    "plain no": summaries(pdw=pdw_summary(plain=(False, False), b2=(False, False))),
    "S1 only": summaries(pdw=pdw_summary(plain=(True, False))),
    "no deciding factor": summaries(pdw_sweep=sweep_summary(set(W.cell_names()))),
    "partial explorer": summaries(pdw_sweep=sweep_summary({"S"}, complete=False)),
    "first E4 only": summaries(e4=e4_summary(again=False)),
    "held follow-up": summaries(pdw_held=held_summary({"O~normalisation"})),
}


SCALE = 0.7
"""Every measured number is multiplied by this in the second check (0.9 left some two-decimal
values,
e.g. an ECE of 0.039, on the same rounded number)."""


def derived(found: dict) -> list[float]:
    """Numbers the text may derive from a summary: none (8.6's worth of the sure option, once the
    difference of two of its means, is a finding of its own)."""
    return []


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_every_number_of_the_answer_is_a_number_of_the_summaries(branch):
    found = BRANCHES[branch]
    text = ra.compose(found).markdown()
    pool = _pool(found, []) + derived(found) + DESIGN
    assert len(decimals(text)) > 20
    assert not [t for t in decimals(text) if not matches(t, pool)], text


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_every_number_of_the_answer_moves_with_the_summaries(branch):
    found = BRANCHES[branch]
    before = decimals(ra.compose(found).markdown())
    after = decimals(ra.compose(_scaled(found, SCALE)).markdown())
    assert len(after) == len(before)  # the same sentences, so the numbers pair up by position
    stuck = [
        (i, t)
        for i, (t, u) in enumerate(zip(before, after, strict=True))
        if t == u and not matches(t, DESIGN)
    ]
    assert not stuck, stuck


def test_the_number_checks_catch_a_typed_number():
    text = ra.compose(summaries()).markdown() + " A typed 0.4417."
    pool = _pool(summaries(), []) + derived(summaries()) + DESIGN
    assert [t for t in decimals(text) if not matches(t, pool)] == ["0.4417"]


# --------------------------------------------------------------------------- the README
def test_the_readme_block_is_the_answer_generated_from_the_bundled_studies():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = ra.readme_block(readme)
    assert block is not None, f"README.md lost its {ra.START} ... {ra.END} block"
    assert block == ra.answer_markdown(ROOT / "results").strip(), (
        "README.md's answer is not the one the bundled studies give: run "
        "`python -m labcore.experiments.reward_answer --readme`"
    )
    assert rp.ANCHOR in readme and "Song, Yang & Wang (2017" in block
    for command in (
        "study pdw ",
        "study pdw_sweep",
        "study pdw_held",
        "study e4",
    ):
        assert command in readme


@pytest.mark.skipif(
    not (ROOT / "results" / "pdw" / "summary.json").exists(),
    reason="results/pdw/summary.json is not bundled yet (the lead bundles it, then runs "
    "`python -m labcore.experiments.reward_answer --readme`)",
)
def test_the_readme_states_the_bundled_reproduction():
    found = ra.read_summaries(ROOT / "results")
    answer = ra.compose(found)
    assert next(p for p in answer.parts if p.key == "pdw").ran
    assert not answer.lead.startswith("**Not settled yet.**")
    assert answer.markdown() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_rewrite_replaces_only_the_block_and_check_reports(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(
        f"# T\n\nbefore\n\n{ra.START}\nold text\n{ra.END}\n\nafter\n", encoding="utf-8"
    )
    assert (
        ra.main(["--check", "--readme-path", str(readme), "--results", str(tmp_path / "none")]) == 1
    )
    assert (
        ra.main(["--readme", "--readme-path", str(readme), "--results", str(tmp_path / "none")])
        == 0
    )
    text = readme.read_text(encoding="utf-8")
    assert (
        text.startswith("# T\n\nbefore\n\n")
        and text.endswith("\n\nafter\n")
        and "old text" not in text
    )
    assert ra.readme_block(text) == ra.compose(dict.fromkeys(ra.STUDIES)).markdown()
    assert (
        ra.main(["--check", "--readme-path", str(readme), "--results", str(tmp_path / "none")]) == 0
    )
    with pytest.raises(ValueError, match="no <!-- reward-answer:start -->"):
        ra.rewrite_readme("no markers", "x")
