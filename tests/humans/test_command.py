"""``python -m labcore markers``: its columns, ``--out``, and exit status 2 with one line on stderr
for a file it cannot read."""

from __future__ import annotations

import csv
import errno
import io
import os

import pytest

from labcore.cli import main
from labcore.humans import trials as T
from labcore.humans.example import synthetic_example
from labcore.humans.markers import MARKER_COLUMNS, subject_markers
from labcore.humans.trials import read_trials
from tests.refusals import refused


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "example.csv"
    path.write_bytes(synthetic_example())
    return path


def test_markers_prints_one_row_per_subject_and_writes_out(example, tmp_path, capsys):
    out = tmp_path / "rows" / "out.csv"
    assert main(["markers", str(example), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(printed)))
    assert tuple(rows[0]) == MARKER_COLUMNS
    expected = subject_markers(read_trials(example.read_bytes()))
    assert [r["subject"] for r in rows] == [m.subject for m in expected]
    for row, m in zip(rows, expected, strict=True):
        assert int(row["n_trials"]) == m.n_trials
        assert float(row["type2_auroc"]) == m.type2_auroc and float(row["m_ratio"]) == m.m_ratio
    assert out.read_text() == printed


def test_the_format_can_be_named(example, capsys):
    assert main(["markers", str(example), "--format", "confidence-database"]) == 0
    assert capsys.readouterr().out.startswith(",".join(MARKER_COLUMNS))


@pytest.mark.parametrize(
    ("content", "fmt"),
    [
        (None, None),
        (b"stimulus,response,confidence\n0,0,0.9\n", None),
        (b"x,y\n1,2\n", None),
        (synthetic_example(), "lab"),
        (b"\x89PNG\r\n\x1a\n\xff\xfe", None),
    ],
    ids=["missing-file", "too-few", "wrong-columns", "wrong-format", "binary"],
)
def test_a_file_it_cannot_read_is_exit_2_and_one_line(tmp_path, capsys, content, fmt):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_bytes(content)
    args = ["--format", fmt] if fmt else []
    assert main(["markers", str(path), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    if content is None:  # the operating system's reason, with the path
        assert str(path) in captured.err and os.strerror(errno.ENOENT) in captured.err
    else:  # the contract's own sentence for this file
        refusal = refused(T.ContractError, T.read_trials, content, path.name, fmt)
        assert captured.err == f"error: {refusal}\n"


def test_a_large_file_is_refused_by_its_size_before_it_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(T, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.csv"
    path.write_bytes(synthetic_example())
    assert main(["markers", str(path)]) == 2
    refusal = refused(T.ContractError, T.check_size, path.stat().st_size, path.name)
    assert refusal.kind == "too_large" and capsys.readouterr().err == f"error: {refusal}\n"


# ----------------------------------------------------------------------------- several files
def stderr_lines(captured, prefix: str) -> list[str]:
    return [line for line in captured.err.splitlines() if line.startswith(prefix)]


def test_a_folder_and_files_make_one_table_and_a_bad_file_is_named(tmp_path, capsys):
    """Two good files in a folder, a bad one beside them: its sentence on stderr, the others'
    rows in one table with their data set, exit status 2."""
    from tests.humans.test_datasets import GROUPED, PLAIN

    folder = tmp_path / "database"
    folder.mkdir()
    (folder / "b_grouped.csv").write_bytes(GROUPED)
    (folder / "a_plain.csv").write_bytes(PLAIN)
    (folder / "readme.txt").write_text("not a table")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"Subj_idx,Stimulus\n1,2\n")
    assert main(["markers", str(folder), str(bad)]) == 2
    captured = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert [r["dataset"] for r in rows] == ["a_plain.csv"] + ["b_grouped.csv"] * 10
    refusal = refused(T.ContractError, T.read_trials, bad.read_bytes(), "bad.csv")
    assert stderr_lines(captured, "error:") == [f"error: {refusal}"]
    groups = stderr_lines(captured, "group:")
    assert len(groups) == 3 and groups[0].split()[1].startswith("a_plain.csv")


def test_an_empty_folder_is_one_error(tmp_path, capsys):
    assert main(["markers", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and str(tmp_path) in captured.err


def test_missed_trials_are_a_column_and_a_note(tmp_path, capsys):
    path = tmp_path / "missed.csv"
    path.write_bytes(
        synthetic_example().replace(
            b"\nsynthetic-2,", b"\nsynthetic-2,NaN,NaN,NaN\nsynthetic-2,", 1
        )
    )
    assert main(["markers", str(path)]) == 0
    captured = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert [int(r["n_missed"]) for r in rows] == [0, 1, 0]
    assert len(stderr_lines(captured, "note: missed.csv")) == 1


def test_conditions_are_split_by_default_or_by_choice_or_pooled(tmp_path, capsys):
    from tests.humans.test_datasets import GROUPED, PEOPLE

    path = tmp_path / "g.csv"
    path.write_bytes(GROUPED)
    assert main(["markers", str(path)]) == 0
    captured = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert [(r["subject"], r["condition"]) for r in rows] == list(PEOPLE)
    assert len(stderr_lines(captured, "note: g.csv")) == 1  # split by its Condition column
    assert len(stderr_lines(captured, "group: g.csv")) == 2  # a group line per condition
    assert main(["markers", str(path), "--pool"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["subject"] for r in rows] == ["p1", "p2", "p3", "p4", "p5"]
    assert {r["condition"] for r in rows} == {""}
    with pytest.raises(SystemExit):  # a split and a pooling at once: argparse refuses
        main(["markers", str(path), "--pool", "--by", "Condition"])
    capsys.readouterr()
    assert main(["markers", str(path), "--by", "Block"]) == 2
    refusal = refused(T.ContractError, T.read_trials, GROUPED, "g.csv", by="Block")
    assert capsys.readouterr().err == f"error: {refusal}\n"


def test_a_dual_task_file_is_refused_then_read_with_its_task(tmp_path, capsys):
    from tests.humans.test_conventions import dual

    path = tmp_path / "dual.csv"
    path.write_bytes(dual())
    assert main(["markers", str(path)]) == 2
    refusal = refused(T.ContractError, T.read_trials, dual(), "dual.csv")
    assert refusal.kind == "dual_task" and capsys.readouterr().err == f"error: {refusal}\n"
    assert main(["markers", str(path), "--task", "2"]) == 0
    (row,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    (expected,) = subject_markers(read_trials(dual(), task="2"))
    assert float(row["type2_auroc"]) == expected.type2_auroc


def test_the_group_table_is_seeded_and_guarded(tmp_path, capsys):
    from labcore.humans import datasets as D
    from tests.humans.test_datasets import GROUPED

    path = tmp_path / "g.csv"
    path.write_bytes(GROUPED)
    tables = []
    for seed, least in ((1, 100), (1, 100), (2, 100), (1, 40)):
        out = tmp_path / f"groups-{seed}-{least}.csv"
        args = ["markers", str(path), "--groups", str(out), "--seed", str(seed)]
        assert main([*args, "--min-trials", str(least)]) == 0
        tables.append(out.read_text())
    capsys.readouterr()
    expected = D.groups_csv(D.group_lines([D.measure(GROUPED, "g.csv")], seed=1))
    assert tables[0] == tables[1] == expected != tables[2]
    rows = list(csv.DictReader(io.StringIO(tables[3])))
    assert [int(r["n_few_trials"]) for r in rows] == [0, 0]  # p3's 60 trials counted at 40
    with pytest.raises(SystemExit):
        main(["markers", str(path), "--min-trials", "0"])
