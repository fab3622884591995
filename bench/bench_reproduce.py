"""End-to-end reproduction time (issue: experiments E1-E3; the study ``paper``).

Run alone: ``.venv/bin/python -m bench.bench_reproduce [--twenty]``.

- ``study paper --quick --set seeds=0,1,2,3,4`` on the bundled checkpoints (target <= 5 min).
- ``--twenty``: ``--set seeds=0,...,19`` with full budgets, training the 15 missing seeds of every
  kind into a fresh cache first, as seed batches (``--twenty-out results/seeds20`` keeps the result
  set).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "labcore", "study", "paper", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    print(done.stdout.strip().splitlines()[-1])
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--twenty", action="store_true")
    parser.add_argument(
        "--twenty-out", default=None, help="keep the 20-seed result set here (e.g. results/seeds20)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        quick = run(
            [
                *("--quick", "--set", "seeds=0,1,2,3,4", "--jobs", "2"),
                *("--out", f"{tmp}/quick", "--no-report"),
            ]
        )
        print(f"study paper, 5 seeds, quick, bundled agents: {quick:.0f} s")
        if args.twenty:
            seeds = ",".join(map(str, range(20)))
            full = run(
                [
                    *("--set", f"seeds={seeds}", "--set", f"cache={tmp}/cache", "--jobs", "2"),
                    *("--out", args.twenty_out or f"{tmp}/twenty"),
                ]
            )
            print(
                "study paper, 20 seeds, full budgets, training 15 seeds x 12 kinds: "
                f"{full / 60:.1f} min"
            )


if __name__ == "__main__":
    main()
