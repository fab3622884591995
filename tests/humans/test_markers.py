"""Per-subject markers (labcore.humans.markers) on hand-made tables whose markers are known, against
sklearn's ``roc_auc_score`` per subject and an independent tabulation of the type-2 counts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from labcore.humans.markers import (
    MARKER_COLUMNS,
    SubjectMarkers,
    agent_markers,
    markers_csv,
    rating_levels,
    subject_markers,
)
from labcore.humans.trials import lab_csv, read_trials
from labcore.markers import meta_d_prime, meta_d_prime_from_counts


def cdb_bytes(table: dict[str, list[tuple[int, int, float]]]) -> bytes:
    lines = ["Subj_idx,Stimulus,Response,Confidence"]
    for subject, rows in table.items():
        lines += [f"{subject},{s},{r},{c}" for s, r, c in rows]
    return ("\n".join(lines) + "\n").encode()


def by_hand_counts(rows: list[tuple[int, int, float]], scale: list[float]):
    """Maniscalco's nR_S1 / nR_S2 counted in the test itself (codes 1 and 2, ratings = the scale's
    positions): "S1" responses from the highest rating down, then "S2" responses upwards."""
    k = len(scale)
    counts = {1: [0] * (2 * k), 2: [0] * (2 * k)}
    for s, r, c in rows:
        rating = scale.index(c) + 1
        cell = k - rating if r == 1 else k + rating - 1
        counts[s][cell] += 1
    return counts[1], counts[2]


RNG = np.random.default_rng(35)


def simulated(n: int, noise: float) -> list[tuple[int, int, float]]:
    stim = RNG.integers(1, 3, n)
    x = RNG.normal(np.where(stim == 2, 0.8, -0.8), 1.0)
    resp = np.where(x > 0, 2, 1)
    rating = 1 + np.searchsorted([0.4, 0.9, 1.5], np.abs(x) + RNG.normal(0, noise, n))
    return [(int(s), int(r), float(c)) for s, r, c in zip(stim, resp, rating, strict=True)]


TABLE = {"a": simulated(120, 0.0), "b": simulated(60, 1.0), "c": simulated(200, 0.3)}


def test_every_subject_against_sklearn_and_hand_counted_meta_d():
    markers = subject_markers(read_trials(cdb_bytes(TABLE), "t.csv"))
    assert [m.subject for m in markers] == ["a", "b", "c"]
    scale = sorted({c for rows in TABLE.values() for _, _, c in rows})
    for m, (name, rows) in zip(markers, TABLE.items(), strict=True):
        assert m.subject == name
        s, r, c = (np.array(col) for col in zip(*rows, strict=True))
        correct = s == r
        assert m.n_trials == len(rows) and m.accuracy == pytest.approx(correct.mean())
        assert m.type2_auroc == pytest.approx(roc_auc_score(correct, c), abs=1e-12)
        expected = meta_d_prime_from_counts(*by_hand_counts(rows, scale))
        assert m.meta_d == pytest.approx(expected.meta_d_prime, abs=1e-6)
        assert m.d_prime == pytest.approx(expected.d_prime, abs=1e-12)
        assert m.m_ratio == pytest.approx(expected.m_ratio, abs=1e-6)
        assert (m.rating_rule, m.n_ratings, m.calibration_error) == ("levels", 4, None)
    assert "few_trials" in markers[1].cautions and "few_trials" not in markers[0].cautions
    assert len(markers[1].notes) == len(markers[1].cautions)  # one kind per note


def test_a_hand_made_table_with_every_marker_known():
    """Subject "k": 40 trials, the 30 right ones at confidence 0.9, the 10 wrong ones at 0.6, so
    every right/wrong pair is ordered (AUROC 1); accuracy 3/4; calibration error
    3/4 * |1 - 0.9| + 1/4 * |0 - 0.6| = 0.225."""
    rows = [(0, 0, 0.9), (1, 1, 0.9), (0, 1, 0.6), (1, 1, 0.9)] * 10
    stim, resp, conf = zip(*rows, strict=True)
    (m,) = subject_markers(read_trials(lab_csv(stim, resp, conf, subject="k")))
    assert (m.subject, m.n_trials, m.accuracy, m.type2_auroc) == ("k", 40, 0.75, 1.0)
    assert m.calibration_error == pytest.approx(0.225)
    assert (m.rating_rule, m.n_ratings) == ("levels", 2)


def test_ties_count_half_as_in_sklearn():
    rows = [(0, 0, 0.7), (1, 1, 0.7), (0, 1, 0.7), (1, 0, 0.5)] * 10
    stim, resp, conf = zip(*rows, strict=True)
    (m,) = subject_markers(read_trials(lab_csv(stim, resp, conf)))
    correct = np.array(stim) == np.array(resp)
    assert m.type2_auroc == roc_auc_score(correct, conf) == 0.75


def test_a_continuous_confidence_is_binned_at_each_subjects_quartiles():
    n = 80
    stim = RNG.integers(0, 2, n)
    x = RNG.normal(np.where(stim == 1, 1.0, -1.0))
    resp = (x > 0).astype(int)
    conf = np.clip(0.5 + np.abs(x) / 6, 0, 1)
    assert rating_levels(conf) is None
    (m,) = subject_markers(read_trials(lab_csv(stim, resp, conf)))
    expected = meta_d_prime(stim, resp, conf, n_ratings=4, binning="quantile")
    assert (m.rating_rule, m.n_ratings) == ("quartiles", 4)
    assert m.meta_d == pytest.approx(expected.meta_d_prime) and m.m_ratio == pytest.approx(
        expected.m_ratio
    )


def test_a_constant_confidence_has_no_meta_d_and_says_why():
    rows = [(0, 0, 0.8), (1, 1, 0.8), (0, 1, 0.8), (1, 1, 0.8)] * 10
    stim, resp, conf = zip(*rows, strict=True)
    (m,) = subject_markers(read_trials(lab_csv(stim, resp, conf)))
    assert m.type2_auroc == 0.5 and m.meta_d is None and m.m_ratio is None
    assert m.rating_rule == "none" and "constant_confidence" in m.cautions


def test_the_rating_rule_boundary():
    assert len(rating_levels(np.arange(10))) == 10
    assert rating_levels(np.arange(11)) is None


def test_an_agent_measured_as_a_person_gives_its_pages_numbers():
    """B2's cached Metacognition view (labcore.measures through the view cache): the same AUROC,
    calibration and meta-d' (its quartile rule), intact and with the self-model zeroed."""
    from labcore import view_cache
    from labcore.storage.checkpoints import checkpoint_file

    path = checkpoint_file("checkpoints", "wagering-b2_ws-s0")
    views = view_cache.read_cache(
        view_cache.cache_path(path, str(view_cache.CACHE_DIR)), view_cache.checkpoint_key(path)
    )
    for mode in ("on", "zero"):
        v = views[view_cache.condition_key("meta", mode, 4)]
        m = agent_markers(v.stimulus, v.decision, v.confidence, subject=f"b2 {mode}")
        assert m.type2_auroc == pytest.approx(v.auroc, abs=1e-12)
        assert m.calibration_error == pytest.approx(v.calibration_error, abs=1e-12)
        if mode == "on":
            assert m.rating_rule == "quartiles"
            assert m.meta_d == pytest.approx(v.meta_d, rel=1e-5)
            assert m.m_ratio == pytest.approx(v.m_ratio, rel=1e-5)
        else:
            assert m.meta_d is None and np.isnan(v.meta_d)


def test_the_csv_has_the_commands_columns_and_empty_undefined_cells():
    text = markers_csv(
        [SubjectMarkers(subject="x", n_trials=50, accuracy=0.5, type2_auroc=float("nan"))]
    )
    header, row = text.strip().split("\n")
    assert tuple(header.split(",")) == MARKER_COLUMNS
    assert row == ",x,,50,0,0.5,,,,"
