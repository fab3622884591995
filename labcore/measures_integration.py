"""The integration measures of one condition (protocol 9.3): Phi_E, O-information and
TSE complexity on the recorded states of one dual-task agent, without and with the PCI-A pulse.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

import labcore.envs as E
from labcore import UndefinedMetricWarning
from labcore.agents import Agent
from labcore.config import Intervention
from labcore.markers import (
    evoked_response,
    integrated_information,
    o_information,
    surrogate_bias,
    tse_complexity,
    undefined_as_nan,
)
from labcore.rollout import Trace, rollout
from labcore.seeding import PCI_PULSE_SEED

INTEGRATION_MEASURES = {
    "phi": "Phi_E (whole minus sum)",
    "o_information": "O-information",
    "tse": "TSE complexity",
}
INTEGRATION_SIGNALS = ("h", "slots", "z_self")
INTEGRATION_VARIANTS = ("intact", "evoked")
INTEGRATION_RIDGE = 1e-3
"""Observation noise added to every covariance, times the mean channel variance (protocol 9.3)."""
INTEGRATION_NORMALISATION = "maximum_entropy"
"""The MIB normalisation of Phi_E (protocol 9.3)."""


@dataclass(frozen=True)
class IntegrationRuns:
    """The same episodes without and with the PCI-A pulse (paper sec. 4.4)."""

    clean: Trace
    pulsed: Trace
    pulse_step: int

    def signals(self) -> list[str]:
        """The signals this agent records (``h`` always; ``slots``, ``z_self`` if it has them)."""
        return [s for s in INTEGRATION_SIGNALS if getattr(self.clean, s) is not None]

    def trajectories(self, signal: str, variant: str) -> tuple[np.ndarray, list[list[int]] | None]:
        """``(x, nodes)``: (E, T, C) trajectories of a signal and variant, and its elements."""

        def flat(trace: Trace) -> np.ndarray:
            x = getattr(trace, signal)
            return x.reshape(*x.shape[:2], -1).astype(np.float64)

        clean = flat(self.clean)
        x = (
            clean
            if variant == "intact"
            else evoked_response(flat(self.pulsed), clean, start=self.pulse_step)
        )
        nodes = None
        if signal == "slots":
            k, d = self.clean.slots.shape[2:]
            nodes = [list(range(i * d, (i + 1) * d)) for i in range(k)]
        return x, nodes

    def correct(self, variant: str) -> np.ndarray:
        """(E,) conjunction correctness of the rollout a variant reads."""
        return (self.clean if variant == "intact" else self.pulsed).conjunction()


def integration_runs(
    agent: Agent,
    seeds: Sequence[int],
    fixed: Intervention | None = None,
    *,
    pulse_step: int = 3,
    pulse_sigma: float = 1.0,
) -> IntegrationRuns:
    """Roll out one dual-task agent under ``fixed`` without and with the PCI-A pulse."""
    fixed = fixed or Intervention()
    pulsed = replace(fixed, pulse_step=pulse_step, pulse_sigma=pulse_sigma, seed=PCI_PULSE_SEED)
    return IntegrationRuns(
        rollout(agent, E.DUAL_TASK, seeds, fixed),
        rollout(agent, E.DUAL_TASK, seeds, pulsed),
        pulse_step,
    )


@dataclass(frozen=True)
class IntegrationReading:
    """One integration value: what was measured, on what, and why it is nan if it is."""

    signal: str
    variant: str
    measure: str
    value: float
    reason: str | None
    surrogate_mean: float
    """The mean on circularly shifted surrogates (nan if not computed)."""
    n_episodes: int
    n_samples: int
    n_channels: int


def _measure(measure: str, ridge: float) -> Callable[..., float]:
    if measure == "phi":
        return lambda x, nodes=None: (
            integrated_information(
                x, nodes=nodes, ridge=ridge, normalisation=INTEGRATION_NORMALISATION
            ).phi
        )
    fn = o_information if measure == "o_information" else tse_complexity
    return lambda x, nodes=None: fn(x, nodes=nodes, ridge=ridge)


def value_and_reason(
    fn: Callable[..., float], *args: Any, **kwargs: Any
) -> tuple[float, str | None]:
    """``fn``'s value and the reason its undefined-value warning gives (not shown)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = float(fn(*args, **kwargs))
    reason = None
    for w in caught:
        if issubclass(w.category, UndefinedMetricWarning):
            reason = reason or str(w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return value, reason


def integration_readings(
    runs: IntegrationRuns,
    *,
    signals: Sequence[str] | None = None,
    variants: Sequence[str] = INTEGRATION_VARIANTS,
    episodes: np.ndarray | None = None,
    ridge: float = INTEGRATION_RIDGE,
    n_surrogates: int = 0,
    seed: int = 0,
) -> list[IntegrationReading]:
    """Every integration measure on every signal and variant of one condition (``episodes``:
    a subset; ``n_surrogates``: each value's surrogate bias, seeded by ``seed``)."""
    out = []
    for signal in signals or runs.signals():
        for variant in variants:
            x, nodes = runs.trajectories(signal, variant)
            if episodes is not None:
                x = x[np.asarray(episodes, dtype=int)]
            for measure in INTEGRATION_MEASURES:
                fn = _measure(measure, ridge)
                value, reason = value_and_reason(fn, x, nodes)
                bias = float("nan")
                if n_surrogates and np.isfinite(value):
                    bias = undefined_as_nan(
                        surrogate_bias,
                        lambda v, fn=fn, nodes=nodes: fn(v, nodes),
                        x,
                        nodes=nodes,
                        n_surrogates=n_surrogates,
                        seed=seed,
                    )
                out.append(
                    IntegrationReading(
                        signal,
                        variant,
                        measure,
                        value,
                        reason,
                        bias,
                        x.shape[0],
                        x.shape[0] * x.shape[1],
                        x.shape[2],
                    )
                )
    return out
