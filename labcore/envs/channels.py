"""Observation channels shared by every task: the cue channel and the task vector.

Strong-lesion wiring (paper sec. 4.2; protocol sec. 1): cue information reaches the agent *only*
through the cue channel, routed to its workspace write path.

Cue channel layout (``CUE_DIM`` = 11)::

    [0]      event   1 when something arrives on the cue channel this step (the write gate)
    [1:4]    kind    one-hot: cue A (secondary / E1 stimulus), cue B (primary), mask
    [4:11]   content one-hot cue value (dual task) or salience * one-hot + noise (wagering)
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from labcore.config import N_CUE_VALUES


class CueKind(IntEnum):
    """What arrived on the cue channel."""

    CUE_A = 0
    """The secondary (colour) cue of the dual task; the stimulus of the wagering task."""
    CUE_B = 1
    """The primary (object type) cue of the dual task."""
    MASK = 2
    """A distractor event: cue-like content that is not to be reported."""


EVENT_INDEX = 0
KIND_SLICE = slice(1, 1 + len(CueKind))
CONTENT_SLICE = slice(KIND_SLICE.stop, KIND_SLICE.stop + N_CUE_VALUES)
CUE_DIM = CONTENT_SLICE.stop
CUE_BOUND = 10.0
"""Cue-channel values are clipped to +-CUE_BOUND (the observation space's bounds)."""
TASK_DIM = 2
"""Two flags (dual: report secondary / primary; wagering: choice point / wager)."""


def cue_events(kind: np.ndarray, content: np.ndarray) -> np.ndarray:
    """Encode a batch of cue-channel events.

    ``kind`` (B,) is a :class:`CueKind` per row or -1 for nothing (all zeros); ``content``
    (B, N_CUE_VALUES) each event's content; returns float32 (B, CUE_DIM).

    Examples
    --------
    >>> cue_events(np.array([1, -1]), np.eye(7)[[3, 0]]).astype(int)
    array([[1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
    """
    kind = np.asarray(kind)
    content = np.asarray(content, dtype=np.float32)
    out = np.zeros((kind.shape[0], CUE_DIM), dtype=np.float32)
    on = kind >= 0
    out[on, EVENT_INDEX] = 1.0
    out[np.flatnonzero(on), KIND_SLICE.start + kind[on]] = 1.0
    out[on, CONTENT_SLICE] = np.clip(content[on], -CUE_BOUND, CUE_BOUND)
    return out
