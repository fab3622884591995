"""Trial tables: people's choices and confidence, read and validated before any marker runs.

Two formats. **The Confidence Database's** (Rahnev et al. 2020): ``Subj_idx``, ``Stimulus``,
``Response`` (the same two codes, the lower one S1), ``Confidence`` (the dataset's own scale),
optional ``Condition`` and ``Accuracy`` (checked, never used instead); other columns (times,
difficulty) are ignored, so a subject's difficulty levels are pooled. A dual task's suffixed
columns (``Response_1``) are read one task at a time. **The lab's** (written by "Be the agent"):
``stimulus`` and ``response`` 0/1, ``confidence`` a probability in [0, 1], optional ``subject``,
``difficulty``, ``condition``; no other column.

The file and its header are checked first, then the cells and the rules across rows, as pydantic
contracts, giving the validated :class:`Trials`. A missed trial (an empty or NaN/NA/N/A cell) is
dropped and counted per unit; units are subjects, or subjects in one condition; a unit that cannot
be measured is listed with its reason, and only a file with no measurable unit is refused, in one
:class:`~labcore.scorecards.contract.ContractError` sentence. Nothing is stored.

Examples
--------
>>> header, four = b"stimulus,response,confidence\\n", b"0,0,0.9\\n1,1,0.8\\n1,0,0.6\\n0,1,0.55\\n"
>>> t = read_trials(header + four * 10 + b"1,,\\n", "mine.csv")
>>> t.format, t.subjects, len(t), t.missed
('lab', ('1',), 40, {('1', None): 1})
>>> read_trials(header + four * 9, "mine.csv")
Traceback (most recent call last):
...
labcore.scorecards.contract.ContractError: mine.csv: subject 1 has 36 usable trials; the lab \
needs at least 40 per subject for meta-d' (Rahnev 2025 recommends at least 100)
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from labcore.checks import check_choice
from labcore.humans.reference import trial_band
from labcore.scorecards.contract import ContractError, contract_error

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
MAX_SUBJECTS = 200
"""Most units in one file: each costs a meta-d' fit (about 40 ms), so 200 take ~8 s."""
MIN_TRIALS = 40
"""Fewest usable trials of a unit the lab fits meta-d' to: a floor, not a recommendation (Rahnev
2025 recommends 100). Four ratings spread the trials over 16 cells, 2.5 each at 40; HMeta-d's
author would not go much below 50 (https://github.com/metacoglab/HMeta-d/issues/21). 40 lets the
"Be the agent" session (40-60 trials) be measured, flagged as rough."""
RECOMMENDED_TRIALS = trial_band()[0]
"""Rahnev (2025)'s minimum per person (100): fewer is read, with a note."""
MISSED = frozenset({"", "nan", "na", "n/a"})
"""How a missed trial's cell reads (case and a sign ignored)."""
ONE_SUBJECT = "1"
"""The subject of a lab file without a subject column."""
Unit = tuple[str, str | None]
"""(subject, condition); the condition is None when the units are the subjects."""


# ----------------------------------------------------------------------- the file and its header
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
            f"no Stimulus, Response or Confidence column has the task suffix {task!r}; the "
            f"file's tasks: {', '.join(suffixes)}",
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


# ----------------------------------------------------------------------------- cells
def _text_cell(value: object) -> object:
    if isinstance(value, str):
        value = value.strip()
        if not value:
            raise PydanticCustomError("missing_value", "is empty")
    return value


def _optional_text_cell(value: object) -> object:
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


def _trial_cell(value: object) -> object:
    if isinstance(value, str):
        value = value.strip()
        if value.casefold().lstrip("+-") in MISSED:
            return math.nan
    return value


def _not_infinite(value: float) -> float:
    if math.isinf(value):
        raise PydanticCustomError("finite_number", "input should be a finite number")
    return value


TrialNumber = Annotated[float, BeforeValidator(_trial_cell), AfterValidator(_not_infinite)]
Text = Annotated[str, BeforeValidator(_text_cell)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text_cell)]


def _codes(stimulus: NDArray[np.float64], response: NDArray[np.float64]) -> tuple[float, float]:
    codes = sorted(set(stimulus.tolist()) | set(response.tolist()))
    if len(codes) != 2:
        shown = ", ".join(f"{c:g}" for c in codes[:5]) + (", ..." if len(codes) > 5 else "")
        raise PydanticCustomError(
            "codes",
            "the Stimulus and Response columns must take the same two values between them (such "
            "as 1 and 2), found {n}: {shown}",
            {"n": len(codes), "shown": shown},
        )
    return codes[0], codes[1]


def _lab_codes(
    stimulus: NDArray[np.float64],
    response: NDArray[np.float64],
    confidence: NDArray[np.float64],
    usable: NDArray[np.bool_],
) -> None:
    for name, values in (("stimulus", stimulus), ("response", response)):
        bad = np.flatnonzero(usable & (values != 0) & (values != 1))
        if bad.size:
            raise PydanticCustomError(
                "codes",
                "{column} must be 0 or 1, got {value} on line {line}",
                {"column": name, "value": f"{values[bad[0]]:g}", "line": int(bad[0]) + 2},
            )
    bad = np.flatnonzero(usable & ((confidence < 0) | (confidence > 1)))
    if bad.size:
        raise PydanticCustomError(
            "confidence_range",
            "confidence is a probability in [0, 1] in the lab format, got {value} on line {line}",
            {"value": f"{confidence[bad[0]]:g}", "line": int(bad[0]) + 2},
        )


class Unmeasured(BaseModel):
    """A unit the file holds but the lab cannot measure, and why (``kind`` and one sentence)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    dataset: str | None = None
    subject: str
    condition: str | None = None
    n_trials: int
    n_missed: int = 0
    kind: str
    reason: str


@dataclass(frozen=True)
class _Checked:
    """What the cross-row rules found in a file's columns."""

    usable: NDArray[np.bool_]
    codes: tuple[float, float]
    order: tuple[Unit, ...]
    missed: dict[Unit, int]
    unmeasured: tuple[Unmeasured, ...]
    disagrees: NDArray[np.bool_] | None


def _unmeasured(
    unit: Unit, n: int, missed: int, stim: NDArray[np.float64], correct: NDArray[np.bool_]
) -> Unmeasured | None:
    subject, condition = unit
    who = f"subject {subject}" + (f" in condition {condition}" if condition is not None else "")
    also = f" ({missed} missed)" if missed else ""
    if n == 0:
        kind, reason = "no_usable_trials", f"{who} has no usable trial{also}"
    elif n < MIN_TRIALS:
        kind = "too_few_trials"
        reason = (
            f"{who} has {n} usable trials{also}; the lab needs at least {MIN_TRIALS} per subject "
            f"for meta-d' (Rahnev 2025 recommends at least {RECOMMENDED_TRIALS})"
        )
    elif len(np.unique(stim)) < 2:
        kind, reason = "one_stimulus", f"{who} saw only one of the two stimuli; meta-d' needs both"
    elif correct.all() or not correct.any():
        which = "right" if correct.all() else "wrong"
        kind = "one_class"
        reason = f"{who} was {which} on every trial; telling right from wrong needs both"
    else:
        return None
    return Unmeasured(
        subject=subject, condition=condition, n_trials=n, n_missed=missed, kind=kind, reason=reason
    )


def _check_rows(cols: Any, info: ValidationInfo, *, lab: bool) -> _Checked:
    column = ((info.context or {}).get("columns") or {}).get
    stim, resp, conf = (
        np.asarray(getattr(cols, f), dtype=np.float64)
        for f in ("stimulus", "response", "confidence")
    )
    usable = ~(np.isnan(stim) | np.isnan(resp) | np.isnan(conf))
    if not usable.any():
        raise PydanticCustomError(
            "no_usable_trials",
            "no trial has a stimulus, a response and a confidence: each of the {n} rows misses one",
            {"n": len(stim)},
        )
    if lab:
        _lab_codes(stim, resp, conf, usable)
        codes = (0.0, 1.0)
    else:
        codes = _codes(stim[usable], resp[usable])
    correct = stim == resp
    conditions = cols.condition if cols.condition is not None else (None,) * len(stim)
    empty = np.flatnonzero(usable & np.array([c is None for c in conditions]))
    if cols.condition is not None and empty.size:
        raise PydanticCustomError(
            "missing_value",
            "{column}, line {line}: is empty (a trial with a response needs its condition)",
            {"column": column("condition", "condition"), "line": int(empty[0]) + 2},
        )
    disagrees = None
    if getattr(cols, "accuracy", None) is not None:
        accuracy = np.asarray(cols.accuracy, dtype=np.float64)
        checked = usable & ~np.isnan(accuracy)
        bad = np.flatnonzero(checked & (accuracy != 0) & (accuracy != 1))
        if bad.size:
            raise PydanticCustomError(
                "accuracy_codes",
                "{column} must be 1 (right) or 0 (wrong) to be checked against Stimulus and "
                "Response, got {value} on line {line}; remove or rename the column to measure "
                "without it",
                {
                    "column": column("accuracy", CDB_ACCURACY),
                    "value": f"{accuracy[bad[0]]:g}",
                    "line": int(bad[0]) + 2,
                },
            )
        disagrees = checked & ((accuracy == 1) != correct)
    units = list(zip(cols.subject, conditions, strict=True))
    order = tuple(dict.fromkeys(units))
    if len(order) > MAX_SUBJECTS:
        raise PydanticCustomError(
            "too_many_subjects",
            "the file holds {n} {what}; the lab reads at most {limit} per file",
            {
                "n": len(order),
                "what": "subjects" if cols.condition is None else "subject-condition pairs",
                "limit": MAX_SUBJECTS,
            },
        )
    number = {u: k for k, u in enumerate(order)}
    index = np.fromiter((number[u] for u in units), dtype=np.intp, count=len(units))
    n_usable = np.bincount(index[usable], minlength=len(order))
    n_missed = np.bincount(index[~usable], minlength=len(order))
    unmeasured = []
    for k, unit in enumerate(order):
        rows = (index == k) & usable
        found = _unmeasured(unit, int(n_usable[k]), int(n_missed[k]), stim[rows], correct[rows])
        if found is not None:
            unmeasured.append(found)
    if len(unmeasured) == len(order):
        first = unmeasured[0]
        more = len(order) - 1
        raise PydanticCustomError(
            first.kind,
            "{reason}{more}",
            {"reason": first.reason, "more": f" (nor can the other {more})" if more else ""},
        )
    return _Checked(
        usable=usable,
        codes=codes,
        order=order,
        missed={u: int(n_missed[k]) for k, u in enumerate(order) if n_missed[k]},
        unmeasured=tuple(unmeasured),
        disagrees=disagrees,
    )


# ----------------------------------------------------------------------------- the contracts
class ConfidenceDatabaseColumns(BaseModel):
    """A Confidence Database file's used columns, keyed by the lab's names."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    subject: tuple[Text, ...]
    stimulus: tuple[TrialNumber, ...]
    response: tuple[TrialNumber, ...]
    confidence: tuple[TrialNumber, ...]
    condition: tuple[OptionalText, ...] | None = None
    accuracy: tuple[TrialNumber, ...] | None = None
    _checked: _Checked | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _across_rows(self, info: ValidationInfo) -> ConfidenceDatabaseColumns:
        self._checked = _check_rows(self, info, lab=isinstance(self, LabColumns))
        return self


class LabColumns(ConfidenceDatabaseColumns):
    """A lab-format file: stimulus and response 0/1, confidence in [0, 1], optional subject,
    difficulty and condition."""

    accuracy: None = None
    difficulty: tuple[TrialNumber, ...] | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_subject_by_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "subject" not in data:
            n = len(data.get("stimulus") or ())
            return {**data, "subject": (ONE_SUBJECT,) * n}
        return data


# ----------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class Trials:
    """A validated trial table, as arrays of its usable trials (in file order).

    ``stimulus`` and ``response`` are 0 (S1) or 1; ``confidence`` on the file's own scale;
    ``codes`` the file's two codes; ``by`` the column the units are formed by, ``pooled`` a
    condition column the caller chose to pool, ``task`` a dual-task file's suffix read; ``order``
    every unit as it first appears, measured or not; ``missed`` missed trials per unit;
    ``disagrees`` per trial, whether the file's Accuracy disagrees (None without one).
    """

    name: str
    format: Format
    subject: NDArray[np.str_]
    stimulus: NDArray[np.int8]
    response: NDArray[np.int8]
    confidence: NDArray[np.float64]
    codes: tuple[float, float]
    difficulty: NDArray[np.float64] | None = None
    condition: NDArray[np.str_] | None = None
    by: str | None = None
    pooled: str | None = None
    task: str | None = None
    order: tuple[Unit, ...] = ()
    missed: dict[Unit, int] = field(default_factory=dict)
    unmeasured: tuple[Unmeasured, ...] = ()
    disagrees: NDArray[np.bool_] | None = None

    def __len__(self) -> int:
        return len(self.stimulus)

    @property
    def subjects(self) -> tuple[str, ...]:
        """The subjects with a usable trial, in the order they first appear in the file."""
        _, first = np.unique(self.subject, return_index=True)
        return tuple(str(s) for s in self.subject[np.sort(first)])

    @property
    def units(self) -> tuple[Unit, ...]:
        """The units measured, in file order."""
        left_out = {(u.subject, u.condition) for u in self.unmeasured}
        return tuple(u for u in self.order if u not in left_out)

    @property
    def n_missed(self) -> int:
        """Missed trials in the file (dropped)."""
        return sum(self.missed.values())

    def rows(self, unit: Unit) -> NDArray[np.bool_]:
        """Which trials are the unit's."""
        subject, condition = unit
        rows = self.subject == subject
        if self.condition is not None:
            rows &= self.condition == condition
        return rows

    @property
    def probability(self) -> bool:
        """Is the confidence a probability of being right (the lab format's contract)?"""
        return self.format == "lab"


# ----------------------------------------------------------------------------- reading
def _where(columns: Mapping[str, str]) -> Callable[[tuple[Any, ...]], str]:
    """Shows a location ``(field, row)`` as the file's column and line."""

    def where(loc: tuple[Any, ...]) -> str:
        if not loc:
            return ""
        column = columns.get(str(loc[0]), str(loc[0]))
        return f"{column}, line {loc[1] + 2}" if len(loc) > 1 else column

    return where


def read_trials(
    data: bytes,
    name: str = "the file",
    fmt: Format | None = None,
    *,
    by: str | None = None,
    pool: bool = False,
    task: str | None = None,
) -> Trials:
    """Read and validate a trial table (either format) into arrays; one sentence on a refusal.

    ``fmt`` None detects the format from the header; ``by`` names the column that splits each
    subject's trials into units (None: a ``Condition`` column, case ignored); ``pool`` measures
    each subject over all its trials; ``task`` reads a dual-task file's columns with that suffix.

    Raises
    ------
    ContractError
        One sentence; its ``kind`` says what is wrong (the file's, its header's, a
        cell's, across rows, or the first unit's reason).
    """
    if fmt is not None:
        check_choice(fmt, "fmt", FORMATS)
    rows = file_rows(data, name)
    header = [h.strip() for h in rows[0]]
    fmt = fmt or detect_format(header)
    columns, shown, pooled = table_columns(rows, name, fmt, by=by, pool=pool, task=task)
    model = ConfidenceDatabaseColumns if fmt == "confidence-database" else LabColumns
    try:
        table = model.model_validate(columns, context={"columns": shown})
    except ValidationError as exc:
        error = contract_error(exc, name, where=_where(shown))
        message, where = str(error), error.field.split("[", 1)
        if error.kind == "missing_value":  # "is empty" says what was given
            message = message.replace(", got ''", "")
        if where[0] in shown:  # the field as the file names it: "Confidence[3]"
            where[0] = shown[where[0]]
        raise ContractError(message, "[".join(where), error.kind) from None
    checked = table._checked
    usable, codes = checked.usable, checked.codes
    difficulty, condition = getattr(table, "difficulty", None), table.condition
    return Trials(
        name=name,
        format=fmt,
        subject=np.asarray(table.subject, dtype=str)[usable],
        stimulus=(np.asarray(table.stimulus)[usable] == codes[1]).astype(np.int8),
        response=(np.asarray(table.response)[usable] == codes[1]).astype(np.int8),
        confidence=np.asarray(table.confidence, dtype=np.float64)[usable],
        codes=codes,
        difficulty=None if difficulty is None else np.asarray(difficulty, np.float64)[usable],
        condition=None
        if condition is None
        else np.asarray(condition, dtype=object)[usable].astype(str),
        by=shown.get("condition"),
        pooled=pooled,
        task=task if task in task_suffixes(header) else None,
        order=checked.order,
        missed=checked.missed,
        unmeasured=checked.unmeasured,
        disagrees=None if checked.disagrees is None else checked.disagrees[usable],
    )


# ----------------------------------------------------------------------------- writing
def lab_csv(
    stimulus: Sequence[int],
    response: Sequence[int],
    confidence: Sequence[float],
    *,
    subject: str = ONE_SUBJECT,
    difficulty: Sequence[float] | None = None,
    condition: str = "",
) -> bytes:
    """A trial table in the lab format, numbers written exactly (``repr``).

    >>> print(lab_csv([0, 1], [0, 0], [0.8, 0.5], subject="you").decode(), end="")
    subject,stimulus,response,confidence
    you,0,0,0.8
    you,1,0,0.5
    """
    header = ["subject", "stimulus", "response", "confidence"]
    columns: list[Sequence[Any]] = [
        [subject] * len(stimulus),
        [int(s) for s in stimulus],
        [int(r) for r in response],
        [repr(float(c)) for c in confidence],
    ]
    if difficulty is not None:
        header.append("difficulty")
        columns.append([repr(float(d)) for d in difficulty])
    if condition:
        header.append("condition")
        columns.append([condition] * len(stimulus))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue().encode("utf-8")
