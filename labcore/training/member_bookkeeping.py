"""What behaviour cloning keeps per member (convergence state, history) and how it reports progress.

Both schedules (:mod:`labcore.training.fast_schedule`, :mod:`labcore.training.paper_schedule`)
share them; :func:`labcore.training.behaviour_cloning.train_seeds` makes the members.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

ProgressFn = Callable[[int, int, dict[str, float]], None]
"""``progress(done, total, metrics)``: updates (fast) or episodes (paper) done of the budget;
``metrics`` has ``members_done``/``members``, the live members' mean held-out agreement, in fast
mode
``earliest_stop`` (the first update at which the stopping rule could end the run: a progress bar's
end),
for E4's reward-trained kinds their mean ``heldout_auroc``, ``heldout_confidence``,
``heldout_wager_reward`` (None where undefined)."""


@dataclass
class _Member:
    """Book-keeping of one member: its convergence state and history."""

    seed: int
    generator: torch.Generator
    history: list = field(default_factory=list)
    best_loss: float = float("inf")
    best_agreement: float = -1.0
    best_row: dict[str, torch.Tensor] | None = None
    best_update: int = 0
    stale: int = 0
    updates: int = 0
    done: bool = False
    row: int = 0
    """Its row of the stacked demonstrations."""
    shadow: bool = False
    """A copy that only keeps the batch at two rows (see :func:`train_seeds`); never returned."""
    wager_from: int | None = None
    """The first update with the wager loss on (None: not yet; protocol 8.8.2)."""
    wager_done: int = 0
    """Updates made with the wager loss on."""
    curve: list = field(default_factory=list)
    """The wager phase's learning curve (``TrainConfig.curve_every``)."""

    def shadowed(self) -> _Member:
        """A shadow of this member: same seed, a generator in the same state, the same phase."""
        generator = torch.Generator()
        generator.set_state(self.generator.get_state())
        return _Member(
            self.seed,
            generator,
            shadow=True,
            wager_from=self.wager_from,
            wager_done=self.wager_done,
        )


def _report(
    progress: ProgressFn | None,
    done: int,
    total: int,
    members: list[_Member],
    metrics: list[dict[str, float]],
    earliest_stop: int | None = None,
) -> None:
    if progress is None:
        return
    agreement = float(np.mean([m["agreement"] for m in metrics])) if metrics else float("nan")
    real = [m for m in members if not m.shadow]
    # E4's learning-curve values (heldout_auroc, heldout_wager_reward, ...), for a live curve; None
    # where undefined
    wager = {
        k: [m[k] for m in metrics if m.get(k) is not None]
        for k in (metrics[0] if metrics else {})
        if k.startswith("heldout_")
    }
    progress(
        done,
        total,
        {
            "members_done": float(sum(m.done for m in real)),
            "members": float(len(real)),
            "agreement": agreement,
            "loss": float(np.mean([m["loss"] for m in metrics])) if metrics else float("nan"),
            **({"earliest_stop": float(earliest_stop)} if earliest_stop is not None else {}),
            **{k: float(np.mean(v)) if v else None for k, v in wager.items()},
        },
    )
