"""Seed batches on disk: planning, worker processes, a real Dask cluster, progress."""

from __future__ import annotations

import pytest
import torch

from labcore.config import TrainConfig
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint, read_manifest
from labcore.training.provision import (
    BatchProgress,
    ProgressBoard,
    missing_seeds,
    plan_batches,
    run_batches,
)

TINY = TrainConfig(
    max_updates=20, min_updates=20, eval_every=10, train_episodes=100, heldout_episodes=20
)


def _weights(directory, name):
    return load_checkpoint(checkpoint_file(directory, name)).agent.state_dict()


def _same(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.values(), b.values(), strict=True))


def test_plan_batches_splits_for_workers_and_keeps_kinds_together():
    one = plan_batches([("dual", "b1", range(5), TINY)], "out", workers=2)
    assert [b.seeds for b in one] == [(0, 1, 2), (3, 4)]
    many = plan_batches([("dual", k, range(5), TINY) for k in ("a0", "a1", "b1")], "out", workers=2)
    assert sorted(b.kind for b in many) == ["a0", "a1", "b1"] and all(
        len(b.seeds) == 5 for b in many
    )
    alone = plan_batches([("dual", "b1", [3, 4], TINY)], "out", workers=1, seed_batches=False)
    assert [b.seeds for b in alone] == [(3,), (4,)]
    assert plan_batches([("dual", "b1", [], TINY)], "out") == []


@pytest.mark.slow
def test_batches_in_worker_processes_give_the_same_checkpoints_as_one_batch(tmp_path):
    # One batch in this process, two batches in two spawned processes, and one seed at a
    # time: the same seeds get the same weights, bit for bit.
    here, there, alone = tmp_path / "here", tmp_path / "there", tmp_path / "alone"
    seen: list[ProgressBoard] = []
    run_batches(
        plan_batches([("wagering", "b2_ws", [0, 1, 2], TINY)], here, workers=1),
        workers=1,
        on_progress=seen.append,
    )
    records = run_batches(
        plan_batches([("wagering", "b2_ws", [0, 1, 2], TINY)], there, workers=2), workers=2
    )
    run_batches(plan_batches([("wagering", "b2_ws", [1], TINY)], alone, seed_batches=False))
    assert sorted(r["seed"] for r in records) == [0, 1, 2]
    assert {tuple(r["batch_seeds"]) for r in records} == {(0, 1), (2,)}
    for seed in (0, 1, 2):
        assert _same(
            _weights(here, f"wagering-b2_ws-s{seed}"), _weights(there, f"wagering-b2_ws-s{seed}")
        )
    assert _same(_weights(here, "wagering-b2_ws-s1"), _weights(alone, "wagering-b2_ws-s1"))
    assert seen and seen[-1].members == (3, 3) and seen[-1].fraction == 1.0
    assert missing_seeds("wagering", "b2_ws", [0, 1, 2, 3], [here], TINY) == [3]


@pytest.mark.slow
def test_batches_on_a_real_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    local, remote = tmp_path / "local", tmp_path / "remote"
    run_batches(plan_batches([("wagering", "b2_ws", [0, 1, 2], TINY)], local, workers=1))
    batches = plan_batches([("wagering", "b2_ws", [0, 1, 2], TINY)], remote, workers=2)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        records = run_batches(batches, backend="dask", client=client)
    assert len(batches) == 2 and sorted(r["seed"] for r in records) == [0, 1, 2]
    assert set(read_manifest(remote)["checkpoints"]) == {f"wagering-b2_ws-s{s}" for s in (0, 1, 2)}
    for seed in (0, 1, 2):
        assert _same(
            _weights(local, f"wagering-b2_ws-s{seed}"), _weights(remote, f"wagering-b2_ws-s{seed}")
        )


def test_progress_board_counts_finished_batches_in_full():
    board = ProgressBoard(
        [BatchProgress("a", 50, 100, 1, 4), BatchProgress("b", 10, 100, 0, 2, finished=True)]
    )
    assert board.members == (3, 6)
    assert board.fraction == pytest.approx(150 / 200)
    empty = ProgressBoard([BatchProgress("a", 0, 100, 0, 1)])
    assert (
        empty.fraction == 0.0 and empty.seconds_left() != empty.seconds_left()
    )  # nan before progress
