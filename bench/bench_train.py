"""Training speed on this machine: seed batches against one seed at a time, side by side.

Run alone (nothing else on the CPU): ``.venv/bin/python -m bench.bench_train [--quick]
[--paper-full]``.

1. Growth: N = 1, 2, 5, 10, 20 seeds of dual-task B1 as one batch, a fixed 100 updates each
   (one process, one thread): seconds and the cost of N seeds relative to one.
2. Twenty seeds of dual-task B1 to the convergence criterion with 2 processes: seed batches
   (2 batches of 10) against one seed at a time (``--no-seed-batch``).
3. The paper's online schedule for E3 (8,000 episodes, one update per step), 5 seeds of B1
   at once: timed on a prefix and projected (``--paper-full`` runs it in full).
4. E1 (B2 workspace-read): fast mode to the criterion against the paper's 4,000 episodes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace

from labcore.config import TrainConfig
from labcore.training.behaviour_cloning import train_seeds
from labcore.training.provision import plan_batches, run_batches


def growth(ns: tuple[int, ...], updates: int = 100) -> dict[int, float]:
    """Seconds for ``updates`` fast-mode updates of N dual-task B1 seeds in one batch."""
    cfg = TrainConfig(max_updates=updates, min_updates=updates, eval_every=updates // 2)
    out = {}
    for n in ns:
        start = time.perf_counter()
        train_seeds("dual", "b1", list(range(100, 100 + n)), cfg)
        out[n] = time.perf_counter() - start
        print(
            f"  N = {n:2d}: {out[n]:6.1f} s  ({out[n] / n:5.2f} s per seed; "
            f"cost {out[n] / out[ns[0]]:5.2f} x one seed = {out[n] / out[ns[0]] / n:.2f} N)",
            flush=True,
        )
    return out


def twenty(seed_batches: bool, workers: int = 2) -> tuple[float, list[dict]]:
    """Wall seconds to train 20 dual-task B1 seeds to the criterion (checkpoints written)."""
    with tempfile.TemporaryDirectory() as out:
        batches = plan_batches(
            [("dual", "b1", range(100, 120), TrainConfig())],
            out,
            workers=workers,
            seed_batches=seed_batches,
        )
        start = time.perf_counter()
        records = run_batches(batches, workers=workers)
        return time.perf_counter() - start, records


def paper(
    task: str, kind: str, seeds: list[int], episodes: int, total: int
) -> tuple[float, float, list[dict]]:
    """Seconds for ``episodes`` paper-schedule episodes of a seed batch, and the projection to
    ``total``."""
    cfg = TrainConfig(mode="paper", train_episodes=episodes, heldout_episodes=200)
    start = time.perf_counter()
    trained = train_seeds(task, kind, seeds, cfg)
    seconds = time.perf_counter() - start
    return seconds, seconds / episodes * total, [t.record for t in trained]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--quick", action="store_true", help="growth curve and paper projections only"
    )
    parser.add_argument(
        "--paper-full", action="store_true", help="run E3's 8,000-episode paper schedule in full"
    )
    args = parser.parse_args()

    print("1. Growth: N seeds of dual-task B1 as one batch, 100 updates, 1 process")
    cost = growth((1, 2, 5, 10, 20))
    print(
        f"   cost of 20 seeds relative to one: {cost[20] / cost[1]:.2f} x = "
        f"{cost[20] / cost[1] / 20:.2f} N"
    )

    if not args.quick:
        print("2. Twenty seeds of dual-task B1 to the criterion, 2 processes")
        batched, records = twenty(True)
        print(
            f"   seed batches (2 x 10): {batched:.0f} s; agreement min "
            f"{min(r['heldout_agreement'] for r in records):.4f}, "
            f"updates {min(r['updates'] for r in records)}-{max(r['updates'] for r in records)}",
            flush=True,
        )
        solo, records = twenty(False)
        print(f"   one seed at a time:    {solo:.0f} s; ratio {solo / batched:.1f}x")

    print("3. Paper schedule, E3 (8,000 episodes), 5 seeds of B1 at once")
    episodes = 8000 if args.paper_full else 50
    seconds, projected, records = paper("dual", "b1", [0, 1, 2, 3, 4], episodes, 8000)
    what = (
        "measured in full"
        if args.paper_full
        else f"{seconds:.0f} s for {episodes} episodes, projected"
    )
    print(
        f"   {projected / 60:.1f} min ({what}); updates per seed {records[0]['updates']}"
        + (
            f"; agreement {[round(r['heldout_agreement'], 4) for r in records]}"
            if args.paper_full
            else ""
        )
    )

    if not args.quick:
        print("4. E1 (B2 workspace-read): fast mode vs the paper's 4,000 episodes, one seed")
        fast = []
        for seed in range(3):
            start = time.perf_counter()
            rec = train_seeds("wagering", "b2_ws", [seed], TrainConfig())[0].record
            fast.append((time.perf_counter() - start, rec["heldout_agreement"]))
        median = statistics.median(s for s, _ in fast)
        print(
            f"   fast: {median:.1f} s median of 3 seeds; agreement {[round(a, 4) for _, a in fast]}"
        )
        seconds, _, records = paper("wagering", "b2_ws", [0], 4000, 4000)
        print(
            f"   paper, in full: {seconds:.0f} s, {records[0]['updates']} updates, agreement "
            f"{records[0]['heldout_agreement']:.4f}; ratio {seconds / median:.0f}x"
        )
        five = replace(TrainConfig(mode="paper"), train_episodes=4000, heldout_episodes=200)
        start = time.perf_counter()
        train_seeds("wagering", "b2_ws", [0, 1, 2, 3, 4], five)
        print(f"   paper, 5 seeds as one batch: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
