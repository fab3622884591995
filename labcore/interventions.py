"""Run-time interventions on trained agents (paper sec. 4.5; protocol sec. 5.4).

An :class:`~labcore.config.Intervention` is a frozen value; the agent applies it inside its
forward pass with the functions below. Weights are never edited, so one cached model can be
evaluated intact and lesioned side by side, and concurrent users cannot disturb each other.

>>> from labcore.interventions import SELF_MODEL_LESION, describe
>>> describe(SELF_MODEL_LESION)
'self-model zeroed (no-rewire lesion)'
>>> describe(bus_capacity(2))
'workspace: 2 of 4 slots'
"""

from __future__ import annotations

import torch

from labcore.config import Intervention

INTACT = Intervention()
SELF_MODEL_LESION = Intervention(self_model="zero")
"""Experiment 1's no-rewire lesion: z_self replaced by zeros, policy pathway unchanged."""
BUS_OFF = Intervention(capacity_scale=0.0)
"""Complete workspace lesion (workspace_capacity_scale = 0)."""
CAPACITY_SCALES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The paper's 5-level workspace_capacity_scale sweep (0-4 of 4 slots)."""


def bus_capacity(active_slots: int, n_slots: int = 4, **kwargs) -> Intervention:
    """An intervention leaving ``active_slots`` of ``n_slots`` usable (0 = bus-off)."""
    if not 0 <= active_slots <= n_slots:
        raise ValueError(f"active_slots must be in 0..{n_slots}, got {active_slots}")
    return Intervention(capacity_scale=active_slots / n_slots, **kwargs)


def describe(iv: Intervention, n_slots: int = 4) -> str:
    """Plain-language summary of an intervention (for figure titles and the app)."""
    parts = []
    if iv.self_model != "on":
        parts.append({"zero": "self-model zeroed (no-rewire lesion)",
                      "noise": "self-model replaced by noise (blind ablation)",
                      "permute": "self-model shuffled across episodes (blind ablation)"}[iv.self_model])
    active = iv.active_slots(n_slots)
    if active == 0:
        parts.append("workspace off (bus-off)")
    elif active < n_slots:
        parts.append(f"workspace: {active} of {n_slots} slots")
    if iv.workspace_noise > 0:
        parts.append(f"workspace noise sigma={iv.workspace_noise:g} ({iv.noise_mode})")
    if iv.carrier_noise > 0:
        parts.append(f"carrier noise sigma={iv.carrier_noise:g} ({iv.noise_mode})")
    if iv.pulse_step is not None:
        parts.append(f"pulse sigma={iv.pulse_sigma:g} at step {iv.pulse_step}")
    return "; ".join(parts) if parts else "intact"


def noise_mask(occupied: torch.Tensor, active: int, empty: bool) -> torch.Tensor:
    """Which slots receive noise: occupied ones, or all active ones with ``empty``."""
    if empty:
        mask = torch.zeros_like(occupied)
        mask[..., :active] = True
    else:
        mask = occupied
    return mask.float()[..., None]


def sequence_workspace_noise(source: torch.Tensor, iv: Intervention, sd, dim: int,
                    rng: torch.Generator | None) -> torch.Tensor:
    """Workspace noise for a whole teacher-forced sequence, equal in law to the step path.

    "read": fresh noise per step. "stored": noise accumulates in a slot from its last write
    (a write replaces the slot, noise included), i.e. a cumulative sum restarted at writes.
    """
    b, t, k = source.shape
    occupied = source >= 0
    mask = noise_mask(occupied, iv.active_slots(k), iv.noise_empty_slots)
    sd = torch.as_tensor(sd, dtype=torch.float32).reshape(-1, 1, 1, 1) if torch.is_tensor(sd) else sd
    eps = torch.randn((b, t, k, dim), generator=rng) * sd * mask
    if iv.noise_mode == "read":
        return eps
    total = torch.cumsum(eps, dim=1)
    start = torch.where(occupied, source, 0)  # accumulate from the write (or from t=0 if empty)
    before = torch.cat([total.new_zeros(b, 1, k, dim), total], dim=1)  # before[s] = sum_{<s}
    idx = start[..., None].expand(b, t, k, dim)
    return total - torch.gather(before, 1, idx)


def lesion_self_model(z: torch.Tensor, mode: str, rng: torch.Generator | None,
                       permutation: torch.Tensor | None) -> torch.Tensor:
    """Apply a self-model intervention across the batch (dim 0)."""
    if mode == "on":
        return z
    if mode == "zero":
        return torch.zeros_like(z)
    if mode == "noise":
        mean, sd = z.mean(0, keepdim=True), z.std(0, unbiased=False, keepdim=True)
        return mean + sd * torch.randn(z.shape, generator=rng)
    return z[permutation]
