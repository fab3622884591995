"""measures: an empty selection of trials makes a marker undefined (nan), not an error."""

from __future__ import annotations

import numpy as np

from labcore.markers import skip_fraction, type2_auroc
from labcore.measures import on_selected


def test_empty_selection_is_nan_and_a_selection_is_the_marker():
    correct = np.array([True, False, True, False])
    confidence = np.array([0.9, 0.2, 0.7, 0.4])
    none = np.zeros(4, bool)
    assert np.isnan(on_selected(none, type2_auroc, correct, confidence))
    assert np.isnan(on_selected(none, skip_fraction, confidence))
    assert on_selected(np.ones(4, bool), type2_auroc, correct, confidence) == type2_auroc(
        correct, confidence
    )
    first_two = np.array([True, True, False, False])
    assert on_selected(first_two, skip_fraction, confidence) == skip_fraction(confidence[:2])


def test_the_theatre_episode_feels_batch_wide_self_model_lesions():
    """Matched noise and shuffling act on a batch: alone, one episode would look intact (issue
    14)."""
    import labcore.envs as E
    from labcore import measures
    from labcore.config import Intervention
    from labcore.seeding import episode_seeds
    from labcore.storage.checkpoints import checkpoint_file, load_checkpoint

    agent = load_checkpoint(checkpoint_file("checkpoints", "wagering-b2_ws-s0")).agent
    seeds = [int(s) for s in episode_seeds(0, "eval", 16)]
    intact = measures.theatre(agent, E.WAGERING, seeds[3], Intervention(seed=0))
    steps = int(intact.trace.valid[0].sum())
    batched = measures.theatre(agent, E.WAGERING, seeds[3], Intervention(seed=0), companions=seeds)
    assert (
        int(batched.trace.valid[0].sum()) == steps
    )  # the same episode, padded to the batch's length
    np.testing.assert_allclose(
        batched.trace.confidence[0, :steps], intact.trace.confidence[0, :steps], atol=1e-5
    )
    for mode in ("noise", "permute"):
        iv = Intervention(self_model_mode=mode, seed=0)
        among = measures.theatre(agent, E.WAGERING, seeds[3], iv, companions=seeds)
        assert among.trace.n_episodes == 1 and len(among.frames) == among.trace.valid[0].sum() + 1
        assert not np.allclose(
            among.trace.confidence[0, :steps], intact.trace.confidence[0, :steps], atol=1e-3
        )
