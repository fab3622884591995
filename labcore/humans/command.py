"""``python -m labcore markers FILE.csv``: per-subject markers of a trial table (issue 35).

Prints one CSV row per subject with the columns ``subject, n_trials, accuracy, type2_auroc,
meta_d, m_ratio`` (:data:`labcore.humans.markers.MARKER_COLUMNS`; an undefined value is an empty
cell) and writes the same to ``--out`` when asked. A file it cannot read ends the command with
exit status 2 and one line on stderr (the contract's sentence). Examples::

    python -m labcore markers my_dataset.csv
    python -m labcore markers data_Rahnev_2019.csv --format confidence-database --out markers.csv
    python -m labcore markers your_trials.csv --format lab
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from labcore.humans.trials import FORMATS, check_size, read_trials
from labcore.io import atomic_write


def add_markers_command(sub: Any) -> None:
    """Register the ``markers`` subcommand on ``python -m labcore``'s subparsers."""
    markers = sub.add_parser(
        "markers",
        help="per-subject accuracy, Type-2 AUROC, meta-d' and M-ratio of a trial table "
        "(the Confidence Database's CSV format or the lab's)",
    )
    markers.add_argument("file", metavar="FILE.csv", help="the trial table")
    markers.add_argument(
        "--format",
        choices=list(FORMATS),
        default=None,
        help="the table's format (default: confidence-database if the header names Subj_idx, "
        "else lab)",
    )
    markers.add_argument("--out", default=None, metavar="OUT.csv", help="also write the rows here")
    markers.set_defaults(func=cmd_markers)


def cmd_markers(args: argparse.Namespace) -> int:
    """Run ``markers``: 0 when the rows were printed (and written), 2 when the file is unread."""
    path = Path(args.file)
    try:
        check_size(path.stat().st_size, path.name)  # before reading a large file whole
        trials = read_trials(path.read_bytes(), path.name, args.format)
    except OSError as err:
        print(f"error: {path}: cannot read the file ({err.strerror or err})", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from labcore.humans.markers import markers_csv, subject_markers  # scikit-learn, torch: not
    # on the command line's start, where a mistyped argument is refused in a fraction of a second

    text = markers_csv(subject_markers(trials))
    sys.stdout.write(text)
    if args.out:
        atomic_write(Path(args.out), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return 0
