"""What training the bundle costs, kind by kind, from the training records the bundled agents
carry (each records the wall seconds of the seed batch it trained in), and what the measured
dissociations' kinds (protocol 11) add to it (their budget: at most half again).

Run: ``.venv/bin/python -m bench.bench_bundle`` reads ``checkpoints/`` and trains nothing: the
figures are the batches' own wall times on the machine that trained them (each record's
``compute`` fingerprint says which); a batch trained beside another job, or with more seeds, took
longer. ``--retrain`` also trains the measured kinds' bundled seeds again as the bundle is made
(portable mode, one seed batch of seeds 0-4 per kind, two workers) into a temporary folder and
times it: run nothing else meanwhile.
"""

from __future__ import annotations

from labcore.storage.checkpoints import BUNDLED_DIR, read_manifest, read_record

MEASURED_KINDS = ("b2_routes", "b1_gate", "b1_gate_full")
"""The kinds of the study "dissociations" (labcore.experiments.dissociations)."""


def batch_seconds() -> dict[tuple[str, str, tuple[int, ...]], float]:
    """Each seed batch of the bundle, ``(task, kind, seeds)``, with its recorded wall seconds."""
    batches = {}
    for name in read_manifest(BUNDLED_DIR)["checkpoints"]:
        record = read_record(BUNDLED_DIR, name)
        seeds = tuple(record.get("batch_seeds") or [record["seed"]])
        batches[(record["task"], record["kind"], seeds)] = float(record["wall_seconds"])
    return batches


def retrain_seconds() -> tuple[float, float]:
    """Wall seconds to train the measured kinds' bundled seeds as the bundle is made, and the sum
    of those batches' own wall times (as their records give them, like the bundle's figure)."""
    import os
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    code = (
        "from labcore.config import TrainConfig\n"
        "from labcore.training.provision import plan_batches, run_batches\n"
        "import sys\n"
        "requests = [('post_decision', 'b2_routes', range(5), TrainConfig()),\n"
        "            ('dual', 'b1_gate', range(5), TrainConfig()),\n"
        "            ('dual', 'b1_gate_full', range(5), TrainConfig())]\n"
        "batches = plan_batches(requests, sys.argv[1], workers=2)\n"
        "run_batches(batches, workers=2)\n"
    )
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code, out],
            check=True,
            cwd=Path(__file__).resolve().parent.parent,
            env={**os.environ, "CTLAB_COMPUTE": "portable"},
        )
        elapsed = time.perf_counter() - start
        walls = {}
        for name in read_manifest(Path(out))["checkpoints"]:
            record = read_record(Path(out), name)
            walls[tuple(record.get("batch_seeds") or [record["seed"]]), record["kind"]] = float(
                record["wall_seconds"]
            )
        return elapsed, sum(walls.values())


def main() -> None:
    """Print the summed batch wall time of the bundle without and with the measured kinds."""
    import sys

    batches = batch_seconds()
    measured = sum(s for (_, kind, _), s in batches.items() if kind in MEASURED_KINDS)
    rest = sum(s for (_, kind, _), s in batches.items() if kind not in MEASURED_KINDS)
    agents = len(read_manifest(BUNDLED_DIR)["checkpoints"])
    print(f"{agents} bundled agents in {len(batches)} seed batches")
    print(f"the paper's and E4's kinds: {rest:,.0f} s of batch wall time")
    share = measured / rest if rest else float("nan")
    print(f"the measured dissociations' kinds: {measured:,.0f} s (+{share:.0%}; budget +50%)")
    if "--retrain" in sys.argv:
        elapsed, summed = retrain_seconds()
        print(
            f"retrained now, 15 agents, 3 seed batches of 5, 2 workers: {elapsed:,.0f} s wall; "
            f"the batches' own wall times sum to {summed:,.0f} s (+{summed / rest:.0%} on the "
            "paper's and E4's kinds; budget +50%)"
        )


if __name__ == "__main__":
    main()
