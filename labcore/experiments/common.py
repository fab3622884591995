"""Shared machinery of the experiment pipelines: agents, seed fan-out, aggregation, verdicts.

A pipeline is one function per seed (``run_seed(seed, cfg, cache_dir) -> SeedResult``) that
returns plain numbers; everything across seeds (means, CIs, tests, the composite regression,
verdicts) happens afterwards in the parent process.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from labcore.agents import Agent, build_agent
from labcore.budgets import ReproduceConfig
from labcore.cluster import DASK_TIMEOUT, run_on_cluster
from labcore.config import TrainConfig
from labcore.markers import L75Result
from labcore.paper import verdict
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.parallel import process_map
from labcore.seeding import seed_everything
from labcore.stats import pattern_value, summarize, summarize_l75
from labcore.storage.checkpoint_format import checkpoint_name
from labcore.storage.checkpoint_manifest import BUNDLED_DIR, read_manifest
from labcore.storage.checkpoints import LoadedAgent, load_checkpoint
from labcore.training.provision import train_and_save

DEFAULT_CACHE = Path("runs") / "checkpoints"
"""Where agents trained on demand by ``reproduce`` are cached for the next run."""


@dataclass
class SeedResult:
    """What one seed of one experiment produced."""

    experiment: str
    seed: int
    values: dict[str, float] = field(default_factory=dict)
    """Per-seed numbers keyed by claim id (and auxiliary keys)."""
    l75: dict[str, dict] = field(default_factory=dict)
    """Per-seed L75 results (``value``, ``censored``, ``bound``) keyed by claim id."""
    rows: dict[str, list[dict]] = field(default_factory=dict)
    """Trial-level rows for the CSV files, keyed by file stem."""
    figures: dict = field(default_factory=dict)
    """Arrays for figures that the CSVs do not carry (JSON-able lists)."""
    excluded: list[str] = field(default_factory=list)
    """Agents of this seed left out (below the agreement criterion)."""
    trained: list[str] = field(default_factory=list)
    """Agents that had to be trained for this run (not bundled, not cached)."""


def l75_dict(result: L75Result) -> dict:
    """The JSON-able record of one seed's L75 (``value``, ``censored``, ``bound``)."""
    return {
        "value": None if math.isnan(result.value) else float(result.value),
        "censored": result.censored,
        "bound": None if result.bound is None else float(result.bound),
    }


def provide_agent(
    task: str,
    kind: str,
    seed: int,
    cache_dir: Path | str | None = None,
    train_missing: bool = True,
    untrained: bool = False,
) -> tuple[LoadedAgent | None, str]:
    """A trained agent: bundled, else cached, else trained now (fast mode) and cached.

    Returns ``(agent, how)`` with ``how`` in {"bundled", "cached", "trained", "excluded",
    "missing", "untrained"}; an agent below the 95% criterion comes back as
    ``None, "excluded"``. ``untrained``: the same kind and seed at its initial weights (what
    training starts from), for the construction audit.
    """
    name = checkpoint_name(task, kind, seed)
    if untrained:
        seed_everything(seed)
        agent = build_agent(kind, seed).eval()
        return LoadedAgent(agent, f"{name}-untrained", task, seed, "untrained", None), "untrained"
    for directory, how in ((BUNDLED_DIR, "bundled"), (Path(cache_dir or DEFAULT_CACHE), "cached")):
        path = directory / f"{name}.safetensors"
        if path.exists():
            entry = read_manifest(directory)["checkpoints"].get(name, {})
            if entry.get("excluded"):
                return None, "excluded"
            return load_checkpoint(path), how
    if not train_missing:
        return None, "missing"
    record = train_and_save(task, kind, [seed], TrainConfig(), Path(cache_dir or DEFAULT_CACHE))[0]
    if record["excluded"]:
        return None, "excluded"
    return load_checkpoint(record["path"]), "trained"


def provide_agents(
    result: SeedResult,
    task: str,
    kinds: Sequence[str],
    seed: int,
    cache_dir: Path | str | None = None,
    *,
    untrained: bool = False,
) -> dict[str, Agent]:
    """The agents of one seed for a pipeline, with the bookkeeping every pipeline needs.

    Each kind comes from :func:`provide_agent`; a kind that is excluded (or missing) is
    recorded in ``result.excluded`` as ``"<task>-<kind>-s<seed> (<how>)"`` and left out, a
    kind trained for this run is recorded in ``result.trained``.

    Parameters
    ----------
    result : SeedResult
        The seed's result, updated in place.
    task : {"dual", "wagering"}
    kinds : sequence of str
        Agent kinds, in order.
    seed : int
        The agent seed.
    cache_dir : path, optional
        Where agents trained on demand are cached.
    untrained : bool
        Untrained agents of the same kinds and seeds (the construction audit).

    Returns
    -------
    dict
        ``{kind: agent}`` for the kinds available, in the order of ``kinds``.
    """
    agents: dict[str, Agent] = {}
    for kind in kinds:
        loaded, how = provide_agent(task, kind, seed, cache_dir, untrained=untrained)
        if loaded is None:
            result.excluded.append(f"{task}-{kind}-s{seed} ({how})")
            continue
        if how == "trained":
            result.trained.append(loaded.name)
        agents[kind] = loaded.agent
    return agents


def at_step(array: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """``array[b, steps[b]]`` for a ``(B, T, ...)`` array; rows with ``steps < 0`` are nan."""
    b = np.arange(array.shape[0])
    out = array[b, np.clip(steps, 0, array.shape[1] - 1)].astype(float)
    out[steps < 0] = np.nan
    return out


def build_claims(
    seed_results: Sequence[SeedResult],
    cross: dict[str, float] | None = None,
    construction: Mapping[str, Mapping] | None = None,
) -> tuple[list[dict], dict]:
    """Aggregate per-seed values into claim summaries and apply the pre-registered verdicts.

    ``construction`` is the construction audit (:func:`labcore.experiments.construction.audit`):
    a claim it flags is marked ``by_construction`` (as is a claim the reference table
    declares so) and its reason says which rule flagged it, with the numbers.

    Returns ``(claims, values)``: the claim list for ``summary.json`` and every aggregated
    number (claims and auxiliary keys) by key.
    """

    per_key: dict[str, list[float]] = {}
    per_l75: dict[str, list[dict]] = {}
    for r in seed_results:
        for k, v in r.values.items():
            per_key.setdefault(k, []).append(v)
        for k, v in r.l75.items():
            per_l75.setdefault(k, []).append(v)
    summaries = {k: summarize(v) for k, v in per_key.items()}
    summaries.update({k: summarize_l75(v) for k, v in per_l75.items()})
    for k, v in (cross or {}).items():
        summaries[k] = {
            "mean": None if math.isnan(v) else float(v),
            "sd": None,
            "n": 1 if not math.isnan(v) else 0,
            "ci95": None,
        }
    values = {k: pattern_value(s) for k, s in summaries.items()}
    claims = []
    experiments = {r.experiment for r in seed_results}
    for claim_id, spec in CLAIMS_BY_ID.items():
        if claim_id.split(".")[0] not in experiments:
            continue
        ours = summaries.get(claim_id, {"mean": None, "sd": None, "n": 0, "ci95": None})
        v, reason = verdict(spec, ours, values)
        flagged = (construction or {}).get(claim_id)
        if flagged:
            reason = f"{reason} {flagged['reason']}"
        claims.append(
            {
                "id": claim_id,
                "description": spec.description,
                "paper": None
                if spec.paper.value is None
                else {  # None: the paper has no number (E4)
                    "value": spec.paper.value,
                    "sd": spec.paper.sd,
                    "n": spec.paper.n,
                    "bound": spec.paper.bound,
                    "section": spec.paper.section,
                },
                "ours": ours,
                "verdict": v,
                "reason": reason,
                "by_construction": spec.by_construction is not None or flagged is not None,
                "construction_rule": flagged["rule"]
                if flagged
                else ("declared" if spec.by_construction else None),
                **({"hypothesis": spec.hypothesis} if spec.hypothesis else {}),
            }
        )
    return claims, values


Runner = Callable[[int, ReproduceConfig, str], SeedResult]


def run_seeds(
    run_seed: Runner,
    seeds: Sequence[int],
    cfg: ReproduceConfig,
    cache_dir: str,
    *,
    jobs: int = 1,
    backend: str = "loky",
    progress: Callable[[SeedResult], None] | None = None,
    client: Any = None,
    timeout: float = DASK_TIMEOUT,
) -> list[SeedResult]:
    """Run ``run_seed`` for every seed, here, in worker processes or on a Dask cluster.

    Parameters
    ----------
    run_seed : callable
        ``run_seed(seed, cfg, cache_dir) -> SeedResult`` (module level, so that it pickles).
    seeds : sequence of int
    cfg : ReproduceConfig
    cache_dir : str
        Where agents trained on demand are cached.
    jobs : int
        With ``backend="loky"``: processes side by side (:func:`labcore.parallel.process_map`,
        spawned; 1: this process, in seed order).
    backend : {"loky", "dask"}
        ``"loky"`` (the command line's name of local processes) runs the seeds here or in
        :mod:`labcore.parallel`'s pool; ``"dask"`` submits one task per seed to the cluster
        of ``client`` (default: the current client) with
        :func:`labcore.cluster.run_on_cluster`: every seed runs on a worker, none in this
        process.
    progress : callable, optional
        Called with each seed's result as it finishes.
    client : distributed.Client, optional
        With ``backend="dask"``.
    timeout : float
        With ``backend="dask"``: seconds to wait, with nothing finished, for a cluster that
        has no worker (0: no limit).

    Returns
    -------
    list of SeedResult
        In seed order; the same numbers whatever the backend.

    Raises
    ------
    DistributedRunError
        With ``backend="dask"``: a seed failed on the cluster (it raised, or its workers kept
        dying), or the cluster had no worker for ``timeout`` seconds.
    """
    if backend == "dask":
        calls = [(s, cfg, cache_dir) for s in seeds]
        results = run_on_cluster(
            run_seed,
            calls,
            [f"seed {s}" for s in seeds],
            client=client,
            timeout=timeout,
            on_result=(lambda _, r: progress(r)) if progress else None,
        )
        return sorted(results, key=lambda r: r.seed)
    if backend != "loky":
        raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
    results = process_map(
        run_seed,
        [(s, cfg, cache_dir) for s in seeds],
        jobs,
        on_result=(lambda _, r: progress(r)) if progress else None,
    )
    return results if jobs == 1 else sorted(results, key=lambda r: r.seed)
