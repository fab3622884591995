"""Experiment 4: does metacognition emerge from reward alone? (docs/protocol.md sec. 8)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from labcore.budgets import ReproduceConfig
from labcore.config import TASK_OF_EXPERIMENT, WageringConfig
from labcore.experiments.common import DEFAULT_CACHE, SeedResult, provide_agents
from labcore.experiments.e1 import conditions, relative_checks, trial_rows, view_values
from labcore.experiments.paper_results import CURVE_COLUMNS
from labcore.markers import ignore_undefined, skip_fraction, type2_auroc
from labcore.measures import MetacognitionView, metacognition, on_selected
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import BUNDLED_DIR, checkpoint_file, checkpoint_name, read_record
from labcore.training.wager_reward import confidence_spread

TASK = TASK_OF_EXPERIMENT["e4"]


@dataclass(frozen=True)
class Arm:
    """One arm of E4 (protocol 8.3): its key in the results, its agent kind, and what it is."""

    name: str
    kind: str
    label: str
    """Plain-language name (pages, report)."""
    signal: str
    """What taught its confidence: "labels" (correctness) or "reward" (the wager's payoff)."""
    cell: str = ""
    """How it was trained, as its cell is labelled (protocol 8.8.3): the schedule of the first E4
    (sec. 8.3) or of "E4 again"."""


FIRST_SCHEDULE = "default init, wager loss from update 1, Adam, BC stopping rule"
"""The label of the cells of protocol 8.3, kept beside the cells of "E4 again" (protocol 8.8.3)."""
AGAIN_SCHEDULE = "wager after the policy converged, head bias 0, bet floor 0.05"
"""What every cell of "E4 again" shares (protocol 8.8.3)."""
ARMS: tuple[Arm, ...] = tuple(
    Arm(**{**a, "cell": a["cell"].format(first=FIRST_SCHEDULE, again=AGAIN_SCHEDULE)})
    for a in json.loads((Path(__file__).parents[1] / "e4_arms.json").read_text(encoding="utf-8"))
)
"""E4's arms in display order, from ``labcore/e4_arms.json`` (protocol 8.3, then the cells of "E4
again", 8.8.3; ``{first}`` and ``{again}`` in a cell are the two schedules above). A new arm is one
more entry (its kind must also be in ``KINDS_OF_EXPERIMENT["e4"]``, which provisions the agents)."""
ARMS_BY_NAME = {a.name: a for a in ARMS}
KINDS = tuple(dict.fromkeys(a.kind for a in ARMS))
"""The agent kinds the arms use: what ``study e4`` provisions (bundled, cached or
trained into the cache)."""
REFERENCE = "supervised"
"""Arm (c), the reference of the paired contrasts."""
TERCILES = ("low", "mid", "high")
"""Salience terciles, faintest first (protocol 8.4)."""


def tercile_edges() -> np.ndarray:
    """Edges of the salience terciles: thirds of the task's salience range.

    >>> tercile_edges().round(3).tolist()
    [0.0, 0.333, 0.667, 1.0]
    """
    lo, hi = WageringConfig().salience_range
    return np.linspace(lo, hi, len(TERCILES) + 1)


def skip_by_salience(view: MetacognitionView) -> dict[str, float]:
    """Opt-outs on the wager trials of each salience tercile (``skip_low``, ``skip_mid``,
    ``skip_high``)."""
    inner = tercile_edges()[1:-1]
    band = np.clip(np.digitize(view.salience, inner, right=False), 0, len(TERCILES) - 1)
    wagered = view.wager.astype(bool) & view.answered
    return {
        f"skip_{name}": on_selected(wagered & (band == i), skip_fraction, view.confidence)
        for i, name in enumerate(TERCILES)
    }


RESOLUTION = 1e-3
"""Protocol sec. 10.5: the resolution at which a reader could tell two confidences apart; each
AUROC is also reported on confidences rounded to it (ties counted half)."""


def auroc_spread(view: MetacognitionView) -> dict[str, float]:
    """The spread of the confidence on the trials the AUROC is computed on (decided, with a
    confidence): ``confidence_distinct``, ``spread_bets``, ``auroc_meaningful`` (protocol 8.8.4),
    ``bets_flipped`` (the trials whose bet under the evaluation's rule the variation changes) and
    ``auroc_resolved``, the AUROC at :data:`RESOLUTION` (protocol sec. 10.5). ``auroc_meaningful``
    joins both rules: a spread of at least one bet and at least one bet that flips."""
    answered = view.decided & np.isfinite(view.confidence)
    spread = confidence_spread(view.confidence[answered]) if answered.any() else {}
    out = {
        k: spread.get(k, float("nan"))
        for k in ("confidence_distinct", "spread_bets", "auroc_meaningful", "bets_flipped")
    }
    if out["auroc_meaningful"] == 1.0 and not out["bets_flipped"] >= 1:
        # sec. 10.5: its variation changes no bet the evaluation makes
        out["auroc_meaningful"] = 0.0
    correct, conf = view.correct[answered], view.confidence[answered].astype(np.float64)
    with ignore_undefined():
        out["auroc_resolved"] = (
            type2_auroc(correct, np.round(conf / RESOLUTION) * RESOLUTION, undefined="nan")
            if answered.any()
            else float("nan")
        )
    return out


def head_mean_cosine(agent: object, view: MetacognitionView) -> float:
    """Cosine between the confidence head's weight and the mean z_self at the choice steps of
    ``view``'s trials (protocol 8.8, hypothesis R4); nan without choice steps."""
    steps = view.trace.outcome["choice_step"]
    keep = steps >= 0
    if not keep.any() or view.trace.z_self is None:
        return float("nan")
    z = view.trace.z_self[np.flatnonzero(keep), steps[keep]].astype(np.float64).mean(0)
    w = agent.confidence_head.weight.detach().double().numpy().ravel()  # type: ignore[attr-defined]
    norm = float(np.linalg.norm(w) * np.linalg.norm(z))
    return float(w @ z / norm) if norm > 0 else float("nan")


def training_record(kind: str, seed: int, cache_dir: Path | str | None = None) -> dict:
    """The training record of the agent :func:`~labcore.experiments.common.provide_agent` uses
    (bundled first, then the cache); {} without a readable one."""
    name = checkpoint_name(TASK, kind, seed)
    for directory in (BUNDLED_DIR, Path(cache_dir or DEFAULT_CACHE)):
        if checkpoint_file(directory, name).exists():
            try:
                record = read_record(directory, name)
            except (OSError, ValueError):
                return {}
            return record if isinstance(record, dict) else {}
    return {}


def training_history(record: dict) -> list[dict]:
    """The learning curve of an agent's training record (:func:`training_record`): one dict per
    held-out evaluation (``history``) and per point of its wager phase's curve (``wager_curve``),
    by update, the two merged where they share one; [] without a record."""
    merged: dict[int, dict] = {}
    for key in ("history", "wager_curve"):
        entries = record.get(key)
        for h in entries if isinstance(entries, list) else []:
            if isinstance(h, dict) and isinstance(h.get("update"), int):
                merged.setdefault(h["update"], {}).update(h)
    return [merged[u] for u in sorted(merged)]


def _cell(value: object) -> float | None:
    """A curve cell: a finite number, else empty (None)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def curve_rows(arm: Arm, seed: int, history: list[dict]) -> list[dict]:
    """``e4_curves`` rows of one agent: arm, seed, update and the numbers of
    :data:`~labcore.experiments.paper_results.CURVE_COLUMNS` per evaluation."""
    return [
        {
            "arm": arm.name,
            "seed": seed,
            "update": h["update"],
            **{k: _cell(h.get(k)) for k in CURVE_COLUMNS},
        }
        for h in history
    ]


def contrasts(values: dict[str, float]) -> dict[str, float]:
    """The per-seed contrasts of one seed's values (nan where an arm or a value is missing)."""
    nan = float("nan")
    out = {}
    for arm in ARMS:
        a = arm.name
        if f"e4.accuracy.{a}.self_on" not in values:
            continue
        if a != REFERENCE:
            ref = values.get(f"e4.auroc.{REFERENCE}.self_on", nan)
            out[f"e4.auroc_gap.{a}"] = values.get(f"e4.auroc.{a}.self_on", nan) - ref
        out[f"e4.skip_salience.{a}"] = values.get(f"e4.skip_low.{a}.self_on", nan) - values.get(
            f"e4.skip_high.{a}.self_on", nan
        )
        out[f"e4.accuracy_change.{a}"] = (
            values[f"e4.accuracy.{a}.self_off"] - values[f"e4.accuracy.{a}.self_on"]
        )
    return out


ALL_OR_NOTHING = 0.05
"""An agent "always" opts out at an intact opt-out rate >= 1 - this, "never" at <= this."""


def cross_seed(results: list[SeedResult]) -> dict[str, float]:
    """How many agents of each arm opt out on (almost) every wager trial, on (almost) none, and of
    how many (``e4.seeds_opting_out_always``, ``_never``, ``_measured``): a mean rate can describe
    no agent at all.

    >>> r = [SeedResult("e4", s, values={"e4.skip.reward_wager.self_on": x}) for s,
    ...      x in enumerate([1.0, 0.0, 0.0])]
    >>> cross_seed(r)
    {'e4.seeds_opting_out_always.reward_wager': 1.0, 'e4.seeds_opting_out_never.reward_wager': 2.0,
    \
'e4.seeds_opting_out_measured.reward_wager': 3.0}
    """
    out: dict[str, float] = {}
    for arm in ARMS:
        rates = np.array(
            [r.values[key] for r in results if (key := f"e4.skip.{arm.name}.self_on") in r.values],
            dtype=float,
        )
        rates = rates[np.isfinite(rates)]
        if rates.size:
            out[f"e4.seeds_opting_out_always.{arm.name}"] = float(
                (rates >= 1 - ALL_OR_NOTHING).sum()
            )
            out[f"e4.seeds_opting_out_never.{arm.name}"] = float((rates <= ALL_OR_NOTHING).sum())
            out[f"e4.seeds_opting_out_measured.{arm.name}"] = float(rates.size)
        # a cell's schedule, as its agents' records give it
        for what in ("train_updates", "wager_updates"):
            updates = [
                r.values[key] for r in results if (key := f"e4.{what}.{arm.name}") in r.values
            ]
            if updates:
                out[f"e4.{what}_min.{arm.name}"] = float(min(updates))
                out[f"e4.{what}_max.{arm.name}"] = float(max(updates))
    return out


def run_seed(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Experiment 4 for one agent seed: every arm under E1's five conditions, the contrasts, the
    curves.

    Returns the seed's values keyed ``e4.*`` and its ``e4_trials`` and ``e4_curves`` rows (no
    curves for untrained agents); agents trained on demand are cached in ``cache_dir``.
    """
    torch.set_num_threads(1)
    result = SeedResult("e4", seed)
    agents = provide_agents(
        result, TASK, [a.kind for a in ARMS], seed, cache_dir, untrained=cfg.untrained
    )
    episodes = episode_seeds(seed, "eval", cfg.e1_trials)
    trials, curves = [], []
    for arm in ARMS:
        agent = agents.get(arm.kind)
        if agent is None:
            continue
        views = {}
        for name, iv in conditions(seed).items():
            view = views[name] = metacognition(agent, iv, episodes)
            numbers = {**view_values(view), **skip_by_salience(view), **auroc_spread(view)}
            result.values.update(
                {f"e4.{metric}.{arm.name}.{name}": x for metric, x in numbers.items()}
            )
            trials += trial_rows(view, {"arm": arm.name, "seed": seed, "condition": name})
            if name == "self_on" and agent.config.self_model:
                result.values[f"e4.head_mean_cosine.{arm.name}"] = head_mean_cosine(agent, view)
        for key, x in relative_checks(views).items():  # for the construction audit's relative rule
            check, condition = key.rsplit(".", 1)
            result.values[f"e4.{check}.{arm.name}.{condition}"] = x
        if not cfg.untrained:
            record = training_record(arm.kind, seed, cache_dir)
            curves += curve_rows(arm, seed, training_history(record))
            updates, start = record.get("updates"), record.get("wager_start_update")
            if isinstance(updates, int):
                result.values[f"e4.train_updates.{arm.name}"] = float(updates)
                if isinstance(start, int):  # the wager phase's length (protocol 8.8.2)
                    result.values[f"e4.wager_updates.{arm.name}"] = float(updates - start + 1)
    result.values.update(contrasts(result.values))
    result.rows["e4_trials"] = trials
    result.rows["e4_curves"] = curves
    return result
