"""The human reference (labcore.humans.reference): one table, every figure with its source."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from labcore.humans.reference import (
    REFERENCE,
    SOURCES,
    HumanFigure,
    figure,
    figure_text,
    trial_band,
)
from labcore.render import fmt


def test_every_figure_has_a_known_source_a_locator_and_a_unique_key():
    keys = [f.key for f in REFERENCE]
    assert len(keys) == len(set(keys))
    for f in REFERENCE:
        assert SOURCES[f.source.key] is f.source and f.source.doi.startswith("10.")
        assert f.locator and f.statement


def test_the_figures_as_typed():
    """The numbers checked against the sources when they were typed (the report lists where)."""
    assert figure("rahnev2020.datasets").value == 145
    assert (
        figure("rahnev2020.participants").value,
        figure("rahnev2020.participants").qualifier,
    ) == (8700, "over")
    assert figure("rahnev2020.trials").qualifier == "almost"
    assert figure("rahnev2025.measures").value == 17
    assert trial_band() == (100, 400)


def test_a_figure_must_name_its_source_in_its_key():
    with pytest.raises(ValidationError):
        HumanFigure(key="rahnev2020.x", statement="x", source=SOURCES["rahnev2025"], locator="x")


def test_figure_text_and_unknown_keys():
    f = figure("rahnev2025.min_trials")
    text = figure_text("rahnev2025.min_trials")
    parts = [f.qualifier, fmt(f.value, f.unit), f.statement, f.source.short]  # from the record
    assert [text.index(p) for p in parts] == sorted(text.index(p) for p in parts)
    with pytest.raises(KeyError, match=r"rahnev2025\.typical_m_ratio"):  # names the missing key
        figure("rahnev2025.typical_m_ratio")
