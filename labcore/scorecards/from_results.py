"""Evidence for scoring the lab's own agents, read from a ``reproduce`` result set.

The rubric thresholds live in :mod:`labcore.scorecards.lab_agent_mapping`; this module only says
which
measured number feeds which evidence key (docs/scorecards.md):

- GWT evidence (B1, B2) comes from Experiment 2's B1 at full capacity and bus-off. B2's bus is
  B1's bus; the capacity sweep is run on B1. GBI is the |cosine| reading (``e2.gbi_abs.k4``):
  with zero-mean slots the paper's signed equation is not defined (see the Replication page),
  and the rubric's evidence key is a fraction.
- HOT evidence (B2) comes from Experiment 1: Type-2 AUROC intact and with z_self zeroed. A
  lesioned B2 is scored with its lesioned AUROC as its own.
- FCS inputs (B2): the effective dimensionality of z_self (self-model variables) and the
  information z_self carries about the agent's own correctness, shared across those variables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from labcore.checks import check_choice
from labcore.scorecards.lab_agent_mapping import EVIDENCE_KEYS

LAB_AGENTS = {"A0": "a0", "A1": "a1", "B1": "b1", "B2": "b2_ws"}
"""Rubric name of each lab agent -> agent kind in the lab."""


def _get(values: Mapping[str, float | None], key: str) -> float | None:
    v = values.get(key)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def lab_evidence(
    kind: str, values: Mapping[str, float | None], *, self_model_lesioned: bool = False
) -> dict:
    """The evidence dict :func:`labcore.scorecards.score_lab_agent` takes, from result values.

    Missing measurements are left out, or nan where the rubric requires the key
    (``EvidenceKey.required_for``, e.g. ``gbi`` for a result set written before
    ``e2.gbi_abs`` existed): the rubric then takes the lower clause.
    """
    check_choice(kind, "lab agent", sorted(LAB_AGENTS))
    evidence: dict = {}
    if kind in ("B1", "B2"):
        evidence["workspace_capacity"] = 4
        for key, source in (
            ("gbi", "e2.gbi_abs.k4"),
            ("ignition_sharpness", "e2.ignition.k4"),
            ("conjunction_accuracy_k4", "e2.conjunction.k4"),
            ("conjunction_accuracy_k0", "e2.conjunction.k0"),
        ):
            value = _get(values, source)
            if value is not None:
                evidence[key] = min(max(value, 0.0), 1.0) if key == "gbi" else value
    if kind == "B2":
        intact, lesioned = _get(values, "e1.auroc.self_on"), _get(values, "e1.auroc.self_off")
        own = lesioned if self_model_lesioned else intact
        if own is not None:
            evidence["type2_auroc"] = own
        if lesioned is not None:
            evidence["type2_auroc_lesioned"] = lesioned
    for spec in EVIDENCE_KEYS:
        if kind in spec.required_for and spec.key not in evidence:
            evidence[spec.key] = math.nan  # not measured: the rubric's lower clause
    return evidence


def lab_fcs_inputs(
    kind: str, values: Mapping[str, float | None], *, self_model_lesioned: bool = False
) -> tuple[float, float]:
    """(self-model variables, bits per variable) for :func:`labcore.scorecards.lab_agent_fcs`.

    Agents without a self-model (and a lesioned one, whose z_self is zero) have none: (0, 0).

    >>> lab_fcs_inputs("B2", {"e1.zself.effective_dim": 2.0, "e1.zself.information_bits": 0.5})
    (2.0, 0.25)
    >>> lab_fcs_inputs("B1", {"e1.zself.effective_dim": 2.0})
    (0.0, 0.0)
    """
    if kind != "B2" or self_model_lesioned:
        return 0.0, 0.0
    n = _get(values, "e1.zself.effective_dim")
    bits = _get(values, "e1.zself.information_bits")
    if not n or bits is None:
        return 0.0, 0.0
    return n, bits / n
