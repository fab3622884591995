"""Findings: what every experiment and study concludes, as typed records.

A study's ``summary.json`` is a :class:`StudySummary` of :class:`Finding` records; words are made
from them by :mod:`labcore.render`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from labcore.io import atomic_write, sha256_of

SCHEMA_VERSION = 3
"""Version of the summary contract. 3: every summary is a :class:`StudySummary`."""
SUMMARY = "summary.json"
MAX_SUMMARY_BYTES = 50_000_000
"""A summary larger than this is not read (a bundled one is under 1 MB)."""

Verdict = Literal[
    "reproduced", "partly reproduced", "not reproduced", "not comparable", "new (no paper number)"
]
VERDICTS: tuple[str, ...] = Verdict.__args__
"""Verdicts against the paper (docs/verdicts.md), in display order; the last: no paper number."""
Outcome = Literal["supported", "not supported", "undefined", "not tested"]
"""Outcomes of a registered hypothesis (docs/protocol.md sec. 8.5)."""
VerdictRule = Literal[
    "",
    "ci",
    "tolerance",
    "bound",
    "contrast",
    "pattern",
    "mismatch",
    "undefined",
    "stated",
    "registered",
    "new",
]
"""Which branch of the verdict rule decided (``paper.verdict``; protocol sec. 10.3)."""
FlagKind = Literal[
    "by_construction",
    "calibrated",
    "not_comparable",
    "post_hoc",
    "excluded",
    "not_meaningful",
    "inverted",
    "undefined",
]
ConstructionRule = Literal[
    "untrained", "ceiling", "relative", "empty bus", "contrast", "identical arms"
]
"""The construction audit's rules: a flagged value's ``rule``."""
NOT_EVIDENCE: frozenset[str] = frozenset({"by_construction", "calibrated", "not_comparable"})
"""Flags that take a finding out of the evidence count."""
Unit = Literal["number", "percent", "auroc", "sigma", "ratio", "difference", "bits", "count"]
"""How a value is written (labcore.render.fmt)."""
Scalar = float | int | str | bool | None


def nan_to_none(x: Any) -> Any:
    """None for a float nan or inf (JSON has neither), else ``x`` unchanged."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


Number = Annotated[float | None, BeforeValidator(nan_to_none)]
"""A number of a table that may be undefined (nan in, None stored)."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Flag(_Record):
    """Why a finding is not (plain) evidence: the ``rule`` that caught it, a ``note`` typed in a
    table, the ``params`` its sentence quotes."""

    kind: FlagKind
    rule: str = ""
    note: str = ""
    params: dict[str, Scalar] = Field(default_factory=dict)


class Interval(_Record):
    """A two-sided interval of a finding's value."""

    low: float | None
    high: float | None
    level: float = 0.95
    method: str = "t"


class PaperValue(_Record):
    """A number as the paper reports it (``bound`` ">" for "> 0.50")."""

    value: float | None
    sd: float | None = None
    n: int | None = None
    bound: Literal[">"] | None = None
    section: str = ""


class Finding(_Record):
    """One number a reader is told, with everything needed to say it and to trust it."""

    id: str
    question: str
    """What it answers, in a visitor's words."""
    value: Number = None
    """The estimate; None: not defined here (a flag says why)."""
    sd: Number = None
    n: int = 0
    """Seeds (or agents, or subjects) the value rests on."""
    interval: Interval | None = None
    censored: Literal["right", "left"] | None = None
    bound: Number = None
    """A censored value's tested extreme that most seeds did not cross."""
    n_censored: int = 0
    unit: Unit = "number"
    measure: str = ""
    """Its term in ``templates/glossary.json``."""
    verdict: Verdict | None = None
    verdict_rule: VerdictRule = ""
    paper: PaperValue | None = None
    pattern: str = ""
    """The qualitative pattern the verdict checks."""
    hypothesis: str | None = None
    outcome: Outcome | None = None
    flags: tuple[Flag, ...] = ()
    group: str = ""
    """The finding it restates (counted once: :func:`evidence_split`); empty: its own."""
    study: str = ""
    files: tuple[str, ...] = ()
    section: str = ""
    """Where it is registered or reported."""

    @property
    def evidence(self) -> bool:
        """True unless a flag takes it out of the evidence count (:data:`NOT_EVIDENCE`)."""
        return not any(f.kind in NOT_EVIDENCE for f in self.flags)

    def flag(self, kind: str) -> Flag | None:
        """The first flag of ``kind``, or None."""
        return next((f for f in self.flags if f.kind == kind), None)

    @property
    def defined(self) -> bool:
        """A value (or a censored bound) exists."""
        return self.value is not None or self.censored is not None


class Answer(_Record):
    """A study's answer: its registered rule's outcome and the findings it rests on."""

    outcome: str
    findings: tuple[str, ...] = ()
    params: dict[str, Any] = Field(default_factory=dict)


class StudySummary(BaseModel):
    """The contents of every ``summary.json`` (schema :data:`SCHEMA_VERSION`)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[3] = SCHEMA_VERSION
    study: str
    registered: str = ""
    """The protocol section that registered it, with its date."""
    seeds: list[int] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)
    answer: Answer | None = None
    tables: dict[str, Any] = Field(default_factory=dict)
    """What the study's figures and pages need beyond its findings."""
    files: dict[str, str] = Field(default_factory=dict)
    """Each data file the run wrote, with its SHA-256."""
    compute: dict[str, Any] = Field(default_factory=dict)
    created: str | None = None
    git_commit: str | None = None
    wall_seconds: float | None = None

    @property
    def by_id(self) -> dict[str, Finding]:
        """The findings by id."""
        return {f.id: f for f in self.findings}

    def finding(self, finding_id: str) -> Finding | None:
        """One finding by id (None if the study has none of that id)."""
        return self.by_id.get(finding_id)

    def value(self, finding_id: str) -> float:
        """A finding's value as a float (nan if absent or undefined)."""
        f = self.by_id.get(finding_id)
        return math.nan if f is None or f.value is None else float(f.value)


T = TypeVar("T", bound=BaseModel)


def clean_json(value: Any) -> Any:
    """JSON-safe copy: nan/inf -> None, numpy scalars -> Python numbers, tuples -> lists.

    >>> import numpy as np
    >>> clean_json({"a": np.float32(0.5), "b": [float("nan"), (1, 2)]})
    {'a': 0.5, 'b': [None, [1, 2]]}
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json(path: Path | str, payload: Any, *, indent: int | None = None) -> None:
    """Atomically write ``payload`` (cleaned by :func:`clean_json`) as JSON."""
    atomic_write(
        Path(path), lambda tmp: tmp.write_text(json.dumps(clean_json(payload), indent=indent))
    )


def write_summary(
    directory: Path | str, summary: StudySummary, data_files: Iterable[str] = ()
) -> StudySummary:
    """Write ``summary.json`` in ``directory``, listing the SHA-256 of each of ``data_files``
    (written before it), and return the summary as written."""
    directory = Path(directory)
    files = {name: sha256_of(directory / name) for name in data_files}
    written = summary.model_copy(update={"files": files or summary.files})
    write_json(directory / SUMMARY, written.model_dump(mode="json"), indent=1)
    return written


@dataclass
class Loaded(Generic[T]):
    """What :func:`load_summary` could read, and every problem in one sentence each."""

    directory: Path
    summary: StudySummary | None = None
    tables: T | None = None
    problems: list[str] = field(default_factory=list)
    foreign: set[str] = field(default_factory=set)
    """Data files that do not match the summary's manifest: not to be used."""

    def problem(self, text: str, name: str, kind: str, field: str = "") -> None:
        """Add one problem's sentence about ``name``."""
        self.problems.append(Problem(text, name, kind, field))

    @property
    def ok(self) -> bool:
        """A summary was read and nothing is wrong."""
        return self.summary is not None and not self.problems


def field_path(loc: Sequence[Any]) -> str:
    """A pydantic error location as a path: ``("items", 0, "behavioural")`` ->
    ``"items[0].behavioural"``.

    >>> field_path(("items", 0, "behavioural", 1)), field_path(())
    ('items[0].behavioural[1]', '')
    """
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class Problem(str):
    """One problem's sentence (a ``str``), with the ``name`` it is about, its ``kind`` (what is
    wrong) and ``field``, for a caller that reads the record rather than the sentence."""

    name: str
    kind: str
    field: str

    def __new__(cls, text: str, name: str, kind: str, field: str = "") -> Problem:
        """The sentence ``text`` about ``name``, of ``kind`` (at ``field``)."""
        problem = super().__new__(cls, text)
        problem.name, problem.kind, problem.field = name, kind, field
        return problem

    def __reduce__(self) -> tuple:
        """Pickled with its record (caches and worker processes keep it whole)."""
        return (type(self), (str(self), self.name, self.kind, self.field))


def validation_sentences(
    exc: ValidationError, name: str, limit: int = 3, *, file: str = "", at: str = ""
) -> list[Problem]:
    """A pydantic error as at most ``limit`` :class:`Problem` sentences naming the field."""
    errors = exc.errors()
    out = [
        Problem(
            f"{name}: {field_path(e['loc']) or 'the file'}: {e['msg'].rstrip('.')}",
            file or name,
            "invalid",
            at + (field_path(e["loc"]) or "the file"),
        )
        for e in errors[:limit]
    ]
    if len(errors) > limit:
        out.append(
            Problem(
                f"{name}: {len(errors) - limit} more field(s) are not as the contract says",
                file or name,
                "invalid",
            )
        )
    return out


def load_summary(
    directory: Path | str,
    tables: type[T] | None = None,
    *,
    study: str | Sequence[str] | None = None,
) -> Loaded[T]:
    """Read and validate ``directory/summary.json`` (of ``study``); never raises on a bad file.

    ``tables``: the study's model of :attr:`StudySummary.tables`. Data files whose SHA-256
    differs from the manifest are listed in ``foreign``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> load_summary(d).problems
    ['summary.json is missing']
    >>> _ = write_summary(d, StudySummary(study="demo", findings=[Finding(id="x", question="?")]))
    >>> loaded = load_summary(d, study="demo")
    >>> loaded.ok, loaded.summary.by_id["x"].evidence
    (True, True)
    """
    directory = Path(directory)
    out: Loaded[T] = Loaded(directory)
    path = directory / SUMMARY
    if not path.is_file():
        out.problem(f"{SUMMARY} is missing", SUMMARY, "missing")
        return out
    try:
        if path.stat().st_size > MAX_SUMMARY_BYTES:
            raise ValueError(f"larger than {MAX_SUMMARY_BYTES // 1_000_000} MB")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        out.problem(
            f"{SUMMARY} could not be read ({exc.__class__.__name__}: {exc})", SUMMARY, "unreadable"
        )
        return out
    if not isinstance(data, dict):
        out.problem(f"{SUMMARY} does not hold a JSON object", SUMMARY, "invalid")
        return out
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        written = "before result sets were versioned" if version is None else f"as {version!r}"
        out.problem(
            f"{SUMMARY} was written {written}; this lab reads schema {SCHEMA_VERSION}: "
            "re-run its study (python -m labcore study --list)",
            SUMMARY,
            "schema",
            str(version),
        )
        return out
    wanted = (study,) if isinstance(study, str) else tuple(study or ())
    if wanted and data.get("study") not in wanted:
        out.problem(
            f"{SUMMARY} belongs to the study {data.get('study')!r}, not {' or '.join(wanted)}",
            SUMMARY,
            "other_study",
            str(data.get("study")),
        )
        return out
    try:
        summary = StudySummary.model_validate(data)
    except ValidationError as exc:
        out.problems += validation_sentences(exc, SUMMARY)
        return out
    if tables is not None:
        try:
            out.tables = tables.model_validate(summary.tables)
        except ValidationError as exc:
            out.problems += validation_sentences(
                exc, f"{SUMMARY} tables", file=SUMMARY, at="tables."
            )
            return out
    out.summary = summary
    for name, digest in summary.files.items():
        file = directory / name
        if not file.exists():
            out.problem(f"{name} is missing, though {SUMMARY} lists it", name, "missing")
            out.foreign.add(name)
        elif sha256_of(file) != digest:
            out.problem(
                f"{name} was not written by the run that wrote {SUMMARY} (a newer or "
                "interrupted run, or an edit); it is not used",
                name,
                "foreign",
            )
            out.foreign.add(name)
    return out


def independent(findings: Iterable[Finding], grouped: bool = True) -> list[Finding]:
    """One finding per :attr:`Finding.group` of the findings with a verdict: its evidence
    members' most common verdict (ties: the first listed); ``grouped=False``: all of them.

    >>> fs = [Finding(id=i, question="?", verdict=v, group="g")
    ...       for i, v in (("a", "not reproduced"), ("b", "partly reproduced"),
    ...                    ("c", "not reproduced"))]
    >>> [(f.id, f.verdict) for f in independent(fs)]
    [('a', 'not reproduced')]
    """
    with_verdict = [f for f in findings if f.verdict is not None]
    if not grouped:
        return with_verdict
    members: dict[tuple[bool, str], list[Finding]] = {}
    for f in with_verdict:
        members.setdefault((True, f.group) if f.group else (False, f.id), []).append(f)
    out = []
    for group in members.values():
        counted = [f for f in group if f.evidence] or group
        verdicts = [f.verdict for f in counted]
        common = max(verdicts, key=lambda v: (verdicts.count(v), -verdicts.index(v)))
        out.append(next(f for f in counted if f.verdict == common))
    return out


def evidence_split(findings: Iterable[Finding], grouped: bool = True) -> dict[str, dict[str, int]]:
    """Verdict counts of :func:`independent` findings, split into ``evidence`` and ``apart``.

    >>> fs = [Finding(id="a", question="?", verdict="reproduced"),
    ...       Finding(id="b", question="?", verdict="reproduced",
    ...               flags=(Flag(kind="by_construction"),))]
    >>> evidence_split(fs)["evidence"]["reproduced"], evidence_split(fs)["apart"]["reproduced"]
    (1, 1)
    """
    out = {"evidence": dict.fromkeys(VERDICTS, 0), "apart": dict.fromkeys(VERDICTS, 0)}
    for f in independent(findings, grouped):
        out["evidence" if f.evidence else "apart"][f.verdict] += 1
    return out


def apart_by_kind(findings: Iterable[Finding], grouped: bool = True) -> dict[str, int]:
    """How many :func:`independent` findings each not-evidence flag takes apart."""
    counts: dict[str, int] = {}
    for f in independent(findings, grouped):
        kind = next((fl.kind for fl in f.flags if fl.kind in NOT_EVIDENCE), None)
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return counts
