"""Shared machinery of the experiment pipelines: the agents a seed needs, and its result."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from labcore.agents import Agent, build_agent
from labcore.config import TrainConfig
from labcore.markers import L75Result
from labcore.seeding import seed_everything
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    LoadedAgent,
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
    read_manifest,
)
from labcore.training.provision import train_and_save

DEFAULT_CACHE = Path("runs") / "checkpoints"
"""Where agents trained on demand by the studies ``paper`` and ``e4`` are cached, for the next
run."""


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
    """Agents not from the bundle: trained for this run (by the unit, or before the units by the
    study's ``prepare``, which leaves them in the cache) or for an earlier one."""


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
    """A trained agent: bundled, else cached, else trained now (fast mode) and cached."""
    name = checkpoint_name(task, kind, seed)
    if untrained:
        seed_everything(seed)
        agent = build_agent(kind, seed).eval()
        return LoadedAgent(agent, f"{name}-untrained", task, seed, "untrained", None), "untrained"
    for directory, how in ((BUNDLED_DIR, "bundled"), (Path(cache_dir or DEFAULT_CACHE), "cached")):
        path = checkpoint_file(directory, name)
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

    Returns ``{kind: agent}`` for the kinds available, in the order of ``kinds``; ``result`` records
    the rest (:func:`provide_agent`). ``untrained``: the same kinds and seeds at their initial
    weights (the construction audit).
    """
    agents: dict[str, Agent] = {}
    for kind in kinds:
        loaded, how = provide_agent(task, kind, seed, cache_dir, untrained=untrained)
        if loaded is None:
            result.excluded.append(f"{task}-{kind}-s{seed} ({how})")
            continue
        if how in ("trained", "cached"):  # not bundled: trained for this run, or for an earlier one
            result.trained.append(loaded.name)
        agents[kind] = loaded.agent
    return agents


def at_step(array: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """``array[b, steps[b]]`` for a ``(B, T, ...)`` array; rows with ``steps < 0`` are nan."""
    b = np.arange(array.shape[0])
    out = array[b, np.clip(steps, 0, array.shape[1] - 1)].astype(float)
    out[steps < 0] = np.nan
    return out
