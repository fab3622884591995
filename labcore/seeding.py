"""Every seed derivation in one place: global seeding, episode seeds, CLI seed lists, offsets.

A number that seeds a random draw is named here, so the same name always means the same
stream and no module restates a magic offset. Changing a value here changes results.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from labcore.checks import check_choice

EPISODE_SEED_BASE: dict[str, int] = {
    "train": 10_000_000,
    "heldout": 20_000_000,
    "eval": 30_000_000,
    "rewire": 40_000_000,
}
"""First environment seed of each split (protocol sec. 5.3): the splits never overlap. "rewire":
the rollouts a rewire control retrains a read-out on (protocol 11.4)."""
EPISODE_SEED_STRIDE = 100_000
"""Environment seeds reserved per agent seed and split."""
RANDOM_PROJECTION_SEED_BASE = 10_000
"""The BC-only random bottleneck's fixed projection is drawn with seed ``base + agent seed``."""
WRITE_OFFSET_SEED_BASE = 20_000
"""The fixed offset vector of the "offset" write geometry is drawn from seed base + agent seed."""
BASELINE_NET_SEED_BASE = 30_000
"""Song et al.'s separate baseline network (``labcore.agents.plain.BaselineGRU``) is initialised
from seed ``base + agent seed``: its own stream, so the policy's weights do not depend on it."""
EVAL_SAMPLING_SEED_BASE = 40_000
"""Sampled evaluations of a reward-trained NeuroGym agent (``labcore.training.neurogym_trainer``)
draw actions
from seed ``base + agent seed``, a stream apart from training's, so evaluating never changes
training."""
MEASURE_SAMPLING_SEED_BASE = 50_000
"""A trained NeuroGym network's sampled choices on its evaluation trials (protocol 8.7's measures,
``labcore.experiments.pdw``) are drawn from seed ``base + agent seed``."""
SILENCE_ORDER_SEED_BASE = 60_000
"""A graded self-model lesion silences z_self's units in an order drawn from seed ``base +
intervention seed`` (protocol 11.4): one order per agent, so doses are nested."""
CLOSED_FORM_SEED_BASE = 1_500_000_000
"""Episodes of the task drawn for agent-free expectations (E2's allocation closed form); above
every agent's episode seeds."""
TITRATION_NOISE_SEED_BASE = 1000
"""Noise titration: the i-th noise level's draws use the intervention seed ``base + i``."""
PCI_PULSE_SEED = 7
"""PCI-A: the seed of the perturbation pulse's draws (one pulse per episode)."""
MAX_AGENT_SEED = 10_000
"""Agent seeds are in ``0 .. MAX_AGENT_SEED - 1``."""


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch so that the same seed gives the same numbers."""
    import torch  # here: the command line's argument parsing uses this module (parse_seeds)

    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - libraries we call may use the legacy global RNG
    torch.manual_seed(seed)


def episode_seeds(agent_seed: int, split: str, n: int) -> np.ndarray:
    """Environment seeds of an agent seed's episodes; the splits never overlap (protocol 5.3).

    Parameters
    ----------
    agent_seed : int
        The agent seed (the unit of analysis).
    split : {"train", "heldout", "eval", "rewire"}
        Which disjoint block of environment seeds.
    n : int
        How many episodes (at most :data:`EPISODE_SEED_STRIDE`).

    Returns
    -------
    np.ndarray of shape (n,)
        Consecutive environment seeds.

    Examples
    --------
    >>> episode_seeds(3, "train", 2).tolist(), episode_seeds(3, "heldout", 1).tolist()
    ([10300000, 10300001], [20300000])
    """
    check_choice(split, "split", sorted(EPISODE_SEED_BASE))
    if not 0 <= n <= EPISODE_SEED_STRIDE:
        raise ValueError(f"at most {EPISODE_SEED_STRIDE} episodes per split and seed")
    return EPISODE_SEED_BASE[split] + agent_seed * EPISODE_SEED_STRIDE + np.arange(n)


def titration_noise_seed(level: int) -> int:
    """The intervention seed of the ``level``-th noise level of a titration.

    >>> titration_noise_seed(0), titration_noise_seed(3)
    (1000, 1003)
    """
    return TITRATION_NOISE_SEED_BASE + level


def parse_seeds(text: str) -> list[int]:
    """Read a list of agent seeds from the command line.

    ``"0-4"`` -> [0, 1, 2, 3, 4]; ``"1,3,7"`` -> [1, 3, 7]; ``"5"`` -> [5]; duplicates
    removed, sorted.

    Parameters
    ----------
    text : str
        Ranges and single seeds separated by commas.

    Returns
    -------
    list of int

    Raises
    ------
    argparse.ArgumentTypeError
        If the text is malformed or a seed is outside ``0 .. MAX_AGENT_SEED - 1``.

    Examples
    --------
    >>> parse_seeds("0-2,7")
    [0, 1, 2, 7]
    """
    seeds: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if hi < lo:
                    raise ValueError
                seeds.extend(range(lo, hi + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"seeds must look like 0-4 or 1,3,7; got {text!r}"
        ) from None
    if any(s < 0 or s >= MAX_AGENT_SEED for s in seeds):
        raise argparse.ArgumentTypeError(f"seeds must be in 0..{MAX_AGENT_SEED - 1}")
    return sorted(set(seeds))
