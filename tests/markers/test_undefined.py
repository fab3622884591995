"""The one helper that silences markers: only the documented undefined-metric warning."""

from __future__ import annotations

import numpy as np
import pytest


def test_the_one_silencing_helper_hides_only_undefined_metric_warnings():
    """undefined_as_nan: a documented undefined case is quiet nan; an input bug still raises;
    other warnings still show."""
    import warnings

    import labcore
    from labcore.markers import ignore_undefined, type2_auroc, undefined_as_nan

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(
            undefined_as_nan(type2_auroc, [True, True], [0.1, 0.2])
        )  # one class: undefined
    with pytest.raises(ValueError, match="empty"):
        undefined_as_nan(type2_auroc, [], [])  # an input bug is not turned into nan
    with pytest.warns(labcore.LabWarning), ignore_undefined():
        warnings.warn("something else", labcore.LabWarning, stacklevel=1)
