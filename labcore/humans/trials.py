"""Trial tables: people's choices and confidence, read and validated before any marker runs.

Two CSV formats (UTF-8, comma-separated, a header row, one trial per row):

**The Confidence Database's** (``"confidence-database"``; Rahnev et al. 2020: one file per
dataset). The lab reads four of its columns and ignores the others:

========== ==============================================================================
Subj_idx   the participant (any text or number)
Stimulus   which of two stimuli was shown; most datasets code them 1 and 2
Response   which the participant chose, in the same two codes
Confidence the participant's rating, on the dataset's own scale (1-4, 1-6, 0-100, ...)
========== ==============================================================================

``RT_decision``, ``RT_confidence`` (named ``RT_dec``, ``RT_decConf``... in some datasets) and
``Difficulty`` are not read: the markers use neither times nor difficulty, so a subject's trials
of every difficulty level are pooled (Rahnev 2025 recommends designs with a single difficulty
level where possible: a mixed file's M-ratio is one number over its levels). A dataset whose
stimulus is a
continuous quantity (an orientation) is refused: the markers need two classes. The two codes are
the two values Stimulus and Response take between them; the lower is the first class (S1).

**The lab's** (``"lab"``, written by the "Be the agent" page; a researcher may write it too):

========== ==============================================================================
stimulus   0 or 1 (the task: 0 = left/blue, 1 = right/red)
response   0 or 1, the choice
confidence the stated probability that the choice was right, in [0, 1] (0.5: a guess)
subject    optional: who (text); without it the file is one subject, ``"1"``
difficulty optional: a number (the task: the flash's salience, higher is easier)
condition  optional: text (carried, not used)
========== ==============================================================================

No other column is allowed in the lab format (a misspelt name is caught, not ignored). Because the
lab format's confidence is a probability, its calibration is defined; a Confidence Database
scale is the dataset's own, so calibration is not computed for it
(:func:`labcore.humans.markers.subject_markers`).

The contract. Before pydantic sees a cell, the file is checked whole, each problem one
:class:`~labcore.scorecards.contract.ContractError` sentence with a ``kind``: at most
:data:`MAX_FILE_BYTES` (5 MiB, a Confidence Database file of about 100,000 trials; the page's
upload has the same bound), UTF-8 text, CSV with a header, the format's columns present (and, in
the lab format, no others), every row as wide as the header, at most :data:`MAX_ROWS` trials.
Then the columns are validated by a pydantic model (:class:`ConfidenceDatabaseColumns`,
:class:`LabColumns`): every used cell a finite number (an empty cell, text, NaN or infinity is
refused, naming its column and line), and, across rows, two codes, the lab's 0/1 and [0, 1], at
most :data:`MAX_SUBJECTS` subjects, and per subject at least :data:`MIN_TRIALS` trials, both
stimuli and both right and wrong choices. The first problem becomes one sentence
(:func:`~labcore.scorecards.contract.contract_error`), with the number of further problems.

Why :data:`MIN_TRIALS` = 40: a floor, not a recommendation. Rahnev (2025) recommends at least
100 trials per person (``labcore.humans.reference``), and the lab flags every subject with
fewer; it refuses below 40. A meta-d' fit on four ratings per response spreads the trials over
16 cells (two stimuli x two responses x four ratings): at 40 trials that is 2.5 per cell, and
the padding that keeps every cell finite (1/8 of a trial per cell, 2 trials in all) is already 5%
of the data. The HMeta-d author puts the minimum of a single subject's fit with two ratings at
about 80 trials, and would not go much below 50 per subject even with hierarchical fits
(S. Fleming, metacoglab/HMeta-d issue 21): below 40 a fit is noise. The floor sits at 40 so that
the lab's own "Be the agent" session (50 trials; 40-60 by design) is read back and measured,
flagged as rough, rather than refused.

Nothing is stored: the functions read bytes and return arrays; the caller keeps them for its
session only.

Examples
--------
>>> header, four = b"stimulus,response,confidence\\n", b"0,0,0.9\\n1,1,0.8\\n1,0,0.6\\n0,1,0.55\\n"
>>> t = read_trials(header + four * 10, "mine.csv")
>>> t.format, t.subjects, len(t)
('lab', ('1',), 40)
>>> read_trials(header + four * 9, "mine.csv")
Traceback (most recent call last):
...
labcore.scorecards.contract.ContractError: mine.csv: subject 1 has 36 trials; the lab needs at \
least 40 per subject for meta-d' (Rahnev 2025 recommends at least 100)
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
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
"""Largest trial table read, in bytes (5 MiB: about 100,000 trials of the Confidence Database)."""
MAX_ROWS = 200_000
"""Most trials in one file (a file of short rows stays within the byte bound with more)."""
MAX_SUBJECTS = 200
"""Most subjects in one file: each costs a meta-d' fit (about 40 ms), so 200 take ~8 s."""
MIN_TRIALS = 40
"""Fewest trials of a subject the lab fits meta-d' to (module docstring: why 40)."""
RECOMMENDED_TRIALS = trial_band()[0]
"""Rahnev (2025)'s minimum per person (100): fewer is read, with a note."""

CDB_COLUMNS: dict[str, str] = {
    "subject": "Subj_idx",
    "stimulus": "Stimulus",
    "response": "Response",
    "confidence": "Confidence",
}
"""The Confidence Database's columns the lab reads, by the lab's name for each."""
LAB_REQUIRED = ("stimulus", "response", "confidence")
LAB_OPTIONAL = ("subject", "difficulty", "condition")
LAB_COLUMNS: tuple[str, ...] = (*LAB_OPTIONAL[:1], *LAB_REQUIRED, *LAB_OPTIONAL[1:])
"""The lab format's columns in the order it writes them."""
ONE_SUBJECT = "1"
"""The subject of a lab file without a subject column."""


# ----------------------------------------------------------------------------- cells
def _number_cell(value: object) -> object:
    """An empty cell is its own problem ("is empty"), not pydantic's "unable to parse"."""
    if isinstance(value, str):
        value = value.strip()
        if not value:
            raise PydanticCustomError("missing_value", "is empty")
    return value


def _text_cell(value: object) -> object:
    if isinstance(value, str):
        value = value.strip()
        if not value:
            raise PydanticCustomError("missing_value", "is empty")
    return value


Number = Annotated[float, BeforeValidator(_number_cell), AllowInfNan(False)]
"""A cell holding a finite number (text, empty, NaN and infinity are refused)."""
Text = Annotated[str, BeforeValidator(_text_cell)]
"""A cell holding text that is not empty."""


def _codes(stimulus: Sequence[float], response: Sequence[float]) -> list[float]:
    codes = sorted(set(stimulus) | set(response))
    if len(codes) != 2:
        shown = ", ".join(f"{c:g}" for c in codes[:5]) + (", ..." if len(codes) > 5 else "")
        raise PydanticCustomError(
            "codes",
            "the Stimulus and Response columns must take the same two values between them (such "
            "as 1 and 2), found {n}: {shown}",
            {"n": len(codes), "shown": shown},
        )
    return codes


def _check_subjects(
    subject: Sequence[str], stimulus: Sequence[float], correct: NDArray[np.bool_]
) -> None:
    """Per subject: enough trials, both stimuli, both right and wrong choices."""
    names, index = np.unique(np.asarray(subject, dtype=object), return_inverse=True)
    if len(names) > MAX_SUBJECTS:
        raise PydanticCustomError(
            "too_many_subjects",
            "the file holds {n} subjects; the lab reads at most {limit} per file",
            {"n": len(names), "limit": MAX_SUBJECTS},
        )
    stim = np.asarray(stimulus)
    for k in np.argsort(_first_rows(index, len(names))):
        rows = index == k
        name, n = names[k], int(rows.sum())
        if n < MIN_TRIALS:
            raise PydanticCustomError(
                "too_few_trials",
                "subject {subject} has {n} trials; the lab needs at least {minimum} per subject "
                "for meta-d' (Rahnev 2025 recommends at least {recommended})",
                {
                    "subject": name,
                    "n": n,
                    "minimum": MIN_TRIALS,
                    "recommended": RECOMMENDED_TRIALS,
                },
            )
        if len(np.unique(stim[rows])) < 2:
            raise PydanticCustomError(
                "one_stimulus",
                "subject {subject} saw only one of the two stimuli; meta-d' needs both",
                {"subject": name},
            )
        right = int(correct[rows].sum())
        if right in (0, n):
            raise PydanticCustomError(
                "one_class",
                "subject {subject} was {which} on every trial; telling right from wrong needs both",
                {"subject": name, "which": "right" if right else "wrong"},
            )


def _first_rows(index: NDArray[np.intp], n: int) -> list[int]:
    """The first row of each of ``n`` groups (subjects are checked in file order)."""
    first = np.full(n, len(index))
    np.minimum.at(first, index, np.arange(len(index)))
    return first.tolist()


# ----------------------------------------------------------------------------- the contracts
class ConfidenceDatabaseColumns(BaseModel):
    """The contract of a Confidence Database file's used columns (named as the file names them).

    Cross-row rules: Stimulus and Response take two values between them; per subject
    :data:`MIN_TRIALS` trials, both stimuli, right and wrong choices; :data:`MAX_SUBJECTS`.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")
    subject: tuple[Text, ...] = Field(alias=CDB_COLUMNS["subject"])
    stimulus: tuple[Number, ...] = Field(alias=CDB_COLUMNS["stimulus"])
    response: tuple[Number, ...] = Field(alias=CDB_COLUMNS["response"])
    confidence: tuple[Number, ...] = Field(alias=CDB_COLUMNS["confidence"])

    @model_validator(mode="after")
    def _across_rows(self) -> ConfidenceDatabaseColumns:
        _codes(self.stimulus, self.response)
        correct = np.asarray(self.stimulus) == np.asarray(self.response)
        _check_subjects(self.subject, self.stimulus, correct)
        return self


class LabColumns(BaseModel):
    """The contract of a lab-format file: stimulus and response 0/1, confidence in [0, 1],
    optional subject, difficulty and condition; nothing else. Cross-row rules as
    :class:`ConfidenceDatabaseColumns`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    subject: tuple[Text, ...]
    stimulus: tuple[Number, ...]
    response: tuple[Number, ...]
    confidence: tuple[Number, ...]
    difficulty: tuple[Number, ...] | None = None
    condition: tuple[Text, ...] | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_subject_by_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "subject" not in data:
            n = len(data.get("stimulus") or ())
            return {**data, "subject": (ONE_SUBJECT,) * n}
        return data

    @model_validator(mode="after")
    def _across_rows(self) -> LabColumns:
        for name in ("stimulus", "response"):
            values = np.asarray(getattr(self, name))
            bad = np.flatnonzero((values != 0) & (values != 1))
            if bad.size:
                raise PydanticCustomError(
                    "codes",
                    "{column} must be 0 or 1, got {value} on line {line}",
                    {"column": name, "value": f"{values[bad[0]]:g}", "line": int(bad[0]) + 2},
                )
        conf = np.asarray(self.confidence)
        bad = np.flatnonzero((conf < 0) | (conf > 1))
        if bad.size:
            raise PydanticCustomError(
                "confidence_range",
                "confidence is a probability in [0, 1] in the lab format, got {value} on line "
                "{line}",
                {"value": f"{conf[bad[0]]:g}", "line": int(bad[0]) + 2},
            )
        correct = np.asarray(self.stimulus) == np.asarray(self.response)
        _check_subjects(self.subject, self.stimulus, correct)
        return self


# ----------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class Trials:
    """A validated trial table, as arrays (one entry per trial, in file order).

    Attributes
    ----------
    name : str
        The file's name (for sentences).
    format : {"confidence-database", "lab"}
    subject : ndarray of str
    stimulus, response : ndarray of int
        0 (the first class, S1) or 1.
    confidence : ndarray of float
        On the file's own scale.
    codes : tuple of float
        The file's two codes of stimulus and response (0, 1 in the lab format).
    difficulty : ndarray of float or None
        The lab format's optional difficulty (not used by the markers).
    """

    name: str
    format: Format
    subject: NDArray[np.str_]
    stimulus: NDArray[np.int8]
    response: NDArray[np.int8]
    confidence: NDArray[np.float64]
    codes: tuple[float, float]
    difficulty: NDArray[np.float64] | None = None

    def __len__(self) -> int:
        return len(self.stimulus)

    @property
    def subjects(self) -> tuple[str, ...]:
        """The subjects in the order they first appear in the file."""
        _, first = np.unique(self.subject, return_index=True)
        return tuple(str(s) for s in self.subject[np.sort(first)])

    @property
    def probability(self) -> bool:
        """Is the confidence a probability of being right (the lab format's contract)?"""
        return self.format == "lab"


# ----------------------------------------------------------------------------- reading
def _refuse(name: str, message: str, kind: str, field: str = "") -> ContractError:
    return ContractError(f"{name}: {message}", field, kind)


def _where(header: Mapping[str, str]) -> Callable[[tuple[Any, ...]], str]:
    """Shows a location ``(field, row)`` as the file's column and line (header on line 1)."""

    def where(loc: tuple[Any, ...]) -> str:
        if not loc:
            return ""
        column = header.get(str(loc[0]), str(loc[0]))
        return f"{column}, line {loc[1] + 2}" if len(loc) > 1 else column

    return where


def detect_format(header: Sequence[str]) -> Format:
    """The format a header belongs to: the Confidence Database's if it names ``Subj_idx``.

    >>> detect_format(["Subj_idx", "Stimulus"]), detect_format(["stimulus", "response"])
    ('confidence-database', 'lab')
    """
    return "confidence-database" if CDB_COLUMNS["subject"] in header else "lab"


def check_size(n_bytes: int, name: str = "the file") -> None:
    """Refuse a file over :data:`MAX_FILE_BYTES` (kind ``too_large``), before it is read.

    >>> check_size(MAX_FILE_BYTES + 1, "big.csv")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: big.csv: the file has 5,242,881 bytes; the lab \
reads at most 5,242,880 (5 MiB)
    """
    if n_bytes > MAX_FILE_BYTES:
        raise _refuse(
            name,
            f"the file has {n_bytes:,} bytes; the lab reads at most {MAX_FILE_BYTES:,} "
            f"({MAX_FILE_BYTES // 2**20} MiB)",
            "too_large",
        )


def _rows(data: bytes, name: str) -> list[list[str]]:
    check_size(len(data), name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise _refuse(
            name, f"the file is not UTF-8 text (byte {err.start + 1} cannot be read)", "not_utf8"
        ) from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as err:
        raise _refuse(name, f"the file is not CSV ({err})", "not_csv") from None
    while rows and not any(cell.strip() for cell in rows[-1]):
        rows.pop()  # trailing blank lines; a blank line between trials is a ragged row
    if not rows:
        raise _refuse(name, "the file is empty: a header row and trials are needed", "empty")
    return rows


def _columns_of(
    rows: list[list[str]], name: str, fmt: Format
) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The format's columns as tuples of cells, keyed as the contract names them, and each
    contract name's column in the file."""
    header = [h.strip() for h in rows[0]]
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise _refuse(name, f"column {dupes[0]} appears twice in the header", "duplicate_column")
    if fmt == "confidence-database":
        wanted = {alias: alias for alias in CDB_COLUMNS.values()}
        shown = {field: alias for field, alias in CDB_COLUMNS.items()}
        shown.update({alias: alias for alias in CDB_COLUMNS.values()})
        required = list(CDB_COLUMNS.values())
    else:
        unknown = [h for h in header if h not in LAB_COLUMNS]
        if unknown:
            hint = (
                " (is it the confidence-database format?)"
                if detect_format(header) == "confidence-database"
                else ""
            )
            raise _refuse(
                name,
                f"column {unknown[0]!r} is not one of the lab format's "
                f"({', '.join(LAB_COLUMNS)}){hint}",
                "unknown_column",
                unknown[0],
            )
        wanted = {c: c for c in LAB_COLUMNS}
        shown = {c: c for c in LAB_COLUMNS}
        required = list(LAB_REQUIRED)
    missing = [c for c in required if c not in header]
    if missing:
        other = "lab" if fmt == "confidence-database" else "confidence-database"
        hint = f" (is it the {other} format?)" if detect_format(header) == other else ""
        raise _refuse(
            name,
            f"column {missing[0]} is missing; the {fmt} format needs {', '.join(required)}{hint}",
            "missing_column",
            missing[0],
        )
    body = rows[1:]
    if not body:
        raise _refuse(name, "the file has a header but no trials", "empty")
    if len(body) > MAX_ROWS:
        raise _refuse(
            name,
            f"the file has {len(body):,} trials; the lab reads at most {MAX_ROWS:,}",
            "too_many_rows",
        )
    for i, row in enumerate(body):
        if len(row) != len(header):
            raise _refuse(
                name,
                f"line {i + 2} has {len(row)} cells, the header {len(header)}",
                "ragged_row",
            )
    position = {h: k for k, h in enumerate(header)}
    columns = {
        key: tuple(row[position[column]] for row in body)
        for key, column in wanted.items()
        if column in position
    }
    return columns, shown


def read_trials(data: bytes, name: str = "the file", fmt: Format | None = None) -> Trials:
    """Read and validate a trial table (either format) into arrays; one sentence on a refusal.

    Parameters
    ----------
    data : bytes
        The file's content (at most :data:`MAX_FILE_BYTES`).
    name : str
        How sentences name the file.
    fmt : {"confidence-database", "lab"} or None
        The format; None detects it from the header (:func:`detect_format`).

    Returns
    -------
    Trials

    Raises
    ------
    ContractError
        A ``ValueError`` whose message is one sentence and whose ``kind`` says what is wrong:
        ``too_large``, ``not_utf8``, ``not_csv``, ``empty``, ``duplicate_column``,
        ``missing_column``, ``unknown_column``, ``too_many_rows``, ``ragged_row`` (the file);
        ``missing_value``, ``float_parsing``, ``finite_number`` (a cell: empty, not a number,
        NaN or infinite; ``field`` names its column); ``codes``, ``confidence_range``,
        ``too_many_subjects``, ``too_few_trials``, ``one_stimulus``, ``one_class`` (across rows).
    """
    if fmt is not None:
        check_choice(fmt, "fmt", FORMATS)
    rows = _rows(data, name)
    fmt = fmt or detect_format([h.strip() for h in rows[0]])
    columns, shown = _columns_of(rows, name, fmt)
    model = ConfidenceDatabaseColumns if fmt == "confidence-database" else LabColumns
    try:
        table = model.model_validate(columns)
    except ValidationError as exc:
        error = contract_error(exc, name, where=_where(shown))
        if error.kind == "missing_value":  # "is empty" says what was given
            error = ContractError(str(error).replace(", got ''", ""), error.field, error.kind)
        raise error from None
    stim = np.asarray(table.stimulus)
    resp = np.asarray(table.response)
    codes = (0.0, 1.0) if fmt == "lab" else tuple(_codes(table.stimulus, table.response))
    difficulty = getattr(table, "difficulty", None)
    return Trials(
        name=name,
        format=fmt,
        subject=np.asarray(table.subject, dtype=str),
        stimulus=(stim == codes[1]).astype(np.int8),
        response=(resp == codes[1]).astype(np.int8),
        confidence=np.asarray(table.confidence, dtype=np.float64),
        codes=codes,
        difficulty=None if difficulty is None else np.asarray(difficulty, dtype=np.float64),
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
    """A trial table in the lab format (what the "Be the agent" page offers for download).

    Numbers are written exactly (``repr``), so :func:`read_trials` reads back the same values.

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
