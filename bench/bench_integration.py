"""Every integration measure for one agent and condition (target: <= 2 s for 32 episodes).

Run: ``.venv/bin/python -m bench.bench_integration``. For each bundled dual-task kind (seed 0,
intact) it rolls out 32 episodes with and without E3's pulse once, then times
``labcore.measures_integration.integration_readings`` (Phi_E, O-information and TSE on every signal
the
agent records, intact and evoked, at the registered ridge; no surrogates) three times and
prints the median wall time, and the rollouts' time apart. ``--surrogates N`` adds N
circular-shift surrogates per value (the study uses 4).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from labcore.measures_integration import integration_readings, integration_runs
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
)

TARGET_SECONDS = 2.0
EPISODES = 32


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", default="a0,a1,b1,b2")
    parser.add_argument("--surrogates", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for kind in args.kinds.split(","):
        agent = load_checkpoint(
            checkpoint_file(BUNDLED_DIR, checkpoint_name("dual", kind, 0))
        ).agent
        start = time.perf_counter()
        runs = integration_runs(agent, episode_seeds(0, "eval", EPISODES))
        rollouts = time.perf_counter() - start
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            readings = integration_readings(runs, n_surrogates=args.surrogates)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        flag = "" if median <= TARGET_SECONDS else "  (target not met)"
        print(
            f"{kind}: {len(readings)} values (signals {', '.join(runs.signals())}) in "
            f"{median:.2f} s median of "
            f"{args.repeats}{flag}; the two rollouts {rollouts:.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
