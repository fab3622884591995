"""Song et al.'s plain GRU on NeuroGym's post-decision wager (protocol 8.7): updates/s and time to
criterion.

Run alone (nothing else on the CPU): ``.venv/bin/python -m bench.bench_pdw [--seeds 0] [--agent
plain_gru]
[--updates N] [--live]``.

For each seed: ``labcore.training.neurogym_trainer.train_network`` under the Song setting
(``SONG_2017``: 64
trials per update, GRU baseline, stopped by the registered behavioural criterion or the cap of
12,000 updates), one torch thread. Printed: wall time (including drawing the 100,000-trial pool),
updates done and how training stopped, updates per second over the training loop, and the time
at which the criterion first held. ``--updates N`` caps the run (a quick updates/s measurement).
Target: one plain-GRU agent to its criterion in <= 5 minutes. ``--live`` times the "From
reward alone" page's live run instead (``labcore.training.neurogym_trainer.live_config``: the live
budget's cap,
checks, held-out trials and pool); target: its cap in about 2 minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from labcore.seeding import parse_seeds
from labcore.training.neurogym_trainer import (
    SONG_2017,
    NeuroGymRLConfig,
    live_config,
    train_network,
    training_pool,
)


def one_seed(
    seed: int, agent: str, updates: int | None, base: NeuroGymRLConfig = SONG_2017
) -> dict[str, float | str | None]:
    """Seconds to the stopping rule, updates/s of the loop and the first check at the criterion."""
    cfg = base if updates is None else replace(base, max_updates=updates)
    start = time.perf_counter()
    training_pool(seed, cfg.train_pool)  # drawn once per seed and process: timed apart
    pool_seconds = time.perf_counter() - start
    loop_start, first = time.perf_counter(), []

    def progress(update: int, total: int, metrics: dict) -> None:
        if not first and metrics["criterion_met"]:
            first.append(time.perf_counter() - start)

    _, record = train_network(seed, cfg, progress, agent=agent)
    loop = time.perf_counter() - loop_start
    return {
        "seconds": time.perf_counter() - start,
        "pool": pool_seconds,
        "updates": record["updates"],
        "stopped": record["stopped"],
        "per_second": record["updates"] / loop,
        "first_criterion": first[0] if first else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=parse_seeds, default=[0], help="agent seeds (default 0)")
    parser.add_argument("--agent", default="plain_gru", choices=["plain_gru", "b2_ws"])
    parser.add_argument(
        "--updates", type=int, default=None, help="cap (default: the registered 12,000)"
    )
    parser.add_argument(
        "--live", action="store_true", help="the page's live run (its budget) instead"
    )
    args = parser.parse_args()
    base = live_config() if args.live else SONG_2017
    print(
        f"{args.agent}, Song setting (protocol "
        f"8.7{', the live budget' if args.live else ''}), one seed at a "
        "time, 1 thread"
    )
    runs = []
    for seed in args.seeds:
        r = one_seed(seed, args.agent, args.updates, base)
        runs.append(r)
        first = "never" if r["first_criterion"] is None else f"{r['first_criterion']:.0f} s"
        print(
            f"  seed {seed}: {r['seconds']:.0f} s ({r['pool']:.0f} s drawing the "
            f"pool), {r['updates']} updates "
            f"({r['stopped']}), {r['per_second']:.1f} updates/s; criterion first held at {first}",
            flush=True,
        )
    median = statistics.median(r["seconds"] for r in runs)
    target = 150 if args.live else 300
    verdict = "met" if median <= target else "NOT met"
    print(
        (
            f"  median {median:.0f} s (target <= {target} "
            f"s{'' if args.live else ' to the criterion'}: {verdict}"
        )
        + (", capped run" if args.updates else "")
        + ")"
    )


if __name__ == "__main__":
    main()
