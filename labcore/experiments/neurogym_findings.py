"""The NeuroGym study (protocol sec. 8.6): its files, reading rule and findings, as pure functions
of its rows (no torch). Training and measuring the agents is
:mod:`labcore.experiments.explore_neurogym`.

On NeuroGym's post-decision wager, does an agent trained from the task's reward alone take the sure
option more often as coherence falls? The registered reading (change log 2026-11-23, item 6): the
share of sure-offered trials on which it is taken at 0 and 3.2% coherence minus at 25.6 and 51.2%,
per seed; it *rises* when the 95% t interval over seeds lies above 0. Post hoc, labelled so: the
same network imitating the ideal observer (the architecture's ceiling).

Files (``results/explore_neurogym/``): ``neurogym_by_coherence.csv`` (one row per seed, observer
and coherence), ``neurogym_curves.csv`` (held-out reward and the sure option's probability over
training), ``neurogym_seeds.csv`` (every number of a seed, :data:`SEED_VALUES`), ``summary.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from labcore.experiments.pdw_findings import above_zero, seed_estimate
from labcore.experiments.study import Rows, Table
from labcore.findings import Answer, Finding, Flag, StudySummary
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES
from labcore.render import finite

STUDY_NAME = "neurogym"
OBSERVERS = ("reward", "imitation", "ideal")
"""Agents trained from NeuroGym's reward (registered), the same network imitating the ideal
observer (post hoc: the architecture's ceiling), and the ideal observer itself."""
TRAINED = ("reward", "imitation")
SEED_VALUES = (
    *(
        f"{o}_{m}"
        for o in OBSERVERS
        for m in ("reward", "sure_gap", "sure_rate", "accuracy_not_offered", "accuracy_waived")
    ),
    *(
        f"{o}_{m}"
        for o in TRAINED
        for m in (
            "max_p_sure",
            "auroc_opt_out",
            "side_accuracy",
            "wall_seconds",
            "best_update",
            "p_sure_start",
            "p_sure_at_20",
        )
    ),
    "ideal_auroc",
    "ideal_no_sure_reward",
)
"""Every number of one seed (``neurogym_seeds.csv``), in the order the study computes them."""

BY_COHERENCE = Table(
    "neurogym_by_coherence",
    (
        "seed", "observer", "coherence", "n_trials", "n_sure_offered", "sure_rate", "accuracy",
        "accuracy_not_offered", "accuracy_waived", "no_choice_rate",
    ),
    text=("observer",),
    optional=("sure_rate", "accuracy", "accuracy_not_offered", "accuracy_waived"),
)  # fmt: skip
CURVES = Table(
    "neurogym_curves",
    (
        "seed", "trainer", "update", "heldout_reward", "heldout_p_sure_offered",
        "heldout_p_sure_not_offered", "train_reward", "train_entropy", "train_imitation_loss",
    ),
    text=("trainer",),
    optional=(
        "heldout_reward", "heldout_p_sure_offered", "heldout_p_sure_not_offered",
        "train_reward", "train_entropy", "train_imitation_loss",
    ),
)  # fmt: skip
"""Each evaluation, and the early probes of the sure option's probability (post hoc;
``heldout_reward`` empty on a probe-only row)."""
SEEDS = Table("neurogym_seeds", ("seed", *SEED_VALUES), optional=SEED_VALUES)
TABLES = (BY_COHERENCE, CURVES, SEEDS)

MEASURE_WORDS = {
    "reward": "Reward per trial",
    "sure_gap": "Sure option taken at 0 and 3.2% coherence minus at 25.6 and 51.2%",
    "sure_rate": "Share of the trials offering the sure option on which it is taken",
    "accuracy_not_offered": "Accuracy when the sure option is not offered",
    "accuracy_waived": "Accuracy when the sure option is offered and declined",
    "max_p_sure": "The policy's largest probability of the sure option on a trial offering it",
    "auroc_opt_out": "Type-2 AUROC of the policy's pull away from the sure option",
    "side_accuracy": "Accuracy of the side the policy prefers",
    "wall_seconds": "Training time in seconds",
    "best_update": "The update of the network kept",
    "p_sure_start": "Probability of the sure option before training (trials offering it)",
    "p_sure_at_20": "Probability of the sure option after 20 updates (trials offering it)",
    "auroc": "Type-2 AUROC of its posterior",
    "no_sure_reward": "Reward per trial if it never took the sure option",
}
"""What each seed mean answers (typed once), by measure."""
OBSERVER_WORDS = {
    "reward": "agents trained from NeuroGym's reward",
    "imitation": "the same network imitating the ideal observer",
    "ideal": "the ideal observer, same trials",
}
UNITS = {
    "reward": "number",
    "sure_gap": "difference",
    "max_p_sure": "number",
    "auroc_opt_out": "auroc",
    "auroc": "auroc",
    "wall_seconds": "number",
    "best_update": "count",
    "p_sure_start": "number",
    "p_sure_at_20": "number",
    "no_sure_reward": "number",
}
"""How each measure is written (every other one is a share: percent)."""
POST_HOC = Flag(
    kind="post_hoc",
    note="added after the registered agents: the architecture's ceiling (change log 2026-11-23)",
)
OUTCOME = {True: "supported", False: "not supported", None: "undefined"}


def _finding(key: str, est: dict[str, Any], **extra: Any) -> Finding:
    observer, measure = key.split("_", 1)
    return Finding(
        id=f"{STUDY_NAME}.{key}",
        question=f"{MEASURE_WORDS[measure]} ({OBSERVER_WORDS[observer]})",
        **est,
        unit=UNITS.get(measure, "percent"),
        measure={"sure_gap": "s1", "auroc": "type2_auroc", "auroc_opt_out": "type2_auroc"}.get(
            measure, ""
        ),
        flags=(POST_HOC,) if observer == "imitation" else (),
        study=STUDY_NAME,
        files=(SEEDS.file,),
        section="protocol sec. 8.6",
        **extra,
    )


def early_not_offered(curves: Sequence[Mapping[str, Any]]) -> float | None:
    """Mean P(sure) of the reward-trained agents after 20 updates on trials without the offer
    (None: no such probe in the study)."""
    values = [
        r["heldout_p_sure_not_offered"]
        for r in curves
        if r["trainer"] == "reward"
        and r["update"] == 20
        and finite(r["heldout_p_sure_not_offered"])
    ]
    return float(sum(values) / len(values)) if values else None


class NeuroGymTables(BaseModel):
    """The NeuroGym study's tables (``summary.json`` ``tables``)."""

    model_config = ConfigDict(extra="forbid")
    low_coherences: list[float]
    high_coherences: list[float]
    registered: str
    post_hoc: list[str]


def _outcome(rises: bool | None, seeds: Sequence[Mapping[str, Any]]) -> str:
    if rises:
        return "rises"
    if rises is None:
        return "undecided"
    return "never_takes" if all(r["reward_sure_rate"] == 0 for r in seeds) else "does_not_rise"


def summarise(config: Any, rows: Rows) -> StudySummary:
    """The study's findings (every seed mean with its 95% t interval; the reading per observer),
    answer and tables from its rows."""
    seeds = rows[SEEDS.name]
    findings = []
    for key in SEED_VALUES:
        finding = _finding(key, seed_estimate(r[key] for r in seeds))
        if key.endswith("_sure_gap"):  # the reading rule, per observer
            finding = finding.model_copy(
                update={"hypothesis": "S1", "outcome": OUTCOME[above_zero(finding)]}
            )
        findings.append(finding)
    by_id = {f.id: f for f in findings}
    largest = [r["reward_max_p_sure"] for r in seeds if finite(r["reward_max_p_sure"])]
    findings.append(
        _finding(
            "reward_max_p_sure",
            {"value": max(largest) if largest else None, "n": len(largest)},
        ).model_copy(
            update={
                "id": f"{STUDY_NAME}.reward_max_p_sure.largest",
                "question": "The largest probability of the sure option on any held-out trial "
                "of any seed (agents trained from NeuroGym's reward)",
            }
        )
    )
    ideal, never = by_id["neurogym.ideal_reward"], by_id["neurogym.ideal_no_sure_reward"]
    worth = None if None in (ideal.value, never.value) else ideal.value - never.value
    findings.append(
        Finding(
            id=f"{STUDY_NAME}.sure_worth",
            question="What the sure option is worth per trial to a perfect player (the ideal "
            "observer's reward minus its reward if it never took it)",
            value=worth,
            n=ideal.n,
            unit="number",
            measure="ideal_observer",
            study=STUDY_NAME,
            files=(SEEDS.file,),
            section="protocol sec. 8.6",
        )
    )
    early = early_not_offered(rows.get(CURVES.name, []))
    findings.append(
        _finding(
            "reward_p_sure_at_20", {"value": early, "n": len(seeds) if early is not None else 0}
        ).model_copy(
            update={
                "id": f"{STUDY_NAME}.reward_p_sure_not_offered_at_20",
                "question": "Probability of the sure option after 20 updates (trials not "
                "offering it; agents trained from NeuroGym's reward)",
                "files": (CURVES.file,),
            }
        )
    )
    gap = by_id["neurogym.reward_sure_gap"]
    answer = Answer(
        outcome=_outcome(above_zero(gap), seeds),
        findings=(
            "neurogym.reward_sure_gap",
            "neurogym.ideal_sure_gap",
            "neurogym.reward_reward",
            "neurogym.ideal_reward",
        ),
    )
    tables = NeuroGymTables(
        low_coherences=list(LOW_COHERENCES),
        high_coherences=list(HIGH_COHERENCES),
        registered="reward",
        post_hoc=["imitation"],
    )
    return StudySummary(
        study=STUDY_NAME,
        registered="docs/protocol.md sec. 8.6 and change log 2026-11-23",
        seeds=sorted(int(r["seed"]) for r in seeds),
        findings=findings,
        answer=answer,
        tables=tables.model_dump(mode="json"),
    )
