"""Song, Yang & Wang (2017) reproduced on NeuroGym's post-decision wager (protocol sec. 8.7).

Run: ``python -m labcore study pdw --jobs 2`` (at most about 45 min on 2 cores); a unit is one
network, saved in ``OUT/checkpoints`` and measured from there.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Flag, Interval, StudySummary
from labcore.markers import (
    accuracy_waived_vs_not_offered,
    ignore_undefined,
    p_sure_by_coherence,
    sure_contrast,
    waived_advantage,
)
from labcore.render import finite
from labcore.seeding import MEASURE_SAMPLING_SEED_BASE, episode_seeds
from labcore.stats import seed_summary, welch_summary

if TYPE_CHECKING:
    from labcore.agents.neurogym import NeuroGymTrials
    from labcore.training.neurogym_trainer import NeuroGymRLConfig

STUDY_NAME = "pdw"
COHERENCES = (0.0, 3.2, 6.4, 12.8, 25.6, 51.2)
"""NeuroGym's coherence levels (percent; labcore.envs.neurogym_wager)."""
AGENTS = ("plain_gru", "b2_ws")
"""Song et al.'s plain GRU and our B2 family (``reward_all`` from reward, ``b2_ws`` imitating)."""
IDEAL = "ideal_observer"
"""The ideal observer's ``agent`` in the files (its ``training`` and ``policy`` are "ideal")."""
POLICIES = ("sampled", "greedy")
"""How a network's choices are read: the policy's samples (registered) or its argmax."""
QUESTIONS = {
    "s1_contrast": "S1: P(sure | offered) at 0 and 3.2% coherence minus at 25.6 and 51.2%",
    "s2_waived_advantage": "S2: accuracy on waived minus not-offered trials, mean over 3.2, "
    "6.4 and 12.8%",
    "p_sure_offered": "How often is the sure option chosen when it is offered (all coherences)?",
    "accuracy": "How often is a chosen side right?",
    "answered": "How often does it answer (a side, or the sure option when offered)?",
    "reward": "Reward per trial (NeuroGym's payoff)",
    "accuracy_waived": "Accuracy when the sure option was offered and waived (pooled)",
    "accuracy_not_offered": "Accuracy when the sure option was not offered (pooled)",
    "pooled_difference": "Accuracy on waived minus not-offered trials, pooled over coherences "
    "(confounded by the coherence mix of waived trials)",
}
"""The numbers of one observer on one seed that become findings (seed means), each with what it
answers."""
SUMMARY_VALUES = tuple(QUESTIONS)
SEED_VALUES = SUMMARY_VALUES + tuple(
    f"{k}_c{c:g}" for c in COHERENCES for k in ("p_sure", "accuracy_waived", "accuracy_not_offered")
)
"""Every number of one observer on one seed (:func:`signature_values`)."""


# ----------------------------------------------------------------------- the design
def song_setting() -> NeuroGymRLConfig:
    """Song et al.'s registered training setting (imported when asked: it loads torch)."""
    from labcore.training.neurogym_trainer import SONG_2017

    return SONG_2017


def _imitation_setting() -> NeuroGymRLConfig:
    from labcore.training.neurogym_trainer import IMITATION_UPDATES, REGISTERED_8_6

    return replace(REGISTERED_8_6, max_updates=IMITATION_UPDATES)


@dataclass(frozen=True)
class PDWConfig:
    """Seeds, agents and budgets of the reproduction (the registered values by default)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    agents: tuple[str, ...] = ("plain_gru", "b2_ws")
    rl: NeuroGymRLConfig = field(default_factory=song_setting)
    """The reward training (registered: the Song setting)."""
    imitation: NeuroGymRLConfig = field(default_factory=_imitation_setting)
    """The post-hoc imitation ceiling (8.6's: 800 updates of 256 trials)."""
    eval_trials: int = 12_000
    """Evaluation trials per seed (registered: 12,000)."""

    @classmethod
    def quick(cls) -> PDWConfig:
        """Two seeds, tiny budgets: a smoke test of the pipeline (its numbers mean nothing)."""
        tiny = {"train_pool": 300, "heldout_trials": 60, "trials_per_update": 16}
        return cls(
            seeds=(0, 1),
            eval_trials=300,
            rl=replace(song_setting(), max_updates=6, eval_every=3, **tiny),
            imitation=replace(_imitation_setting(), max_updates=4, eval_every=2, **tiny),
        )


TRIALS = Table(
    "pdw_trials",
    ("agent", "seed", "training", "coherence", "sure_offered", "choice", "correct"),
    text=("agent", "training", "choice"),
    optional=("correct",),
)
TRIALS_GREEDY = replace(TRIALS, name="pdw_trials_greedy")
BY_COHERENCE = Table(
    "pdw_by_coherence",
    (
        "agent", "training", "seed", "policy", "coherence", "p_sure", "n_offered",
        "accuracy_waived", "accuracy_not_offered", "n_waived", "n_not_offered",
    ),
    text=("agent", "training", "policy"),
    optional=("p_sure", "accuracy_waived", "accuracy_not_offered"),
)  # fmt: skip
CURVE_FIELDS = (
    "cell", "agent", "training", "seed", "update", "policy", "reward", "answered", "accuracy",
    "p_sure_offered", "s1_contrast", "s2_waived_advantage", "accuracy_waived",
    "accuracy_not_offered", *(f"p_sure_c{c:g}" for c in COHERENCES), "criterion_met",
    "prob_sure_offered", "prob_sure_not_offered", "train_reward", "train_entropy", "entropy_coef",
)  # fmt: skip
"""One row per check and policy ("sampled", "greedy"), and rows with ``policy`` "probability" for
the early probes (only ``prob_sure_*`` filled); ``cell`` is "repro" in the reproduction."""


def curve_table(name: str) -> Table:
    """The learning curves' table (:data:`CURVE_FIELDS`) under file name ``name``."""
    return Table(
        name, CURVE_FIELDS, text=("cell", "agent", "training", "policy"), optional=CURVE_FIELDS[6:]
    )


CURVES = curve_table("pdw_curves")
TRAINING_FIELDS = ("updates", "stopped", "wall_seconds")
"""How a network's training went (``pdw_seeds.csv``; the summary's ``networks`` table)."""
SEEDS = Table(
    "pdw_seeds",
    ("agent", "training", "seed", "policy", *TRAINING_FIELDS, *SEED_VALUES),
    text=("agent", "training", "policy", "stopped"),
    optional=(*TRAINING_FIELDS, *SEED_VALUES),
)
TABLES = (TRIALS, TRIALS_GREEDY, BY_COHERENCE, CURVES, SEEDS)


@dataclass(frozen=True)
class Network:
    """One unit: a network to train and measure (or the ideal observer on one seed's trials)."""

    agent: str
    training: str
    seed: int
    cell: str = "repro"

    def __str__(self) -> str:
        return f"{self.cell} {self.agent} {self.training} seed{self.seed}"

    @property
    def checkpoint(self) -> str:
        """Its checkpoint's file stem (derived from the unit, never a timestamp)."""
        cell = self.cell.replace("+", "-plus-").replace("~", "-held-")
        return f"pdw-{cell}-{self.agent}-{self.training}-s{self.seed}"


def units(config: PDWConfig) -> list[Network]:
    """Every network of the reproduction, the longest first (B2 from reward), then the ideal
    observer on each seed."""
    networks = [
        Network(agent, training, seed)
        for training in ("reward", "imitation")
        for agent in ("b2_ws", "plain_gru")
        if agent in config.agents
        for seed in config.seeds
    ]
    return networks + [Network(IDEAL, "ideal", seed) for seed in config.seeds]


def unit_of(row: dict) -> Network:
    """The unit a row of any of the reproduction's tables belongs to."""
    return Network(row["agent"], row["training"], int(row["seed"]))


# ----------------------------------------------------------------------- running a unit
@functools.lru_cache(maxsize=2)
def evaluation_trials(seed: int, n: int) -> NeuroGymTrials:
    """The seed's evaluation trials (its eval block), shared by every network and the ideal
    observer."""
    from labcore.agents.neurogym import draw_trials

    return draw_trials(int(episode_seeds(seed, "eval", 1)[0]), n)


def levels_of(trials: NeuroGymTrials) -> list[float]:
    """The task's coherence levels, ascending."""
    return sorted(float(c) for c in trials.cohs)


def trained_network(unit: Network, cfg: NeuroGymRLConfig, out: Path | str) -> tuple[Any, dict]:
    """``unit``'s network and its training record: loaded from ``OUT/checkpoints`` (through the
    manifest) if it was trained there, else trained and saved there. A checkpoint trained with
    another configuration raises :class:`CheckpointError` (one sentence; kind ``other_config``)."""
    from labcore.storage.checkpoints import (
        CheckpointError,
        checkpoint_file,
        load_checkpoint,
        read_record,
    )
    from labcore.training.provision import train_network_and_save

    folder = Path(out) / "checkpoints"
    path = checkpoint_file(folder, unit.checkpoint)
    wanted = json.loads(json.dumps(asdict(cfg)))
    if path.exists():
        record = read_record(folder, unit.checkpoint)
        if record.get("train_config") != wanted:
            raise CheckpointError(
                f"{path} holds a network trained with another configuration; use a fresh --out "
                "(or delete that file) to train this one.",
                "other_config",
            )
        return load_checkpoint(path).agent, record
    folder.mkdir(parents=True, exist_ok=True)
    return train_network_and_save(
        unit.seed,
        cfg,
        folder,
        trainer="rl" if unit.training == "reward" else "imitation",
        agent=unit.agent,
        name=unit.checkpoint,
    )


def trial_rows(trials: NeuroGymTrials, actions: np.ndarray) -> dict[str, list]:
    """The columns of ``pdw_trials.csv`` for one observer's actions, with each trial's reward."""
    from labcore.agents.neurogym import outcome_rows

    rows = outcome_rows(trials, actions)
    return {
        "coherence": [r["coherence"] for r in rows],
        "sure_offered": [int(r["sure_offered"]) for r in rows],
        "choice": [r["choice"] for r in rows],
        "correct": [None if r["correct"] is None else int(r["correct"]) for r in rows],
        "reward": [r["reward"] for r in rows],
    }


def measured_network(
    unit: Network, cfg: NeuroGymRLConfig, eval_trials: int, out: Path | str
) -> dict[str, Any]:
    """Train (or load) ``unit``'s network and act on its seed's evaluation trials: its record,
    the task's coherence levels, and per policy the trials' columns and the numbers of
    :func:`signature_values`."""
    import torch

    from labcore.training.neurogym_trainer import policy_actions

    torch.set_num_threads(1)
    net, record = trained_network(unit, cfg, out)
    trials = evaluation_trials(unit.seed, eval_trials)
    generator = torch.Generator().manual_seed(MEASURE_SAMPLING_SEED_BASE + unit.seed)
    actions = policy_actions(net, trials, generator)
    levels = levels_of(trials)
    columns = {p: trial_rows(trials, actions[p]) for p in POLICIES}
    values = {p: signature_values(**columns[p], levels=levels) for p in POLICIES}
    return {
        "record": {**record, "training": unit.training},
        "levels": levels,
        "trials": columns,
        "values": values,
    }


def _trial_table(columns: dict[str, list], ident: dict[str, Any]) -> list[dict[str, Any]]:
    keys = ("coherence", "sure_offered", "choice", "correct")
    return [
        {**ident, **dict(zip(keys, row, strict=True))}
        for row in zip(*(columns[k] for k in keys), strict=True)
    ]


def run_unit(config: PDWConfig, unit: Network, out: str) -> Rows:
    """One network trained (or loaded) and measured, or the ideal observer on one seed: its rows
    of every table of the reproduction."""
    from labcore.agents.neurogym import ideal_actions

    ident = {"agent": unit.agent, "training": unit.training, "seed": unit.seed}
    if unit.training == "ideal":
        trials = evaluation_trials(unit.seed, config.eval_trials)
        columns = trial_rows(trials, ideal_actions(trials)[0])
        levels = levels_of(trials)
        table = _trial_table(columns, ident)
        ideal = {**ident, "policy": "ideal"}
        return {
            TRIALS.name: table,
            TRIALS_GREEDY.name: table,
            BY_COHERENCE.name: by_coherence_rows(columns, ideal, levels),
            SEEDS.name: [{**ideal, **signature_values(**columns, levels=levels)}],
        }
    cfg = config.rl if unit.training == "reward" else config.imitation
    found = measured_network(unit, cfg, config.eval_trials, out)
    record, levels, trials = found["record"], found["levels"], found["trials"]
    training = {k: record[k] for k in TRAINING_FIELDS}
    return {
        TRIALS.name: _trial_table(trials["sampled"], ident),
        TRIALS_GREEDY.name: _trial_table(trials["greedy"], ident),
        BY_COHERENCE.name: [
            row
            for p in POLICIES
            for row in by_coherence_rows(trials[p], {**ident, "policy": p}, levels)
        ],
        CURVES.name: curve_rows(record, unit.cell, levels),
        SEEDS.name: [{**ident, "policy": p, **training, **found["values"][p]} for p in POLICIES],
    }


# ----------------------------------------------------------------------- one observer, one seed
def signature_values(
    coherence: Sequence[float],
    sure_offered: Sequence[int],
    choice: Sequence[str],
    correct: Sequence[int | None],
    reward: Sequence[float] | None = None,
    levels: Sequence[float] | None = None,
) -> dict[str, float]:
    """Every number of one observer on one seed's trials (one entry per trial): S1, S2, the pooled
    accuracies, P(sure | offered), accuracy, answered, reward and the per-coherence values
    (:data:`SEED_VALUES`). Undefined values are nan (the markers' warnings are silenced here: the
    summary counts the seeds each value is defined on)."""
    coh = np.asarray(coherence, dtype=float)
    offered = np.asarray(sure_offered, dtype=int)
    picked = np.asarray(choice, dtype=str)
    right = list(correct)
    levels = list(levels) if levels is not None else sorted(float(c) for c in np.unique(coh))
    with ignore_undefined():
        table = p_sure_by_coherence(coh, offered, picked, levels=levels)
        waived = accuracy_waived_vs_not_offered(coh, offered, picked, right, levels=levels)
        values = {
            "s1_contrast": sure_contrast(table),
            "s2_waived_advantage": waived_advantage(waived),
        }
    side = np.isin(picked, ("left", "right"))
    sure_offered_ = (picked == "sure") & (offered == 1)
    values.update(
        {
            "p_sure_offered": float(sure_offered_.sum() / max(offered.sum(), 1))
            if offered.any()
            else math.nan,
            "accuracy": float(np.mean([right[i] for i in np.flatnonzero(side)]))
            if side.any()
            else math.nan,
            "answered": float((side | sure_offered_).mean()),
            "reward": float(np.mean(np.asarray(reward, float))) if reward is not None else math.nan,
            "accuracy_waived": waived.pooled_waived,
            "accuracy_not_offered": waived.pooled_not_offered,
            "pooled_difference": waived.pooled_waived - waived.pooled_not_offered,
        }
    )
    for i, c in enumerate(table.coherence):
        values[f"p_sure_c{c:g}"] = float(table.value[i])
        values[f"accuracy_waived_c{c:g}"] = float(waived.waived[i])
        values[f"accuracy_not_offered_c{c:g}"] = float(waived.not_offered[i])
    return values


def by_coherence_rows(
    trials: Mapping[str, Sequence[Any]], ident: Mapping[str, Any], levels: Sequence[float]
) -> list[dict[str, Any]]:
    """``pdw_by_coherence.csv`` rows of one observer, seed and policy (``ident``: agent, training,
    seed, policy) from its trials' columns (coherence, sure_offered, choice, correct)."""
    with ignore_undefined():
        table = p_sure_by_coherence(
            trials["coherence"], trials["sure_offered"], trials["choice"], levels=levels
        )
        waived = accuracy_waived_vs_not_offered(
            trials["coherence"],
            trials["sure_offered"],
            trials["choice"],
            trials["correct"],
            levels=levels,
        )
    return [
        {
            **ident,
            "coherence": c,
            "p_sure": table.value[i],
            "n_offered": table.n[i],
            "accuracy_waived": waived.waived[i],
            "accuracy_not_offered": waived.not_offered[i],
            "n_waived": waived.n_waived[i],
            "n_not_offered": waived.n_not_offered[i],
        }
        for i, c in enumerate(table.coherence)
    ]


def _expand(counts: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """Trial columns from outcome counts (one entry per (coherence, offer, choice, correct))."""
    n = [int(c["n"]) for c in counts]
    return {
        k: np.repeat(np.asarray([c[k] for c in counts], dtype=object), n)
        for k in ("coherence", "sure_offered", "choice", "correct")
    }


def curve_rows(
    record: Mapping[str, Any], cell: str, levels: Sequence[float]
) -> list[dict[str, Any]]:
    """``pdw_curves.csv`` rows of one trained network: each check (sampled and greedy) and the
    early probes, from its training record."""
    base = {
        "cell": cell,
        "agent": record["agent"],
        "training": record["training"],
        "seed": record["seed"],
    }
    rows = [
        {
            **base,
            "update": p["update"],
            "policy": "probability",
            "prob_sure_offered": p["heldout_p_sure_offered"],
            "prob_sure_not_offered": p["heldout_p_sure_not_offered"],
        }
        for p in record["sure_propensity_early"]
    ]
    for h in record["history"]:
        for policy in POLICIES:
            trials = _expand(h[f"{policy}_counts"])
            values = signature_values(
                trials["coherence"].astype(float),
                trials["sure_offered"].astype(int),
                trials["choice"].astype(str),
                trials["correct"],
                levels=levels,
            )
            rows.append(
                {
                    **base,
                    **{k: values.get(k) for k in CURVE_FIELDS if k in values},
                    "update": h["update"],
                    "policy": policy,
                    "reward": h[f"{policy}_reward"],
                    "criterion_met": int(h["criterion_met"]),
                    "prob_sure_offered": h["heldout_p_sure_offered"],
                    "prob_sure_not_offered": h["heldout_p_sure_not_offered"],
                    "train_reward": h.get("train_reward"),
                    "train_entropy": h.get("train_entropy"),
                    "entropy_coef": h.get("entropy_coef"),
                }
            )
    return rows


# ----------------------------------------------------------------------- seed summaries
def seed_estimate(values: Iterable[Any]) -> dict[str, Any]:
    """Mean, SD, n and 95% t interval (labcore.stats) of the finite per-seed values; None where
    undefined (no value; SD and interval with fewer than two)."""
    s = seed_summary([float(v) for v in values if finite(v)], "t")
    if not s.n:
        return {"value": None, "sd": None, "n": 0, "interval": None}
    return {
        "value": s.mean,
        "sd": s.sd if s.n >= 2 else None,
        "n": s.n,
        "interval": Interval(low=s.low, high=s.high, method="t") if s.ci95 else None,
    }


def welch_estimate(a: Iterable[Any], b: Iterable[Any]) -> dict[str, Any]:
    """The difference of the finite means of ``a`` and ``b`` with its Welch 95% interval
    (labcore.stats; None with fewer than two values in either); ``n`` the seeds of both."""
    s = welch_summary(*([float(v) for v in vals if finite(v)] for vals in (a, b)))
    interval = Interval(low=s.low, high=s.high, method="welch") if s.ci95 else None
    return {"value": s.mean if finite(s.mean) else None, "n": s.n, "interval": interval}


def above_zero(f: Finding) -> bool | None:
    """The registered test of protocol 8.7: the 95% t interval lies above 0 (None: no interval,
    fewer than two seeds define it)."""
    if f.interval is None or not finite(f.interval.low):
        return None
    return bool(f.interval.low > 0)


OUTCOME = {True: "supported", False: "not supported", None: "undefined"}
"""The registered test's result as a finding's outcome."""


def signatures(s1: bool | None, s2: bool | None) -> str:
    """Which signatures an observer shows: "both", "s1", "s2", "neither" or "undecided" (an
    interval undefined).

    >>> signatures(True, True), signatures(True, False), signatures(None, True)
    ('both', 's1', 'undecided')
    """
    if s1 is None or s2 is None:
        return "undecided"
    return {(True, True): "both", (True, False): "s1", (False, True): "s2"}.get((s1, s2), "neither")


# ----------------------------------------------------------------------- the findings
OBSERVER_WORDS = {
    "plain_gru.reward": "plain GRU, trained from reward",
    "b2_ws.reward": "B2 family, trained from reward",
    "plain_gru.imitation": "plain GRU imitating the ideal observer",
    "b2_ws.imitation": "B2 family imitating the ideal observer",
    f"{IDEAL}.ideal": "the ideal observer, same trials",
}
"""Each observer as a reader names it."""
UNITS = {
    "s1_contrast": "difference",
    "s2_waived_advantage": "difference",
    "pooled_difference": "difference",
    "reward": "number",
}
MEASURES = {"s1_contrast": "s1", "s2_waived_advantage": "s2", "p_sure_offered": "sure_option"}
TESTS = {"s1_contrast": "S1", "s2_waived_advantage": "S2"}
"""The registered tests (protocol 8.7), on the reward-trained networks' sampled choices."""
CEILING = Flag(
    kind="post_hoc", note="the architecture's ceiling: the network imitating the ideal observer"
)


def _observer_findings(observer: str, rows: Sequence[Mapping[str, Any]]) -> list[Finding]:
    registered = observer.endswith(".reward")
    base = observer.removesuffix(".greedy")
    words = OBSERVER_WORDS.get(base, base) + (", greedy choices" if observer != base else "")
    out = []
    for key in SUMMARY_VALUES:
        est = seed_estimate(r[key] for r in rows)
        test = TESTS.get(key) if registered else None
        finding = Finding(
            id=f"{STUDY_NAME}.{observer}.{key}",
            question=f"{QUESTIONS[key]} ({words})",
            **est,
            unit=UNITS.get(key, "percent"),
            measure=MEASURES.get(key, ""),
            verdict="new (no paper number)",
            verdict_rule="new",
            hypothesis=test,
            flags=(CEILING,) if ".imitation" in observer else (),
            study=STUDY_NAME,
            files=(SEEDS.file,),
            section="protocol sec. 8.7",
        )
        if test:
            finding = finding.model_copy(update={"outcome": OUTCOME[above_zero(finding)]})
        out.append(finding)
    return out


def _observers(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Rows by observer (``agent.training``, ``.greedy`` for a network's greedy choices): the
    sampled choices and the ideal observer first, then greedy ones."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for row in sorted(
        rows, key=lambda r: (r["policy"] == "greedy", r["agent"], r["training"], r["seed"])
    ):
        greedy = ".greedy" if row["policy"] == "greedy" else ""
        out.setdefault(f"{row['agent']}.{row['training']}{greedy}", []).append(row)
    return out


def signature_outcome(summary: StudySummary, observer: str) -> str | None:
    """The signatures ``observer`` (e.g. "plain_gru.reward") shows, from its S1 and S2 findings
    (None: the observer is not in the study)."""
    s1 = summary.finding(f"{STUDY_NAME}.{observer}.s1_contrast")
    s2 = summary.finding(f"{STUDY_NAME}.{observer}.s2_waived_advantage")
    if s1 is None or s2 is None:
        return None
    return signatures(above_zero(s1), above_zero(s2))


def registered_outcome(plain: str | None, b2: str | None) -> str:
    """Protocol 8.7's rewrite rule: "both" (both agents show both signatures), "plain_only",
    "not_reproduced" (the plain GRU shows neither), "partly" (one signature), "undecided"."""
    if plain == "both":
        return "both" if b2 == "both" else "plain_only"
    if plain == "neither":
        return "not_reproduced"
    return "partly" if plain in ("s1", "s2") else "undecided"


def summarise(config: Any, rows: Rows) -> StudySummary:
    """The reproduction's findings, answer and tables from ``pdw_seeds.csv``'s rows."""
    seeds = rows[SEEDS.name]
    findings = [
        f for obs, group in _observers(seeds).items() for f in _observer_findings(obs, group)
    ]
    summary = StudySummary(study=STUDY_NAME, findings=findings)
    said = {a: signature_outcome(summary, f"{a}.reward") for a in AGENTS}
    ceilings = {a: signature_outcome(summary, f"{a}.imitation") for a in AGENTS}
    networks = [
        {k: r[k] for k in ("agent", "training", "seed", *TRAINING_FIELDS)}
        for r in seeds
        if r["policy"] == "sampled" and r["updates"] is not None
    ]
    answer = Answer(
        outcome=registered_outcome(said["plain_gru"], said["b2_ws"]),
        findings=tuple(
            f"{STUDY_NAME}.{a}.reward.{k}"
            for a in AGENTS
            for k in ("s1_contrast", "s2_waived_advantage")
        ),
        params={"signatures": said, "ceilings": ceilings},
    )
    return summary.model_copy(
        update={
            "registered": "docs/protocol.md sec. 8.7 (2026-11-24)",
            "seeds": sorted({int(r["seed"]) for r in seeds}),
            "answer": answer,
            "tables": {"networks": networks, "coherences": list(COHERENCES)},
        }
    )


STUDY = Study(
    config=PDWConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    unit_of=unit_of,
)
