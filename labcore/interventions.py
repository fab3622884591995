"""Run-time interventions on trained agents (paper sec. 4.5; protocol sec. 5.4).

An :class:`~labcore.config.Intervention` is a frozen value; the agent applies it inside its
forward pass with the functions below, all the perturbation math in one place: the sequence
path (:func:`sequence_workspace_noise`, teacher-forced training) and the step path
(:func:`perturb_carrier`, :func:`perturb_workspace`, :func:`pulse_carrier`,
:func:`pulse_workspace`, autonomous rollouts), the self-model lesions
(:func:`lesion_self_model`) and the capacity conversion (:func:`capacity_scale`). Weights are
never edited, so one cached model can be evaluated intact and lesioned side by side, and
concurrent users cannot disturb each other.

On the step path, random draws come from one generator in a fixed order per step: carrier
noise, workspace noise, pulse, self-model noise; so a seed fixes a rollout.

>>> from labcore.interventions import SELF_MODEL_LESION, describe
>>> describe(SELF_MODEL_LESION)
'self-model zeroed (no-rewire lesion)'
>>> describe(bus_capacity(2))
'workspace: 2 of 4 slots'
"""

from __future__ import annotations

from typing import Any

import torch

from labcore.config import Intervention
from labcore.seeding import SILENCE_ORDER_SEED_BASE

INTACT = Intervention()
SELF_MODEL_LESION = Intervention(self_model_mode="zero")
"""Experiment 1's no-rewire lesion: z_self replaced by zeros, policy pathway unchanged."""
BUS_OFF = Intervention(capacity_scale=0.0)
"""Complete workspace lesion (workspace_capacity_scale = 0)."""
CAPACITY_SCALES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The paper's 5-level workspace_capacity_scale sweep (0-4 of 4 slots)."""


def capacity_scale(active_slots: int, n_slots: int) -> float:
    """The workspace_capacity_scale that leaves ``active_slots`` of ``n_slots`` usable.

    The one conversion between a slot count (what the lab's controls show) and the paper's
    scale (what :class:`~labcore.config.Intervention` stores).

    Parameters
    ----------
    active_slots : int
        Usable slots, ``0 .. n_slots`` (0 = bus-off).
    n_slots : int
        The agent's slot count K (``AgentConfig.n_slots``).

    Returns
    -------
    float
        ``active_slots / n_slots``.

    Examples
    --------
    >>> capacity_scale(2, 4), capacity_scale(0, 4)
    (0.5, 0.0)
    """
    if not 0 <= active_slots <= n_slots:
        raise ValueError(f"active_slots must be in 0..{n_slots}, got {active_slots}")
    return active_slots / n_slots


def bus_capacity(active_slots: int, n_slots: int = 4, **kwargs: Any) -> Intervention:
    """An intervention leaving ``active_slots`` of ``n_slots`` usable (0 = bus-off).

    Other fields of the :class:`~labcore.config.Intervention` are passed as ``kwargs``.
    """
    return Intervention(capacity_scale=capacity_scale(active_slots, n_slots), **kwargs)


def describe(iv: Intervention, n_slots: int = 4) -> str:
    """Plain-language summary of an intervention (for figure titles and the app)."""
    parts = []
    if iv.self_model_silenced > 0:
        parts.append(f"{iv.self_model_silenced:.0%} of the self-model's units silenced")
    if iv.self_model_noise > 0:
        parts.append(f"self-model noise sigma={iv.self_model_noise:g}")
    if iv.policy_route_off:
        parts.append("confidence's policy route off")
    if iv.self_model_mode != "on":
        parts.append(
            {
                "zero": "self-model zeroed (no-rewire lesion)",
                "noise": "self-model replaced by noise (blind ablation)",
                "permute": "self-model shuffled across episodes (blind ablation)",
            }[iv.self_model_mode]
        )
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


def sequence_workspace_noise(
    source: torch.Tensor,
    iv: Intervention,
    sd: float | torch.Tensor,
    dim: int,
    rng: torch.Generator | None,
) -> torch.Tensor:
    """Workspace noise for a whole teacher-forced sequence, equal in law to the step path.

    "read": fresh noise per step. "stored": noise accumulates in a slot from its last write
    (a write replaces the slot, noise included), i.e. a cumulative sum restarted at writes.
    """
    b, t, k = source.shape
    occupied = source >= 0
    mask = noise_mask(occupied, iv.active_slots(k), iv.noise_empty_slots)
    sd = (
        torch.as_tensor(sd, dtype=torch.float32).reshape(-1, 1, 1, 1) if torch.is_tensor(sd) else sd
    )
    eps = torch.randn((b, t, k, dim), generator=rng) * sd * mask
    if iv.noise_mode == "read":
        return eps
    total = torch.cumsum(eps, dim=1)
    start = torch.where(occupied, source, 0)  # accumulate from the write (or from t=0 if empty)
    before = torch.cat([total.new_zeros(b, 1, k, dim), total], dim=1)  # before[s] = sum_{<s}
    idx = start[..., None].expand(b, t, k, dim)
    return total - torch.gather(before, 1, idx)


def lesion_self_model(
    z: torch.Tensor, mode: str, rng: torch.Generator | None, permutation: torch.Tensor | None
) -> torch.Tensor:
    """Apply a self-model intervention to z_self across the batch (dim 0).

    Parameters
    ----------
    z : tensor of shape (B, ..., self_model_dim)
    mode : {"on", "zero", "noise", "permute"}
        ``Intervention.self_model_mode``.
    rng : generator of the noise draws ("noise")
    permutation : tensor of shape (B,), the episode shuffle ("permute")
    """
    if mode == "on":
        return z
    if mode == "zero":
        return torch.zeros_like(z)
    if mode == "noise":
        mean, sd = z.mean(0, keepdim=True), z.std(0, unbiased=False, keepdim=True)
        return mean + sd * torch.randn(z.shape, generator=rng)
    return z[permutation]


def silenced_units(dim: int, fraction: float, seed: int) -> torch.Tensor:
    """Which of z_self's ``dim`` units a graded lesion silences (protocol 11.4): the first
    ``round(fraction * dim)`` of one order drawn from ``SILENCE_ORDER_SEED_BASE + seed``, so the
    units of a smaller dose are among those of a larger one.

    >>> silenced_units(8, 0.25, 0).sum().item(), bool((silenced_units(8, 0.25, 0)
    ...     <= silenced_units(8, 0.5, 0)).all())
    (2, True)
    """
    order = torch.randperm(
        dim, generator=torch.Generator().manual_seed(SILENCE_ORDER_SEED_BASE + seed)
    )
    mask = torch.zeros(dim, dtype=torch.bool)
    mask[order[: round(fraction * dim)]] = True
    return mask


def perturb_self_model(
    z: torch.Tensor,
    iv: Intervention,
    rng: torch.Generator | None,
    permutation: torch.Tensor | None,
) -> torch.Tensor:
    """Every self-model intervention on z_self ``(B, ..., dim)``, in a fixed order: the mode
    (:func:`lesion_self_model`), the silenced units (set to 0), then additive noise
    ``N(0, iv.self_model_noise^2)`` drawn from ``rng`` (no draw when it is 0)."""
    z = lesion_self_model(z, iv.self_model_mode, rng, permutation)
    if iv.self_model_silenced > 0:
        z = torch.where(silenced_units(z.shape[-1], iv.self_model_silenced, iv.seed), 0.0, z)
    if iv.self_model_noise > 0:
        z = z + torch.randn(z.shape, generator=rng) * iv.self_model_noise
    return z


def perturb_carrier(
    h: torch.Tensor, iv: Intervention, rng: torch.Generator | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Carrier noise of one step: ``(stored, read)`` versions of the carrier ``h``.

    "stored": the noise enters the carrier that is carried forward (and read); "read": only
    the copy the readouts see is perturbed. No draw when ``iv.carrier_noise`` is 0.
    """
    if iv.carrier_noise <= 0:
        return h, h
    eps = torch.randn(h.shape, generator=rng) * iv.carrier_noise
    if iv.noise_mode == "stored":
        h = h + eps
        return h, h
    return h, h + eps


def perturb_workspace(
    slots: torch.Tensor,
    occupied: torch.Tensor,
    active: int,
    iv: Intervention,
    rng: torch.Generator | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Workspace noise of one step, after the write: ``(stored, read)`` slot contents.

    Noise reaches the occupied slots (all ``active`` ones with ``iv.noise_empty_slots``). No
    draw when ``iv.workspace_noise`` is 0.
    """
    if iv.workspace_noise <= 0:
        return slots, slots
    mask = noise_mask(occupied, active, iv.noise_empty_slots)
    eps = torch.randn(slots.shape, generator=rng) * iv.workspace_noise * mask
    if iv.noise_mode == "stored":
        slots = slots + eps
        return slots, slots
    return slots, slots + eps


def _pulse_now(iv: Intervention, t: int) -> bool:
    return iv.pulse_step is not None and t == iv.pulse_step


def pulse_workspace(
    t: int,
    slots: torch.Tensor,
    read: torch.Tensor,
    occupied: torch.Tensor,
    active: int,
    iv: Intervention,
    rng: torch.Generator | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The PCI pulse (paper sec. 4.4) into every active slot, stored and read, at step ``t``.

    Returns ``(slots, read)`` unchanged (and draws nothing) at any other step.
    """
    if not _pulse_now(iv, t):
        return slots, read
    mask = noise_mask(occupied, active, empty=True)
    pulse = torch.randn(slots.shape, generator=rng) * iv.pulse_sigma * mask
    return slots + pulse, read + pulse


def pulse_carrier(
    t: int, h: torch.Tensor, h_read: torch.Tensor, iv: Intervention, rng: torch.Generator | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The PCI pulse into the carrier (agents without a workspace) at step ``t``."""
    if not _pulse_now(iv, t):
        return h, h_read
    pulse = torch.randn(h.shape, generator=rng) * iv.pulse_sigma
    return h + pulse, h_read + pulse
