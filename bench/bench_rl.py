"""Reinforcement learning on the wagering task (E4 arm (b), ``reward_all``) against behaviour
cloning.

Run alone (nothing else on the CPU): ``.venv/bin/python -m bench.bench_rl [--seeds 0,1,2]
[--no-bc]``.

For each seed: the wall time of ``labcore.training.actor_critic.train_seeds`` until its registered
convergence
rule stops it (protocol 8.3), the time at which its held-out greedy accuracy first reached the
criterion (0.80; evaluations every 50 updates), and the final held-out accuracy and Type-2
AUROC; then the same seed of E1's agent (``b2_ws``) behaviour-cloned to its own rule
(``labcore.training.behaviour_cloning.train_seeds``, fast mode), and the ratio of the two.
Target: one RL agent to its criterion in <= 2 minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time

from labcore.config import TrainConfig
from labcore.seeding import parse_seeds
from labcore.training.actor_critic import RLConfig
from labcore.training.actor_critic import train_seeds as rl_train_seeds
from labcore.training.behaviour_cloning import train_seeds


def rl_seed(seed: int, cfg: RLConfig) -> dict[str, float | None]:
    """Seconds to the convergence rule and to the first evaluation at the criterion, and the
    record's values."""
    start = time.perf_counter()
    reached: list[float] = []

    def progress(update: int, total: int, metrics: dict) -> None:
        if not reached and metrics["accuracy"] >= cfg.criterion:
            reached.append(time.perf_counter() - start)

    record = rl_train_seeds("wagering", "reward_all", [seed], cfg, progress)[0].record
    return {
        "seconds": time.perf_counter() - start,
        "to_criterion": reached[0] if reached else None,
        "accuracy": record["heldout_accuracy"],
        "auroc": record["heldout_auroc"],
        "updates": record["updates"],
        "best_update": record["best_update"],
    }


def bc_seed(seed: int) -> tuple[float, float]:
    """Seconds to train E1's ``b2_ws`` seed by behaviour cloning (fast mode, alone) and its
    agreement."""
    start = time.perf_counter()
    record = train_seeds("wagering", "b2_ws", [seed], TrainConfig())[0].record
    return time.perf_counter() - start, record["heldout_agreement"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=parse_seeds, default=[0], help="agent seeds (default 0)")
    parser.add_argument("--no-bc", action="store_true", help="skip the behaviour-cloning reference")
    args = parser.parse_args()
    cfg = RLConfig()
    print("reward_all (A2C + GAE from the task's reward), one seed at a time, 1 thread")
    rl = []
    for seed in args.seeds:
        r = rl_seed(seed, cfg)
        rl.append(r)
        at = "never" if r["to_criterion"] is None else f"{r['to_criterion']:.1f} s"
        auroc = "undefined" if r["auroc"] is None else f"{r['auroc']:.3f}"
        print(
            f"  seed {seed}: {r['seconds']:.1f} s to the stopping rule ({r['updates']} "
            "updates, best "
            f"{r['best_update']}); criterion 0.80 reached at {at}; held-out accuracy "
            f"{r['accuracy']:.3f}, "
            f"AUROC {auroc}",
            flush=True,
        )
    median = statistics.median(r["seconds"] for r in rl)
    print(f"  median {median:.1f} s (target <= 120 s: {'met' if median <= 120 else 'NOT met'})")
    if not args.no_bc:
        bc = [bc_seed(seed) for seed in args.seeds]
        bc_median = statistics.median(s for s, _ in bc)
        print(
            f"b2_ws by behaviour cloning, same seeds: median {bc_median:.1f} s "
            f"(agreement {[round(a, 4) for _, a in bc]}); RL / BC = {median / bc_median:.1f}x"
        )


if __name__ == "__main__":
    main()
