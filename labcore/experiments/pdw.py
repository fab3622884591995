"""Song, Yang & Wang (2017) reproduced on NeuroGym's post-decision wager (protocol sec. 8.7).

Registered 2026-11-24 before any agent of it trained. Each seed trains Song et al.'s plain GRU
and our B2 family (``reward_all``) from NeuroGym's payoff alone under the Song setting
(:data:`labcore.training.neurogym_trainer.SONG_2017`, stopped by the registered behavioural
criterion, cap
12,000 updates), and, as post-hoc context (8.6's architecture ceiling), each network imitating
the ideal observer. Every network and the ideal observer act on the seed's 12,000 evaluation
trials; the signatures (:mod:`labcore.markers.sure_option`) are read from the policy's sampled
choices (greedy ones written beside), and the registered reading is S1 and S2 over seeds.

Run: ``python -m labcore explore pdw --out results/pdw --jobs 2`` (upper bound about 45 min on 2
cores: every network to its cap; the criterion usually stops it earlier). Resumable: each trained
network is cached under ``OUT/agents/<cell>-<agent>-<training>-seed<k>/`` (weights, its evaluation
trials, its record, written last), so a killed run continues with the networks not yet finished
and a finished one is never retrained; a cache made with another configuration stops the run with
one sentence. Files: :mod:`labcore.storage.results_pdw`.
"""

from __future__ import annotations

import functools
import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from safetensors.torch import save as safetensors_save

from labcore.agents.neurogym import NeuroGymTrials, draw_trials, ideal_actions, outcome_rows
from labcore.io import atomic_write, sha256_of, write_json
from labcore.markers import (
    accuracy_waived_vs_not_offered,
    ignore_undefined,
    p_sure_by_coherence,
    sure_contrast,
    waived_advantage,
)
from labcore.paper import NEW
from labcore.seeding import MEASURE_SAMPLING_SEED_BASE, episode_seeds
from labcore.stats import t_interval
from labcore.storage.results import MANIFEST, SCHEMA_VERSION, write_csv, write_result_json
from labcore.storage.results_pdw import (
    BY_COHERENCE,
    BY_COHERENCE_FIELDS,
    CURVE_FIELDS,
    CURVES,
    TRIALS,
    TRIALS_FIELDS,
    TRIALS_GREEDY,
)
from labcore.training.neurogym_trainer import (
    IMITATION_UPDATES,
    REGISTERED_8_6,
    SONG_2017,
    NeuroGymRLConfig,
    policy_actions,
    train_network,
)

TRAININGS = {"reward": "rl", "imitation": "imitation"}
"""The contract's ``training`` -> the trainer (``labcore.training.neurogym_trainer.TRAINERS``)."""
IDEAL = "ideal_observer"
"""The ideal observer's ``agent`` in the contract (its ``training`` is ``ideal``)."""
POLICIES = ("sampled", "greedy")
"""How a network's choices are read: the policy's samples (registered) or its argmax."""
SIGNATURE_KEYS = ("s1_contrast", "s2_waived_advantage")
Say = Callable[[str], None]


@dataclass(frozen=True)
class PDWConfig:
    """Seeds, agents and budgets of the reproduction (the registered values by default)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    agents: tuple[str, ...] = ("plain_gru", "b2_ws")
    rl: NeuroGymRLConfig = SONG_2017
    """The reward training (registered: the Song setting)."""
    imitation: NeuroGymRLConfig = field(
        default_factory=lambda: replace(REGISTERED_8_6, max_updates=IMITATION_UPDATES)
    )
    """The post-hoc imitation ceiling (8.6's: 800 updates of 256 trials)."""
    eval_trials: int = 12_000
    """Evaluation trials per seed (registered: 12,000)."""

    @classmethod
    def quick(cls) -> PDWConfig:
        """Two seeds, tiny budgets: a smoke test of the pipeline (its numbers mean nothing)."""
        return cls(
            seeds=(0, 1),
            eval_trials=300,
            rl=replace(
                SONG_2017,
                max_updates=6,
                eval_every=3,
                train_pool=300,
                heldout_trials=60,
                trials_per_update=16,
            ),
            imitation=replace(
                REGISTERED_8_6,
                max_updates=4,
                eval_every=2,
                train_pool=300,
                heldout_trials=60,
                trials_per_update=16,
            ),
        )


@dataclass(frozen=True)
class Unit:
    """One network to train and measure: what, from which seed, under which configuration."""

    agent: str
    training: str
    seed: int
    cfg: NeuroGymRLConfig
    eval_trials: int
    cell: str = "repro"

    @property
    def name(self) -> str:
        """Its cache folder's name (derived from the unit, never a timestamp)."""
        return f"{self.cell}-{self.agent}-{self.training}-seed{self.seed}"


@functools.lru_cache(maxsize=2)
def evaluation_trials(seed: int, n: int) -> NeuroGymTrials:
    """The seed's evaluation trials (its eval block), shared by every network and the ideal
    observer."""
    return draw_trials(int(episode_seeds(seed, "eval", 1)[0]), n)


def _rows(
    trials: NeuroGymTrials, actions: np.ndarray, agent: str, seed: int, training: str
) -> pd.DataFrame:
    frame = pd.DataFrame(outcome_rows(trials, actions))
    return pd.DataFrame(
        {
            "agent": agent,
            "seed": seed,
            "training": training,
            "coherence": frame["coherence"],
            "sure_offered": frame["sure_offered"].astype(int),
            "choice": frame["choice"],
            "correct": frame["correct"]
            .map(lambda c: None if c is None else int(c))
            .astype("Int64"),
            "reward": frame["reward"],
        }
    )


def _write_frame(path: Path, frame: pd.DataFrame) -> None:
    atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))


def run_unit(unit: Unit, out: Path) -> dict[str, Any]:
    """Train ``unit``'s network and measure it on its seed's evaluation trials, or read both back
    from its cache; returns ``{"record", "rows": {policy: DataFrame}}``."""
    folder = Path(out) / "agents" / unit.name
    record_path = folder / "record.json"
    wanted = {"train_config": asdict(unit.cfg), "eval_trials": unit.eval_trials}
    if record_path.exists():
        record = json.loads(record_path.read_text())
        if {k: record.get(k) for k in wanted} != json.loads(json.dumps(wanted)):
            raise ValueError(
                f"{folder} holds a network trained with another configuration; use a fresh --out "
                "(or delete that folder) to train this one."
            )
        return {
            "record": record,
            "rows": {
                p: pd.read_csv(folder / f"trials_{p}.csv", dtype={"correct": "Int64"})
                for p in POLICIES
            },
        }
    net, record = train_network(
        unit.seed, unit.cfg, trainer=TRAININGS[unit.training], agent=unit.agent
    )
    trials = evaluation_trials(unit.seed, unit.eval_trials)
    generator = torch.Generator().manual_seed(MEASURE_SAMPLING_SEED_BASE + unit.seed)
    actions = policy_actions(net, trials, generator)
    rows = {p: _rows(trials, actions[p], unit.agent, unit.seed, unit.training) for p in POLICIES}
    folder.mkdir(parents=True, exist_ok=True)
    for policy, frame in rows.items():
        _write_frame(folder / f"trials_{policy}.csv", frame)
    tensors = {k: v.detach().contiguous().clone() for k, v in net.state_dict().items()}
    blob = safetensors_save(
        tensors, metadata={"agent": unit.agent, "training": unit.training, "seed": str(unit.seed)}
    )
    atomic_write(folder / "weights.safetensors", lambda tmp: tmp.write_bytes(blob))
    record.update(wanted, cell=unit.cell, training=unit.training)
    write_json(record_path, record)  # last: its presence means the unit is done
    return {"record": json.loads(json.dumps(record, default=str)), "rows": rows}


def run_units(
    units: Sequence[Unit], out: Path, workers: int = 1, say: Say | None = None
) -> list[dict[str, Any]]:
    """:func:`run_unit` for every unit, in ``workers`` processes (1 torch thread each), in order."""

    def told(unit: Unit, result: dict[str, Any]) -> dict[str, Any]:
        if say is not None:
            say(unit_line(unit, result))
        return result

    if workers <= 1:
        return [told(u, run_unit(u, out)) for u in units]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_unit, u, out) for u in units]
        return [told(u, f.result()) for u, f in zip(units, futures, strict=True)]


def unit_line(unit: Unit, result: dict[str, Any]) -> str:
    """One line on a finished unit: how it stopped and its registered numbers (sampled)."""
    record = result["record"]
    values = signature_values(result["rows"]["sampled"])
    return (
        f"{unit.name}: {record['updates']} updates ({record['stopped']}, "
        f"{record['wall_seconds']:.0f} s); "
        f"P(sure | offered) {values['p_sure_offered']:.3f}, S1 {values['s1_contrast']:+.3f}, "
        f"S2 {values['s2_waived_advantage']:+.3f}"
    )


# ----------------------------------------------------------------------- measures
def _columns(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    correct = [None if pd.isna(c) else int(c) for c in frame["correct"]]
    return (
        frame["coherence"].to_numpy(float),
        frame["sure_offered"].to_numpy(int),
        frame["choice"].to_numpy(str),
        correct,
    )


def coherence_levels(frame: pd.DataFrame) -> list[float]:
    """The coherence levels of NeuroGym's task (those present in ``frame``, ascending)."""
    return sorted(float(c) for c in pd.unique(frame["coherence"]))


def signature_values(
    frame: pd.DataFrame, levels: Sequence[float] | None = None
) -> dict[str, float]:
    """Every number of one observer on one seed's trials (one row per trial, the contract's
    columns): S1, S2, the pooled accuracies, P(sure | offered), accuracy, answered, reward and the
    per-coherence values. Undefined values are nan (the markers' warnings are silenced here: the
    summary counts the seeds each value is defined on)."""
    coh, offered, choice, correct = _columns(frame)
    levels = list(levels) if levels is not None else coherence_levels(frame)
    with ignore_undefined():
        table = p_sure_by_coherence(coh, offered, choice, levels=levels)
        waived = accuracy_waived_vs_not_offered(coh, offered, choice, correct, levels=levels)
        values = {
            "s1_contrast": sure_contrast(table),
            "s2_waived_advantage": waived_advantage(waived),
        }
    side = np.isin(choice, ("left", "right"))
    sure_offered = (choice == "sure") & (offered == 1)
    values.update(
        {
            "p_sure_offered": float(sure_offered.sum() / max(offered.sum(), 1))
            if offered.any()
            else math.nan,
            "accuracy": float(np.mean([correct[i] for i in np.flatnonzero(side)]))
            if side.any()
            else math.nan,
            "answered": float((side | sure_offered).mean()),
            "reward": float(frame["reward"].mean()) if "reward" in frame else math.nan,
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
    frame: pd.DataFrame, agent: str, training: str, seed: int, policy: str, levels: Sequence[float]
) -> list[dict[str, Any]]:
    """``pdw_by_coherence.csv`` rows of one observer, seed and policy."""
    coh, offered, choice, correct = _columns(frame)
    with ignore_undefined():
        table = p_sure_by_coherence(coh, offered, choice, levels=levels)
        waived = accuracy_waived_vs_not_offered(coh, offered, choice, correct, levels=levels)
    return [
        {
            "agent": agent,
            "training": training,
            "seed": seed,
            "policy": policy,
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


def _counts_frame(counts: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(counts)
    frame = frame.loc[frame.index.repeat(frame["n"])].drop(columns="n")
    return frame.reset_index(drop=True)


def curve_rows(record: dict[str, Any], cell: str, levels: Sequence[float]) -> list[dict[str, Any]]:
    """``pdw_curves.csv`` rows of one trained network: each check (sampled and greedy) and the
    early probes."""
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
            values = signature_values(_counts_frame(h[f"{policy}_counts"]), levels)
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


# ----------------------------------------------------------------------- the reading
def interval(values: Sequence[float]) -> dict[str, Any]:
    """Mean, SD, n and 95% t interval of the finite per-seed values (None where undefined)."""
    xs = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = t_interval(xs) if xs.size >= 2 else (math.nan, math.nan)
    return {
        "mean": float(xs.mean()) if xs.size else None,
        "sd": float(xs.std(ddof=1)) if xs.size >= 2 else None,
        "n": int(xs.size),
        "ci95": [low, high] if math.isfinite(low) and math.isfinite(high) else None,
        "interval": "t",
    }


def above_zero(summary: dict[str, Any]) -> bool | None:
    """The registered test: the 95% t interval lies above 0 (None: undefined, fewer than 2
    seeds)."""
    return None if summary["ci95"] is None else bool(summary["ci95"][0] > 0)


def reading(per_seed: dict[str, dict[int, dict[str, float]]], observer: str) -> dict[str, Any]:
    """S1 and S2 of one observer over its seeds, and whether the signatures appear (protocol
    8.7)."""
    seeds = per_seed.get(observer, {})
    s1 = interval([v["s1_contrast"] for v in seeds.values()])
    s2 = interval([v["s2_waived_advantage"] for v in seeds.values()])
    tests = [above_zero(s1), above_zero(s2)]
    appear = None if None in tests else all(tests)
    return {
        "s1": {**s1, "above_zero": tests[0]},
        "s2": {**s2, "above_zero": tests[1]},
        "signatures_appear": appear,
        "n_seeds": len(seeds),
    }


CLAIM_TEXT = {
    "s1_contrast": ("S1: P(sure | offered) at 0 and 3.2% coherence minus at 25.6 and 51.2%", "S1"),
    "s2_waived_advantage": (
        "S2: accuracy on waived minus not-offered trials, mean over 3.2, 6.4, 12.8%",
        "S2",
    ),
    "pooled_difference": (
        "accuracy on waived minus not-offered trials, pooled over coherences (confounded by "
        "the coherence mix of waived trials)",
        None,
    ),
    "p_sure_offered": ("P(sure | offered), all coherences", None),
}


def claims_of(
    per_seed: dict[str, dict[int, dict[str, float]]], readings: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The summary's claims: each observer's S1, S2 and descriptive values, verdict "new (no paper
    number)"."""
    claims = []
    for observer, seeds in per_seed.items():
        registered = observer.endswith(".reward")
        for key, (text, test) in CLAIM_TEXT.items():
            ours = interval([v[key] for v in seeds.values()])
            if test and registered:
                outcome = readings[observer][test.lower()]["above_zero"]
                said = {
                    True: "above 0",
                    False: "not above 0",
                    None: "undefined (fewer than 2 seeds)",
                }[outcome]
                reason = (
                    f"Registered test {test} of docs/protocol.md sec. 8.7: its 95% t "
                    f"interval over seeds is {said}."
                )
            elif observer.endswith(".ideal"):
                reason = "The ideal observer on the same trials (the ceiling; not tested)."
            else:
                reason = (
                    "Post hoc context (the architecture ceiling of 8.6), not tested."
                    if "imitation" in observer
                    else "Descriptive (docs/protocol.md sec. 8.7), not tested."
                )
            claims.append(
                {
                    "id": f"pdw.{observer}.{key}",
                    "description": f"{observer}: {text}",
                    "paper": None,
                    "ours": ours,
                    "verdict": NEW,
                    "reason": reason,
                }
            )
    return claims


def answer_text(readings: dict[str, dict[str, Any]], agents: Sequence[str]) -> str:
    """The registered reading in one sentence per agent (the README's answer is rewritten from it
    later)."""
    parts = []
    for agent in agents:
        r = readings.get(f"{agent}.reward")
        if r is None:
            continue
        verdict = {
            True: "both signatures appear",
            False: "the signatures do not both appear",
            None: "not decided (fewer than 2 seeds)",
        }[r["signatures_appear"]]

        def num(s: dict[str, Any]) -> str:
            ci = s["ci95"]
            return (
                "undefined"
                if s["mean"] is None
                else (
                    f"{s['mean']:+.3f}"
                    + ("" if ci is None else f" (95% t interval {ci[0]:+.3f} to {ci[1]:+.3f})")
                )
            )

        parts.append(
            f"{agent} trained from reward (Song setting, n = {r['n_seeds']}): {verdict}; "
            f"S1 {num(r['s1'])}, S2 {num(r['s2'])}."
        )
    return " ".join(parts)


# ----------------------------------------------------------------------- the run
def units_of(cfg: PDWConfig) -> list[Unit]:
    """Every network of the reproduction, the longest first (B2 from reward), for load balance."""
    order = [
        ("reward", "b2_ws"),
        ("reward", "plain_gru"),
        ("imitation", "b2_ws"),
        ("imitation", "plain_gru"),
    ]
    return [
        Unit(
            agent,
            training,
            seed,
            cfg.rl if training == "reward" else cfg.imitation,
            cfg.eval_trials,
        )
        for training, agent in order
        if agent in cfg.agents
        for seed in cfg.seeds
    ]


def write_manifest_summary(
    out: Path, summary: dict[str, Any], files: Sequence[str]
) -> dict[str, Any]:
    """Add the manifest (each data file's SHA-256) and write ``summary.json`` last."""
    summary[MANIFEST] = {name: sha256_of(out / name) for name in files}
    write_result_json(out / "summary.json", summary, indent=1)
    return summary


def run(
    out: Path | str, cfg: PDWConfig | None = None, workers: int = 1, say: Say | None = None
) -> dict[str, Any]:
    """Run (or resume) the reproduction into ``out`` and write the contract's files; returns the
    summary."""
    cfg = cfg or PDWConfig()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    units = units_of(cfg)
    results = run_units(units, out, workers, say)
    frames = {p: [r["rows"][p] for r in results] for p in POLICIES}
    ideal = []
    for seed in cfg.seeds:
        trials = evaluation_trials(seed, cfg.eval_trials)
        ideal.append(_rows(trials, ideal_actions(trials)[0], IDEAL, seed, "ideal"))
    levels = sorted(float(c) for c in evaluation_trials(cfg.seeds[0], cfg.eval_trials).cohs)
    sampled = pd.concat([*frames["sampled"], *ideal], ignore_index=True)
    greedy = pd.concat([*frames["greedy"], *ideal], ignore_index=True)
    _write_frame(out / TRIALS, sampled[list(TRIALS_FIELDS)])
    _write_frame(out / TRIALS_GREEDY, greedy[list(TRIALS_FIELDS)])
    per_seed: dict[str, dict[int, dict[str, float]]] = {}
    table: list[dict[str, Any]] = []
    for policy, frame in (("sampled", sampled), ("greedy", greedy)):
        for (agent, training, seed), group in frame.groupby(
            ["agent", "training", "seed"], sort=True
        ):
            if policy == "greedy" and training == "ideal":
                continue
            key = f"{agent}.{training}" + ("" if policy == "sampled" else ".greedy")
            per_seed.setdefault(key, {})[int(seed)] = signature_values(group, levels)
            table += by_coherence_rows(
                group,
                agent,
                training,
                int(seed),
                policy if training != "ideal" else "ideal",
                levels,
            )
    write_csv(out / BY_COHERENCE, BY_COHERENCE_FIELDS, table)
    curves = [row for r in results for row in curve_rows(r["record"], "repro", levels)]
    write_csv(out / CURVES, CURVE_FIELDS, curves)
    readings = {key: reading(per_seed, key) for key in per_seed}
    claims = claims_of(per_seed, readings)
    summary = {
        "schema_version": SCHEMA_VERSION,
        "study": "pdw",
        "experiments": [],
        "seeds": list(cfg.seeds),
        "protocol": "docs/protocol.md sec. 8.7 (registered 2026-11-24)",
        "config": asdict(cfg),
        "claims": claims,
        "values": {c["id"]: c["ours"]["mean"] for c in claims if c["ours"]["mean"] is not None},
        "reading": readings,
        "answer": answer_text(readings, cfg.agents),
        "per_seed": {k: {str(s): v for s, v in seeds.items()} for k, seeds in per_seed.items()},
        "training": {
            r["record"]["agent"] + "." + r["record"]["training"] + f".seed{r['record']['seed']}": {
                "updates": r["record"]["updates"],
                "stopped": r["record"]["stopped"],
                "wall_seconds": r["record"]["wall_seconds"],
            }
            for r in results
        },
        "wall_seconds": round(time.perf_counter() - start, 1),
        "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    return write_manifest_summary(out, summary, (TRIALS, TRIALS_GREEDY, BY_COHERENCE, CURVES))
