"""The Your data page in AppTest: the lab's synthetic example (labelled so), an uploaded file's
markers as the reader computes them, bad files refused in one sentence each (a file over the
lab's size limit included), and the Confidence Database's conventions: missed trials, conditions,
several files with their group lines, dual-task files, an Accuracy column."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from labcore.humans.example import synthetic_example
from labcore.humans.markers import subject_markers
from labcore.humans.trials import ContractError, lab_csv, read_trials
from labcore.render import fmt
from tests.refusals import refused
from tests.ui.apptest_pages import charts, exceptions, markdown_text
from ui import humans

PAGE = "your_data"


def table(at: AppTest):
    return next(d.value for d in at.dataframe if "M-ratio" in d.value.columns).set_index("subject")


def upload(at: AppTest, name: str, content: bytes) -> AppTest:
    return at.file_uploader(key=f"{PAGE}.upload").set_value((name, content, "text/csv")).run()


def upload_all(at: AppTest, files: dict[str, bytes]) -> AppTest:
    uploads = [(name, content, "text/csv") for name, content in files.items()]
    return at.file_uploader(key=f"{PAGE}.upload").set_value(uploads).run()


def errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def group_table(at: AppTest):
    return next(d.value for d in at.dataframe if "group" in d.value.columns)


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


# ----------------------------------------------------------------------------- the database's ways
def test_a_file_over_the_labs_limit_is_one_sentence_and_a_new_file_clears_it(open_page):
    """The uploader lets a file over the lab's limit through (Streamlit's own limit is larger, and
    the server's as large), so the lab says why in one sentence; the next file replaces it."""
    import tomllib

    from labcore.humans import trials as C
    from tests.ui.apptest_pages import ROOT

    at = open_page(PAGE)
    widget = at.file_uploader(key=f"{PAGE}.upload")
    limit_mb = widget.proto.max_upload_size_mb
    assert limit_mb * 2**20 > 2 * C.MAX_FILE_BYTES and widget.accept_multiple_files
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] >= limit_mb == humans.UPLOAD_LIMIT_MB
    big = b"Subj_idx,Stimulus,Response,Confidence\n" + b"1,1,1,1\n" * (C.MAX_FILE_BYTES // 8)
    at = upload(at, "big.csv", big)
    assert not at.exception, exceptions(at)
    refusal = refused(ContractError, C.check_size, len(big), "big.csv")
    assert refusal.kind == "too_large" and errors(at) == [str(refusal)] and not at.dataframe
    at = upload(at, "mine.csv", synthetic_example())
    assert not at.exception and not at.error and table(at).shape[0] == 3


def test_several_files_make_one_table_a_bad_one_is_named_and_each_has_its_group(open_page):
    from labcore.humans import datasets as D
    from tests.humans.test_datasets import GROUPED, PEOPLE, PLAIN

    missed = GROUPED.replace(b"\np2,", b"\np2,NaN,NaN,NaN,easy\np2,,1,3,easy\np2,", 1)
    bad = b"Subj_idx,Stimulus\n1,2\n"
    files = {"grouped.csv": missed, "bad.csv": bad, "plain.csv": PLAIN}
    at = upload_all(open_page(PAGE), files)
    assert not at.exception, exceptions(at)
    assert errors(at) == [str(refused(ContractError, read_trials, bad, "bad.csv"))]
    shown = next(d.value for d in at.dataframe if "M-ratio" in d.value.columns)
    keys = [(s, c) for s, c in PEOPLE] + [("q1", "")]
    assert list(zip(shown["subject"], shown["condition"], strict=True)) == keys
    assert list(shown["data set"]) == ["grouped.csv"] * 10 + ["plain.csv"]
    assert list(shown["missed"]) == [0, 0, 2] + [0] * 8  # both of p2 in easy, by hand
    measured = [D.measure(missed, "grouped.csv"), D.measure(PLAIN, "plain.csv")]
    lines = D.group_lines(measured, seed=humans.GROUP_SEED)
    groups = group_table(at)
    assert len(groups) == len(lines) == 3
    for (_, row), line in zip(groups.iterrows(), lines, strict=True):
        assert row["people"] == line.n_subjects
        assert row["M-ratio mean"] == D.interval_text(line.m_ratio, "mean")
        assert row["Type-2 AUROC median"] == D.interval_text(line.type2_auroc, "median")
    assert at.info  # the missed trials and the split by condition, said on the page
    ticks = [
        json.loads(chart.proto.spec)["layout"]["xaxis"]["ticktext"]
        for chart in charts(at)
        if "ticktext" in json.loads(chart.proto.spec)["layout"].get("xaxis", {})
    ]
    assert ticks == [["grouped.csv, easy", "grouped.csv, hard", "plain.csv"]]


def test_conditions_are_split_by_default_and_pooled_only_by_choice(open_page):
    from tests.humans.test_datasets import GROUPED

    at = upload(open_page(PAGE), "g.csv", GROUPED)
    assert list(table(at)["condition"]) == ["easy", "hard"] * 5
    assert list(group_table(at)["group"]) == ["easy", "hard"]
    at = at.selectbox(key=f"{PAGE}.by").set_value("pool").run()
    assert not at.exception, exceptions(at)
    pooled = table(at)
    assert "condition" not in pooled.columns and list(pooled.index) == [
        "p1",
        "p2",
        "p3",
        "p4",
        "p5",
    ]
    assert list(pooled["trials"]) == [300, 260, 120, 340, 240]


def test_a_dual_task_file_is_one_sentence_until_a_task_is_chosen(open_page):
    from tests.humans.test_conventions import dual

    at = upload(open_page(PAGE), "dual.csv", dual())
    refusal = refused(ContractError, read_trials, dual(), "dual.csv")
    assert refusal.kind == "dual_task" and errors(at) == [str(refusal)]
    choice = at.selectbox(key=f"{PAGE}.task")
    assert choice.value is None and len(choice.options) == 2  # no task until one is chosen
    at = at.selectbox(key=f"{PAGE}.task").set_value("2").run()
    assert not at.exception and not at.error
    (m,) = subject_markers(read_trials(dual(), task="2"))
    assert table(at).loc["s", "Type-2 AUROC"] == fmt(m.type2_auroc)


def test_an_accuracy_column_that_disagrees_is_a_warning_and_the_markers_are_stimulus_and_responses(
    open_page,
):
    from tests.humans.test_conventions import CLEAN, cdb

    rows = [(s, a, b, c, int(a == b)) for s, a, b, c in CLEAN]
    rows[4] = (*rows[4][:4], 1 - rows[4][4])
    at = upload(
        open_page(PAGE), "acc.csv", cdb(rows, "Subj_idx,Stimulus,Response,Confidence,Accuracy")
    )
    assert not at.exception and len(at.warning) == 1
    clean = subject_markers(read_trials(cdb(CLEAN)))
    assert list(table(at)["accuracy"]) == [fmt(m.accuracy, "percent") for m in clean]


def test_more_files_than_the_page_measures_are_named(open_page):
    files = {f"f{k}.csv": b"a,b\n1,2\n" for k in range(humans.MAX_FILES + 2)}
    at = upload_all(open_page(PAGE), files)
    assert not at.exception and len(at.error) == humans.MAX_FILES and len(at.warning) == 1
    assert f"f{humans.MAX_FILES + 1}.csv" in at.warning[0].value.replace("\\", "")
