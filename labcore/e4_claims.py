"""E4's claims (docs/protocol.md sec. 8.5, and 8.8.5 for "E4 again"): no paper number,
each names the hypothesis it tests.

Their verdict is :data:`labcore.paper.NEW`; the hypotheses are tested in
:mod:`labcore.experiments.e4_hypotheses`. :mod:`labcore.paper_claims` appends them to the paper's
claims (:data:`labcore.paper_claims.CLAIMS`).
"""

from __future__ import annotations

from labcore.paper import ClaimSpec, paper_value

NO_PAPER = paper_value(None, section="none: protocol 8.5")
"""The paper value of a claim it has no number for (E4)."""
E4_BY_WIRING = (
    "a zeroed z_self feeds the confidence head a constant, and a constant confidence has Type-2 "
    "AUROC 0.5 exactly"
)


def _e4(
    claim_id: str, description: str, hypothesis: str, by_construction: str | None = None
) -> ClaimSpec:
    return ClaimSpec(
        claim_id, description, NO_PAPER, hypothesis=hypothesis, by_construction=by_construction
    )


E4_CLAIMS: tuple[ClaimSpec, ...] = (
    # ------------------------------------------- Experiment 4: no paper numbers,
    # protocol 8.5
    _e4(
        "e4.auroc.reward_wager.self_on",
        "Confidence learned from the wager's reward alone (first schedule): Type-2 AUROC",
        "H1",
    ),
    _e4(
        "e4.auroc.supervised.self_on",
        "The supervised agent (confidence taught right and wrong): Type-2 AUROC",
        "H2",
    ),
    _e4(
        "e4.auroc_gap.reward_wager",
        "Type-2 AUROC, reward alone minus supervised, paired by seed",
        "H2",
    ),
    _e4(
        "e4.skip.reward_wager.self_on",
        "Reward alone (first schedule): opt-outs on wager trials",
        "H3",
    ),
    _e4("e4.skip.supervised.self_on", "The supervised agent: opt-outs on wager trials", "H3"),
    _e4(
        "e4.ece.reward_wager.self_on",
        "Reward alone (first schedule): calibration error (10 bins)",
        "H3",
    ),
    _e4("e4.ece.supervised.self_on", "The supervised agent: calibration error (10 bins)", "H3"),
    _e4(
        "e4.skip_low.reward_wager_risky.self_on",
        "Risky payoff (first schedule): opt-outs on the faintest third of flashes",
        "H4",
    ),
    _e4(
        "e4.skip_high.reward_wager_risky.self_on",
        "Risky payoff (first schedule): opt-outs on the brightest third",
        "H4",
    ),
    _e4(
        "e4.skip_salience.reward_wager_risky",
        "Risky payoff (first schedule): opt-outs, faintest minus brightest third, paired by seed",
        "H4",
    ),
    _e4("e4.accuracy.reward_wager.self_on", "Reward alone (first schedule): task accuracy", "H5"),
    _e4(
        "e4.accuracy_change.reward_wager",
        "Reward alone (first schedule): change of task accuracy with the self-model zeroed",
        "H5",
        "the policy reads the workspace, never z_self, so zeroing z_self cannot change a choice",
    ),
    _e4(
        "e4.auroc.reward_wager.self_off",
        "Reward alone (first schedule): Type-2 AUROC with the self-model zeroed",
        "H5",
        E4_BY_WIRING,
    ),
    _e4(
        "e4.auroc.reward_logits.self_on",
        "Control, confidence reads only the choice's own scores: Type-2 AUROC",
        "H6",
    ),
    _e4(
        "e4.auroc.reward_workspace.self_on",
        "Control, confidence reads only the workspace: Type-2 AUROC",
        "H6",
    ),
    # ------------------------------------------- E4 again: protocol 8.8.5
    _e4(
        "e4.auroc.reward_late.self_on",
        "Reward alone, wager learned once the choices were learned: Type-2 AUROC",
        "R1",
    ),
    _e4(
        "e4.auroc_meaningful.reward_late.self_on",
        "Reward alone, wager learned once the choices were learned: share of seeds whose "
        "confidence changes a bet",
        "R1",
    ),
    _e4(
        "e4.skip_low.reward_late_risky.self_on",
        "Risky payoff, wager learned once the choices were learned: opt-outs on the faintest "
        "third of flashes",
        "R2",
    ),
    _e4(
        "e4.skip_high.reward_late_risky.self_on",
        "Risky payoff, wager learned once the choices were learned: opt-outs on the brightest "
        "third",
        "R2",
    ),
    _e4(
        "e4.skip_salience.reward_late_risky",
        "Risky payoff, wager learned once the choices were learned: opt-outs, faintest minus "
        "brightest third, paired by seed",
        "R2",
    ),
    _e4(
        "e4.auroc.reward_late_uncentred.self_on",
        "Reward alone, wager learned late, raw (uncentred) features: Type-2 AUROC",
        "R3",
    ),
    _e4(
        "e4.auroc.reward_late_uncentred_sgd.self_on",
        "Reward alone, wager learned late, raw features, wager head by plain SGD: Type-2 AUROC",
        "R4",
    ),
    _e4(
        "e4.head_mean_cosine.reward_late_uncentred",
        "Reward alone, wager learned late, raw features, Adam: how aligned the confidence head "
        "is with the self-model's mean state (cosine)",
        "R4",
    ),
    _e4(
        "e4.head_mean_cosine.reward_late_uncentred_sgd",
        "Reward alone, wager learned late, raw features, plain SGD: how aligned the confidence "
        "head is with the self-model's mean state (cosine)",
        "R4",
    ),
)
"""E4's claims (docs/protocol.md sec. 8.5, and 8.8.5 for "E4 again"): the paper has no number
(verdict :data:`labcore.paper.NEW`); each names the hypothesis it tests. Arm (b)'s claims join when
its arm does."""
