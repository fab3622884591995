"""Censored L75 values of ``seed_values.csv`` read and summarised over seeds."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from labcore.render import UNDEFINED, finite, fmt


def parse_l75(value: Any) -> tuple[float, str, float]:
    """One L75 value (number, ``"> 0.5"`` text, L75Result or dict) as ``(value, censored, bound)``.

    >>> parse_l75("> 0.5")
    (nan, 'right', 0.5)
    >>> parse_l75("<= 0")
    (nan, 'left', 0.0)
    >>> parse_l75(0.04)
    (0.04, 'none', 0.04)
    >>> parse_l75(None)
    (nan, 'missing', nan)
    """
    nan = math.nan
    if value is None:
        return nan, "missing", nan
    if hasattr(value, "censored") and hasattr(value, "bound"):
        value = {"value": value.value, "censored": value.censored, "bound": value.bound}
    if isinstance(value, Mapping):
        censored = value.get("censored") or "none"
        if censored in ("right", "left"):
            return nan, censored, float(value.get("bound"))
        return parse_l75(value.get("value"))
    if isinstance(value, str):
        text = value.strip()
        m = re.fullmatch(r"(>=|>|<=|<)\s*([-+0-9.eE]+)", text)
        if m:
            bound = float(m.group(2))
            return nan, "right" if m.group(1).startswith(">") else "left", bound
        try:
            value = float(text)
        except ValueError:
            return nan, "missing", nan
    try:
        x = float(value)
    except (TypeError, ValueError):
        return nan, "missing", nan
    return (x, "none", x) if math.isfinite(x) else (nan, "missing", nan)


def format_l75(parsed: Sequence[tuple[float, str, float]]) -> tuple[str, float, float]:
    """Text, mean and SD of parsed L75 values, censored by :func:`labcore.stats.summarize_l75`.

    >>> format_l75([parse_l75(x) for x in ("> 0.5", "> 0.5", 0.2)])[0]
    '> 0.5 (2/3 seeds censored)'
    >>> format_l75([parse_l75(x) for x in (0.2, 0.3)])[0]
    '0.25 ± 0.071 (n = 2)'
    """
    present = [p for p in parsed if p[1] != "missing"]
    n = len(present)
    if n == 0:
        return UNDEFINED, math.nan, math.nan
    # scipy is imported here: a page's first view needs none of it
    from labcore.stats import summarize_l75

    summary = summarize_l75([{"value": v, "censored": c, "bound": b} for v, c, b in present])
    if summary["censored"] in ("right", "left"):
        n_cens = summary[f"n_{summary['censored']}_censored"]
        sign = ">" if summary["censored"] == "right" else "<="
        return f"{sign} {fmt(summary['bound'])} ({n_cens}/{n} seeds censored)", math.nan, math.nan
    mean = math.nan if summary["mean"] is None else summary["mean"]
    sd = math.nan if summary["sd"] is None else summary["sd"]
    censored = summary["n_right_censored"] + summary["n_left_censored"]
    extra = f"; {censored} censored" if censored else ""
    return f"{fmt(mean)} ± {fmt(sd, digits=2)} (n = {summary['n']}{extra})", mean, sd


def seed_raw(seed_values: pd.DataFrame | None, key: str) -> list[tuple[Any, Any]]:
    """(seed, raw value) pairs of one key of ``seed_values.csv`` (strings kept: censored L75)."""
    if (
        not isinstance(seed_values, pd.DataFrame)
        or seed_values.empty
        or not {"seed", "key", "value"} <= set(seed_values.columns)
    ):
        return []
    rows = seed_values[seed_values["key"] == key].sort_values("seed", kind="stable")
    return list(zip(rows["seed"].tolist(), rows["value"].tolist(), strict=True))


def l75_point(seed_values: pd.DataFrame | None, key: str) -> float | str | None:
    """One L75 key as a titration figure's point: the mean, the censored bound's text, or None."""
    raw = seed_raw(seed_values, key)
    if not raw:
        return None
    text, mean, _ = format_l75([parse_l75(v) for _, v in raw])
    return mean if finite(mean) else text.split(" (")[0]


def l75_summary(seed_values: pd.DataFrame | None, key: str) -> str:
    """Seed summary text of one L75 key of ``seed_values.csv``."""
    raw = seed_raw(seed_values, key)
    return format_l75([parse_l75(v) for _, v in raw])[0] if raw else UNDEFINED
