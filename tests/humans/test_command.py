"""``python -m labcore markers``: its columns, ``--out``, and exit status 2 with one line on stderr
for a file it cannot read."""

from __future__ import annotations

import csv
import io

import pytest

from labcore.cli import main
from labcore.humans import trials as T
from labcore.humans.example import synthetic_example
from labcore.humans.markers import MARKER_COLUMNS, subject_markers
from labcore.humans.trials import read_trials


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
    ("content", "args", "says"),
    [
        (None, [], "cannot read the file"),
        (b"stimulus,response,confidence\n0,0,0.9\n", [], "has 1 trials"),
        (b"x,y\n1,2\n", [], "column 'x' is not one of"),
        (synthetic_example(), ["--format", "lab"], "is not one of the lab format's"),
        (b"\x89PNG\r\n\x1a\n\xff\xfe", [], "not UTF-8"),
    ],
    ids=["missing-file", "too-few", "wrong-columns", "wrong-format", "binary"],
)
def test_a_file_it_cannot_read_is_exit_2_and_one_line(tmp_path, capsys, content, args, says):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_bytes(content)
    assert main(["markers", str(path), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        captured.err.count("\n") == 1
        and captured.err.startswith("error: ")
        and says in captured.err
    )


def test_a_large_file_is_refused_by_its_size_before_it_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(T, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.csv"
    path.write_bytes(synthetic_example())
    assert main(["markers", str(path)]) == 2
    assert "the lab reads at most 100" in capsys.readouterr().err
