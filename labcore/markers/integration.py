"""Integration measures for Gaussian data (IIT-adjacent, beyond the paper).

The paper probes IIT with one compressibility proxy, PCI-A (Phua 2025, sec. 4.4), and asks
for "more direct approximations to Phi and/or alternative whole-vs-parts integration
measures" (sec. 6.4, 6.6). Three classic measures (Phi_E, O-information, TSE), each
estimated from the sample covariance of a recorded trajectory under a Gaussian model; and
what they are applied to: evoked responses, surrogates and known linear systems.

Conventions. A trajectory is (T, C) or (E, T, C): E episodes of T steps and C channels.
Lagged statistics pair steps within an episode; equal-time statistics pool all E * T
samples (the process is treated as stationary over the window). ``nodes`` groups channels
into the system's elements (default: each channel is one element), e.g. the 16 numbers of
a workspace slot. Entropies are in **bits**: :math:`H = \\tfrac12 \\log_2 ((2\\pi e)^d
\\det\\Sigma)`.

Undefined values (nan with an :class:`~labcore.UndefinedMetricWarning` naming the reason):
every channel constant (no activity); no more samples than the covariance has dimensions
(whatever the ridge); a singular covariance (a channel that never varies, or a correlation
matrix whose smallest eigenvalue is at most ``RCOND`` times its largest: channels that are exact
linear functions of others; judged on correlations, so a channel's scale does not matter).
``ridge`` > 0 instead adds independent Gaussian observation noise of variance ``ridge`` times
the mean channel variance to every channel, which makes every covariance of an active system
invertible; it is off by default and stated wherever it is used.
"""

from __future__ import annotations

import itertools
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

RCOND = 1e-12
"""A covariance is singular when the smallest eigenvalue of its correlation matrix is at most this
times the largest (float32 activations carry about 1e-14 of relative rounding variance)."""
MAX_EXHAUSTIVE = 12
"""Up to this many elements the bipartitions (2**(n-1) - 1 of them) are searched exhaustively."""
N_RANDOM_BIPARTITIONS = 64
"""Random bipartitions added to the spectral candidates by the approximate search."""
MAX_EXACT_TSE = 12
"""Up to this many elements TSE averages over every subset; above, ``n_subsets`` per size."""
N_SUBSETS_TSE = 32
"""Random subsets per subset size for TSE above ``MAX_EXACT_TSE`` elements."""
_LOG2_2PIE = math.log2(2 * math.pi * math.e)


class _Undefined(Exception):
    """A documented undefined case; the message is the reason, ``reason`` its name."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


# --------------------------------------------------------------------------- validation
def _as_trajectories(x: ArrayLike, name: str = "trajectories") -> NDArray[np.float64]:
    """(T, C) or (E, T, C) -> a finite float64 array of shape (E, T, C)."""
    arr = as_float_array(x, name, ndim=(2, 3))
    return arr[None] if arr.ndim == 2 else arr


def _as_nodes(nodes: Sequence[Sequence[int]] | None, n_channels: int) -> list[NDArray[np.intp]]:
    """The elements as index arrays; they must cover every channel exactly once."""
    if nodes is None:
        return [np.array([c]) for c in range(n_channels)]
    out = []
    for node in nodes:
        idx = np.asarray(node)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(
                f"each node must be a non-empty list of channel indices, got {node!r:.60}"
            )
        out.append(idx.astype(np.intp))
    flat = np.sort(np.concatenate(out))
    if flat.size != n_channels or not np.array_equal(flat, np.arange(n_channels)):
        raise ValueError(f"nodes must cover each of the {n_channels} channels exactly once")
    return out


def _check_ridge(ridge: float) -> float:
    if not (isinstance(ridge, int | float) and math.isfinite(ridge) and ridge >= 0):
        raise ValueError(f"ridge must be a finite number >= 0, got {ridge!r}")
    return float(ridge)


# --------------------------------------------------------------------------- Gaussian core
def _covariance(samples: NDArray[np.float64], ridge: float, what: str) -> NDArray[np.float64]:
    """Sample covariance of (N, d) samples, ridged; raises _Undefined (module docstring)."""
    n, d = samples.shape
    variances = samples.var(axis=0, ddof=1) if n > 1 else np.zeros(d)
    if n < 2 or not np.any(variances > 0):
        raise _Undefined(f"{what}: every channel is constant (no activity)", "no_activity")
    if n <= d:
        raise _Undefined(
            f"{what}: {n} samples for a {d}-dimensional covariance (needs more than {d})",
            "too_few_samples",
        )
    cov = np.cov(samples, rowvar=False, ddof=1).reshape(d, d)
    if ridge > 0:
        cov = cov + ridge * float(np.mean(variances)) * np.eye(d)
    scale = np.sqrt(np.diag(cov))
    dead = int(np.sum(scale <= 0))
    if dead:
        raise _Undefined(
            f"{what}: the covariance is singular ({dead} of its {d} dimensions never vary); "
            "pass ridge > 0 to add observation noise",
            "constant_channels",
        )
    eig = np.linalg.eigvalsh(cov / np.outer(scale, scale))
    if eig[0] <= RCOND * eig[-1]:
        raise _Undefined(
            f"{what}: the covariance is singular (its correlation matrix has rank "
            f"{int(np.sum(eig > RCOND * eig[-1]))} of {d}: some channels are exact linear "
            "functions of others); pass ridge > 0 to add observation noise",
            "linear_dependence",
        )
    return cov


def _logdet2(cov: NDArray[np.float64]) -> float:
    """log2 det of a positive-definite matrix (Cholesky)."""
    return 2.0 * float(np.sum(np.log2(np.diag(np.linalg.cholesky(cov)))))


def _logdets2(cov: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
    """log2 det of ``cov[idx[m]][:, idx[m]]`` for every row m of (M, d) ``idx``."""
    chol = np.linalg.cholesky(cov[idx[:, :, None], idx[:, None, :]])
    return 2.0 * np.log2(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)


def _entropy(cov: NDArray[np.float64]) -> float:
    """Differential entropy (bits) of a Gaussian with covariance ``cov``."""
    return 0.5 * (cov.shape[0] * _LOG2_2PIE + _logdet2(cov))


def _sub(cov: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
    return cov[np.ix_(idx, idx)]


# --------------------------------------------------------------------------- Phi (Barrett & Seth)
@dataclass(frozen=True)
class IntegratedInformation:
    """Whole-minus-sum integrated information at the minimum-information bipartition."""

    phi: float
    """Phi_E = phi_E[X; tau, B_MIB] in bits (not normalised; can be negative)."""
    phi_normalised: float
    """phi_E / K at the MIB, the quantity the MIB minimises (see ``normalisation``)."""
    bipartition: tuple[tuple[int, ...], tuple[int, ...]]
    """The MIB as two tuples of node indices (the part holding node 0 first)."""
    whole_information: float
    """I(X_{t-tau}; X_t) of the whole system, bits."""
    n_searched: int
    """Bipartitions evaluated."""
    exhaustive: bool
    """True when every bipartition was evaluated (the MIB is exact)."""


class _PhiCore:
    """phi_E and K of bipartitions of one joint (past, present) covariance, cached."""

    def __init__(
        self, joint: NDArray[np.float64], nodes: list[NDArray[np.intp]], normalisation: str
    ) -> None:
        c = joint.shape[0] // 2
        self.joint, self.nodes, self.c, self.normalisation = joint, nodes, c, normalisation
        present = joint[c:, c:]
        sd = np.sqrt(np.diag(present))
        self.corr = present / np.outer(sd, sd)  # K uses standardised channels (unit-free)
        self.whole = 0.5 * (_logdet2(joint[:c, :c]) + _logdet2(present) - _logdet2(joint))
        self.everything = frozenset(range(len(nodes)))
        self._mi: dict[frozenset[int], float] = {}
        self._h: dict[frozenset[int], float] = {}

    def _fill(self, parts: set[frozenset[int]]) -> None:
        """I(M_{t-tau}; M_t) and the K entropy H(M_t) (bits) of every part not cached yet."""
        todo = [p for p in parts if p not in self._mi]
        channels = [np.concatenate([self.nodes[i] for i in sorted(p)]) for p in todo]
        for size in {ch.size for ch in channels}:
            which = [i for i, ch in enumerate(channels) if ch.size == size]
            idx = np.stack([channels[i] for i in which])
            both = np.concatenate([idx, idx + self.c], axis=1)
            mi = 0.5 * (
                _logdets2(self.joint, idx)
                + _logdets2(self.joint, idx + self.c)
                - _logdets2(self.joint, both)
            )
            logdet = (
                _logdets2(self.corr, idx)
                if self.normalisation == "entropy"
                else np.zeros(len(which))
            )
            for j, i in enumerate(which):
                self._mi[todo[i]] = float(mi[j])
                self._h[todo[i]] = 0.5 * (size * _LOG2_2PIE + float(logdet[j]))

    def evaluate(self, parts_a: list[frozenset[int]]) -> list[tuple[float, float]]:
        """(phi_E, phi_E / K) of each bipartition {A, rest}; the ratio is inf when K <= 0."""
        self._fill({p for a in parts_a for p in (a, self.everything - a)})
        out = []
        for a in parts_a:
            b = self.everything - a
            phi = self.whole - self._mi[a] - self._mi[b]
            k = min(self._h[a], self._h[b])
            out.append((phi, phi / k if k > 0 else math.inf))
        return out


def _exhaustive(n: int) -> list[frozenset[int]]:
    """Every bipartition once, as the part holding node 0."""
    return [
        frozenset([0, *(i + 1 for i in range(n - 1) if mask >> i & 1)])
        for mask in range(2 ** (n - 1) - 1)
    ]


def _spectral_candidates(core: _PhiCore) -> list[frozenset[int]]:
    """Sweep cuts along the Fiedler vector of the element coupling graph."""
    c, n = core.c, len(core.nodes)
    sd = np.sqrt(np.diag(core.joint))
    r = np.abs(core.joint / np.outer(sd, sd))
    channel = r[c:, c:] + r[:c, c:] + r[c:, :c]
    member = np.zeros((c, n))  # channel -> element, each column normalised to a mean
    for i, node in enumerate(core.nodes):
        member[node, i] = 1.0 / node.size
    w = member.T @ channel @ member
    np.fill_diagonal(w, 0.0)
    laplacian = np.diag(w.sum(1)) - w
    order = np.argsort(np.linalg.eigh(laplacian)[1][:, 1], kind="stable")
    return [frozenset(order[:k].tolist()) for k in range(1, n)]


def _approximate_search(core: _PhiCore, n_random: int, seed: int) -> tuple[frozenset[int], int]:
    """Spectral sweep cuts + random bipartitions, then greedy single-element moves."""
    n = len(core.nodes)
    everything = frozenset(range(n))
    rng = np.random.default_rng(seed)
    candidates = _spectral_candidates(core)
    while len(candidates) < n - 1 + n_random:
        side = rng.random(n) < 0.5
        if 0 < side.sum() < n:
            candidates.append(frozenset(np.flatnonzero(side).tolist()))
    seen: dict[frozenset[int], float] = {}

    def scores(parts: list[frozenset[int]]) -> list[float]:
        keys = [p if 0 in p else everything - p for p in parts]
        new = sorted(set(keys) - seen.keys(), key=sorted)
        seen.update(zip(new, (ratio for _, ratio in core.evaluate(new)), strict=True))
        return [seen[k] for k in keys]

    values = scores(candidates)
    best, best_score = candidates[int(np.argmin(values))], min(values)
    while True:  # each accepted move strictly lowers the score: terminates
        moves = [m for m in (best ^ {i} for i in range(n)) if 0 < len(m) < n]
        values = scores(moves)
        if min(values) >= best_score - 1e-12:
            break
        best, best_score = moves[int(np.argmin(values))], min(values)
    return (best if 0 in best else everything - best), len(seen)


def integrated_information(
    trajectories: ArrayLike,
    *,
    tau: int = 1,
    nodes: Sequence[Sequence[int]] | None = None,
    ridge: float = 0.0,
    normalisation: Literal["entropy", "maximum_entropy"] = "entropy",
    max_exhaustive: int = MAX_EXHAUSTIVE,
    n_random: int = N_RANDOM_BIPARTITIONS,
    seed: int = 0,
) -> IntegratedInformation:
    """Whole-minus-sum integrated information Phi_E of a Gaussian process (Barrett & Seth 2011).

    For a bipartition :math:`B = \\{M^1, M^2\\}` of the system's elements,

    .. math::

        \\varphi_E[X; \\tau, B] = I(X_{t-\\tau}; X_t) - \\sum_{k=1}^{2} I(M^k_{t-\\tau}; M^k_t),
        \\qquad I(A; B) = H(A) + H(B) - H(A, B),

    with Gaussian entropies from the covariance of the stacked (past, present) pairs (for
    Gaussian data Phi_E equals Barrett & Seth's Phi_AR). The MIB minimises
    :math:`\\varphi_E / K(B)`, :math:`K(B) = \\min_k H(M^k_t)`, and
    :math:`\\Phi_E = \\varphi_E[X; \\tau, B_{MIB}]`.

    Parameters
    ----------
    trajectories : array-like of shape (T, C) or (E, T, C)
        Pairs :math:`(x_{t-\\tau}, x_t)` are taken within each episode.
    tau : int, default=1
        Lag in steps.
    nodes : sequence of sequences of int, optional
        Channel indices of each element; default every channel is one element.
    ridge : float, default=0
        See the module docstring.
    normalisation : {"entropy", "maximum_entropy"}, default="entropy"
        K(B): the smaller of the two parts' entropies :math:`H(M^k_t)` (Barrett & Seth), or of
        their largest possible entropies :math:`\\tfrac{d_k}{2} \\log_2(2\\pi e)` (Balduzzi &
        Tononi's :math:`H^{max}`, positive for every part).
    max_exhaustive : int, default=12
        Up to this many elements every bipartition is evaluated. Above it: the n - 1 sweep cuts
        along the Fiedler vector of the element coupling graph, ``n_random`` random
        bipartitions, then greedy single-element moves (an upper bound on the exact minimum).
    n_random : int, default=64
    seed : int, default=0
        Seed of the random bipartitions.

    Returns
    -------
    IntegratedInformation
        All fields nan (bipartition empty) when undefined.

    Warns
    -----
    UndefinedMetricWarning
        No activity; no more (past, present) pairs than 2C; a singular joint covariance (e.g. a
        memory held unchanged, unless ``ridge`` > 0); or no bipartition with K > 0.

    Notes
    -----
    Sample size: :math:`\\varphi_E` is biased upward by about :math:`(C^2 - \\sum_k c_k^2) /
    (2N \\ln 2)` bits: aim for N >= 20 C pairs and read the bias from :func:`surrogate_bias`.
    :math:`\\varphi_E` can be negative when the parts' own autocorrelations carry more than the
    whole (Mediano et al. 2019). Choice where the source is silent: K uses standardised channels
    (unit-free), and bipartitions with K <= 0 are skipped; a part's entropy falls below 0 when
    its channels are strongly correlated, as in the lab's recurrent states, where
    "maximum_entropy" is the alternative. Deterministic dynamics make the information infinite
    without ``ridge`` (it grows with :math:`\\log(1/\\mathrm{ridge})` with it).

    References
    ----------
    .. [1] Barrett, A. B., & Seth, A. K. (2011). Practical measures of integrated
       information for time-series data. PLoS Computational Biology, 7(1), e1001052.
    .. [2] Balduzzi, D., & Tononi, G. (2008). Integrated information in discrete dynamical
       systems: motivation and theoretical framework. PLoS Computational Biology, 4(6),
       e1000091.
    .. [3] Mediano, P. A. M., Seth, A. K., & Barrett, A. B. (2019). Measuring integrated
       information: comparison of candidate measures in theory and simulation. Entropy,
       21(1), 17.

    Examples
    --------
    Two nodes, each driven only by the other (x1 <- 0.5 x2, x2 <- 0.5 x1, unit noise): the
    closed form is :math:`-\\log_2(1 - a^2) = 0.415` bits; two independent nodes give 0.

    >>> from labcore.markers import simulate_var1
    >>> x = simulate_var1([[0.0, 0.5], [0.5, 0.0]], 2_000, n_episodes=200, seed=1)
    >>> round(integrated_information(x).phi, 2)
    0.41
    >>> round(integrated_information(simulate_var1([[0.5, 0.0], [0.0, 0.5]], 2_000,
    ...                                            n_episodes=50)).phi, 3)
    0.0
    """
    x = _as_trajectories(trajectories)
    if not (isinstance(tau, int | np.integer) and 1 <= tau < x.shape[1]):
        raise ValueError(f"tau must be an integer in 1..{x.shape[1] - 1}, got {tau!r}")
    elements = _as_nodes(nodes, x.shape[2])
    if len(elements) < 2:
        raise ValueError("integrated information needs at least 2 elements")
    c = x.shape[2]
    pairs = np.concatenate([x[:, :-tau].reshape(-1, c), x[:, tau:].reshape(-1, c)], axis=1)
    nan = float("nan")
    undefined = IntegratedInformation(nan, nan, ((), ()), nan, 0, False)
    check_choice(normalisation, "normalisation", ("entropy", "maximum_entropy"))
    try:
        core = _PhiCore(_covariance(pairs, _check_ridge(ridge), "Phi_E"), elements, normalisation)
    except _Undefined as exc:
        warn_undefined(str(exc), reason=exc.reason)
        return undefined
    n = len(elements)
    if n <= max_exhaustive:
        parts = _exhaustive(n)
        scores = [ratio for _, ratio in core.evaluate(parts)]
        best, searched, exhaustive = parts[int(np.argmin(scores))], len(parts), True
    else:
        best, searched = _approximate_search(core, n_random, seed)
        exhaustive = False
    phi, normalised = core.evaluate([best])[0]
    if math.isinf(normalised):
        warn_undefined(
            "Phi_E: no searched bipartition has a positive normalisation K (part entropies <= 0)",
            reason="normalisation",
        )
        return IntegratedInformation(nan, nan, ((), ()), core.whole, searched, exhaustive)
    other = tuple(sorted(set(range(n)) - best))
    return IntegratedInformation(
        phi, normalised, (tuple(sorted(best)), other), core.whole, searched, exhaustive
    )


# --------------------------------------------------------------------------- O-information
@dataclass(frozen=True)
class HigherOrderInformation:
    """Total correlation, dual total correlation, O- and S-information of one system (bits)."""

    total_correlation: float
    """TC = sum_j H(X_j) - H(X): all shared information (Watanabe 1960)."""
    dual_total_correlation: float
    """DTC = H(X) - sum_j H(X_j | X_-j): information shared by at least two elements (Han 1978)."""
    o_information: float
    """Omega = TC - DTC: > 0 redundancy-dominated, < 0 synergy-dominated."""
    s_information: float
    """Sigma = TC + DTC: the overall amount of interdependence."""


def _static(
    samples: ArrayLike, nodes: Sequence[Sequence[int]] | None, ridge: float, what: str
) -> tuple[NDArray[np.float64] | None, list[NDArray[np.intp]]]:
    """(covariance or None after the warning, elements) of pooled equal-time samples."""
    x = _as_trajectories(samples, "samples")
    flat = x.reshape(-1, x.shape[2])
    elements = _as_nodes(nodes, flat.shape[1])
    if len(elements) < 2:
        raise ValueError(f"{what} needs at least 2 elements")
    try:
        return _covariance(flat, _check_ridge(ridge), what), elements
    except _Undefined as exc:
        warnings.warn(UndefinedMetricWarning(str(exc), exc.reason), stacklevel=4)
        return None, elements


def higher_order_information(
    samples: ArrayLike, *, nodes: Sequence[Sequence[int]] | None = None, ridge: float = 0.0
) -> HigherOrderInformation:
    """O-information and its companions for Gaussian data (Rosas et al. 2019).

    For n elements :math:`X = (X_1, \\dots, X_n)`, with Gaussian entropies of sub-covariances:

    .. math::

        \\Omega(X) = (n - 2) H(X) + \\sum_{j=1}^{n} [H(X_j) - H(X_{-j})]
                   = TC(X) - DTC(X), \\qquad \\Sigma(X) = TC(X) + DTC(X),

    with :math:`TC = \\sum_j H(X_j) - H(X)` and :math:`DTC = \\sum_j H(X_{-j}) - (n - 1) H(X)`.

    Parameters
    ----------
    samples : array-like of shape (N, C) or (E, T, C)
        Equal-time samples (episodes and steps pooled).
    nodes : sequence of sequences of int, optional
        Channel indices of each element (elements may be multivariate); default one per channel.
    ridge : float, default=0
        See the module docstring.

    Returns
    -------
    HigherOrderInformation
        All nan when undefined. For n = 2 elements Omega is 0 and TC = DTC = I(X_1; X_2).

    Warns
    -----
    UndefinedMetricWarning
        No activity, N <= C samples, or a singular covariance.

    Notes
    -----
    TC is biased by about :math:`C^2 / (2N \\ln 2)` bits: aim for N >= 10 C and read the bias
    from :func:`surrogate_bias`. The Gaussian closed form is eq. (21) of [1]_.

    References
    ----------
    .. [1] Rosas, F. E., Mediano, P. A. M., Gastpar, M., & Jensen, H. J. (2019). Quantifying
       high-order interdependencies via multivariate extensions of the mutual information.
       Physical Review E, 100(3), 032305.

    Examples
    --------
    Three noisy copies of one signal are redundant; a sum of two independent signals is
    synergistic (it says nothing about either alone, everything about both together):

    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(20_000, 1))
    >>> copies = z + 0.5 * rng.normal(size=(20_000, 3))
    >>> bool(higher_order_information(copies).o_information > 0)
    True
    >>> a, b = rng.normal(size=(2, 20_000))
    >>> bool(o_information(np.c_[a, b, a + b + 0.1 * rng.normal(size=20_000)]) < 0)
    True
    """
    cov, elements = _static(samples, nodes, ridge, "O-information")
    if cov is None:
        nan = float("nan")
        return HigherOrderInformation(nan, nan, nan, nan)
    n = len(elements)
    everything = np.arange(cov.shape[0])
    h = _entropy(cov)
    h_each = [_entropy(_sub(cov, e)) for e in elements]
    h_rest = [_entropy(_sub(cov, np.setdiff1d(everything, e))) for e in elements]
    tc = sum(h_each) - h
    dtc = sum(h_rest) - (n - 1) * h
    return HigherOrderInformation(tc, dtc, tc - dtc, tc + dtc)


def o_information(
    samples: ArrayLike, *, nodes: Sequence[Sequence[int]] | None = None, ridge: float = 0.0
) -> float:
    """O-information Omega (bits) of Gaussian data: :func:`higher_order_information`'s
    ``o_information`` (> 0 redundancy, < 0 synergy, 0 for independent elements).

    Examples
    --------
    >>> round(o_information(np.random.default_rng(0).normal(size=(50_000, 4))), 3)
    0.0
    """
    return higher_order_information(samples, nodes=nodes, ridge=ridge).o_information


# --------------------------------------------------------------------------- TSE
def tse_complexity(
    samples: ArrayLike,
    *,
    nodes: Sequence[Sequence[int]] | None = None,
    ridge: float = 0.0,
    max_exact: int = MAX_EXACT_TSE,
    n_subsets: int = N_SUBSETS_TSE,
    seed: int = 0,
) -> float:
    """Neural complexity C_N of Tononi, Sporns & Edelman (1994) for Gaussian data (bits).

    .. math::

        C_N(X) = \\sum_{k=1}^{n} \\left[ \\langle H(X^k_j) \\rangle_j - \\frac{k}{n} H(X) \\right]
               = \\sum_{k=1}^{n} \\left[ \\frac{k}{n} I(X) - \\langle I(X^k_j) \\rangle_j \\right],

    where :math:`X^k_j` runs over the subsets of k of the n elements and :math:`I` is the
    integration (total correlation). High when small subsets are fairly independent while
    the whole is integrated (segregation and integration together); 0 for independent
    elements and for a system whose every subset is as integrated as its share.

    Parameters
    ----------
    samples, nodes, ridge
        As :func:`higher_order_information`.
    max_exact : int, default=12
        Up to this many elements the average runs over every subset.
    n_subsets : int, default=32
        Above ``max_exact``: subsets drawn without repetition per size k.
    seed : int, default=0

    Returns
    -------
    float

    Warns
    -----
    UndefinedMetricWarning
        No activity, N <= C samples, or a singular covariance.

    Notes
    -----
    Scale-free; sample size as :func:`higher_order_information`. Adding an independent element
    changes C_N (n enters the weights), unlike Phi_E and Omega.

    References
    ----------
    .. [1] Tononi, G., Sporns, O., & Edelman, G. M. (1994). A measure for brain complexity:
       relating functional segregation and integration in the nervous system. PNAS, 91(11),
       5033-5037.

    Examples
    --------
    Two elements: C_N = I(X_1; X_2) / 2, here for correlation 0.6
    :math:`-\\tfrac14 \\log_2(1 - 0.36) = 0.161` bits:

    >>> cov = [[1.0, 0.6], [0.6, 1.0]]
    >>> x = np.random.default_rng(0).multivariate_normal([0, 0], cov, size=100_000)
    >>> round(tse_complexity(x), 2)
    0.16
    """
    cov, elements = _static(samples, nodes, ridge, "TSE complexity")
    if cov is None:
        return float("nan")
    if not isinstance(n_subsets, int | np.integer) or n_subsets < 1:
        raise ValueError(f"n_subsets must be a positive integer, got {n_subsets!r}")
    n = len(elements)
    rng = np.random.default_rng(seed)
    h_each = np.array([_entropy(_sub(cov, e)) for e in elements])
    integration = float(h_each.sum()) - _entropy(cov)
    total = 0.0
    for k in range(1, n):
        # The integration form: a subset's mean marginal entropy is known exactly, so only
        # the subsets' integrations are averaged (less sampling variance than their entropies).
        if n <= max_exact or math.comb(n, k) <= n_subsets:
            subsets = list(itertools.combinations(range(n), k))
        else:
            drawn: set[tuple[int, ...]] = set()
            while len(drawn) < n_subsets:
                drawn.add(tuple(sorted(rng.choice(n, size=k, replace=False).tolist())))
            subsets = sorted(drawn)
        marginal = np.mean([h_each[list(s)].sum() for s in subsets])
        total += k / n * integration - float(marginal - np.mean(_entropies(cov, elements, subsets)))
    return total


def _entropies(
    cov: NDArray[np.float64], elements: list[NDArray[np.intp]], subsets: list[tuple[int, ...]]
) -> NDArray[np.float64]:
    """Entropies of the elements' subsets, one batched Cholesky per channel count."""
    channels = [np.concatenate([elements[i] for i in s]) for s in subsets]
    out = np.empty(len(subsets))
    for size in {ch.size for ch in channels}:
        which = [i for i, ch in enumerate(channels) if ch.size == size]
        out[which] = 0.5 * (
            size * _LOG2_2PIE + _logdets2(cov, np.stack([channels[i] for i in which]))
        )
    return out


# --------------------------------------------------------------------------- applications
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

    def phi(coupling: list[list[float]]) -> float:
        x = simulate_var1(coupling, n_samples // episodes, n_episodes=episodes, seed=seed)
        return integrated_information(x).phi

    def sample(cov: NDArray[np.float64]) -> NDArray[np.float64]:
        return rng.multivariate_normal(np.zeros(len(cov)), cov, size=n_samples)

    def omega(cov: NDArray[np.float64]) -> tuple[float, float]:
        return _gaussian_o_information(cov), o_information(sample(cov))

    tol = 4.0 / math.sqrt(n_samples)  # a few standard errors of these sample estimates
    redundant = np.ones((3, 3)) + 0.25 * np.eye(3)
    synergy = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.09]])
    corr = np.array([[1.0, 0.6], [0.6, 1.0]])
    driven = phi([[0.0, 0.5], [0.5, 0.0]])
    o, tse, white = "o_information", "tse", (n_samples, 4)
    rows = [
        ("two disconnected nodes", "phi", 0.0, phi([[0.6, 0.0], [0.0, -0.3]]), tol),
        ("two nodes driving each other (coupling 0.5)", "phi", -math.log2(0.75), driven, tol),
        ("four independent channels", o, 0.0, o_information(rng.normal(size=white)), tol),
        ("three noisy copies of one signal (redundancy)", o, *omega(redundant), 2 * tol),
        ("two signals and their sum (synergy)", o, *omega(synergy), 2 * tol),
        ("four independent channels", tse, 0.0, tse_complexity(rng.normal(size=white)), tol),
        (
            "two channels with correlation 0.6",
            tse,
            -0.25 * math.log2(0.64),
            tse_complexity(sample(corr)),
            tol,
        ),
    ]
    return [KnownAnswer(*row) for row in rows]
