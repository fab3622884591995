"""Helpers shared by the marker modules and ``labcore.stats``: input validation (``ValueError``,
never bare ``assert``), the undefined-value warning and the exact AUROC core."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore import UndefinedMetricWarning


def warn_undefined(message: str, *, reason: str | None = None, stacklevel: int = 3) -> None:
    """Emit an :class:`~labcore.UndefinedMetricWarning` (its case named by ``reason``) pointing
    at the public caller."""
    warnings.warn(UndefinedMetricWarning(message, reason), stacklevel=stacklevel)


@contextlib.contextmanager
def ignore_undefined() -> Iterator[None]:
    """Silence :class:`~labcore.UndefinedMetricWarning` (and nothing else) inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        yield


def undefined_as_nan(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    """``float(fn(*args, **kwargs))`` with the undefined-marker warning silenced.

    >>> from labcore.markers import type2_auroc
    >>> undefined_as_nan(type2_auroc, [True, True], [0.2, 0.9])
    nan
    """
    with ignore_undefined():
        return float(fn(*args, **kwargs))


def as_float_array(
    x: ArrayLike,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    allow_empty: bool = False,
) -> NDArray[np.float64]:
    """Convert to a finite float64 array, checking the number of dimensions."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {type(x).__name__}: {exc}") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if arr.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimension(s), "
                f"got shape {arr.shape}"
            )
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def as_float_1d(x: ArrayLike, name: str, *, allow_empty: bool = False) -> NDArray[np.float64]:
    """A finite 1-D float64 array."""
    return as_float_array(x, name, ndim=1, allow_empty=allow_empty)


def as_binary_1d(x: ArrayLike, name: str) -> NDArray[np.bool_]:
    """A non-empty 1-D boolean array from bools or numbers that are exactly 0 or 1."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == np.bool_:
        return arr
    if not (np.issubdtype(arr.dtype, np.number)):
        raise ValueError(f"{name} must hold binary labels 0/1 (or bool), got dtype {arr.dtype}")
    values = np.unique(arr)
    if not np.all(np.isin(values, (0, 1))):
        shown = values[~np.isin(values, (0, 1))][:5]
        raise ValueError(f"{name} must hold binary labels 0/1 (or bool); found {shown.tolist()}")
    return arr == 1


def check_same_length(**arrays: np.ndarray) -> None:
    """Raise ``ValueError`` unless all arrays have the same first dimension."""
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(f"inconsistent numbers of samples: {desc}")


def check_unit_interval(x: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` unless every value lies in [0, 1]."""
    if np.any((x < 0.0) | (x > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1]; found min={x.min():g}, max={x.max():g}")


def auroc_pair_counts(
    positive: NDArray[np.bool_], scores: NDArray[np.float64]
) -> tuple[int, int, int]:
    """``(wins, ties, pairs)`` over every (positive, negative) pair, in exact integers (0 pairs
    when a class is missing)."""
    n_pos = int(np.count_nonzero(positive))
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0, 0, 0
    values, inverse = np.unique(scores, return_inverse=True)
    pos_at = np.bincount(inverse[positive], minlength=values.size).astype(np.int64)
    neg_at = np.bincount(inverse[~positive], minlength=values.size).astype(np.int64)
    neg_below = np.concatenate(([0], np.cumsum(neg_at)[:-1]))
    return int(np.dot(pos_at, neg_below)), int(np.dot(pos_at, neg_at)), n_pos * n_neg


def auroc_core(positive: NDArray[np.bool_], scores: NDArray[np.float64]) -> float:
    """Exact AUROC = P(s+ > s-) + 0.5 P(s+ = s-), rounded once; nan when a class is missing."""
    wins, ties, pairs = auroc_pair_counts(positive, scores)
    if pairs == 0:
        return float("nan")
    return (2 * wins + ties) / (2 * pairs)


def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation, nan if either input has zero variance."""
    xc = x - x.mean()
    yc = y - y.mean()
    sx = float(np.sqrt(np.dot(xc, xc)))
    sy = float(np.sqrt(np.dot(yc, yc)))
    scale = max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0), 1.0)
    if sx <= 1e-12 * scale * np.sqrt(x.size) or sy <= 1e-12 * scale * np.sqrt(y.size):
        return float("nan")
    return float(np.clip(np.dot(xc, yc) / (sx * sy), -1.0, 1.0))
