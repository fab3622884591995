"""The paper's claims: its reported numbers, one :class:`labcore.paper.ClaimSpec` each, and how a
page finds the claim it needs.

:data:`CLAIMS` is the table (Experiments 1-3 here, then E4's claims from
:mod:`labcore.e4_claims`) and :data:`CLAIMS_BY_ID` finds a claim by its id; :func:`l75_key`,
:func:`e1_condition`, :func:`e2_condition`, :data:`INTACT_CONDITION` and :func:`claim_for` name
the claim for the condition a page shows; :func:`verdict_table_markdown` writes the table of
``docs/verdicts.md``. How our values are compared with these numbers (the verdict rules), and the
types, are in :mod:`labcore.paper`, which this module reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from labcore.config import CHANCE_LEVELS
from labcore.e4_claims import E4_CLAIMS
from labcore.paper import NEW, ClaimSpec, Values, hypothesis_section, paper_value
from labcore.render import paper_text

E3_FRAGILE = 0.1
"""B1 is "fragile" in the paper's sense (sec. 5.3.2, L75 0.04) when its L75 is below this
(protocol sec. 7.6; the E3 claims' patterns)."""
E3_ROBUST = 0.5
"""The paper's largest tested noise: "robust" means an L75 above it (sec. 5.3.2, "> 0.50")."""
_DECISION = CHANCE_LEVELS["decision"].fraction  # "1/7", as the claims' patterns write it
_CONJUNCTION = CHANCE_LEVELS["conjunction"].fraction  # "1/49"


def l75_key(kind: str, noise_mode: str = "stored") -> str:
    """The key of an agent kind's L75 under workspace (or, without a bus, carrier) noise.

    >>> l75_key("b1"), l75_key("b2_ws", "read")
    ('e3.l75.b1', 'e3.l75.b2_ws.read')
    """
    return f"e3.l75.{kind}" + ("" if noise_mode == "stored" else f".{noise_mode}")


INTACT_CONDITION = {"e1": "self_on", "e2": "k4"}
"""The intact condition of each experiment's claims (what a lesion is compared with)."""
E1_SELF_MODEL_CONDITIONS = {
    "on": "self_on",
    "zero": "self_off",
    "noise": "blind_noise",
    "permute": "blind_permute",
}
"""E1 condition of each self-model mode at full capacity (labcore.config.SELF_MODEL_MODES)."""


def e1_condition(self_model_mode: str, capacity: int, n_slots: int) -> str | None:
    """The paper's E1 condition a (self-model mode, active slots) setting is, or None.

    The paper tests the self-model lesions at full capacity and the workspace lesion (bus off)
    with the self-model on; any other setting is not one of its conditions.

    >>> (e1_condition("zero", 4, 4), e1_condition("on", 0, 4), e1_condition("on", 2, 4),
    ...  e1_condition("zero", 0, 4))
    ('self_off', 'bus_off', None, None)
    """
    if capacity == n_slots:
        return E1_SELF_MODEL_CONDITIONS.get(self_model_mode)
    return "bus_off" if capacity == 0 and self_model_mode == "on" else None


def e2_condition(capacity: int, n_slots: int) -> str | None:
    """The paper's E2 condition (``"k4"``, ``"k2"``, ``"k0"``) of a number of active slots, or None.

    The paper reports full, half and no capacity; other slot counts are not its conditions.

    >>> e2_condition(4, 4), e2_condition(2, 4), e2_condition(0, 4), e2_condition(3, 4)
    ('k4', 'k2', 'k0', None)
    """
    return {n_slots: "k4", n_slots // 2: "k2", 0: "k0"}.get(capacity) if n_slots == 4 else None


def claim_for(metric: str, condition: str | None) -> str | None:
    """The id of the paper's claim on ``metric`` in ``condition``, or None where it reports none.

    The one place a page finds the paper's number for the condition it shows (conditions from
    :func:`e1_condition`, :func:`e2_condition` or :data:`INTACT_CONDITION`). None means the paper
    gives no number for this metric in this condition: say so, never show another condition's.

    >>> (claim_for("e1.auroc", "self_off"), claim_for("e1.accuracy", "bus_off"),
    ...  claim_for("e2.gbi", None))
    ('e1.auroc.self_off', None, None)
    """
    if condition is None:
        return None
    claim_id = f"{metric}.{condition}"
    return claim_id if claim_id in CLAIMS_BY_ID else None


def _v(values: Values, key: str) -> float:
    return values.get(key, math.nan)


ROUNDING = 1e-9
"""Two values closer than this are equal to a pattern (docs/protocol.md change log, 2026-11-24): R^2
of
nested regressions that differ by 2e-16 ordered one way on one CPU code path and the other way on
another, and flipped e3.composite.r2_full's verdict."""


def _lt(a: str, b: str, margin: float = 0.0) -> Callable[[Values], bool]:
    """``a < b - margin``, by more than rounding (:data:`ROUNDING`).

    >>> (_lt("x", "y")({"x": 0.2622434904889672, "y": 0.262243490488967}),
    ...  _lt("x", "y")({"x": 0.1, "y": 0.2}))
    (False, True)
    >>> _lt("x", "y")({"x": 0.262243490488967, "y": 0.2622434904889672})  # equal up to rounding
    False
    """
    return lambda v: _v(v, a) < _v(v, b) - margin - ROUNDING


def _between(key: str, lo: float, hi: float) -> Callable[[Values], bool]:
    return lambda v: lo <= _v(v, key) <= hi


GBI_UNDEFINED = (
    "The paper's GBI equation presupposes non-negative couplings between slots; our slots are "
    "layer-normalised (zero mean), so their couplings are signed and the equation is not defined "
    "here (computed anyway it gives numbers far outside [0, 1]). GBI on |cosine| couplings is "
    "reported beside it (e2.gbi_abs / e3.gbi_abs)."
)


P = paper_value
C = ClaimSpec

CLAIMS: tuple[ClaimSpec, ...] = (
    # ---------------------------------------------------------------- Experiment 1 (HOT)
    C(
        "e1.accuracy.self_on",
        "E1 task accuracy, self-model intact",
        P(0.885, 0.040, 20, section="5.1.2"),
        0.05,
        "well above chance (>= 0.75)",
        lambda v: _v(v, "e1.accuracy.self_on") >= 0.75,
    ),
    C(
        "e1.accuracy.self_off",
        "E1 task accuracy, self-model zeroed (no-rewire lesion)",
        P(0.882, 0.037, 20, section="5.1.2"),
        0.05,
        "within 2 points of self-on (doing is preserved)",
        lambda v: abs(_v(v, "e1.accuracy.self_off") - _v(v, "e1.accuracy.self_on")) <= 0.02,
        arms=("e1.accuracy.self_on",),
    ),
    C(
        "e1.auroc.self_on",
        "E1 Type-2 AUROC, self-model intact",
        P(0.92, None, 20, section="5.1.2"),
        0.05,
        "clear metacognition (>= 0.70)",
        lambda v: _v(v, "e1.auroc.self_on") >= 0.70,
    ),
    C(
        "e1.auroc.self_off",
        "E1 Type-2 AUROC, self-model zeroed",
        P(0.50, None, 20, section="5.1.2"),
        0.05,
        "collapses to chance (<= 0.55)",
        lambda v: _v(v, "e1.auroc.self_off") <= 0.55,
        contrast="the intact agent's AUROC is clearly higher (by >= 0.2)",
        contrast_check=_lt("e1.auroc.self_off", "e1.auroc.self_on", 0.2),
        by_construction="a zeroed z_self feeds the confidence head a constant (equal on every "
        "trial to within float32 rounding: a batched matrix product can round its last rows one "
        "unit differently, so confidences within 4 float32 units are one value), and a constant "
        "confidence has Type-2 AUROC 0.5 exactly",
        arms=("e1.auroc.self_on",),
    ),
    C(
        "e1.auroc.bus_off",
        "E1 Type-2 AUROC, self-model on, workspace off",
        P(0.492, 0.058, 20, section="5.1.2"),
        0.05,
        "near chance (0.4-0.6)",
        _between("e1.auroc.bus_off", 0.4, 0.6),
        by_construction="with strong-lesion wiring and the bus off nothing in the agent depends "
        "on the "
        "stimulus, so the choice-point confidence is one constant and AUROC is 0.5 exactly",
    ),
    C(
        "e1.auroc.blind_noise",
        "E1 Type-2 AUROC, z_self replaced by matched noise",
        P(0.50, None, section="5.1.2"),
        0.05,
        "near chance (<= 0.6)",
        lambda v: _v(v, "e1.auroc.blind_noise") <= 0.6,
        by_construction="the noise replacing z_self is drawn independently of the trial, so the "
        "confidence "
        "cannot depend on the trial: AUROC is 0.5 in expectation whatever the agent learned",
        declared_by="relative",
    ),
    C(
        "e1.auroc.blind_permute",
        "E1 Type-2 AUROC, z_self shuffled across trials",
        P(0.50, None, section="5.1.2"),
        0.05,
        "near chance (<= 0.6)",
        lambda v: _v(v, "e1.auroc.blind_permute") <= 0.6,
    ),
    C(
        "e1.confidence.self_off",
        "E1 confidence with z_self zeroed (mean; the same on every trial by construction, "
        "since the head then sees a constant: only its level, sigmoid of a learned "
        "bias, is compared)",
        P(0.54, 0.02, 20, section="5.1.2"),
        0.05,
    ),
    C(
        "e1.skip.self_on",
        "E1 opt-out (skip) fraction, intact",
        P(0.044, 0.052, 20, section="5.1.2"),
        0.05,
        "fewer opt-outs than with the bus off",
        _lt("e1.skip.self_on", "e1.skip.bus_off"),
        contrast="more opt-outs with the workspace off",
        contrast_check=_lt("e1.skip.self_on", "e1.skip.bus_off"),
        arms=("e1.skip.bus_off",),
    ),
    C(
        "e1.skip.bus_off",
        "E1 opt-out (skip) fraction, workspace off",
        P(0.136, 0.128, 20, section="5.1.2"),
        0.05,
        "more opt-outs than intact",
        _lt("e1.skip.self_on", "e1.skip.bus_off"),
        contrast="fewer opt-outs when intact",
        contrast_check=_lt("e1.skip.self_on", "e1.skip.bus_off"),
        arms=("e1.skip.self_on",),
    ),
    C(
        "e1.zself.effective_dim",
        "Effective dimensionality of z_self (participation ratio)",
        P(2.0, None, section="5.1.2"),
        1.0,
        "strongly compressed (<= 10 of 64)",
        lambda v: _v(v, "e1.zself.effective_dim") <= 10,
    ),
    C(
        "e1.pca.advantage",
        "AUROC advantage of z_self over a matched-dimension PCA baseline",
        P(0.051, None, section="5.1.2"),
        0.03,
        "z_self beats PCA (> 0)",
        lambda v: _v(v, "e1.pca.advantage") > 0,
    ),
    # ---------------------------------------------------------------- Experiment 2 (GWT)
    C(
        "e2.conjunction.k4",
        "B1 conjunction accuracy, 4 slots",
        P(0.995, 0.020, 20, section="5.2.2"),
        0.05,
        "near ceiling (>= 0.9)",
        lambda v: _v(v, "e2.conjunction.k4") >= 0.9,
    ),
    C(
        "e2.conjunction.k2",
        "B1 conjunction accuracy, 2 slots",
        P(0.281, 0.097, 20, section="5.2.2"),
        0.10,
        "well below 4 slots (by > 0.2) and above bus-off",
        lambda v: (
            _lt("e2.conjunction.k2", "e2.conjunction.k4", 0.2)(v)
            and _v(v, "e2.conjunction.k2") > _v(v, "e2.conjunction.k0")
        ),
        arms=("e2.conjunction.k4", "e2.conjunction.k0"),
    ),
    C(
        "e2.conjunction.k0",
        "B1 conjunction accuracy, bus off",
        P(0.0, 0.0, 20, section="5.2.2"),
        0.03,
        "at chance (<= 0.05)",
        lambda v: _v(v, "e2.conjunction.k0") <= 0.05,
        by_construction=(
            "with the bus off no cue reaches the agent: conjunctions are at chance, "
            f"{_CONJUNCTION} in expectation"
        ),
    ),
    C(
        "e2.per_step.k4",
        "B1 per-step accuracy, 4 slots",
        P(0.907, 0.035, 20, section="5.2.2"),
        0.05,
        ">= 0.8",
        lambda v: _v(v, "e2.per_step.k4") >= 0.8,
    ),
    C(
        "e2.per_step.k2",
        "B1 per-step accuracy, 2 slots",
        P(0.448, 0.166, 20, section="5.2.2"),
        0.10,
        "between bus-off and 4 slots",
        lambda v: _v(v, "e2.per_step.k0") < _v(v, "e2.per_step.k2") < _v(v, "e2.per_step.k4"),
        arms=("e2.per_step.k0", "e2.per_step.k4"),
    ),
    C(
        "e2.per_step.k0",
        "B1 per-step accuracy, bus off",
        P(0.127, 0.050, 20, section="5.2.2"),
        0.03,
        f"near chance {_DECISION} (<= 0.2)",
        lambda v: _v(v, "e2.per_step.k0") <= 0.2,
        by_construction=f"cue-blind: the expected accuracy is {_DECISION} (protocol sec. 4)",
    ),
    C(
        "e2.per_step.a0",
        "A0 per-step accuracy (strong-lesion wiring)",
        P(0.161, None, 20, section="5.2.2"),
        0.03,
        f"near chance {_DECISION} (<= 0.2)",
        lambda v: _v(v, "e2.per_step.a0") <= 0.2,
        by_construction=f"A0 never sees a cue: expected accuracy {_DECISION}",
    ),
    C(
        "e2.per_step.a1",
        "A1 per-step accuracy (strong-lesion wiring)",
        P(0.152, None, 20, section="5.2.2"),
        0.03,
        f"near chance {_DECISION} (<= 0.2)",
        lambda v: _v(v, "e2.per_step.a1") <= 0.2,
        by_construction=f"A1 never sees a cue: expected accuracy {_DECISION}",
    ),
    C(
        "e2.decision.k4",
        "B1 report-window decision accuracy, 4 slots",
        P(0.892, 0.036, 20, section="5.2.2"),
        0.05,
        ">= 0.8",
        lambda v: _v(v, "e2.decision.k4") >= 0.8,
    ),
    C(
        "e2.decision.k2",
        "B1 report-window decision accuracy, 2 slots",
        P(0.196, 0.068, 20, section="5.2.2"),
        0.10,
        "well below 4 slots (by > 0.2)",
        _lt("e2.decision.k2", "e2.decision.k4", 0.2),
        arms=("e2.decision.k4",),
    ),
    C(
        "e2.decision.k0",
        "B1 report-window decision accuracy, bus off",
        P(0.141, 0.064, 20, section="5.2.2"),
        0.05,
        "near chance (<= 0.25)",
        lambda v: _v(v, "e2.decision.k0") <= 0.25,
        by_construction=f"cue-blind: the expected accuracy is {_DECISION}",
    ),
    C(
        "e2.hedges_g.k4_vs_k2",
        "Hedges' g, conjunction at 4 vs 2 slots (Fig. 2a; sec. 6.1 says 1.65)",
        P(9.70, None, 20, section="5.2.2"),
        3.0,
        "a large effect (g >= 0.8)",
        lambda v: _v(v, "e2.hedges_g.k4_vs_k2") >= 0.8,
    ),
    C(
        "e2.gbi.k4",
        "GBI at 4 slots (paper's equation)",
        P(0.66, None, 20, section="5.2.2"),
        0.10,
        "higher than at 2 slots",
        _lt("e2.gbi.k2", "e2.gbi.k4"),
        undefined_reason=GBI_UNDEFINED,
        arms=("e2.gbi.k2",),
    ),
    C(
        "e2.gbi.k2",
        "GBI at 2 slots",
        P(0.03, None, 20, section="5.2.2"),
        0.10,
        "lower than at 4 slots",
        _lt("e2.gbi.k2", "e2.gbi.k4"),
        undefined_reason=GBI_UNDEFINED,
        by_construction="with two occupied slots one partner takes all the coupling, so P_i = 0 "
        "exactly "
        "whenever exactly two slots hold content",
        arms=("e2.gbi.k4",),
    ),
    C(
        "e2.ignition.k4",
        "Ignition sharpness at 4 slots",
        P(0.15, None, 20, section="5.2.2"),
        not_comparable="the value is in units of the workspace activation norm, whose "
        "normalisation "
        "the paper "
        "does not give; ours is the RMS of unit-variance slots",
        arms=("e2.ignition.k2",),
    ),
    C(
        "e2.ignition.k2",
        "Ignition sharpness at 2 slots",
        P(0.06, None, 20, section="5.2.2"),
        not_comparable="same units problem as at 4 slots",
        arms=("e2.ignition.k4",),
    ),
    C(
        "e2.ignition.k0",
        "Ignition sharpness, bus off",
        P(0.0, None, 20, section="5.2.2"),
        0.01,
        "exactly 0",
        lambda v: _v(v, "e2.ignition.k0") == 0.0,
        by_construction="an empty workspace has activation norm 0 at every step",
    ),
    C(
        "e2.dnrs.scale_0",
        "dNRS (no-report decoding), capacity scale 0",
        P(-0.12, None, 5, section="5.2.2"),
        0.10,
        "collapsed (<= 0.1)",
        lambda v: _v(v, "e2.dnrs.scale_0") <= 0.1,
    ),
    C(
        "e2.dnrs.scale_0.25",
        "dNRS, capacity scale 0.25",
        P(0.51, None, 5, section="5.2.2"),
        0.10,
        "above baseline (>= 0.3)",
        lambda v: _v(v, "e2.dnrs.scale_0.25") >= 0.3,
    ),
    C(
        "e2.dnrs.scale_0.5",
        "dNRS, capacity scale 0.5",
        P(0.51, None, 5, section="5.2.2"),
        0.10,
        "above baseline (>= 0.3)",
        lambda v: _v(v, "e2.dnrs.scale_0.5") >= 0.3,
    ),
    C(
        "e2.dnrs.scale_0.75",
        "dNRS, capacity scale 0.75",
        P(0.51, None, 5, section="5.2.2"),
        0.10,
        "above baseline (>= 0.3)",
        lambda v: _v(v, "e2.dnrs.scale_0.75") >= 0.3,
    ),
    C(
        "e2.dnrs.scale_1",
        "dNRS, capacity scale 1",
        P(0.51, None, 5, section="5.2.2"),
        0.10,
        "above baseline (>= 0.3)",
        lambda v: _v(v, "e2.dnrs.scale_1") >= 0.3,
    ),
    C(
        "e2.masking.entry",
        "Cue signal at cue entry (backward masking, 4 slots)",
        P(0.78, None, section="5.2.2"),
        not_comparable="the paper's projection is built from reference states it describes only as "
        "'report-flag separation'; ours measures the colour's own contribution (1 at entry by "
        "construction)",
    ),
    C(
        "e2.audit.trunk_flips",
        "Bus audit T3: report decisions that flip when the trunk is isolated",
        P(0.0, None, section="5.2.2"),
        0.01,
        "<= 1%",
        lambda v: _v(v, "e2.audit.trunk_flips") <= 0.01,
    ),
    C(
        "e2.audit.jacobian",
        "Bus audit T1: median Jacobian norm of report logits w.r.t. the bus",
        P(78.0, None, section="5.2.2"),
        not_comparable="a Jacobian norm depends on the bus's scale and the readout's "
        "parameterisation; the paper "
        "gives a range (78-175) without either",
    ),
    # ---------------------------------------------------------------- Experiment 3
    C(
        "e3.accuracy.b1",
        "B1 report-window decision accuracy (intact)",
        P(1.0, None, section="5.3.2"),
        0.05,
        ">= 0.9",
        lambda v: _v(v, "e3.accuracy.b1") >= 0.9,
    ),
    C(
        "e3.gbi.b1",
        "B1 GBI in E3",
        P(0.65, None, section="5.3.2"),
        0.10,
        undefined_reason=GBI_UNDEFINED,
    ),
    C(
        "e3.l75.b1",
        "L75 of B1 under workspace noise (stored protocol)",
        P(0.04, None, 20, section="5.3.2"),
        0.02,
        "fragile: below 0.1 and below B2's",
        lambda v: _v(v, "e3.l75.b1") < min(E3_FRAGILE, _v(v, "e3.l75.b2")),
        arms=("e3.l75.b2",),
        group="e3.b1_fragile",
    ),
    C(
        "e3.l75.b1_reg",
        "L75 of B1 + dropout + weight decay",
        P(0.033, 0.007, 20, section="5.3.2"),
        0.02,
        "fragile (< 0.1)",
        lambda v: _v(v, "e3.l75.b1_reg") < E3_FRAGILE,
        group="e3.b1_fragile",
    ),
    C(
        "e3.l75.b1_noise",
        "L75 of B1 + training-time noise",
        P(0.035, 0.010, 20, section="5.3.2"),
        0.02,
        "fragile (< 0.1)",
        lambda v: _v(v, "e3.l75.b1_noise") < E3_FRAGILE,
        group="e3.b1_fragile",
    ),
    C(
        "e3.l75.b2",
        "L75 of B2 (policy reads z_self)",
        P(E3_ROBUST, None, 20, bound=">", section="5.3.2"),
        None,
        "at least twice B1's",
        lambda v: _v(v, "e3.l75.b2") > 2 * _v(v, "e3.l75.b1"),
        contrast="B1 is fragile under the same noise (L75 < 0.1)",
        contrast_check=lambda v: _v(v, "e3.l75.b1") < E3_FRAGILE,
        arms=("e3.l75.b1",),
        group="e3.b2_robust",
    ),
    C(
        "e3.l75.b2_ws",
        "L75 of B2, self-model off / workspace-read control",
        P(E3_ROBUST, None, 20, bound=">", section="5.3.2"),
        None,
        "at least twice B1's",
        lambda v: _v(v, "e3.l75.b2_ws") > 2 * _v(v, "e3.l75.b1"),
        contrast="B1 is fragile under the same noise (L75 < 0.1)",
        contrast_check=lambda v: _v(v, "e3.l75.b1") < E3_FRAGILE,
        arms=("e3.l75.b1",),
        group="e3.b2_robust",
    ),
    C(
        "e3.l75.b1.read",
        "L75 of B1, read-copy protocol",
        P(0.04, None, 20, section="5.3.2"),
        0.02,
        "below B2's (read)",
        _lt("e3.l75.b1.read", "e3.l75.b2.read"),
        arms=("e3.l75.b2.read",),
        group="e3.b1_fragile",
    ),
    C(
        "e3.l75.b2.read",
        "L75 of B2, read-copy protocol",
        P(E3_ROBUST, None, 20, bound=">", section="5.3.2"),
        None,
        "at least twice B1's (read)",
        lambda v: _v(v, "e3.l75.b2.read") > 2 * _v(v, "e3.l75.b1.read"),
        contrast="B1 is fragile under the same noise (L75 < 0.1, read)",
        contrast_check=lambda v: _v(v, "e3.l75.b1.read") < E3_FRAGILE,
        arms=("e3.l75.b1.read",),
        group="e3.b2_robust",
    ),
    C(
        "e3.l75.bc_mlp",
        "L75 of the BC-only MLP bottleneck",
        P(0.023, 0.010, 5, section="5.3.2"),
        0.02,
        "below B2's",
        _lt("e3.l75.bc_mlp", "e3.l75.b2"),
        arms=("e3.l75.b2",),
    ),
    C(
        "e3.accuracy.bc_mlp",
        "Decision accuracy of the BC-only MLP bottleneck",
        P(0.879, 0.054, 5, section="5.3.2"),
        0.05,
    ),
    C(
        "e3.l75.hot_only",
        "L75 of HOT-only under carrier noise",
        P(0.063, 0.041, 5, section="5.3.2"),
        0.03,
        "above B1's under carrier noise",
        _lt("e3.l75_carrier.b1", "e3.l75.hot_only"),
        arms=("e3.l75_carrier.b1",),
    ),
    C(
        "e3.accuracy.hot_only",
        "Decision accuracy of HOT-only (cues visible)",
        P(0.799, 0.169, 5, section="5.3.2"),
        0.05,
    ),
    C(
        "e3.pci_a.a0",
        "Raw PCI-A of A0",
        P(0.84, 0.18, 20, section="Table 3"),
        0.10,
        "above B1's (the inversion)",
        _lt("e3.pci_a.b1", "e3.pci_a.a0"),
        arms=("e3.pci_a.b1",),
    ),
    C(
        "e3.pci_a.a1",
        "Raw PCI-A of A1",
        P(0.78, 0.02, 20, section="Table 3"),
        0.10,
        "above B1's (the inversion)",
        _lt("e3.pci_a.b1", "e3.pci_a.a1"),
        arms=("e3.pci_a.b1",),
    ),
    C(
        "e3.pci_a.b1",
        "Raw PCI-A of B1",
        P(0.33, 0.02, 20, section="Table 3"),
        0.10,
        "below both baselines (the inversion)",
        lambda v: _v(v, "e3.pci_a.b1") < min(_v(v, "e3.pci_a.a0"), _v(v, "e3.pci_a.a1")),
        arms=("e3.pci_a.a0", "e3.pci_a.a1"),
    ),
    C(
        "e3.composite.r2_gbi",
        "OOD gap ~ GBI: R^2",
        P(0.15, None, section="5.3.2"),
        0.10,
        "positive association (r > 0) explaining >= 5%",
        lambda v: _v(v, "e3.composite.r_gbi") > 0 and _v(v, "e3.composite.r2_gbi") >= 0.05,
    ),
    C(
        "e3.composite.delta_r2_dpci",
        "OOD gap: delta R^2 of adding dPCI",
        P(0.02, None, section="5.3.2"),
        0.05,
        "small (< 0.1)",
        lambda v: _v(v, "e3.composite.delta_r2_dpci") < 0.1,
    ),
    C(
        "e3.composite.r2_full",
        "OOD gap ~ GBI + dPCI + Type-2 AUROC: R^2",
        P(0.37, None, section="5.3.2"),
        0.10,
        "AUROC adds to GBI + dPCI",
        _lt("e3.composite.r2_gbi_dpci", "e3.composite.r2_full"),
        arms=("e3.composite.r2_gbi_dpci",),
    ),
    C(
        "e3.composite.r_loo_full",
        "OOD gap, full composite: leave-one-out r",
        P(0.62, None, section="5.3.2"),
        0.15,
        "> 0.3",
        lambda v: _v(v, "e3.composite.r_loo_full") > 0.3,
    ),
)

CLAIMS = CLAIMS + E4_CLAIMS
CLAIMS_BY_ID = {c.id: c for c in CLAIMS}

GROUPS: dict[str, str] = {
    "e3.b1_fragile": "B1 is fragile under noise",
    "e3.b2_robust": "B2 is robust under noise",
}
"""Findings that several claims restate (``ClaimSpec.group``), in words: the evidence counts count
each once (rule ``independent``, protocol sec. 10.12)."""


def verdict_table_markdown() -> str:
    """The table of ``docs/verdicts.md`` (generated from :data:`CLAIMS`)."""
    rows = [
        "| claim | paper | tolerance | pattern (for 'partly') | note | group |",
        "|---|---|---|---|---|---|",
    ]
    for c in CLAIMS:
        note = (
            ("not comparable: " + c.not_comparable)
            if c.not_comparable
            else (("by construction: " + c.by_construction) if c.by_construction else "")
        )
        tol = "-" if c.tolerance is None else f"{c.tolerance:g}"
        if c.contrast:
            note = (note + "; " if note else "") + "contrast: " + c.contrast
        if c.paper.value is None:
            rows.append(
                f"| `{c.id}` | {NEW}: tests {c.hypothesis} (protocol "
                f"{hypothesis_section(c.hypothesis)}) "
                f"| - | - | {note} | |"
            )
            continue
        rows.append(
            f"| `{c.id}` | {paper_text(c.paper).replace('±', '+/-')} (sec. {c.paper.section}) "
            f"| {tol} | "
            f"{c.pattern or '-'} | {note} | {c.group or ''} |"
        )
    return "\n".join(rows)
