"""The result-set contract: which files a ``reproduce`` run writes, their fields, and how to
read them back and format their values.

A result directory holds:

- ``summary.json``: ``{"schema_version", "experiment", "experiments", "seeds", "config",
  "claims": [...], "values", "cross_seed", ...}``; each claim has ``id``, ``description``,
  ``paper``, ``ours`` (``mean``, ``sd``, ``n``, ``ci95``), ``verdict`` and ``reason`` (rules:
  ``docs/verdicts.md``);
- ``e1_trials.csv``, ``e2_capacity.csv``, ``e3_titration.csv``, and for E4 (issue 15)
  ``e4_trials.csv`` and ``e4_curves.csv`` (the training records' learning curves):
  trial/seed-level data with the columns of :data:`CSV_FIELDS`; E4's summary also holds
  ``hypotheses`` (protocol 8.5 and 8.8.5, :mod:`labcore.experiments.e4_hypotheses`) and
  ``auroc_spread`` (every AUROC beside its confidence's spread, protocol 8.8.4), and its claims
  have no paper number (``paper`` is null, verdict "new (no paper number)");
- ``seed_values.csv``: every per-seed number (``experiment``, ``seed``, ``key``, ``value``); a
  censored L75 is written as text (``"> 0.5"``, ``"<= 0"``, see :func:`l75_cell`);
- ``figures.json``: arrays the CSVs do not carry (masking traces, composite points);
- ``report.html`` (:mod:`labcore.report`) and, optionally, ``exploratory_gain.json``
  (:mod:`labcore.experiments.gain`).

The writer is :func:`labcore.experiments.runner.reproduce`; readers (the report, the app) go
through :func:`load_results`, which never raises on a missing, outdated, malformed or mixed
file but records the problem in :attr:`Results.problems` and keeps a safe empty value instead
(``docs/reliability.md``, "Result sets").

Formatting the values (numbers, our seed summaries, censored L75):
:mod:`labcore.storage.formatting`; the studies' folders and their loaders:
:mod:`labcore.storage.studies`.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from labcore.io import atomic_write, sha256_of

SCHEMA_VERSION = 2
"""Version of this contract written into ``summary.json``. 2: the workspace-read B2 is
``b2_ws`` in claim ids and CSV cells, and ``e3_titration.csv`` names its protocol column
``noise_mode``. Sets without the field are version 1."""

EXPERIMENTS = ("e1", "e2", "e3", "e4")
"""Experiments a result set may hold, in display order (E4: issue 15, beyond the paper)."""
SUMMARY = "summary.json"
SEED_VALUES = "seed_values.csv"
FIGURES = "figures.json"
GAIN = "exploratory_gain.json"
REPORT = "report.html"
CSV_FIELDS: dict[str, list[str]] = {
    "e1_trials": [
        "seed",
        "condition",
        "trial",
        "correct",
        "confidence",
        "stimulus",
        "salience",
        "decision",
        "wager",
        "bet",
    ],
    "e2_capacity": ["agent", "seed", "capacity", "scale", "per_step", "decision", "conjunction"],
    "e3_titration": ["agent", "noise_mode", "noise", "seed", "sigma", "accuracy"],
    "e4_trials": [
        "arm",
        "seed",
        "condition",
        "trial",
        "correct",
        "confidence",
        "stimulus",
        "salience",
        "decision",
        "wager",
        "bet",
    ],
    "e4_curves": [
        "arm",
        "seed",
        "update",
        "agreement",
        "heldout_auroc",
        "heldout_confidence",
        "heldout_wager_reward",
        "heldout_confidence_sd",
        "heldout_confidence_distinct",
        "heldout_spread_bets",
    ],
}
"""Columns of each trial/seed-level CSV file, keyed by file stem."""
SEED_VALUE_FIELDS = ["experiment", "seed", "key", "value"]
"""Columns of ``seed_values.csv``."""
FILES_OF_EXPERIMENT = {
    "e1": ("e1_trials.csv",),
    "e2": ("e2_capacity.csv", FIGURES),
    "e3": ("e3_titration.csv", FIGURES),
    "e4": ("e4_trials.csv", "e4_curves.csv"),
}
"""Result files each experiment's figures need (beside summary.json and seed_values.csv)."""
TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    "e1_trials": ("condition",),
    "e2_capacity": ("agent",),
    "e3_titration": ("agent", "noise_mode", "noise"),
    "e4_trials": ("arm", "condition"),
    "e4_curves": ("arm",),
    "seed_values": ("experiment", "key", "value"),
}
"""Columns read as text; every other column of :data:`CSV_FIELDS` must hold finite numbers."""
SPREAD_COLUMNS = ("heldout_confidence_sd", "heldout_confidence_distinct", "heldout_spread_bets")
"""The confidence's spread beside each learning-curve AUROC (protocol 8.8.4), added to
``e4_curves``."""
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {"e4_curves": SPREAD_COLUMNS}
"""Columns added to a file after result sets were bundled: a file without them reads with empty
cells."""
OPTIONAL_CELLS: dict[str, tuple[str, ...]] = {
    "e2_capacity": ("capacity", "scale"),
    "seed_values": ("value",),
    "e4_trials": ("confidence",),
    "e4_curves": ("heldout_auroc", "heldout_confidence", "heldout_wager_reward", *SPREAD_COLUMNS),
}
"""Columns whose cells may be empty (A0/A1 have no capacity; an undefined per-seed value; a trial
without a choice-point confidence; a learning-curve value undefined or never recorded)."""
MANIFEST = "files"
"""Field of ``summary.json`` mapping each data file the run wrote to its SHA-256: a file that
does not match belongs to another run and is not used (see :func:`load_results`)."""
DATA_FILES = (*(f"{stem}.csv" for stem in CSV_FIELDS), SEED_VALUES, FIGURES)
"""The files a ``reproduce`` run writes before ``summary.json`` (and lists in its manifest)."""


# --------------------------------------------------------------------------- writing


def clean_json(value: Any) -> Any:
    """JSON-safe copy: nan/inf -> None, numpy scalars -> Python numbers, tuples -> lists.

    >>> import numpy as np
    >>> clean_json({"a": np.float32(0.5), "b": [float("nan"), (1, 2)]})
    {'a': 0.5, 'b': [None, [1, 2]]}
    """
    if isinstance(value, dict):
        return {str(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_result_json(path: Path, payload: Any, *, indent: int | None = None) -> None:
    """Atomically write ``payload`` (cleaned by :func:`clean_json`) as JSON, keys in insertion
    order."""
    atomic_write(
        Path(path), lambda tmp: tmp.write_text(json.dumps(clean_json(payload), indent=indent))
    )


def write_csv(path: Path, fields: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """Atomically write ``rows`` as CSV with exactly the columns ``fields`` (missing cells
    empty)."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(fields))
            writer.writeheader()
            for row in rows:
                writer.writerow({k: row.get(k) for k in fields})

    atomic_write(Path(path), write)


def l75_cell(record: Mapping[str, Any]) -> float | str | None:
    """The ``seed_values.csv`` cell of one seed's L75 record (``value``, ``censored``, ``bound``).

    >>> l75_cell({"value": 0.3, "censored": "none", "bound": 0.3})
    0.3
    >>> (l75_cell({"value": None, "censored": "right", "bound": 0.5}),
    ...  l75_cell({"censored": "left", "bound": 0.0}))
    ('> 0.5', '<= 0')
    """
    if record["censored"] == "none":
        return record["value"]
    return f"{'>' if record['censored'] == 'right' else '<='} {record['bound']:g}"


# --------------------------------------------------------------------------- reading


@dataclass
class Results:
    """Everything read from one result directory (missing pieces are None / empty)."""

    directory: Path
    summary: dict = field(default_factory=dict)
    seed_values: pd.DataFrame | None = None
    trials: pd.DataFrame | None = None
    capacity: pd.DataFrame | None = None
    titration: pd.DataFrame | None = None
    e4_trials: pd.DataFrame | None = None
    e4_curves: pd.DataFrame | None = None
    """E4's learning curves (``e4_curves.csv``): held-out AUROC and wager reward per evaluation."""
    figures: dict = field(default_factory=dict)
    gain: dict = field(default_factory=dict)
    """Optional exploratory_gain.json (labcore.experiments.gain): training length vs fragility."""
    problems: list[str] = field(default_factory=list)
    """Files that are missing, unreadable or of an older schema, in words."""

    @property
    def experiments(self) -> list[str]:
        """Experiments of this run (from the summary; else inferred from the files present)."""
        listed = self.summary.get("experiments")
        if isinstance(listed, list) and listed:
            return [e for e in EXPERIMENTS if e in listed]
        found = {
            "e1": self.trials is not None,
            "e2": self.capacity is not None,
            "e3": self.titration is not None,
            "e4": self.e4_trials is not None,
        }
        return [e for e in EXPERIMENTS if found[e]]

    @property
    def values(self) -> dict:
        """Every aggregated number of the summary by key (claims and auxiliary keys)."""
        return self.summary.get("values") or {}

    @property
    def hypotheses(self) -> dict[str, dict]:
        """E4's pre-registered hypotheses (protocol 8.5) and their outcomes, by id (empty without
        E4)."""
        return {h["id"]: h for h in self.summary.get("hypotheses") or []}

    @property
    def claims(self) -> dict[str, dict]:
        """The summary's claims by id."""
        return {c.get("id"): c for c in self.summary.get("claims") or [] if isinstance(c, Mapping)}


def _read_csv(path: Path, problems: list[str], **kwargs: Any) -> pd.DataFrame | None:
    if not path.exists():
        return None
    try:
        return pd.read_csv(path, **kwargs)
    except (OSError, ValueError) as exc:
        problems.append(f"{path.name} could not be read ({exc.__class__.__name__}: {exc})")
        return None


def _read_json(path: Path, problems: list[str]) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        problems.append(f"{path.name} could not be read ({exc.__class__.__name__}: {exc})")
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path.name} does not hold a JSON object")
        return {}
    return data


def schema_problem(summary: Mapping[str, Any]) -> str | None:
    """A sentence for the user if ``summary`` was written by an older contract, else None.

    >>> schema_problem({"schema_version": SCHEMA_VERSION}) is None
    True
    >>> schema_problem({"claims": []}).startswith("summary.json was written before")
    True
    """
    version = summary.get("schema_version")
    if isinstance(version, int) and version >= SCHEMA_VERSION:
        return None
    written = (
        "before result sets were versioned" if version is None else f"with schema version {version}"
    )
    return (
        f"summary.json was written {written}; this lab reads version {SCHEMA_VERSION}, "
        "so some names "
        "(claim ids, CSV columns) may not be found. Re-run `python -m labcore "
        "reproduce` to rewrite "
        "this result set"
    )


def _is_number(x: Any, *, allow_none: bool = True) -> bool:
    """A finite int/float (not a bool), or None when allowed."""
    if x is None:
        return allow_none
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


_OPTIONAL_NUMBER = (int, float, type(None))
SUMMARY_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "schema_version": ((int,), False),
    "experiment": ((str,), False),
    "experiments": ((list,), True),
    "seeds": ((list,), True),
    "config": ((dict,), False),
    "claims": ((list,), True),
    "values": ((dict,), True),
    "cross_seed": ((dict,), False),
    "excluded": ((list,), False),
    "trained": ((list,), False),
    "paper_inconsistencies": ((list,), False),
    "verdict_counts": ((dict,), False),
    "verdict_split": ((dict,), False),
    "construction_audit": ((dict,), False),
    "wall_seconds": (_OPTIONAL_NUMBER, False),
    "created": ((str, type(None)), False),
    "git_commit": ((str, type(None)), False),
    "python": ((str, type(None)), False),
    MANIFEST: ((dict,), False),
    "hypotheses": ((list,), False),
    "auroc_spread": ((dict,), False),
}
"""Top-level fields of ``summary.json``: accepted types and whether a result set must have it."""
CLAIM_FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "verdict": (str,),
    "ours": (dict,),
    "paper": (dict, type(None)),
}
"""Fields every claim must have, with their types (``description`` and ``reason`` default to "")."""
_OURS_NUMBERS = ("mean", "sd", "bound")
HYPOTHESIS_FIELDS = ("id", "statement", "outcome")
"""Fields every entry of ``hypotheses`` (E4) must have as text; ``conditions`` is a list."""


def _claim_ok(claim: Any) -> bool:
    if not isinstance(claim, dict) or any(
        not isinstance(claim.get(k, ...), t) for k, t in CLAIM_FIELDS.items()
    ):
        return False
    ours = claim["ours"]
    n = ours.get("n")
    return (
        all(_is_number(ours.get(k)) for k in _OURS_NUMBERS)
        and (n is None or _is_number(n, allow_none=False))
        and all(isinstance(claim.get(k, ""), str) for k in ("description", "reason"))
    )


def _some(names: Sequence[Any], limit: int = 3) -> str:
    shown = ", ".join(repr(n) for n in list(names)[:limit])
    return shown + (", ..." if len(names) > limit else "")


def validate_summary(summary: dict, problems: list[str]) -> dict:
    """A copy of a read ``summary.json`` in which every field has the contract's type.

    Wrong-typed or missing required fields become a safe empty value (``[]``, ``{}``, or the
    field is dropped); malformed claims, non-numeric or non-finite ``values``, and list items
    of the wrong type are left out. Each kind of fault adds one sentence to ``problems``. An
    empty summary stays empty.

    Examples
    --------
    >>> problems = []
    >>> s = validate_summary({"claims": [{"id": "x"}], "values": {"a": 1.0, "b": "high"},
    ...                       "experiments": ["e1"], "seeds": "0-4"}, problems)
    >>> s["claims"], s["values"], s["seeds"]
    ([], {'a': 1.0}, [])
    >>> len(problems)
    3
    """
    if not summary:
        return {}
    out = dict(summary)
    for name, (types, required) in SUMMARY_FIELDS.items():
        if name not in out:
            if required:
                problems.append(f"summary.json has no '{name}' field")
                out[name] = types[0]()
            continue
        if isinstance(out[name], bool) or not isinstance(out[name], types):
            problems.append(
                f"summary.json field '{name}' is a {type(out[name]).__name__}, not a "
                f"{types[0].__name__}; it is ignored"
            )
            if types[0] in (list, dict):
                out[name] = types[0]()
            else:
                del out[name]
    claims = out.get("claims") or []
    bad = {i for i, c in enumerate(claims) if not _claim_ok(c)}
    if bad:
        problems.append(
            f"summary.json has {len(bad)} malformed claim(s) (positions "
            f"{_some(sorted(bad))}: need id, verdict, "
            "ours and paper of the right types); they are not shown"
        )
    out["claims"] = [
        {"description": "", "reason": "", **c} for i, c in enumerate(claims) if i not in bad
    ]
    for name in ("values", "cross_seed"):
        table = out.get(name)
        if isinstance(table, dict):
            wrong = [k for k, v in table.items() if not _is_number(v)]
            if wrong:
                problems.append(
                    f"summary.json '{name}' has {len(wrong)} entries that are not finite numbers "
                    f"({_some(wrong)}); they are shown as undefined"
                )
                out[name] = {k: v for k, v in table.items() if k not in set(wrong)}
    for name, kind, allowed in (
        ("experiments", str, EXPERIMENTS),
        ("seeds", int, None),
        ("excluded", str, None),
        ("trained", str, None),
        ("paper_inconsistencies", str, None),
    ):
        items = out.get(name)
        if isinstance(items, list):
            keep = [
                x
                for x in items
                if isinstance(x, kind)
                and not isinstance(x, bool)
                and (allowed is None or x in allowed)
            ]
            if len(keep) != len(items):
                problems.append(
                    f"summary.json '{name}' has {len(items) - len(keep)} invalid "
                    "item(s); they are ignored"
                )
                out[name] = keep
    hypotheses = out.get("hypotheses")
    if isinstance(hypotheses, list):
        keep = [
            h
            for h in hypotheses
            if isinstance(h, dict)
            and all(isinstance(h.get(k), str) for k in HYPOTHESIS_FIELDS)
            and isinstance(h.get("conditions", []), list)
        ]
        if len(keep) != len(hypotheses):
            problems.append(
                f"summary.json 'hypotheses' has {len(hypotheses) - len(keep)} malformed entr"
                f"{'y' if len(hypotheses) - len(keep) == 1 else 'ies'} (need "
                f"{', '.join(HYPOTHESIS_FIELDS)} "
                "as text); they are not shown"
            )
            out["hypotheses"] = keep
    counts = out.get("verdict_counts")
    if isinstance(counts, dict) and not all(
        _is_number(v, allow_none=False) for v in counts.values()
    ):
        problems.append("summary.json 'verdict_counts' holds non-numbers; it is ignored")
        out["verdict_counts"] = {}
    return out


def validate_frame(
    name: str, frame: pd.DataFrame | None, problems: list[str]
) -> pd.DataFrame | None:
    """``frame`` (read from ``<name>.csv``) if it has the contract's columns and cells, else None.

    A missing column, an empty text cell, or a numeric column holding text or an infinite value
    drops the whole frame (one sentence in ``problems``): a figure drawn from part of a file
    would look complete.

    Examples
    --------
    >>> problems = []
    >>> frame = pd.DataFrame({"agent": ["b1"], "noise_mode": ["read"], "noise": ["workspace"],
    ...                       "seed": [0],
    ...                       "sigma": [0.1], "accuracy": ["high"]})
    >>> validate_frame("e3_titration", frame, problems) is None, problems[0].split(" (")[0]
    (True, "e3_titration.csv column 'accuracy' holds text or infinite values")
    """
    if frame is None:
        return None
    fields = SEED_VALUE_FIELDS if name == "seed_values" else CSV_FIELDS[name]
    for added in ADDED_COLUMNS.get(name, ()):
        if added not in frame.columns:
            frame[added] = math.nan
    missing = [f for f in fields if f not in frame.columns]
    if missing:
        problems.append(f"{name}.csv lacks the column(s) {_some(missing)}; it is ignored")
        return None
    optional = OPTIONAL_CELLS.get(name, ())
    for col in fields:
        cells = frame[col]
        if col in TEXT_COLUMNS.get(name, ()):
            if col not in optional and cells.isna().any():
                problems.append(f"{name}.csv column '{col}' has empty cells; it is ignored")
                return None
            continue
        numbers = pd.to_numeric(cells, errors="coerce")
        bad = (numbers.isna() & cells.notna()) | numbers.isin([math.inf, -math.inf])
        if col not in optional:
            bad |= cells.isna()
        if bad.any():
            problems.append(
                f"{name}.csv column '{col}' holds text or infinite values "
                f"(e.g. {_some(cells[bad].tolist(), 2)}); it is ignored"
            )
            return None
        frame[col] = numbers
    return frame


def _validate_figures(figures: dict, problems: list[str]) -> dict:
    e2, e3 = figures.get("e2", {}), figures.get("e3", {})
    if (
        not isinstance(e2, dict)
        or not all(isinstance(v, dict) for v in e2.values())
        or not isinstance(e3, dict)
        or not isinstance(e3.get("points", []), list)
    ):
        problems.append(
            f"{FIGURES} does not have the contract's shape (e2: per-seed objects, e3: "
            "points); it is ignored"
        )
        return {}
    return figures


GAIN_ROW_FIELDS = ("seed", "training", "updates", "jacobian", "l75_text", "accuracy")
"""Fields of each row of ``exploratory_gain.json`` that the app shows."""


def _validate_gain(gain: dict, problems: list[str]) -> dict:
    rows = gain.get("rows", [])
    if not isinstance(rows, list) or not all(
        isinstance(r, dict) and set(GAIN_ROW_FIELDS) <= set(r) for r in rows
    ):
        problems.append(f"{GAIN} rows lack the fields {', '.join(GAIN_ROW_FIELDS)}; it is ignored")
        return {}
    return gain


def _foreign_files(directory: Path, summary: dict, problems: list[str]) -> set[str]:
    """Data files that were not written by the run of ``summary`` (its manifest), in words."""
    manifest = summary.get(MANIFEST)
    if not isinstance(manifest, dict):
        return set()  # sets written before the manifest: nothing to check against
    foreign = set()
    for name in DATA_FILES:
        path = directory / name
        if not path.exists():
            if name in manifest:
                problems.append(f"{name} is missing, though summary.json lists it")
            continue
        if manifest.get(name) != sha256_of(path):
            problems.append(
                f"{name} was not written by the run that wrote summary.json (a newer "
                "or interrupted "
                "run, or an edit); it is ignored"
            )
            foreign.add(name)
    return foreign


def load_results(result_dir: Path | str) -> Results:
    """Read and validate a result directory; problems are recorded, never fatal.

    Every file is checked against the contract: ``summary.json`` by
    :func:`validate_summary`, the CSV files by :func:`validate_frame`, ``figures.json`` and
    ``exploratory_gain.json`` by their shape. When ``summary.json`` carries the manifest
    (:data:`MANIFEST`, written by ``reproduce``), a data file whose SHA-256 differs from it, e.g.
    the new CSV files of a run killed before it rewrote ``summary.json``, is not used, so a set
    is never read mixed. Whatever fails becomes one sentence in :attr:`Results.problems` and an
    empty value (``{}`` or None) in its place.

    Parameters
    ----------
    result_dir : path
        A directory of the result contract (any file may be missing).

    Returns
    -------
    Results
        What could be read; :attr:`Results.problems` says what could not, in words.

    Raises
    ------
    FileNotFoundError
        If ``result_dir`` is not a directory.
    """
    directory = Path(result_dir)
    if not directory.is_dir():
        raise FileNotFoundError(f"result directory not found: {directory}")
    problems: list[str] = []
    res = Results(directory)
    summary = _read_json(directory / SUMMARY, problems)
    if not summary and (directory / SUMMARY).exists() and not problems:
        problems.append(f"{SUMMARY} holds an empty object")
    if summary:
        outdated = schema_problem(summary)
        if outdated:
            problems.append(outdated)
    res.summary = summary = validate_summary(summary, problems)
    foreign = _foreign_files(directory, summary, problems)

    def frame(stem: str, **kwargs: Any) -> pd.DataFrame | None:
        if f"{stem}.csv" in foreign:
            return None
        return validate_frame(
            stem, _read_csv(directory / f"{stem}.csv", problems, **kwargs), problems
        )

    res.seed_values = frame("seed_values", dtype={"key": str, "value": str})
    res.trials = frame("e1_trials")
    res.capacity = frame("e2_capacity")
    res.titration = frame("e3_titration")
    res.e4_trials = frame("e4_trials")
    res.e4_curves = frame("e4_curves")
    if FIGURES not in foreign:
        res.figures = _validate_figures(_read_json(directory / FIGURES, problems), problems)
    gain = directory / GAIN
    res.gain = _validate_gain(_read_json(gain, problems), problems) if gain.exists() else {}
    needed = [SUMMARY, SEED_VALUES]
    for exp in res.experiments or EXPERIMENTS:
        needed += FILES_OF_EXPERIMENT[exp]
    for name in dict.fromkeys(needed):
        if not (directory / name).exists() and not any(
            p.startswith(f"{name} is missing") for p in problems
        ):
            problems.append(f"{name} is missing")
    res.problems = problems
    return res
