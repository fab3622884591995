"""Tests for labcore.markers.complexity against brute-force implementations."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcore import UndefinedMetricWarning
from labcore.markers import (
    binarize,
    delta_pci,
    lempel_ziv_complexity,
    lz_complexity_casali,
    lz_complexity_shuffle_normalised,
    pci_a,
)
from tests.refusals import undefined

SETTINGS = settings(max_examples=60, deadline=None)

# --------------------------------------------------------------------------- brute force


def kaspar_schuster(s):
    """LZ76 complexity, Kaspar & Schuster (1987) pointer algorithm (independent of the
    substring-search implementation in the library)."""
    n = len(s)
    if n == 1:
        return 1
    i, k, start, c, k_max = 0, 1, 1, 1, 1
    while True:
        if s[i + k - 1] == s[start + k - 1]:
            k += 1
            if start + k > n:
                c += 1
                break
        else:
            k_max = max(k, k_max)
            i += 1
            if i == start:
                c += 1
                start += k_max
                if start + 1 > n:
                    break
                i, k, k_max = 0, 1, 1
            else:
                k = 1
    return c


def brute_binarize(x, baseline=None, threshold=None):
    x = np.asarray(x, float).reshape(len(x), -1)
    t_len, n_ch = x.shape
    out = np.zeros((t_len, n_ch), bool)
    if baseline is None:
        for c in range(n_ch):
            col = sorted(x[:, c])
            m = t_len // 2
            median = col[m] if t_len % 2 else (col[m - 1] + col[m]) / 2
            level = median if threshold is None else threshold
            for t in range(t_len):
                out[t, c] = x[t, c] > level
        return out
    b = np.asarray(baseline, float).reshape(len(x), -1)
    if threshold is None:
        variances = []
        for c in range(n_ch):
            mean = sum(b[:, c]) / t_len
            variances.append(sum((v - mean) ** 2 for v in b[:, c]) / t_len)
        threshold = math.sqrt(sum(variances) / n_ch)
    for t in range(t_len):
        for c in range(n_ch):
            out[t, c] = abs(x[t, c] - b[t, c]) > threshold
    return out


def time_major(matrix):
    m = np.asarray(matrix)
    return "".join(str(int(m[t, c])) for t in range(m.shape[0]) for c in range(m.shape[1]))


binary_strings = st.text(alphabet="01", min_size=1, max_size=300)

# --------------------------------------------------------------------------- LZ76


@pytest.mark.parametrize(
    ("sequence", "expected"),
    [
        ("1001111011000010", 6),  # 1 / 0 / 01 / 1110 / 1100 / 0010 (antropy docstring)
        ("0001101001000101", 6),  # 0 / 001 / 10 / 100 / 1000 / 101 (Lempel & Ziv 1976)
        ("0", 1),
        ("01", 2),
        ("000000", 2),  # 0 / 00000
        ("0101010101", 3),  # 0 / 1 / 01010101
    ],
)
def test_lz76_hand_examples(sequence, expected):
    assert lempel_ziv_complexity(sequence) == expected
    assert lempel_ziv_complexity([int(ch) for ch in sequence]) == expected


@SETTINGS
@given(binary_strings)
def test_lz76_matches_kaspar_schuster(s):
    assert lempel_ziv_complexity(s) == kaspar_schuster(s)
    assert lempel_ziv_complexity(np.array([c == "1" for c in s])) == kaspar_schuster(s)


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=1, max_size=120))
def test_lz76_general_alphabet(seq):
    assert lempel_ziv_complexity(seq) == kaspar_schuster(seq)
    # renaming the symbols does not change the count
    assert lempel_ziv_complexity([10 * v + 7 for v in seq]) == kaspar_schuster(seq)


def test_lz76_validation():
    with pytest.raises(ValueError, match="empty"):
        lempel_ziv_complexity("")
    with pytest.raises(ValueError, match="1-D"):
        lempel_ziv_complexity(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="256"):
        lempel_ziv_complexity(np.arange(300))
    with pytest.raises(ValueError, match="NaN"):
        lempel_ziv_complexity([0.0, np.nan])


# --------------------------------------------------------------------------- binarize


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(1, 4))
def test_binarize_matches_loops(seed, t_len, n_ch):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t_len, n_ch))
    base = x + rng.normal(scale=0.5, size=x.shape) * (rng.random(x.shape) < 0.5)
    np.testing.assert_array_equal(binarize(x), brute_binarize(x))
    np.testing.assert_array_equal(binarize(x, baseline=base), brute_binarize(x, base))
    np.testing.assert_array_equal(
        binarize(x, baseline=base, threshold=0.3), brute_binarize(x, base, 0.3)
    )
    np.testing.assert_array_equal(binarize(x, threshold=0.1), brute_binarize(x, threshold=0.1))


def test_binarize_shapes_and_thresholds():
    x = np.arange(24.0).reshape(4, 2, 3)
    assert binarize(x).shape == (4, 6)
    assert binarize(np.arange(5.0)).shape == (5, 1)
    out = binarize([[1.0, 1.0], [3.0, 3.0]], threshold=[2.0, 5.0])
    np.testing.assert_array_equal(out, [[False, False], [True, False]])
    # constant baseline: default threshold is 0, any change counts
    np.testing.assert_array_equal(
        binarize([0.0, 1e-3, 0.0], baseline=[0.0, 0.0, 0.0]).ravel(), [False, True, False]
    )


def test_binarize_validation():
    with pytest.raises(ValueError, match=r"\(3, 3\)\D+\(3, 2\)"):  # both shapes, refused
        binarize(np.ones((3, 2)), baseline=np.ones((3, 3)))
    with pytest.raises(ValueError, match="channels"):
        binarize(np.ones((3, 2)), threshold=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="NaN"):
        binarize([[np.nan]])


# --------------------------------------------------------------------------- normalised LZ


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 6))
def test_casali_matches_formula_time_major(seed, t_len, n_ch):
    m = np.random.default_rng(seed).random((t_len, n_ch)) < 0.3
    s = time_major(m)
    p = s.count("1") / len(s)
    if len(s) < 2:
        with pytest.raises(ValueError):
            lz_complexity_casali(m)
        return
    if p in (0.0, 1.0):
        with pytest.warns(UndefinedMetricWarning, match="constant"):
            assert math.isnan(lz_complexity_casali(m))
        return
    h = -p * math.log2(p) - (1 - p) * math.log2(1 - p)
    expected = kaspar_schuster(s) * math.log2(len(s)) / (len(s) * h)
    assert lz_complexity_casali(m) == pytest.approx(expected)


def test_flattening_is_time_major():
    # Every time step shows the channel pattern 0011: time-major "0011 0011 ..." (4 LZ76
    # phrases) differs from channel-major "0...0 1...1" (3 phrases).
    m = np.tile([0, 0, 1, 1], (8, 1))
    assert kaspar_schuster("0011" * 8) == 4
    assert kaspar_schuster("0" * 16 + "1" * 16) == 3
    expected = 4 * math.log2(32) / 32  # p = 1/2, H = 1
    assert lz_complexity_casali(m) == pytest.approx(expected)
    assert pci_a(m.astype(float), threshold=0.5, method="lz76") == pytest.approx(expected)


def test_casali_random_sequence_near_one():
    m = np.random.default_rng(0).random((64, 64)) < 0.2
    assert lz_complexity_casali(m) == pytest.approx(1.0, abs=0.1)


def test_shuffle_normalised():
    rng = np.random.default_rng(1)
    random = rng.random(2048) < 0.5
    assert lz_complexity_shuffle_normalised(random) == pytest.approx(1.0, abs=0.1)
    periodic = np.tile([0, 1, 1, 0], 256)
    assert lz_complexity_shuffle_normalised(periodic) < 0.1
    assert lz_complexity_shuffle_normalised(np.ones((4, 4))) == 1.0
    # seeded: same seed same value; replicates the documented procedure
    a = lz_complexity_shuffle_normalised(random[:300], n_shuffles=5, seed=3)
    assert a == lz_complexity_shuffle_normalised(random[:300], n_shuffles=5, seed=3)
    g = np.random.default_rng(3)
    flat = random[:300].astype(np.uint8)
    shuffled = [kaspar_schuster(list(g.permutation(flat))) for _ in range(5)]
    assert a == pytest.approx(kaspar_schuster(list(flat)) / np.mean(shuffled))


def test_binary_matrix_validation():
    with pytest.raises(ValueError, match="0/1"):
        lz_complexity_casali([0, 1, 2])
    with pytest.raises(ValueError, match=r"\b2\b\D+\b1\b"):  # the minimum and the symbols given
        lz_complexity_casali([1])
    with pytest.raises(ValueError, match=r"\(2, 2, 2\)"):  # the shape refused
        lz_complexity_casali(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="n_shuffles"):
        lz_complexity_shuffle_normalised([0, 1, 1], n_shuffles=0)


# --------------------------------------------------------------------------- PCI-A


def _deflate(data: bytes) -> int:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return len(c.compress(data) + c.flush())


def test_pci_a_zlib_is_compressed_size_over_fair_coin_reference():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 8))
    bits = brute_binarize(x).astype(np.uint8)
    ref_rng = np.random.default_rng(0)
    ref = np.mean(
        [_deflate(ref_rng.integers(0, 2, 128, dtype=np.uint8).tobytes()) for _ in range(8)]
    )
    assert pci_a(x) == pytest.approx(_deflate(bits.ravel().tobytes()) / ref)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(2, 20), st.integers(1, 5))
def test_pci_a_lz76_matches_loops(seed, t_len, n_ch):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t_len, n_ch))
    base = rng.normal(size=(t_len, n_ch))
    s = time_major(brute_binarize(x, base))
    expected = kaspar_schuster(s) * math.log2(len(s)) / len(s)
    assert pci_a(x, baseline=base, method="lz76") == pytest.approx(expected)


def test_pci_a_orders_structure():
    rng = np.random.default_rng(11)
    noise = rng.normal(size=(32, 64))
    # structured: one spatial pattern that switches on and off
    pattern = rng.normal(size=64)
    structured = np.outer(np.sin(np.arange(32) / 3.0), pattern)
    for method in ("zlib", "lz76"):
        assert pci_a(noise, method=method) == pytest.approx(1.0, abs=0.1)
        assert pci_a(structured, method=method) < 0.5 * pci_a(noise, method=method)
        flat = np.zeros((32, 64))
        assert pci_a(flat, baseline=flat, method=method) < 0.05
    assert pci_a(noise) == pci_a(noise)  # deterministic


def test_pci_a_validation():
    with pytest.raises(ValueError, match="method"):
        pci_a(np.ones((4, 4)), method="gzip")
    with pytest.raises(ValueError, match=r"\b2\b\D+\b1\b"):
        pci_a(np.ones((1, 1)))


# --------------------------------------------------------------------------- delta PCI


@SETTINGS
@given(
    st.lists(st.floats(0, 2), min_size=1, max_size=10),
    st.lists(st.floats(0, 2), min_size=1, max_size=10),
)
def test_delta_pci_is_difference_of_means(a, b):
    assert delta_pci(a, b) == pytest.approx(sum(a) / len(a) - sum(b) / len(b), abs=1e-12)


def test_delta_pci_undefined_when_group_empty():
    value, reasons = undefined(delta_pci, [0.5, 0.6], [])
    assert math.isnan(value) and reasons == ["no_incorrect"]
    value, reasons = undefined(delta_pci, [], [0.5])
    assert math.isnan(value) and reasons == ["no_correct"]
    with pytest.raises(ValueError, match="NaN"):
        delta_pci([np.nan], [0.5])
