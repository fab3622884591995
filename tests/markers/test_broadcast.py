"""Tests for labcore.markers.broadcast against direct Python-loop implementations."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from labcore import UndefinedMetricWarning
from labcore.markers import cue_signal, global_broadcast_index, ignition_sharpness
from tests.refusals import undefined

SETTINGS = settings(max_examples=40, deadline=None)

# --------------------------------------------------------------------------- brute force


def brute_gbi(slots, eps=1e-8, mask=None, clip=False):
    """Paper equation with loops; empty slots are not nodes; < 2 occupied -> skipped."""
    slots = np.asarray(slots, float)
    episodes = slots[None] if slots.ndim == 3 else slots
    values = []
    for n, episode in enumerate(episodes):
        for t, w in enumerate(episode):
            if mask is not None:
                m = np.asarray(mask)
                if not (m[t] if m.ndim == 1 else m[n, t]):
                    continue
            k = len(w)
            occupied = [i for i in range(k) if any(x != 0 for x in w[i])]
            if len(occupied) < 2:
                continue
            for i in occupied:
                a = {}
                for j in range(k):
                    if j == i:
                        continue
                    dot = sum(float(x) * float(y) for x, y in zip(w[i], w[j], strict=True))
                    a[j] = max(dot, 0.0) if clip else dot
                total = sum(a.values())
                values.append(1.0 - sum((a[j] / (total + eps)) ** 2 for j in a))
    return float(np.mean(values)) if values else math.nan


def brute_ignition(x):
    x = np.asarray(x, float)
    if x.ndim == 1:
        traces = [list(x)]
    else:
        episodes = x[None] if x.ndim == 3 else x
        traces = []
        for episode in episodes:
            units = episode.shape[1] * episode.shape[2]
            traces.append([math.sqrt(sum(v * v for v in w.ravel()) / units) for w in episode])
    per_episode = []
    for a in traces:
        steps = [a[t] - a[t - 1] for t in range(1, len(a))]
        per_episode.append(max(0.0, max(steps)))
    return sum(per_episode) / len(per_episode)


def brute_cue_signal(states, held, displaced):
    def cos(u, v):
        nu = math.sqrt(sum(a * a for a in u))
        nv = math.sqrt(sum(b * b for b in v))
        return 0.0 if nu == 0 else sum(a * b for a, b in zip(u, v, strict=True)) / (nu * nv)

    return [cos(x, held) - cos(x, displaced) for x in states]


def random_slots(rng, shape, p_empty=0.3):
    slots = rng.normal(size=shape)
    empty = rng.random(shape[:-1]) < p_empty
    slots[empty] = 0.0
    return slots


# --------------------------------------------------------------------------- GBI


@pytest.mark.parametrize(("k", "expected"), [(2, 0.0), (3, 0.5), (4, 2 / 3), (6, 0.8)])
def test_gbi_equal_coupling_reaches_bound(k, expected):
    # k identical non-zero slots: each couples 1/(k-1) to each other: P = 1 - 1/(k-1)
    assert global_broadcast_index(np.ones((3, k, 5))) == pytest.approx(expected, abs=1e-8)


def test_gbi_hand_example_unequal_coupling():
    w = np.array([[[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]]])
    # slot 0: A = [., 2, 0] -> P = 1 - 1 = 0; slot 1: [2, ., 0] -> 0. Slot 2 is orthogonal
    # to both: its couplings sum to 0 and the paper's equation gives 1 - 0 = 1 (documented).
    assert global_broadcast_index(w) == pytest.approx(1 / 3, abs=1e-8)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 4), st.booleans())
def test_gbi_matches_loops(seed, k, d, clip):
    rng = np.random.default_rng(seed)
    slots = random_slots(rng, (6, k, d))
    expected = brute_gbi(slots, clip=clip)
    negative = "clip" if clip else "keep"
    if math.isnan(expected):
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(global_broadcast_index(slots, negative=negative))
    else:
        assert global_broadcast_index(slots, negative=negative) == pytest.approx(
            expected, rel=1e-9, abs=1e-9
        )


def test_gbi_episodes_and_windows_match_loops():
    rng = np.random.default_rng(3)
    slots = random_slots(rng, (3, 8, 4, 5), p_empty=0.2)
    assert global_broadcast_index(slots) == pytest.approx(brute_gbi(slots))
    mask_t = np.zeros(8, bool)
    mask_t[5:] = True
    assert global_broadcast_index(slots, window=mask_t) == pytest.approx(
        brute_gbi(slots, mask=mask_t)
    )
    assert global_broadcast_index(slots, window=slice(5, None)) == pytest.approx(
        brute_gbi(slots, mask=mask_t)
    )
    mask_nt = rng.random((3, 8)) < 0.5
    assert global_broadcast_index(slots, window=mask_nt) == pytest.approx(
        brute_gbi(slots, mask=mask_nt)
    )
    assert global_broadcast_index(slots[0]) == pytest.approx(brute_gbi(slots[0]))


@SETTINGS
@given(
    hnp.arrays(np.float64, (4, 4, 3), elements=st.floats(-3, 3, width=32)),
    st.permutations(range(4)),
)
def test_gbi_invariant_to_slot_permutation(slots, perm):
    slots = np.where(np.abs(slots) < 0.5, 0.0, slots)  # some empty entries/slots
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a = global_broadcast_index(slots, negative="clip")
        b = global_broadcast_index(slots[:, list(perm)], negative="clip")
    if math.isnan(a):
        assert math.isnan(b)
    else:
        assert b == pytest.approx(a, rel=1e-9, abs=1e-9)


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_gbi_nonnegative_couplings_are_bounded(seed):
    rng = np.random.default_rng(seed)
    slots = np.abs(rng.normal(size=(5, 4, 6)))
    value = global_broadcast_index(slots)
    assert 0.0 <= value <= 2 / 3 + 1e-12


def test_gbi_empty_slots_are_not_nodes():
    # Two identical occupied slots + two empty ones: P = 0 for the occupied pair; the empty
    # slots would get P = 1 by the raw equation and must not count.
    slots = np.zeros((1, 4, 3))
    slots[0, :2] = 1.0
    assert global_broadcast_index(slots) == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize(
    "slots",
    [np.zeros((6, 4, 16)), np.ones((6, 1, 16)), np.zeros((6, 0, 16))],
    ids=["bus-off", "one-slot", "no-slots"],
)
def test_gbi_undefined(slots):
    value, reasons = undefined(global_broadcast_index, slots)
    assert math.isnan(value) and reasons == ["too_few_slots"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert global_broadcast_index(slots, undefined="zero") == 0.0


def test_gbi_empty_window_is_undefined():
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(global_broadcast_index(np.ones((4, 3, 2)), window=slice(0, 0)))


def test_gbi_negative_couplings_keep_vs_clip():
    w = np.array([[[1.0, 0.0], [-1.0, 0.0], [1.0, 0.1]]])
    keep = global_broadcast_index(w)
    clip = global_broadcast_index(w, negative="clip")
    assert keep == pytest.approx(brute_gbi(w))
    assert clip == pytest.approx(brute_gbi(w, clip=True))
    assert keep != pytest.approx(clip)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window": np.ones(3, bool)}, r"\(3,\)"),  # the mask's shape, refused
        ({"window": [0, 1]}, "boolean"),
        ({"negative": "abs"}, "negative"),
        ({"undefined": "chance"}, "undefined"),
        ({"eps": -1.0}, "eps"),
    ],
)
def test_gbi_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        global_broadcast_index(np.ones((4, 3, 2)), **kwargs)


def test_gbi_shape_and_nan_validation():
    with pytest.raises(ValueError, match="dimension"):
        global_broadcast_index(np.ones((4, 3)))
    bad = np.ones((4, 3, 2))
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        global_broadcast_index(bad)


# --------------------------------------------------------------------------- ignition


def test_ignition_bus_off_is_exactly_zero():
    assert ignition_sharpness(np.zeros((32, 4, 16))) == 0.0
    assert ignition_sharpness(np.zeros((5, 32, 4, 16))) == 0.0
    assert ignition_sharpness(np.zeros((32, 0, 16))) == 0.0


def test_ignition_step_vs_ramp():
    step = np.zeros((10, 2, 2))
    step[5:] = 1.0  # RMS activation jumps 0 -> 1 in one step
    ramp = np.linspace(0, 1, 10)[:, None, None] * np.ones((10, 2, 2))
    assert ignition_sharpness(step) == pytest.approx(1.0)
    assert ignition_sharpness(ramp) == pytest.approx(1 / 9)
    assert ignition_sharpness(step[::-1]) == 0.0  # only rises count


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from([(7,), (7, 3, 2), (3, 7, 3, 2)]))
def test_ignition_matches_loops(seed, shape):
    x = np.random.default_rng(seed).normal(size=shape)
    if len(shape) == 1:
        x = np.abs(x)
    assert ignition_sharpness(x) == pytest.approx(brute_ignition(x), abs=1e-12)


def test_ignition_window():
    trace = np.array([0.0, 1.0, 1.0, 1.2, 1.3])
    assert ignition_sharpness(trace) == 1.0
    assert ignition_sharpness(trace, window=slice(1, None)) == pytest.approx(0.2)


def test_ignition_validation():
    with pytest.raises(ValueError, match=r"\b2\b\D+\b1\b"):  # the minimum, and the steps given
        ignition_sharpness([1.0])
    with pytest.raises(ValueError, match="dimension"):
        ignition_sharpness(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"\b2\b\D+\b1\b"):
        ignition_sharpness(np.ones((4, 3, 2)), window=slice(0, 1))


# --------------------------------------------------------------------------- cue signal


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_cue_signal_matches_loops(seed):
    rng = np.random.default_rng(seed)
    states = rng.normal(size=(6, 5))
    states[2] = 0.0
    held, displaced = rng.normal(size=5), rng.normal(size=5)
    np.testing.assert_allclose(
        cue_signal(states, held, displaced),
        brute_cue_signal(states, held, displaced),
        atol=1e-12,
    )


def test_cue_signal_reference_values():
    held = np.array([1.0, 0.0, 0.0])
    displaced = np.array([0.22, np.sqrt(1 - 0.22**2), 0.0])  # cosine 0.22 as in sec 5.2
    s = cue_signal(np.stack([np.zeros(3), held, 3 * held, displaced]), held, displaced)
    np.testing.assert_allclose(s, [0.0, 0.78, 0.78, -0.78])


def test_cue_signal_accepts_slots():
    rng = np.random.default_rng(0)
    slots = rng.normal(size=(4, 2, 3))
    held, displaced = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    np.testing.assert_allclose(
        cue_signal(slots, held, displaced),
        cue_signal(slots.reshape(4, 6), held.ravel(), displaced.ravel()),
    )


def test_cue_signal_validation():
    with pytest.raises(ValueError, match="zeros"):  # the held reference is all zeros
        cue_signal(np.ones((3, 2)), [0, 0], [1, 0])
    with pytest.raises(ValueError, match="displaced"):  # held and displaced point one way
        cue_signal(np.ones((3, 2)), [1, 1], [2, 2])
    with pytest.raises(ValueError, match="features"):
        cue_signal(np.ones((3, 2)), [1, 0, 0], [0, 1, 0])


def test_cue_retention_hand_cases_and_bus_off():
    from labcore.markers import cue_retention

    rng = np.random.default_rng(0)
    t, k, d = 6, 4, 16
    base = rng.normal(size=(t, k, d))
    # The cue sits in slot 0 from step 1 until a mask overwrites slot 0 at step 4; a stored slot is
    # constant between writes, and the two runs differ only in the cue's value.
    base[1:4, 0] = rng.normal(size=d)
    alt = base.copy()
    alt[1:4, 0] = rng.normal(size=d)
    r = cue_retention(base, alt, entry_step=1)
    np.testing.assert_allclose(r, [0, 1, 1, 1, 0, 0])
    # Half the trace decays: retention halves (the projection is linear in the difference).
    alt2 = base.copy()
    alt2[1:, 0] += 1.0
    alt2[3:, 0] = base[3:, 0] + 0.5
    np.testing.assert_allclose(cue_retention(base, alt2, 1), [0, 1, 1, 0.5, 0.5, 0.5])
    assert not cue_retention(np.zeros((t, k, d)), np.zeros((t, k, d)), 1).any()  # bus-off
    with pytest.raises(ValueError, match=re.escape(str(base[:3].shape))):  # the shapes compared
        cue_retention(base, base[:3], 1)
    with pytest.raises(ValueError, match="entry_step"):
        cue_retention(base, alt, 9)


def test_gbi_abs_cosine_on_hand_made_slot_sets():
    from labcore.markers import global_broadcast_index as gbi

    equal = np.tile(np.array([1.0, 2.0, -1.0]), (1, 4, 1))  # four equally coupled slots
    assert gbi(equal, coupling="abs_cosine") == pytest.approx(2 / 3)
    two = np.zeros((1, 4, 3))
    two[0, 0], two[0, 1] = [1.0, 0.0, 0.0], [0.3, -2.0, 0.5]  # two occupied: one partner takes all
    # 0 up to the paper's eps in the denominator: 1 - (c / (c + eps))^2 ~ 2 eps / c, c = |cos| ~
    # 0.14
    assert gbi(two, coupling="abs_cosine") == pytest.approx(0.0, abs=1e-6)
    assert gbi(two, coupling="abs_cosine", eps=0.0) == pytest.approx(0.0, abs=1e-12)
    three = np.zeros((1, 4, 2))
    three[0, :3] = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # slot 0: couplings 0 and 1/sqrt2
    share = np.array([0.0, 1.0])
    p0 = 1 - np.sum(share**2)  # one neighbour only
    p2 = 1 - 2 * 0.5**2  # two equal neighbours
    assert gbi(three, coupling="abs_cosine") == pytest.approx((p0 + p0 + p2) / 3)
    # scale-free: scaling one slot changes the signed form, not this one
    scaled = equal.copy()
    scaled[0, 0] *= 10
    assert gbi(scaled, coupling="abs_cosine") == pytest.approx(2 / 3)
    assert (
        0.0
        <= gbi(np.random.default_rng(0).normal(size=(20, 4, 16)), coupling="abs_cosine")
        <= 2 / 3
    )
    with pytest.raises(ValueError, match="coupling"):
        gbi(equal, coupling="cos")


def test_gbi_is_undefined_rather_than_out_of_range_with_negative_couplings():
    import warnings

    from labcore.markers import global_broadcast_index as gbi

    opposed = np.array([[[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]])
    assert gbi(opposed) == pytest.approx(-2.0)  # the registered signed form: outside [0, 1]
    value, reasons = undefined(gbi, opposed, negative="undefined")
    assert np.isnan(value) and reasons == ["negative_couplings"]
    aligned = np.ones((2, 4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning when every coupling is >= 0
        assert gbi(aligned, negative="undefined") == pytest.approx(2 / 3)
