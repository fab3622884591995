"""Agents on disk: train the checkpoints a run needs, as seed batches, and save them.

A request is (task, kind, seeds, :class:`~labcore.config.TrainConfig`). The seeds of one
request train together as one seed-batched model
(:func:`labcore.training.behaviour_cloning.train_seeds`);
with several workers a request's seeds are split into batches that run side by side, one
process per core with one torch thread each. Batches run in this process, in spawned worker
processes that forward their progress, or on a Dask cluster (one batch per task). Every
batch saves its checkpoints itself (atomically, :mod:`labcore.storage.checkpoints`), so a finished
batch is on disk even if a later one fails.
"""

from __future__ import annotations

import math
import queue
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from labcore.agents.neurogym import NeuroGymNet
from labcore.cluster import DASK_TIMEOUT, run_on_cluster
from labcore.config import AgentConfig, TrainConfig, trainer_of
from labcore.parallel import clean_main, message_queue, process_pool
from labcore.storage.checkpoints import checkpoint_file, checkpoint_name, save_checkpoint
from labcore.training import actor_critic, behaviour_cloning, neurogym_trainer
from labcore.training.neurogym_trainer import NeuroGymRLConfig


@dataclass(frozen=True)
class Batch:
    """Seeds of one (task, kind) trained together, and where their checkpoints go."""

    task: str
    kind: str | AgentConfig
    """A preset name or a config (e.g. a design-study variant with its own kind name)."""
    seeds: tuple[int, ...]
    cfg: TrainConfig
    out: str

    @property
    def label(self) -> str:
        """``task-kind s0-4``: what the progress line shows."""
        kind = self.kind if isinstance(self.kind, str) else self.kind.kind
        span = f"s{self.seeds[0]}" if len(self.seeds) == 1 else f"s{self.seeds[0]}-{self.seeds[-1]}"
        return f"{self.task}-{kind} {span}"

    @property
    def budget(self) -> int:
        """Progress units of the batch: optimizer updates (fast mode) or episodes (paper)."""
        return self.cfg.max_updates if self.cfg.mode == "fast" else self.cfg.train_episodes


def plan_batches(
    requests: Sequence[tuple[str, str, Sequence[int], TrainConfig]],
    out: Path | str,
    *,
    workers: int = 1,
    seed_batches: bool = True,
) -> list[Batch]:
    """Split requests into batches, the longest first.

    Parameters
    ----------
    requests : (task, kind, seeds, cfg) tuples
    out : checkpoint directory
    workers : processes that will run batches side by side; when there are fewer requests
        than workers, each request's seeds are split into about ``workers / len(requests)``
        batches so that every worker has one
    seed_batches : False trains every seed alone (a batch of one seed each)

    Examples
    --------
    >>> cfg = TrainConfig()
    >>> [b.seeds for b in plan_batches([("dual", "b1", range(5), cfg)], "x", workers=2)]
    [(0, 1, 2), (3, 4)]
    >>> len(plan_batches([("dual", "b1", range(5), cfg)], "x", seed_batches=False))
    5
    """
    requests = [
        (task, kind, [int(s) for s in seeds], cfg)
        for task, kind, seeds, cfg in requests
        if len(seeds)
    ]
    batches = []
    for task, kind, seeds, cfg in requests:
        if not seed_batches:
            parts = [[s] for s in seeds]
        else:
            split = min(len(seeds), max(1, math.ceil(workers / len(requests))))
            parts = [list(p) for p in np.array_split(np.array(seeds), split)]
        batches += [Batch(task, kind, tuple(int(s) for s in p), cfg, str(out)) for p in parts]
    return sorted(batches, key=lambda b: -len(b.seeds) * b.budget)


def missing_seeds(
    task: str,
    kind: str,
    seeds: Sequence[int],
    directories: Sequence[Path | str],
    cfg: TrainConfig | None = None,
) -> list[int]:
    """The seeds without a checkpoint in any of ``directories``."""
    cfg = cfg or TrainConfig()
    episodes = cfg.train_episodes if cfg.mode == "paper" else None
    return [
        s
        for s in seeds
        if not any(
            checkpoint_file(d, checkpoint_name(task, kind, s, cfg.mode, episodes)).exists()
            for d in directories
        )
    ]


@dataclass
class BatchProgress:
    """Where one batch is: ``done`` of ``total`` units, ``members_done`` of ``members`` finished."""

    label: str
    done: int = 0
    total: int = 0
    members_done: int = 0
    members: int = 0
    finished: bool = False


@dataclass
class ProgressBoard:
    """Progress of all batches of a run, for one progress bar (in fast mode its time left is an
    upper bound: members usually converge well before the update budget)."""

    batches: list[BatchProgress] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    @property
    def members(self) -> tuple[int, int]:
        """(members finished, members in all batches)."""
        return (
            sum(b.members if b.finished else b.members_done for b in self.batches),
            sum(b.members for b in self.batches),
        )

    @property
    def fraction(self) -> float:
        """Share of the total budget done (finished batches count in full)."""
        total = sum(b.total for b in self.batches)
        done = sum(b.total if b.finished else b.done for b in self.batches)
        return done / total if total else 1.0

    def seconds_left(self) -> float:
        """Time left at the current pace (nan before any progress)."""
        f = self.fraction
        return float("nan") if f <= 0 else (time.perf_counter() - self.started) * (1 - f) / f


def train_and_save(
    task: str,
    kind: str | AgentConfig,
    seeds: Sequence[int],
    cfg: TrainConfig | None,
    out: Path | str,
    *,
    progress: Callable[[int, int, dict], None] | None = None,
    resume: Path | None = None,
    before_save: Callable[[], None] | None = None,
) -> list[dict]:
    """Train ``seeds`` of ``kind`` with the trainer that makes it (actor-critic or behaviour
    cloning: :func:`~labcore.config.trainer_of`) and save every checkpoint in ``out``.

    Parameters
    ----------
    task, kind, seeds, cfg : what to train, as the trainers take them
    out : checkpoint directory (created if missing)
    progress : ``progress(done, total, metrics)``, as the trainers call it
    resume : behaviour cloning's paper schedule only: its resume snapshot, deleted once every
        checkpoint is saved
    before_save : called after training, before anything is saved; raise in it to save nothing

    Returns
    -------
    The training records, one per seed in order, each with the ``path`` of its checkpoint.
    """
    name = kind if isinstance(kind, str) else kind.kind
    if trainer_of(name) == "rl":
        if resume is not None:
            raise ValueError("reinforcement learning keeps no resume snapshot")
        trained_agents = actor_critic.train_seeds(task, kind, seeds, cfg, progress=progress)
    else:
        trained_agents = behaviour_cloning.train_seeds(
            task, kind, seeds, cfg, progress=progress, resume=resume
        )
    if before_save is not None:
        before_save()
    Path(out).mkdir(parents=True, exist_ok=True)
    records = []
    for trained in trained_agents:
        path = save_checkpoint(trained.agent, trained.record, out)
        records.append({**trained.record, "path": str(path)})
    if resume is not None:
        resume.unlink(missing_ok=True)
    return records


def train_network_and_save(
    seed: int,
    cfg: NeuroGymRLConfig | None,
    out: Path | str,
    *,
    trainer: str = "rl",
    agent: str = "b2_ws",
    name: str | None = None,
) -> tuple[NeuroGymNet, dict]:
    """:func:`train_and_save` for NeuroGym's task (``neurogym_trainer.train_network``): the
    network and its record; the checkpoint is named ``name`` or from the record."""

    net, record = neurogym_trainer.train_network(seed, cfg, trainer=trainer, agent=agent)
    save_checkpoint(net, record, out, name=name)
    return net, record


def run_batch(batch: Batch, progress: Callable[[int, int, dict], None] | None = None) -> list[dict]:
    """:func:`train_and_save` of one batch; behaviour cloning's paper schedule (an hour or more)
    keeps a resume snapshot beside the checkpoints, so a killed run continues where it stopped."""
    kind = batch.kind if isinstance(batch.kind, str) else batch.kind.kind
    snapshot = None
    if batch.cfg.mode == "paper" and trainer_of(kind) == "bc":  # hidden, one per batch
        seeds = "-".join(map(str, batch.seeds))
        name = f".{batch.task}-{kind}-s{seeds}-paper{batch.cfg.train_episodes}.resume.pt"
        snapshot = Path(batch.out) / name
        snapshot.parent.mkdir(parents=True, exist_ok=True)
    return train_and_save(
        batch.task,
        batch.kind,
        batch.seeds,
        batch.cfg,
        batch.out,
        progress=progress,
        resume=snapshot,
    )


_WORKER_QUEUE: Any = None


def _init_worker(q: Any) -> None:
    global _WORKER_QUEUE
    _WORKER_QUEUE = q


def _run_in_worker(index: int, batch: Batch) -> list[dict]:
    def forward(done: int, total: int, metrics: dict) -> None:
        _WORKER_QUEUE.put(
            (index, done, total, int(metrics["members_done"]), int(metrics["members"]))
        )

    return run_batch(batch, forward)


def run_batches(
    batches: Sequence[Batch],
    *,
    workers: int = 1,
    backend: str = "local",
    client: Any = None,
    on_progress: Callable[[ProgressBoard], None] | None = None,
    timeout: float = DASK_TIMEOUT,
) -> list[dict]:
    """Run batches and return every training record.

    Parameters
    ----------
    batches : from :func:`plan_batches`
    workers : processes side by side (``backend="local"``; 1 runs in this process)
    backend : "local" (this process or spawned worker processes) or "dask" (``client``:
        a ``distributed.Client``, default the current one; one task per batch, run on the
        workers by :func:`labcore.cluster.run_on_cluster`; progress only as batches finish)
    on_progress : called with the :class:`ProgressBoard` whenever a batch reports
    timeout : with ``backend="dask"``, seconds to wait, with nothing finished, for a cluster
        that has no worker (0: no limit)

    Raises
    ------
    DistributedRunError
        With ``backend="dask"``: a batch failed on the cluster, or it had no worker for
        ``timeout`` seconds (batches that finished before have saved their checkpoints).
    """
    board = ProgressBoard([BatchProgress(b.label, 0, b.budget, 0, len(b.seeds)) for b in batches])

    def update(index: int, done: int, total: int, members_done: int, members: int) -> None:
        entry = board.batches[index]
        entry.done, entry.total = done, total
        entry.members_done, entry.members = members_done, members
        if on_progress:
            on_progress(board)

    def finish(index: int) -> None:
        board.batches[index].finished = True
        if on_progress:
            on_progress(board)

    records: list[dict] = []
    if backend == "dask":
        done = run_on_cluster(
            run_batch,
            [(b,) for b in batches],
            [f"batch {b.label}" for b in batches],
            client=client,
            timeout=timeout,
            on_result=lambda i, _: finish(i),
        )
        return [record for batch_records in done for record in batch_records]
    if backend != "local":
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if workers == 1:
        for i, batch in enumerate(batches):
            records += run_batch(
                batch,
                lambda d, t, m, i=i: update(i, d, t, int(m["members_done"]), int(m["members"])),
            )
            finish(i)
        return records
    return _run_in_pool(batches, workers, update, finish)


def _run_in_pool(
    batches: Sequence[Batch],
    workers: int,
    update: Callable[[int, int, int, int, int], None],
    finish: Callable[[int], None],
) -> list[dict]:
    """:func:`run_batches` in ``workers`` spawned processes that forward their progress."""
    records: list[dict] = []
    messages = message_queue()
    with process_pool(workers, _init_worker, (messages,)) as pool:
        with clean_main():
            pending = {pool.submit(_run_in_worker, i, b): i for i, b in enumerate(batches)}
        while pending:
            done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            while True:
                try:
                    update(*messages.get_nowait())
                except queue.Empty:
                    break
            for future in done:
                records += future.result()
                finish(pending.pop(future))
    return records


def progress_bar(label: str, paper: bool) -> tuple[Any, Callable[[ProgressBoard], None]]:
    """A tqdm bar driven by a :class:`ProgressBoard`, and its update callback: the share of the
    budget done, agents finished, and the time left ("at most" in fast mode)."""

    from tqdm import tqdm

    bar = tqdm(
        total=1000,
        desc=label,
        file=sys.stderr,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}",
    )

    def render(board: ProgressBoard) -> None:
        finished, members = board.members
        left = board.seconds_left()
        when = (
            "?"
            if math.isnan(left)
            else f"{'' if paper else 'at most '}{int(left) // 60}:{int(left) % 60:02d} left"
        )
        bar.n = min(1000, round(board.fraction * 1000))
        bar.set_postfix_str(f"{finished}/{members} agents done, {when}", refresh=True)

    return bar, render
