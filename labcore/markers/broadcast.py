"""Global-workspace markers (GWT; Experiment 2): broadcast, ignition, cue persistence.

Workspace activity comes as slot arrays of shape ``(T, K, D)`` (time, slots, slot
dimension) or ``(N, T, K, D)`` (episodes first). Paper: Phua (2025), sec 4.4 "Global
Broadcast Index (GBI)" and "Ignition Sharpness", sec 5.2.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore.checks import check_choice
from labcore.markers._common import as_float_array, warn_undefined

#: Regulariser of the GBI denominator (paper sec 4.4, epsilon).
GBI_EPS = 1e-8

Window = slice | ArrayLike | None


def _time_mask(window: Window, lead_shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """Boolean mask of shape ``lead_shape`` = (T,) or (N, T) selecting the time steps."""
    n_time = lead_shape[-1]
    if window is None:
        return np.ones(lead_shape, dtype=bool)
    if isinstance(window, slice):
        mask_t = np.zeros(n_time, dtype=bool)
        mask_t[window] = True
        return np.broadcast_to(mask_t, lead_shape)
    mask = np.asarray(window)
    if mask.dtype != np.bool_:
        raise ValueError(f"window must be a slice or a boolean mask, got dtype {mask.dtype}")
    if mask.shape not in {(n_time,), lead_shape}:
        raise ValueError(
            f"window mask must have shape ({n_time},) or {lead_shape}, got {mask.shape}"
        )
    return np.broadcast_to(mask, lead_shape)


def _participation(
    w: NDArray[np.float64], eps: float, negative: str, coupling: str = "dot"
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """(P_i(t) of shape (..., T, K), the mask where it is defined, the couplings A)."""
    if coupling == "abs_cosine":
        norms = np.linalg.norm(w, axis=-1, keepdims=True)
        unit = np.divide(w, norms, out=np.zeros_like(w), where=norms > 0)
        adjacency = np.abs(np.einsum("...id,...jd->...ij", unit, unit))
    else:
        adjacency = np.einsum("...id,...jd->...ij", w, w)
    n_slots = adjacency.shape[-1]
    adjacency[..., np.arange(n_slots), np.arange(n_slots)] = 0.0
    if negative == "clip":
        adjacency = np.maximum(adjacency, 0.0)
    strength = adjacency.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = adjacency / (strength + eps)
        p = 1.0 - np.sum(share**2, axis=-1)
    occupied = np.any(w != 0.0, axis=-1)
    defined = occupied & (occupied.sum(axis=-1, keepdims=True) >= 2)
    return p, defined, adjacency


def global_broadcast_index(
    slots: ArrayLike,
    *,
    eps: float = GBI_EPS,
    window: Window = None,
    negative: Literal["keep", "clip", "undefined"] = "keep",
    undefined: Literal["nan", "zero"] = "nan",
    coupling: Literal["dot", "abs_cosine"] = "dot",
) -> float:
    """Global Broadcast Index: how evenly each workspace slot couples to the others.

    At each time step the slots are nodes of a graph weighted by slot similarity,

    .. math::

        A_t(i, j) = w_{t,i}^\\top w_{t,j}, \\qquad A_t(i, i) = 0,

        P_i(t) = 1 - \\sum_{j \\ne i}
        \\left( \\frac{A_t(i, j)}{\\sum_{j' \\ne i} A_t(i, j') + \\varepsilon} \\right)^2,

    and GBI is the mean of :math:`P_i(t)` over slots and time steps in the window (paper
    sec 4.4). With non-negative couplings :math:`0 \\le P_i \\le 1 - 1/(K-1)` (the paper
    reports 0.66 at full capacity).

    Parameters
    ----------
    slots : array-like of shape (T, K, D) or (N, T, K, D)
        Workspace slot activations ``w_{t,i}``; episodes are pooled.
    eps : float, default=1e-8
    window : slice or bool array of shape (T,) or (N, T), optional
        Time steps of the decision window (default: all).
    negative : {"keep", "clip", "undefined"}, default="keep"
        ``"keep"``: the signed dot products, as in the paper. ``"clip"``: negative couplings set
        to 0 first. ``"undefined"``: nan, with a warning, if any coupling between occupied
        slots in the window is negative.
    coupling : {"dot", "abs_cosine"}, default="dot"
        ``"dot"``: :math:`A(i, j) = w_i^\top w_j`, the paper's equation. ``"abs_cosine"``:
        :math:`A(i, j) = |\\cos(w_i, w_j)|`, non-negative whatever the slots' signs and scale
        (docs/protocol.md change log 2026-11-23); ``negative`` has no effect with it.
    undefined : {"nan", "zero"}, default="nan"
        Return value when nothing is defined in the window: nan with a warning, or 0.0
        silently, the paper's convention for bus-off ("we define GBI as 0", sec 5.3).

    Returns
    -------
    float

    Warns
    -----
    UndefinedMetricWarning
        With ``undefined="nan"`` if fewer than two slots are occupied at every time step
        of the window (e.g. bus-off, ``K < 2``, or an empty window).

    Notes
    -----
    Choices where the paper is silent:

    * Empty slots (all activations exactly 0) are not nodes (the equation would give them
      :math:`P_i = 1`, rating an empty bus as maximal broadcast); they are left out of the mean.
    * A time step with fewer than two occupied slots contributes nothing; if that leaves
      nothing, GBI is undefined (see ``undefined``).
    * With signed couplings (``negative="keep"``) a slot whose couplings nearly cancel has a
      tiny denominator and :math:`P_i` can be hugely negative.

    References
    ----------
    .. [1] Guimera, R., & Amaral, L. A. N. (2005). Functional cartography of complex
       metabolic networks. Nature, 433(7028), 895-900.
    .. [2] Dehaene, S., & Changeux, J.-P. (2011). Experimental and theoretical approaches
       to conscious processing. Neuron, 70(2), 200-227.

    Examples
    --------
    Four identical slots: each couples 1/3 to each other, P = 1 - 3 (1/3)^2 = 2/3.

    >>> round(global_broadcast_index(np.ones((1, 4, 3))), 4)
    0.6667

    Two occupied slots out of four: a single partner takes all the coupling, P = 0.

    >>> slots = np.zeros((1, 4, 3)); slots[0, :2] = 1.0
    >>> round(global_broadcast_index(slots), 4)
    0.0
    >>> global_broadcast_index(np.zeros((5, 4, 3)), undefined="zero")
    0.0

    Slots pointing in opposite directions: the signed couplings cancel (each slot's total
    coupling is -1 + 1 - 1 = -1, and P = 1 - 3 = -2); their magnitudes do not.

    >>> slots = np.array([[[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]])
    >>> (round(global_broadcast_index(slots), 4),
    ...  round(global_broadcast_index(slots, coupling="abs_cosine"), 4))
    (-2.0, 0.6667)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     global_broadcast_index(slots, negative="undefined")
    nan
    """
    check_choice(negative, "negative", ("keep", "clip", "undefined"))
    check_choice(undefined, "undefined", ("nan", "zero"))
    check_choice(coupling, "coupling", ("dot", "abs_cosine"))
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be a finite non-negative number, got {eps!r}")
    w = as_float_array(slots, "slots", ndim=(3, 4), allow_empty=True)
    p, defined, adjacency = _participation(
        w, eps, "keep" if negative == "undefined" else negative, coupling
    )
    selected = defined & _time_mask(window, w.shape[:-2])[..., None]
    if negative == "undefined" and coupling == "dot" and np.any(selected):
        pairs = selected[..., :, None] & selected[..., None, :]
        if np.any(adjacency[pairs] < 0):
            warn_undefined(
                "GBI is undefined here: its participation formula assumes non-negative couplings, "
                "and these slots have negative ones (see coupling='abs_cosine')",
                reason="negative_couplings",
            )
            return float("nan")
    if not np.any(selected):
        if undefined == "zero":
            return 0.0
        warn_undefined(
            "GBI is undefined: fewer than two occupied (non-zero) slots at every time step "
            "in the window",
            reason="too_few_slots",
        )
        return float("nan")
    return float(np.mean(p[selected]))


def ignition_sharpness(
    slots_or_norms: ArrayLike,
    *,
    window: Window = None,
) -> float:
    """Ignition sharpness: the steepest one-step rise of the workspace activation norm.

    .. math::

        a_t = \\frac{\\lVert W_t \\rVert_F}{\\sqrt{K D}}, \\qquad
        \\mathrm{IS} = \\max\\left(0, \\max_t (a_t - a_{t-1})\\right),

    where :math:`W_t` is the ``(K, D)`` slot matrix at step ``t`` (paper sec 4.4 "Ignition
    Sharpness": "the temporal derivative of the activation norm ... peak steepness").

    Parameters
    ----------
    slots_or_norms : array-like of shape (T,), (T, K, D) or (N, T, K, D)
        Slot activations, or an activation trace ``a_t`` of shape (T,) used as given.
        With ``N`` episodes the result is the mean of the per-episode values.
    window : slice or bool array of shape (T,) or (N, T), optional
        Time steps to consider (default: all); use a contiguous window.

    Returns
    -------
    float
        Non-negative. Exactly 0 for an all-zero workspace (bus-off): no activation, no
        ignition.

    Raises
    ------
    ValueError
        If fewer than two time steps are selected (in any episode).

    Notes
    -----
    Choices where the paper is silent: the Frobenius norm over all slots divided by
    :math:`\\sqrt{KD}`, so capacity conditions on one bus share a scale; decreases do not count
    (ignition is a rise). 2-D inputs are ambiguous ((T, F) or (N, T)) and rejected.

    References
    ----------
    .. [1] Dehaene, S., & Changeux, J.-P. (2011). Experimental and theoretical approaches
       to conscious processing. Neuron, 70(2), 200-227.

    Examples
    --------
    >>> ignition_sharpness([0.0, 0.1, 0.6, 0.7, 0.7])
    0.5
    >>> ignition_sharpness(np.zeros((32, 4, 16)))
    0.0
    """
    x = as_float_array(slots_or_norms, "slots_or_norms", ndim=(1, 3, 4), allow_empty=True)
    if x.ndim == 1:
        trace = x
    else:
        units = x.shape[-1] * x.shape[-2]
        sq = np.sum(x**2, axis=(-2, -1))
        trace = np.sqrt(sq / units) if units else np.zeros(x.shape[:-2])
    mask = _time_mask(window, trace.shape)
    episodes = trace.reshape(-1, trace.shape[-1])
    masks = mask.reshape(-1, trace.shape[-1])
    values = []
    for a, m in zip(episodes, masks, strict=True):
        a = a[m]
        if a.size < 2:
            raise ValueError(
                f"ignition sharpness needs at least 2 time steps, got {a.size} in the window"
            )
        values.append(max(0.0, float(np.max(np.diff(a)))))
    if not values:
        raise ValueError("slots_or_norms has no episodes")
    return float(np.mean(values))


def cue_signal(
    states: ArrayLike,
    held: ArrayLike,
    displaced: ArrayLike,
) -> NDArray[np.float64]:
    """Backward-masking cue trace: cosine to the "cue held" minus the "cue displaced" state.

    .. math::

        s_t = \\cos(x_t, h) - \\cos(x_t, d), \\qquad \\cos(0, \\cdot) := 0,

    where :math:`x_t` is the flattened workspace state, ``h`` the reference state while the cue
    is held and ``d`` once it is displaced (paper sec 5.2 "Cue Signal Dynamics Under Backward
    Masking").

    Parameters
    ----------
    states : array-like of shape (T, F) or (T, K, D)
        Workspace states over time; (T, K, D) is flattened slot-major to F = K * D.
    held, displaced : array-like of shape (F,) or (K, D)
        References with the cue in the workspace and after displacement.

    Returns
    -------
    ndarray of shape (T,)
        In [-2, 2]; :math:`1 - \\cos(h, d)` at :math:`x = h`; 0 for all-zero states (bus-off).

    Raises
    ------
    ValueError
        If a reference is all zeros or the two references point the same way (the
        trace would be identically 0).

    Examples
    --------
    >>> cue_signal([[0, 0], [2, 0], [1, 1], [0, 3]], held=[1, 0], displaced=[0, 1])
    array([ 0.,  1.,  0., -1.])
    """
    x = as_float_array(states, "states", ndim=(2, 3))
    x = x.reshape(x.shape[0], -1)
    refs = []
    for name, ref in (("held", held), ("displaced", displaced)):
        r = as_float_array(ref, name, ndim=(1, 2)).ravel()
        if r.size != x.shape[1]:
            raise ValueError(f"{name} has {r.size} features, states have {x.shape[1]}")
        norm = float(np.linalg.norm(r))
        if norm == 0.0:
            raise ValueError(f"{name} reference is all zeros")
        refs.append(r / norm)
    if float(np.dot(refs[0], refs[1])) >= 1.0 - 1e-12:
        raise ValueError("held and displaced references point the same way")
    norms = np.linalg.norm(x, axis=1)
    safe = np.where(norms > 0.0, norms, 1.0)
    signal = (x @ refs[0] - x @ refs[1]) / safe
    return np.where(norms > 0.0, signal, 0.0)


def cue_retention(
    states: ArrayLike,
    counterfactual: ArrayLike,
    entry_step: int,
) -> NDArray[np.float64]:
    """How much of a cue's trace is still in the workspace, from a counterfactual run.

    The same episode is run twice, identical except for the cue's value. The difference of the
    two workspace trajectories is the cue's own contribution; projected onto that difference at
    the cue's entry,

    .. math::

        r_t = \\frac{\\langle \\Delta_t, \\Delta_{e} \\rangle}{\\lVert \\Delta_e \\rVert^2},
        \\qquad \\Delta_t = x_t - x'_t ,

    1 while the cue is held unchanged, 0 once overwritten, and 0 throughout when nothing was
    stored (bus-off: :math:`\\Delta_e = 0`). The backward-masking traces (paper sec 5.2, Fig. 2c).

    Parameters
    ----------
    states, counterfactual : array-like of shape (T, F) or (T, K, D)
        Workspace trajectories of the two runs (flattened slot-major).
    entry_step : int
        Step at which the cue was written.

    Returns
    -------
    ndarray of shape (T,)

    Examples
    --------
    The cue lives in slot 0 (first feature) until a mask overwrites it at step 2:

    >>> x = [[0, 0], [2, 1], [2, 1], [5, 1]]
    >>> x_alt = [[0, 0], [-1, 1], [-1, 1], [5, 1]]
    >>> cue_retention(x, x_alt, entry_step=1)
    array([0., 1., 1., 0.])
    """
    x = as_float_array(states, "states", ndim=(2, 3))
    y = as_float_array(counterfactual, "counterfactual", ndim=(2, 3))
    if x.shape != y.shape:
        raise ValueError(f"states {x.shape} and counterfactual {y.shape} differ in shape")
    if not 0 <= entry_step < x.shape[0]:
        raise ValueError(f"entry_step must be in 0..{x.shape[0] - 1}, got {entry_step}")
    delta = (x - y).reshape(x.shape[0], -1)
    entry = delta[entry_step]
    norm = float(entry @ entry)
    if norm == 0.0:
        return np.zeros(x.shape[0])
    return delta @ entry / norm
