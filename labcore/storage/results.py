"""The files of the studies not yet in the one Study shape (``explore neurogym``, ``explore pdw``,
``explore pdw-sweep``, ``explore integration``): writing their CSV and JSON files and reading them
back for their own loaders (:mod:`labcore.storage.studies`, :mod:`labcore.storage.results_pdw`).

The result sets of the paper's experiments and of E4 are studies of the one shape (``study paper``,
``study e4``): their files are :mod:`labcore.experiments.paper_tables`, read through the one loader
(:mod:`labcore.experiments.paper_results`). What is left here goes with the studies above once they
move to that shape.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from labcore.findings import clean_json
from labcore.io import atomic_write
from labcore.render import finite

SCHEMA_VERSION = 2
"""Version of the older studies' ``summary.json`` (the Study shape's is
:data:`labcore.findings.SCHEMA_VERSION`)."""
SUMMARY = "summary.json"
MANIFEST = "files"
"""Field of ``summary.json`` mapping each data file the run wrote to its SHA-256."""

__all__ = ["MANIFEST", "SCHEMA_VERSION", "SUMMARY", "clean_json", "write_csv", "write_result_json"]


def write_result_json(path: Path, payload: Any, *, indent: int | None = None) -> None:
    """Atomically write ``payload`` (cleaned by :func:`labcore.findings.clean_json`) as JSON, keys
    in insertion order."""
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
        f"summary.json was written {written}; this lab reads version {SCHEMA_VERSION}, so some "
        "names may not be found: re-run the study that wrote it"
    )


def _is_number(x: Any, *, allow_none: bool = True) -> bool:
    """A finite int/float (not a bool), or None when allowed."""
    if x is None:
        return allow_none
    return isinstance(x, int | float) and finite(x)
