"""The lesson: every step opens a valid view, the handout is self-contained, the answers follow
the data."""

from __future__ import annotations

import ast
import copy
import html
import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from labcore.classroom.lesson import (
    CHOICE_LETTERS,
    LESSON,
    expected_answer,
    handout_html,
    parse_step,
    step_link,
)
from labcore.config import PAGE_URLS
from labcore.experiments.paper_results import load_results
from labcore.findings import load_summary
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import verdict_text
from labcore.storage.checkpoints import BUNDLED_DIR, read_manifest
from ui.data import seeds_by_kind
from ui.state import FLAGS, MAX_SLOTS, LabState, parse_flag, parse_params

ROOT = Path(__file__).resolve().parents[1]
BASE = "http://lab.example:8501"
PAGE_AGENTS = {  # the tasks and the kinds each page leaves out, as in app_pages/<page>.py
    "metacognition": (("wagering", "post_decision"), ()),
    "workspace": (("dual",), ("a0", "a1", "hot_only")),
    "robustness": (("dual",), ()),
}


@pytest.fixture(scope="module")
def bundled():
    return load_results(ROOT / "results" / "bundled")


@pytest.fixture(scope="module")
def measured():
    return load_summary(ROOT / "results" / "dissociations", study="dissociations").summary


def page_keys(page: str) -> tuple[str, ...]:
    """The controls a page binds to its URL (its module-level ``KEYS``), read from its source."""
    module = ast.parse((ROOT / "app_pages" / f"{page}.py").read_text())
    constants: dict[str, tuple[str, ...]] = {}  # module-level tuples, so KEYS may unpack others
    for node in module.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)):
            continue
        value: list[str] = []
        if not all(
            isinstance(e, ast.Constant | ast.Starred) for e in node.value.elts
        ):  # not a tuple of names
            continue
        for element in node.value.elts:
            if isinstance(element, ast.Starred):
                part = element.value  # NAME or NAME[start:]
                if isinstance(part, ast.Subscript):
                    start = part.slice.lower
                    value.extend(
                        constants[part.value.id][ast.literal_eval(start) if start else 0 :]
                    )
                else:
                    value.extend(constants[part.id])
            else:
                value.append(element.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                constants[target.id] = tuple(value)
    return constants.get("KEYS", ())


def app_url_paths() -> set[str]:
    """The URL paths app.py registers its pages with (labcore.config.PAGE_URLS)."""
    return set(PAGE_URLS.values())


def parse_link(link: str, page: str) -> tuple[LabState, list[str]]:
    tasks, left_out = PAGE_AGENTS[page]
    entries = read_manifest(BUNDLED_DIR)["checkpoints"]
    seeds = {
        k: v for task in tasks for k, v in seeds_by_kind(task, entries).items() if k not in left_out
    }
    raw = {k: v[-1] for k, v in parse_qs(urlsplit(link).query).items()}
    return parse_params(raw, agents=list(seeds), seeds=seeds)


@pytest.mark.parametrize("step", LESSON, ids=lambda s: s.title)
def test_every_step_opens_a_page_of_the_app_with_valid_controls(step):
    link = step_link(step, BASE)
    assert urlsplit(link).path == f"/{step.page}"
    assert step.page in app_url_paths()
    if step.page in PAGE_AGENTS:
        controls = {k: v for k, v in step.params.items() if k not in FLAGS}
        assert set(controls) <= set(page_keys(step.page)), (
            "every parameter is a control of its page or a switch any page reads"
        )
        state, notices = parse_link(link, step.page)
        assert notices == []
        assert state.to_params(list(controls)) == controls  # the page shows exactly the step's view
        assert all(parse_flag(k, v) == (True, None) for k, v in step.params.items() if k in FLAGS)
    else:
        assert step.params == {}, "pages without URL controls get no parameters"
    assert 2 <= len(step.choices) <= 8 and 0 <= step.paper_answer < len(step.choices)
    assert all(c in CLAIMS_BY_ID for c in step.claims)
    assert (step.rule is None) == (not step.claims and not step.measured), (
        "an answer checked against data names its claims or its measured findings"
    )


def test_a_step_that_asks_about_a_lesion_opens_with_predict_first_on():
    """The step "Predict: zero the self-model" opens with Predict first on, so AUROC 0.50 does not
    show before anyone has predicted it."""
    lesion = [
        s
        for s in LESSON
        if s.params.get("self_model_mode", "on") != "on"
        or float(s.params.get("silenced", 0)) > 0
        or int(s.params.get("capacity", MAX_SLOTS)) < MAX_SLOTS
        or float(s.params.get("noise", 0)) > 0
    ]
    assert [s.page for s in lesion] == [
        "metacognition",
        "metacognition",
        "workspace",
        "workspace",
        "workspace",
        "robustness",
    ]
    assert all(s.params.get("predict") == "1" for s in lesion)
    assert not any("predict" in s.params for s in LESSON if s not in lesion)


def test_the_link_check_can_fail():
    bad = replace(LESSON[2], params={**LESSON[2].params, "capacity": "9", "self_model_mode": "off"})
    _, notices = parse_link(step_link(bad), "metacognition")
    assert len(notices) == 2


def test_the_lesson_covers_the_three_dissociations():
    pages = [s.page for s in LESSON]
    assert pages[0] == "" and pages[-1] == "replication"
    assert {"metacognition", "workspace", "robustness"} <= set(pages)
    zeroed = next(s for s in LESSON if s.params.get("self_model_mode") == "zero")
    intact = next(s for s in LESSON if s.params.get("self_model_mode") == "on")
    assert LESSON.index(intact) < LESSON.index(zeroed), "the intact agent comes before its lesion"
    assert {s.params.get("capacity") for s in LESSON if s.page == "workspace"} == {"0", "2"}
    measured = [s.params["agent"] for s in LESSON if s.measured and s.params]
    assert measured == ["b2_routes", "b1_gate"], "each measured variant has its step"


def urls(text: str) -> list[str]:
    return re.findall(r"https?://[^\s\"'<>]+", html.unescape(text))


def test_handout_is_self_contained_and_has_every_question(bundled):
    page = handout_html(LESSON, BASE, bundled)
    links = {step_link(s, BASE) for s in LESSON}
    assert set(urls(page)) == links, "no web address but the step links, and every step link"
    for forbidden in ("<script", "<link", "<img", "<iframe", "src=", "@import", "url("):
        assert forbidden not in page.lower()
    for step in LESSON:
        assert html.escape(step.question) in page
        assert all(html.escape(c) in page for c in step.choices)
    assert "@page" in page and "@media print" in page


def test_relative_handout_links_stay_relative(bundled):
    page = handout_html(LESSON, "", bundled, with_key=True)
    assert urls(page) == []
    assert f'href="{html.escape(step_link(LESSON[3]))}"' in page


def test_teacher_key_only_with_key(bundled, measured):
    student = handout_html(LESSON, BASE, bundled, with_key=False, measured=measured)
    teacher = handout_html(LESSON, BASE, bundled, with_key=True, measured=measured)
    key = '<section class="key">'
    assert key in teacher and key not in student
    assert "page-break-before" in teacher  # the key starts a page of its own
    for step in LESSON:
        answer = expected_answer(step, bundled, measured)
        assert html.escape(answer.text) in teacher
        assert html.escape(answer.text) not in student
        assert html.escape(step.why) not in student
    assert "bundled" in teacher  # names the result set its answers come from


@pytest.mark.parametrize(
    "step", [s for s in LESSON if s.claims and not s.measured], ids=lambda s: s.title
)
def test_answers_agree_with_the_bundled_verdicts(step, bundled):
    verdicts = {c: bundled.finding(c).verdict for c in step.claims}
    answer = expected_answer(step, bundled)
    assert answer.choice is not None
    failed = any(v == "not reproduced" for v in verdicts.values())
    assert answer.agrees is (not failed), verdicts
    if answer.agrees:
        assert step.choices[step.paper_answer] in answer.text and "Paper:" not in answer.text
    else:
        assert answer.text.startswith("Paper: ") and "; here: " in answer.text
        assert (
            step.choices[step.paper_answer] in answer.text
            and step.choices[answer.choice] in answer.text
        )
    for cid in step.claims:  # each claim's verdict and why, as the result set's finding says
        f = bundled.finding(cid)
        assert any(f.verdict in line and verdict_text(f) in line for line in answer.evidence)


def with_values(results, **values):
    """A copy of a result set with some values (and their claims' verdicts) replaced."""
    changed = copy.copy(results)
    tables_values = dict(results.tables.values)
    findings = list(results.summary.findings)
    for key, (value, verdict) in values.items():
        key = key.replace("__", ".")
        tables_values[key] = value
        findings = [
            f.model_copy(update={"verdict": verdict}) if f.id == key else f for f in findings
        ]
    changed.summary = results.summary.model_copy(update={"findings": findings})
    changed.tables = results.tables.model_copy(update={"values": tables_values})
    return changed


def with_verdicts(summary, e1=None, e2=None, knowing=None):
    """A copy of the measured summary with some of its registered verdicts replaced."""
    tables = copy.deepcopy(summary.tables)
    if e1 is not None:
        tables["e1"]["verdicts"]["dissociation"] = e1
    if knowing is not None:
        tables["e1"]["verdicts"]["knowing"] = knowing
    if e2 is not None:
        tables["e2"]["verdicts"]["dissociation"]["b1_gate"] = e2
    return summary.model_copy(update={"tables": tables})


def with_dissociation(results, e3):
    changed = copy.copy(results)
    answer = results.summary.answer
    params = {**answer.params, "dissociations": {**answer.params["dissociations"], "e3": e3}}
    changed.summary = results.summary.model_copy(
        update={"answer": answer.model_copy(update={"params": params})}
    )
    return changed


def test_the_answer_follows_the_data_not_the_text(bundled, measured):
    noise = next(s for s in LESSON if s.page == "robustness")
    wrap_up = LESSON[-1]
    routes = next(s for s in LESSON if s.params.get("agent") == "b2_routes")
    fragile = with_values(
        bundled, e3__l75__b1=(0.04, "reproduced"), e3__l75__b2=(0.6, "reproduced")
    )
    assert expected_answer(noise, fragile).agrees is True
    robust_b1 = with_values(
        bundled, e3__l75__b1=(0.6, "not reproduced"), e3__l75__b2=(0.04, "not reproduced")
    )
    assert expected_answer(noise, robust_b1).choice == 1  # "B2 ... by far"
    # the wrap-up counts the dissociations that hold as evidence: E1 and E2 measured, E3 the paper's
    all_three = with_verdicts(measured, e1="evidence", e2="evidence")
    held = with_dissociation(bundled, "evidence")
    assert expected_answer(wrap_up, held, all_three).choice == 3
    assert expected_answer(wrap_up, with_dissociation(bundled, "fails"), all_three).choice == 2
    none = with_verdicts(measured, e1="fails", e2="design")
    assert expected_answer(wrap_up, with_dissociation(bundled, "fails"), none).choice == 0
    # the measured step reads the registered verdicts
    for knowing, choice in (("abolished", 0), ("reduced", 1), ("kept", 2)):
        changed = with_verdicts(measured, knowing=knowing)
        assert expected_answer(routes, bundled, changed).choice == choice


def test_measured_steps_answer_from_the_measured_result_set(bundled, measured):
    for step in (s for s in LESSON if s.measured):
        answer = expected_answer(step, bundled, measured)
        assert answer.choice is not None
        assert len(answer.evidence) >= len(step.measured)
        without = expected_answer(step, bundled, None)
        assert without.choice is None  # not invented without the measured set


def test_without_results_the_answer_is_not_invented():
    page = handout_html(LESSON, BASE, None, with_key=True)
    for step in LESSON:
        answer = expected_answer(step, None)
        if step.rule is None:
            assert answer.agrees is True
        else:
            assert answer.choice is None and answer.agrees is None
            assert CHOICE_LETTERS[step.paper_answer] in answer.text  # the paper's answer, only
        assert html.escape(answer.text) in page  # the key says so


@pytest.mark.parametrize(
    ("raw", "expected", "noticed"),
    [
        (None, 1, False),
        ("4", 4, False),
        (["2", "5"], 5, False),
        ("99", len(LESSON), True),
        ("-3", 1, True),
        ("2.6", 3, True),
        ("seven", 1, True),
        ("nan", 1, True),
        ("", 1, False),
    ],
)
def test_parse_step(raw, expected, noticed):
    step, notice = parse_step(raw, len(LESSON))
    assert step == expected and (notice is not None) == noticed
