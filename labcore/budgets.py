"""How much is measured: the pipelines' evaluation budgets and the app's live budgets."""

from __future__ import annotations

from dataclasses import dataclass

from labcore.checks import _check
from labcore.config import TrainConfig


@dataclass(frozen=True)
class ReproduceConfig:
    """Evaluation budgets of the experiment pipelines (paper sec. 4.3.3)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Agent seeds (the unit of analysis)."""
    quick: bool = False
    """Label: were the quick budgets used?"""
    e1_trials: int = 600
    """E1 evaluation trials per seed and condition."""
    e2_episodes: int = 32
    """E2 evaluation episodes per seed and capacity (paper: 32)."""
    decoding_episodes: int = 300
    """E2 dNRS decoding episodes per seed and capacity (one sample each)."""
    e3_episodes: int = 50
    """E3 episodes per seed and noise level (paper: 50); 4x this for ID/OOD accuracy."""
    sigmas: tuple[float, ...] = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
    """Noise titration levels (paper: up to 0.5)."""
    pulse_step: int = 3
    """PCI-A: step of the perturbation pulse (after both cues, before any random mask)."""
    pulse_sigma: float = 1.0
    """PCI-A: pulse SD, in units of the (unit-variance) slot activations."""
    masking_soa: int = 2
    """Backward masking: first mask this many steps after the colour cue."""
    masking_count: int = 6
    """Backward masking: number of consecutive masks."""
    untrained: bool = False
    """Run the pipelines on the untrained agents of the same kinds and seeds (their initial
    weights): the construction audit (``labcore.experiments.construction``)."""

    def __post_init__(self) -> None:
        _check(
            len(self.seeds) >= 1 and len(set(self.seeds)) == len(self.seeds),
            "seeds must be distinct, >= 1",
        )
        _check(
            min(self.e1_trials, self.e2_episodes, self.decoding_episodes, self.e3_episodes) >= 10,
            "evaluation budgets must be >= 10 episodes",
        )
        _check(
            len(self.sigmas) >= 2
            and list(self.sigmas) == sorted(self.sigmas)
            and self.sigmas[0] >= 0,
            "sigmas must be increasing, non-negative, at least two",
        )

    @classmethod
    def for_budget(cls, seeds: tuple[int, ...], quick: bool) -> ReproduceConfig:
        """The full budgets, or the quick ones (fewer trials and noise levels)."""
        if not quick:
            return cls(seeds=tuple(seeds))
        return cls(
            seeds=tuple(seeds),
            quick=True,
            e1_trials=200,
            decoding_episodes=100,
            e3_episodes=24,
            sigmas=(0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5),
        )


@dataclass(frozen=True)
class LiveBudgets:
    """What the app measures live (one agent and seed, while the visitor waits) and on how much."""

    metacognition_trials: int = 300
    """Wagering trials of a live E1 view (Metacognition and Reward pages)."""
    workspace_episodes: int = 64
    """Dual-task episodes of a live E2 view (Workspace page)."""
    masking_episodes: int = 32
    """Episodes of a live backward-masking trace (Workspace page)."""
    titration_episodes: int = 50
    """Episodes per live titration point (Robustness page; the pipeline's E3 uses 50 too)."""
    pci_episodes: int = 32
    """Episodes of a live PCI-A and dPCI (Robustness page)."""
    pci_kinds: tuple[str, ...] = ("a0", "a1", "b1", "b2", "b2_ws", "hot_only")
    """The kinds the Robustness page compares live on PCI-A: each family once (no workspace,
    workspace, workspace with a self-model)."""
    integration_episodes: int = 32
    """Episodes of a live integration reading per condition (Integration page)."""
    theatre_episodes: int = 1000
    """Episodes the Rollout theatre can play per agent (episode ``i`` is the i-th evaluation
    seed)."""
    theatre_batch: int = 32
    """Episodes the theatre runs together (the matched self-model noise and shuffles act on a
    batch)."""
    sure_option_updates: int = 4000
    """Update cap of the live sure-option run (From reward alone page: Song et al.'s plain GRU on
    NeuroGym's wager, 64 trials per update, ``labcore.training.neurogym_trainer.live_config``):
    about 2 minutes on one core at the 30-50 updates/s measured on the lab's 2-core machine under
    load (``python -m bench.bench_pdw --live``); the registered runs stop by protocol 8.7's
    criterion, at most 12,000."""
    sure_option_check_every: int = 100
    """Updates between the live run's held-out checks (registered: 100)."""
    sure_option_heldout_trials: int = 300
    """Held-out trials of each live check (registered: 1,200; a live curve needs less)."""
    sure_option_train_pool: int = 10_000
    """NeuroGym trials drawn for the live run's training pool (registered: 100,000, about 12 s to
    draw)."""
    reward_training: TrainConfig = TrainConfig(
        max_updates=100, min_updates=100, eval_every=10, heldout_episodes=200
    )
    """The live reward-only training run (From reward alone page): 100 updates, a held-out AUROC
    every 10 (a short demonstration, not the registered schedule of protocol 5.3; its agent falls
    short of the 95% criterion and is flagged so)."""


LIVE_BUDGETS = LiveBudgets()
"""The app's live budgets (``ui/data.py`` reads them)."""
