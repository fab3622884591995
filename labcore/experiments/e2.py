"""Experiment 2 (GWT): workspace capacity and information access (paper sec. 5.2)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Agent
from labcore.agents.parts import slot_sources
from labcore.budgets import ReproduceConfig
from labcore.config import (
    AGENT_KINDS,
    KINDS_OF_EXPERIMENT,
    N_CUE_VALUES,
    DualTaskConfig,
    Intervention,
)
from labcore.envs.batch import oracle_demonstrations
from labcore.envs.channels import EVENT_INDEX
from labcore.experiments.common import SeedResult, provide_agents
from labcore.interventions import CAPACITY_SCALES
from labcore.markers import delta_nrs, ignore_undefined, undefined_as_nan
from labcore.measures import masking_traces, workspace
from labcore.rollout import Trace, rollout
from labcore.seeding import CLOSED_FORM_SEED_BASE, episode_seeds
from labcore.stats import hedges_g, permutation_test, welch_t

CAPACITY_SLOTS = (4, 2, 0)
"""The three capacities of the primary behavioural analyses (Fig. 2a)."""
DNRS_SPLITS = 5
"""Stratified folds of the dNRS decoder (the marker's default)."""


def run_seed(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Experiment 2 for one agent seed: the capacity sweep, broadcast markers, dNRS, masking, bus
    audit.

    Returns the seed's values keyed by claim id (``e2.*``), its ``e2_capacity`` rows and figure
    arrays; agents trained on demand are cached in ``cache_dir``.
    """
    torch.set_num_threads(1)
    result = SeedResult("e2", seed)
    agents = provide_agents(
        result, "dual", ("b1", "a0", "a1"), seed, cache_dir, untrained=cfg.untrained
    )
    n_eval = cfg.e2_episodes
    seeds = episode_seeds(seed, "eval", max(n_eval, cfg.decoding_episodes))
    v = result.values
    rows = []
    for kind in ("a0", "a1"):
        if kind in agents:
            means = workspace(agents[kind], Intervention(), seeds[:n_eval]).means
            v.update({f"e2.{name}.{kind}": value for name, value in means.items()})
            rows.append({"agent": kind, "seed": seed, "capacity": None, "scale": None, **means})
    if "b1" not in agents:
        result.rows["e2_capacity"] = rows
        return result
    b1 = agents["b1"]
    figures = {"slots_mean_norm": {}}
    for scale in CAPACITY_SCALES:
        iv = Intervention(capacity_scale=scale)
        suffix = f"{scale:g}"  # of the dNRS claim ids: 0.5 -> "0.5", 1.0 -> "1"
        slots_k = iv.active_slots(b1.config.n_slots)
        view = workspace(b1, iv, seeds)
        acc = {
            name: float(getattr(view, name)[:n_eval].mean())
            for name in ("per_step", "decision", "conjunction")
        }
        rows.append({"agent": "b1", "seed": seed, "capacity": slots_k, "scale": scale, **acc})
        markers = {"gbi": view.gbi, "gbi_signed": view.gbi_signed, "gbi_abs": view.gbi_abs}
        markers |= {"gbi_two": view.two_occupied, "ignition": view.ignition}
        v.update({f"e2.{name}.k{slots_k}": value for name, value in (acc | markers).items()})
        tr = view.trace
        figures["slots_mean_norm"][str(slots_k)] = (
            np.sqrt((tr.slots**2).mean(axis=(2, 3))).mean(0).round(5).tolist()
        )
        blocked = tr.report_steps()[0] - 1  # the last blocked-report step
        features = np.concatenate(
            [tr.slots[:, blocked].reshape(len(seeds), -1), tr.h[:, blocked]], axis=1
        )
        for label_name, cue in (
            ("dnrs", tr.labels["primary"]),
            ("dnrs_secondary", tr.labels["secondary"]),
        ):
            v[f"e2.{label_name}.scale_{suffix}"] = dnrs(features, cue >= 4, seed)
        v.update(empty_bus_checks(b1, iv, seeds, tr, suffix))
    result.rows["e2_capacity"] = rows

    # Backward masking: cue-signal traces per capacity (Fig. 2c).
    traces = masking_traces(b1, seeds[:n_eval], cfg.masking_soa, cfg.masking_count, CAPACITY_SLOTS)
    figures["masking"] = {
        "soa": cfg.masking_soa,
        "count": cfg.masking_count,
        "interval": 1,
        "traces": {k: np.round(x, 5).tolist() for k, x in traces.items()},
    }
    v["e2.masking.entry"] = float(traces["4"][0])

    # Bus audit (T1 Jacobian, T3 trunk isolation) on the intact agent.
    intact = rollout(b1, E.DUAL_TASK, seeds[:n_eval])
    v.update(bus_audit(b1, intact))
    result.figures = figures
    return result


def empty_bus_checks(
    agent: Agent, iv: Intervention, seeds: np.ndarray, trace: Trace, scale: str
) -> dict[str, float]:
    """The records the empty-bus rule reads (``labcore.experiments.construction``)."""
    empty = bool(not np.any(trace.slots))
    out = {f"e2.check.bus_empty.{scale}": float(empty)}
    if empty:
        same = all(
            np.array_equal(
                rollout(
                    agent,
                    E.DUAL_TASK,
                    seeds,
                    iv,
                    trial_overrides={"primary": value, "secondary": value},
                ).h,
                trace.h,
            )
            for value in (0, N_CUE_VALUES - 1)
        )
        out[f"e2.check.trunk_cue_free.{scale}"] = float(same)
    return out


def dnrs(features: np.ndarray, labels: np.ndarray, seed: int) -> float:
    """dNRS of binary ``labels`` decoded from ``features`` (nan when a class is too small)."""
    if min(labels.sum(), (~labels).sum()) < DNRS_SPLITS:
        return float("nan")
    return undefined_as_nan(
        lambda: delta_nrs(features, labels, n_splits=DNRS_SPLITS, seed=seed).delta
    )


def bus_audit(agent: Agent, trace: Trace) -> dict[str, float]:
    """The bus audit of paper sec. 5.2.2 on a trained workspace agent's intact rollouts.

    Parameters
    ----------
    agent : Agent
        A dual-task agent with a workspace (not modified).
    trace : Trace
        Its intact dual-task rollouts; the audit reads their report steps.

    Returns
    -------
    dict
        ``"e2.audit.jacobian"`` (T1): the median Frobenius norm of d(report logits) /
        d(workspace read) over the report steps; ``"e2.audit.trunk_flips"`` (T3): the
        fraction of report decisions that change when the carrier is replaced by another
        episode's carrier at the same report step, the workspace kept.
    """
    b, t = np.nonzero(trace.report_mask)
    h = torch.as_tensor(trace.h[b, t])
    slots = torch.as_tensor(trace.slots[b, t]).requires_grad_(True)
    occupied = torch.as_tensor(trace.occupied[b, t])
    logits = agent.readout(h, slots, occupied).logits
    rows = []
    for a in range(logits.shape[1]):
        (grad,) = torch.autograd.grad(logits[:, a].sum(), slots, retain_graph=True)
        rows.append(grad.reshape(len(b), -1))
    jac = torch.stack(rows, 1)  # (n, 7, K*D): each report's own Jacobian (readout is per step)
    norms = jac.flatten(1).norm(dim=1)
    with torch.no_grad():
        decision = logits.argmax(1)
        # Another episode's carrier at the same report step (same flag), this episode's workspace.
        swapped_h = h.clone()
        for step in np.unique(t):
            rows_at = torch.as_tensor(np.flatnonzero(t == step))
            swapped_h[rows_at] = h[rows_at.roll(1)]
        isolated = agent.readout(swapped_h, slots.detach(), occupied).logits.argmax(1)
    return {
        "e2.audit.jacobian": float(norms.median()),
        "e2.audit.trunk_flips": float((isolated != decision).float().mean()),
    }


def ideal_on_episodes(
    seeds: np.ndarray, active: int, n_slots: int = 4
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """What an ideal agent under the allocation rule scores on these episodes (protocol sec. 2.4,
    10.1): per episode, the expected score and its variance.

    Parameters
    ----------
    seeds : int array (E,)
        The evaluation episodes' seeds.
    active : int
        Usable slots (0 is bus-off).
    n_slots : int
        K.

    Returns
    -------
    dict
        ``{"per_step" | "decision" | "conjunction": (mean (E,), variance (E,))}``.

    Examples
    --------
    >>> out = ideal_on_episodes(np.arange(50) + 7, active=4)
    >>> float(out["conjunction"][0].mean()), float(out["conjunction"][1].max())
    (1.0, 0.0)
    """
    demos = oracle_demonstrations(E.DUAL_TASK, np.asarray(seeds))
    events = torch.as_tensor(demos.cue[..., EVENT_INDEX] > 0)
    config = DualTaskConfig()
    colour, obj = config.secondary_cue_step, config.primary_cue_step
    first, last = config.report_secondary_step, config.report_primary_step
    guess = 1.0 / N_CUE_VALUES
    source = slot_sources(events, active, n_slots).numpy()
    colour_kept = (source == colour).any(-1)  # (E, T)
    object_kept = (source == obj).any(-1)
    kept = np.concatenate([colour_kept[:, :last], object_kept[:, last:]], axis=1)
    steps = kept.shape[1]
    per_step = (kept + (~kept) * guess).mean(1)
    # a held guess per lost cue: the lost steps of each cue move together
    lost_colour = (~kept[:, :last]).sum(1) / steps
    lost_object = (~kept[:, last:]).sum(1) / steps
    per_step_var = (lost_colour**2 + lost_object**2) * guess * (1 - guess)
    p1 = np.where(colour_kept[:, first], 1.0, guess)
    p2 = np.where(object_kept[:, last], 1.0, guess)
    return {
        "per_step": (per_step, per_step_var),
        "decision": ((p1 + p2) / 2, (p1 * (1 - p1) + p2 * (1 - p2)) / 4),
        "conjunction": (p1 * p2, p1 * p2 * (1 - p1 * p2)),
    }


@functools.lru_cache(maxsize=4)
def allocation_closed_form(n_slots: int = 4, episodes: int = 20_000) -> dict[int, dict[str, float]]:
    """What an ideal agent scores with each number of active slots, in expectation over the
    task's distribution (protocol sec. 2.4; ``episodes`` trials from
    :data:`~labcore.seeding.CLOSED_FORM_SEED_BASE`): e.g. with 2 slots conjunction = 1/3 + (2/3)
    (1/7) = 0.4286. A sample of episodes can exceed it by chance: a claim is compared with the
    ideal agent on its own episodes (:func:`ideal_on_episodes`, protocol sec. 10.1).

    Returns
    -------
    dict
        ``{active slots: {"per_step", "decision", "conjunction"}}`` for 0..n_slots.
    """
    seeds = np.arange(episodes) + CLOSED_FORM_SEED_BASE
    return {
        active: {
            name: float(mean.mean())
            for name, (mean, _) in ideal_on_episodes(seeds, active, n_slots).items()
        }
        for active in range(n_slots + 1)
    }


def ideal_values(
    agent_seeds: Sequence[int], cfg: ReproduceConfig, n_slots: int = 4
) -> dict[str, tuple[float, float]]:
    """The ideal agent on each seed's own evaluation episodes, over seeds, keyed like our claims:
    ``{key: (mean of the seed means, variance of that mean)}`` for every E2 accuracy at every
    tested capacity (``e2.<metric>.k<slots>``), the cue-blind baselines (``.a0``, ``.a1``: no cue
    reaches them under strong-lesion routing, like bus-off), and every E3 kind's decision accuracy
    (``e3.accuracy.<kind>``): at full capacity for a kind the cues reach (through the workspace or,
    for HOT-only, the trunk), nothing lost; at 0 slots for a cue-blind one. The ceiling rule
    (protocol sec. 10.1 and 10.7, :mod:`labcore.experiments.construction`) compares our seed means
    with it."""
    per_key: dict[str, list[tuple[float, float]]] = {}
    for seed in agent_seeds:
        e2_eps = episode_seeds(seed, "eval", max(cfg.e2_episodes, cfg.decoding_episodes))
        e2_eps = e2_eps[: cfg.e2_episodes]
        for active in sorted({0, *CAPACITY_SLOTS}):
            for name, (mean, var) in ideal_on_episodes(e2_eps, active, n_slots).items():
                entry = (float(mean.mean()), float(var.sum() / mean.size**2))
                tags = [f"k{active}"] + (["a0", "a1"] if active == 0 else [])
                for tag in tags:
                    per_key.setdefault(f"e2.{name}.{tag}", []).append(entry)
        e3_eps = episode_seeds(seed, "eval", 4 * cfg.e3_episodes)
        for active in (0, n_slots):
            mean, var = ideal_on_episodes(e3_eps, active, n_slots)["decision"]
            entry = (float(mean.mean()), float(var.sum() / mean.size**2))
            for kind in KINDS_OF_EXPERIMENT["e3"]:
                if (AGENT_KINDS[kind].cue_route == "none") == (active == 0):
                    per_key.setdefault(f"e3.accuracy.{kind}", []).append(entry)
    return {
        key: (
            float(np.mean([m for m, _ in entries])),
            float(np.sum([v for _, v in entries]) / len(entries) ** 2),
        )
        for key, entries in per_key.items()
    }


PAIRS = {
    "k4_vs_k2": ("e2.conjunction.k4", "e2.conjunction.k2"),
    "b1_vs_a0": ("e2.per_step.k4", "e2.per_step.a0"),
    "b1_vs_a1": ("e2.per_step.k4", "e2.per_step.a1"),
}
"""The seed-level tests of paper sec. 5.2.2: each pair of claims compared."""
TESTS = ("welch_t", "welch_p", "hedges_g", "permutation_p")


def contrast_arms() -> dict[str, tuple[str, str]]:
    """``{test key: (arm a, arm b)}`` of every seed-level test (the construction audit's contrast
    rule: a test of two values both fixed by the design is fixed too)."""
    return {f"e2.{test}.{name}": arms for name, arms in PAIRS.items() for test in TESTS}


def cross_seed(results: list[SeedResult]) -> dict[str, float]:
    """Seed-level tests of paper sec. 5.2.2 (seed is the unit of analysis)."""

    def seeds_of(key: str) -> np.ndarray:
        return np.array(
            [r.values[key] for r in results if key in r.values and np.isfinite(r.values[key])]
        )

    out: dict[str, float] = {}
    for name, (a, b) in PAIRS.items():
        x, y = seeds_of(a), seeds_of(b)
        if len(x) >= 2 and len(y) >= 2:  # each test needs two seeds per group
            with ignore_undefined():
                w = welch_t(x, y)
                out[f"e2.welch_t.{name}"] = w.t
                out[f"e2.welch_p.{name}"] = w.p_value
                out[f"e2.hedges_g.{name}"] = float(hedges_g(x, y))
                out[f"e2.permutation_p.{name}"] = permutation_test(x, y, seed=0).p_value
    return out
