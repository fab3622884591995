"""E4's pre-registered hypotheses H1-H6 (docs/protocol.md sec. 8.5) and R1-R4 of "E4 again" (sec.
8.8.5), tested as registered, and the confidence-spread rule beside every AUROC (sec. 8.8.4); the
answer's words are ``labcore/templates/e4.j2`` (protocol 8.8.6), which quotes beside a summary's
findings what the design fixes (:func:`answer_context`)."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as sps

from labcore.config import RISKY_WRONG_BET_PAYOFF, WageringConfig
from labcore.experiments.common import SeedResult
from labcore.experiments.e4 import AGAIN_SCHEDULE, FIRST_SCHEDULE
from labcore.stats import paired_summary, seed_summary, welch_summary
from labcore.training.wager_reward import CORRECT_BET_PAYOFF

OUTCOMES = ("supported", "not supported", "undefined", "not tested")
"""What a hypothesis test can conclude, in display order."""
Interval = tuple[float, float]


@dataclass(frozen=True)
class Condition:
    """One registered condition of a hypothesis, checked on a 95% interval."""

    what: str
    """The condition in words (shown beside its numbers)."""
    key: str
    """The per-seed key tested (a per-seed difference for a paired test)."""
    rule: str
    """The registered rule on the interval, in words."""
    test: str
    """What the interval must do: lie ``above`` or ``below`` ``bound``, or ``within`` +-bound."""
    bound: float
    versus: str | None = None
    """For two independent groups: the other group's key (Welch's interval of ``key - versus``)."""
    every_seed: float | None = None
    """Instead of an interval: every seed's value must equal this (a value the wiring fixes)."""
    arm: str = "reward_wager"
    """The arm whose presence in the result set this condition needs."""
    required: bool = True
    """False for arm (b), exploratory (protocol 8.5): its absence leaves the rest standing."""
    short: str = ""
    """The condition as a claim in a few words (the answer paragraph)."""
    paired: bool = False
    """With ``versus``: the t interval of the per-seed differences ``key - versus``."""
    majority: bool = False
    """``key`` is a per-seed flag (1 or 0): the condition holds when it is 1 on more than half of
    the seeds (the spread rule of an arm, protocol 8.8.4); no interval."""

    @property
    def arms(self) -> tuple[str, ...]:
        """The arms whose presence the condition needs: its own and that of ``versus``.

        >>> Condition("x", "e4.auroc.a.self_on", "", "above", 0, versus="e4.auroc.b.self_on",
        ...           arm="a").arms
        ('a', 'b')
        """
        return (self.arm,) if self.versus is None else (self.arm, self.versus.split(".")[2])

    def holds(self, ci: Interval) -> bool:
        """Whether the interval ``ci`` meets the condition's test.

        >>> c = Condition("x", "k", "", "within", 0.05)
        >>> c.holds((-0.01, 0.04)), c.holds((0.0, 0.06))
        (True, False)
        """
        if self.test == "above":
            return ci[0] > self.bound
        if self.test == "below":
            return ci[1] < self.bound
        return -self.bound <= ci[0] and ci[1] <= self.bound


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of protocol 8.5: its statement and its conditions."""

    id: str
    statement: str
    conditions: tuple[Condition, ...]
    primary: bool = False
    by_construction: str | None = None
    """Why the hypothesis is reported but not counted (H5), else None."""


SHARE_OF_SEEDS, EVERY_SEED = "share of seeds", "every seed"
T_INTERVAL, PAIRED_T = "t interval", "paired t interval"
WELCH_T = "Welch t interval (independent groups of seeds)"
HYPOTHESES: tuple[Hypothesis, ...] = tuple(
    Hypothesis(**{**h, "conditions": tuple(Condition(**c) for c in h["conditions"])})
    for h in json.loads(
        (Path(__file__).parents[1] / "e4_hypotheses.json").read_text(encoding="utf-8")
    )
)
"""Protocol 8.5 (H1-H6) and 8.8.5 (R1-R4, "E4 again"), as registered, from
``labcore/e4_hypotheses.json`` (arm (a) = ``reward_wager``, (b) = ``reward_all``, (c) =
``supervised``)."""


def per_seed(results: Sequence[SeedResult]) -> dict[str, dict[int, float]]:
    """Finite per-seed values by key, ``{key: {seed: value}}``."""
    out: dict[str, dict[int, float]] = {}
    for r in results:
        for key, value in r.values.items():
            if value is not None and math.isfinite(value):
                out.setdefault(key, {})[r.seed] = float(value)
    return out


def _interval(
    condition: Condition, values: Mapping[str, Mapping[int, float]]
) -> tuple[float, Interval, int, str]:
    """(estimate, interval, seeds, kind of interval) of one condition; nan where undefined."""
    a = np.asarray(list(values.get(condition.key, {}).values()), float)
    with warnings.catch_warnings():
        # an undefined interval is reported as such, not warned about
        warnings.simplefilter("ignore")
        if condition.majority:
            share = float((a == 1).mean()) if a.size else math.nan
            return share, (share, share), int(a.size), SHARE_OF_SEEDS
        if condition.paired and condition.versus is not None:
            d = paired_summary(values.get(condition.key, {}), values.get(condition.versus, {}))
            return d.mean, (d.low, d.high), d.n, PAIRED_T
        if condition.every_seed is not None:
            lo, hi = (float(a.min()), float(a.max())) if a.size else (math.nan, math.nan)
            return (float(a.mean()) if a.size else math.nan), (lo, hi), int(a.size), EVERY_SEED
        if condition.versus is None:
            t = seed_summary(a, "t")
            kind = PAIRED_T if "paired" in condition.what else T_INTERVAL
            return t.mean, (t.low, t.high), t.n, kind
        b = np.asarray(list(values.get(condition.versus, {}).values()), float)
        w = welch_summary(a, b)
        return w.mean, (w.low, w.high), int(min(a.size, b.size)), WELCH_T


def evaluate(results: Sequence[SeedResult]) -> list[dict[str, Any]]:
    """Test H1-H6 on the per-seed E4 values; one JSON-able entry per hypothesis.

    Parameters
    ----------
    results : sequence of SeedResult
        E4's per-seed results (:func:`labcore.experiments.e4.run_seed`).

    Returns
    -------
    list of dict
        ``id``, ``statement``, ``primary``, ``outcome`` (one of :data:`OUTCOMES`),
        ``by_construction`` (the reason, or None), ``conditions`` (each: ``what``, ``key``,
        ``versus``, ``rule``, ``estimate``, ``ci95``, ``interval``, ``n``, ``holds``: True,
        False, or None when undefined or not tested); their words are ``labcore/templates/e4.j2``'s
        (``hypothesis``).
    """
    values = per_seed(results)
    present = {key.split(".")[2] for key in values if key.startswith("e4.accuracy.")}
    out = []
    for h in HYPOTHESES:
        rows = []
        for c in h.conditions:
            row = {
                "what": c.what,
                "short": c.short or c.what,
                "key": c.key,
                "versus": c.versus,
                "rule": c.rule,
                "arm": c.arm,
                "arms": list(c.arms),
                "estimate": None,
                "ci95": None,
                "interval": None,
                "n": 0,
                "holds": None,
                "tested": all(arm in present for arm in c.arms),
            }
            if row["tested"]:
                estimate, ci, n, kind = _interval(c, values)
                defined = all(math.isfinite(x) for x in (estimate, *ci))
                if c.every_seed is not None:
                    defined = n > 0
                    holds = defined and all(
                        v == c.every_seed for v in values.get(c.key, {}).values()
                    )
                else:
                    holds = defined and c.holds(ci)
                row.update(
                    estimate=estimate if math.isfinite(estimate) else None,
                    ci95=list(ci) if defined else None,
                    interval=kind,
                    n=n,
                    holds=holds if defined else None,
                )
            rows.append(row)
        tested = [r for r in rows if r["tested"]]
        if not tested or any(
            c.required and not r["tested"] for c, r in zip(h.conditions, rows, strict=True)
        ):
            outcome = "not tested"
        elif any(r["holds"] is None for r in tested):
            outcome = "undefined"
        else:
            outcome = "supported" if all(r["holds"] for r in tested) else "not supported"
        out.append(
            {
                "id": h.id,
                "statement": h.statement,
                "primary": h.primary,
                "outcome": outcome,
                "by_construction": h.by_construction,
                "conditions": rows,
            }
        )
    return out


# --------------------------------------------------------------------------- the spread rule
# (8.8.4)
def spread_table(results: Sequence[SeedResult]) -> dict[str, dict[str, Any]]:
    """Every AUROC of the result set (``e4.auroc.<arm>.<condition>``) beside its confidence's
    spread."""
    values = per_seed(results)
    table: dict[str, dict[str, Any]] = {}
    for key in sorted(values):
        parts = key.split(".")
        if len(parts) != 4 or parts[1] != "auroc":
            continue
        _, _, arm, condition = parts
        seeds = values.get(f"e4.auroc_meaningful.{arm}.{condition}", {})
        flips = values.get(f"e4.bets_flipped.{arm}.{condition}", {})

        def spread(
            metric: str, *, arm: str = arm, condition: str = condition
        ) -> list[float] | None:
            x = list(values.get(f"e4.{metric}.{arm}.{condition}", {}).values())
            return [float(min(x)), float(max(x))] if x else None

        def mean(metric: str, *, arm: str = arm, condition: str = condition) -> float | None:
            x = list(values.get(f"e4.{metric}.{arm}.{condition}", {}).values())
            return float(np.mean(x)) if x else None

        good = int(sum(v == 1 and flips.get(seed, 1.0) >= 1 for seed, v in seeds.items()))
        table[key] = {
            "auroc": float(np.mean(list(values[key].values()))),
            "auroc_resolved": mean("auroc_resolved"),
            "confidence_sd": mean("confidence_sd"),
            "confidence_distinct": spread("confidence_distinct"),
            "spread_bets": spread("spread_bets"),
            "bets_flipped": spread("bets_flipped"),
            "seeds": len(seeds),
            "seeds_meaningful": good,
            "meaningful": (2 * good > len(seeds)) if seeds else None,
        }
    return table


# --------------------------------------------------------------------------- the ideal observer
# (8.2)
def ideal_observer(wrong_bet_payoff: float) -> dict[str, float]:
    """What the reward-optimal wager does for the task's ideal observer (protocol 8.2).

    Returns
    -------
    dict
        ``accuracy`` (the ideal observer's mean P(correct)), ``break_even`` (P(correct) at which a
        bet pays 0), ``opt_out`` (share of trials on which it opts out), ``salience`` (below which).

    Examples
    --------
    >>> {k: round(v, 3) for k, v in ideal_observer(-1.0).items()}
    {'accuracy': 0.859, 'break_even': 0.5, 'opt_out': 0.0, 'salience': 0.0}
    >>> round(ideal_observer(-3.0)["opt_out"], 3)
    0.238
    """
    cfg = WageringConfig()
    lo, hi = cfg.salience_range
    scale = cfg.cue_noise_sd * math.sqrt(2.0)
    grid = np.linspace(lo, hi, 100_001)
    accuracy = float(np.mean(sps.norm.cdf(grid / scale)))  # the uniform mean of Phi over the range
    break_even = -wrong_bet_payoff / (CORRECT_BET_PAYOFF - wrong_bet_payoff)
    salience = max(lo, scale * float(sps.norm.ppf(break_even)))
    opt_out = float(np.clip((salience - lo) / (hi - lo), 0.0, 1.0))
    return {
        "accuracy": accuracy,
        "break_even": break_even,
        "opt_out": opt_out,
        "salience": salience,
    }


def answer_context() -> dict[str, Any]:
    """What E4's words (``labcore/templates/e4.j2``) quote beside a summary's findings, fixed by the
    design rather than measured: the ideal observer under the standard payoff and under the risky
    one (``ideal.standard``, ``ideal.risky``: :func:`ideal_observer`), and the labels of the two
    schedules (``schedules.first``, ``schedules.again``: protocol 8.3 and 8.8.3).

    >>> round(answer_context()["ideal"]["risky"]["break_even"], 2)
    0.75
    """
    return {
        "ideal": {
            "standard": ideal_observer(-1.0),
            "risky": ideal_observer(RISKY_WRONG_BET_PAYOFF),
        },
        "schedules": {"first": FIRST_SCHEDULE, "again": AGAIN_SCHEDULE},
    }
