"""Cached access to agents and results for the pages.

Models are loaded once per process (``st.cache_resource``) and never mutated: lesions are
run-time interventions. Results are cached per (checkpoint, intervention) with
``st.cache_data``, so moving a control back to a previous value is instant. Both caches are keyed
by the checkpoint file and its version (:func:`agent_file`: path; inode, size, modification time),
so a file retrained or restored in place while the server runs is loaded and measured afresh.

Pages read their inputs through guarded paths: :func:`manifest` (and :func:`seeds_by_kind`),
:func:`checked_agent` and :func:`checked_results`. A bad file there is one ``st.error`` naming
it and what to do, and the rest of the page keeps working. Failures are never cached, so a
restored file is read again on the next run.

Agents a visitor trains on the Agents page live in their browser session's own folder under
``runs/user/`` (:func:`session_dir`, git-ignored), never in the shipped ``checkpoints/``: the
pages of that session list them beside the bundled ones (:func:`manifest`), no other session
sees them, and their seeds are unique across all sessions (:func:`seed_taken`), so a name always
means one agent; the caches, keyed by the file itself (:func:`agent_file`), never mix two
visitors' agents either way.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import streamlit as st

import labcore.envs as E
from labcore import measures
from labcore import results as result_set
from labcore.agents import Agent
from labcore.checkpoints import (
    BUNDLED_DIR,
    MANIFEST,
    SUFFIX,
    CheckpointError,
    checkpoint_name,
    load_checkpoint,
    read_manifest,
)
from labcore.config import AGENT_DESCRIPTIONS, LIVE_BUDGETS, Intervention
from labcore.experiments import pdw_sweep
from labcore.experiments.e2 import allocation_closed_form
from labcore.experiments.explore_integration import IntegrationStudy, read_study
from labcore.experiments.pdw import POLICIES
from labcore.experiments.reward_answer import RewardAnswer, compose
from labcore.interventions import capacity_scale
from labcore.markers import KnownAnswer, known_answers
from labcore.neurogym_rl import NeuroGymRLConfig, live_config
from labcore.provision import train_and_save
from labcore.results_pdw import (
    BY_COHERENCE,
    CURVES,
    FACTORS,
    SWEEP_CURVES,
    SWEEP_ROWS,
    PDWStudy,
    load_pdw,
)
from labcore.seeding import episode_seeds

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results" / "bundled"
FILES = {result_set.SUMMARY, result_set.GAIN, *result_set.DATA_FILES}
"""Files of a result set whose problems name them first (shown with their directory)."""
CHECKPOINTS_DIR = Path(os.environ.get("CTLAB_CHECKPOINTS") or BUNDLED_DIR)
"""Where the pages find agents: ``$CTLAB_CHECKPOINTS`` if set, else the bundled ``checkpoints/``
(read at call time, so tests point it at a copy)."""
USER_RUNS_DIR = ROOT / "runs" / "user"
"""Where the Agents page saves the agents visitors train: one folder per browser session
(:func:`session_dir`); ``runs/`` is git-ignored. Read at call time (tests point it elsewhere)."""
E4_RESULTS_DIR = ROOT / "results" / "e4"
"""The bundled E4 result set (issue 15: metacognition from reward alone); read at call time."""
LIVE_KIND = "reward_wager"
"""What the "From reward alone" page trains live: E4's arm (a)."""
# The live budgets (labcore.config.LiveBudgets), by the names the functions below read at call time
# (tests shrink them here).
LIVE_TRAIN = LIVE_BUDGETS.reward_training
E1_TRIALS = LIVE_BUDGETS.metacognition_trials
DUAL_EPISODES = LIVE_BUDGETS.workspace_episodes
MASKING_EPISODES = LIVE_BUDGETS.masking_episodes
TITRATION_EPISODES = LIVE_BUDGETS.titration_episodes
PCI_EPISODES = LIVE_BUDGETS.pci_episodes
INTEGRATION_EPISODES = LIVE_BUDGETS.integration_episodes
THEATRE_EPISODES = LIVE_BUDGETS.theatre_episodes
THEATRE_BATCH = LIVE_BUDGETS.theatre_batch
_SESSION_KEY = "_user_runs_session"


def label(kind: str) -> str:
    """Plain-language name of an agent kind."""
    return AGENT_DESCRIPTIONS.get(kind, kind)


def _shown(path: Path) -> Path:
    """A path as the user reads it: relative to the lab when inside it."""
    try:
        return path.resolve().relative_to(ROOT)
    except ValueError:
        return path


def _restore(path: Path) -> str:
    """`` (`git checkout <path>` ...)`` for a file of the shipped ``checkpoints/``, else nothing."""
    shown = _shown(path)
    return f" (`git checkout {shown}` restores the shipped copy)" if shown.parts[:1] == ("checkpoints",) else ""


@st.cache_data(ttl=10, show_spinner=False)
def read_checkpoint_manifest(directory: str) -> tuple[dict, list[str]]:
    """The usable entries of a checkpoint directory's manifest and one sentence per problem.

    Parameters
    ----------
    directory : str
        The checkpoint directory (pages use :data:`CHECKPOINTS_DIR`).

    Returns
    -------
    (entries, problems)
        Entries by checkpoint name (malformed ones left out, see
        :func:`labcore.checkpoints.read_manifest`; none if the manifest is unusable) and the
        sentences :func:`manifest` shows. Cached for 10 s; clear it after a save.
    """
    path = Path(directory) / MANIFEST
    shown, restore = _shown(path), _restore(path)
    bad: dict[str, str] = {}
    try:
        entries = read_manifest(directory, problems=bad)["checkpoints"]
    except CheckpointError as exc:
        reason = str(exc).replace(str(path), f"`{shown}`").rstrip(".")
        return {}, [f"{reason}{restore}; until then no agent can be listed."]
    problems = [f"`{shown}` has malformed entries, so these agents are left out: "
                + "; ".join(f"{name} ({why})" for name, why in sorted(bad.items()))
                + f"; restore it from version control or a backup{restore}."] if bad else []
    return entries, problems


def session_dir() -> Path:
    """This browser session's folder of user-trained agents: ``USER_RUNS_DIR/<session token>``.

    The token is drawn once per session and kept in ``st.session_state``; the folder is created
    by the first save (:func:`labcore.checkpoints.save_checkpoint` into it).
    """
    token = st.session_state.get(_SESSION_KEY)
    if token is None:
        token = st.session_state[_SESSION_KEY] = uuid.uuid4().hex[:16]
    return USER_RUNS_DIR / token


def manifest() -> dict:
    """The usable entries of the bundled manifest and of this session's user-trained agents.

    A user-trained entry carries ``"user": True`` (the Agents page lists it apart); a bundled
    agent of the same name wins. Every problem of a manifest is one ``st.error`` naming the file
    and what to do: an unusable manifest gives no entries, a malformed entry only loses that entry.
    """
    entries, problems = read_checkpoint_manifest(str(CHECKPOINTS_DIR))  # read at call time
    own = session_dir()
    if (own / MANIFEST).exists():
        mine, more = read_checkpoint_manifest(str(own))
        entries = {**{name: {**e, "user": True} for name, e in mine.items()}, **entries}
        problems = [*problems, *more]
    for problem in problems:
        st.error(problem, icon=":material/error:")
    return entries


def seeds_by_kind(task: str, entries: dict | None = None) -> dict[str, list[int]]:
    """Available (not excluded) seeds of every agent kind trained on ``task``.

    Parameters
    ----------
    task : str
        ``"dual"`` or ``"wagering"``.
    entries : dict, optional
        Manifest entries the page already holds; by default :func:`manifest` (which shows its
        problems), so a page reading several tasks passes them to show the problems once.

    Returns
    -------
    dict
        Sorted seeds by agent kind, kinds in name order.
    """
    out: dict[str, list[int]] = {}
    for entry in (manifest() if entries is None else entries).values():
        if entry["task"] == task and entry["mode"] == "fast" and not entry["excluded"]:
            out.setdefault(entry["kind"], []).append(int(entry["seed"]))
    return {k: sorted(v) for k, v in sorted(out.items())}


def checkpoint_path(task: str, kind: str, seed: int) -> Path:
    """The file of a fast-schedule agent: in :data:`CHECKPOINTS_DIR`, else this session's own
    (:func:`session_dir`) if it trained one of that name (raises CheckpointError on an unsafe name)."""
    file = f"{checkpoint_name(task, kind, seed)}{SUFFIX}"
    bundled = CHECKPOINTS_DIR / file
    if bundled.exists():
        return bundled
    own = session_dir() / file
    return own if own.exists() else bundled


def seed_taken(task: str, kind: str, seed: int) -> bool:
    """Is there an agent of this name anywhere: bundled, or trained in any session?

    A user-trained seed must be new everywhere, so that an agent's name (kind, seed) means one
    agent on every page and in every session.
    """
    file = f"{checkpoint_name(task, kind, seed)}{SUFFIX}"
    return (CHECKPOINTS_DIR / file).exists() or any(USER_RUNS_DIR.glob(f"*/{file}"))


def train_live(seed: int, progress: Callable[[int, int, dict], None] | None = None) -> tuple[dict, Path]:
    """Train one :data:`LIVE_KIND` seed with :data:`LIVE_TRAIN` and save it in this session's folder.

    Parameters
    ----------
    seed : int
        A seed no agent of that kind has anywhere (:func:`seed_taken`).
    progress : callable, optional
        ``progress(done, total, metrics)`` as :func:`labcore.training.train_seeds` calls it.

    Returns
    -------
    (record, path)
        The training record (its ``history`` holds the held-out AUROC per evaluation) and the
        saved checkpoint, under :func:`session_dir`; never in the shipped ``checkpoints/``.

    Raises
    ------
    CheckpointError
        If another session saved this seed meanwhile, or the agent cannot be saved.
    """
    def still_free() -> None:
        if seed_taken("wagering", LIVE_KIND, seed):
            raise CheckpointError(f"seed {seed} was saved by another session while this one trained; train again")

    record = train_and_save("wagering", LIVE_KIND, [seed], LIVE_TRAIN, session_dir(), progress=progress,
                            before_save=still_free)[0]
    path = Path(record.pop("path"))
    read_checkpoint_manifest.clear()
    return record, path


def agent_file(task: str, kind: str, seed: int) -> tuple[str, str]:
    """An agent's checkpoint file and its version: ``(path, stamp)``, the stamp being its inode,
    size and modification time (ns), or "missing".

    The pair leads every cache key below. Checkpoints are replaced atomically (a new file, a
    new time), so retraining into ``checkpoints/`` or a ``git checkout`` of a file changes the
    stamp and the next run loads and measures the new weights. Raises :class:`CheckpointError`
    on an unsafe name, as :func:`checkpoint_path` does.
    """
    path = checkpoint_path(task, kind, seed)
    try:
        stat = path.stat()
    except OSError:
        return str(path), "missing"
    return str(path), f"{stat.st_ino}|{stat.st_size}|{stat.st_mtime_ns}"


@st.cache_resource(show_spinner=False, max_entries=96)
def _load(path: str, stamp: str) -> Agent:
    # Keyed by the file's path and version (stamp), so another directory, or a newer file at
    # the same path, never gets this one's agent; a failure raises and is not cached.
    return load_checkpoint(path).agent


def agent(task: str, kind: str, seed: int) -> Agent:
    """A loaded, frozen agent (shared by every session); raises :class:`CheckpointError`.

    A page reads the agent through :func:`checked_agent`; the cached views below load the
    file they are keyed by.
    """
    return _load(*agent_file(task, kind, seed))


def checked_agent(task: str, kind: str, seed: int) -> Agent | None:
    """The agent a page shows, read through one guarded path.

    Parameters
    ----------
    task, kind, seed
        Which agent (see :func:`labcore.checkpoints.checkpoint_name`).

    Returns
    -------
    Agent or None
        The loaded agent; or None after one ``st.error`` naming the file and what to do, when
        its checkpoint cannot be used (the page then leaves that agent out). Nothing is cached
        on failure: a restored file loads on the next run.
    """
    try:
        return agent(task, kind, seed)
    except CheckpointError as exc:
        try:
            restore = _restore(checkpoint_path(task, kind, seed))
        except CheckpointError:  # an unsafe name: the sentence already says so
            restore = ""
        st.error(f"{str(exc).rstrip('.')}{restore}; until then agent {kind}, seed {seed}, is left out.",
                 icon=":material/error:")
        return None


def metacognition(kind: str, seed: int, self_model_mode: str, capacity: int, noise: float) -> measures.MetacognitionView:
    """E1 markers of one wagering agent with ``capacity`` active slots (see measures.metacognition)."""
    return _metacognition(*agent_file("wagering", kind, seed), seed, self_model_mode, capacity, noise)


@st.cache_data(show_spinner=False, max_entries=256)
def _metacognition(path: str, stamp: str, seed: int, self_model_mode: str, capacity: int,
                   noise: float) -> measures.MetacognitionView:
    model = _load(path, stamp)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, seed=seed)
    return measures.metacognition(model, iv, episode_seeds(seed, "eval", E1_TRIALS))


def workspace(kind: str, seed: int, capacity: int, noise: float, noise_mode: str,
              self_model_mode: str = "on") -> measures.WorkspaceView:
    """E2 accuracies and broadcast markers of one dual-task agent (see measures.workspace)."""
    return _workspace(*agent_file("dual", kind, seed), seed, capacity, noise, noise_mode, self_model_mode)


@st.cache_data(show_spinner=False, max_entries=256)
def _workspace(path: str, stamp: str, seed: int, capacity: int, noise: float, noise_mode: str,
               self_model_mode: str) -> measures.WorkspaceView:
    model = _load(path, stamp)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, noise_mode=noise_mode, seed=seed)
    return measures.workspace(model, iv, episode_seeds(seed, "eval", DUAL_EPISODES))


def masking(kind: str, seed: int, soa: int, count: int) -> dict[str, list[float]]:
    """Colour-retention traces of one agent (see measures.masking_traces), cached."""
    return _masking(*agent_file("dual", kind, seed), seed, soa, count)


@st.cache_data(show_spinner=False, max_entries=128)
def _masking(path: str, stamp: str, seed: int, soa: int, count: int) -> dict[str, list[float]]:
    return measures.masking_traces(_load(path, stamp), episode_seeds(seed, "eval", MASKING_EPISODES), soa, count)


def noisy_accuracy(kind: str, seed: int, sigma: float, noise_mode: str, target: str) -> float:
    """Decision accuracy of one agent at noise ``sigma`` (one point of measures.titration), cached."""
    return _noisy_accuracy(*agent_file("dual", kind, seed), kind, seed, sigma, noise_mode, target)


@st.cache_data(show_spinner=False, max_entries=256)
def _noisy_accuracy(path: str, stamp: str, kind: str, seed: int, sigma: float, noise_mode: str, target: str) -> float:
    return measures.titration(_load(path, stamp), episode_seeds(seed, "eval", TITRATION_EPISODES), [sigma],
                              noise_mode=noise_mode, target=target, fixed=measures.evaluation_intervention(kind),
                              noise_seeds=[seed])[0]


def pci(kind: str, seed: int, normalisation: str) -> tuple[float, float]:
    """Mean perturbational complexity and dPCI of one agent (see labcore.measures.pci_values)."""
    return _pci(*agent_file("dual", kind, seed), kind, seed, normalisation)


@st.cache_data(show_spinner=False, max_entries=64)
def _pci(path: str, stamp: str, kind: str, seed: int, normalisation: str) -> tuple[float, float]:
    fixed = Intervention(**measures.evaluation_intervention(kind))
    return measures.pci_and_dpci(_load(path, stamp), episode_seeds(seed, "eval", PCI_EPISODES), normalisation,
                                 fixed=fixed)


def integration(kind: str, seed: int, capacity: int, self_model_mode: str) -> list[measures.IntegrationReading]:
    """Every integration measure on every signal and variant of one dual-task agent with ``capacity``
    active slots and its self-model ``self_model_mode`` (see labcore.measures.integration_readings)."""
    return _integration(*agent_file("dual", kind, seed), seed, capacity, self_model_mode)


@st.cache_data(show_spinner=False, max_entries=64)
def _integration(path: str, stamp: str, seed: int, capacity: int,
                 self_model_mode: str) -> list[measures.IntegrationReading]:
    model = _load(path, stamp)
    iv = Intervention(self_model_mode=self_model_mode if model.config.self_model else "on",
                      capacity_scale=capacity_scale(capacity, model.config.n_slots))
    runs = measures.integration_runs(model, episode_seeds(seed, "eval", INTEGRATION_EPISODES), iv)
    return measures.integration_readings(runs)


@st.cache_data(show_spinner=False)
def integration_known_answers() -> list[KnownAnswer]:
    """The integration measures on systems whose answer is known (labcore.markers.known_answers)."""
    return known_answers()


@st.cache_data(show_spinner=False, ttl=60)
def _integration_study(directory: str) -> IntegrationStudy:
    return read_study(directory)


INTEGRATION_STUDY_DIR = ROOT / "results" / result_set.INTEGRATION_DIR
"""The integration study (protocol sec. 9) the Integration page shows."""


def integration_study() -> IntegrationStudy:
    """The integration study of :data:`INTEGRATION_STUDY_DIR` (problems listed, never raised)."""
    return _integration_study(str(INTEGRATION_STUDY_DIR))


def theatre(task_id: str, kind: str, seed: int, episode: int, self_model_mode: str, capacity: int, noise: float,
            noise_mode: str, soa: int | None = None, count: int | None = None) -> measures.TheatreEpisode:
    """One episode for the rollout theatre (see measures.theatre)."""
    task = "wagering" if task_id == E.WAGERING else "dual"
    return _theatre(*agent_file(task, kind, seed), task_id, seed, episode, self_model_mode, capacity, noise,
                    noise_mode, soa, count)


@st.cache_data(show_spinner=False, max_entries=64)
def _theatre(path: str, stamp: str, task_id: str, seed: int, episode: int, self_model_mode: str, capacity: int,
             noise: float, noise_mode: str, soa: int | None, count: int | None) -> measures.TheatreEpisode:
    model = _load(path, stamp)
    iv = Intervention(self_model_mode=self_model_mode, capacity_scale=capacity_scale(capacity, model.config.n_slots),
                      workspace_noise=noise, noise_mode=noise_mode, seed=seed)
    options = {"mask_soa": soa, "mask_count": count} if soa is not None else None
    seeds = episode_seeds(seed, "eval", THEATRE_EPISODES)
    batch = seeds[episode - episode % THEATRE_BATCH:][:THEATRE_BATCH]  # matched noise and shuffles need a batch
    return measures.theatre(model, task_id, int(seeds[episode]), iv, task_options=options, companions=batch)


@st.cache_data(show_spinner=False, ttl=60)
def results(directory: str) -> result_set.Results:
    """A result set written by ``python -m labcore reproduce`` (summary, tables, figure data),
    validated by :func:`labcore.results.load_results`; pages read it through :func:`checked_results`."""
    return result_set.load_results(directory)


def checked_results(directory: str | Path | None = None, experiment: str | None = None) -> result_set.Results:
    """The result set a page shows (default: the bundled one), read through one guarded path.

    When anything in it is missing, malformed or mixed, one ``st.error`` names the directory
    and what to do, and lists :attr:`~labcore.results.Results.problems` (each names its file).
    The bad parts are empty in the returned set, so the rest of the page keeps working.
    ``experiment`` is what the command to re-run names when the summary cannot say (E4's page:
    "e4"; default "all").
    """
    path = Path(directory) if directory else RESULTS_DIR  # read at call time: tests point it elsewhere
    try:
        res = results(str(path))
    except FileNotFoundError:
        res = result_set.Results(path, problems=[f"{path} is not a directory"])
    if res.problems:
        shown = _shown(path)
        restore = f" or restore the shipped copy with `git checkout {shown}`" if shown.parts[:1] == ("results",) else ""
        experiment = res.summary.get("experiment") or experiment or "all"
        n_seeds = len(res.summary.get("seeds") or []) or 5
        st.error(f"The result set `{shown}` cannot be fully used, so parts of this page are left out: re-run "
                 f"`python -m labcore reproduce --experiment {experiment} --seeds {n_seeds} --out {shown}`{restore}."
                 "\n\n"
                 + "\n".join(f"- {shown}/{problem}" if problem.split(" ")[0] in FILES else f"- {problem}"
                             for problem in res.problems))
    return res


def result_sets() -> list[str]:
    """Result directories under ``results/`` that hold a summary (bundled first; the studies'
    folders, ``result_set.STUDY_DIRS``, are not result sets)."""
    found = sorted(p.parent for p in (ROOT / "results").glob("*/summary.json")
                   if p.parent.name not in result_set.STUDY_DIRS)
    return [str(p) for p in sorted(found, key=lambda p: (p.name != "bundled", p.name))]


@st.cache_data(show_spinner=False)
def closed_forms() -> dict[int, dict[str, float]]:
    """An ideal agent's E2 scores per number of active slots (the allocation rule alone)."""
    return allocation_closed_form()


@st.cache_data(show_spinner=False, ttl=60)
def _explore(directory: str) -> result_set.ExploreStudy:
    return result_set.load_explore(directory)


def explore() -> result_set.ExploreStudy:
    """The bundled E3 design study (``results/explore_e3``; problems listed, never raised)."""
    return _explore(str(ROOT / "results" / result_set.EXPLORE_DIR))  # cached per folder, as results()


@st.cache_data(show_spinner=False, ttl=60)
def _neurogym(directory: str) -> result_set.NeuroGymStudy:
    return result_set.load_neurogym(directory)


NEUROGYM_STUDY_DIR = ROOT / "results" / result_set.NEUROGYM_DIR
"""The bundled NeuroGym study (protocol 8.6) the "From reward alone" page shows."""


def neurogym_study() -> result_set.NeuroGymStudy:
    """The NeuroGym study of :data:`NEUROGYM_STUDY_DIR` (problems listed, never raised)."""
    return _neurogym(str(NEUROGYM_STUDY_DIR))


# ----------------------------------------------------------------------- protocol 8.7 (issue 23)
PDW_STUDY_DIR = ROOT / "results" / result_set.PDW_DIR
"""The bundled Song et al. reproduction (``explore pdw``); read at call time (tests point it elsewhere)."""
PDW_SWEEP_STUDY_DIR = ROOT / "results" / result_set.PDW_SWEEP_DIR
"""The bundled reward explorer (``explore pdw-sweep``); read at call time."""
LIVE_SURE_OPTION = LIVE_BUDGETS
"""The budgets of the live sure-option run (``sure_option_*``; tests shrink them here)."""
EXPLORER_CELLS = tuple(c.name for c in pdw_sweep.cells())
"""The reward explorer's 16 cells, in the registered order."""
EXPLORER_FACTORS = FACTORS
EXPLORER_LEVELS = pdw_sweep.LEVELS
"""Each factor's (Song level, old level) as training-config fields."""
EXPLORER_KEEPS_AT = pdw_sweep.KEEPS_AT
PDW_POLICIES = POLICIES
"""How a network's choices are read: sampled (registered) or greedy."""


@st.cache_data(show_spinner=False, ttl=60)
def _pdw(directory: str, files: tuple[str, ...]) -> PDWStudy:
    return load_pdw(directory, files)


def pdw_study() -> PDWStudy:
    """The Song et al. reproduction of :data:`PDW_STUDY_DIR` (signatures by coherence, curves), cached;
    problems listed, never raised."""
    return _pdw(str(PDW_STUDY_DIR), (BY_COHERENCE, CURVES))


def pdw_sweep_study() -> PDWStudy:
    """The reward explorer of :data:`PDW_SWEEP_STUDY_DIR` (one row per agent, curves), cached."""
    return _pdw(str(PDW_SWEEP_STUDY_DIR), (SWEEP_ROWS, SWEEP_CURVES))


def reward_answer(e4_summary: dict) -> RewardAnswer:
    """The lab's answer from the bundled studies (:func:`labcore.experiments.reward_answer.compose`),
    E4's from the summary the page already holds."""
    return compose({"pdw": pdw_study().summary or None, "pdw_sweep": pdw_sweep_study().summary or None,
                    "e4": e4_summary or None, "neurogym": neurogym_study().summary or None})


def sure_option_config(entropy_coef: float, readout_init: str, input_scale: float) -> NeuroGymRLConfig:
    """The live sure-option run's training (Song's setting with these three choices, the live budget)."""
    return live_config(entropy_coef, readout_init, input_scale, budgets=LIVE_SURE_OPTION)


def explorer_cell_of(cfg: NeuroGymRLConfig) -> str | None:
    """The explorer cell trained as ``cfg`` is in its entropy, readout initialisation and input scale,
    every other factor at Song's level (S, or S with one of those three at the old level), else None."""
    for cell in pdw_sweep.cells():
        if cell.side == "S" and cell.factor in ("", "entropy", "readout_init", "input_scale") and all(
                getattr(cell.cfg, k) == getattr(cfg, k) for k in ("entropy_coef", "readout_init", "input_scale")):
            return cell.name
    return None
