"""Evidence for scoring our agents, read from a result set."""

from __future__ import annotations

import math

import pytest

from labcore.scorecards.lab_agents import lab_evidence, lab_fcs_inputs, score_lab_agent

VALUES = {
    "e2.gbi_abs.k4": 1.7,
    "e2.ignition.k4": 0.5,
    "e2.conjunction.k4": 1.0,
    "e2.conjunction.k0": 0.02,
    "e1.auroc.self_on": 0.85,
    "e1.auroc.self_off": 0.5,
    "e1.zself.effective_dim": 1.5,
    "e1.zself.information_bits": 0.15,
}


def test_evidence_mapping_and_the_lesion():
    assert lab_evidence("A1", VALUES) == {}
    b1 = lab_evidence("B1", VALUES)
    assert b1["gbi"] == 1.0  # clipped into the rubric's fraction
    assert "type2_auroc" not in b1
    intact, lesioned = (
        lab_evidence("B2", VALUES),
        lab_evidence("B2", VALUES, self_model_lesioned=True),
    )
    assert intact["type2_auroc"] == 0.85 and lesioned["type2_auroc"] == 0.5
    assert (
        score_lab_agent("B2", intact).item("HOT-2").behavioural
        > score_lab_agent("B2", lesioned).item("HOT-2").behavioural
    )
    partial = lab_evidence("B2", {"e1.auroc.self_on": math.nan})
    assert (
        "ignition_sharpness" not in partial and "type2_auroc_lesioned" not in partial
    )  # missing: left out
    assert math.isnan(partial["gbi"]) and math.isnan(
        partial["type2_auroc"]
    )  # ... nan where required
    assert score_lab_agent("B2", partial).item("GWT-2").behavioural == 1
    with pytest.raises(ValueError, match="C3"):
        lab_evidence("C3", VALUES)


def test_fcs_inputs():
    assert lab_fcs_inputs("B2", VALUES) == (1.5, pytest.approx(0.1))
    assert lab_fcs_inputs("B2", VALUES, self_model_lesioned=True) == (0.0, 0.0)
    assert lab_fcs_inputs("A0", VALUES) == (0.0, 0.0)
