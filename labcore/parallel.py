"""The one worker-pool policy of the lab: spawned processes (torch and fork do not mix)."""

from __future__ import annotations

import multiprocessing
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R")


SPAWN = multiprocessing.get_context("spawn")
"""The one start method of the lab's worker processes."""


def process_pool(
    workers: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes."""
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=SPAWN, initializer=initializer, initargs=initargs
    )


_MAIN_SWAP = threading.Lock()


def _foreign_main(main: Any) -> bool:
    """Is ``main`` a script that did not start this process (a Streamlit page, an AppTest script),
    which a spawned worker would run again at its start?"""
    file = getattr(main, "__file__", None)
    if main is None or getattr(main, "__spec__", None) is not None or not file:
        return False
    return Path(file).resolve() != Path(sys.argv[0] or ".").resolve()


@contextmanager
def clean_main() -> Iterator[None]:
    """Submit to a pool inside this block: ``spawn`` would rerun a Streamlit page script that is
    ``__main__`` in every new worker, so ``__main__`` is swapped for an empty module."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        swap = _foreign_main(main)
        if swap:
            sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if swap:
                sys.modules["__main__"] = main


def message_queue() -> Any:
    """A queue the pool's workers can put messages on, handed over through ``initargs``."""
    return SPAWN.Queue()


def process_map(
    fn: Callable[..., R],
    calls: Sequence[tuple],
    workers: int = 1,
    *,
    on_result: Callable[[int, R], None] | None = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
    poll: Callable[[], None] | None = None,
) -> list[R]:
    """``[fn(*args) for args in calls]``, in ``workers`` spawned processes (1: here, in order).

    ``on_result(index, result)`` is called as each call finishes, ``poll()`` about twice a second.
    """
    if workers <= 1 or len(calls) <= 1:
        if initializer is not None:
            initializer(*initargs)
        out = []
        for i, args in enumerate(calls):
            out.append(fn(*args))
            if on_result:
                on_result(i, out[-1])
        return out
    results: dict[int, R] = {}
    with process_pool(min(workers, len(calls)), initializer, initargs) as pool:
        with clean_main():
            pending = {pool.submit(fn, *args): i for i, args in enumerate(calls)}
        while pending:
            done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            if poll:
                poll()
            for future in done:
                i = pending.pop(future)
                results[i] = future.result()
                if on_result:
                    on_result(i, results[i])
    return [results[i] for i in range(len(calls))]
