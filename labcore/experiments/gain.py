"""Exploratory, post hoc: does training length decide B1's fragility to workspace noise?"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Agent
from labcore.config import TrainConfig
from labcore.experiments.e2 import bus_audit
from labcore.io import write_json
from labcore.markers import l75
from labcore.measures import titration
from labcore.rollout import rollout
from labcore.seeding import episode_seeds, parse_seeds
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
    read_record,
)
from labcore.training.behaviour_cloning import train_seeds

SIGMAS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


def measure(agent: Agent, seed: int, episodes: int = 50) -> dict:
    """Bus Jacobian (T1), L75 under stored workspace noise, clean accuracy."""
    seeds = episode_seeds(seed, "eval", episodes)
    audit = bus_audit(agent, rollout(agent, E.DUAL_TASK, seeds))
    accs = titration(agent, seeds, SIGMAS, noise_mode="stored", target="workspace")
    result = l75(SIGMAS, accs)
    return {
        "jacobian": audit["e2.audit.jacobian"],
        "l75": None if result.censored != "none" else float(result.value),
        "l75_text": str(result),
        "accuracy": accs[0],
        "curve": accs,
    }


def run(seeds: list[int], updates: int) -> dict:
    """Bundled B1 beside B1 retrained for ``updates`` updates, per seed, with a summary (post
    hoc)."""
    torch.set_num_threads(1)
    longer = train_seeds("dual", "b1", seeds, TrainConfig(max_updates=updates, min_updates=updates))
    rows = []
    for seed, trained in zip(seeds, longer, strict=True):
        name = checkpoint_name("dual", "b1", seed)
        bundled = load_checkpoint(checkpoint_file(BUNDLED_DIR, name)).agent
        converged = read_record(BUNDLED_DIR, name)["updates"]
        for training, n, agent in (
            ("bundled (convergence rule)", converged, bundled),
            (f"fixed {updates} updates", updates, trained.agent),
        ):
            rows.append({"seed": seed, "training": training, "updates": n, **measure(agent, seed)})
    summary = {}
    for label in {r["training"] for r in rows}:
        sel = [r for r in rows if r["training"] == label]
        summary[label] = {
            "jacobian": float(np.median([r["jacobian"] for r in sel])),
            "l75": [r["l75_text"] for r in sel],
        }
    return {
        "description": __doc__.split("\n\n")[0],
        "sigmas": list(SIGMAS),
        "rows": rows,
        "summary": summary,
        "post_hoc": True,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m labcore.experiments.gain``: retrain B1 longer and write exploratory_gain.json."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.experiments.gain", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seeds", type=parse_seeds, default=[0, 1, 2])
    parser.add_argument("--updates", type=int, default=3000)
    parser.add_argument("--out", default="results/bundled")
    args = parser.parse_args(argv)
    result = run(args.seeds, args.updates)
    write_json(Path(args.out) / "exploratory_gain.json", result)
    for r in result["rows"]:
        print(
            f"seed {r['seed']}  {r['training']:28s} updates {r['updates']:5d}  "
            f"Jacobian {r['jacobian']:7.2f}  "
            f"L75 {r['l75_text']:>8s}  clean accuracy {r['accuracy']:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
