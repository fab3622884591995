"""Experiment 3: noise robustness, PCI-A and composite markers (paper sec. 5.3)."""

from __future__ import annotations

import numpy as np
import torch

import labcore.envs as E
from labcore.budgets import ReproduceConfig
from labcore.config import CHANCE_E1, KINDS_OF_EXPERIMENT, NOISE_MODES, Intervention
from labcore.experiments.common import SeedResult, l75_dict, provide_agents
from labcore.experiments.paper_results import point_rows
from labcore.markers import (
    delta_pci,
    hierarchical_regression,
    ignore_undefined,
    l75,
    type2_auroc,
    undefined_as_nan,
)
from labcore.measures import (
    evaluation_intervention,
    gbi_readings,
    noise_target,
    pci_values,
    titration,
)
from labcore.paper_claims import l75_key
from labcore.rollout import Trace, rollout
from labcore.seeding import episode_seeds

AGENTS = KINDS_OF_EXPERIMENT["e3"]
OVERFLOW_MASKS = 4
"""Exploratory OOD shift (post hoc): 4 masks, more than 4 slots can hold beside two cues."""


def report_auroc(trace: Trace) -> tuple[float, bool]:
    """Type-2 AUROC of confidence at report steps; (value, imputed)."""
    at = trace.report_mask
    conf = trace.confidence[at]
    if np.all(np.isnan(conf)):
        return CHANCE_E1, True  # no confidence head: the paper's convention (chance)
    correct = trace.agrees[at]
    value = undefined_as_nan(type2_auroc, correct, conf)
    if np.isnan(value):  # no wrong report, or no right one: the paper's imputation (sec. 5.1.2)
        return type2_auroc(correct, conf, undefined="chance"), True
    return value, False


def run_seed(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Experiment 3 for one agent seed: for every kind, accuracy and OOD gaps, GBI, AUROC, titration
    and L75, PCI-A.

    Returns the seed's values and L75 records keyed by claim id (``e3.*``), its ``e3_titration``
    rows and composite points; agents trained on demand are cached in ``cache_dir``.
    """
    torch.set_num_threads(1)
    result = SeedResult("e3", seed)
    v = result.values
    rows = []
    id_seeds = episode_seeds(seed, "eval", 4 * cfg.e3_episodes)
    noise_seeds = id_seeds[: cfg.e3_episodes]
    points = {}
    for kind, agent in provide_agents(
        result, "dual", AGENTS, seed, cache_dir, untrained=cfg.untrained
    ).items():
        fixed = Intervention(**evaluation_intervention(kind))
        idt = rollout(agent, E.DUAL_TASK, id_seeds, fixed)
        ood = rollout(agent, E.DUAL_TASK_OOD, id_seeds, fixed)
        acc_id, acc_ood = (
            float(idt.decision_accuracy().mean()),
            float(ood.decision_accuracy().mean()),
        )
        v[f"e3.accuracy.{kind}"] = acc_id
        v[f"e3.accuracy_ood.{kind}"] = acc_ood
        v[f"e3.ood_gap.{kind}"] = acc_id - acc_ood
        # Exploratory (post hoc): a second shift that exceeds the workspace's capacity.
        overflow = rollout(
            agent, E.DUAL_TASK, id_seeds, fixed, task_options={"mask_counts": (OVERFLOW_MASKS,)}
        )
        v[f"e3.ood_gap_overflow.{kind}"] = acc_id - float(overflow.decision_accuracy().mean())
        window = idt.slots[:, idt.report_steps()] if agent.config.workspace else None
        # The registered composite reads the signed GBI (0 without a bus, the paper's convention);
        # the claim value is undefined where signed couplings put it outside its range.
        gbi = gbi_abs = 0.0
        if window is not None:
            readings = gbi_readings(window)
            gbi, gbi_abs = readings["gbi_signed"], readings["gbi_abs"]
            v.update({f"e3.{k}.{kind}": readings[k] for k in ("gbi", "gbi_signed", "gbi_abs")})
        auroc, imputed = report_auroc(idt)
        v[f"e3.auroc.{kind}"] = auroc
        v[f"e3.auroc_imputed.{kind}"] = float(imputed)
        target = noise_target(agent)
        titrated = [(l75_key(kind, mode), mode, target) for mode in NOISE_MODES]
        if kind in ("b1", "b2", "b2_ws"):
            titrated.append((f"e3.l75_carrier.{kind}", "stored", "carrier"))
        for key, noise_mode, noise in titrated:
            accs = titration(
                agent,
                noise_seeds,
                cfg.sigmas,
                noise_mode=noise_mode,
                target=noise,
                fixed=evaluation_intervention(kind),
            )
            result.l75[key] = l75_dict(l75(cfg.sigmas, accs))
            cells = {"agent": kind, "noise_mode": noise_mode, "noise": noise, "seed": seed}
            rows += [
                {**cells, "sigma": s, "accuracy": a} for s, a in zip(cfg.sigmas, accs, strict=True)
            ]
        pci_by, correct = pci_values(
            agent,
            noise_seeds,
            ("zlib", "evoked"),
            pulse_step=cfg.pulse_step,
            pulse_sigma=cfg.pulse_sigma,
            fixed=fixed,
        )
        pci, evoked = pci_by["zlib"], pci_by["evoked"]
        v[f"e3.pci_a.{kind}"] = float(np.nanmean(pci)) if np.isfinite(pci).any() else float("nan")
        v[f"e3.pci_a_evoked.{kind}"] = (
            float(np.nanmean(evoked)) if np.isfinite(evoked).any() else float("nan")
        )
        # no correct or no wrong trial: undefined (nan), counted as 0 below
        with ignore_undefined():
            dpci = delta_pci(pci[correct & np.isfinite(pci)], pci[~correct & np.isfinite(pci)])
        v[f"e3.dpci.{kind}"] = dpci
        points[kind] = {
            "ood_gap": acc_id - acc_ood,
            "ood_gap_overflow": v[f"e3.ood_gap_overflow.{kind}"],
            "gbi": gbi,
            "gbi_abs": gbi_abs,
            "dpci": dpci,
            "auroc": auroc,
        }
    result.rows["e3_titration"] = rows
    result.figures = {"points": points}
    return result


def composite(points: list[dict], gap: str = "ood_gap", gbi: str = "gbi") -> dict[str, float]:
    """Hierarchical regression of an OOD gap on GBI, + dPCI, + Type-2 AUROC (sec. 5.3.2)."""
    y = np.array([p[gap] for p in points], float)
    x_gbi = np.nan_to_num(np.array([p[gbi] for p in points], float), nan=0.0)
    dpci = np.array([p["dpci"] for p in points], float)
    auroc = np.array([p["auroc"] for p in points], float)
    out = {"n_points": float(len(points)), "dpci_imputed": float(np.isnan(dpci).sum())}
    if len(points) < 5:
        return out
    with ignore_undefined():
        reg = hierarchical_regression(
            y, {"gbi": x_gbi, "dpci": np.nan_to_num(dpci, nan=0.0), "auroc": auroc}
        )
    s1, s2, s3 = reg.steps
    out.update(
        {
            "r2_gbi": s1.r2,
            "r_gbi": s1.r,
            "r2_gbi_dpci": s2.r2,
            "delta_r2_dpci": s2.delta_r2,
            "r_loo_gbi_dpci": s2.r_loo,
            "r2_full": s3.r2,
            "delta_r2_auroc": s3.delta_r2,
            "r_full": s3.r,
            "r_loo_full": s3.r_loo,
            "gap_sd": float(np.std(y)),
        }
    )
    return {k: float(v) for k, v in out.items()}


def cross_seed(results: list[SeedResult]) -> dict[str, float]:
    """The registered composite (OOD gap, paper's GBI) and two exploratory variants."""
    points = [p for r in results for p in point_rows(r.seed, r.figures.get("points", {}))]
    out = {f"e3.composite.{k}": v for k, v in composite(points).items()}
    for tag, gap, gbi in (
        ("abs", "ood_gap", "gbi_abs"),
        ("overflow", "ood_gap_overflow", "gbi_abs"),
    ):
        out.update(
            {f"e3.explore.composite_{tag}.{k}": v for k, v in composite(points, gap, gbi).items()}
        )
    return out
