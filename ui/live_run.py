"""The "From reward alone" page's live sure-option run, in a background thread the page polls.

A visitor's run (Song et al.'s plain GRU on NeuroGym's wager,
:func:`labcore.training.neurogym_trainer.live_config`)
takes about two minutes. Run inside the page's script it would block that session's other
controls, and any click elsewhere would rerun the script and kill it; so it trains in a daemon
thread, writes each held-out check into its :class:`SureOptionRun` as it comes, and the page's
fragment (``st.fragment(run_every=...)``) redraws the progress bar and the curve from that object,
while every other control keeps working. Nothing is saved: the run is an illustration, its
network is dropped when the session ends.

At most :data:`MAX_RUNS` runs train at once across all sessions (the lab's machine has 2 shared
cores); each uses one torch thread (``train_network`` sets it).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from labcore.training.neurogym_trainer import NeuroGymRLConfig, train_network

MAX_RUNS = 2
"""Live runs that may train at the same time in this server process."""
_LOCK = threading.Lock()
_ACTIVE: set[int] = set()


class RunStopped(Exception):
    """Raised inside the training loop when the visitor stops the run."""


@dataclass
class SureOptionRun:
    """One live run: its settings, its checks so far, and how it ended."""

    seed: int
    cfg: NeuroGymRLConfig
    history: list[dict[str, Any]] = field(default_factory=list)
    """One entry per held-out check: ``update``, ``p_sure_offered``, ``accuracy``,
    ``heldout_reward``,
    ``criterion_met`` (sampled choices)."""
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    record: dict[str, Any] | None = None
    """The training record (``stopped``, ``updates``, ``wall_seconds``, ...) once it finished."""
    error: str | None = None
    """Why it ended early (stopped by the visitor, or an error), else None."""
    stop_requested: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        """Still training."""
        return self.finished is None

    @property
    def done_updates(self) -> int:
        """Updates done at the last check."""
        return int(self.history[-1]["update"]) if self.history else 0

    @property
    def elapsed(self) -> float:
        """Seconds since it started (until it finished)."""
        return (self.finished or time.monotonic()) - self.started

    def progress(self, update: int, total: int, metrics: dict[str, float]) -> None:
        """``train_network``'s callback: record a check; stop when asked."""
        self.history.append({"update": int(update), **{k: float(v) for k, v in metrics.items()}})
        if self.stop_requested.is_set():
            raise RunStopped

    def train(self) -> None:
        """The thread's body: train, then record how it ended (never raises)."""
        try:
            _, record = train_network(
                self.seed, self.cfg, self.progress, trainer="rl", agent="plain_gru"
            )
            self.record = {k: record[k] for k in ("stopped", "updates", "wall_seconds")}
        except RunStopped:
            self.error = f"stopped at update {self.done_updates:,} at your request"
        except Exception as exc:  # shown on the page: a thread must not die silently
            self.error = f"the run failed: {type(exc).__name__}: {exc}"
        finally:
            self.finished = time.monotonic()
            with _LOCK:
                _ACTIVE.discard(id(self))


def start(seed: int, cfg: NeuroGymRLConfig) -> SureOptionRun | None:
    """Start a live run in a daemon thread; None when :data:`MAX_RUNS` runs are training already."""
    run = SureOptionRun(seed, cfg)
    with _LOCK:
        if len(_ACTIVE) >= MAX_RUNS:
            return None
        _ACTIVE.add(id(run))
    threading.Thread(target=run.train, name=f"sure-option-run-{seed}", daemon=True).start()
    return run
