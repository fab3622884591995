"""Frozen configuration dataclasses: every field has a default and a one-line docstring.

Task choices the paper leaves open are registered in ``docs/protocol.md``; budgets are in
:mod:`labcore.budgets`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

from labcore.checks import _check, check_choice

N_CUE_VALUES = 7
"""Cue alphabet size of the dual task: one value per MiniGrid action, so chance per report is
1/7."""


@dataclass(frozen=True)
class ChanceLevel:
    """A chance level and the fraction a reader should see."""

    value: float
    fraction: str = ""


CHANCE_LEVELS: dict[str, ChanceLevel] = {
    "decision": ChanceLevel(1 / N_CUE_VALUES, f"1/{N_CUE_VALUES}"),
    "conjunction": ChanceLevel(1 / N_CUE_VALUES**2, f"1/{N_CUE_VALUES**2}"),
    "wager": ChanceLevel(0.5),
    "auroc": ChanceLevel(0.5),
    "m_ratio": ChanceLevel(0.0),
}
"""The one table of chance levels (words: ``labcore.render.chance``; protocol sec. 2.1)."""
CHANCE_E1 = CHANCE_LEVELS["wager"].value
MASKING_DEFAULT = (2, 4)
"""The backward-masking default (paper Fig. 2c): (SOA, masks)."""


@dataclass(frozen=True)
class DualTaskConfig:
    """Dual task of Experiments 2-3 (paper sec. 4.2; protocol sec. 2): two cues, a masked delay,
    the secondary report, then the primary report at the last step."""

    n_steps: int = 32
    """Episode length (paper: at most 32 steps)."""
    secondary_cue_step: int = 0
    """Step of the secondary (colour) cue."""
    primary_cue_step: int = 1
    """Step of the primary (object type) cue."""
    mask_counts: tuple[int, ...] = (0, 1, 2)
    """Distractor counts per episode, drawn uniformly (random-mask mode)."""
    first_mask_step: int = 4
    """Earliest step a random distractor may appear."""
    mask_soa: int | None = None
    """Backward masking: first mask this many steps after the secondary cue (None: random)."""
    mask_count: int = 0
    """Backward masking: number of masks."""
    mask_interval: int = 1
    """Backward masking: steps between masks."""

    def __post_init__(self) -> None:
        _check(self.n_steps >= 8, f"n_steps must be >= 8, got {self.n_steps}", ("n_steps",))
        _check(
            0 <= self.secondary_cue_step < self.primary_cue_step < self.first_mask_step,
            "cue steps must satisfy 0 <= secondary < primary < first_mask_step",
            ("secondary_cue_step", "primary_cue_step", "first_mask_step"),
        )
        _check(
            self.first_mask_step < self.last_mask_step_exclusive,
            "the delay is too short to hold any random distractor",
            ("first_mask_step", "n_steps"),
        )
        _check(
            all(0 <= c <= self.random_mask_slots for c in self.mask_counts) and self.mask_counts,
            f"mask_counts must be non-empty and within 0..{self.random_mask_slots}",
            ("mask_counts",),
        )
        if self.mask_soa is not None:
            _check(self.mask_interval >= 1, "mask_interval must be >= 1", ("mask_interval",))
            _check(self.mask_count >= 0, "mask_count must be >= 0", ("mask_count",))
            first = self.secondary_cue_step + self.mask_soa
            _check(
                first > self.primary_cue_step,
                f"mask_soa={self.mask_soa} would put a mask on a cue step; use >= "
                f"{self.primary_cue_step - self.secondary_cue_step + 1}",
                ("mask_soa",),
            )
            last = first + (self.mask_count - 1) * self.mask_interval
            _check(
                self.mask_count == 0 or last < self.report_secondary_step,
                f"{self.mask_count} masks from step {first} every {self.mask_interval} "
                f"would reach the report phase (step {self.report_secondary_step})",
                ("mask_soa", "mask_count", "mask_interval", "n_steps"),
            )

    @property
    def report_secondary_step(self) -> int:
        """Step of report flag 1 (report the secondary cue)."""
        return self.n_steps - 2

    @property
    def report_primary_step(self) -> int:
        """Step of report flag 2 (report the primary cue); the last step."""
        return self.n_steps - 1

    @property
    def last_mask_step_exclusive(self) -> int:
        """Random distractors end three steps before the first report."""
        return self.report_secondary_step - 3

    @property
    def random_mask_slots(self) -> int:
        """How many distinct steps a random distractor can occupy."""
        return self.last_mask_step_exclusive - self.first_mask_step

    @property
    def max_masks(self) -> int:
        """Largest number of distractors an episode of this configuration can hold."""
        return self.mask_count if self.mask_soa is not None else max(self.mask_counts)


@dataclass(frozen=True)
class WageringConfig:
    """Post-decision wagering task of Experiment 1 (paper sec. 4.2; protocol sec. 3)."""

    max_steps: int = 32
    """Time limit; no decision by then is an error."""
    salience_range: tuple[float, float] = (0.0, 1.0)
    """Cue salience lambda is drawn uniformly from this range."""
    cue_noise_sd: float = 0.25
    """SD of the Gaussian noise on the cue content."""
    wager_probability: float = 0.5
    """Probability that a wager flag follows the decision."""
    post_decision_sample: bool = False
    """A second flash arrives at the wager step, after the decision (protocol 11.2)."""
    oracle_side: str = "truth"
    """"truth" (the stimulus's side) or "evidence" (the side the first flash favours)."""

    def __post_init__(self) -> None:
        check_choice(self.oracle_side, "oracle_side", ("truth", "evidence"))
        lo, hi = self.salience_range
        _check(
            0.0 <= lo <= hi,
            f"salience_range must satisfy 0 <= lo <= hi, got {self.salience_range}",
            ("salience_range",),
        )
        _check(self.cue_noise_sd >= 0.0, "cue_noise_sd must be >= 0", ("cue_noise_sd",))
        _check(
            0.0 <= self.wager_probability <= 1.0,
            "wager_probability must be in [0, 1]",
            ("wager_probability",),
        )
        _check(self.max_steps >= 8, "max_steps must be >= 8 (the oracle needs 7)", ("max_steps",))


CONFIDENCE_ROUTES = ("self_model", "policy")
WRITE_OFFSET_RMS = 3.0
"""RMS of the shared vector the "offset" write geometry adds to every slot."""
SELF_MODEL_INPUTS = ("h", "broadcast", "logits", "uncertainty")
"""What z_self can read, in order (protocol 5.1)."""


@dataclass(frozen=True)
class AgentConfig:
    """One composable agent (paper sec. 4.1; protocol sec. 5). Presets in ``AGENT_KINDS``."""

    kind: str = "b1"
    """The preset's name (used in checkpoint names)."""
    embed_dim: int = 151
    """Observation embedding size (paper: 151)."""
    hidden_dim: int = 64
    """Recurrent carrier size (paper: GRU 64)."""
    recurrent: bool = True
    """GRU carrier; False gives A0's memoryless MLP."""
    workspace: bool = True
    """Global-workspace bus present (B1, B2, BC-only controls)."""
    n_slots: int = 4
    """Workspace slots K (paper: 4)."""
    slot_dim: int = 16
    """Slot width D (paper: 16)."""
    self_model: bool = False
    """Self-model z_self and confidence head present (B2, HOT-only)."""
    self_model_dim: int = 64
    """z_self size (paper: 64)."""
    policy_reads: str = "workspace"
    """Policy input: "workspace", "self_model", "trunk" or "workspace_and_self_model"."""
    cue_route: str = "bus"
    """Cue channel into "bus" (strong lesion), "trunk" (cues visible) or "none"."""
    bottleneck: str | None = None
    """BC-only control: "linear", "mlp" or fixed "random" projection of the slots."""
    bottleneck_dim: int = 64
    """Width of the BC-only bottleneck (matched to z_self, paper sec. 4.1)."""
    readout_hidden: int = 64
    """Hidden width of the policy MLP."""
    dropout: float = 0.0
    """Dropout in the policy readout during training (B1 regularised control)."""
    weight_decay: float = 0.0
    """Decoupled weight decay during training (B1 regularised control)."""
    train_workspace_noise: float = 0.0
    """Upper end of the per-episode workspace-noise SD in training (B1 noise)."""
    write_geometry: str = "layernorm"
    """A write's shape: "layernorm" (protocol 5.1), "raw" or "offset" (E3 design study)."""
    closed_loop: bool = False
    """The broadcast at t-1 feeds the GRU at t; False: the paper's open loop."""
    readout_gain: float = 1.0
    """Gain on the workspace slots the readouts see."""
    self_model_inputs: tuple[str, ...] = SELF_MODEL_INPUTS
    """What z_self reads, a subset of ``SELF_MODEL_INPUTS`` in order (protocol 8.3)."""
    value_head: bool = False
    """A critic estimating the return (E4 arm (b), protocol 8.3); feeds no action."""
    confidence_head_init: str = "default"
    """"default", "zero_bias" or "zero" (weight and bias; protocol 8.8.2)."""
    confidence_reads: tuple[str, ...] = ("self_model",)
    """The confidence head's routes, a subset of ``CONFIDENCE_ROUTES`` (protocol 11.3)."""
    write_rule: str = "overwrite"
    """"overwrite" (the paper's: first empty slot, else 0) or "learned" (protocol 11.8)."""
    train_capacities: tuple[int, ...] = ()
    """Active slots drawn per training episode (protocol 11.8); empty: all slots."""
    confidence_centred: bool = False
    """The confidence head reads z_self minus its mean (protocol 8.8.2)."""

    def __post_init__(self) -> None:
        routes = self.confidence_reads
        _check(
            isinstance(routes, tuple)
            and routes[:1] == ("self_model",)
            and list(routes) == sorted(set(routes), key=CONFIDENCE_ROUTES.index)
            and all(r in CONFIDENCE_ROUTES for r in routes),
            f"confidence_reads must start with 'self_model' and name routes of "
            f"{CONFIDENCE_ROUTES} in that order, got {routes!r:.80}",
            ("confidence_reads",),
        )
        _check(
            self.self_model or routes == ("self_model",),
            "confidence_reads needs a self-model",
            ("confidence_reads", "self_model"),
        )
        check_choice(self.write_rule, "write_rule", ("overwrite", "learned"))
        _check(
            self.write_rule == "overwrite" or (self.workspace and not self.closed_loop),
            "a learned write gate needs a workspace and the open loop",
            ("write_rule", "workspace", "closed_loop"),
        )
        _check(
            not self.train_capacities
            or (
                self.write_rule == "learned"
                and all(
                    isinstance(k, int) and 1 <= k <= self.n_slots for k in self.train_capacities
                )
            ),
            "train_capacities needs a learned write gate and slot counts in 1..n_slots",
            ("train_capacities", "write_rule"),
        )
        _check(
            self.policy_reads != "workspace_and_self_model"
            or (
                self.workspace
                and self.self_model
                and not {"logits", "uncertainty"} & set(self.self_model_inputs)
            ),
            "policy_reads='workspace_and_self_model' needs a workspace and a self-model that "
            "reads states only (the policy's logits would make a cycle)",
            ("policy_reads", "self_model_inputs"),
        )
        names = self.self_model_inputs
        _check(
            isinstance(names, tuple)
            and len(names) >= 1
            and all(n in SELF_MODEL_INPUTS for n in names)
            and list(names) == sorted(set(names), key=SELF_MODEL_INPUTS.index),
            "self_model_inputs must be a non-empty tuple of distinct names from "
            f"{SELF_MODEL_INPUTS}, "
            f"in that order, got {names!r:.80}",
            ("self_model_inputs",),
        )
        _check(
            self.self_model or names == SELF_MODEL_INPUTS,
            "self_model_inputs needs a self-model",
            ("self_model_inputs", "self_model"),
        )
        check_choice(
            self.confidence_head_init, "confidence_head_init", ("default", "zero_bias", "zero")
        )
        _check(
            self.self_model
            or (self.confidence_head_init == "default" and not self.confidence_centred),
            "confidence_head_init and confidence_centred need a self-model",
            ("confidence_head_init", "confidence_centred", "self_model"),
        )
        check_choice(self.write_geometry, "write_geometry", ("layernorm", "raw", "offset"))
        _check(
            not self.closed_loop or (self.workspace and self.recurrent),
            "closed_loop needs a workspace and a recurrent carrier",
            ("closed_loop", "workspace", "recurrent"),
        )
        _check(self.readout_gain > 0, "readout_gain must be > 0", ("readout_gain",))
        check_choice(
            self.policy_reads,
            "policy_reads",
            ("workspace", "self_model", "trunk", "workspace_and_self_model"),
        )
        check_choice(self.cue_route, "cue_route", ("bus", "trunk", "none"))
        check_choice(self.bottleneck, "bottleneck", (None, "linear", "mlp", "random"))
        _check(
            self.n_slots >= 1 and self.slot_dim >= 1,
            "n_slots and slot_dim must be >= 1",
            ("n_slots", "slot_dim"),
        )
        _check(
            not (self.cue_route == "bus" and not self.workspace),
            "cue_route='bus' needs a workspace; use 'trunk' (cues visible) or 'none'",
            ("cue_route", "workspace"),
        )
        _check(
            not (self.policy_reads == "workspace" and not self.workspace),
            "policy_reads='workspace' needs a workspace",
            ("policy_reads", "workspace"),
        )
        _check(
            not (self.policy_reads == "self_model" and not self.self_model),
            "policy_reads='self_model' needs a self-model",
            ("policy_reads", "self_model"),
        )
        _check(
            self.bottleneck is None or self.workspace,
            "a BC-only bottleneck needs a workspace",
            ("bottleneck", "workspace"),
        )
        _check(0.0 <= self.dropout < 1.0, "dropout must be in [0, 1)", ("dropout",))
        _check(
            self.weight_decay >= 0 and self.train_workspace_noise >= 0,
            "weight_decay and train_workspace_noise must be >= 0",
            ("weight_decay", "train_workspace_noise"),
        )

    @property
    def workspace_size(self) -> int:
        """K x D, the flattened workspace the readout sees."""
        return self.n_slots * self.slot_dim if self.workspace else 0


_KINDS: dict[str, dict] = json.loads(
    (Path(__file__).resolve().parent / "agent_kinds.json").read_text(encoding="utf-8")
)
"""Each agent kind: its description, the experiments that run it and the AgentConfig fields it
sets (the agent family, paper sec. 4.1; E4's arms, protocol 8.3, 8.8.3; protocol 11's variants)."""
AGENT_KINDS: dict[str, AgentConfig] = {
    kind: AgentConfig(
        kind=kind, **{k: tuple(v) if isinstance(v, list) else v for k, v in spec["config"].items()}
    )
    for kind, spec in _KINDS.items()
}
"""A kind names how an agent was made."""

KINDS_WITHOUT_WORKSPACE = tuple(k for k, c in AGENT_KINDS.items() if not c.workspace)

AGENT_DESCRIPTIONS: dict[str, str] = {kind: spec["description"] for kind, spec in _KINDS.items()}

SELF_MODEL_MODES = ("on", "zero", "noise", "permute")
NOISE_MODES = ("stored", "read")


@dataclass(frozen=True)
class Intervention:
    """A run-time manipulation of a trained agent (paper sec. 4.5); ``Intervention()`` is intact."""

    self_model_mode: str = "on"
    """"on", "zero" (z_self -> 0), "noise" or "permute" (blind ablations)."""
    self_model_silenced: float = 0.0
    """Fraction of z_self's units silenced, nested across doses (protocol 11.4)."""
    self_model_noise: float = 0.0
    """SD of Gaussian noise added to z_self (protocol 11.4)."""
    policy_route_off: bool = False
    """The confidence head's policy route zeroed, z_self intact (protocol 11.4)."""
    capacity_scale: float = 1.0
    """workspace_capacity_scale: active slots = round(scale * K); 0 is bus-off."""
    workspace_noise: float = 0.0
    """SD of Gaussian noise on the slots after the write, before the read."""
    carrier_noise: float = 0.0
    """SD of Gaussian noise on the recurrent carrier (HOT-only protocol)."""
    noise_mode: str = "stored"
    """"stored": noise persists in the state; "read": only the readouts' copy is noisy."""
    noise_empty_slots: bool = False
    """Also perturb active slots that hold nothing yet."""
    pulse_step: int | None = None
    """Step of a single perturbation pulse (for PCI-A); None for no pulse."""
    pulse_sigma: float = 1.0
    """SD of the pulse on the workspace (or the carrier without a bus)."""
    seed: int = 0
    """Seed of every random draw the intervention makes."""

    def __post_init__(self) -> None:
        check_choice(self.self_model_mode, "self_model_mode", SELF_MODEL_MODES)
        _check(
            0.0 <= self.self_model_silenced <= 1.0 and self.self_model_noise >= 0.0,
            "self_model_silenced must be in [0, 1] and self_model_noise >= 0",
            ("self_model_silenced", "self_model_noise"),
        )
        _check(
            0.0 <= self.capacity_scale <= 1.0,
            f"capacity_scale must be in [0, 1], got {self.capacity_scale}",
            ("capacity_scale",),
        )
        _check(
            self.workspace_noise >= 0 and self.carrier_noise >= 0 and self.pulse_sigma >= 0,
            "noise SDs must be >= 0",
            ("workspace_noise", "carrier_noise"),
        )
        check_choice(self.noise_mode, "noise_mode", NOISE_MODES)
        _check(
            self.pulse_step is None or self.pulse_step >= 0,
            "pulse_step must be >= 0",
            ("pulse_step",),
        )

    def active_slots(self, n_slots: int) -> int:
        """Number of usable slots for an agent with ``n_slots`` slots."""
        return round(self.capacity_scale * n_slots)

    @property
    def is_intact(self) -> bool:
        """True if nothing is manipulated (any seed)."""
        return self == Intervention(seed=self.seed)


SALIENCE_BLOCKS = (0.125, 0.25, 0.375)
"""The measured E1's evaluation blocks' saliences (protocol 11.2)."""
SILENCED_DOSES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Fractions of z_self's units silenced (protocol 11.4)."""
SELF_NOISE_DOSES = (0.0, 0.25, 0.5, 1.0, 2.0)
"""SDs of the noise added to z_self (protocol 11.4)."""
TASK_OF_EXPERIMENT = {"e1": "wagering", "e2": "dual", "e3": "dual", "e4": "wagering"}
KINDS_OF_EXPERIMENT: dict[str, tuple[str, ...]] = {
    exp: tuple(kind for kind, spec in _KINDS.items() if exp in spec["experiments"])
    for exp in TASK_OF_EXPERIMENT
}
"""The agent kinds each experiment runs (E4: protocol 8.3)."""
BUNDLED_EXPERIMENTS = ("e1", "e2", "e3")
"""What ``train --experiment all`` covers: the experiments whose agents are bundled."""
PAPER_EPISODES = {"e1": 4000, "e2": 4000, "e3": 8000, "e4": 4000}
"""Training episodes per seed in the paper's schedule (Table 2)."""
AUDIT_SEEDS = 5
"""Seeds on which ``reproduce`` also runs untrained agents (the construction audit)."""


@dataclass(frozen=True)
class TrainConfig:
    """Behaviour cloning (paper sec. 4.3; protocol sec. 5.3)."""

    mode: str = "fast"
    """"fast": batched BPTT to convergence; "paper": online, one update per step."""
    lr: float = 1e-3
    """Adam learning rate (paper: 1e-3)."""
    batch_episodes: int = 64
    """Episodes per update (fast mode)."""
    train_episodes: int = 4000
    """Demonstration pool (fast) / episodes (paper mode)."""
    heldout_episodes: int = 500
    """Held-out oracle episodes for agreement and convergence."""
    max_updates: int = 3000
    """Upper bound on optimizer updates (fast mode)."""
    min_updates: int = 300
    """No convergence check before this many updates (fast mode)."""
    eval_every: int = 50
    """Updates between held-out evaluations (fast mode)."""
    patience: int = 6
    """Stop after this many evaluations without improvement (fast mode)."""
    loss_tolerance: float = 0.005
    """Held-out loss improvement (nats) that counts."""
    agreement_tolerance: float = 0.001
    """Held-out agreement improvement that counts."""
    report_weight: float = 3.0
    """Loss weight of report steps (paper: 3)."""
    primary_class_weight: float = 20.0
    """Extra weight of the primary-cue report (paper: 20)."""
    primary_weight_rule: str = "stacked"
    """"stacked" (report x class weight, 60) or "class" (20; protocol 7.7)."""
    history_every: int = 0
    """Paper mode: episodes between kept held-out evaluations; 0: an eighth of the run."""
    meta_weight: float = 1.0
    """Coefficient of the self-model's meta loss (paper: 1)."""
    meta_signal: str = "label"
    """What teaches the confidence: "label" (E1's BCE) or "reward" (E4 arm (a), protocol 8.3)."""
    wrong_bet_payoff: float = -1.0
    """Reward of a wrong bet under the reward signal (protocol 3.4: -1; risky: -3)."""
    wager_start: str = "joint"
    """When the wager reward starts: "joint", "converged" or "warm" (protocol 8.8.2)."""
    wager_updates: int = 0
    """Updates of the wager phase of "converged" and "warm"."""
    warm_start_kind: str = "b2_ws"
    """The bundled agent whose policy weights a "warm" start loads."""
    wager_optimizer: str = "adam"
    """Optimiser of the wager head: "adam" or "sgd"."""
    wager_sgd_lr: float = 0.1
    """Plain SGD's learning rate on the wager head (protocol 8.8.2)."""
    bet_floor: float = 0.0
    """Training bets are drawn from ``floor + (1 - 2 floor) confidence`` (protocol 8.8.2)."""
    bet_entropy_coef: float = 0.0
    """Entropy bonus on the bet on wager trials."""
    curve_every: int = 0
    """Wager-phase updates between ``wager_curve`` points (0: at evaluations only)."""
    stimulus_probe_weight: float = 1.0
    """Coefficient of E1's stimulus probe loss on the workspace."""
    self_model_l2: float = 1e-3
    """Activity penalty on z_self."""
    agreement_threshold: float = 0.95
    """Seeds below this held-out agreement are flagged and excluded (paper sec. 4.3.1)."""
    threads: int = 1
    """Torch CPU threads per training process."""

    def __post_init__(self) -> None:
        check_choice(self.mode, "mode", ("fast", "paper"))
        _check(
            self.lr > 0 and self.batch_episodes >= 1 and self.train_episodes >= 1,
            "lr, batch_episodes and train_episodes must be positive",
            ("lr", "batch_episodes", "train_episodes"),
        )
        _check(
            self.min_updates <= self.max_updates,
            "min_updates must be <= max_updates",
            ("min_updates", "max_updates"),
        )
        check_choice(self.meta_signal, "meta_signal", ("label", "reward"))
        _check(
            math.isfinite(self.wrong_bet_payoff) and self.wrong_bet_payoff < 0,
            "wrong_bet_payoff must be a negative number (a wrong bet costs)",
            ("wrong_bet_payoff",),
        )
        _check(
            self.meta_signal == "label" or self.mode == "fast",
            "meta_signal='reward' trains in fast mode only (the paper schedule has no "
            "wager batches)",
            ("meta_signal", "mode"),
        )
        check_choice(self.wager_start, "wager_start", ("joint", "converged", "warm"))
        _check(
            self.wager_start == "joint"
            or (self.meta_signal == "reward" and self.wager_updates >= 1),
            f"wager_start={self.wager_start!r} needs meta_signal='reward' and wager_updates >= 1",
            ("wager_start", "meta_signal", "wager_updates"),
        )
        _check(
            self.wager_optimizer in ("adam", "sgd") and self.wager_sgd_lr > 0,
            "wager_optimizer must be 'adam' or 'sgd' and wager_sgd_lr > 0",
            ("wager_optimizer", "wager_sgd_lr"),
        )
        _check(
            0.0 <= self.bet_floor < 0.5 and self.bet_entropy_coef >= 0 and self.curve_every >= 0,
            "bet_floor must be in [0, 0.5), bet_entropy_coef and curve_every >= 0",
            ("bet_floor", "bet_entropy_coef", "curve_every"),
        )
        check_choice(self.primary_weight_rule, "primary_weight_rule", ("stacked", "class"))
        _check(self.history_every >= 0, "history_every must be >= 0", ("history_every",))

    @property
    def update_budget(self) -> int:
        """Most updates a fast-mode run can take."""
        return {
            "joint": self.max_updates,
            "converged": self.max_updates + self.wager_updates,
            "warm": self.wager_updates,
        }[self.wager_start]


RISKY_WRONG_BET_PAYOFF = -3.0
"""Wrong-bet reward of protocol 8.2's risky payoff (break-even at P(correct) = 0.75)."""
E4_AGAIN: dict[str, object] = {
    "meta_signal": "reward",
    "wager_start": "converged",
    "wager_updates": 3000,
    "bet_floor": 0.05,
    "curve_every": 5,
}
"""What every cell of "E4 again" shares (protocol 8.8.3)."""
TRAINING_OF_KIND: dict[str, dict[str, object]] = {
    "reward_wager": {"meta_signal": "reward"},
    "reward_wager_risky": {"meta_signal": "reward", "wrong_bet_payoff": RISKY_WRONG_BET_PAYOFF},
    "reward_workspace": {"meta_signal": "reward"},
    "reward_logits": {"meta_signal": "reward"},
    **{
        kind: {**E4_AGAIN, **extra}
        for kind, extra in (
            ("reward_late", {}),
            ("reward_late_risky", {"wrong_bet_payoff": RISKY_WRONG_BET_PAYOFF}),
            ("reward_late_uncentred", {}),
            ("reward_late_uncentred_sgd", {"wager_optimizer": "sgd"}),
        )
    },
}
"""TrainConfig settings a kind is defined by (protocol 8.3), whatever the caller passes, except
the budgets of ``KIND_BUDGETS`` where the caller left the default."""
KIND_BUDGETS = ("wager_updates", "curve_every")
"""Budgets in ``TRAINING_OF_KIND`` that a caller may override."""


TRAINERS = ("bc", "rl")
TRAINER_OF_KIND: dict[str, str] = {"reward_all": "rl"}
"""Kinds not made by behaviour cloning: "rl" is actor-critic on the task's reward (protocol 8.3)."""


def trainer_of(kind: str) -> str:
    """The trainer that makes ``kind``: "rl" (``TRAINER_OF_KIND``) or "bc" (behaviour cloning).

    >>> trainer_of("reward_all"), trainer_of("b2_ws")
    ('rl', 'bc')
    """
    return TRAINER_OF_KIND.get(kind, "bc")


def train_config_of(kind: str, cfg: TrainConfig, task: str | None = None) -> TrainConfig:
    """``cfg`` with the settings ``kind`` is defined by; ValueError if they cannot be used.

    >>> train_config_of("reward_wager_risky", TrainConfig()).wrong_bet_payoff
    -3.0
    >>> train_config_of("b2_ws", TrainConfig()).meta_signal
    'label'
    >>> [train_config_of("reward_late", c).wager_updates for c in (TrainConfig(),
    ...                                                            TrainConfig(wager_updates=20))]
    [3000, 20]
    """
    _check(
        trainer_of(kind) == "bc",
        f"{kind} learns from the task's reward alone: train it with labcore.training.actor_critic "
        "(python -m labcore train ... --trainer rl)",
        ("kind", "trainer"),
    )
    default = TrainConfig()
    settings = {
        k: v
        for k, v in TRAINING_OF_KIND.get(kind, {}).items()
        if k not in KIND_BUDGETS or getattr(cfg, k) == getattr(default, k)
    }
    out = replace(cfg, **settings)
    _check(
        task in (None, "wagering") or out.meta_signal == "label",
        f"{kind} learns its confidence from the wager's reward, which only the wagering task has",
        ("meta_signal", "task"),
    )
    return out


# --------------------------------------------------------------------------- the app's pages
@dataclass(frozen=True)
class Page:
    """One page of the app: its file ``app_pages/<name>.py`` and its title and icon in the menu."""

    name: str
    title: str
    icon: str


PAGES = (
    Page("home", "Home", ":material/home:"),
    Page("agents", "Agents", ":material/smart_toy:"),
    Page("metacognition", "Metacognition — HOT", ":material/psychology:"),
    Page("reward", "From reward alone", ":material/emoji_events:"),
    Page("workspace", "Workspace — GWT", ":material/hub:"),
    Page("robustness", "Robustness — triangulation", ":material/cyclone:"),
    Page("integration", "Integration — IIT", ":material/join_inner:"),
    Page("rollouts", "Rollout theatre", ":material/movie:"),
    Page("replication", "Replication", ":material/fact_check:"),
    Page("scorecards", "Scorecards", ":material/receipt_long:"),
    Page("mystery", "Mystery agent", ":material/help:"),
    Page("lesson", "Lesson", ":material/school:"),
    Page("your_data", "Your data", ":material/upload_file:"),
    Page("be_the_agent", "Be the agent", ":material/sports_esports:"),
    Page("join", "Join a class", ":material/groups:"),
)
"""The app's pages in menu order: a new page is its file and one line here."""
PAGE_URLS: dict[str, str] = {p.name: "" if p is PAGES[0] else p.name for p in PAGES}
"""Each page -> its URL path."""
