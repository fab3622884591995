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
    assert on_selected(np.ones(4, bool), type2_auroc, correct, confidence) == type2_auroc(correct, confidence)
    first_two = np.array([True, True, False, False])
    assert on_selected(first_two, skip_fraction, confidence) == skip_fraction(confidence[:2])
