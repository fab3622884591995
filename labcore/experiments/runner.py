"""``reproduce``: run E1-E3 over seeds and write a result set (the contract and its files:
:mod:`labcore.results`). The HTML report is written by :mod:`labcore.report`; the command
line (``python -m labcore reproduce``) calls it after this.
"""

from __future__ import annotations

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
from labcore.paper import PAPER_INCONSISTENCIES, VERDICTS
from labcore.results import (
    CSV_FIELDS,
    FIGURES,
    SCHEMA_VERSION,
    SEED_VALUE_FIELDS,
    SEED_VALUES,
    SUMMARY,
    clean_json,
    l75_cell,
    write_csv,
    write_result_json,
)

PIPELINES = {"e1": e1, "e2": e2, "e3": e3}
"""The pipeline module of each experiment (each has ``run_seed``)."""


def _git_commit() -> str | None:
    """The commit the results were produced from (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                              capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return done.stdout.strip() or None


def reproduce(
    experiments: Sequence[str],
    cfg: ReproduceConfig,
    out: Path | str,
    *,
    cache_dir: str = "runs/checkpoints",
    jobs: int = 1,
    backend: str = "loky",
    progress: Callable[[str, SeedResult], None] | None = None,
) -> dict:
    """Run the experiments, aggregate, apply the verdicts and write the result set.

    Parameters
    ----------
    experiments : sequence of {"e1", "e2", "e3"}
        Which pipelines to run.
    cfg : ReproduceConfig
        Seeds and evaluation budgets.
    out : path
        The result directory (created if needed); files as in :mod:`labcore.results`.
    cache_dir : str
        Where agents trained on demand are cached.
    jobs, backend : int, {"loky", "dask"}
        How seeds fan out (:func:`labcore.experiments.common.run_seeds`).
    progress : callable, optional
        Called as ``progress(experiment, seed_result)`` after each seed.

    Returns
    -------
    dict
        The summary, as written to ``summary.json`` (JSON-clean).
    """
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
        "schema_version": SCHEMA_VERSION,
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
        "verdict_counts": {v: sum(c["verdict"] == v for c in claims) for v in VERDICTS},
        "wall_seconds": round(time.perf_counter() - start, 1),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
    }
    for stem, fields in CSV_FIELDS.items():
        rows = [row for r in all_results for row in r.rows.get(stem, [])]
        if rows:
            write_csv(out / f"{stem}.csv", fields, rows)
    seed_rows = [{"experiment": r.experiment, "seed": r.seed, "key": k, "value": v}
                 for r in all_results for k, v in sorted(r.values.items())]
    seed_rows += [{"experiment": r.experiment, "seed": r.seed, "key": k, "value": l75_cell(x)}
                  for r in all_results for k, x in sorted(r.l75.items())]
    write_csv(out / SEED_VALUES, SEED_VALUE_FIELDS, seed_rows)
    figures = {
        "e2": {str(r.seed): r.figures for r in results.get("e2", [])},
        "e3": {"points": e3.composite_points(results["e3"])} if "e3" in results else {},
    }
    write_result_json(out / FIGURES, figures)
    write_result_json(out / SUMMARY, summary, indent=1)
    return clean_json(summary)
