"""A trial table's file and header: the two formats' columns and the checks made before any cell.

**The Confidence Database's** (Rahnev et al. 2020): ``Subj_idx``, ``Stimulus``, ``Response``
(the same two codes), ``Confidence`` (the dataset's own scale), optional ``Condition`` and
``Accuracy`` (checked, never used instead); other columns (times, difficulty) are ignored, so a
subject's difficulty levels are pooled. A dual task's suffixed columns (``Response_1``) are read
one task at a time. **The lab's** (written by "Be the agent"): ``stimulus`` and ``response`` 0/1,
``confidence`` a probability in [0, 1], optional ``subject``, ``difficulty``, ``condition``; no
other column. Each problem is one :class:`~labcore.scorecards.contract.ContractError` sentence.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Literal

from labcore.scorecards.contract import ContractError

Format = Literal["confidence-database", "lab"]
FORMATS: tuple[str, ...] = Format.__args__
"""The trial-table formats, as the command line's ``--format`` names them."""
MAX_FILE_BYTES = 5 * 2**20
"""Largest trial table read (5 MiB: about 100,000 Confidence Database trials)."""
MAX_ROWS = 200_000
CONDITION = "condition"
"""The column (case ignored) a file's units are formed by unless the caller chooses."""

CDB_COLUMNS: dict[str, str] = {
    "subject": "Subj_idx",
    "stimulus": "Stimulus",
    "response": "Response",
    "confidence": "Confidence",
}
CDB_ACCURACY = "Accuracy"
LAB_REQUIRED = ("stimulus", "response", "confidence")
LAB_OPTIONAL = ("subject", "difficulty", "condition")
LAB_COLUMNS: tuple[str, ...] = (*LAB_OPTIONAL[:1], *LAB_REQUIRED, *LAB_OPTIONAL[1:])
"""The lab format's columns in the order it writes them."""


def refuse(name: str, message: str, kind: str, field: str = "") -> ContractError:
    """A refusal of the file ``name``: one sentence, its kind and the column concerned."""
    return ContractError(f"{name}: {message}", field, kind)


def detect_format(header: Sequence[str]) -> Format:
    """The format a header belongs to: the Confidence Database's if it names ``Subj_idx``.

    >>> detect_format(["Subj_idx", "Stimulus"]), detect_format(["stimulus", "response"])
    ('confidence-database', 'lab')
    """
    return "confidence-database" if CDB_COLUMNS["subject"] in header else "lab"


def _suffixed(column: str, header: Sequence[str]) -> dict[str, str]:
    """A dual-task file's versions of ``column``: ``{suffix: name}``."""
    out = {}
    for h in header:
        m = re.fullmatch(rf"{re.escape(column)}(?:_(\w+)|(\d+))", h)
        if m:
            out[m.group(1) or m.group(2)] = h
    return out


def task_suffixes(header: Sequence[str]) -> tuple[str, ...]:
    """The task suffixes of a dual-task Confidence Database header, in order.

    >>> task_suffixes(["Subj_idx", "Stimulus", "Response_1", "Confidence_1", "Response_2"])
    ('1', '2')
    """
    found = [s for c in list(CDB_COLUMNS.values())[1:] for s in _suffixed(c, header)]
    return tuple(dict.fromkeys(found))


def _cdb_columns(header: list[str], name: str, task: str | None) -> dict[str, str]:
    """The Confidence Database's columns of a header, by the contract's field names."""
    wanted: dict[str, str] = {}
    suffixes = task_suffixes(header)
    if task is not None and suffixes and task not in suffixes:
        raise refuse(
            name,
            f"no Stimulus, Response or Confidence column has the task suffix {task!r}"
            + (f"; the file's tasks: {', '.join(suffixes)}" if suffixes else ""),
            "unknown_task",
        )
    for key, column in (*CDB_COLUMNS.items(), ("accuracy", CDB_ACCURACY)):
        versions = _suffixed(column, header) if key != "subject" else {}
        if task is not None and task in versions:
            wanted[key] = versions[task]
        elif column in header:
            wanted[key] = column
        elif key == "accuracy":
            continue
        elif versions:
            shown = [h for c in CDB_COLUMNS.values() for h in _suffixed(c, header).values()]
            raise refuse(
                name,
                f"the file holds a dual task's columns ({', '.join(shown)}) and no {column} "
                f"column: measure one task at a time (--task {' or --task '.join(suffixes)}; "
                "on the page, the Task choice)",
                "dual_task",
                column,
            )
        else:
            hint = " (is it the lab format?)" if detect_format(header) == "lab" else ""
            raise refuse(
                name,
                f"column {column} is missing; the confidence-database format needs "
                f"{', '.join(CDB_COLUMNS.values())}{hint}",
                "missing_column",
                column,
            )
    return wanted


def _lab_columns(header: list[str], name: str) -> dict[str, str]:
    hint = (
        " (is it the confidence-database format?)"
        if detect_format(header) == "confidence-database"
        else ""
    )
    unknown = [h for h in header if h not in LAB_COLUMNS]
    if unknown:
        raise refuse(
            name,
            f"column {unknown[0]!r} is not one of the lab format's ({', '.join(LAB_COLUMNS)})"
            f"{hint}",
            "unknown_column",
            unknown[0],
        )
    missing = [c for c in LAB_REQUIRED if c not in header]
    if missing:
        raise refuse(
            name,
            f"column {missing[0]} is missing; the lab format needs {', '.join(LAB_REQUIRED)}{hint}",
            "missing_column",
            missing[0],
        )
    return {c: c for c in LAB_COLUMNS if c in header and c != CONDITION}


def header_of(data: bytes) -> list[str]:
    """The column names of a trial table's first line ([] when it cannot be read).

    >>> header_of(b"\\xef\\xbb\\xbfSubj_idx, Condition\\n1,a\\n")
    ['Subj_idx', 'Condition']
    """
    first = data[: 64 * 1024].split(b"\n", 1)[0]
    try:
        return [h.strip() for h in next(csv.reader([first.decode("utf-8-sig")]), [])]
    except (UnicodeDecodeError, csv.Error):
        return []


def check_size(n_bytes: int, name: str = "the file") -> None:
    """Refuse a file over :data:`MAX_FILE_BYTES` (kind ``too_large``).

    >>> check_size(MAX_FILE_BYTES + 1, "big.csv")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: big.csv: the file has 5,242,881 bytes; the lab \
reads at most 5,242,880 (5 MiB)
    """
    if n_bytes > MAX_FILE_BYTES:
        raise refuse(
            name,
            f"the file has {n_bytes:,} bytes; the lab reads at most {MAX_FILE_BYTES:,} "
            f"({MAX_FILE_BYTES // 2**20} MiB)",
            "too_large",
        )


def file_rows(data: bytes, name: str) -> list[list[str]]:
    """The file's rows of cells, after the size, encoding and CSV checks."""
    check_size(len(data), name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise refuse(
            name, f"the file is not UTF-8 text (byte {err.start + 1} cannot be read)", "not_utf8"
        ) from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as err:
        raise refuse(name, f"the file is not CSV ({err})", "not_csv") from None
    while rows and not any(cell.strip() for cell in rows[-1]):
        rows.pop()  # trailing blank lines; a blank line between trials is a ragged row
    if not rows:
        raise refuse(name, "the file is empty: a header row and trials are needed", "empty")
    return rows


def table_columns(
    rows: list[list[str]], name: str, fmt: Format, *, by: str | None, pool: bool, task: str | None
) -> tuple[dict[str, tuple[str, ...]], dict[str, str], str | None]:
    """The columns as tuples of cells by the contract's names, each name's column in the file,
    and the condition column pooled by the caller's choice (or None)."""
    header = [h.strip() for h in rows[0]]
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise refuse(name, f"column {dupes[0]} appears twice in the header", "duplicate_column")
    if fmt == "confidence-database":
        wanted = _cdb_columns(header, name, task)
    else:
        wanted = _lab_columns(header, name)
    found = next((h for h in header if h.casefold() == CONDITION), None)
    if by is not None and not pool:
        if by not in header:
            raise refuse(
                name,
                f"column {by} (chosen to measure by) is missing; the file's columns are "
                f"{', '.join(header)}",
                "missing_column",
                by,
            )
        wanted["condition"] = by
    elif found is not None and not pool:
        wanted["condition"] = found
    body = rows[1:]
    if not body:
        raise refuse(name, "the file has a header but no trials", "empty")
    if len(body) > MAX_ROWS:
        raise refuse(
            name,
            f"the file has {len(body):,} trials; the lab reads at most {MAX_ROWS:,}",
            "too_many_rows",
        )
    for i, row in enumerate(body):
        if len(row) != len(header):
            raise refuse(
                name, f"line {i + 2} has {len(row)} cells, the header {len(header)}", "ragged_row"
            )
    position = {h: k for k, h in enumerate(header)}
    columns = {key: tuple(row[position[c]] for row in body) for key, c in wanted.items()}
    return columns, wanted, (found if pool else None)
