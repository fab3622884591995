"""``reproduce``: run E1-E4 over seeds and write a result set (the contract and its files:
:mod:`labcore.storage.results`). The HTML report is written by :mod:`labcore.report`; the command
line (``python -m labcore reproduce``) calls it after this.
"""

from __future__ import annotations

import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from labcore import compute
from labcore.budgets import ReproduceConfig
from labcore.cluster import DASK_TIMEOUT
from labcore.config import (
    AUDIT_SEEDS,
    KINDS_OF_EXPERIMENT,
    TASK_OF_EXPERIMENT,
    TrainConfig,
)
from labcore.experiments import construction, e1, e2, e3, e4, e4_hypotheses
from labcore.experiments.common import SeedResult, build_claims, run_seeds
from labcore.io import sha256_of
from labcore.paper import PAPER_INCONSISTENCIES, verdict_split, verdicts_of
from labcore.storage.checkpoint_format import checkpoint_name
from labcore.storage.checkpoint_manifest import BUNDLED_DIR
from labcore.storage.results import (
    CSV_FIELDS,
    DATA_FILES,
    FIGURES,
    MANIFEST,
    REPORT,
    SCHEMA_VERSION,
    SEED_VALUE_FIELDS,
    SEED_VALUES,
    SUMMARY,
    clean_json,
    l75_cell,
    write_csv,
    write_result_json,
)
from labcore.training.provision import missing_seeds, plan_batches, run_batches

if TYPE_CHECKING:
    from labcore.training.provision import ProgressBoard

PIPELINES = {"e1": e1, "e2": e2, "e3": e3, "e4": e4}
"""The pipeline module of each experiment (each has ``run_seed``)."""


def _git_commit() -> str | None:
    """The commit the results were produced from (None outside a git checkout)."""
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


def provision_agents(
    experiments: Sequence[str],
    seeds: Sequence[int],
    cache_dir: Path | str,
    *,
    workers: int = 1,
    backend: str = "loky",
    seed_batches: bool = True,
    on_progress: Callable[[ProgressBoard], None] | None = None,
    dask_timeout: float = DASK_TIMEOUT,
) -> list[str]:
    """Train every agent the experiments need that is neither bundled nor cached.

    The missing seeds of each kind train together as seed batches
    (:mod:`labcore.training.provision`),
    ``workers`` batches side by side (worker processes, or the Dask cluster of the current
    client with ``backend="dask"``, which waits at most ``dask_timeout`` seconds for a worker
    when the cluster has none), into ``cache_dir``. Returns the names trained.
    """
    cfg = TrainConfig()
    needed: dict[tuple[str, str], None] = {}
    for experiment in experiments:
        # a pipeline may name the kinds it runs (E4: one per arm of e4.ARMS), else its experiment's
        # kinds
        for kind in (
            getattr(PIPELINES.get(experiment), "KINDS", None) or KINDS_OF_EXPERIMENT[experiment]
        ):
            needed[(TASK_OF_EXPERIMENT[experiment], kind)] = None
    requests = [
        (task, kind, missing_seeds(task, kind, seeds, [BUNDLED_DIR, cache_dir], cfg), cfg)
        for task, kind in needed
    ]
    batches = plan_batches(requests, cache_dir, workers=workers, seed_batches=seed_batches)
    if not batches:
        return []
    run_batches(
        batches,
        workers=workers,
        backend="dask" if backend == "dask" else "local",
        on_progress=on_progress,
        timeout=dask_timeout,
    )
    return sorted(checkpoint_name(b.task, b.kind, s) for b in batches for s in b.seeds)


def reproduce(
    experiments: Sequence[str],
    cfg: ReproduceConfig,
    out: Path | str,
    *,
    cache_dir: str = "runs/checkpoints",
    jobs: int = 1,
    backend: str = "loky",
    progress: Callable[[str, SeedResult], None] | None = None,
    training_progress: Callable[[ProgressBoard], None] | None = None,
    seed_batches: bool = True,
    audit_seeds: int = AUDIT_SEEDS,
    dask_timeout: float = DASK_TIMEOUT,
) -> dict:
    """Run the experiments, aggregate, apply the verdicts and write the result set.

    Parameters
    ----------
    experiments : sequence of {"e1", "e2", "e3", "e4"}
        Which pipelines to run (E4, issue 15: its claims have no paper number; its hypotheses
        H1-H6 are tested by :mod:`labcore.experiments.e4_hypotheses` and written as ``hypotheses``).
    cfg : ReproduceConfig
        Seeds and evaluation budgets.
    out : path
        The result directory (created if needed); files as in :mod:`labcore.storage.results`.
    cache_dir : str
        Where agents trained on demand are cached.
    jobs, backend : int, {"loky", "dask"}
        How seeds fan out (:func:`labcore.experiments.common.run_seeds`); ``"dask"`` runs
        seeds and training on the cluster of the current ``distributed`` client.
    progress : callable, optional
        Called as ``progress(experiment, seed_result)`` after each seed.
    training_progress : callable, optional
        Called with the :class:`~labcore.training.provision.ProgressBoard` while missing agents
        train.
    seed_batches : bool
        Train the missing seeds of each kind as one seed-batched model (default) or one by one.
    audit_seeds : int
        Seeds (the first ones) on which the pipelines also run untrained agents, for the
        construction audit (:mod:`labcore.experiments.construction`); 0 skips it.
    dask_timeout : float
        With ``backend="dask"``: seconds to wait, with nothing finished, for a cluster that
        has no worker, before :class:`~labcore.cluster.DistributedRunError` (0: no limit).

    Returns
    -------
    dict
        The summary, as written to ``summary.json`` (JSON-clean).

    Notes
    -----
    A result set is never left mixed. Nothing in ``out`` changes while the experiments run, so
    a run stopped then leaves the old set intact. Writing then starts by deleting the old
    ``summary.json`` (and the old ``report.html``, which describes the old set); the data files
    follow, each written atomically, and old data files this run does not write are deleted;
    ``summary.json`` comes last and lists the SHA-256 of every data file (the ``files``
    manifest). A run stopped while writing therefore leaves no summary (pages say
    ``summary.json is missing``), and :func:`labcore.storage.results.load_results` ignores any data
    file that does not match the manifest of the summary beside it. Other files in ``out``
    (e.g. ``exploratory_gain.json``) are left alone.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    trained = provision_agents(
        experiments,
        cfg.seeds,
        cache_dir,
        workers=jobs,
        backend=backend,
        seed_batches=seed_batches,
        on_progress=training_progress,
        dask_timeout=dask_timeout,
    )
    results: dict[str, list[SeedResult]] = {}
    for name in experiments:
        module = PIPELINES[name]
        results[name] = run_seeds(
            module.run_seed,
            list(cfg.seeds),
            cfg,
            cache_dir,
            jobs=jobs,
            backend=backend,
            timeout=dask_timeout,
            progress=(lambda r, n=name: progress(n, r)) if progress else None,
        )
    all_results = [r for rs in results.values() for r in rs]
    cross: dict[str, float] = {}
    if "e2" in results:
        cross.update(e2.cross_seed(results["e2"]))
    if "e3" in results:
        cross.update(e3.cross_seed(results["e3"]))
    if "e4" in results:
        cross.update(e4.cross_seed(results["e4"]))
    audit: dict[str, dict] = {}
    twin_values: dict[str, float] = {}
    untrained_seeds = list(cfg.seeds[:audit_seeds])
    if untrained_seeds:
        twin_cfg = replace(cfg, seeds=tuple(untrained_seeds), untrained=True)
        twins = [
            r
            for name in experiments
            for r in run_seeds(
                PIPELINES[name].run_seed,
                untrained_seeds,
                twin_cfg,
                cache_dir,
                jobs=jobs,
                backend=backend,
                timeout=dask_timeout,
            )
        ]
        closed = e2.closed_form_values() if "e2" in experiments else {}
        audit = construction.audit(all_results, twins, closed)
        twin_values = construction.twin_means(twins)
    claims, values = build_claims(all_results, cross, audit)
    hypotheses = e4_hypotheses.evaluate(results["e4"]) if "e4" in results else None
    if hypotheses is not None:
        e4_hypotheses.apply(claims, results["e4"], hypotheses)
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
        "trained": sorted(set(trained) | {x for r in all_results for x in r.trained}),
        "paper_inconsistencies": list(PAPER_INCONSISTENCIES),
        "verdict_counts": {v: sum(c["verdict"] == v for c in claims) for v in verdicts_of(claims)},
        "verdict_split": verdict_split(claims),
        "construction_audit": {
            "untrained_seeds": untrained_seeds,
            "flagged": audit,
            "untrained_means": twin_values,
            "rules": "docs/verdicts.md, 'By construction'",
        },
        **(
            {"hypotheses": hypotheses, "auroc_spread": e4_hypotheses.spread_table(results["e4"])}
            if hypotheses is not None
            else {}
        ),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "compute": compute.fingerprint(threads=1),  # the pipelines evaluate on one torch thread
    }
    # From here on the old set is being replaced: drop its summary first, so that an interrupted
    # write can never leave the old summary beside new data files (docstring, Notes).
    for name in (SUMMARY, REPORT):
        (out / name).unlink(missing_ok=True)
    written: list[str] = []
    for stem, fields in CSV_FIELDS.items():
        rows = [row for r in all_results for row in r.rows.get(stem, [])]
        if rows:
            write_csv(out / f"{stem}.csv", fields, rows)
            written.append(f"{stem}.csv")
    seed_rows = [
        {"experiment": r.experiment, "seed": r.seed, "key": k, "value": v}
        for r in all_results
        for k, v in sorted(r.values.items())
    ]
    seed_rows += [
        {"experiment": r.experiment, "seed": r.seed, "key": k, "value": l75_cell(x)}
        for r in all_results
        for k, x in sorted(r.l75.items())
    ]
    write_csv(out / SEED_VALUES, SEED_VALUE_FIELDS, seed_rows)
    figures = {
        "e2": {str(r.seed): r.figures for r in results.get("e2", [])},
        "e3": {"points": e3.composite_points(results["e3"])} if "e3" in results else {},
    }
    write_result_json(out / FIGURES, figures)
    written += [SEED_VALUES, FIGURES]
    for name in DATA_FILES:
        if name not in written:
            (out / name).unlink(missing_ok=True)  # an older run's file would pass for this run's
    summary[MANIFEST] = {name: sha256_of(out / name) for name in written}
    write_result_json(out / SUMMARY, summary, indent=1)
    return clean_json(summary)
