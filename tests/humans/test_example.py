"""The lab's synthetic example (labcore.humans.example): drawn from a seed, labelled synthetic,
its metacognitive noise visible in the markers."""

from __future__ import annotations

from labcore.humans.example import EXAMPLE_TRIALS, META_NOISE, synthetic_example
from labcore.humans.markers import subject_markers
from labcore.humans.trials import read_trials


def test_same_seed_same_file_another_seed_another():
    assert synthetic_example(0) == synthetic_example(0) != synthetic_example(1)


def test_every_subject_is_labelled_synthetic_and_has_enough_trials():
    t = read_trials(synthetic_example(), "example.csv")
    assert all(s.startswith("synthetic-") for s in t.subjects)
    assert len(t.subjects) == len(META_NOISE) and len(t) == EXAMPLE_TRIALS * len(META_NOISE)
    assert EXAMPLE_TRIALS >= 100


def test_metacognitive_noise_lowers_the_m_ratio():
    first, _, last = subject_markers(read_trials(synthetic_example()))
    assert first.m_ratio > 0.8 and last.m_ratio < 0.5 and first.type2_auroc > last.type2_auroc
