"""Cached access to agents and results for the pages.

Every accessor wears one decorator, :func:`cached`: an agent's measurement is kept per checkpoint
file and version (:func:`agent_file`: path; inode, size, modification time) and arguments
(``st.cache_data``), after a lookup in the shipped view cache; a result set or study per folder
and stamp (:func:`folder_stamp`), shared (``st.cache_resource``). Models are loaded once per
process (``st.cache_resource``) and never mutated: lesions are run-time interventions. A file
retrained or restored in place while the server runs is loaded and measured afresh.

Pages read their inputs through guarded paths: :func:`manifest` (and :func:`seeds_by_kind`),
:func:`checked_agent` and :func:`checked_results`. A bad file there is one ``st.error`` naming
it and what to do, and the rest of the page keeps working. Failures are never cached, so a
restored file is read again on the next run.

Agents a visitor trains on the Agents page live in their browser session's own folder under
``runs/user/`` (:func:`session_dir`, git-ignored), never in the shipped ``checkpoints/``: the
pages of that session list them beside the bundled ones (:func:`manifest`), no other session
sees them, and their seeds are unique across all sessions (:func:`seed_taken`), so a name always
means one agent; the caches, keyed by the file itself (:func:`agent_file`), never mix two
visitors' agents either way. A page offers a session the next free seed (:func:`offered_seed`,
reserving nothing); the seed is reserved atomically when its run starts (:func:`submit_training`,
:class:`ui.jobs.SeedBook`), and the training runs in the server's queue (:func:`training_queue`),
off the page thread and in a worker process.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import streamlit as st

from labcore import view_cache
from labcore.budgets import LIVE_BUDGETS
from labcore.config import AGENT_DESCRIPTIONS, Intervention, TrainConfig
from labcore.experiments import paper_results
from labcore.experiments.paper_results import E4_TABLES, FIGURES, PAPER_TABLES
from labcore.experiments.study import RESULT_SET_STUDIES, STUDIES, study_folders
from labcore.findings import SUMMARY
from labcore.settings import settings
from ui import jobs

if TYPE_CHECKING:
    from labcore.agents import Agent
    from labcore.experiments.study import LoadedStudy
    from labcore.markers import KnownAnswer
    from labcore.measures import MetacognitionView, TheatreEpisode, WorkspaceView
    from labcore.measures_integration import IntegrationReading

T = TypeVar("T")


ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results" / "bundled"
FILES = {SUMMARY, paper_results.GAIN, FIGURES, *(t.file for t in (*PAPER_TABLES, *E4_TABLES))}
"""Files of a result set whose problems name them first (shown with their directory)."""
CHECKPOINTS_DIR = settings().checkpoints or ROOT / "checkpoints"
"""Where the pages find agents: ``$CTLAB_CHECKPOINTS`` if set, else the bundled ``checkpoints/``
(labcore.storage.checkpoints.BUNDLED_DIR, named here without importing torch); read at call time,
so tests point it at a copy."""
USER_RUNS_DIR = settings().user_runs or ROOT / "runs" / "user"
"""Where the Agents page saves the agents visitors train: one folder per browser session
(:func:`session_dir`); ``runs/`` is git-ignored; ``$CTLAB_USER_RUNS`` points elsewhere (the test and
benchmark servers of ui/serve.py use a temporary folder). Read at call time (tests point it
elsewhere)."""
# The live budgets (labcore.budgets.LiveBudgets), by the names the functions below read at call time
# (tests shrink them here). A Metacognition or Workspace view's trials are its recipe's
# (labcore.view_cache, which reads the same budgets): the pages show them.
E1_TRIALS = view_cache.E1_TRIALS
DUAL_EPISODES = view_cache.DUAL_EPISODES
MASKING_EPISODES = LIVE_BUDGETS.masking_episodes
TITRATION_EPISODES = LIVE_BUDGETS.titration_episodes
THEATRE_EPISODES = LIVE_BUDGETS.theatre_episodes
THEATRE_BATCH = LIVE_BUDGETS.theatre_batch
VIEW_CACHE_DIR = settings().view_cache or Path(view_cache.CACHE_DIR)
"""The precomputed views of the bundled agents (labcore.view_cache); read at call time."""
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
    return (
        f" (`git checkout {shown}` restores the shipped copy)"
        if shown.parts[:1] == ("checkpoints",)
        else ""
    )


@st.cache_data(ttl=10, show_spinner=False)
def read_checkpoint_manifest(directory: str) -> tuple[dict, list[str]]:
    """The usable checkpoints of a directory and one sentence per file left out.

    Parameters
    ----------
    directory : str
        The checkpoint directory (pages use :data:`CHECKPOINTS_DIR`).

    Returns
    -------
    (entries, problems)
        Entries by checkpoint name, listed from the files' headers
        (:func:`labcore.storage.checkpoints.read_manifest`; a file that cannot be read is left
        out), and the sentences :func:`manifest` shows, each naming its file and what to do.
        Cached for 10 s; clear it after a save.
    """
    from labcore.storage import checkpoints as ckpt

    bad: dict[str, str] = {}
    entries = ckpt.read_manifest(directory, problems=bad)["checkpoints"]
    problems = [
        f"{why.rstrip('.')}{_restore(ckpt.checkpoint_file(directory, name))}; until then agent "
        f"{name} is left out."
        for name, why in sorted(bad.items())
    ]
    return entries, problems


def session_dir() -> Path:
    """This browser session's folder of user-trained agents: ``USER_RUNS_DIR/<session token>``.

    The token is drawn once per session and kept in ``st.session_state``; the folder is created
    by the first save (:func:`labcore.storage.checkpoints.save_checkpoint` into it).
    """
    token = st.session_state.get(_SESSION_KEY)
    if token is None:
        token = st.session_state[_SESSION_KEY] = uuid.uuid4().hex[:16]
    return USER_RUNS_DIR / token


def manifest() -> dict:
    """The usable bundled checkpoints and this session's user-trained agents, by name.

    A user-trained entry carries ``"user": True`` (the Agents page lists it apart); a bundled
    agent of the same name wins. A checkpoint file that cannot be listed is one ``st.error``
    naming the file and what to do, and only that agent is left out.
    """
    entries, problems = read_checkpoint_manifest(str(CHECKPOINTS_DIR))  # read at call time
    own = session_dir()
    if own.is_dir():
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
    (:func:`session_dir`) if it trained one of that name (raises CheckpointError on an unsafe
    name)."""
    from labcore.storage import checkpoints as ckpt

    name = ckpt.checkpoint_name(task, kind, seed)
    bundled = ckpt.checkpoint_file(CHECKPOINTS_DIR, name)
    if bundled.exists():
        return bundled
    own = ckpt.checkpoint_file(session_dir(), name)
    return own if own.exists() else bundled


def _trained(task: str, kind: str, seed: int) -> bool:
    from labcore.storage import checkpoints as ckpt

    name = ckpt.checkpoint_name(task, kind, seed)
    return ckpt.checkpoint_file(CHECKPOINTS_DIR, name).exists() or any(
        USER_RUNS_DIR.glob(f"*/{name}{ckpt.SUFFIX}")
    )


def seed_book() -> jobs.SeedBook:
    """The seed reservations of every session (``USER_RUNS_DIR/_seeds``, read at call time)."""
    return jobs.SeedBook(USER_RUNS_DIR / "_seeds")


def session_token() -> str:
    """This browser session's token (the name of its folder, :func:`session_dir`)."""
    return session_dir().name


def seed_taken(task: str, kind: str, seed: int) -> bool:
    """Is this seed unavailable to this session: a bundled agent, an agent trained in any session,
    or a seed another session has reserved (:class:`ui.jobs.SeedBook`)?

    A user-trained seed is new everywhere, so an agent's name (kind, seed) means one agent on
    every page and in every session; reservations make that hold when a class trains at once.
    """
    owner = seed_book().owner(task, kind, seed)
    return _trained(task, kind, seed) or (owner is not None and owner != session_token())


def offered_seed(task: str, kind: str) -> int:
    """The seed this session is offered for its next agent of ``kind``: the first that is neither
    bundled, trained, nor reserved by another session (:meth:`ui.jobs.SeedBook.next_free`).

    Nothing is reserved here: a seed is reserved when its run starts (:func:`submit_training`), so
    visiting a page leaves no reservation behind (a classroom walk would leave dozens). Two
    sessions may be offered the same seed; the first to start trains it and the other trains the
    next free one (``or_next``).
    """
    return seed_book().next_free(task, kind, session_token(), lambda s: _trained(task, kind, s))


@st.cache_resource(show_spinner=False)
def training_queue() -> jobs.TrainingQueue:
    """The server's training queue (:class:`ui.jobs.TrainingQueue`, ``$CTLAB_TRAIN_WORKERS`` jobs
    at once)."""
    return jobs.TrainingQueue(jobs.default_workers())


def submit_training(
    task: str, kind: str, seed: int, cfg: TrainConfig, *, or_next: bool = False
) -> jobs.Job:
    """Queue the training of this session's agent ``(task, kind, seed)``; returns at once.

    The seed is reserved for this session here, when the run starts. With ``or_next`` (the page
    offered ``seed``, :func:`offered_seed`, and the visitor did not choose it), a seed another
    session started in the meantime is replaced by this session's next free one, reserved
    atomically: thirty students pressing "Train" at once each get an agent, each a different seed
    (the job's ``spec.seed`` says which).

    Raises
    ------
    CheckpointError
        If the seed is not this session's to train (bundled, trained, or reserved by another).
    ui.jobs.QueueFull
        If this session already has a job waiting or running.
    """
    if or_next and (
        _trained(task, kind, seed) or not seed_book().claim(task, kind, seed, session_token())
    ):
        seed = seed_book().reserve(task, kind, session_token(), lambda s: _trained(task, kind, s))
    if _trained(task, kind, seed) or not seed_book().claim(task, kind, seed, session_token()):
        from labcore.storage.checkpoints import CheckpointError

        raise CheckpointError(
            f"seed {seed} of {kind} belongs to another agent or session; your next free seed is "
            f"{offered_seed(task, kind)}"
        )
    return training_queue().submit(
        session_token(), jobs.JobSpec(task, kind, int(seed), cfg, str(session_dir()))
    )


def my_jobs() -> list[jobs.Job]:
    """This session's training jobs, oldest first."""
    return training_queue().jobs(session_token())


def agent_file(task: str, kind: str, seed: int) -> tuple[str, str]:
    """An agent's checkpoint file and its version: ``(path, stamp)``, the stamp being its inode,
    size and modification time (ns), or "missing".

    The pair leads every cache key (:func:`cached`). Checkpoints are replaced atomically (a new
    file, a new time), so retraining into ``checkpoints/`` or a ``git checkout`` of a file changes
    the stamp and the next run loads and measures the new weights. Raises
    :class:`~labcore.storage.checkpoints.CheckpointError` on an unsafe name.
    """
    path = checkpoint_path(task, kind, seed)
    try:
        stat = path.stat()
    except OSError:
        return str(path), "missing"
    return str(path), f"{stat.st_ino}|{stat.st_size}|{stat.st_mtime_ns}"


def folder_stamp(directory: str | Path) -> str:
    """The version of a folder of files: every file's name, size and modification time (ns), or
    "missing". A study rewritten in place changes it, so what is cached by it is read afresh."""
    try:
        with os.scandir(directory) as entries:
            files = sorted(
                (e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in entries if e.is_file()
            )
    except OSError:
        return "missing"
    return hashlib.blake2b(repr(files).encode(), digest_size=12).hexdigest()


_VERSIONS: dict[int, str] = {}
"""The folder stamp each shared result set or study was read at, by the object's id (an entry goes
with its object, so an id is never reused for another)."""


def _versioned(loaded: Any, stamp: str) -> Any:
    _VERSIONS[id(loaded)] = stamp
    weakref.finalize(loaded, _VERSIONS.pop, id(loaded), None)
    return loaded


def version(loaded: Any) -> str:
    """The version of a result set or study a page holds (:func:`checked_results`,
    :func:`read_study`): the stamp of its folder's files when it was read, so a figure drawn from
    it can be cached under ``(directory, version)`` and built once (a new random one for an object
    read elsewhere, which is then never found again)."""
    return _VERSIONS.get(id(loaded)) or uuid.uuid4().hex


# ------------------------------------------------------------------------------- the one cache
_PLAIN = {"int": int, "float": float, "bool": bool, "str": str}
"""Argument annotations the cache converts to, so ``0`` and ``0.0`` (or a numpy integer) name one
entry."""


def cached(
    *, task: str | None = None, max_entries: int, shipped: Callable[..., tuple | None] | None = None
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Make a page's accessor: what it returns is computed once per version of the file it reads.

    With ``task``, the decorated ``measure(agent, kind, seed, ...)`` becomes
    ``accessor(kind, seed, ...)``: it finds the agent's checkpoint and version (:func:`agent_file`),
    takes the agent from the shared model cache and keeps the measure's value by file, version and
    arguments (``st.cache_data``, at most ``max_entries``), so a file retrained or restored in place
    while the server runs is measured afresh. A bundled agent's view is first looked up in the
    shipped view cache when ``shipped(**arguments)`` names its condition (the parts of
    :func:`labcore.view_cache.condition_key`, or None); ``accessor(..., full=True)`` skips that.

    Without ``task``, the decorated function reads a folder (its argument ``directory``): its value
    is kept by the folder's stamp (:func:`folder_stamp`) and the arguments, shared by every session
    (``st.cache_resource``: result sets and studies, which no page mutates), and remembers that
    stamp (:func:`version`).

    Arguments annotated ``int``, ``float``, ``bool`` or ``str`` are converted first, so a slider's
    ``0`` and ``0.0`` name one entry. A failure raises and is never cached; ``accessor.clear()``
    empties the cache.
    """
    store = st.cache_data if task else st.cache_resource

    def decorate(measure: Callable[..., T]) -> Callable[..., T]:
        signature = inspect.signature(measure)
        public = signature.replace(parameters=list(signature.parameters.values())[bool(task) :])
        plain = {
            name: _PLAIN[p.annotation]
            for name, p in public.parameters.items()
            if p.annotation in _PLAIN
        }

        def compute(file: str, stamp: str, arguments: tuple) -> T:
            if task is None:
                return _versioned(measure(*arguments), stamp)
            return measure(_load(file, stamp), *arguments)

        # Streamlit names a cache by its function's module, name and source: this accessor's own
        # (a change of the measure's code is a new cache, as it would be for a plain function).
        source = hashlib.blake2b(inspect.getsource(measure).encode(), digest_size=8).hexdigest()
        compute.__module__ = measure.__module__
        compute.__qualname__ = f"{measure.__qualname__}.{source}"
        kept = store(show_spinner=False, max_entries=max_entries)(compute)

        @functools.wraps(measure)
        def accessor(*args: Any, full: bool = False, **kwargs: Any) -> T:
            bound = public.bind(*args, **kwargs)
            bound.apply_defaults()
            values = {
                k: plain[k](v) if k in plain and v is not None else v
                for k, v in bound.arguments.items()
            }
            if task is None:
                values["directory"] = directory = str(values["directory"])
                return kept(directory, folder_stamp(directory), tuple(values.values()))
            path, stamp = agent_file(task, values["kind"], values["seed"])
            condition = None if full or shipped is None else shipped(**values)
            if condition is not None:
                view = _shipped_views(path, stamp).get(view_cache.condition_key(*condition))
                if view is not None:
                    return view
            return kept(path, stamp, tuple(values.values()))

        accessor.__signature__ = public  # type: ignore[attr-defined]
        accessor.clear = kept.clear  # type: ignore[attr-defined]
        return accessor

    return decorate


@st.cache_resource(show_spinner=False, max_entries=96)
def _load(path: str, stamp: str) -> Agent:
    """The model cache: one frozen agent per checkpoint file and version, shared by every session
    (lesions are run-time interventions, so no page mutates it); a failure is not cached."""
    # The live views run on one thread (torch's default is one per core): their batches are small,
    # and with the cores busy two threads took 10-33 s for a masking trace one thread does in
    # 0.6-0.7 s (bench/bench_views.py).
    import torch

    from labcore.storage.checkpoints import load_checkpoint

    torch.set_num_threads(1)
    return load_checkpoint(path).agent


def agent(task: str, kind: str, seed: int) -> Agent:
    """A loaded, frozen agent (shared by every session); raises
    :class:`~labcore.storage.checkpoints.CheckpointError`.

    A page reads the agent through :func:`checked_agent`; the cached views below load the
    file they are keyed by.
    """
    return _load(*agent_file(task, kind, seed))


def checked_agent(task: str, kind: str, seed: int) -> Agent | None:
    """The agent a page shows, read through one guarded path.

    Parameters
    ----------
    task, kind, seed
        Which agent (see :func:`labcore.storage.checkpoints.checkpoint_name`).

    Returns
    -------
    Agent or None
        The loaded agent; or None after one ``st.error`` naming the file and what to do, when
        its checkpoint cannot be used (the page then leaves that agent out). Nothing is cached
        on failure: a restored file loads on the next run.
    """
    from labcore.storage.checkpoints import CheckpointError

    try:
        return agent(task, kind, seed)
    except CheckpointError as exc:
        try:
            restore = _restore(checkpoint_path(task, kind, seed))
        except CheckpointError:  # an unsafe name: the sentence already says so
            restore = ""
        st.error(
            f"{str(exc).rstrip('.')}{restore}; until then agent {kind}, seed {seed}, is left out.",
            icon=":material/error:",
        )
        return None


def _shipped_views(path: str, stamp: str) -> dict[str, Any]:
    """The shipped views of one checkpoint file and version (none for a visitor's own agent)."""
    if stamp == "missing" or Path(path).parent.resolve() != CHECKPOINTS_DIR.resolve():
        return {}
    return _precomputed(path, stamp, str(VIEW_CACHE_DIR))  # read at call time


@st.cache_resource(show_spinner=False, max_entries=256)
def _precomputed(path: str, stamp: str, cache_dir: str) -> dict[str, Any]:
    """The shipped views of one checkpoint (:func:`labcore.view_cache.read_views`)."""
    return view_cache.read_views(path, cache_dir)


# ------------------------------------------------------------------------------- live views
def _no_noise_meta(self_model_mode: str, capacity: int, noise: float, **_: Any) -> tuple | None:
    return ("meta", self_model_mode, capacity) if noise == 0 else None


@cached(task="wagering", max_entries=256, shipped=_no_noise_meta)
def metacognition(
    model: Agent, kind: str, seed: int, self_model_mode: str, capacity: int, noise: float
) -> MetacognitionView:
    """E1 markers of one wagering agent with ``capacity`` active slots (see measures.metacognition).

    A bundled agent's view without noise is a lookup in the shipped cache (its ``trace`` is None
    there); ``full=True`` (the Mystery agent, which plays an episode) always has the trace.
    """
    return view_cache.metacognition_view(model, seed, self_model_mode, capacity, noise)


def _no_noise_ws(capacity: int, noise: float, self_model_mode: str, **_: Any) -> tuple | None:
    return ("ws", capacity) if noise == 0 and self_model_mode == "on" else None


@cached(task="dual", max_entries=256, shipped=_no_noise_ws)
def workspace(
    model: Agent,
    kind: str,
    seed: int,
    capacity: int,
    noise: float,
    noise_mode: str,
    self_model_mode: str = "on",
) -> WorkspaceView:
    """E2 accuracies and broadcast markers of one dual-task agent (see measures.workspace).

    A bundled agent's view without noise is a lookup in the shipped cache (its trace holds what
    the Workspace page draws); ``full=True`` always computes the whole trace.
    """
    return view_cache.workspace_view(model, seed, capacity, noise, noise_mode, self_model_mode)


@cached(task="dual", max_entries=128)
def masking(model: Agent, kind: str, seed: int, soa: int, count: int) -> dict[str, list[float]]:
    """Colour-retention traces of one agent (see measures.masking_traces)."""
    from labcore import measures
    from labcore.seeding import episode_seeds

    return measures.masking_traces(model, episode_seeds(seed, "eval", MASKING_EPISODES), soa, count)


@cached(task="dual", max_entries=256)
def noisy_accuracy(
    model: Agent, kind: str, seed: int, sigma: float, noise_mode: str, target: str
) -> float:
    """Decision accuracy of one agent at noise ``sigma`` (one point of measures.titration)."""
    from labcore import measures
    from labcore.seeding import episode_seeds

    return measures.titration(
        model,
        episode_seeds(seed, "eval", TITRATION_EPISODES),
        [sigma],
        noise_mode=noise_mode,
        target=target,
        fixed=measures.evaluation_intervention(kind),
        noise_seeds=[seed],
    )[0]


@cached(task="dual", max_entries=64, shipped=lambda normalisation, **_: ("pci", normalisation))
def pci(model: Agent, kind: str, seed: int, normalisation: str) -> tuple[float, float]:
    """Mean perturbational complexity and dPCI of one agent (see labcore.measures.pci_values):
    a bundled agent's is a lookup in the shipped cache."""
    return view_cache.pci_view(model, kind, seed, normalisation)


@cached(
    task="dual",
    max_entries=64,
    shipped=lambda capacity, self_model_mode, **_: ("int", capacity, self_model_mode),
)
def integration(
    model: Agent, kind: str, seed: int, capacity: int, self_model_mode: str
) -> list[IntegrationReading]:
    """Every integration measure on every signal and variant of one dual-task agent with
    ``capacity`` active slots and its self-model ``self_model_mode`` (see
    labcore.measures_integration.integration_readings); a bundled agent's is a lookup in the
    shipped cache."""
    return view_cache.integration_view(model, seed, capacity, self_model_mode)


@st.cache_data(show_spinner=False)
def integration_known_answers() -> list[KnownAnswer]:
    """The integration measures on systems whose answer is known (labcore.markers.known_answers)."""
    from labcore.markers import known_answers

    return known_answers()


INTEGRATION_STUDY_DIR = ROOT / "results" / STUDIES["integration"].folder
"""The integration study (protocol sec. 9) the Integration page shows (read at call time: tests
point it elsewhere)."""


def integration_study() -> LoadedStudy:
    """The integration study of :data:`INTEGRATION_STUDY_DIR` as read for display (summary,
    tables, the rows' DataFrame; problems listed, never raised; cached per folder)."""
    return read_study("integration", INTEGRATION_STUDY_DIR)


def theatre_key(
    task_id: str,
    kind: str,
    seed: int,
    episode: int,
    self_model_mode: str,
    capacity: int,
    noise: float,
    noise_mode: str,
    soa: int | None = None,
    count: int | None = None,
) -> tuple:
    """One theatre episode's name: its checkpoint's file and version, then every argument."""
    from labcore.envs import WAGERING

    task = "wagering" if task_id == WAGERING else "dual"
    controls = (self_model_mode, capacity, noise, noise_mode, soa, count)
    return (*agent_file(task, kind, seed), task_id, seed, episode, *controls)


@st.cache_data(show_spinner=False, max_entries=64)
def theatre(episode_key: tuple) -> TheatreEpisode:
    """The rollout theatre's episode ``episode_key`` names (:func:`theatre_key`: it leads with the
    checkpoint's file and version, so the episode is cached by them as every view is)."""
    from labcore import measures
    from labcore.interventions import capacity_scale
    from labcore.seeding import episode_seeds

    (
        path,
        stamp,
        task_id,
        seed,
        episode,
        self_model_mode,
        capacity,
        noise,
        noise_mode,
        soa,
        count,
    ) = episode_key
    model = _load(path, stamp)
    iv = Intervention(
        self_model_mode=self_model_mode,
        capacity_scale=capacity_scale(capacity, model.config.n_slots),
        workspace_noise=noise,
        noise_mode=noise_mode,
        seed=seed,
    )
    options = {"mask_soa": soa, "mask_count": count} if soa is not None else None
    seeds = episode_seeds(seed, "eval", THEATRE_EPISODES)
    batch = seeds[episode - episode % THEATRE_BATCH :][
        :THEATRE_BATCH
    ]  # matched noise and shuffles need a batch
    return measures.theatre(
        model, task_id, int(seeds[episode]), iv, task_options=options, companions=batch
    )


@st.cache_resource(show_spinner=False, max_entries=256)
def step_figures(episode_key: tuple, t: int) -> Any:
    """The figures of step ``t`` of the theatre episode ``episode_key`` names
    (:func:`theatre_key`; ``labcore.figures.episode.step_figures``), built once per step and shared
    by every session: building them was most of a rerun while an episode plays (about 0.3 s a
    step, each 0.7 s)."""
    from labcore.figures import episode as episode_figures

    episode = theatre(episode_key)
    return episode_figures.step_figures(episode.trace, t, episode.n_steps)


# ------------------------------------------------------------------------- result sets, studies
@cached(max_entries=16)
def results(directory: str) -> paper_results.ResultSet:
    """A result set written by ``python -m labcore study paper`` (or ``study e4``), read through
    the one loader (:func:`labcore.experiments.paper_results.load_results`); pages read it through
    :func:`checked_results`. Shared by every session and never mutated, read again when its
    folder's files change."""
    return paper_results.load_results(directory)


@st.cache_resource(show_spinner=False, max_entries=512)
def _once(directory: str, stamp: str, name: str, _make: Callable[[], Any]) -> Any:
    return _make()


def once(loaded: Any, name: str, make: Callable[[], Any]) -> Any:
    """What ``make()`` derives from a result set or study (:func:`checked_results`,
    :func:`read_study`), computed once per version of it (:func:`version`) and shared, never
    mutated.

    ``name`` must say everything the value depends on besides ``loaded`` (e.g. the claim's id):
    a page's verdict sentences and seed summaries need not be worked out on every run.
    """
    return _once(str(loaded.directory), version(loaded), name, make)


def checked_results(
    directory: str | Path | None = None, experiment: str | None = None
) -> paper_results.ResultSet:
    """The result set a page shows (default: the bundled one), read through one guarded path.

    When anything in it is missing, malformed or mixed, one ``st.error`` names the directory
    and what to do, and lists :attr:`~labcore.experiments.paper_results.ResultSet.problems`
    (each names its file). The bad parts are empty in the returned set, so the rest of the page
    keeps working. ``experiment`` is the study the command to re-run names when the folder cannot
    say (E4's page: "e4"; default: the folder's, else "paper").
    """
    path = Path(directory) if directory else RESULTS_DIR  # read at call time (tests move it)
    res = results(path)
    if res.problems:
        shown = _shown(path)
        restore = (
            f" or restore the shipped copy with `git checkout {shown}`"
            if shown.parts[:1] == ("results",)
            else ""
        )
        study = res.summary.study if res.summary is not None else (experiment or res.study)
        st.error(
            f"The result set `{shown}` cannot be fully used, so parts of this page are "
            f"left out: re-run `python -m labcore study {study} --out {shown}`{restore}."
            "\n\n"
            + "\n".join(
                f"- {shown}/{problem}" if problem.split(" ")[0] in FILES else f"- {problem}"
                for problem in res.problems
            )
        )
    return res


def result_sets() -> list[str]:
    """Result directories under ``results/`` that hold a summary of the paper's experiments
    (bundled first): not a registered study's folder (:func:`~labcore.experiments.study.
    study_folders`), nor a folder whose summary names another study (a second run of one, e.g.
    ``--out results/dissociations_seeds20``). A summary that cannot be read stays a choice, so the
    page says what is wrong with it."""
    others = study_folders()
    found = sorted(
        p.parent
        for p in (ROOT / "results").glob("*/summary.json")
        if p.parent.name not in others and _study_named(p) in (None, *RESULT_SET_STUDIES)
    )
    return [str(p) for p in sorted(found, key=lambda p: (p.name != "bundled", p.name))]


def _study_named(path: Path) -> str | None:
    """The study a ``summary.json`` names (None if it cannot be read or names none)."""
    try:
        text = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    study = text.get("study") if isinstance(text, dict) else None
    return study if isinstance(study, str) else None


@st.cache_data(show_spinner=False, max_entries=64)
def ideal_on_view(seed: int, capacity: int, n_slots: int) -> dict[str, tuple[float, float, float]]:
    """What an ideal agent under the allocation rule scores on the very episodes of a Workspace
    view of ``seed`` (protocol sec. 10.1): per measure its mean and 95% range (the binomial
    variation of its 1/7 guesses). Agents can beat a closed form over the task's distribution by
    chance on a 32-episode sample; these episodes are the agents' own."""
    import math

    from labcore.experiments.e2 import ideal_on_episodes
    from labcore.seeding import episode_seeds

    out = {}
    for name, (mean, var) in ideal_on_episodes(
        episode_seeds(seed, "eval", DUAL_EPISODES), active=capacity, n_slots=n_slots
    ).items():
        m, half = float(mean.mean()), 1.96 * math.sqrt(float(var.sum())) / len(mean)
        out[name] = (m, max(0.0, m - half), min(1.0, m + half))
    return out


@cached(max_entries=32)
def read_study(name: str, directory: str, tables: tuple[str, ...] | None = None) -> LoadedStudy:
    """A registered study's folder through the one validated loader
    (:func:`labcore.experiments.study.load_study`; ``tables``: the tables to read as frames,
    default every one), shared by every run and session and read again when its files change;
    problems listed, never raised. Figures drawn from it are cached under :func:`version`."""
    from labcore.experiments.study import load_study

    return load_study(name, directory, tables)


def study(name: str) -> LoadedStudy:
    """A registered study's bundled folder as read for display (``results/<folder>``; problems
    listed, never raised; cached per folder)."""
    return read_study(name, ROOT / "results" / STUDIES[name].folder)


def explore() -> LoadedStudy:
    """The bundled E3 design study (``results/explore_e3``)."""
    return study("e3_design")


# ---------------------------------------------------------------- the measured variants (11)
MEASURED_TRIALS = 300
"""Trials of a live view of the measured E1 (one block): the study's evaluation budget."""


def measured() -> Any:
    """The measured dissociations' bundled summary (the study "dissociations", protocol 11), or
    None when it cannot be read (its problems are the page's to show through :func:`study`)."""
    return read_study(
        "dissociations", ROOT / "results" / STUDIES["dissociations"].folder, ()
    ).summary


@cached(task="post_decision", max_entries=256)
def post_decision(
    model: Agent,
    kind: str,
    seed: int,
    silenced: float,
    self_noise: float,
    route_off: bool,
    block: float,
) -> dict[str, Any]:
    """The measured E1 of one agent under one condition in one block (labcore.measures.
    post_decision): its values (accuracy, auroc, m_ratio, reader_auroc, change_of_mind, ...) and
    the answered trials' ``correct`` and ``confidence`` arrays."""
    import numpy as np

    from labcore import measures
    from labcore.seeding import episode_seeds

    iv = Intervention(
        self_model_silenced=silenced,
        self_model_noise=self_noise,
        policy_route_off=route_off,
        seed=seed,
    )
    seeds = episode_seeds(seed, "eval", MEASURED_TRIALS)
    trials, values = measures.post_decision(model, iv, seeds, block)
    decision = np.array([t["decision"] for t in trials])
    stimulus = np.array([t["stimulus"] for t in trials])
    confidence = np.array(
        [np.nan if t["confidence"] is None else t["confidence"] for t in trials], float
    )
    answered = (decision >= 0) & np.isfinite(confidence)
    return {
        **values,
        "correct": (decision == stimulus)[answered],
        "confidence": confidence[answered],
    }


def lab_dissociations() -> dict[str, str]:
    """How many of the lab's three dissociations hold as evidence, and each one's status, in words
    (``labcore/templates/lab_dissociations.j2``: E1 and E2 measured, E3 from the paper's result
    set): ``{"short", "e1", "e2", "e3"}``; empty when either result set cannot be read."""
    from labcore.render import compose

    measured_summary = measured()
    paper = results(RESULTS_DIR).summary
    if measured_summary is None or paper is None:
        return {}
    both = {"measured": measured_summary, "paper": paper}
    statuses = json.loads(compose("lab_dissociations.j2", "statuses", **both))
    return {"short": compose("lab_dissociations.j2", "short", **both), **statuses}
