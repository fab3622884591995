"""Kiani & Shadlen's two signatures (labcore/markers/sure_option.py) on synthetic choice tables:
hand-computed answers, an independent brute-force count, the undefined cases, input checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from labcore import UndefinedMetricWarning
from labcore.markers import (
    ByCoherence,
    accuracy_waived_vs_not_offered,
    p_sure_by_coherence,
    sure_contrast,
    waived_advantage,
)
from tests.refusals import reasons_of, undefined

# A hand-made table: (coherence, offered, choice, correct)
TABLE = [
    (0.0, 1, "sure", None),
    (0.0, 1, "sure", None),
    (0.0, 1, "left", 1),
    (0.0, 1, "right", 0),
    (0.0, 0, "left", 0),
    (0.0, 0, "right", 1),
    (3.2, 1, "sure", None),
    (3.2, 1, "left", 1),
    (3.2, 0, "right", 0),
    (3.2, 0, "left", 1),
    (6.4, 1, "right", 1),
    (6.4, 1, "right", 1),
    (6.4, 1, "sure", None),
    (6.4, 0, "left", 1),
    (6.4, 0, "right", 0),
    (12.8, 1, "left", 1),
    (12.8, 0, "left", 1),
    (12.8, 0, "left", 0),
    (12.8, 0, "none", None),
    (25.6, 1, "right", 1),
    (25.6, 1, "sure", None),
    (25.6, 1, "left", 1),
    (25.6, 1, "left", 1),
    (25.6, 0, "right", 1),
    (51.2, 1, "right", 1),
    (51.2, 1, "left", 1),
    (51.2, 0, "left", 1),
    (51.2, 0, "sure", None),
]


def columns(rows):
    coh, offered, choice, correct = zip(*rows, strict=True)
    return np.array(coh), np.array(offered), np.array(choice), list(correct)


def brute_p_sure(rows, c):
    offered = [r for r in rows if r[0] == c and r[1]]
    return sum(r[2] == "sure" for r in offered) / len(offered) if offered else float("nan")


def brute_accuracy(rows, c, offered):
    sides = [
        r[3]
        for r in rows
        if (c is None or r[0] == c) and r[1] == offered and r[2] in ("left", "right")
    ]
    return sum(sides) / len(sides) if sides else float("nan")


def test_p_sure_by_coherence_hand_computed():
    coh, offered, choice, _ = columns(TABLE)
    t = p_sure_by_coherence(coh, offered, choice)
    assert t.coherence.tolist() == [0.0, 3.2, 6.4, 12.8, 25.6, 51.2]
    # 0%: 2 sure of 4 offered; 3.2%: 1 of 2; 6.4%: 1 of 3; 12.8%: 0 of 1; 25.6%: 1 of 4; 51.2%: 0 of
    # 2
    np.testing.assert_allclose(t.value, [2 / 4, 1 / 2, 1 / 3, 0.0, 1 / 4, 0.0])
    assert t.n.tolist() == [4, 2, 3, 1, 4, 2]
    # the not-offered sure choice at 51.2% (an abort in NeuroGym) is not counted
    assert t.at(51.2) == 0.0


def test_accuracy_waived_vs_not_offered_hand_computed():
    coh, offered, choice, correct = columns(TABLE)
    r = accuracy_waived_vs_not_offered(coh, offered, choice, correct)
    np.testing.assert_allclose(r.waived, [1 / 2, 1.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(r.not_offered, [1 / 2, 1 / 2, 1 / 2, 1 / 2, 1.0, 1.0])
    assert r.n_waived.tolist() == [2, 1, 2, 1, 3, 2]
    assert r.n_not_offered.tolist() == [
        2,
        2,
        2,
        2,
        1,
        1,
    ]  # "none" and the not-offered "sure" are no side choice
    assert r.pooled_waived == pytest.approx(10 / 11)
    assert r.pooled_not_offered == pytest.approx(6 / 10)
    # S2 at 3.2 / 6.4 / 12.8%: (1 - 0.5) three times
    assert waived_advantage(r) == pytest.approx(0.5)


def test_contrast_hand_computed():
    coh, offered, choice, _ = columns(TABLE)
    t = p_sure_by_coherence(coh, offered, choice)
    # low: (0.5 + 0.5) / 2; high: (0.25 + 0) / 2
    assert sure_contrast(t) == pytest.approx(0.5 - 0.125)


def test_against_brute_force_on_random_tables():
    rng = np.random.default_rng(3)
    levels = [0.0, 3.2, 6.4, 12.8, 25.6, 51.2]
    for _ in range(20):
        n = 300
        rows = [
            (
                float(rng.choice(levels)),
                int(rng.integers(2)),
                str(rng.choice(["left", "right", "sure", "none"])),
                None,
            )
            for _ in range(n)
        ]
        rows = [
            (c, o, ch, int(rng.integers(2)) if ch in ("left", "right") else None)
            for c, o, ch, _ in rows
        ]
        coh, offered, choice, correct = columns(rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            t = p_sure_by_coherence(coh, offered, choice, levels=levels)
            r = accuracy_waived_vs_not_offered(coh, offered, choice, correct, levels=levels)
        for i, c in enumerate(levels):
            np.testing.assert_allclose(t.value[i], brute_p_sure(rows, c))
            np.testing.assert_allclose(r.waived[i], brute_accuracy(rows, c, 1))
            np.testing.assert_allclose(r.not_offered[i], brute_accuracy(rows, c, 0))
        np.testing.assert_allclose(r.pooled_waived, brute_accuracy(rows, None, 1))


def test_no_offered_trial_at_a_coherence_is_nan_with_a_reason():
    with pytest.warns(UndefinedMetricWarning, match=r"\b51\.2%") as caught:  # the level named
        t = p_sure_by_coherence([0, 0, 51.2], [1, 1, 0], ["sure", "left", "right"])
    assert reasons_of(caught) == ["no_trials"]
    assert np.isnan(t.at(51.2)) and t.n.tolist() == [2, 0]
    with pytest.warns(UndefinedMetricWarning, match=r"3\.2%, 25\.6%, 51\.2%") as caught:
        assert np.isnan(sure_contrast(t))
    assert reasons_of(caught) == ["undefined_level"]


def test_a_requested_level_without_trials_is_nan():
    with pytest.warns(UndefinedMetricWarning):
        t = p_sure_by_coherence([0.0], [1], ["sure"], levels=[0.0, 3.2])
    assert t.value[0] == 1.0 and np.isnan(t.value[1])


def test_no_waived_trial_is_nan_with_a_reason():
    # every offered trial at 3.2% takes the sure option: nothing waived there
    with pytest.warns(UndefinedMetricWarning, match=r"\b3\.2%") as caught:
        r = accuracy_waived_vs_not_offered(
            [3.2, 3.2, 3.2], [1, 1, 0], ["sure", "sure", "left"], [None, None, 1]
        )
    assert np.isnan(r.waived[0]) and r.not_offered[0] == 1.0
    assert np.isnan(r.pooled_waived) and set(reasons_of(caught)) == {"no_trials"}
    value, reasons = undefined(waived_advantage, r)
    assert np.isnan(value) and reasons == ["undefined_level"]


def test_a_missing_level_makes_the_contrast_undefined():
    t = ByCoherence(np.array([0.0, 3.2, 25.6]), np.array([0.5, 0.5, 0.1]), np.array([2, 2, 2]))
    with pytest.warns(UndefinedMetricWarning, match="51.2%"):
        assert np.isnan(sure_contrast(t))


def test_defined_values_raise_no_warning():
    coh, offered, choice, correct = columns(TABLE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sure_contrast(p_sure_by_coherence(coh, offered, choice))
        waived_advantage(accuracy_waived_vs_not_offered(coh, offered, choice, correct))


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(choice=["maybe"]), "'maybe'"),  # the value refused
        (dict(sure_offered=[2]), r"^sure_offered"),
        (dict(coherence=[0.0, 1.0]), "coherence=2"),  # the lengths that differ
    ],
)
def test_input_errors_are_clear(bad, match):
    args = {"coherence": [0.0], "sure_offered": [1], "choice": ["sure"], **bad}
    with pytest.raises(ValueError, match=match):
        p_sure_by_coherence(**args)


def test_correct_must_be_binary_on_side_choices():
    with pytest.raises(ValueError, match=r"^correct"):
        accuracy_waived_vs_not_offered([0.0], [0], ["left"], [None])
