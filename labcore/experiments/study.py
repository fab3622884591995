"""One shape for every study, one registry, one runner (after Optuna's ``Study`` and Hydra's
sweeps)."""

from __future__ import annotations

import csv
import dataclasses
import fnmatch
import importlib
import platform
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from labcore import compute
from labcore.checks import check_choice
from labcore.cluster import DASK_TIMEOUT
from labcore.findings import SUMMARY, Problem, StudySummary, clean_json, load_summary, write_summary
from labcore.io import atomic_write
from labcore.parallel import process_map

Rows = dict[str, list[dict[str, Any]]]
"""A unit's (or a study's) rows: table name -> rows (dicts of the table's fields)."""
UNIT_CACHE = ".units"
"""Folder under a study's output where finished units are cached (not bundled)."""
MAX_TABLE_BYTES = 200_000_000
"""A table file larger than this is not read."""


@dataclass(frozen=True)
class Table:
    """One CSV file of a study's rows: its columns, which hold text, which may be empty."""

    name: str
    fields: tuple[str, ...]
    text: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    required: bool = True
    """A study without this file (an older run's) reads it as no rows rather than a problem."""
    order: Callable[[Mapping[str, Any]], Any] | None = None
    """A key the rows are stably sorted by before they are written (a file keeps the row order it
    always had, e.g. every per-seed value before every per-seed L75)."""

    @property
    def file(self) -> str:
        """The table's file name."""
        return f"{self.name}.csv"


@dataclass(frozen=True)
class Study:
    """A study: what ``STUDY`` in its module is. Its name, title and folder are the registry's
    (:data:`STUDIES`): :func:`get_study` fills them in."""

    config: type
    """A frozen dataclass; ``config()`` is the registered design, ``config.quick()`` a smoke run."""
    units: Callable[[Any], Sequence[Any]]
    """``units(config)``: the independent pieces of work (picklable, hashable)."""
    run_unit: Callable[[Any, Any, str], Rows]
    """``run_unit(config, unit, out)`` -> rows; module level (it runs in worker processes)."""
    summarise: Callable[[Any, Rows], StudySummary]
    """``summarise(config, rows)`` -> findings, answer and tables (a pure function of rows)."""
    tables: tuple[Table, ...]
    prepare: Callable[[Any, Path, int, Sequence[Any]], None] | None = None
    """``prepare(config, out, jobs, todo)``: work the units to run (``todo``) share (training
    their agents), before them; not called when every unit is kept."""
    tables_model: type[BaseModel] | None = None
    """The model of the summary's ``tables`` where a page reads them (validated on load)."""
    unit_label: Callable[[Any], str] = str
    unit_of: Callable[[dict[str, Any]], Any] | None = None
    """The unit a row of any table belongs to: units whose rows are already in the study's files
    are kept rather than run again (a study whose agents are not bundled can be extended)."""
    derived: Callable[[Any, Rows, Path], Sequence[str]] | None = None
    """``derived(config, rows, out)``: files made from the rows read back (e.g. a figure's arrays
    as JSON), written before the summary and listed in its manifest; returns their names."""
    name: str = ""
    """The registry's name (a study run without the registry, e.g. in a test, sets its own)."""
    title: str = ""
    folder: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Config fields the registry sets (a named setting of a module's study, e.g. ``pdw_held``)."""

    def design(self) -> Any:
        """The registered config: ``config()`` with the registry's :attr:`settings`."""
        return self.config(**self.settings)

    def quick(self) -> Any:
        """The smoke-test config: ``config.quick()`` with the registry's :attr:`settings`."""
        return dataclasses.replace(self.config.quick(), **self.settings)


@dataclass(frozen=True)
class Registered:
    """A registry entry: the study's bundled folder under ``results/`` and its one-line title
    (listing the studies imports none of them, so no torch), the module whose ``STUDY`` runs it
    (``labcore.experiments.<name>`` unless named), and the config fields it sets there."""

    folder: str
    title: str
    module: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)
    attribute: str = "STUDY"
    """The module's name for the study (a module may hold two, as ``paper_study`` does)."""


STUDIES: dict[str, Registered] = {
    "paper": Registered(
        "bundled",
        "The paper's Experiments 1-3 against its numbers (paper sec. 5; docs/verdicts.md)",
        module="labcore.experiments.paper_study",
    ),
    "e4": Registered(
        "e4",
        "Experiment 4: does metacognition emerge from reward alone (protocol 8.5, 8.8)",
        module="labcore.experiments.paper_study",
        attribute="E4_STUDY",
    ),
    "e3_design": Registered(
        "explore_e3", "E3 design: which design gives the paper's robustness hierarchy (protocol 7)"
    ),
    "integration": Registered(
        "explore_integration",
        "Integration: which whole-vs-parts measure behaves as IIT predicts (protocol 9)",
    ),
    "pdw": Registered(
        "pdw", "Song et al. 2017 reproduced on NeuroGym's post-decision wager (protocol 8.7)"
    ),
    "pdw_sweep": Registered(
        "pdw_sweep",
        "the reward explorer: which training choice keeps the sure option (protocol 8.7)",
    ),
    "pdw_held": Registered(
        "pdw_held",
        "what the reward explorer held, post hoc (change log 2026-11-24)",
        module="labcore.experiments.pdw_sweep",
        settings={"design": "held"},
    ),
    "dissociations": Registered(
        "dissociations",
        "Dissociations the data decides: E1 and E2 with outcomes training decides (protocol 11)",
    ),
    "neurogym": Registered(
        "explore_neurogym", "NeuroGym's post-decision wager, our first training (protocol 8.6)"
    ),
    "example": Registered(
        "example", "A worked example: an ideal observer's confidence (docs/adding_a_study.md)"
    ),
}
"""The registry: every study the lab runs, by name; the one place its folder and title are named."""
RESULT_SET_STUDIES = ("paper", "e4")
"""The studies whose folders are result sets of the paper's experiments (the Replication page's
choices); every other study's folder is not one."""


def get_study(name: str) -> Study:
    """The registered study ``name`` (its name, title, folder and settings from :data:`STUDIES`);
    a ValueError lists the others."""
    check_choice(name, "study", STUDIES)
    entry = STUDIES[name]
    module = importlib.import_module(entry.module or f"labcore.experiments.{name}")
    study = getattr(module, entry.attribute)
    return dataclasses.replace(
        study, name=name, title=entry.title, folder=entry.folder, settings=entry.settings
    )


def study_folders() -> set[str]:
    """The folders under ``results/`` that hold a study other than a result set of the paper's
    experiments (:data:`RESULT_SET_STUDIES`)."""
    return {e.folder for n, e in STUDIES.items() if n not in RESULT_SET_STUDIES}


# ------------------------------------------------------------------------------- tables
def write_table(path: Path, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Atomically write ``rows`` as CSV with exactly the table's columns (missing cells empty)."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(table.fields), extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: _cell(row.get(k)) for k in table.fields})

    atomic_write(Path(path), write)


def _cell(x: Any) -> Any:
    if x is None:
        return ""
    if isinstance(x, bool):
        return int(x)
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float) and x != x:
        return ""
    return x


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _unreadable_table(path: Path) -> Problem | None:
    """Why a table file cannot be read at all (missing, or over :data:`MAX_TABLE_BYTES`)."""
    if not path.is_file():
        return Problem(f"{path.name} is missing", path.name, "missing")
    if path.stat().st_size > MAX_TABLE_BYTES:
        return Problem(
            f"{path.name} is larger than {MAX_TABLE_BYTES // 1_000_000} MB", path.name, "too_large"
        )
    return None


def _missing_columns(path: Path, table: Table, columns: Any) -> Problem | None:
    """The table's fields missing from ``columns`` (a file's header), as one problem, or None."""
    missing = [c for c in table.fields if c not in columns]
    if not missing:
        return None
    return Problem(
        f"{path.name} lacks the column(s) {', '.join(missing)}", path.name, "column", missing[0]
    )


def _unreadable(path: Path, exc: Exception) -> Problem:
    """A table file its reader fails on, with the reader's error."""
    text = f"{path.name} could not be read ({exc.__class__.__name__}: {exc})"
    return Problem(text, path.name, "unreadable")


def _bad_cell(path: Path, line: int, col: str, text: Any = None) -> Problem:
    """An empty required cell (``text`` None) or ``text`` in a number column."""
    if text is None:
        return Problem(
            f"{path.name} line {line}: column {col!r} is empty", path.name, "empty_cell", col
        )
    return Problem(
        f"{path.name} line {line}: column {col!r} holds {text!r}", path.name, "not_a_number", col
    )


def read_table(path: Path, table: Table) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """The rows of one table file, typed (text columns as str, others as numbers, empty cells as
    None), or None with one sentence per problem: a missing file, a missing column, an empty
    required cell, text in a number column."""
    if unreadable := _unreadable_table(path):
        return None, [unreadable]
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if lacking := _missing_columns(path, table, reader.fieldnames or []):
                return None, [lacking]
            raw = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return None, [_unreadable(path, exc)]
    rows = []
    for i, r in enumerate(raw, start=2):
        row: dict[str, Any] = {}
        for col in table.fields:
            text = r.get(col)
            if text in ("", None):
                if col not in table.optional:
                    return None, [_bad_cell(path, i, col)]
                row[col] = None
            elif col in table.text:
                row[col] = text
            else:
                try:
                    row[col] = _number(text)
                except ValueError:
                    return None, [_bad_cell(path, i, col, text)]
        rows.append(row)
    return rows, []


def read_rows(study: Study, out: Path | str) -> tuple[Rows, list[str]]:
    """Every table of ``study`` in ``out``, typed; a table that cannot be read is left out and
    its problem listed."""
    rows: Rows = {}
    problems: list[str] = []
    for table in study.tables:
        if not table.required and not (Path(out) / table.file).exists():
            rows[table.name] = []
            continue
        got, said = read_table(Path(out) / table.file, table)
        problems += said
        if got is not None:
            rows[table.name] = got
    return rows, problems


def load_frame(out: Path | str, table: Table) -> tuple[Any, list[str]]:
    """One table as a pandas DataFrame (None with the problems when it cannot be read)."""
    import pandas as pd

    path = Path(out) / table.file
    if unreadable := _unreadable_table(path):
        return None, [unreadable]
    try:
        frame = pd.read_csv(
            path,
            dtype={c: str for c in table.text},
            keep_default_na=False,
            na_values={c: [""] for c in table.fields if c not in table.text},
            encoding="utf-8",
        )
    except (OSError, UnicodeDecodeError, ValueError, pd.errors.ParserError) as exc:
        return None, [_unreadable(path, exc)]
    if lacking := _missing_columns(path, table, frame.columns):
        return None, [lacking]
    frame = frame[list(table.fields)]
    for col in table.fields:
        cells = frame[col]
        if col in table.text:
            empty = cells == ""
            frame[col] = cells.where(~empty, None)
        else:
            empty = cells.isna()
            if not pd.api.types.is_numeric_dtype(cells):  # a cell is not a number (nan, inf are)
                numbers = pd.to_numeric(cells, errors="coerce")
                bad = numbers.isna() & ~empty & (cells.astype(str).str.lower() != "nan")
                if bad.any():
                    i = int(bad.to_numpy().argmax())
                    return None, [_bad_cell(path, i + 2, col, cells[i])]
                frame[col] = numbers
        if col not in table.optional and empty.any():
            i = int(empty.to_numpy().argmax())
            return None, [_bad_cell(path, i + 2, col)]
    return frame, []


# ------------------------------------------------------------------------------- running
def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except OSError:
        return None
    return done.stdout.strip() or None


def _merge(parts: Sequence[Rows]) -> Rows:
    rows: Rows = {}
    for part in parts:
        for name, items in part.items():
            rows.setdefault(name, []).extend(items)
    return rows


def _call_unit(cached: Any, config: Any, unit: Any, out: str, force: bool = False) -> Rows:
    if force:  # run again whatever the cache holds (its code's dependencies may have changed)
        return cached.call(config, unit, out)[0]
    return cached(config, unit, out)


def _kept_units(
    study: Study, config: Any, out: Path, rerun: str | None, say: Callable[[str], None]
) -> dict[Any, Rows]:
    """The units of ``config`` whose rows are already in ``out``'s readable files, with them."""
    if study.unit_of is None or load_summary(out, study=study.name).summary is None:
        return {}
    rows, problems = read_rows(study, out)
    if problems:
        say(f"{study.name}: the existing files are not reused ({'; '.join(problems)})")
        return {}
    wanted = {
        u
        for u in study.units(config)
        if not (rerun and fnmatch.fnmatch(study.unit_label(u), rerun))
    }
    done = {study.unit_of(r) for items in rows.values() for r in items} & wanted
    kept: dict[Any, Rows] = {u: {} for u in done}
    for name, items in rows.items():
        for r in items:
            unit = study.unit_of(r)
            if unit in kept:
                kept[unit].setdefault(name, []).append(r)
    if kept:
        say(f"{study.name}: {len(kept)} unit(s) kept from the existing files")
    return kept


def run_units(
    study: Study, config: Any, out: Path, todo: Sequence[Any] | None = None, **options: Any
) -> Rows:
    """Run the units of ``study`` (``todo``, default every one) and return their rows merged in
    the units' order (:func:`unit_rows` has the options)."""
    return _merge(list(unit_rows(study, config, out, todo, **options).values()))


def unit_rows(
    study: Study,
    config: Any,
    out: Path,
    todo: Sequence[Any] | None = None,
    *,
    jobs: int = 1,
    backend: str = "local",
    progress: bool = True,
    say: Callable[[str], None] = print,
    dask_timeout: float = DASK_TIMEOUT,
    force: Callable[[Any], bool] | None = None,
) -> dict[Any, Rows]:
    """Run every unit of ``study`` (cached in ``out/.units``), in spawned processes or on Dask (the
    current client's cluster; ``dask_timeout``: seconds to wait while it has no worker), and return
    each unit's rows, by unit. A unit ``force`` picks runs again whatever the cache holds (the cache
    keys on the config and the unit function's own code, not on the code it calls)."""
    import joblib

    memory = joblib.Memory(out / UNIT_CACHE, verbose=0)
    cached = memory.cache(study.run_unit, ignore=["out"])
    units = list(study.units(config) if todo is None else todo)
    labels = [study.unit_label(u) for u in units]
    calls = [(cached, config, u, str(out), bool(force and force(u))) for u in units]
    bar = None
    if progress and units:
        from tqdm import tqdm

        bar = tqdm(total=len(units), desc=study.name, unit="unit")
    finished = []

    def done(i: int, _rows: Rows) -> None:
        finished.append(i)
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(labels[i][:40])

    if backend == "dask":
        from labcore.cluster import run_on_cluster

        parts = run_on_cluster(_call_unit, calls, labels, on_result=done, timeout=dask_timeout)
    elif backend == "local":
        parts = process_map(_call_unit, calls, jobs, on_result=done)
    else:
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if bar is not None:
        bar.close()
    say(f"{study.name}: {len(finished)} unit(s) done")
    return dict(zip(units, parts, strict=True))


def _summarise_files(
    study: Study, config: Any, out: Path, started: float, fresh: bool
) -> StudySummary:
    rows, problems = read_rows(study, out)
    if problems:
        raise ValueError(f"{study.name}: the rows cannot be summarised: {'; '.join(problems)}")
    derived = list(study.derived(config, rows, out)) if study.derived is not None else []
    summary = study.summarise(config, rows)
    meta: dict[str, Any] = {"study": study.name}
    if not summary.config:
        meta["config"] = clean_json(dataclasses.asdict(config))
    if not summary.seeds and hasattr(config, "seeds"):
        meta["seeds"] = list(config.seeds)
    if fresh:
        meta |= {
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "git_commit": _git_commit(),
            "compute": compute.fingerprint(threads=1) | {"python": platform.python_version()},
            "wall_seconds": round(time.perf_counter() - started, 1),
        }
    else:  # re-summarised: the run's own record of when and where it ran is kept
        old = load_summary(out).summary
        if old is not None:
            meta |= {
                k: getattr(old, k) for k in ("created", "git_commit", "compute", "wall_seconds")
            }
    summary = summary.model_copy(update=meta)
    files = [t.file for t in study.tables if (out / t.file).exists()] + derived
    return write_summary(out, summary, files)


def run_study(
    study: Study | str,
    out: Path | str,
    config: Any = None,
    *,
    jobs: int = 1,
    backend: str = "local",
    progress: bool = True,
    rerun: str | None = None,
    say: Callable[[str], None] = print,
    dask_timeout: float = DASK_TIMEOUT,
) -> StudySummary:
    """Run ``study`` (its registered config by default) into ``out`` and return its summary."""
    study = get_study(study) if isinstance(study, str) else study
    config = config if config is not None else study.design()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    kept = _kept_units(study, config, out, rerun, say)
    todo = [u for u in study.units(config) if u not in kept]
    if study.prepare is not None and todo:
        study.prepare(config, out, jobs, todo)
    ran = unit_rows(
        study,
        config,
        out,
        todo,
        jobs=jobs,
        backend=backend,
        progress=progress,
        say=say,
        dask_timeout=dask_timeout,
        force=(lambda u: fnmatch.fnmatch(study.unit_label(u), rerun)) if rerun else None,
    )
    # every unit's rows in the study's own order, kept or run, so a file's rows never move
    rows = _merge([kept[u] if u in kept else ran[u] for u in study.units(config)])
    (out / SUMMARY).unlink(missing_ok=True)
    for table in study.tables:  # every table, header only where no unit wrote a row
        items = rows.get(table.name, [])
        write_table(
            out / table.file, table, sorted(items, key=table.order) if table.order else items
        )
    return _summarise_files(study, config, out, started, fresh=True)


def resummarise(study: Study | str, out: Path | str, config: Any = None) -> StudySummary:
    """Summarise ``study`` again from the rows in ``out`` (no unit runs): the bundled files'
    findings, recomputed by today's code. The run's own metadata (when, where) is kept."""
    study = get_study(study) if isinstance(study, str) else study
    config = config if config is not None else study.design()
    return _summarise_files(study, config, Path(out), time.perf_counter(), fresh=False)


def with_overrides(config: Any, assignments: Sequence[str]) -> Any:
    """``config`` with ``field=value`` assignments (the CLI's ``--set``), typed from the field's
    current value: numbers, booleans, and comma-separated tuples.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class C:
    ...     seeds: tuple = (0, 1)
    ...     episodes: int = 5
    ...     names: tuple = ("a",)
    >>> with_overrides(C(), ["seeds=0,1,2", "episodes=8", "names=x,y"])
    C(seeds=(0, 1, 2), episodes=8, names=('x', 'y'))
    """
    names = {f.name for f in dataclasses.fields(config)}
    changes: dict[str, Any] = {}
    for assignment in assignments:
        key, sep, text = assignment.partition("=")
        if not sep or key not in names:
            raise ValueError(
                f"--set takes field=value with a field of {type(config).__name__} "
                f"({', '.join(sorted(names))}); got {assignment!r}"
            )
        current = getattr(config, key)
        changes[key] = _typed_like(current, text, key)
    return dataclasses.replace(config, **changes)


def _typed_like(current: Any, text: str, key: str) -> Any:
    try:
        if isinstance(current, tuple):
            sample = current[0] if current else ""
            return tuple(_typed_like(sample, t.strip(), key) for t in text.split(",") if t.strip())
        if isinstance(current, bool):
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return text.lower() in ("true", "1")
        if isinstance(current, int):
            return int(text)
        if isinstance(current, float):
            return float(text)
        if isinstance(current, str):
            return text
    except ValueError:
        raise ValueError(f"--set {key}: {text!r} is not a {type(current).__name__}") from None
    raise ValueError(f"--set cannot set {key} (a {type(current).__name__}) from the command line")


@dataclass
class LoadedStudy:
    """A study's files as read for display (:func:`load_study`): the validated summary and its
    tables, each table file as a DataFrame (None where it cannot be used), and every problem."""

    directory: Path
    summary: StudySummary | None
    tables: Any
    frames: dict[str, Any]
    problems: list[str]

    def frame(self, name: str) -> Any:
        """The DataFrame of table ``name`` (None if missing or unusable)."""
        return self.frames.get(name)


def load_study(
    study: Study | str, directory: Path | str, tables: Sequence[str] | None = None
) -> LoadedStudy:
    """Read a study's folder for display through the one validated loader; never raises on bad
    files (each problem is one sentence). ``tables``: the names of the tables to read as frames
    (default every one; a page that draws two of a study's tables need not read its trials)."""
    study = get_study(study) if isinstance(study, str) else study
    chosen = [t for t in study.tables if tables is None or t.name in tables]
    return load_tables(study.name, chosen, study.tables_model, directory)


def load_tables(
    name: str | Sequence[str],
    tables: Sequence[Table],
    tables_model: type[BaseModel] | None,
    directory: Path | str,
) -> LoadedStudy:
    """:func:`load_study` from a study's contract alone (its name or names, tables and tables
    model), without importing the module that runs it (a page's first view needs no torch)."""
    directory = Path(directory)
    loaded = load_summary(directory, tables_model, study=name)
    problems = list(loaded.problems)
    frames: dict[str, Any] = {}
    for table in tables:
        if table.file in loaded.foreign or (
            not table.required and not (directory / table.file).exists()
        ):
            frames[table.name] = None
            continue
        frames[table.name], said = load_frame(directory, table)
        problems += [p for p in said if p not in problems]
    return LoadedStudy(directory, loaded.summary, loaded.tables, frames, problems)
