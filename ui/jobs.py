"""Training as a class does it: seeds allocated atomically, jobs queued off the page thread.

Thirty students pressing "Train" at once must all get an agent, each a different seed, and nobody
else's page may stall meanwhile. Two pieces, neither imports Streamlit:

* :class:`SeedBook` hands every session its own seed. A seed is reserved when its run starts, by
  creating a file with ``O_CREAT | O_EXCL`` (atomic on one filesystem, so across the server
  processes of ``make class`` too); a page only looks (:meth:`SeedBook.next_free`), so a visit
  leaves no file. A seed reserved, bundled or trained by anyone is never trained by
  another session, so no run can end in "saved by another session".
* :class:`TrainingQueue` runs the jobs: at most ``workers`` at a time (default 1,
``$CTLAB_TRAIN_WORKERS``),
  each in its own worker process (spawned once and reused, one torch thread), at most
  ``per_session`` queued or running per session. A page submits a job and returns at once; it
  reads the job's state, queue position and progress (written by the worker into a small JSON file)
  on its next run. With ``in_process=True`` (the tests) jobs run in the queue's threads instead.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labcore.config import TrainConfig
from labcore.parallel import clean_main, process_pool
from labcore.settings import settings

PER_SESSION = 1
"""Jobs one session may have queued or running at once."""
FIRST_USER_SEED = 5
"""Seeds below this are the bundled agents' (0-4); visitors' seeds start here."""
LAST_SEED = 9999
POLL_SECONDS = 0.3


# ---------------------------------------------------------------------------------- seeds


class SeedBook:
    """Atomic seed reservations under ``root`` (one empty-ish file per reserved seed).

    Parameters
    ----------
    root : path
        The folder of reservation files (``runs/user/_seeds``); created on first use.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _file(self, task: str, kind: str, seed: int) -> Path:
        return self.root / f"{task}-{kind}-s{int(seed)}.reserved"

    def owner(self, task: str, kind: str, seed: int) -> str | None:
        """The session that reserved this seed, or None."""
        try:
            return self._file(task, kind, seed).read_text().strip() or "?"
        except OSError:
            return None

    def claim(self, task: str, kind: str, seed: int, session: str) -> bool:
        """Reserve ``seed`` for ``session`` unless another session holds it; True if it is now the
        session's."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self._file(task, kind, seed), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return self.owner(task, kind, seed) == session
        with os.fdopen(fd, "w") as f:
            f.write(session)
        return True

    def next_free(self, task: str, kind: str, session: str, taken: Callable[[int], bool]) -> int:
        """The seed :meth:`reserve` would give ``session`` now, reserving nothing: the first one
        that is neither ``taken`` (bundled or trained) nor reserved by another session (one this
        session holds counts as free). What a page offers; another session may start it first."""
        for seed in range(FIRST_USER_SEED, LAST_SEED + 1):
            if taken(seed):
                continue
            if self.owner(task, kind, seed) in (None, session):
                return seed
        raise RuntimeError(f"no free seed left for {kind} on the {task} task")

    def reserve(self, task: str, kind: str, session: str, taken: Callable[[int], bool]) -> int:
        """The session's next seed: the first one that is neither ``taken`` (bundled or trained)
        nor reserved by another session, reserved for this one. Two sessions asking at once get
        two different seeds."""
        for seed in range(FIRST_USER_SEED, LAST_SEED + 1):
            if taken(seed):
                continue
            if self.claim(task, kind, seed, session):
                return seed
        raise RuntimeError(f"no free seed left for {kind} on the {task} task")


# ---------------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class JobSpec:
    """One agent to train and where to save it."""

    task: str
    kind: str
    seed: int
    config: TrainConfig
    target: str
    """The session's folder of agents (``ui.data.session_dir``)."""


@dataclass
class Job:
    """A submitted job and what the page shows of it."""

    id: str
    session: str
    spec: JobSpec
    state: str = "queued"
    """queued, running, done or failed."""
    progress: dict[str, Any] = field(default_factory=dict)
    """The trainer's last report (``done``, ``total`` and its metrics, see
    labcore.training.behaviour_cloning.ProgressFn)."""
    history: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    """``{"record": training record, "path": saved checkpoint}`` once done."""
    error: str | None = None
    submitted: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None

    @property
    def active(self) -> bool:
        """Queued or running."""
        return self.state in ("queued", "running")


class QueueFull(RuntimeError):
    """The session already has its share of queued or running jobs."""


def run_job(
    spec: JobSpec, progress: Callable[[int, int, dict], None] | None = None
) -> dict[str, Any]:
    """Train ``spec``'s agent and save it in ``spec.target``
    (``labcore.training.provision.train_and_save``,
    the one train-and-save: the kind's own trainer)."""
    from labcore.training.provision import train_and_save  # not on the first page's path (torch)

    record = train_and_save(
        spec.task, spec.kind, [spec.seed], spec.config, spec.target, progress=progress
    )[0]
    return {"record": record, "path": record["path"]}


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value, default=float))
    os.replace(tmp, path)  # a reader never sees half a file


def _run_in_worker(spec: JobSpec, progress_file: str) -> dict[str, Any]:
    """A worker process's job: one torch thread, progress written to ``progress_file``."""
    import torch

    torch.set_num_threads(1)
    history: list[dict[str, Any]] = []

    def progress(done: int, total: int, metrics: dict) -> None:
        history.append({"done": done, "total": total, **metrics})
        _write_json(Path(progress_file), history)

    return run_job(spec, progress)


def spawn_clean_pool() -> ProcessPoolExecutor:
    """A one-worker pool (:func:`labcore.parallel.process_pool`) whose worker is started now,
    under a ``__main__`` without a file (:func:`labcore.parallel.clean_main`: Streamlit installs
    the page script it runs as ``__main__``, and a spawned worker would run it again)."""
    pool = process_pool(1)
    with clean_main():
        started = pool.submit(os.getpid)
    started.result()
    return pool


class TrainingQueue:
    """Training jobs of every session of this server: first come, first served.

    Parameters
    ----------
    workers : int
        Jobs run at once (each in its own worker process unless ``in_process``).
    per_session : int
        Jobs a session may have queued or running.
    in_process : bool
        Run jobs in this process's worker threads (tests: a monkeypatched trainer applies).
    runner : callable
        ``runner(spec, progress) -> result`` for ``in_process`` queues (default :func:`run_job`).
    scratch : path, optional
        Where worker processes write progress files (default: a ``_jobs`` folder beside each
        target).
    """

    def __init__(
        self,
        workers: int = 1,
        per_session: int = PER_SESSION,
        *,
        in_process: bool = False,
        runner: Callable[..., dict[str, Any]] = run_job,
    ) -> None:
        if workers < 1 or per_session < 1:
            raise ValueError("workers and per_session must be at least 1")
        self.workers, self.per_session, self.in_process, self.runner = (
            workers,
            per_session,
            in_process,
            runner,
        )
        self._jobs: dict[str, Job] = {}
        self._waiting: collections.deque[Job] = collections.deque()
        self._lock = threading.Condition()
        self._threads: list[threading.Thread] = []
        self.running_peak = 0
        """The most jobs ever running at once (tests check the limit)."""
        self._running = 0

    # -- what pages call
    def submit(self, session: str, spec: JobSpec) -> Job:
        """Queue a job for ``session``; raises :class:`QueueFull` past the session's share."""
        with self._lock:
            mine = [j for j in self._jobs.values() if j.session == session and j.active]
            if len(mine) >= self.per_session:
                raise QueueFull(
                    f"this session already has {len(mine)} training job(s) waiting or running"
                )
            job = Job(uuid.uuid4().hex[:12], session, spec)
            self._jobs[job.id] = job
            self._waiting.append(job)
            self._start_threads()
            self._lock.notify()
            return job

    def jobs(self, session: str) -> list[Job]:
        """The session's jobs, oldest first."""
        with self._lock:
            return sorted(
                (j for j in self._jobs.values() if j.session == session), key=lambda j: j.submitted
            )

    def position(self, job: Job) -> int:
        """Jobs ahead of a queued job (0 = it starts next); 0 once it runs."""
        with self._lock:
            return next((i for i, j in enumerate(self._waiting) if j.id == job.id), 0)

    def counts(self) -> tuple[int, int]:
        """(running, waiting) jobs of every session."""
        with self._lock:
            return self._running, len(self._waiting)

    def forget(self, job: Job) -> None:
        """Drop a finished job (the page has shown its result)."""
        with self._lock:
            if not job.active:
                self._jobs.pop(job.id, None)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until no job is queued or running (tests); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._waiting or self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.1))
        return True

    # -- the workers
    def _start_threads(self) -> None:
        while len(self._threads) < self.workers:
            thread = threading.Thread(
                target=self._work, name=f"training-{len(self._threads)}", daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def _work(self) -> None:
        pool: ProcessPoolExecutor | None = None
        while True:
            with self._lock:
                while not self._waiting:
                    self._lock.wait()
                job = self._waiting.popleft()
                job.state, job.started = "running", time.time()
                self._running += 1
                self.running_peak = max(self.running_peak, self._running)
            try:
                if self.in_process:
                    job.result = self.runner(
                        job.spec, lambda d, t, m, job=job: self._record(job, d, t, m)
                    )
                else:
                    if pool is None:
                        pool = spawn_clean_pool()
                    job.result = self._in_worker(pool, job)
                job.state = "done"
            except Exception as exc:  # a failed run is the job's message, never the worker's end
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}".rstrip(".")
                if (
                    not self.in_process
                    and pool is not None
                    and isinstance(exc, OSError | RuntimeError)
                ):
                    # a broken worker is replaced for the next job
                    pool.shutdown(cancel_futures=True)
                    pool = None
            finally:
                with self._lock:
                    job.finished = time.time()
                    self._running -= 1
                    self._lock.notify_all()

    def _record(self, job: Job, done: int, total: int, metrics: dict) -> None:
        entry = {"done": done, "total": total, **metrics}
        job.history.append(entry)
        job.progress = entry

    def _in_worker(self, pool: ProcessPoolExecutor, job: Job) -> dict[str, Any]:
        scratch = Path(job.spec.target).parent / "_jobs"
        scratch.mkdir(parents=True, exist_ok=True)
        progress_file = scratch / f"{job.id}.json"
        future: Future = pool.submit(_run_in_worker, job.spec, str(progress_file))
        try:
            while True:
                try:
                    return future.result(timeout=POLL_SECONDS)
                except TimeoutError:
                    self._read_progress(job, progress_file)
        finally:
            self._read_progress(job, progress_file)
            with contextlib.suppress(OSError):
                progress_file.unlink()

    @staticmethod
    def _read_progress(job: Job, progress_file: Path) -> None:
        try:
            history = json.loads(progress_file.read_text())
        except (OSError, ValueError):
            return
        if history:
            job.history, job.progress = history, history[-1]


def default_workers() -> int:
    """Jobs at once: ``$CTLAB_TRAIN_WORKERS``, else one per two cores (at least one)."""
    workers = settings().train_workers
    return max(1, (os.cpu_count() or 2) // 2 if workers is None else workers)


def progress_fraction(job: Job) -> float:
    """How far a job is, 0-1: updates done of the first update at which the convergence rule could
    stop it (``earliest_stop``), else of the budget; 1 once done (of the 3,000-update budget the
    bar would sit at 20%, then jump to done)."""
    if job.state == "done":
        return 1.0
    p = job.progress
    if not p:
        return 0.0
    end = p.get("earliest_stop") or p.get("total") or 1
    return max(0.0, min(float(p.get("done", 0)) / max(float(end), 1.0), 0.99))
