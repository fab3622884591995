"""Training speed on this machine (issue: agents and fast behaviour cloning).

Run alone (nothing else on the CPU): ``.venv/bin/python -m bench.bench_train [--paper-full]``.

1. Fast mode: one B2 (workspace-read) agent for E1 to the convergence criterion.
2. Paper mode: the same agent with the paper's online schedule, timed on a measured prefix of
   episodes and projected to the paper's 4,000 (``--paper-full`` runs all 4,000 and checks
   that the paper-mode agent meets the same 95% criterion). Same for the dual task (B1).
3. Twenty seeds of one kind (dual-task B1) with 2 processes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from labcore.config import TrainConfig
from labcore.training import train_agent


def fast(task: str, kind: str, seeds: range) -> list[dict]:
    out = []
    for seed in seeds:
        rec = train_agent(task, kind, seed, TrainConfig()).record
        out.append({"seed": seed, "seconds": rec["wall_seconds"], "agreement": rec["heldout_agreement"],
                    "updates": rec["updates"]})
    return out


def paper(task: str, kind: str, episodes: int) -> dict:
    start = time.perf_counter()
    rec = train_agent(task, kind, 0, TrainConfig(mode="paper", train_episodes=episodes, heldout_episodes=200)).record
    return {"episodes": episodes, "seconds": time.perf_counter() - start, "agreement": rec["heldout_agreement"],
            "updates": rec["updates"]}


def twenty_seeds(task: str, kind: str) -> float:
    from joblib import Parallel, delayed

    from labcore.checkpoints import save_checkpoint

    def one(seed: int, out: str) -> float:
        trained = train_agent(task, kind, seed, TrainConfig())
        save_checkpoint(trained.agent, trained.record, out)
        return trained.record["heldout_agreement"]

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        agreements = Parallel(n_jobs=2)(delayed(one)(s, out) for s in range(100, 120))
        seconds = time.perf_counter() - start
    print(f"  20 seeds: min agreement {min(agreements):.4f}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paper-full", action="store_true", help="run the whole 4,000-episode paper schedule for E1")
    args = parser.parse_args()

    runs = fast("wagering", "b2_ws", range(3))
    secs = [r["seconds"] for r in runs]
    print(f"E1 B2 fast mode to criterion: {statistics.median(secs):.1f} s median of 3 seeds "
          f"({', '.join(f'{s:.1f}' for s in secs)}); agreement {[round(r['agreement'], 4) for r in runs]}")
    e1_fast = statistics.median(secs)

    if args.paper_full:
        full = paper("wagering", "b2_ws", 4000)
        print(f"E1 B2 paper mode, all 4000 episodes: {full['seconds']:.0f} s, {full['updates']} updates, "
              f"held-out agreement {full['agreement']:.4f} (criterion 0.95: "
              f"{'met' if full['agreement'] >= 0.95 else 'NOT met'})")
        paper_seconds = full["seconds"]
    else:
        prefix = paper("wagering", "b2_ws", 200)
        paper_seconds = prefix["seconds"] / prefix["episodes"] * 4000
        print(f"E1 B2 paper mode: {prefix['seconds']:.1f} s for 200 episodes -> {paper_seconds:.0f} s projected for 4000")
    print(f"  ratio paper / fast (E1): {paper_seconds / e1_fast:.0f}x")

    dual = fast("dual", "b1", range(1))[0]
    prefix = paper("dual", "b1", 40)
    projected = prefix["seconds"] / prefix["episodes"] * 4000
    print(f"E2 B1 fast mode: {dual['seconds']:.1f} s; paper mode {prefix['seconds']:.1f} s for 40 episodes -> "
          f"{projected:.0f} s projected for 4000; ratio {projected / dual['seconds']:.0f}x")

    print(f"20 seeds of dual-task B1, 2 processes: {twenty_seeds('dual', 'b1'):.0f} s")


if __name__ == "__main__":
    main()
