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
