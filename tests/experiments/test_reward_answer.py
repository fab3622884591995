"""The lab's answer to "does metacognition emerge from reward alone?", composed by
``labcore/templates/reward.j2`` from five studies' summaries.

Each registered branch of protocol 8.7's rewrite rules, on the bundled summaries with one study's
findings moved: its outcome, the three forms within their word limits, every finding the answer
cites stated in the long form as the renderer formats it, no number typed into the text (every
decimal is a number of the summaries or of the design, and moves when they move), and missing or
partial studies. The README's block is checked by ``tests/test_readme.py``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from labcore import render
from labcore.experiments import pdw_sweep as W
from labcore.experiments import reward_answer as ra
from labcore.experiments.e4_hypotheses import answer_context
from labcore.experiments.pdw import registered_outcome, signature_outcome
from labcore.findings import Answer, Interval, StudySummary, load_summary, write_summary
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES, WAIVED_COHERENCES
from tests.test_findings import decimals as finding_decimals
from tests.test_findings import matches

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ra.read_summaries(ROOT / "results")
PROTOCOL = re.compile(r"(?:protocol|sec\.)(?:,?\s*\d+(?:\.\d+)+(?:-\d+(?:\.\d+)+)?)+|\b8\.\d's")


def decimals(text: str) -> list[str]:
    """The decimal numbers of a text, protocol section numbers ("protocol 8.8", "8.6's") left
    out."""
    return finding_decimals(PROTOCOL.sub("", text))


def words(text: str) -> int:
    return render.words(text)


# --------------------------------------------------------------------------- moved summaries
def pdw_with(plain: tuple, b2: tuple = ("above", "above")) -> StudySummary:
    """The bundled reproduction with each agent's S1 and S2 moved: "above" (as bundled, the
    interval above 0), "across" (the interval reaches below 0) or "none" (no interval)."""
    pdw = BUNDLED["pdw"]
    findings = []
    for f in pdw.findings:
        agent, _, key = f.id.removeprefix("pdw.").partition(".reward.")
        where = {"plain_gru": plain, "b2_ws": b2}.get(agent)
        if where and key in ("s1_contrast", "s2_waived_advantage"):
            how = where[0 if key == "s1_contrast" else 1]
            if how == "across":
                f = f.model_copy(update={"interval": Interval(low=-0.01, high=f.interval.high)})
            elif how == "none":
                f = f.model_copy(update={"interval": None})
        findings.append(f)
    moved = pdw.model_copy(update={"findings": findings})
    said = {a: signature_outcome(moved, f"{a}.reward") for a in ("plain_gru", "b2_ws")}
    params = dict(pdw.answer.params, signatures=said)
    answer = Answer(
        outcome=registered_outcome(said["plain_gru"], said["b2_ws"]),
        findings=pdw.answer.findings,
        params=params,
    )
    return moved.model_copy(update={"answer": answer})


def sweep_with(keeping: set[str], complete: bool = True) -> StudySummary:
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


def held_with(losing: set[str], all_keeps: bool = False, complete: bool = True) -> StudySummary:
    """The explorer's post hoc follow-up: cells in ``losing`` lose the option, others keep it."""
    names = W.cell_names("held")
    lose = set(losing) | ({"O~all"} if not all_keeps else set())
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
    return W.summarise(W.SweepConfig(design="held"), {W.ROWS.name: rows})


def e4_with(**outcomes: str) -> StudySummary:
    """The bundled E4 set with hypotheses' outcomes moved (``R1="not supported"``, ...)."""
    e4 = BUNDLED["e4"]
    findings = [
        f.model_copy(update={"outcome": outcomes.get(f.hypothesis, f.outcome)})
        if f.id.startswith("e4.hypothesis.")
        else f
        for f in e4.findings
    ]
    tables = dict(e4.tables)
    tables["hypotheses"] = [
        dict(h, outcome=outcomes.get(h["id"], h["outcome"])) for h in e4.tables["hypotheses"]
    ]
    return e4.model_copy(update={"findings": findings, "tables": tables})


AGAIN = ("reward_late",)


def e4_first_only() -> StudySummary:
    """The bundled E4 set as made before "E4 again": no new cells, no R hypotheses."""
    e4 = BUNDLED["e4"]
    findings = [
        f
        for f in e4.findings
        if not any(f".{a}" in f.id for a in AGAIN) and not (f.hypothesis or "").startswith("R")
    ]
    tables = dict(e4.tables)
    tables["hypotheses"] = [h for h in e4.tables["hypotheses"] if h["id"].startswith("H")]
    answer = Answer(
        outcome=e4.answer.params["outcomes"]["H1"],
        findings=tuple(f for f in e4.answer.findings if ".H" in f),
        params={"primary": "H1"},
    )
    return e4.model_copy(update={"findings": findings, "tables": tables, "answer": answer})


def summaries(**over) -> dict[str, StudySummary | None]:
    return {**BUNDLED, **over}


BRANCHES = {
    "both": (summaries(), "both"),
    "plain yes, B2 no": (
        summaries(pdw=pdw_with(("above", "above"), ("across", "across"))),
        "plain_only",
    ),
    "plain no": (
        summaries(pdw=pdw_with(("across", "across"), ("across", "across"))),
        "not_reproduced",
    ),
    "S1 only": (summaries(pdw=pdw_with(("above", "across"))), "partly"),
    "undecided": (summaries(pdw=pdw_with(("none", "above"))), "undecided"),
    "not run": (summaries(pdw=None), "missing"),
    "a deciding factor": (
        summaries(
            pdw_sweep=sweep_with(
                {"S", *[f"S-{f}" for f in W.FACTORS if f != "readout_init"], "O+readout_init"}
            )
        ),
        "both",
    ),
    "partial explorer": (summaries(pdw_sweep=sweep_with({"S"}, complete=False)), "both"),
    "held keeps everywhere": (summaries(pdw_held=held_with(set(), all_keeps=True)), "both"),
    "partial follow-up": (summaries(pdw_held=held_with(set(), complete=False)), "both"),
    "E4 again fails": (summaries(e4=e4_with(R1="not supported", R2="not supported")), "both"),
    "first E4 only": (summaries(e4=e4_first_only()), "both"),
    "nothing run": ({k: None for k in ra.STUDIES}, "missing"),
}
"""Branch -> (the summaries, the reproduction's registered outcome)."""


# --------------------------------------------------------------------------- outcomes and forms
@pytest.mark.parametrize("branch", list(BRANCHES))
def test_each_branch_has_its_outcome_and_fits_its_word_limits(branch):
    found, outcome = BRANCHES[branch]
    pdw = found["pdw"]
    assert (pdw.answer.outcome if pdw is not None else "missing") == outcome
    for form, limit in render.WORD_LIMITS.items():
        assert words(ra.answer(found, form)) <= limit, (branch, form, ra.answer(found, form))
    assert ra.answer(found, "long")  # every finding it names exists (StrictUndefined)
    cited = ra.cited(found)
    assert all(f.question for f in cited) and len({f.id for f in cited}) == len(cited)


def test_the_outcomes_the_branches_rest_on():
    assert BRANCHES["a deciding factor"][0]["pdw_sweep"].answer.params["deciding"] == [
        "readout_init"
    ]
    assert BRANCHES["partial explorer"][0]["pdw_sweep"].answer.outcome == "incomplete"
    assert BRANCHES["held keeps everywhere"][0]["pdw_held"].answer.outcome == "none_loses"
    assert BRANCHES["partial follow-up"][0]["pdw_held"].answer.outcome == "incomplete"
    failed = BRANCHES["E4 again fails"][0]["e4"]
    assert failed.by_id["e4.hypothesis.R1"].outcome == "not supported"
    assert BRANCHES["first E4 only"][0]["e4"].answer.params["primary"] == "H1"
    assert not any(
        h["id"].startswith("R") for h in BRANCHES["first E4 only"][0]["e4"].tables["hypotheses"]
    )


LEADS = {
    "both": (
        "**Yes under Song et al.'s training; protocol 8.6's no was a property of our training.**"
    ),
    "plain yes, B2 no": (
        "**Reward teaches it to a plain GRU; our architecture does not learn it under the same "
        "training.**"
    ),
    "plain no": "**Not reproduced here.**",
    "S1 only": "**Partly: under Song et al.'s training the plain GRU shows S1 but not S2.**",
    "undecided": "**Not decided by this set.**",
    "not run": "**Not settled yet.**",
}
"""The long form's lead in each branch: the registered wording of protocol 8.7's rewrite rules (a
sentence that is itself the contract)."""


@pytest.mark.parametrize("branch", list(LEADS))
def test_the_long_form_leads_with_protocol_8_7s_registered_words(branch):
    assert ra.answer(BRANCHES[branch][0], "long").startswith(LEADS[branch])


def test_the_short_answer_cites_both_networks_as_the_renderer_formats_them():
    found = BRANCHES["both"][0]
    short = ra.answer(found, "short")
    for agent in ("plain_gru", "b2_ws"):
        value = found["pdw"].value(f"pdw.{agent}.reward.s1_contrast")
        assert render.fmt(value, "difference", sign=True) in short
    assert words(short) <= 30 and "pdw" not in short and "8." not in short  # no ids, no sections


def stated(f) -> set[str]:
    """How a finding's value may be written: as the renderer formats it in its unit, signed, as a
    percentage."""
    v = f.value
    return {render.fmt(v, f.unit), render.fmt(v, "difference", sign=True), render.pct(v)}


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_every_cited_finding_is_stated_in_the_long_form(branch):
    found = BRANCHES[branch][0]
    long = ra.answer(found, "long")
    missing = [f.id for f in ra.cited(found) if not any(t in long for t in stated(f))]
    assert not missing, missing


def test_the_cited_findings_keep_everything_but_their_question():
    found = BRANCHES["both"][0]
    by_id = {f.id: f for s in found.values() for f in s.findings}
    cited = ra.cited(found)
    assert len(cited) >= 10
    for f in cited:
        original = by_id[f.id]
        assert f.question != original.question
        assert f.model_copy(update={"question": original.question}) == original


# --------------------------------------------------------------------------- no number typed in
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
    """Every measured float times ``k``; the explorer's registered factor levels are design."""
    if isinstance(x, StudySummary):
        return StudySummary.model_validate(_scaled(x.model_dump(mode="json"), k))
    if isinstance(x, float):
        return x * k
    if isinstance(x, dict):
        return {key: v if key in ("levels", "config") else _scaled(v, k) for key, v in x.items()}
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
        *_pool(answer_context(), []),
        *[
            float(v)
            for song_old in W.LEVELS.values()
            for level in song_old
            for v in level.values()
            if isinstance(v, float)
        ],
    }
)
"""Numbers the design fixes, which the text may quote: the coherence levels, NeuroGym's payoffs
and chance (in 8.6's paragraph), the explorer's factor levels, the ideal observer of protocol 8.2
and the bet floor of 8.8.3 (E4's words), the explorer's rule (0.1)."""
SCALE = 0.7


@pytest.mark.parametrize("branch", ["both", "plain no", "a deciding factor", "first E4 only"])
def test_every_number_of_the_answer_is_a_number_of_the_summaries(branch):
    found = BRANCHES[branch][0]
    text = ra.answer(found, "long") + ra.answer(found, "readme")
    pool = _pool(list(found.values()), []) + DESIGN
    assert len(decimals(text)) > 20
    assert not [t for t in decimals(text) if not matches(t, pool)]


@pytest.mark.parametrize("branch", ["both", "first E4 only"])
def test_every_number_of_the_answer_moves_with_the_summaries(branch):
    found = BRANCHES[branch][0]
    scaled = {k: None if v is None else _scaled(v, SCALE) for k, v in found.items()}
    before = decimals(ra.answer(found, "readme"))
    after = decimals(ra.answer(scaled, "readme"))
    assert len(after) == len(before) >= 3  # the signatures' values are the table's, under it
    stuck = [t for t, u in zip(before, after, strict=True) if t == u and not matches(t, DESIGN)]
    assert not stuck, stuck


def test_the_number_check_catches_a_typed_number():
    found = BRANCHES["both"][0]
    text = ra.answer(found, "long") + " A typed 0.4417."
    pool = _pool(list(found.values()), []) + DESIGN
    assert [t for t in decimals(text) if not matches(t, pool)] == ["0.4417"]


# --------------------------------------------------------------------------- missing studies
def test_a_study_not_run_names_the_command_that_writes_it():
    long = ra.answer(BRANCHES["nothing run"][0], "long")
    for name in ra.STUDIES:
        assert f"python -m labcore study {name}" in long, name
    assert not decimals(PROTOCOL.sub("", long).replace("1.9 hours", ""))  # no number invented


def test_a_summary_of_another_study_is_not_read_as_this_one(tmp_path):
    for key, folder in ra.STUDIES.items():
        write_summary(
            tmp_path / folder, StudySummary(study="pdw_sweep" if key != "pdw_sweep" else "pdw")
        )
    assert ra.read_summaries(tmp_path) == dict.fromkeys(ra.STUDIES)


def test_a_not_meaningful_auroc_says_so_in_its_flags_words():
    e4 = BUNDLED["e4"]
    flagged = [f for f in e4.findings if f.flag("not_meaningful") and f.id.endswith(".self_on")]
    long = ra.answer(summaries(), "long")
    assert flagged and all(render.flag_text(f.flag("not_meaningful")) in long for f in flagged)


def test_the_bundled_studies_are_all_read():
    assert all(isinstance(s, StudySummary) for s in BUNDLED.values())
    assert {k: s.study for k, s in BUNDLED.items()} == {k: k for k in ra.STUDIES}
    assert load_summary(ROOT / "results" / "pdw", study="pdw").ok
