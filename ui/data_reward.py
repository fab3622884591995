"""The "From reward alone" page's data: E4's result set and its live wager run, and the studies
beyond the paper (protocol 8.6/8.7, read through :func:`labcore.experiments.study.load_study`):
NeuroGym, the Song et al. reproduction (``pdw``), the reward explorer (``pdw_sweep``) and its
follow-up (``pdw_held``), the lab's reward answer and the live sure-option run.

The functions here read the names of this module at call time (tests point them elsewhere or shrink
them here); checkpoints, sessions and the training queue are :mod:`ui.data`'s. Nothing here imports
torch until a name is used.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from labcore.budgets import LIVE_BUDGETS
from labcore.experiments.pdw import BY_COHERENCE, CURVES, POLICIES, SEEDS
from labcore.experiments.pdw_sweep import CURVES as SWEEP_CURVES
from labcore.experiments.pdw_sweep import FACTORS, KEEPS_AT, LEVELS, cell_names, cells
from labcore.experiments.pdw_sweep import ROWS as SWEEP_ROWS
from labcore.experiments.study import STUDIES
from ui import data, jobs
from ui.data import ROOT

if TYPE_CHECKING:
    import pandas as pd

    from labcore.experiments.study import LoadedStudy
    from labcore.findings import Finding, StudySummary
    from labcore.training.neurogym_trainer import NeuroGymRLConfig


E4_RESULTS_DIR = ROOT / "results" / "e4"
"""The bundled E4 result set (metacognition from reward alone); read at call time."""
LIVE_KIND = "reward_wager"
"""What the "From reward alone" page trains live: E4's arm (a)."""
# The live budget of the wager run (labcore.budgets.LiveBudgets), read at call time (tests shrink it
# here).
LIVE_TRAIN = LIVE_BUDGETS.reward_training


def e4_arm_names() -> list[str]:
    """E4's arms in the registered order (:data:`labcore.experiments.e4.ARMS`)."""
    from labcore.experiments import e4

    return [a.name for a in e4.ARMS]


def e4_reference() -> tuple[str, str]:
    """E4's reference arm, the supervised agent: its name and its agent kind."""
    from labcore.experiments import e4

    return e4.REFERENCE, e4.ARMS_BY_NAME[e4.REFERENCE].kind


def e4_comparison_seeds(available: dict[str, list[int]]) -> dict[str, list[int]]:
    """Each reward-trained arm's kind with the seeds it shares with the supervised agent in
    ``available`` (kind -> seeds, :func:`ui.data.seeds_by_kind`); arms without such a seed left
    out."""
    from labcore.experiments import e4

    _, supervised = e4_reference()
    paired = set(available.get(supervised, []))
    shared = {
        a.kind: sorted(set(available.get(a.kind, [])) & paired)
        for a in e4.ARMS
        if a.name != e4.REFERENCE
    }
    return {k: v for k, v in shared.items() if v}


def train_live(
    seed: int, progress: Callable[[int, int, dict], None] | None = None
) -> tuple[dict, Path]:
    """Train one :data:`LIVE_KIND` seed with :data:`LIVE_TRAIN` and save it in this session's
    folder.

    The run goes through the server's :func:`ui.data.training_queue` (a worker process; other
    sessions'
    pages do not stall); this call waits for it, passing its progress on.

    Parameters
    ----------
    seed : int
        The seed offered to this session (:func:`ui.data.offered_seed`), reserved as the run
        starts; if another session started it meanwhile, the run takes this session's next free
        seed (the record's ``seed`` says which).
    progress : callable, optional
        ``progress(done, total, metrics)`` as :func:`labcore.training.behaviour_cloning.train_seeds`
        calls it.

    Returns
    -------
    (record, path)
        The training record (its ``history`` holds the held-out AUROC per evaluation) and the
        saved checkpoint, under :func:`ui.data.session_dir`; never in the shipped ``checkpoints/``.

    Raises
    ------
    CheckpointError
        If the seed is another session's, this session is already training, or the run fails.
    """
    from labcore.storage.checkpoints import CheckpointError

    try:
        job = data.submit_training("wagering", LIVE_KIND, seed, LIVE_TRAIN, or_next=True)
    except jobs.QueueFull as exc:
        raise CheckpointError(str(exc)) from None
    seen = 0
    while True:
        done = not job.active
        history = list(job.history)
        if progress is not None:
            for entry in history[seen:]:
                progress(int(entry["done"]), int(entry["total"]), entry)
        seen = len(history)
        if done:
            break
        time.sleep(jobs.POLL_SECONDS)
    data.training_queue().forget(job)
    if job.state != "done" or job.result is None:
        raise CheckpointError(f"the run failed ({job.error})")
    data.read_checkpoint_manifest.clear()
    return job.result["record"], Path(job.result["path"])


NEUROGYM_STUDY_DIR = ROOT / "results" / STUDIES["neurogym"].folder
"""The bundled NeuroGym study (protocol 8.6) the "From reward alone" page shows."""


def neurogym_study() -> LoadedStudy:
    """The NeuroGym study of :data:`NEUROGYM_STUDY_DIR` (problems listed, never raised)."""
    return data.read_study("neurogym", str(NEUROGYM_STUDY_DIR), None)


# ----------------------------------------------------------------------- protocol 8.7
PDW_STUDY_DIR = ROOT / "results" / STUDIES["pdw"].folder
"""The bundled Song et al. reproduction (``study pdw``); read at call time (tests point it
elsewhere)."""
PDW_SWEEP_STUDY_DIR = ROOT / "results" / STUDIES["pdw_sweep"].folder
"""The bundled reward explorer (``study pdw_sweep``); read at call time."""
PDW_HELD_STUDY_DIR = ROOT / "results" / STUDIES["pdw_held"].folder
"""The explorer's bundled post hoc follow-up (``study pdw_held``); read at call time."""
LIVE_SURE_OPTION = LIVE_BUDGETS
"""The budgets of the live sure-option run (``sure_option_*``; tests shrink them here)."""
EXPLORER_FACTORS = FACTORS
EXPLORER_CELLS = tuple(cell_names("registered"))
"""The explorer's 16 cells, in the registered order."""
EXPLORER_LEVELS = LEVELS
"""Each factor's (Song level, old level) as training-config fields."""
EXPLORER_KEEPS_AT = KEEPS_AT
PDW_POLICIES = POLICIES
"""How a network's choices are read: sampled (registered) or greedy."""


def pdw_study() -> LoadedStudy:
    """The Song et al. reproduction of :data:`PDW_STUDY_DIR` (signatures by coherence, curves,
    the per-seed values), cached; problems listed, never raised. Its trial files are not read."""
    return data.read_study("pdw", str(PDW_STUDY_DIR), (BY_COHERENCE.name, CURVES.name, SEEDS.name))


def pdw_sweep_study() -> LoadedStudy:
    """The reward explorer of :data:`PDW_SWEEP_STUDY_DIR` (one row per agent, curves), cached."""
    return data.read_study(
        "pdw_sweep", str(PDW_SWEEP_STUDY_DIR), (SWEEP_ROWS.name, SWEEP_CURVES.name)
    )


def pdw_held_study() -> LoadedStudy:
    """The explorer's post hoc follow-up of :data:`PDW_HELD_STUDY_DIR`, cached: its summary and
    learning curves (the long cells' are drawn; its rows stay on disk)."""
    return data.read_study("pdw_held", str(PDW_HELD_STUDY_DIR), (SWEEP_CURVES.name,))


def reward_summaries(e4_summary: StudySummary | None) -> dict[str, StudySummary | None]:
    """The five studies the lab's answer is composed from (None: not run, or unusable): the
    cached NeuroGym studies and E4's summary, the one the page already holds."""
    return {
        "pdw": pdw_study().summary,
        "pdw_sweep": pdw_sweep_study().summary,
        "pdw_held": pdw_held_study().summary,
        "e4": e4_summary,
        "neurogym": neurogym_study().summary,
    }


def reward_answer(summaries: dict[str, StudySummary | None], form: str = "short") -> str:
    """The lab's answer from :func:`reward_summaries` in ``form`` ("short", "long", ...:
    :func:`labcore.experiments.reward_answer.answer`, ``labcore/templates/reward.j2``)."""
    from labcore.experiments.reward_answer import answer

    return answer(summaries, form)


def reward_findings(summaries: dict[str, StudySummary | None]) -> list[Finding]:
    """The findings the answer cites, named as it names them
    (:func:`labcore.experiments.reward_answer.cited`)."""
    from labcore.experiments.reward_answer import cited

    return cited(summaries)


def sure_option_config(
    entropy_coef: float, readout_init: str, input_scale: float
) -> NeuroGymRLConfig:
    """The live sure-option run's training (Song's setting with these three choices, the live
    budget)."""
    from labcore.training.neurogym_trainer import live_config

    return live_config(entropy_coef, readout_init, input_scale, budgets=LIVE_SURE_OPTION)


def reference_curves(cfg: NeuroGymRLConfig) -> tuple[pd.DataFrame | None, str, list[int]]:
    """The bundled curves a live sure-option run is drawn against: its explorer cell's if the
    explorer
    holds it, else the reproduction's plain GRU; with their name and the updates at which their
    seeds
    met the criterion."""
    cell = explorer_cell_of(cfg)
    sweep = pdw_sweep_study()
    frame = sweep.frame(SWEEP_CURVES.name)
    if cell and frame is not None and (frame["cell"] == cell).any():
        rows = sweep.frame(SWEEP_ROWS.name)
        return (
            frame[(frame["cell"] == cell) & (frame["agent"] == "plain_gru")],
            f"the explorer's cell {cell} (bundled, mean over seeds)",
            _criterion_met(None if rows is None else rows[rows["cell"] == cell]),
        )
    study = pdw_study()
    frame = study.frame(CURVES.name)
    if frame is None:
        return None, "", []
    seeds = study.frame(SEEDS.name)
    mine = None
    if seeds is not None:
        mine = seeds[
            (seeds["agent"] == "plain_gru")
            & (seeds["training"] == "reward")
            & (seeds["policy"] == "sampled")
        ]
    return (
        frame[(frame["agent"] == "plain_gru") & (frame["training"] == "reward")],
        "Song's setting, the reproduction (bundled, mean over seeds)",
        _criterion_met(mine),
    )


def _criterion_met(networks: pd.DataFrame | None) -> list[int]:
    """The updates after which each of these networks (rows with ``updates`` and ``stopped``) met
    the stopping criterion."""
    if networks is None:
        return []
    return [
        int(u)
        for u, how in zip(networks["updates"], networks["stopped"], strict=True)
        if how == "criterion"
    ]


def explorer_cell_of(cfg: NeuroGymRLConfig) -> str | None:
    """The explorer cell trained as ``cfg`` is in its entropy, readout initialisation and input
    scale,
    every other factor at Song's level (S, or S with one of those three at the old level), else
    None."""
    for cell in cells():
        if (
            cell.side == "S"
            and cell.factor in ("", "entropy", "readout_init", "input_scale")
            and all(
                getattr(cell.cfg, k) == getattr(cfg, k)
                for k in ("entropy_coef", "readout_init", "input_scale")
            )
        ):
            return cell.name
    return None
