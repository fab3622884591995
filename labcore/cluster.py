"""Work on a Dask cluster: submit it as futures, collect it, and never hang on a dead cluster.

A failed task, a worker that keeps dying, or a cluster with no worker for ``timeout`` seconds
ends the run with one :class:`DistributedRunError` sentence, the pending tasks cancelled.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from contextlib import suppress
from typing import Any, NoReturn

DASK_TIMEOUT = 120.0
"""Seconds a Dask run waits, with nothing finished, for a cluster with no worker (0: no limit)."""
POLL_SECONDS = 0.5


class DistributedRunError(RuntimeError):
    """A Dask run that cannot finish; ``kind`` says why, ``labels`` names the tasks."""

    def __init__(self, message: str, kind: str, labels: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.kind, self.labels = kind, tuple(labels)

    def __reduce__(self) -> tuple:
        """Pickled with its record."""
        return (type(self), (str(self), self.kind, self.labels))


def cluster_size(client: Any) -> tuple[int, int]:
    """``(workers, threads)`` the scheduler of ``client`` has now; ``(0, 0)`` if it cannot say."""
    try:
        nthreads = client.nthreads()
    except Exception:  # a closed client or a lost scheduler: no worker to be seen
        return 0, 0
    return len(nthreads), int(sum(nthreads.values()))


def failure_sentence(labels: Sequence[str], exc: BaseException) -> str:
    """The one sentence that says why tasks (``labels``) failed and what to do.

    >>> failure_sentence(["seed 3"], ValueError("bad\\nmore"))
    'seed 3 failed on a Dask worker with ValueError: bad; run it with --backend local to see the
    traceback.'
    """
    from distributed import KilledWorker

    names = " and ".join([", ".join(labels[:-1]), labels[-1]] if len(labels) > 1 else labels)
    if isinstance(exc, KilledWorker):
        allowed = exc.allowed_failures
        it, them = (
            ("it", "")
            if len(labels) == 1
            else ("them", " (one of them may only have been queued there)")
        )
        return (
            f"{names} could not run on the Dask cluster: the worker running {it} died "
            f"{allowed + 1} time(s){them}, and the scheduler allows {allowed} worker death(s) per "
            "task (distributed.scheduler.allowed-failures); check the worker logs (a crash or "
            "running out of memory is the usual cause), give the workers more memory, or run with "
            "--backend local."
        )
    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else "no message"
    return (
        f"{names} failed on a Dask worker with {type(exc).__name__}: {text}; "
        f"run it with --backend local to see the traceback."
    )


def _killed_together(futures: Sequence[Any], first: int) -> list[int]:
    """Indices of the tasks that failed with ``KilledWorker`` so far, ``first`` among them."""
    from distributed import KilledWorker

    found = {first}
    for i, future in enumerate(futures):
        if (
            i != first
            and future.status == "error"
            and isinstance(future.exception(timeout=5), KilledWorker)
        ):
            found.add(i)
    return sorted(found)


def no_worker_sentence(pending: Sequence[str], timeout: float, address: str) -> str:
    """The sentence of the watchdog: which tasks waited, for how long, and what to do."""
    others = f" and {len(pending) - 1} other task(s)" if len(pending) > 1 else ""
    return (
        f"{pending[0]}{others} did not finish: the Dask cluster at {address} has had no worker for "
        f"{timeout:g} s (--dask-timeout); start workers for that scheduler "
        f"(dask worker {address}) or run with --backend local."
    )


def _address(client: Any) -> str:
    """The scheduler address of ``client`` (for messages)."""
    try:
        return str(client.scheduler.address)
    except AttributeError:
        return "its scheduler"


def run_on_cluster(
    fn: Callable[..., Any],
    calls: Sequence[tuple],
    labels: Sequence[str],
    *,
    client: Any = None,
    timeout: float = DASK_TIMEOUT,
    on_result: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """Run ``fn(*args)`` for every ``args`` in ``calls`` as Dask tasks; the results in order.

    ``labels`` name the tasks in error sentences; ``on_result(index, result)`` is called as
    they finish. Raises :class:`DistributedRunError`, the pending tasks cancelled first.
    """
    from distributed import KilledWorker, as_completed, get_client

    if client is None:
        try:
            client = get_client()
        except ValueError:
            raise DistributedRunError(
                "there is no Dask client to run on; connect one (distributed.Client) "
                "or run with --backend local.",
                "no_client",
            ) from None
    futures = [client.submit(fn, *args, pure=False) for args in calls]
    index_of = {f.key: i for i, f in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    done: set[int] = set()
    # with_results: each result is fetched as soon as its task finishes, before a worker that
    # dies later can take it along (a task's result lives on the worker that computed it)
    finished = as_completed(futures, with_results=True, raise_errors=False)
    idle_since = time.monotonic()

    def fail(
        message: str, kind: str, which: Sequence[str], cause: BaseException | None = None
    ) -> NoReturn:
        with suppress(Exception):  # best effort: a client whose scheduler is gone cannot cancel
            client.cancel([f for i, f in enumerate(futures) if i not in done])
        raise DistributedRunError(message, kind, which) from cause

    while not finished.is_empty():
        ready = finished.next_batch(block=False)
        if not ready:
            time.sleep(POLL_SECONDS)
            if cluster_size(client)[0] > 0:
                idle_since = time.monotonic()
            elif timeout and time.monotonic() - idle_since > timeout:
                pending = [labels[i] for i in range(len(futures)) if i not in done]
                fail(no_worker_sentence(pending, timeout, _address(client)), "no_worker", pending)
            continue
        for future, result in ready:
            i = index_of[future.key]
            if isinstance(result, CancelledError):
                fail(
                    f"{labels[i]} was cancelled on the Dask cluster (the scheduler or the "
                    "client went away); run it again, or with --backend local.",
                    "cancelled",
                    [labels[i]],
                )
            if future.status == "error":  # result is (type, exception, traceback)
                exc = result[1]
                killed = isinstance(exc, KilledWorker)
                together = [labels[j] for j in (_killed_together(futures, i) if killed else [i])]
                fail(
                    failure_sentence(together, exc), "killed" if killed else "failed", together, exc
                )
            results[i] = result
            done.add(i)
            idle_since = time.monotonic()
            if on_result:
                on_result(i, result)
    return results
