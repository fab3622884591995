"""Cached access to agents and results for the pages.

Models are loaded once per process (``st.cache_resource``) and never mutated: lesions are
run-time interventions. Results are cached per (checkpoint, intervention) with
``st.cache_data``, so moving a control back to a previous value is instant.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

import labcore.envs as E
import labcore.results as results_module
from labcore import measures
from labcore import results as result_set
from labcore.agents import Agent
from labcore.checkpoints import (
    BUNDLED_DIR,
    CheckpointError,
    checkpoint_name,
    load_checkpoint,
    read_manifest,
)
from labcore.config import AGENT_DESCRIPTIONS, Intervention
from labcore.interventions import capacity_scale
from labcore.seeding import episode_seeds

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results" / "bundled"
FILES = {result_set.SUMMARY, result_set.GAIN, *result_set.DATA_FILES}
"""Files of a result set whose problems name them first (shown with their directory)."""
E1_TRIALS = 300
DUAL_EPISODES = 64


def label(kind: str) -> str:
    """Plain-language name of an agent kind."""
    return AGENT_DESCRIPTIONS.get(kind, kind)


@st.cache_data(ttl=10, show_spinner=False)
def manifest() -> dict:
    """The checkpoint manifest (bundled agents and any trained in the app); empty, with one
    sentence on the page, when the manifest cannot be read."""
    try:
        return read_manifest(BUNDLED_DIR)["checkpoints"]
    except CheckpointError as exc:
        st.error(f"{exc} The bundled agents are unavailable until it is restored "
                 "(`git checkout checkpoints/manifest.json`).")
        return {}


def seeds_by_kind(task: str) -> dict[str, list[int]]:
    """Available (not excluded) seeds of every agent kind trained on ``task``."""
    out: dict[str, list[int]] = {}
    for entry in manifest().values():
        if entry["task"] == task and entry["mode"] == "fast" and not entry["excluded"]:
            out.setdefault(entry["kind"], []).append(int(entry["seed"]))
    return {k: sorted(v) for k, v in sorted(out.items())}


@st.cache_resource(show_spinner=False, max_entries=96)
def agent(task: str, kind: str, seed: int) -> Agent:
    """A loaded, frozen agent (shared by every session)."""
    return load_checkpoint(BUNDLED_DIR / f"{checkpoint_name(task, kind, seed)}.safetensors").agent


@st.cache_data(show_spinner=False, max_entries=256)
def metacognition(kind: str, seed: int, self_model_mode: str, capacity: int, noise: float) -> measures.MetacognitionView:
    """E1 markers of one wagering agent with ``capacity`` active slots (see measures.metacognition)."""
    model = agent("wagering", kind, seed)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, seed=seed)
    return measures.metacognition(model, iv, episode_seeds(seed, "eval", E1_TRIALS))


@st.cache_data(show_spinner=False, max_entries=256)
def workspace(kind: str, seed: int, capacity: int, noise: float, noise_mode: str,
              self_model_mode: str = "on") -> measures.WorkspaceView:
    """E2 accuracies and broadcast markers of one dual-task agent (see measures.workspace)."""
    model = agent("dual", kind, seed)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, noise_mode=noise_mode, seed=seed)
    return measures.workspace(model, iv, episode_seeds(seed, "eval", DUAL_EPISODES))


@st.cache_data(show_spinner=False, max_entries=128)
def masking(kind: str, seed: int, soa: int, count: int) -> dict[str, list[float]]:
    """Colour-retention traces of one agent (see measures.masking_traces), cached."""
    return measures.masking_traces(agent("dual", kind, seed), episode_seeds(seed, "eval", 32), soa, count)


@st.cache_data(show_spinner=False, max_entries=256)
def noisy_accuracy(kind: str, seed: int, sigma: float, noise_mode: str, target: str) -> float:
    """Decision accuracy of one agent at noise ``sigma`` (one point of measures.titration), cached."""
    return measures.titration(agent("dual", kind, seed), episode_seeds(seed, "eval", 50), [sigma],
                              noise_mode=noise_mode, target=target, fixed=measures.evaluation_intervention(kind),
                              noise_seeds=[seed])[0]


@st.cache_data(show_spinner=False, max_entries=64)
def pci(kind: str, seed: int, normalisation: str) -> tuple[float, float]:
    """Mean perturbational complexity and dPCI of one agent (see labcore.measures.pci_values)."""
    from labcore.markers import delta_pci, undefined_as_nan

    fixed = Intervention(**measures.evaluation_intervention(kind))
    by, correct = measures.pci_values(agent("dual", kind, seed), episode_seeds(seed, "eval", 32), (normalisation,),
                                   fixed=fixed)
    values = by[normalisation]
    ok = pd.notna(values)
    return float(values[ok].mean()), undefined_as_nan(delta_pci, values[ok & correct], values[ok & ~correct])


@st.cache_data(show_spinner=False, max_entries=64)
def theatre(task_id: str, kind: str, seed: int, episode: int, self_model_mode: str, capacity: int, noise: float,
            noise_mode: str, soa: int | None = None, count: int | None = None) -> measures.TheatreEpisode:
    """One episode for the rollout theatre (see measures.theatre)."""
    task = "wagering" if task_id == E.WAGERING else "dual"
    model = agent(task, kind, seed)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, noise_mode=noise_mode, seed=seed)
    options = {"mask_soa": soa, "mask_count": count} if soa is not None else None
    episode_seed = int(episode_seeds(seed, "eval", 1000)[episode])
    return measures.theatre(model, task_id, episode_seed, iv, task_options=options)


@st.cache_data(show_spinner=False, ttl=60)
def results(directory: str) -> result_set.Results:
    """A result set written by ``python -m labcore reproduce`` (summary, tables, figure data),
    validated by :func:`labcore.results.load_results`; pages read it through :func:`checked_results`."""
    return result_set.load_results(directory)


def checked_results(directory: str | Path | None = None) -> result_set.Results:
    """The result set a page shows (default: the bundled one), read through one guarded path.

    When anything in it is missing, malformed or mixed, one ``st.error`` names the directory
    and what to do, and lists :attr:`~labcore.results.Results.problems` (each names its file).
    The bad parts are empty in the returned set, so the rest of the page keeps working.
    """
    path = Path(directory) if directory else RESULTS_DIR  # read at call time: tests point it elsewhere
    try:
        res = results(str(path))
    except FileNotFoundError:
        res = result_set.Results(path, problems=[f"{path} is not a directory"])
    if res.problems:
        try:
            shown = path.resolve().relative_to(ROOT)
        except ValueError:
            shown = path
        restore = f" or restore the shipped copy with `git checkout {shown}`" if shown.parts[:1] == ("results",) else ""
        experiment, n_seeds = res.summary.get("experiment") or "all", len(res.summary.get("seeds") or []) or 5
        st.error(f"The result set `{shown}` cannot be fully used, so parts of this page are left out: re-run "
                 f"`python -m labcore reproduce --experiment {experiment} --seeds {n_seeds} --out {shown}`{restore}."
                 "\n\n"
                 + "\n".join(f"- {shown}/{problem}" if problem.split(" ")[0] in FILES else f"- {problem}"
                             for problem in res.problems))
    return res


def result_sets() -> list[str]:
    """Result directories under ``results/`` that hold a summary (bundled first; the design
    study's folder is not a result set)."""
    found = sorted(p.parent for p in (ROOT / "results").glob("*/summary.json")
                   if p.parent.name != results_module.EXPLORE_DIR)
    return [str(p) for p in sorted(found, key=lambda p: (p.name != "bundled", p.name))]


@st.cache_data(show_spinner=False)
def closed_forms() -> dict[int, dict[str, float]]:
    """An ideal agent's E2 scores per number of active slots (the allocation rule alone)."""
    from labcore.experiments.e2 import allocation_closed_form

    return allocation_closed_form()


@st.cache_data(show_spinner=False, ttl=60)
def _explore(directory: str) -> results_module.ExploreStudy:
    return results_module.load_explore(directory)


def explore() -> results_module.ExploreStudy:
    """The bundled E3 design study (``results/explore_e3``; problems listed, never raised)."""
    return _explore(str(ROOT / "results" / results_module.EXPLORE_DIR))  # cached per folder, as results()
