"""``reproduce``: run E1-E3 over seeds and write the output contract of the Replication page.

Files written to ``out``:

- ``summary.json``: ``{"experiment", "seeds", "config", "claims": [...], ...}``; each claim has
  ``id``, ``description``, ``paper``, ``ours`` (``mean``, ``sd``, ``n``, ``ci95``),
  ``verdict`` and ``reason`` (rules: ``docs/verdicts.md``);
- ``e1_trials.csv``, ``e2_capacity.csv``, ``e3_titration.csv``: trial/seed-level data;
- ``seed_values.csv``: every per-seed number (experiment, seed, key, value);
- ``figures.json``: arrays the CSVs do not carry (masking traces, composite points);
- ``report.html``: every figure of the paper rebuilt from these files.
"""

from __future__ import annotations

import csv
import json
import math
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from labcore.config import ReproduceConfig
from labcore.experiments import e1, e2, e3
from labcore.experiments.common import SeedResult, build_claims, run_seeds
from labcore.io import atomic_write
from labcore.paper import PAPER_INCONSISTENCIES

PIPELINES = {"e1": e1, "e2": e2, "e3": e3}
CSV_FIELDS = {
    "e1_trials": ["seed", "condition", "trial", "correct", "confidence", "stimulus", "salience", "decision", "wager", "bet"],
    "e2_capacity": ["agent", "seed", "capacity", "scale", "per_step", "decision", "conjunction"],
    "e3_titration": ["agent", "protocol", "noise", "seed", "sigma", "accuracy"],
}


def _git_commit() -> str | None:
    """The commit the results were produced from (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                              capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return done.stdout.strip() or None


def _clean(value):
    """JSON-safe: nan/inf -> None, numpy scalars -> Python numbers."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _write_csv(path: Path, fields: list[str], rows: list[dict]) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: row.get(k) for k in fields})

    atomic_write(path, write)


def reproduce(
    experiments: Sequence[str],
    cfg: ReproduceConfig,
    out: Path | str,
    *,
    cache_dir: str = "runs/checkpoints",
    jobs: int = 1,
    backend: str = "loky",
    progress: Callable[[str, SeedResult], None] | None = None,
    report: bool = True,
) -> dict:
    """Run the experiments, aggregate, apply the verdicts and write every output file."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results: dict[str, list[SeedResult]] = {}
    for name in experiments:
        module = PIPELINES[name]
        results[name] = run_seeds(module.run_seed, list(cfg.seeds), cfg, cache_dir, jobs=jobs, backend=backend,
                                  progress=(lambda r, n=name: progress(n, r)) if progress else None)
    all_results = [r for rs in results.values() for r in rs]
    cross: dict[str, float] = {}
    if "e2" in results:
        cross.update(e2.cross_seed(results["e2"]))
    if "e3" in results:
        cross.update(e3.cross_seed(results["e3"]))
    claims, values = build_claims(all_results, cross)
    summary = {
        "experiment": experiments[0] if len(experiments) == 1 else "all",
        "experiments": list(experiments),
        "seeds": list(cfg.seeds),
        "config": asdict(cfg),
        "claims": claims,
        "values": values,
        "cross_seed": cross,
        "excluded": sorted({x for r in all_results for x in r.excluded}),
        "trained": sorted({x for r in all_results for x in r.trained}),
        "paper_inconsistencies": list(PAPER_INCONSISTENCIES),
        "verdict_counts": {v: sum(c["verdict"] == v for c in claims)
                           for v in ("reproduced", "partly reproduced", "not reproduced", "not comparable")},
        "wall_seconds": round(time.perf_counter() - start, 1),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
    }
    for stem, fields in CSV_FIELDS.items():
        rows = [row for r in all_results for row in r.rows.get(stem, [])]
        if rows:
            _write_csv(out / f"{stem}.csv", fields, rows)
    seed_rows = [{"experiment": r.experiment, "seed": r.seed, "key": k, "value": v}
                 for r in all_results for k, v in sorted(r.values.items())]
    seed_rows += [{"experiment": r.experiment, "seed": r.seed, "key": k,
                   "value": x["value"] if x["censored"] == "none" else f"{'>' if x['censored'] == 'right' else '<='} {x['bound']:g}"}
                  for r in all_results for k, x in sorted(r.l75.items())]
    _write_csv(out / "seed_values.csv", ["experiment", "seed", "key", "value"], seed_rows)
    figures = {
        "e2": {str(r.seed): r.figures for r in results.get("e2", [])},
        "e3": {"points": e3.composite_points(results["e3"])} if "e3" in results else {},
    }
    atomic_write(out / "figures.json", lambda tmp: tmp.write_text(json.dumps(_clean(figures))))
    atomic_write(out / "summary.json", lambda tmp: tmp.write_text(json.dumps(_clean(summary), indent=1)))
    if report:
        from labcore.report import write_report

        write_report(out)
    return _clean(summary)
