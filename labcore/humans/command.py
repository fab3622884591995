"""``python -m labcore markers FILE.csv [FILE.csv | FOLDER ...]``: markers of people's trial tables.

Prints one CSV table to stdout (:data:`labcore.humans.markers.MARKER_COLUMNS`), a row per unit
of every file (a folder: its ``.csv`` files), and to ``--out`` when asked; on stderr ``error:``,
``note:`` and ``group:`` lines (``--groups`` writes the group lines as CSV). Exit status 0 when
every file was measured, 2 when any could not be read. Examples::

    python -m labcore markers my_dataset.csv
    python -m labcore markers confidence_database/ --groups groups.csv --seed 1
    python -m labcore markers data_dual.csv --task 1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from labcore.humans.trials import FORMATS, RECOMMENDED_TRIALS, check_size
from labcore.io import atomic_write


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_markers_command(sub: Any) -> None:
    """Register the ``markers`` subcommand on ``python -m labcore``'s subparsers."""
    markers = sub.add_parser(
        "markers",
        help="per-subject accuracy, Type-2 AUROC, meta-d' and M-ratio of trial tables "
        "(the Confidence Database's CSV format or the lab's), and each data set's group line",
    )
    markers.add_argument(
        "files",
        nargs="+",
        metavar="FILE.csv",
        help="trial tables, or folders (every .csv file in a folder)",
    )
    markers.add_argument(
        "--format",
        choices=list(FORMATS),
        default=None,
        help="the tables' format (default: confidence-database if the header names Subj_idx, "
        "else lab)",
    )
    split = markers.add_mutually_exclusive_group()
    split.add_argument(
        "--by",
        default=None,
        metavar="COLUMN",
        help="measure each subject per value of this column (default: the file's Condition "
        "column, if it has one)",
    )
    split.add_argument(
        "--pool",
        action="store_true",
        help="measure each subject over all its trials even when the file has a Condition column",
    )
    markers.add_argument(
        "--task",
        default=None,
        metavar="SUFFIX",
        help="a dual-task file's task: read Response_SUFFIX (and the other columns with the "
        "suffix) as Response; files without suffixed columns are read as they are",
    )
    markers.add_argument(
        "--min-trials",
        type=_positive,
        default=RECOMMENDED_TRIALS,
        metavar="N",
        help="people with fewer usable trials are left out of the group lines, and counted "
        f"(default {RECOMMENDED_TRIALS}, Rahnev 2025's minimum per person)",
    )
    markers.add_argument(
        "--seed", type=int, default=0, help="seeds the group lines' bootstrap (default 0)"
    )
    markers.add_argument("--out", default=None, metavar="OUT.csv", help="also write the rows here")
    markers.add_argument(
        "--groups", default=None, metavar="GROUPS.csv", help="also write the group lines here"
    )
    markers.set_defaults(func=cmd_markers)


def trial_files(arguments: list[str]) -> tuple[list[Path], list[str]]:
    """The files named (a folder's ``.csv`` files, sorted), and a sentence per empty folder."""
    files: list[Path] = []
    problems: list[str] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".csv" and p.is_file())
            if not found:
                problems.append(f"{path}: the folder holds no .csv file")
            files += found
        else:
            files.append(path)
    return files, problems


def cmd_markers(args: argparse.Namespace) -> int:
    """Run ``markers``."""
    files, problems = trial_files(args.files)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    names = [p.name for p in files]
    if len(set(names)) < len(names):  # the same name in two folders: name them by their path
        names = [str(p) for p in files]
    read: list[tuple[str, bytes]] = []
    for path, name in zip(files, names, strict=True):
        try:
            check_size(path.stat().st_size, name)  # before reading a large file whole
            read.append((name, path.read_bytes()))
        except OSError as err:
            print(f"error: {path}: cannot read the file ({err.strerror or err})", file=sys.stderr)
            problems.append(str(path))
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            problems.append(str(path))
    from labcore.humans import datasets as D  # scikit-learn, torch: not on the command line's
    # start, where a mistyped argument is refused in a fraction of a second

    measured = []
    for name, data in read:
        ds = D.measure(data, name, args.format, by=args.by, pool=args.pool, task=args.task)
        if ds.error:
            print(f"error: {ds.error}", file=sys.stderr)
            problems.append(name)
        else:
            measured.append(ds)
    if not measured:
        return 2
    for ds in measured:
        for kind, note in D.notes(ds):
            pool = kind == "by" and ds.by_default
            hint = "; --pool measures the conditions together" if pool else ""
            print(f"note: {note}{hint}", file=sys.stderr)
    lines = D.group_lines(measured, min_trials=args.min_trials, seed=args.seed)
    for line in lines:
        print(f"group: {D.group_text(line)}", file=sys.stderr)
    text = D.subjects_csv(measured)
    sys.stdout.write(text)
    if args.out:
        atomic_write(Path(args.out), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    if args.groups:
        groups = D.groups_csv(lines)
        atomic_write(Path(args.groups), lambda tmp: tmp.write_text(groups, encoding="utf-8"))
    return 2 if problems else 0
