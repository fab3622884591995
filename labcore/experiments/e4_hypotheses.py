"""E4's pre-registered hypotheses H1-H6 (docs/protocol.md sec. 8.5) and R1-R4 of "E4 again" (sec.
8.8.5), tested as registered, the confidence-spread rule beside every AUROC (sec. 8.8.4), and the
plain-language answer a result set gives.

Every test is on seed means with a 95% t interval (:func:`labcore.stats.t_interval`): "paired by
seed" where the protocol says so (the interval of the per-seed differences, computed per seed
by :mod:`labcore.experiments.e4`), otherwise two independent groups of seeds (Welch's interval
of the difference, :func:`labcore.stats.welch_interval`). A hypothesis is *supported* when each
of its registered conditions holds on its interval, *not supported* when one does not,
*undefined* when an interval cannot be computed (fewer than two seeds, or a value undefined on
the data), and *not tested* when an arm it needs is not in the result set (arm (b), exploratory,
is tested where present and otherwise left out of H5).
H5 is reported but not counted: both its parts are fixed by the wiring (protocol 8.5).
R1 also needs its AUROC to be meaningful (the spread rule on more than half of the seeds); every
AUROC of a result set gets its spread (:func:`spread_table`), and a claim on an AUROC that is not
meaningful says so in its reason (:func:`apply`).

The E4 claims (``e4.*`` in :data:`labcore.paper.CLAIMS`) carry the verdict "new (no paper
number)"; :func:`apply` adds their hypothesis, its outcome and their t interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

from labcore.config import RISKY_WRONG_BET_PAYOFF, WageringConfig
from labcore.experiments.common import SeedResult
from labcore.experiments.e4 import AGAIN_SCHEDULE, FIRST_SCHEDULE
from labcore.stats import t_interval, welch_interval
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
    holds: Callable[[Interval], bool]
    versus: str | None = None
    """For two independent groups: the other group's key (Welch's interval of ``key - versus``)."""
    every_seed: float | None = None
    """Instead of an interval: every seed's value must equal this (a value the wiring fixes)."""
    arm: str = "reward_wager"
    """The arm whose presence in the result set this condition needs."""
    required: bool = True
    """False for arm (b), exploratory (protocol 8.5): its absence leaves the rest of the test standing."""
    short: str = ""
    """The condition as a claim in a few words (the answer paragraph), e.g. "a higher ECE than (c)"."""
    paired: bool = False
    """With ``versus``: the t interval of the per-seed differences ``key - versus`` (paired by seed)
    instead of Welch's interval of two independent groups."""
    majority: bool = False
    """``key`` is a per-seed flag (1 or 0): the condition holds when it is 1 on more than half of
    the seeds (the spread rule of an arm, protocol 8.8.4); no interval."""

    @property
    def arms(self) -> tuple[str, ...]:
        """The arms whose presence the condition needs: its own and that of ``versus``.

        >>> Condition("x", "e4.auroc.a.self_on", "", _above(0), versus="e4.auroc.b.self_on", arm="a").arms
        ('a', 'b')
        """
        return (self.arm,) if self.versus is None else (self.arm, self.versus.split(".")[2])


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of protocol 8.5: its statement and its conditions."""

    id: str
    statement: str
    conditions: tuple[Condition, ...]
    primary: bool = False
    by_construction: str | None = None
    """Why the hypothesis is reported but not counted (H5), else None."""


def _above(x: float) -> Callable[[Interval], bool]:
    return lambda ci: ci[0] > x


def _below(x: float) -> Callable[[Interval], bool]:
    return lambda ci: ci[1] < x


def _within(margin: float) -> Callable[[Interval], bool]:
    return lambda ci: -margin <= ci[0] and ci[1] <= margin


A, C = "reward_wager", "supervised"
HYPOTHESES: tuple[Hypothesis, ...] = (
    Hypothesis("H1", "Arm (a)'s Type-2 AUROC is above chance (0.5): confidence learned from reward alone tells "
               "right from wrong.", (
                   Condition("arm (a) AUROC", f"e4.auroc.{A}.self_on", "interval's lower bound above 0.5",
                             _above(0.5)),), primary=True),
    Hypothesis("H2", "Arm (a)'s AUROC is below the supervised arm's (c).", (
        Condition("AUROC (a) minus (c), paired by seed", f"e4.auroc_gap.{A}", "interval below 0", _below(0.0)),)),
    Hypothesis("H3", "Under the standard payoff arm (a) opts out on fewer wager trials than (c) and is less "
               "calibrated (higher ECE): its confidence is pushed toward 'always bet'.", (
                   Condition("opt-outs (a) minus (c)", f"e4.skip.{A}.self_on", "interval below 0", _below(0.0),
                             versus=f"e4.skip.{C}.self_on", short="fewer opt-outs than (c)"),
                   Condition("ECE (a) minus (c)", f"e4.ece.{A}.self_on", "interval above 0", _above(0.0),
                             versus=f"e4.ece.{C}.self_on", short="a higher ECE than (c)"))),
    Hypothesis("H4", "Under the risky payoff (a wrong bet costs 3) the opt-out rate rises as the flash gets "
               "fainter: more opt-outs on the faintest third than on the brightest.", (
                   Condition("opt-outs faintest minus brightest third, paired by seed",
                             "e4.skip_salience.reward_wager_risky", "interval above 0", _above(0.0),
                             arm="reward_wager_risky"),)),
    Hypothesis("H5", "Zeroing z_self leaves accuracy unchanged and sets AUROC to 0.5 in arms (a) and (b).", (
        Condition("arm (a): accuracy change when z_self is zeroed", f"e4.accuracy_change.{A}", "0 on every seed",
                  _within(0.0), every_seed=0.0),
        Condition("arm (a): AUROC with z_self zeroed", f"e4.auroc.{A}.self_off", "0.5 on every seed", _within(0.0),
                  every_seed=0.5),
        Condition("arm (b): accuracy change when z_self is zeroed", "e4.accuracy_change.reward_all",
                  "0 on every seed", _within(0.0), every_seed=0.0, arm="reward_all", required=False),
        Condition("arm (b): AUROC with z_self zeroed", "e4.auroc.reward_all.self_off", "0.5 on every seed",
                  _within(0.0), every_seed=0.5, arm="reward_all", required=False)),
               by_construction="the policy reads the workspace, never z_self, so zeroing it cannot change a "
                               "choice; and a zeroed z_self feeds the confidence head a constant, whose AUROC is "
                               "0.5 exactly (protocol 8.5: reported, not counted)"),
    Hypothesis("H6", "Controls: a confidence reading only the policy's logits reaches an AUROC within 0.05 of "
               "arm (a); one reading only the workspace reaches a lower one.", (
                   Condition("AUROC logits-only minus (a)", "e4.auroc.reward_logits.self_on",
                             "interval within -0.05..0.05", _within(0.05), versus=f"e4.auroc.{A}.self_on",
                             arm="reward_logits", short="logits-only within 0.05 of (a)"),
                   Condition("AUROC workspace-only minus (a)", "e4.auroc.reward_workspace.self_on", "interval below 0",
                             _below(0.0), versus=f"e4.auroc.{A}.self_on", arm="reward_workspace",
                             short="workspace-only lower than (a)"))),
)
"""Protocol 8.5, as registered (arm (a) = ``reward_wager``, (b) = ``reward_all``, (c) = ``supervised``)."""
A2, RISKY2, RAW, SGD = "reward_late", "reward_late_risky", "reward_late_uncentred", "reward_late_uncentred_sgd"
HYPOTHESES_AGAIN: tuple[Hypothesis, ...] = (
    Hypothesis("R1", "Cell (a'), the wager learned from reward once the policy had converged, with a centred head: "
               "its Type-2 AUROC is above chance and meaningful (its confidence's spread changes bets).", (
                   Condition("cell (a') AUROC", f"e4.auroc.{A2}.self_on", "interval's lower bound above 0.5",
                             _above(0.5), arm=A2, short="an AUROC above 0.5"),
                   Condition("cell (a'): seeds whose AUROC is meaningful", f"e4.auroc_meaningful.{A2}.self_on",
                             "the spread rule holds on more than half of the seeds", _above(0.5), arm=A2,
                             majority=True, short="a meaningful spread")), primary=True),
    Hypothesis("R2", "Under the risky payoff (a wrong bet costs 3) cell (a') opts out more on the faintest third of "
               "flashes than on the brightest.", (
                   Condition("opt-outs faintest minus brightest third, paired by seed", f"e4.skip_salience.{RISKY2}",
                             "interval above 0", _above(0.0), arm=RISKY2),)),
    Hypothesis("R3", "Centring: cell (a')'s AUROC is above that of the same cell with raw self-model features.", (
        Condition("AUROC centred minus raw features, paired by seed", f"e4.auroc.{A2}.self_on", "interval above 0",
                  _above(0.0), versus=f"e4.auroc.{RAW}.self_on", paired=True, arm=A2),)),
    Hypothesis("R4", "Optimiser: with plain SGD instead of Adam on the wager head (raw features) the head's weight "
               "points less along the mean z_self and the AUROC is higher.", (
                   Condition("head-weight cosine with the mean z_self, SGD minus Adam, paired by seed",
                             f"e4.head_mean_cosine.{SGD}", "interval below 0", _below(0.0),
                             versus=f"e4.head_mean_cosine.{RAW}", paired=True, arm=SGD,
                             short="a head less aligned with the mean z_self"),
                   Condition("AUROC SGD minus Adam, paired by seed", f"e4.auroc.{SGD}.self_on", "interval above 0",
                             _above(0.0), versus=f"e4.auroc.{RAW}.self_on", paired=True, arm=SGD,
                             short="a higher AUROC"))),
)
"""Protocol 8.8.5, as registered: the cells of "E4 again" (8.8.3); R1 is primary."""
HYPOTHESES = HYPOTHESES + HYPOTHESES_AGAIN
HYPOTHESES_BY_ID = {h.id: h for h in HYPOTHESES}


def per_seed(results: Sequence[SeedResult]) -> dict[str, dict[int, float]]:
    """Finite per-seed values by key, ``{key: {seed: value}}``."""
    out: dict[str, dict[int, float]] = {}
    for r in results:
        for key, value in r.values.items():
            if value is not None and math.isfinite(value):
                out.setdefault(key, {})[r.seed] = float(value)
    return out


def _interval(condition: Condition, values: Mapping[str, Mapping[int, float]]) -> tuple[float, Interval, int, str]:
    """(estimate, interval, seeds, kind of interval) of one condition; nan where undefined."""
    a = np.asarray(list(values.get(condition.key, {}).values()), float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an undefined interval is reported as such, not warned about
        if condition.majority:
            share = float((a == 1).mean()) if a.size else math.nan
            return share, (share, share), int(a.size), "share of seeds"
        if condition.paired and condition.versus is not None:
            mine, other = values.get(condition.key, {}), values.get(condition.versus, {})
            d = np.asarray([mine[s] - other[s] for s in sorted(set(mine) & set(other))], float)
            return (float(d.mean()) if d.size else math.nan), (t_interval(d) if d.size else (math.nan, math.nan)), \
                int(d.size), "paired t interval"
        if condition.every_seed is not None:
            lo, hi = (float(a.min()), float(a.max())) if a.size else (math.nan, math.nan)
            return (float(a.mean()) if a.size else math.nan), (lo, hi), int(a.size), "every seed"
        if condition.versus is None:
            estimate = float(a.mean()) if a.size else math.nan
            kind = "paired t interval" if "paired" in condition.what else "t interval"
            return estimate, t_interval(a) if a.size else (math.nan, math.nan), int(a.size), kind
        b = np.asarray(list(values.get(condition.versus, {}).values()), float)
        estimate = float(a.mean() - b.mean()) if a.size and b.size else math.nan
        ci = welch_interval(a, b) if a.size and b.size else (math.nan, math.nan)
        return estimate, ci, int(min(a.size, b.size)), "Welch t interval (independent groups of seeds)"


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
        False, or None when undefined or not tested) and ``reason`` (one sentence).
    """
    values = per_seed(results)
    present = {key.split(".")[2] for key in values if key.startswith("e4.accuracy.")}
    out = []
    for h in HYPOTHESES:
        rows = []
        for c in h.conditions:
            row = {"what": c.what, "short": c.short or c.what, "key": c.key, "versus": c.versus, "rule": c.rule,
                   "arm": c.arm, "arms": list(c.arms),
                   "estimate": None, "ci95": None, "interval": None, "n": 0, "holds": None,
                   "tested": all(arm in present for arm in c.arms)}
            if row["tested"]:
                estimate, ci, n, kind = _interval(c, values)
                defined = all(math.isfinite(x) for x in (estimate, *ci))
                if c.every_seed is not None:
                    defined = n > 0
                    holds = defined and all(v == c.every_seed for v in values.get(c.key, {}).values())
                else:
                    holds = defined and c.holds(ci)
                row.update(estimate=estimate if math.isfinite(estimate) else None,
                           ci95=list(ci) if defined else None, interval=kind, n=n, holds=holds if defined else None)
            rows.append(row)
        tested = [r for r in rows if r["tested"]]
        if not tested or any(c.required and not r["tested"] for c, r in zip(h.conditions, rows, strict=True)):
            outcome = "not tested"
        elif any(r["holds"] is None for r in tested):
            outcome = "undefined"
        else:
            outcome = "supported" if all(r["holds"] for r in tested) else "not supported"
        entry = {"id": h.id, "statement": h.statement, "primary": h.primary, "outcome": outcome,
                 "by_construction": h.by_construction, "conditions": rows}
        entry["reason"] = reason(entry)
        out.append(entry)
    return out


def _number(x: Any) -> str:
    return "undefined" if x is None or not math.isfinite(float(x)) else f"{float(x):.3g}"


def condition_text(row: Mapping[str, Any]) -> str:
    """One tested condition in words: estimate, interval and whether the registered rule holds.

    >>> condition_text({"what": "arm (a) AUROC", "estimate": 0.25, "ci95": [0.2, 0.3], "interval": "t interval", "n": 5,
    ...                 "rule": "lower bound above 0.5", "holds": False, "tested": True})
    'arm (a) AUROC 0.25 (95% t interval 0.2 to 0.3, n = 5 seeds): lower bound above 0.5 does not hold'
    """
    if not row.get("tested"):
        arms = " and ".join(row.get("arms") or [str(row.get("arm"))])
        return f"{row['what']}: not tested (arm {arms} is not in this result set)"
    ci, kind = row.get("ci95"), str(row.get("interval") or "")
    if kind.startswith("every"):
        where = f"seeds range {_number(ci[0])} to {_number(ci[1])}" if ci else "no seed defined"
    elif kind.startswith("share"):
        where = "share of seeds" if ci else "no seed defined"
    else:
        where = f"95% {kind} {_number(ci[0])} to {_number(ci[1])}" if ci else "interval undefined"
    verdict = {True: "holds", False: "does not hold", None: "cannot be checked"}[row.get("holds")]
    return f"{row['what']} {_number(row.get('estimate'))} ({where}, n = {row.get('n', 0)} seeds): {row['rule']} {verdict}"


def reason(entry: Mapping[str, Any]) -> str:
    """The sentence a hypothesis's outcome gets (its conditions in words)."""
    parts = "; ".join(condition_text(r) for r in entry["conditions"])
    built = f" Reported, not counted: {entry['by_construction']}." if entry.get("by_construction") else ""
    return f"{entry['id']} {entry['outcome']}: {parts}.{built}"


# --------------------------------------------------------------------------- the spread rule (8.8.4)
def spread_table(results: Sequence[SeedResult]) -> dict[str, dict[str, Any]]:
    """Every AUROC of the result set (``e4.auroc.<arm>.<condition>``) beside its confidence's spread.

    Per key: ``auroc`` (seed mean), ``confidence_sd`` (seed mean), ``confidence_distinct`` and
    ``spread_bets`` (``[min, max]`` over seeds), ``seeds`` (with a spread), ``seeds_meaningful``
    (where the rule of protocol 8.8.4 holds: a spread of at least one bet) and ``meaningful``:
    True when that is more than half of the seeds, False otherwise, None without a spread (a set
    made before the rule). JSON-clean.
    """
    values = per_seed(results)
    table: dict[str, dict[str, Any]] = {}
    for key in sorted(values):
        parts = key.split(".")
        if len(parts) != 4 or parts[1] != "auroc":
            continue
        _, _, arm, condition = parts
        seeds = values.get(f"e4.auroc_meaningful.{arm}.{condition}", {})

        def spread(metric: str, *, arm: str = arm, condition: str = condition) -> list[float] | None:
            x = list(values.get(f"e4.{metric}.{arm}.{condition}", {}).values())
            return [float(min(x)), float(max(x))] if x else None

        sd = list(values.get(f"e4.confidence_sd.{arm}.{condition}", {}).values())
        good = int(sum(v == 1 for v in seeds.values()))
        table[key] = {"auroc": float(np.mean(list(values[key].values()))),
                      "confidence_sd": float(np.mean(sd)) if sd else None,
                      "confidence_distinct": spread("confidence_distinct"), "spread_bets": spread("spread_bets"),
                      "seeds": len(seeds), "seeds_meaningful": good,
                      "meaningful": (2 * good > len(seeds)) if seeds else None}
    return table


def spread_text(entry: Mapping[str, Any] | None, trials: int | None = None) -> str:
    """The spread beside an AUROC in words, "" for a set without it (protocol 8.8.4).

    >>> spread_text({"meaningful": False, "seeds": 5, "seeds_meaningful": 0, "spread_bets": [0.0076, 0.013],
    ...              "confidence_sd": 2.07e-05, "confidence_distinct": [285, 373]}, 600)
    'not meaningful: a spread of 0.0076-0.013 bets in 600 trials, below 1 on 5 of 5 seeds; confidence SD 2.1e-05, 285-373 distinct values'
    >>> spread_text({"meaningful": True, "seeds": 5, "seeds_meaningful": 5, "spread_bets": [65, 83],
    ...              "confidence_sd": 0.146, "confidence_distinct": [600, 600]})
    'confidence SD 0.15, 600 distinct values, a spread of 65-83 bets'
    """
    if not entry or entry.get("meaningful") is None:
        return ""

    def span(x: Any) -> str:
        lo, hi = (f"{v:.0f}" if abs(v) >= 10 else f"{v:.2g}" for v in map(float, x))
        return lo if lo == hi else f"{lo}-{hi}"

    sd = entry.get("confidence_sd")
    distinct = entry.get("confidence_distinct")
    described = (f"confidence SD {sd:.2g}" if _finite(sd) else "") + (
        f", {span(distinct)} distinct values" if distinct else "")
    bets = span(entry["spread_bets"]) if entry.get("spread_bets") else "?"
    if entry["meaningful"]:
        return f"{described}, a spread of {bets} bets"
    where = f" in {trials} trials" if trials else ""
    failing = int(entry["seeds"]) - int(entry["seeds_meaningful"])
    return (f"not meaningful: a spread of {bets} bets{where}, below 1 on {failing} of {entry['seeds']} seeds; "
            f"{described}")


def apply(claims: list[dict], results: Sequence[SeedResult], hypotheses: Sequence[Mapping[str, Any]]) -> None:
    """Give every E4 claim its hypothesis's outcome and its 95% t interval (in place).

    ``ours["ci95"]`` becomes the t interval of the seed mean (``ours["interval"] = "t"``; the
    bootstrap interval of the paper comparisons does not apply to claims without a paper number),
    and the reason ends with the hypothesis's outcome. A claim on an AUROC gets its ``spread``
    (:func:`spread_table`); when that is not meaningful, the reason says so (protocol 8.8.4).
    """
    values = per_seed(results)
    outcome = {h["id"]: h["outcome"] for h in hypotheses}
    spreads = spread_table(results)
    for claim in claims:
        if not claim["id"].startswith("e4."):
            continue
        seeds = np.asarray(list(values.get(claim["id"], {}).values()), float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ci = t_interval(seeds) if seeds.size else (math.nan, math.nan)
        claim["ours"]["ci95"] = list(ci) if all(math.isfinite(x) for x in ci) else None
        claim["ours"]["interval"] = "t"
        h = claim.get("hypothesis")
        if h in outcome:
            claim["hypothesis_outcome"] = outcome[h]
            claim["reason"] = f"{claim['reason']} {h}: {outcome[h]}."
        if claim["id"] in spreads:
            claim["spread"] = spreads[claim["id"]]
            if claim["spread"]["meaningful"] is False:
                claim["reason"] = (f"{claim['reason']} This AUROC is {spread_text(claim['spread'])} (protocol "
                                   "8.8.4: no bet depends on its ranking).")


# --------------------------------------------------------------------------- the ideal observer (8.2)
def ideal_observer(wrong_bet_payoff: float, config: WageringConfig | None = None) -> dict[str, float]:
    """What the reward-optimal wager does for the task's ideal observer (protocol 8.2).

    Betting pays ``P(correct) * 1 + (1 - P(correct)) * wrong_bet_payoff``, opting out 0, so the
    ideal observer bets when ``P(correct | lambda) = Phi(lambda / (sd sqrt 2))`` exceeds the
    break-even ``-w / (1 - w)``; with ``lambda`` uniform it opts out on the trials below that
    salience.

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
    cfg = config or WageringConfig()
    lo, hi = cfg.salience_range
    scale = cfg.cue_noise_sd * math.sqrt(2.0)
    grid = np.linspace(lo, hi, 100_001)
    accuracy = float(np.mean(sps.norm.cdf(grid / scale)))  # the uniform mean of Phi over the range
    break_even = -wrong_bet_payoff / (CORRECT_BET_PAYOFF - wrong_bet_payoff)
    salience = max(lo, scale * float(sps.norm.ppf(break_even)))
    opt_out = float(np.clip((salience - lo) / (hi - lo), 0.0, 1.0)) if hi > lo else 0.0
    return {"accuracy": accuracy, "break_even": break_even, "opt_out": opt_out, "salience": salience}



# --------------------------------------------------------------------------- the answer in words
def reproduce_command(seeds: int = 5) -> str:
    """The command that writes an E4 result set of ``seeds`` seeds (5: the bundled one)."""
    return f"python -m labcore reproduce --experiment e4 --seeds {seeds} --out results/e4"


REPRODUCE = reproduce_command()
"""The command that writes the bundled E4 result set."""


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def outcome_text(hypothesis: Mapping[str, Any] | None) -> str:
    """A hypothesis's outcome, with which of its conditions hold when some do and some do not.

    >>> outcome_text({"id": "H3", "outcome": "not supported", "conditions": [
    ...     {"short": "fewer opt-outs than (c)", "holds": False}, {"short": "a higher ECE than (c)", "holds": True}]})
    'H3 not supported: a higher ECE than (c) holds, fewer opt-outs than (c) does not'
    """
    if not hypothesis:
        return "not in this result set"
    head = f"{hypothesis.get('id', '?')} {hypothesis.get('outcome', 'undefined')}"
    rows = [r for r in hypothesis.get("conditions") or [] if isinstance(r, Mapping)]
    held = [str(r.get("short") or r.get("what")) for r in rows if r.get("holds") is True]
    failed = [str(r.get("short") or r.get("what")) for r in rows if r.get("holds") is False]
    if held and failed:
        return f"{head}: {', '.join(held)} holds, {', '.join(failed)} does not"
    return head


def all_or_nothing(values: Mapping[str, Any], arm: str) -> str:
    """A sentence when an arm's opt-outs split over seeds into all or nothing, else "".

    Reads the counts of :func:`labcore.experiments.e4.cross_seed` from ``values``: said only
    when every measured seed opts out on (almost) every wager trial or on (almost) none and at
    least one does the former, because the mean opt-out rate then describes no agent.

    >>> all_or_nothing({"e4.seeds_opting_out_always.x": 2, "e4.seeds_opting_out_never.x": 18,
    ...                 "e4.seeds_opting_out_measured.x": 20}, "x")[:56]
    ' Per seed it is all or nothing: 2 of 20 agents opted out'
    >>> all_or_nothing({"e4.seeds_opting_out_always.x": 0, "e4.seeds_opting_out_never.x": 5,
    ...                 "e4.seeds_opting_out_measured.x": 5}, "x")
    ''
    """
    always, never, measured = (values.get(f"e4.seeds_opting_out_{k}.{arm}") for k in ("always", "never", "measured"))
    if not all(_finite(x) for x in (always, never, measured)):
        return ""
    always, never, measured = int(always), int(never), int(measured)
    if always < 1 or always + never != measured:
        return ""
    rest = f", the other {never} on (almost) none" if never else ""
    return (f" Per seed it is all or nothing: {always} of {measured} agents opted out on (almost) every wager "
            f"trial whatever the flash{rest}, so the mean opt-out rate describes no agent.")


def answer(summary: Mapping[str, Any]) -> str:
    """The answer of an E4 result set in plain language, every number read from ``summary``.

    With the cells of "E4 again" (protocol 8.8.3) it leads with them, as protocol 8.8.6 registers:
    R1 and R2 decide the verdict ("Yes, once the training artefacts are removed" / "Partly" /
    "Not from reward alone, even without the training artefacts"), then cell (a')'s confidence,
    the risky payoff (R2), centring (R3) and the optimiser (R4); the first cells follow under their
    label (:data:`~labcore.experiments.e4.FIRST_SCHEDULE`). Without them it is the first answer:
    H1 (primary) says whether confidence is above chance, uninformative or inverted; then betting
    and calibration against the supervised arm, the ideal-observer argument of protocol 8.2 (why
    this payoff gives almost no reason to discriminate), the risky payoff (H4), the controls (H6),
    the lesion (H5, by construction). Every AUROC whose spread fails the rule of protocol 8.8.4 says
    "not meaningful" with its spread (sets made before the rule have no spread and say nothing of
    it), and "inverted" is said only of a meaningful AUROC. It ends with the command that
    reproduces the set. A set without E4's values says so.

    Parameters
    ----------
    summary : mapping
        ``summary.json`` of a result set with E4 (``values``, ``claims``, ``hypotheses``, ``seeds``,
        ``auroc_spread`` when written by a pipeline with the spread rule).

    Returns
    -------
    str
        One Markdown paragraph.
    """
    values = summary.get("values") or {}
    if not all(_finite(values.get(f"e4.{m}.{arm}.self_on")) for m in ("accuracy", "auroc") for arm in (A, C)):
        return ("This result set holds no E4 answer yet (the reward-trained and supervised arms' accuracy and Type-2 "
                f"AUROC are missing or undefined). Write it with `{REPRODUCE}`.")
    n = len(summary.get("seeds") or [])
    again = _again_text(summary)
    first = _first_text(summary, labelled=bool(again))
    return " ".join([*([again] if again else []), first, f"Reproduce: `{reproduce_command(n or 5)}`."])


def _spread_note(summary: Mapping[str, Any], key: str) -> str:
    """The spread of the AUROC ``key`` in words when it fails the rule (protocol 8.8.4), else ""."""
    entry = (summary.get("auroc_spread") or {}).get(key)
    if not entry or entry.get("meaningful") is not False:
        return ""
    return spread_text(entry, (summary.get("config") or {}).get("e1_trials"))


def _meaningful(summary: Mapping[str, Any], key: str) -> bool | None:
    """Whether the AUROC ``key`` is meaningful (protocol 8.8.4); None for a set without the rule."""
    entry = (summary.get("auroc_spread") or {}).get(key)
    return None if not entry else entry.get("meaningful")


def _interval_text(summary: Mapping[str, Any], key: str, note: str = "") -> str:
    """" (95% t interval lo to hi, n = k seeds[; note])" of a claim, or the seed count without one."""
    claims = {c.get("id"): c for c in summary.get("claims") or [] if isinstance(c, Mapping)}
    ci = (claims.get(key) or {}).get("ours", {}).get("ci95")
    n = len(summary.get("seeds") or [])
    extra = f"; {note}" if note else ""
    if ci and all(map(_finite, ci)):
        return f" (95% t interval {ci[0]:.2f} to {ci[1]:.2f}, n = {n} seeds{extra})"
    return f" (n = {n} seed{'s' if n != 1 else ''}; no interval{extra})"


def _updates_text(values: Mapping[str, Any], arm: str, what: str = "train_updates",
                  text: str = ", stopped after {} updates") -> str:
    """``text`` with the range of the records' update counts (``e4.<what>_min/_max.<arm>``), or ""."""
    lo, hi = (values.get(f"e4.{what}_{k}.{arm}") for k in ("min", "max"))
    if not (_finite(lo) and _finite(hi)):
        return ""
    return text.format(f"{int(lo):,}" if lo == hi else f"{int(lo):,}-{int(hi):,}")


def _again_text(summary: Mapping[str, Any]) -> str:
    """The cells of "E4 again" in words (protocol 8.8.6), or "" when they are not in the set."""
    values = summary.get("values") or {}
    hyps = {h.get("id"): h for h in summary.get("hypotheses") or [] if isinstance(h, Mapping)}
    v = {m: values.get(f"e4.{m}.{A2}.self_on") for m in ("accuracy", "auroc", "skip", "confidence")}
    if not all(_finite(v[m]) for m in ("accuracy", "auroc")):
        return ""
    r1, r2 = ((hyps.get(h) or {}).get("outcome", "undefined") for h in ("R1", "R2"))
    if r1 in ("undefined", "not tested"):
        head = f"**Not settled by this result set** (R1 {r1})."
    else:
        verdict = {(True, True): "Yes, once the training artefacts are removed.", (True, False): "Partly.",
                   (False, True): "Partly."}.get((r1 == "supported", r2 == "supported"),
                                                 "Not from reward alone, even without the training artefacts.")
        head = f"**{verdict}**"
    key = f"e4.auroc.{A2}.self_on"
    rows = {r.get("key"): r for r in (hyps.get("R1") or {}).get("conditions") or [] if isinstance(r, Mapping)}
    ci = (rows.get(key) or {}).get("ci95")
    au, au_c = float(v["auroc"]), float(values[f"e4.auroc.{C}.self_on"])
    spread = spread_text((summary.get("auroc_spread") or {}).get(key), (summary.get("config") or {}).get("e1_trials"))
    interval = _interval_text(summary, key, spread)
    if r1 == "supported":
        how = f"its confidence tells right from wrong: Type-2 AUROC {au:.2f}{interval}"
    elif _meaningful(summary, key) is False:
        how = (f"the payoff drove its confidence to where its variation changes no bet: Type-2 AUROC {au:.2f}"
               f"{interval}")
    elif ci and all(map(_finite, ci)) and ci[1] < 0.5:
        how = (f"its confidence varies enough to matter but ranks backwards, higher on its errors: Type-2 AUROC "
               f"{au:.2f}{interval}")
    else:
        how = (f"its confidence varies enough to matter but does not tell right from wrong reliably: Type-2 AUROC "
               f"{au:.2f}{interval}")
    parts = [f"{head} Trained on the wager's payoff alone, with the wager learned only once its policy had converged "
             f"({AGAIN_SCHEDULE}{_updates_text(values, A2, 'wager_updates', ', {} wager updates')}, centred "
             f"self-model features; protocol 8.8), the agent reaches an accuracy of "
             f"{_pct(float(v['accuracy']))} and {how}, against {au_c:.2f} for the supervised agent ({outcome_text(hyps.get('R1'))})."]
    if _finite(v["skip"]) and _finite(v["confidence"]):
        parts.append(f"It bets on {_pct(1 - float(v['skip']))} of wager trials with a mean confidence of "
                     f"{float(v['confidence']):.3f}.")
    risky = {t: values.get(f"e4.skip{t}.{RISKY2}.self_on") for t in ("", "_low", "_high")}
    if all(_finite(x) for x in risky.values()):
        io = ideal_observer(RISKY_WRONG_BET_PAYOFF)
        parts.append(f"When a wrong bet costs 3 (an ideal observer opts out on the faintest {_pct(io['opt_out'])} of "
                     f"flashes) it opts out on {_pct(float(risky['']))} of wager trials ({_pct(float(risky['_low']))} "
                     f"on the faintest third, {_pct(float(risky['_high']))} on the brightest; "
                     f"{outcome_text(hyps.get('R2'))})." + all_or_nothing(values, RISKY2))
    raw = values.get(f"e4.auroc.{RAW}.self_on")
    if _finite(raw):
        note = _spread_note(summary, f"e4.auroc.{RAW}.self_on")
        parts.append(f"With raw instead of centred features the AUROC is {float(raw):.2f} "
                     f"({f'{note}; ' if note else ''}{outcome_text(hyps.get('R3'))}).")
    sgd, cos_raw, cos_sgd = (values.get(k) for k in (f"e4.auroc.{SGD}.self_on", f"e4.head_mean_cosine.{RAW}",
                                                     f"e4.head_mean_cosine.{SGD}"))
    if all(_finite(x) for x in (sgd, cos_raw, cos_sgd)):
        note = _spread_note(summary, f"e4.auroc.{SGD}.self_on")
        parts.append(f"With plain SGD instead of Adam on the wager head (raw features) the head's weight has a cosine "
                     f"of {float(cos_sgd):.2f} with the mean z_self (Adam: {float(cos_raw):.2f}) and the AUROC is "
                     f"{float(sgd):.2f} ({f'{note}; ' if note else ''}{outcome_text(hyps.get('R4'))}).")
    return " ".join(parts)


def _first_text(summary: Mapping[str, Any], labelled: bool = False) -> str:
    """The cells of protocol 8.3 in words; ``labelled``: after the cells of "E4 again", under the
    first schedule's label instead of as the answer's lead."""
    values = summary.get("values") or {}
    hyps = {h.get("id"): h for h in summary.get("hypotheses") or [] if isinstance(h, Mapping)}
    v = {k: values.get(k) for k in (f"e4.{m}.{arm}.self_on" for m in ("accuracy", "auroc", "skip", "ece", "confidence")
                                    for arm in (A, C, "reward_wager_risky", "reward_logits", "reward_workspace"))}
    acc_a, acc_c = (float(v[f"e4.accuracy.{arm}.self_on"]) for arm in (A, C))
    au_a, au_c = (float(v[f"e4.auroc.{arm}.self_on"]) for arm in (A, C))
    key_a = f"e4.auroc.{A}.self_on"
    claims = {c.get("id"): c for c in summary.get("claims") or [] if isinstance(c, Mapping)}
    ci = (claims.get(key_a) or {}).get("ours", {}).get("ci95")
    interval = _interval_text(summary, key_a, _spread_note(summary, key_a))
    h1 = (hyps.get("H1") or {}).get("outcome", "undefined")
    chooses = (f"chooses about as accurately as the supervised one (accuracy {_pct(acc_a)} vs {_pct(acc_c)})"
               if abs(acc_a - acc_c) <= 0.02 else f"reaches an accuracy of {_pct(acc_a)} (supervised {_pct(acc_c)})")
    flat = _meaningful(summary, key_a) is False
    inverted = bool(ci and all(map(_finite, ci)) and ci[1] < 0.5) and not flat
    if labelled:
        lead = (f"With the first schedule ({FIRST_SCHEDULE}{_updates_text(values, A)}; protocol 8.3) the agent "
                f"trained on the wager's payoff alone {chooses}, ")
        lead += {"supported": "and its confidence tells right from wrong above chance",
                 "not supported": "but " + ("its confidence barely varies, in an order no bet depends on" if flat else
                                            "its confidence is **inverted**, higher on its errors than on its correct "
                                            "choices" if inverted else
                                            "its confidence says nothing reliable about whether it is right")}.get(
            h1, "and its confidence is not settled by this result set")
        lead += f": Type-2 AUROC {au_a:.2f}{interval}, against {au_c:.2f} for the supervised agent (H1 {h1})."
    elif h1 == "supported":
        lead = (f"**Partly.** Trained on the wager's payoff alone (no correctness label), the agent {chooses} and "
                f"its confidence tells right from wrong above chance: Type-2 AUROC {au_a:.2f}{interval}, against "
                f"{au_c:.2f} for the supervised agent.")
    elif h1 == "not supported":
        how = ("its confidence barely varies, in an order no bet depends on" if flat else
               "its confidence is **inverted**, higher on its errors than on its correct choices" if inverted else
               "its confidence says nothing reliable about whether it is right")
        lead = (f"**Not from this reward.** Trained on the wager's payoff alone (no correctness label), the agent "
                f"{chooses}, but {how}: Type-2 AUROC {au_a:.2f}{interval}, where 0.5 is chance, against "
                f"{au_c:.2f} for the supervised agent.")
    else:
        lead = (f"**Not settled by this result set** (H1 {h1}). Trained on the wager's payoff alone, the agent's "
                f"accuracy is {_pct(acc_a)} (supervised {_pct(acc_c)}) and its Type-2 AUROC {au_a:.2f}{interval} "
                f"(supervised {au_c:.2f}).")
    parts = [lead]
    if all(_finite(v[f"e4.{m}.{arm}.self_on"]) for m in ("skip", "ece") for arm in (A, C)):
        conf = v[f"e4.confidence.{A}.self_on"]
        parts.append(f"It bets on {_pct(1 - float(v[f'e4.skip.{A}.self_on']))} of wager trials (supervised "
                     f"{_pct(1 - float(v[f'e4.skip.{C}.self_on']))})"
                     + (f" with a mean confidence of {float(conf):.3f}" if _finite(conf) else "")
                     + f", and its calibration error (ECE) is {float(v[f'e4.ece.{A}.self_on']):.2f} against "
                     f"{float(v[f'e4.ece.{C}.self_on']):.2f} ({outcome_text(hyps.get('H3'))}).")
    ideal = ideal_observer(-1.0)
    bets_always = _finite(v[f"e4.skip.{A}.self_on"]) and float(v[f"e4.skip.{A}.self_on"]) <= 0.05
    parts.append(
        ("That is what this payoff teaches" if bets_always else "Under this payoff betting always is optimal")
        + " (protocol 8.2): with +1 for a right bet, -1 for a wrong one and 0 for "
        "opting out, a bet is worth 2 P(correct) - 1, never negative for an agent at or above chance, and on this "
        f"task no trial is below chance for an ideal observer (it is right on {_pct(ideal['accuracy'])} of trials, "
        "and at least half the time on each). "
        "The reward-optimal wager is therefore to bet always, and once the agent bets on everything, being more "
        "confident when right than when wrong earns nothing: reward alone gives almost no incentive to discriminate."
        + (" The argument explains why the confidence carries no information, not why it is inverted." if inverted
           else ""))
    risky = {t: values.get(f"e4.skip{t}.reward_wager_risky.self_on") for t in ("", "_low", "_high")}
    if all(_finite(x) for x in risky.values()):
        io = ideal_observer(RISKY_WRONG_BET_PAYOFF)
        parts.append(f"Even when a wrong bet costs 3 (break-even at {_pct(io['break_even'])} correct, where an ideal "
                     f"observer would opt out on the faintest {_pct(io['opt_out'])} of flashes) it opted out on "
                     f"{_pct(float(risky['']))} of wager trials ({_pct(float(risky['_low']))} on the faintest third, "
                     f"{_pct(float(risky['_high']))} on the brightest; {outcome_text(hyps.get('H4'))})"
                     + (": so the missing incentive is not the whole story, since where opting out would pay the agent "
                        "still did not learn to." if float(risky[""]) <= 0.01 and io["opt_out"] > 0.1 else ".")
                     + all_or_nothing(values, "reward_wager_risky"))
    lo, ws = v["e4.auroc.reward_logits.self_on"], v["e4.auroc.reward_workspace.self_on"]
    if _finite(lo) and _finite(ws):
        notes = [_spread_note(summary, f"e4.auroc.{arm}.self_on") for arm in ("reward_logits", "reward_workspace")]
        lo_text, ws_text = (f"{float(x):.2f}" + (f" ({note})" if note else "") for x, note in zip((lo, ws), notes,
                                                                                                   strict=True))
        parts.append(f"Confidence heads reading only the policy's logits or only the workspace reach AUROC "
                     f"{lo_text} and {ws_text} ({outcome_text(hyps.get('H6'))}).")
    b = {m: values.get(f"e4.{m}.reward_all.self_on") for m in ("accuracy", "auroc", "skip", "confidence_sd")}
    if all(_finite(x) for x in b.values()):  # arm (b), exploratory (protocol 8.3)
        note = _spread_note(summary, "e4.auroc.reward_all.self_on")
        parts.append(f"Without any demonstration (arm b: policy and wager by actor-critic from the task's reward) "
                     f"the agent learns the task (accuracy {_pct(float(b['accuracy']))}) and the same wager: it bets "
                     f"on {_pct(1 - float(b['skip']))} of wager trials with a confidence that barely varies (SD "
                     f"{float(b['confidence_sd']):.1e} across trials), Type-2 AUROC {float(b['auroc']):.2f}"
                     + (f" ({note})" if note else "") + ".")
    if (hyps.get("H5") or {}).get("outcome") == "supported":
        parts.append("Zeroing z_self leaves the reward-trained agent's accuracy unchanged and sets its AUROC to 0.5, "
                     "as its wiring fixes (H5: by construction, reported, not counted).")
    return " ".join(parts)
