"""Be the agent (labcore.humans.session): the agent's own trials from a seed, the flash drawn from
the observation, a visitor's table read back through the trial reader, the answer's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from labcore import view_cache
from labcore.humans.markers import SubjectMarkers, subject_markers
from labcore.humans.reference import trial_band
from labcore.humans.session import (
    SESSION_TRIALS,
    WAGERS,
    answer_text,
    flash_image,
    session_trials,
    visitor_csv,
)
from labcore.humans.trials import read_trials
from labcore.render import UNDEFINED, fmt
from labcore.storage.checkpoints import checkpoint_file


def visitor_markers(data: bytes) -> SubjectMarkers:
    """A visitor's table measured as the pages measure any upload (ui/humans.py)."""
    return subject_markers(read_trials(data, "your trials", "lab"))[0]


def test_same_seed_same_trials_another_seed_other_trials():
    a, b, c = session_trials(2), session_trials(2), session_trials(3)
    assert len(a) == SESSION_TRIALS
    assert np.array_equal(a.evidence, b.evidence) and np.array_equal(a.salience, b.salience)
    assert not np.array_equal(a.salience, c.salience)


def test_the_trials_are_the_agents_first_evaluation_trials():
    path = checkpoint_file("checkpoints", "wagering-b2_ws-s1")
    view = view_cache.read_cache(
        view_cache.cache_path(path, str(view_cache.CACHE_DIR)), view_cache.checkpoint_key(path)
    )[view_cache.condition_key("meta", "on", 4)]
    t = session_trials(1)
    assert np.array_equal(t.stimulus, view.stimulus[:SESSION_TRIALS])
    assert np.array_equal(t.salience, view.salience[:SESSION_TRIALS])


def test_the_evidence_is_salience_times_onehot_plus_the_trials_noise():
    """Protocol sec. 3.2, checked on the drawn arrays (the noise is the task's, N(0, 0.25^2))."""
    t = session_trials(0, 400)
    signal = np.zeros((400, 2))
    signal[np.arange(400), t.stimulus] = t.salience
    noise = t.evidence - signal
    assert abs(noise.std() - 0.25) < 0.02 and abs(noise.mean()) < 0.03
    assert 0 <= t.salience.min() and t.salience.max() <= 1


def test_the_flash_is_blue_for_left_red_for_right_grey_for_nothing():
    centre = lambda img: img[img.shape[0] // 2, img.shape[1] // 2].tolist()  # noqa: E731
    blue, red, grey = (centre(flash_image(e)) for e in ([1, 0], [0, 1], [-0.3, 0.0]))
    assert blue[2] > blue[0] and red[0] > red[2] and grey[0] == grey[1] == grey[2]
    assert flash_image([0.2, 0.2]).dtype == np.uint8


def test_the_wagers_are_an_opt_out_and_three_bets_with_their_keys():
    assert [w.bet for w in WAGERS] == [False, True, True, True]
    assert [w.shortcut for w in WAGERS] == ["1", "2", "3", "4"]
    assert len({w.confidence for w in WAGERS}) == 4


def test_a_visitors_table_reads_back_with_the_same_numbers():
    t = session_trials(4)
    evidence_says = (t.evidence[:, 1] > t.evidence[:, 0]).astype(int)
    margin = np.abs(t.evidence[:, 1] - t.evidence[:, 0])
    conf = np.select([margin > 0.6, margin > 0.3, margin > 0.1], [0.95, 0.8, 0.65], 0.5)
    data = visitor_csv(t, evidence_says, conf)
    back = read_trials(data)
    assert back.subjects == ("you",) and np.array_equal(back.stimulus, t.stimulus)
    assert np.array_equal(back.difficulty, t.salience) and np.array_equal(back.confidence, conf)
    you = visitor_markers(data)
    assert you.n_trials == SESSION_TRIALS and you.rating_rule == "levels"
    assert you.accuracy == np.mean(evidence_says == t.stimulus)
    assert you.calibration_error is not None


def test_the_answer_is_rendered_from_the_numbers():
    you = SubjectMarkers(subject="you", n_trials=50, accuracy=0.8, type2_auroc=0.71, m_ratio=0.6)
    agent = SubjectMarkers(subject="b2", n_trials=50, accuracy=0.86, type2_auroc=0.82, m_ratio=0.9)
    zeroed = SubjectMarkers(subject="b2 zero", n_trials=50, accuracy=0.86, type2_auroc=0.5)
    text = answer_text(you, agent, zeroed)
    for value in (0.71, 0.82, 0.5, 0.6, 0.9):
        assert f"{fmt(value)}" in text
    assert UNDEFINED in text  # the visitor's undefined value, in the lab's word
    assert f"{you.n_trials}" in text and f"{trial_band()[0]}" in text  # 50 trials, below 100
    alone = answer_text(you, None, None)
    assert "agent" not in alone and fmt(0.71) in alone


@pytest.mark.parametrize("n", [40, 60])
def test_any_session_length_the_brief_allows_is_readable(n):
    t = session_trials(0, n)
    resp = t.stimulus.copy()
    resp[:5] = 1 - resp[:5]
    conf = np.where(np.arange(n) < 5, 0.5, 0.95)
    assert visitor_markers(visitor_csv(t, resp, conf)).type2_auroc == 1.0
