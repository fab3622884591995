"""What the integration measures are applied to: evoked responses, surrogates and
known linear systems. Trajectories are (T, C) or (E, T, C), as in
:mod:`labcore.markers.integration`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore import UndefinedMetricWarning
from labcore.checks import check_choice
from labcore.markers._common import as_float_array, warn_undefined
from labcore.markers.integration import (
    _as_nodes,
    _as_trajectories,
    integrated_information,
    o_information,
    tse_complexity,
)


def evoked_response(
    perturbed: ArrayLike, unperturbed: ArrayLike, *, start: int = 0
) -> NDArray[np.float64]:
    """The evoked response: perturbed minus unperturbed trajectory from step ``start`` on.

    A measure applied to it is that measure's perturbational variant (Casali et al. 2013's
    evoked logic, as PCI-A; paper sec. 4.4).

    Parameters
    ----------
    perturbed, unperturbed : array-like of shape (E, T, ...) or (T, ...)
        The same episodes with and without the pulse; trailing dimensions become channels.
    start : int, default=0
        First step kept (the pulse's step).

    Returns
    -------
    ndarray of shape (E, T - start, C)

    Examples
    --------
    >>> evoked_response(np.ones((2, 4, 3)), np.zeros((2, 4, 3)), start=1).shape
    (2, 3, 3)
    """
    a = as_float_array(perturbed, "perturbed")
    b = as_float_array(unperturbed, "unperturbed")
    if a.shape != b.shape:
        raise ValueError(f"perturbed shape {a.shape} does not match unperturbed shape {b.shape}")
    a = a[None] if a.ndim == 2 else a
    b = b[None] if b.ndim == 2 else b
    if a.ndim < 3:
        raise ValueError(f"trajectories must be (T, C) or (E, T, ...), got shape {a.shape}")
    if not 0 <= start < a.shape[1]:
        raise ValueError(f"start must be in 0..{a.shape[1] - 1}, got {start}")
    diff = (a - b)[:, start:]
    return diff.reshape(diff.shape[0], diff.shape[1], -1)


def surrogate_bias(
    measure: Callable[[NDArray[np.float64]], float],
    trajectories: ArrayLike,
    *,
    nodes: Sequence[Sequence[int]] | None = None,
    method: Literal["circular_shift", "time_shuffle"] = "circular_shift",
    n_surrogates: int = 8,
    seed: int = 0,
) -> float:
    """A measure's mean on surrogate data: the estimate's bias where the true value is known.

    ``"circular_shift"`` (default): in each episode every element is rotated in time by its own
    random offset in 1..T-1, which keeps its autocorrelation and destroys the dependence between
    elements, where Phi_E, O-information and TSE are 0. ``"time_shuffle"`` permutes the steps of
    each episode (one permutation for every channel): it destroys temporal structure only.

    Parameters
    ----------
    measure : callable
        ``measure(trajectories) -> float`` on an (E, T, C) array.
    trajectories : array-like of shape (T, C) or (E, T, C)
    nodes : sequence of sequences of int, optional
        Elements rotated as units; default every channel.
    method : {"circular_shift", "time_shuffle"}
    n_surrogates : int, default=8
    seed : int, default=0

    Returns
    -------
    float
        Mean over the surrogates on which the measure is defined.

    Warns
    -----
    UndefinedMetricWarning
        If the measure is undefined on every surrogate (nan).

    Examples
    --------
    Independent channels: the O-information estimate is itself all bias.

    >>> from labcore.markers import o_information
    >>> x = np.random.default_rng(1).normal(size=(4, 200, 6))
    >>> round(surrogate_bias(o_information, x), 2)
    0.0
    """
    check_choice(method, "method", ("circular_shift", "time_shuffle"))
    if not isinstance(n_surrogates, int | np.integer) or n_surrogates < 1:
        raise ValueError(f"n_surrogates must be a positive integer, got {n_surrogates!r}")
    x = _as_trajectories(trajectories)
    e, t, c = x.shape
    if t < 2:
        raise ValueError("surrogates need at least 2 steps per episode")
    elements = _as_nodes(nodes, c)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_surrogates):
        s = np.empty_like(x)
        for ep in range(e):
            if method == "time_shuffle":
                s[ep] = x[ep, rng.permutation(t)]
                continue
            for node in elements:
                s[ep][:, node] = np.roll(x[ep][:, node], int(rng.integers(1, t)), axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            values.append(float(measure(s)))
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        warn_undefined(
            "surrogate bias: the measure is undefined on every surrogate", reason="every_surrogate"
        )
        return float("nan")
    return float(np.mean(finite))


def simulate_var1(
    coupling: ArrayLike,
    n_steps: int,
    *,
    noise_cov: ArrayLike | None = None,
    n_episodes: int = 1,
    burn_in: int = 200,
    seed: int = 0,
) -> NDArray[np.float64]:
    """Trajectories of the linear Gaussian system :math:`X_t = A X_{t-1} + \\varepsilon_t`.

    Parameters
    ----------
    coupling : array-like of shape (C, C)
        A; its spectral radius must be below 1 (stationary).
    n_steps : int
        Steps kept per episode (after ``burn_in`` discarded steps from 0).
    noise_cov : array-like of shape (C, C), optional
        Covariance of :math:`\\varepsilon_t`; default the identity.
    n_episodes : int, default=1
    burn_in : int, default=200
    seed : int, default=0

    Returns
    -------
    ndarray of shape (T, C), or (E, T, C) when ``n_episodes`` > 1

    Examples
    --------
    >>> simulate_var1([[0.5]], 4, seed=0).shape
    (4, 1)
    """
    a = as_float_array(coupling, "coupling", ndim=2)
    c = a.shape[0]
    if a.shape != (c, c):
        raise ValueError(f"coupling must be square, got shape {a.shape}")
    if np.max(np.abs(np.linalg.eigvals(a))) >= 1:
        raise ValueError("coupling has spectral radius >= 1: the process is not stationary")
    cov = np.eye(c) if noise_cov is None else as_float_array(noise_cov, "noise_cov", ndim=2)
    if cov.shape != (c, c):
        raise ValueError(f"noise_cov must be ({c}, {c}), got {cov.shape}")
    if n_steps < 1 or n_episodes < 1 or burn_in < 0:
        raise ValueError("n_steps and n_episodes must be >= 1 and burn_in >= 0")
    rng = np.random.default_rng(seed)
    chol = np.linalg.cholesky(cov)
    noise = rng.standard_normal((burn_in + n_steps, n_episodes, c)) @ chol.T
    x = np.zeros((burn_in + n_steps, n_episodes, c))
    state = np.zeros((n_episodes, c))
    for t in range(burn_in + n_steps):
        state = state @ a.T + noise[t]
        x[t] = state
    out = np.transpose(x[burn_in:], (1, 0, 2))
    return out[0] if n_episodes == 1 else out


@dataclass(frozen=True)
class KnownAnswer:
    """A measure's estimate (bits) on a simulated system beside its exact value and tolerance."""

    system: str
    measure: str
    """``"phi"``, ``"o_information"`` or ``"tse"``."""
    expected: float
    computed: float
    tolerance: float

    @property
    def ok(self) -> bool:
        """True when the estimate lies within the tolerance of the exact value."""
        return bool(abs(self.computed - self.expected) <= self.tolerance)


def _gaussian_o_information(cov: NDArray[np.float64]) -> float:
    """Omega of a Gaussian from its covariance, by determinants."""
    n = cov.shape[0]

    def h(idx: list[int]) -> float:
        return 0.5 * math.log2(np.linalg.det(2 * math.pi * math.e * cov[np.ix_(idx, idx)]))

    everything = list(range(n))
    return (n - 2) * h(everything) + sum(
        h([j]) - h([i for i in everything if i != j]) for j in everything
    )


def known_answers(n_samples: int = 20_000, seed: int = 0) -> list[KnownAnswer]:
    """Each integration measure on small systems whose answer is known (the lab shows them live).

    Two disconnected nodes have Phi_E = 0; two nodes that only drive each other (coupling 0.5)
    :math:`-\\log_2(1 - 0.25)` bits; independent channels have O-information and TSE 0;
    redundant and synergistic triples the Omega of their covariance; two channels with
    correlation 0.6 TSE :math:`-\\tfrac14 \\log_2(0.64)`.

    Parameters
    ----------
    n_samples : int, default=20000
        Steps (or samples) simulated per system.
    seed : int, default=0

    Examples
    --------
    >>> all(k.ok for k in known_answers())
    True
    """
    rng = np.random.default_rng(seed)
    episodes = max(1, n_samples // 500)

    def var(coupling: list[list[float]]) -> NDArray[np.float64]:
        return simulate_var1(coupling, n_samples // episodes, n_episodes=episodes, seed=seed)

    tol = 4.0 / math.sqrt(n_samples)  # a few standard errors of these sample estimates
    redundant_cov = np.ones((3, 3)) + 0.25 * np.eye(3)
    synergy_cov = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.09]])
    corr = np.array([[1.0, 0.6], [0.6, 1.0]])
    out = [
        KnownAnswer(
            "two disconnected nodes",
            "phi",
            0.0,
            integrated_information(var([[0.6, 0.0], [0.0, -0.3]])).phi,
            tol,
        ),
        KnownAnswer(
            "two nodes driving each other (coupling 0.5)",
            "phi",
            -math.log2(0.75),
            integrated_information(var([[0.0, 0.5], [0.5, 0.0]])).phi,
            tol,
        ),
        KnownAnswer(
            "four independent channels",
            "o_information",
            0.0,
            o_information(rng.normal(size=(n_samples, 4))),
            tol,
        ),
        KnownAnswer(
            "three noisy copies of one signal (redundancy)",
            "o_information",
            _gaussian_o_information(redundant_cov),
            o_information(rng.multivariate_normal(np.zeros(3), redundant_cov, size=n_samples)),
            2 * tol,
        ),
        KnownAnswer(
            "two signals and their sum (synergy)",
            "o_information",
            _gaussian_o_information(synergy_cov),
            o_information(rng.multivariate_normal(np.zeros(3), synergy_cov, size=n_samples)),
            2 * tol,
        ),
        KnownAnswer(
            "four independent channels",
            "tse",
            0.0,
            tse_complexity(rng.normal(size=(n_samples, 4))),
            tol,
        ),
        KnownAnswer(
            "two channels with correlation 0.6",
            "tse",
            -0.25 * math.log2(0.64),
            tse_complexity(rng.multivariate_normal(np.zeros(2), corr, size=n_samples)),
            tol,
        ),
    ]
    return out
