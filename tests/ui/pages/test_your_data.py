"""The Your data page in AppTest: the lab's synthetic example (labelled so), an uploaded file's
markers as the reader computes them, and bad files refused in one sentence."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from labcore.humans.example import synthetic_example
from labcore.humans.markers import subject_markers
from labcore.humans.trials import ContractError, lab_csv, read_trials
from labcore.render import fmt
from tests.refusals import refused
from tests.ui.apptest_pages import exceptions, markdown_text
from ui import humans

PAGE = "your_data"


def table(at: AppTest):
    return next(d.value for d in at.dataframe if "M-ratio" in d.value.columns).set_index("subject")


def upload(at: AppTest, name: str, content: bytes) -> AppTest:
    return at.file_uploader(key=f"{PAGE}.upload").set_value((name, content, "text/csv")).run()


def test_without_a_file_the_page_asks_for_one(open_page):
    at = open_page(PAGE)
    assert not at.exception, exceptions(at)
    assert at.info and not at.dataframe  # a prompt, and nothing measured


def test_the_synthetic_example_is_measured_and_labelled_synthetic(open_page):
    at = open_page(PAGE)
    at.toggle(key=f"{PAGE}.example").set_value(True).run()
    assert not at.exception, exceptions(at)
    shown = table(at)
    expected = subject_markers(read_trials(synthetic_example()))
    assert list(shown.index) == [m.subject for m in expected]
    assert all("synthetic" in s for s in shown.index)
    assert any("synthetic" in w.value.lower() for w in at.warning)  # said to be made up
    for m in expected:
        assert shown.loc[m.subject, "Type-2 AUROC"] == fmt(m.type2_auroc)
        assert shown.loc[m.subject, "M-ratio"] == fmt(m.m_ratio)
    assert "synthetic" in " ".join(s.value for s in at.subheader).lower()
    assert "Rahnev" in markdown_text(at) and "10.1038/s41467-025-56117-0" in " ".join(
        c.value for c in at.caption
    )


def test_an_uploaded_file_gives_the_readers_numbers(open_page):
    rows = [(0, 0, 0.9), (1, 1, 0.9), (0, 1, 0.6), (1, 1, 0.7)] * 12
    content = lab_csv(*zip(*rows, strict=True), subject="p1")
    at = upload(open_page(PAGE), "mine.csv", content)
    assert not at.exception, exceptions(at)
    (m,) = subject_markers(read_trials(content))
    shown = table(at)
    assert shown.loc["p1", "Type-2 AUROC"] == fmt(m.type2_auroc)
    assert shown.loc["p1", "calibration error"] == fmt(m.calibration_error)
    assert "few_trials" in m.cautions and shown.loc["p1", "notes"] == "; ".join(m.notes)


@pytest.mark.parametrize(
    "content",
    [
        b"stimulus,response,confidence\n0,0,0.9\n",
        b"stimulus,response,confidence\n" + b"0,0,NaN\n1,1,0.5\n" * 30,
        b"a,b\n1,2\n",
        b"\xff\xfe\x00",
    ],
    ids=["too-few", "nan", "wrong-columns", "binary"],
)
def test_a_bad_file_is_one_sentence(open_page, content):
    at = upload(open_page(PAGE), "bad.csv", content)
    assert not at.exception, exceptions(at)
    errors = [e.value.replace("\\", "") for e in at.error]
    refusal = refused(ContractError, read_trials, content, "bad.csv")  # the contract's sentence
    assert errors == [str(refusal)] and errors[0].startswith("bad.csv")
    assert not at.dataframe


def test_a_broken_agent_checkpoint_is_one_error_and_the_other_agents_stay(open_page, lab):
    from tests.ui.pages.broken_checkpoints import assert_one_error_naming, flip_byte

    flip_byte(lab, "wagering-b2_ws-s0")
    at = open_page(PAGE)
    at.toggle(key=f"{PAGE}.example").set_value(True).run()
    assert_one_error_naming(at, "wagering-b2_ws-s0")
    assert table(at).shape[0] == 3  # the people are all there
    names = {t.name for chart in at.get("plotly_chart") for t in _traces(chart)}
    assert {label for _, _, label in humans.AGENTS} <= names  # every agent, by its label


def _traces(chart):
    import json
    from types import SimpleNamespace

    return [SimpleNamespace(**t) for t in json.loads(chart.proto.spec)["data"]]
