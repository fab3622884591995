"""One place that seeds every random number generator the lab uses."""

from __future__ import annotations

import random

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch so that the same seed gives the same numbers."""
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - libraries we call may use the legacy global RNG
    torch.manual_seed(seed)
