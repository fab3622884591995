"""Frozen configuration dataclasses: one obvious place for every setting.

Every field has a default and a one-line docstring (CleanRL style). Derived values are
properties, never mutated after creation. Task choices the paper leaves open are
pre-registered, with reasons, in ``docs/protocol.md``; the section is cited per class.
"""

from __future__ import annotations

from dataclasses import dataclass

N_CUE_VALUES = 7
"""Cue alphabet size of the dual task: one value per MiniGrid action, so chance per report is 1/7."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass(frozen=True)
class DualTaskConfig:
    """Dual task of Experiments 2-3 (paper sec. 4.2; protocol sec. 2).

    Timeline (step index ``t`` = observation the agent acts on): the secondary cue (a colour)
    arrives at ``secondary_cue_step``, the primary cue (an object type) at
    ``primary_cue_step``; a delay with distractor ("mask") events follows; the secondary
    cue is reported at ``report_secondary_step`` and the primary cue at the last step.
    """

    n_steps: int = 32
    """Episode length; the episode terminates after the primary report (paper: max 32 steps)."""
    secondary_cue_step: int = 0
    """Step at which the secondary (colour) cue is shown on the cue channel."""
    primary_cue_step: int = 1
    """Step at which the primary (object type) cue is shown on the cue channel."""
    mask_counts: tuple[int, ...] = (0, 1, 2)
    """Numbers of distractor events per episode, drawn uniformly (random-mask mode)."""
    first_mask_step: int = 4
    """Earliest step a random distractor may appear."""
    mask_soa: int | None = None
    """Backward-masking mode: first mask this many steps after the secondary cue (None = random masks)."""
    mask_count: int = 0
    """Backward-masking mode: number of masks, one every ``mask_interval`` steps."""
    mask_interval: int = 1
    """Backward-masking mode: steps between consecutive masks."""

    def __post_init__(self) -> None:
        _check(self.n_steps >= 8, f"n_steps must be >= 8, got {self.n_steps}")
        _check(
            0 <= self.secondary_cue_step < self.primary_cue_step < self.first_mask_step,
            "cue steps must satisfy 0 <= secondary < primary < first_mask_step",
        )
        _check(self.first_mask_step < self.last_mask_step_exclusive,
               "the delay is too short to hold any random distractor")
        _check(all(0 <= c <= self.random_mask_slots for c in self.mask_counts) and self.mask_counts,
               f"mask_counts must be non-empty and within 0..{self.random_mask_slots}")
        if self.mask_soa is not None:
            _check(self.mask_interval >= 1, "mask_interval must be >= 1")
            _check(self.mask_count >= 0, "mask_count must be >= 0")
            first = self.secondary_cue_step + self.mask_soa
            _check(first > self.primary_cue_step,
                   f"mask_soa={self.mask_soa} would put a mask on a cue step; use >= "
                   f"{self.primary_cue_step - self.secondary_cue_step + 1}")
            last = first + (self.mask_count - 1) * self.mask_interval
            _check(self.mask_count == 0 or last < self.report_secondary_step,
                   f"{self.mask_count} masks from step {first} every {self.mask_interval} "
                   f"would reach the report phase (step {self.report_secondary_step})")

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
    """Time limit; an episode without a decision by then counts as an error."""
    salience_range: tuple[float, float] = (0.0, 1.0)
    """Cue salience lambda is drawn uniformly from this range."""
    cue_noise_sd: float = 0.25
    """SD of the Gaussian observation noise added to the cue content (degrades salience)."""
    wager_probability: float = 0.5
    """Probability that a wager flag follows the decision."""

    def __post_init__(self) -> None:
        lo, hi = self.salience_range
        _check(0.0 <= lo <= hi, f"salience_range must satisfy 0 <= lo <= hi, got {self.salience_range}")
        _check(self.cue_noise_sd >= 0.0, "cue_noise_sd must be >= 0")
        _check(0.0 <= self.wager_probability <= 1.0, "wager_probability must be in [0, 1]")
        _check(self.max_steps >= 8, "max_steps must be >= 8 (the oracle needs 7)")
