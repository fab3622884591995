"""Behaviour cloning from the oracle, N seeds at once (paper sec. 4.3; protocol sec. 5.3).

N agents of one kind train as one seed-batched model (:mod:`labcore.agents.sequence`): every
member keeps its own initialisation, its own demonstrations (the episode seeds it gets when
trained alone), its own minibatches, noise and dropout draws (its own generator), its own
Adam state and its own convergence decision. Training one seed is a batch of one, through
the same code, so a member trained in a batch and the same seed trained alone compute the
same numbers (``tests/agents/test_training.py`` checks it).

Two schedules share the losses:

- **fast** (default): batched BPTT over whole episodes sampled from a pool of oracle
  demonstrations, stopped per member when its held-out loss stops improving (its best
  held-out weights are kept and it is frozen while the others go on);
- **paper**: the paper's schedule, online, one episode at a time and one optimizer update per
  environment step, with the exact gradient through the episode so far; the report weights
  (x3, x20) scale each step's loss (protocol change log, 2026-11-23).

Both report held-out oracle-action agreement (per-step argmax match); a seed below 95% is
flagged and excluded from analyses, as in the paper, unless its wiring makes the criterion
unattainable by construction (cue-blind agents), which is flagged instead.
"""

from __future__ import annotations

import platform
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import minigrid
import numpy as np
import torch
from torch import nn

import labcore
import labcore.envs as E
from labcore import compute
from labcore.agents import Agent, Observation, build_agent
from labcore.agents.sequence import (
    SequenceInputs,
    SequenceOutput,
    StepTable,
    masked_centre,
    sequence_forward,
    sequence_heads,
    sequence_states,
)
from labcore.config import AGENT_KINDS, AgentConfig, Intervention, TrainConfig, train_config_of
from labcore.envs.batch import Demonstrations, StepKind, oracle_demonstrations, report_mask
from labcore.interventions import sequence_workspace_noise
from labcore.members import (
    MemberParameters,
    StackedAdam,
    read_snapshot,
    snapshot_identity,
    write_snapshot,
)
from labcore.seeding import episode_seeds, seed_everything
from labcore.wager_reward import (
    WAGER_HEAD,
    WagerLog,
    reward_meta_loss,
    wager_choice_mask,
    warm_start,
)

TASK_IDS = {"dual": E.DUAL_TASK, "wagering": E.WAGERING}
"""Training task of each name; E2 and E3 agents are trained on the dual task, E1 agents on wagering."""

HELDOUT_CHUNK = 128
"""Held-out episodes evaluated per pass (bounds memory for large seed batches)."""
ROW_MULTIPLE = 16
"""Every pass holds a multiple of this many episodes per member (padding with masked copies).

PyTorch's vectorised kernels handle 16 floats at a time and finish a tensor's remainder with
scalar code, whose ``exp`` (sigmoid, BCE) can round differently. A member's elements must
therefore never fall in that remainder in one batch and in the vector body in another: with
a multiple of 16 episodes per member, every member's share of every tensor is a multiple of
16 floats, whatever N. Masked copies weigh nothing, so they add exact zeros to every sum."""


# ----------------------------------------------------------------------- demonstrations
@dataclass
class DemoTensors:
    """Oracle demonstrations of one agent as torch tensors (an :class:`Observation` per step)."""

    obs: Observation
    action: torch.Tensor
    step_kind: torch.Tensor
    valid: torch.Tensor
    stimulus: torch.Tensor | None

    @classmethod
    def from_demonstrations(cls, demos: Demonstrations) -> DemoTensors:
        """Tensors of a :class:`~labcore.envs.batch.Demonstrations`."""
        pose = torch.as_tensor(np.array(demos.pose))
        obs = Observation(
            direction=torch.as_tensor(np.array(demos.direction_table))[pose],
            task=torch.as_tensor(np.array(demos.task)),
            cue=torch.as_tensor(np.array(demos.cue)),
            pose=pose,
            image_table=torch.as_tensor(np.array(demos.image_table)),
        )
        stimulus = demos.labels.get("stimulus")
        return cls(
            obs=obs,
            action=torch.as_tensor(np.array(demos.action)),
            step_kind=torch.as_tensor(np.array(demos.step_kind)).long(),
            valid=torch.as_tensor(np.array(demos.valid)),
            stimulus=None if stimulus is None else torch.as_tensor(np.array(stimulus)).float(),
        )

    def __len__(self) -> int:
        return self.action.shape[0]

    def index(self, episodes: Any, steps: slice = slice(None)) -> DemoTensors:
        """Select episodes (any index) and a range of steps."""
        item = (episodes, steps)
        return DemoTensors(self.obs.index(item), self.action[item], self.step_kind[item],
                           self.valid[item], None if self.stimulus is None else self.stimulus[episodes])


@dataclass
class MemberDemos:
    """Demonstrations of N members, stacked: ``(N, episodes, T)`` per field.

    Member ``i`` holds its own episodes (those of its seed); all share one
    :class:`~labcore.agents.sequence.StepTable`.
    """

    inputs: SequenceInputs
    action: torch.Tensor
    step_kind: torch.Tensor
    valid: torch.Tensor
    stimulus: torch.Tensor | None

    @property
    def n_episodes(self) -> int:
        """Episodes per member."""
        return self.action.shape[1]

    def padded(self, episodes: int) -> MemberDemos:
        """These episodes followed by masked copies (not valid, so they weigh nothing), to
        ``episodes`` per member; see :data:`ROW_MULTIPLE`."""
        extra = episodes - self.n_episodes
        if extra <= 0:
            return self
        rows = torch.cat([torch.arange(self.n_episodes), torch.arange(extra) % self.n_episodes])
        out = self.select(episodes=rows)
        out.valid = out.valid.clone()
        out.valid[:, self.n_episodes:] = False
        return out

    def select(self, members: Any = slice(None), episodes: Any = slice(None),
               steps: Any = slice(None)) -> MemberDemos:
        """Members (index), episodes (index or per-member ``(N, B)`` tensor) and steps."""
        if torch.is_tensor(episodes) and episodes.dim() == 2:
            # One gather per field: (member, episode) pairs, never a copy of a member's pool.
            rows = torch.arange(self.action.shape[0])[members]
            rows = torch.as_tensor(rows).reshape(-1, 1)
            pick = lambda x: x[rows, episodes][:, :, steps]  # noqa: E731
            stim = None if self.stimulus is None else self.stimulus[rows, episodes]
        else:
            pick = lambda x: x[members][:, episodes][:, :, steps]  # noqa: E731
            stim = None if self.stimulus is None else self.stimulus[members][:, episodes]
        inputs = SequenceInputs(pick(self.inputs.combo), pick(self.inputs.cue), self.inputs.table,
                                self.inputs.max_events)
        return MemberDemos(inputs, pick(self.action), pick(self.step_kind), pick(self.valid), stim)


_DEMO_CACHE: OrderedDict[tuple[str, bytes], Demonstrations] = OrderedDict()
DEMO_CACHE_SIZE = 48
"""Episode sets whose oracle demonstrations a process keeps (about 10 MB each): the kinds of a
run train on the same seeds' demonstrations, and a shadow member on its twin's."""


def cached_demonstrations(task_id: str, seeds: np.ndarray) -> Demonstrations:
    """:func:`~labcore.envs.batch.oracle_demonstrations`, remembered per (task, episode seeds)."""
    key = (task_id, np.asarray(seeds, np.int64).tobytes())
    if key in _DEMO_CACHE:
        _DEMO_CACHE.move_to_end(key)
        return _DEMO_CACHE[key]
    demos = oracle_demonstrations(task_id, seeds)
    _DEMO_CACHE[key] = demos
    while len(_DEMO_CACHE) > DEMO_CACHE_SIZE:
        _DEMO_CACHE.popitem(last=False)
    return demos


def member_demonstrations(task_id: str, episode_sets: Sequence[np.ndarray]) -> list[MemberDemos]:
    """Stack the oracle demonstrations of several episode sets per member.

    ``episode_sets[k]`` is an ``(N, n_k)`` array of environment seeds (e.g. each member's
    training pool, then its held-out set). Returns one :class:`MemberDemos` per set, all on
    one step table.
    """
    demos = [[cached_demonstrations(task_id, row) for row in seeds] for seeds in episode_sets]
    first = demos[0][0]
    # Lengths fixed by the task, not by the data: sums over steps then add the same terms in
    # the same order, and products have the same shapes, whichever members share the batch.
    sim = E.make_batch(task_id)
    length = sim.oracle_steps
    if any(d.n_steps > length for rows in demos for d in rows):
        raise RuntimeError(f"an oracle episode of {task_id} is longer than its oracle_steps ({length})")

    def stack(rows: list[Demonstrations], name: str, fill=0) -> torch.Tensor:
        arrays = []
        for d in rows:
            a = np.asarray(getattr(d, name))
            pad = [(0, 0), (0, length - a.shape[1])] + [(0, 0)] * (a.ndim - 2)
            arrays.append(np.pad(a, pad, constant_values=fill))
        return torch.as_tensor(np.stack(arrays))

    table = StepTable.of_task(torch.as_tensor(np.array(first.image_table)),
                              torch.as_tensor(np.array(first.direction_table)))
    out = []
    for rows in demos:
        stimulus = [d.labels.get("stimulus") for d in rows]
        combo = StepTable.rows_of(stack(rows, "pose"), stack(rows, "task"))
        out.append(MemberDemos(
            inputs=SequenceInputs(combo, stack(rows, "cue"), table, sim.max_events),
            action=stack(rows, "action"),
            step_kind=stack(rows, "step_kind").long(),
            valid=stack(rows, "valid", False),
            stimulus=None if stimulus[0] is None else torch.as_tensor(np.stack(stimulus)).float(),
        ))
    return out


# ----------------------------------------------------------------------- losses
def step_weights(step_kind: torch.Tensor, valid: torch.Tensor, cfg: TrainConfig) -> torch.Tensor:
    """Per-step weight of the imitation loss (paper sec. 4.3.2).

    Ordinary steps 1; report steps ``report_weight`` (3); the primary-cue report additionally
    ``primary_class_weight`` (x20); wager steps 0 (the wager is the confidence head's job,
    and the oracle, always right, would only teach "always bet"); padding 0.
    """
    w = torch.ones(step_kind.shape)
    w[step_kind == StepKind.REPORT_1] = cfg.report_weight
    w[step_kind == StepKind.REPORT_2] = cfg.report_weight * cfg.primary_class_weight
    w[step_kind == StepKind.WAGER] = 0.0
    return w * valid.float()


@dataclass
class Losses:
    """Each member's total loss ``(N,)`` (to differentiate) and its parts ``(N,)`` (detached)."""

    total: torch.Tensor
    parts: dict[str, torch.Tensor] = field(default_factory=dict)


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-member mean of ``values`` over ``mask`` (leading dim N); 0 where a member has none."""
    m = mask.float()
    return (values * m).flatten(1).sum(1) / m.flatten(1).sum(1).clamp(min=1.0)


def compute_losses(config: AgentConfig, out: SequenceOutput, batch: MemberDemos, cfg: TrainConfig,
                   step_mask: torch.Tensor | None = None, normaliser: torch.Tensor | None = None,
                   generators: Sequence[torch.Generator] | None = None,
                   meta_scale: torch.Tensor | None = None) -> Losses:
    """Imitation, metacognition, stimulus-probe and z_self activity losses, per member.

    The imitation loss is the weighted cross-entropy of the oracle action (KL with a one-hot
    oracle). By default it is normalised by the summed weights of the scored steps (fast
    mode: a weighted mean, so the x3 and x20 weights set the *relative* importance of steps).
    ``step_mask`` restricts every term to some steps and ``normaliser`` ``(N,)`` replaces the
    normalisation (the paper schedule scores one step, divided by its episode's mean weight,
    so the weights reach the gradient; dividing by the step's own weight would cancel them).
    With ``cfg.meta_signal == "reward"`` the meta loss is the wager's policy gradient on bets
    drawn from ``generators`` (one per member; :mod:`labcore.wager_reward`; none: held out).
    ``meta_scale`` ``(N,)`` multiplies each member's meta loss (0 before its wager phase starts).
    """
    c = config
    valid = batch.valid if step_mask is None else batch.valid & step_mask
    weight = step_weights(batch.step_kind, valid, cfg)
    target = torch.where(batch.valid, batch.action, torch.zeros_like(batch.action))
    norm = weight.flatten(1).sum(1).clamp(min=1e-8) if normaliser is None else normaliser
    n_actions = out.logits.shape[-1]

    def imitation(logits: torch.Tensor) -> torch.Tensor:
        ce = nn.functional.cross_entropy(logits.reshape(-1, n_actions), target.reshape(-1), reduction="none")
        return (ce.reshape(weight.shape) * weight).flatten(1).sum(1) / norm

    total = imitation(out.logits)
    parts = {"imitation": total.detach()}
    if c.self_model and c.policy_reads == "self_model":
        # The proposal is the agent's intended action (protocol 5.2): it imitates too.
        proposal = imitation(out.proposal_logits)
        total = total + proposal
        parts["proposal"] = proposal.detach()
    report = report_mask(batch.step_kind, valid)
    if c.self_model and cfg.meta_weight > 0 and cfg.meta_signal == "reward":
        # E4: no correctness label; the confidence learns from the reward of the bets it samples.
        meta, parts["wager_reward"] = reward_meta_loss(out, batch, valid, cfg, generators)
        total = total + cfg.meta_weight * (meta if meta_scale is None else meta * meta_scale)
        parts["meta"] = meta.detach()
    elif c.self_model and cfg.meta_weight > 0:
        # Target: is the agent's own argmax decision correct? (paper sec. 4.3.2)
        correct = (out.logits.argmax(-1) == batch.action).float().detach()
        bce = nn.functional.binary_cross_entropy(out.confidence, correct, reduction="none")
        meta = _masked_mean(bce, report)
        total = total + cfg.meta_weight * meta
        parts["meta"] = meta.detach()
    if c.self_model and cfg.self_model_l2 > 0:
        l2 = _masked_mean(out.z_self.pow(2).mean(-1), valid)
        total = total + cfg.self_model_l2 * l2
        parts["z_self_l2"] = l2.detach()
    if c.workspace and batch.stimulus is not None and cfg.stimulus_probe_weight > 0:
        # E1: a linear probe on the workspace predicts the stimulus at every step once the
        # cue has been written (paper sec. 4.3.2, "Stimulus Auxiliary Loss").
        written = valid & out.occupied.any(-1)
        label = batch.stimulus[:, :, None].expand_as(out.stimulus_logit)
        bce = nn.functional.binary_cross_entropy_with_logits(out.stimulus_logit, label, reduction="none")
        probe = _masked_mean(bce, written)
        total = total + cfg.stimulus_probe_weight * probe
        parts["stimulus_probe"] = probe.detach()
    parts["total"] = total.detach()
    return Losses(total, parts)


# ----------------------------------------------------------------------- randomness per member
def _noise_sds(config: AgentConfig, episodes: int, generators: Sequence[torch.Generator]) -> list | None:
    """Per-episode workspace-noise SDs of noise-augmented training, from each member's generator."""
    if config.train_workspace_noise <= 0:
        return None
    return [torch.rand(episodes, generator=g) * config.train_workspace_noise for g in generators]


def _noise_fn(config: AgentConfig, sds: list | None, generators: Sequence[torch.Generator]) -> Callable | None:
    """The workspace-noise callback of :func:`sequence_forward`: each member's draws from its generator."""
    if sds is None:
        return None
    iv = Intervention()

    def noise(source: torch.Tensor) -> torch.Tensor:
        return torch.stack([sequence_workspace_noise(source[i], iv, sds[i], config.slot_dim, g)
                            for i, g in enumerate(generators)])
    return noise


def _dropout_mask(config: AgentConfig, shape: tuple[int, int], generators: Sequence[torch.Generator]):
    """Pre-scaled dropout masks ``(N, B, T, hidden)`` of the policy's hidden layer, per member."""
    if config.dropout <= 0:
        return None
    keep = 1.0 - config.dropout
    return torch.stack([torch.empty(*shape, config.readout_hidden).bernoulli_(keep, generator=g) / keep
                        for g in generators])


def _forward(config: AgentConfig, params: MemberParameters, batch: MemberDemos,
             generators: Sequence[torch.Generator] | None = None, sds: list | None = None,
             centre_mask: torch.Tensor | None = None) -> SequenceOutput:
    """The training pass; with ``generators``, dropout and noise are drawn per member; a centred
    confidence head takes its centre over ``centre_mask`` (else the stored one)."""
    noise = dropout = None
    if generators is not None:
        dropout = _dropout_mask(config, batch.inputs.shape[1:], generators)
        noise = _noise_fn(config, sds, generators)  # its draws happen inside the pass, after the masks
    return sequence_forward(params.tensors(), config, batch.inputs, workspace_noise=noise, dropout=dropout,
                            centre_mask=centre_mask)


@torch.no_grad()
def heldout_metrics(config: AgentConfig, params: MemberParameters, data: MemberDemos,
                    cfg: TrainConfig) -> list[dict[str, float]]:
    """Teacher-forced held-out agreement with the oracle per member (paper sec. 4.3.3).

    ``loss`` is the weighted imitation loss (the behaviour-cloning objective, used for the
    convergence rule); ``total_loss`` adds the auxiliary terms. ``agreement`` counts every
    valid step the policy answers (wager steps excluded: the confidence head answers those);
    ``report_agreement`` only the report/decision steps.
    """
    n = data.inputs.shape[0]
    wagers = WagerLog(cfg.wrong_bet_payoff) if config.self_model and cfg.meta_signal == "reward" else None
    sums = {k: torch.zeros(n, dtype=torch.float64) for k in ("imitation", "total", "weight", "match", "scored",
                                                              "report_match", "report")}
    for start in range(0, data.n_episodes, HELDOUT_CHUNK):
        chunk = data.select(episodes=slice(start, start + HELDOUT_CHUNK))
        chunk = chunk.padded(-(-chunk.n_episodes // ROW_MULTIPLE) * ROW_MULTIPLE)
        out = _forward(config, params, chunk)
        weight = step_weights(chunk.step_kind, chunk.valid, cfg).flatten(1).sum(1).double()
        losses = compute_losses(config, out, chunk, cfg)
        if wagers is not None:
            wagers.add(out, chunk)
        sums["imitation"] += losses.parts["imitation"].double() * weight
        sums["total"] += losses.parts["total"].double() * weight  # chunks weighted like the imitation loss
        sums["weight"] += weight
        match = out.logits.argmax(-1) == chunk.action
        scored = chunk.valid & (chunk.step_kind != StepKind.WAGER)
        report = report_mask(chunk.step_kind, chunk.valid)
        sums["match"] += (match & scored).flatten(1).sum(1).double()
        sums["scored"] += scored.flatten(1).sum(1).double()
        sums["report_match"] += (match & report).flatten(1).sum(1).double()
        sums["report"] += report.flatten(1).sum(1).double()
    out = []
    for i in range(n):
        w = float(sums["weight"][i])
        out.append({
            "loss": float(sums["imitation"][i]) / w,
            "total_loss": float(sums["total"][i]) / w,
            "agreement": float(sums["match"][i] / sums["scored"][i]),
            "report_agreement": float(sums["report_match"][i] / max(float(sums["report"][i]), 1.0)),
            **(wagers.metrics(i) if wagers is not None else {}),
        })
    return out


# ----------------------------------------------------------------------- the trainers
ProgressFn = Callable[[int, int, dict[str, float]], None]
"""``progress(done, total, metrics)``: updates (fast) or episodes (paper) done of the budget;
``metrics`` has ``members_done``/``members``, the live members' mean held-out agreement, in fast mode
``earliest_stop`` (the first update at which the stopping rule could end the run: a progress bar's end),
for E4's reward-trained kinds their mean ``heldout_auroc``, ``heldout_confidence``, ``heldout_wager_reward`` (None where undefined)."""


@dataclass
class TrainedAgent:
    """A trained agent and the record of how it was made (written beside its checkpoint)."""

    agent: Agent
    record: dict


def library_versions() -> dict[str, str]:
    """Versions of the libraries a training record was made with."""
    return {"labcore": labcore.__version__, "torch": torch.__version__, "numpy": np.__version__,
            "gymnasium": gymnasium.__version__, "minigrid": minigrid.__version__,
            "python": platform.python_version()}


@dataclass
class _Member:
    """Book-keeping of one member: its convergence state and history."""

    seed: int
    generator: torch.Generator
    history: list = field(default_factory=list)
    best_loss: float = float("inf")
    best_agreement: float = -1.0
    best_row: dict[str, torch.Tensor] | None = None
    best_update: int = 0
    stale: int = 0
    updates: int = 0
    done: bool = False
    row: int = 0
    """Its row of the stacked demonstrations."""
    shadow: bool = False
    """A copy that only keeps the batch at two rows (see :func:`train_seeds`); never returned."""
    wager_from: int | None = None
    """The first update with the wager loss on (None: not yet; protocol 8.8.2)."""
    wager_done: int = 0
    """Updates made with the wager loss on."""
    curve: list = field(default_factory=list)
    """The wager phase's learning curve (``TrainConfig.curve_every``)."""

    def shadowed(self) -> _Member:
        """A shadow of this member: same seed, a generator in the same state, the same phase."""
        generator = torch.Generator()
        generator.set_state(self.generator.get_state())
        return _Member(self.seed, generator, shadow=True, wager_from=self.wager_from, wager_done=self.wager_done)


def _resolve(task: str, kind: str | AgentConfig) -> AgentConfig:
    if task not in TASK_IDS:
        raise ValueError(f"task must be one of {sorted(TASK_IDS)}, got {task!r}")
    config = AGENT_KINDS[kind] if isinstance(kind, str) and kind in AGENT_KINDS else kind
    if not isinstance(config, AgentConfig):
        raise ValueError(f"unknown agent kind {kind!r}; choose from {sorted(AGENT_KINDS)}")
    return config


def train_seeds(
    task: str,
    kind: str | AgentConfig,
    seeds: Sequence[int],
    cfg: TrainConfig | None = None,
    progress: ProgressFn | None = None,
    resume: Path | str | None = None,
) -> list[TrainedAgent]:
    """Train one agent per seed, all seeds at once as one seed-batched model.

    Behaviour cloning's one entry (:func:`labcore.provision.train_and_save` picks it for the kinds
    it makes; a seed alone is a batch of one).

    Parameters
    ----------
    task : {"dual", "wagering"}
    kind : a preset name in ``AGENT_KINDS`` or an :class:`AgentConfig`
    seeds : agent seeds (weights, minibatches and their own disjoint episode seeds)
    cfg : training settings (fast mode by default)
    progress : called as ``progress(done, total, metrics)``
    resume : paper schedule only: a snapshot file. Every :data:`SNAPSHOT_EVERY` episodes the whole
        training state (weights, Adam's moments and steps, every generator, the members'
        book-keeping) is written there atomically; a run started with the snapshot of the same
        batch continues from it and ends with the numbers an uninterrupted run gives, bit for bit
        (``tests/agents/test_training.py``). A snapshot of another batch or config is ignored.
        The caller deletes it once the checkpoints are saved.

    Returns
    -------
    One :class:`TrainedAgent` per seed, in the order given.

    Notes
    -----
    A batch never has one row: PyTorch computes a batch of one matrix product as a plain
    matrix product, with kernels whose rounding differs from the batched ones. A seed trained
    alone therefore runs beside a *shadow* (an exact copy of itself, discarded at the end),
    and so does the last member still training in a batch. With two or more rows every
    member's arithmetic is independent of the others, so a seed gets the same weights,
    bit for bit, alone or in any batch (``tests/agents/test_training.py``).
    """
    config = _resolve(task, kind)
    cfg = train_config_of(config.kind, cfg or TrainConfig(), task)  # a kind's own training signal (E4)
    seeds = [int(s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct and at least one")
    torch.set_num_threads(cfg.threads)
    start = time.perf_counter()
    task_id = TASK_IDS[task]
    rows = seeds if len(seeds) > 1 else seeds * 2  # the second row of a solo run is its shadow
    train, heldout = member_demonstrations(task_id, [
        np.stack([episode_seeds(s, "train", cfg.train_episodes) for s in rows]),
        np.stack([episode_seeds(s, "heldout", cfg.heldout_episodes) for s in rows])])
    agents = []
    for s in rows:
        seed_everything(s)  # each member's initialisation is what it gets when trained alone
        agents.append(build_agent(config, s))
        if cfg.meta_signal == "reward" and cfg.wager_start == "warm":  # protocol 8.8.2
            warm_start(agents[-1], task, cfg.warm_start_kind, s)
    members = [_Member(s, torch.Generator().manual_seed(s), shadow=k >= len(seeds)) for k, s in enumerate(rows)]
    params = MemberParameters(agents)
    if cfg.mode == "fast":
        states = _train_fast(config, params, members, train, heldout, cfg, progress)
    else:
        states = _train_paper(config, params, members, train, heldout, cfg, progress, resume)
    for agent, state in zip(agents, states, strict=True):
        agent.load_state_dict(state)
    finals = heldout_metrics(config, MemberParameters(agents), heldout, cfg)
    wall = round(time.perf_counter() - start, 3)
    attainable = config.cue_route != "none"
    out = []
    for member, agent, final in zip(members[:len(seeds)], agents, finals, strict=False):
        record = {
            "task": task,
            "task_id": task_id,
            "kind": config.kind,
            "seed": member.seed,
            "mode": cfg.mode,
            "meta_signal": cfg.meta_signal if config.self_model else None,
            "wrong_bet_payoff": cfg.wrong_bet_payoff if config.self_model and cfg.meta_signal == "reward" else None,
            "config": asdict(config),
            "train_config": asdict(cfg),
            "heldout_agreement": final["agreement"],
            "heldout_report_agreement": final["report_agreement"],
            "heldout_loss": final["loss"],
            "criterion_attainable": attainable,
            "meets_criterion": final["agreement"] >= cfg.agreement_threshold,
            "excluded": attainable and final["agreement"] < cfg.agreement_threshold,
            "updates": member.updates,
            "final_update": member.updates,
            "best_update": member.best_update,
            "episodes_seen": member.updates * cfg.batch_episodes if cfg.mode == "fast" else cfg.train_episodes,
            "batch_seeds": seeds,
            "wall_seconds": wall,
            "history": member.history,
            **({"wager_start_update": member.wager_from, "wager_curve": member.curve}
               if config.self_model and cfg.meta_signal == "reward" else {}),
            "versions": library_versions(),
            "compute": compute.fingerprint(cfg.threads),
        }
        agent.eval()
        out.append(TrainedAgent(agent, record))
    return out


def _report(progress: ProgressFn | None, done: int, total: int, members: list[_Member],
            metrics: list[dict[str, float]], earliest_stop: int | None = None) -> None:
    if progress is None:
        return
    agreement = float(np.mean([m["agreement"] for m in metrics])) if metrics else float("nan")
    real = [m for m in members if not m.shadow]
    # E4's learning-curve values (heldout_auroc, heldout_wager_reward, ...), for a live curve; None where undefined
    wager = {k: [m[k] for m in metrics if m.get(k) is not None] for k in (metrics[0] if metrics else {})
             if k.startswith("heldout_")}
    progress(done, total, {"members_done": float(sum(m.done for m in real)), "members": float(len(real)),
                           "agreement": agreement,
                           "loss": float(np.mean([m["loss"] for m in metrics])) if metrics else float("nan"),
                           **({"earliest_stop": float(earliest_stop)} if earliest_stop is not None else {}),
                           **{k: float(np.mean(v)) if v else None for k, v in wager.items()}})


def _earliest_stop(members: list[_Member], update: int, cfg: TrainConfig, phased: bool) -> int:
    """First update at which every member still training could stop (its patience out, then its wager phase): a progress bar's end (issue 24)."""
    return max([update + cfg.wager_updates - m.wager_done if phased and m.wager_from is not None
                else min(cfg.max_updates, max(cfg.min_updates, update + (cfg.patience - m.stale) * cfg.eval_every))
                + cfg.wager_updates * phased for m in members if not m.shadow and not m.done], default=update)


def _train_fast(config, params, members, train, heldout, cfg, progress) -> list[dict[str, torch.Tensor]]:
    """Batched BPTT per member until its held-out loss stops improving (protocol sec. 5.3).

    Convergence: a member stops once neither its held-out imitation loss nor its held-out
    agreement has improved by a set margin for ``patience`` evaluations (after
    ``min_updates``); it keeps the weights with its lowest held-out imitation loss (not the
    total loss: while the policy is still wrong, the meta loss is trivially low). A finished
    member leaves the batch; the others go on.

    With a wager phase (``cfg.wager_start`` "converged" or "warm"; protocol 8.8.2) the wager
    loss is off until a member's behaviour cloning has converged (every member from update 1
    when "warm"); the member then trains ``cfg.wager_updates`` more updates with it on (behaviour
    cloning going on) and keeps its final weights. Everything a member does, including when it
    is evaluated, depends on itself only, never on its batch-mates.
    """
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    phased = cfg.meta_signal == "reward" and cfg.wager_start != "joint"
    total = cfg.update_budget
    n_rows = len(members)
    for row, member in enumerate(members):
        member.row = row  # its row of the demonstrations
        member.wager_from = None if cfg.wager_start == "converged" else 1
    live = list(range(n_rows))
    finished: dict[int, dict[str, torch.Tensor]] = {}
    for update in range(1, total + 1):
        gens = [members[i].generator for i in live]
        idx = torch.stack([torch.randint(train.n_episodes, (cfg.batch_episodes,), generator=g) for g in gens])
        batch = train.select(members=[members[i].row for i in live], episodes=idx)
        wagering = [members[i].wager_from is not None for i in live]
        mask = wager_choice_mask(batch.step_kind, batch.valid) if config.confidence_centred else None
        out = _forward(config, params, batch, gens, _noise_sds(config, cfg.batch_episodes, gens), mask)
        scale = torch.tensor(wagering, dtype=torch.float32) if phased else None
        losses = compute_losses(config, out, batch, cfg, generators=gens, meta_scale=scale)
        (grad,) = torch.autograd.grad(losses.total.sum(), params.flat)
        _optimizer_step(opt, params, grad, cfg)
        for i, on in zip(live, wagering, strict=True):
            members[i].updates = update
            members[i].wager_done += on
        if mask is not None:
            _update_centres(params, masked_centre(out.z_self, mask).detach(), [members[i] for i in live])
        ending = [phased and members[i].wager_done >= cfg.wager_updates for i in live]
        scheduled = [update % cfg.eval_every == 0 or update == total or end for end in ending]
        curve = [bool(cfg.curve_every) and on and members[i].wager_done % cfg.curve_every == 0
                 for i, on in zip(live, wagering, strict=True)]
        if not any(scheduled) and not any(curve):
            continue
        metrics = heldout_metrics(config, params, heldout.select(members=[members[i].row for i in live]), cfg)
        leaving = []
        for row, (i, m) in enumerate(zip(live, metrics, strict=True)):
            member = members[i]
            if member.shadow:
                continue
            heldout_values = {k: v for k, v in m.items() if k.startswith("heldout_")}
            if curve[row]:
                member.curve.append({"update": update, "wager_update": member.wager_done,
                                     "agreement": m["agreement"], **heldout_values})
            if not scheduled[row]:
                continue
            member.history.append({"update": update, "train_loss": float(losses.parts["total"][row]),
                                   "heldout_loss": m["loss"], "agreement": m["agreement"], **heldout_values})
            if phased and member.wager_from is not None:
                if ending[row]:  # the wager phase is over: its final weights
                    member.done = True
                    finished[i] = params.member_state(row)
                    leaving.append(row)
                continue
            improved = (m["loss"] < member.best_loss - cfg.loss_tolerance
                        or m["agreement"] > member.best_agreement + cfg.agreement_tolerance)
            member.stale = 0 if improved else member.stale + 1
            member.best_agreement = max(member.best_agreement, m["agreement"])
            if m["loss"] < member.best_loss:
                member.best_loss, member.best_update = m["loss"], update
                member.best_row = params.member_state(row)
            if (update >= cfg.min_updates and member.stale >= cfg.patience) or update == cfg.max_updates:
                if phased:  # converged: the wager phase starts with the next update
                    member.wager_from = update + 1
                    continue
                member.done = True
                finished[i] = member.best_row if member.best_row is not None else params.member_state(row)
                leaving.append(row)
        if any(scheduled):
            _report(progress, update, total, members, metrics, _earliest_stop(members, update, cfg, phased))
        if leaving:
            keep = [r for r in range(len(live)) if r not in leaving and not members[live[r]].shadow]
            if not keep:
                break
            if len(keep) == 1:  # the last member keeps a shadow beside it (see train_seeds)
                shadow = members[live[keep[0]]].shadowed()
                shadow.row = members[live[keep[0]]].row
                members.append(shadow)
                live = [live[keep[0]], len(members) - 1]
                keep = keep * 2
            else:
                live = [live[r] for r in keep]
            params.keep(torch.tensor(keep, dtype=torch.long), opt)
    return [finished.get(i, finished[0]) for i in range(n_rows)]


CENTRE_MOMENTUM = 0.05
"""Weight of each wager update's batch centre in the running centre of a centred confidence head
(protocol 8.8.2); the running centre starts at the first batch centre."""


def _update_centres(params: MemberParameters, batch_centre: torch.Tensor, live: Sequence[_Member]) -> None:
    """Move each wagering member's stored centre toward this update's batch centre (in place)."""
    stored = params.buffers["confidence_centre"]
    for row, member in enumerate(live):
        if member.wager_from is None:
            continue
        if member.wager_done == 1:
            stored[row] = batch_centre[row]
        else:
            stored[row] += CENTRE_MOMENTUM * (batch_centre[row] - stored[row])


def _optimizer_step(opt: StackedAdam, params: MemberParameters, grad: torch.Tensor, cfg: TrainConfig) -> None:
    """One update: Adam on every weight, or (``wager_optimizer="sgd"``) Adam on every weight but the
    wager head (:data:`~labcore.wager_reward.WAGER_HEAD`) and plain SGD on it. A head weight whose
    gradient Adam always sees as 0 keeps zero moments, so Adam leaves it exactly as it is."""
    if cfg.wager_optimizer == "adam":
        opt.step(params.flat, grad)
        return
    head = params.element_mask(WAGER_HEAD)
    opt.step(params.flat, grad.masked_fill(head, 0.0))
    with torch.no_grad():
        params.flat[head] -= cfg.wager_sgd_lr * grad[head]


def _last_step(x: torch.Tensor | None) -> torch.Tensor | None:
    """Step T-1 of ``x`` (N, B=1, T, ...) repeated into ROW_MULTIPLE rows: (N, ROW_MULTIPLE, 1, ...)."""
    if x is None:
        return None
    return x[:, :, -1:].repeat(1, ROW_MULTIPLE, *([1] * (x.dim() - 2)))


SNAPSHOT_EVERY = 200
"""Paper schedule: episodes between resume snapshots (about a minute and a half of E3 training)."""


def _train_paper(config, params, members, train, heldout, cfg, progress, resume=None) -> list[dict[str, torch.Tensor]]:
    """Online: one episode at a time, one update per environment step (paper sec. 4.3.1).

    The paper does not say how gradients cross steps; each update recomputes the episode
    prefix with the current weights, so it gets the exact gradient through the episode so far.
    Each step's loss is its weighted loss divided by its episode's mean weight (so the x3 and
    x20 report weights scale the step's gradient, as the paper's loss does). A member whose
    step scores nothing (a wager step, or after its episode ended) makes no update then.
    Training runs the fixed schedule; ``best_update`` records where the held-out loss was
    lowest, and the final weights are kept (the paper uses no early stopping).
    """
    n = len(members)
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    gens = [m.generator for m in members]
    total = train.n_episodes
    eval_every = max(1, total // 8)
    identity = snapshot_identity(config, members, cfg)
    first = read_snapshot(Path(resume), identity, params, opt, members) if resume else 0
    for episode in range(first, total):
        ep = train.select(episodes=slice(episode, episode + 1))
        full = step_weights(ep.step_kind, ep.valid, cfg)
        normaliser = full.flatten(1).sum(1) / (full > 0).flatten(1).sum(1).clamp(min=1)
        sds = _noise_sds(config, 1, gens)  # one noise level per episode
        for t in range(ep.valid.shape[2]):
            active = full[:, 0, t] > 0
            if not active.any():
                continue
            prefix = ep.select(steps=slice(0, t + 1))
            prefix.inputs = prefix.inputs.own_rows()
            # Only step t is scored: the readouts run on it alone, in ROW_MULTIPLE rows (the
            # step and masked copies of it), so a member's arithmetic does not depend on N.
            h, slots, occupied = sequence_states(params.tensors(), config, prefix.inputs,
                                                 workspace_noise=_noise_fn(config, sds, gens))
            at_t = ep.select(steps=slice(t, t + 1)).padded(ROW_MULTIPLE)
            out = sequence_heads(params.tensors(), config, *(_last_step(x) for x in (h, slots, occupied)),
                                 dropout=_dropout_mask(config, (ROW_MULTIPLE, 1), gens))
            losses = compute_losses(config, out, at_t, cfg, None, normaliser)
            (grad,) = torch.autograd.grad((losses.total * active).sum(), params.flat)
            opt.step(params.flat, grad, active)
            for i in np.flatnonzero(active.numpy()):
                members[i].updates += 1
        if (episode + 1) % eval_every == 0 or episode + 1 == total:
            metrics = heldout_metrics(config, params, heldout, cfg)
            for member, m in zip(members, metrics, strict=True):
                member.history.append({"episode": episode + 1, "update": member.updates,
                                       "heldout_loss": m["loss"], "agreement": m["agreement"]})
                if m["loss"] < member.best_loss:
                    member.best_loss, member.best_update = m["loss"], member.updates
            if episode + 1 == total:
                for member in members:
                    member.done = True
            _report(progress, episode + 1, total, members, metrics)
        if resume and (episode + 1) % SNAPSHOT_EVERY == 0 and episode + 1 < total:
            write_snapshot(Path(resume), identity, episode + 1, params, opt, members)
    return [params.member_state(i) for i in range(n)]
