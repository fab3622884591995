"""E4's claims (issue 15; docs/protocol.md sec. 8.5, and 8.8.5 for "E4 again"): no paper number,
each names the hypothesis it tests.

Their verdict is :data:`labcore.paper.NEW`; the hypotheses are tested in
:mod:`labcore.experiments.e4_hypotheses`. :mod:`labcore.paper_claims` appends them to the paper's
claims (:data:`labcore.paper_claims.CLAIMS`). They lived in :mod:`labcore.paper` with the paper's
table and have a module of their own, to keep each within the size cap.
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
    # ------------------------------------------- Experiment 4 (issue 15): no paper numbers,
    # protocol 8.5
    _e4(
        "e4.auroc.reward_wager.self_on",
        "E4 arm (a), confidence from the wager's reward only: Type-2 AUROC",
        "H1",
    ),
    _e4(
        "e4.auroc.supervised.self_on",
        "E4 arm (c), E1's supervised agent: Type-2 AUROC (the reference)",
        "H2",
    ),
    _e4(
        "e4.auroc_gap.reward_wager",
        "E4 Type-2 AUROC of arm (a) minus arm (c), paired by seed",
        "H2",
    ),
    _e4("e4.skip.reward_wager.self_on", "E4 arm (a): opt-outs on wager trials", "H3"),
    _e4("e4.skip.supervised.self_on", "E4 arm (c): opt-outs on wager trials", "H3"),
    _e4("e4.ece.reward_wager.self_on", "E4 arm (a): expected calibration error (10 bins)", "H3"),
    _e4("e4.ece.supervised.self_on", "E4 arm (c): expected calibration error (10 bins)", "H3"),
    _e4(
        "e4.skip_low.reward_wager_risky.self_on",
        "E4 risky payoff: opt-outs on the faintest third of flashes",
        "H4",
    ),
    _e4(
        "e4.skip_high.reward_wager_risky.self_on",
        "E4 risky payoff: opt-outs on the brightest third",
        "H4",
    ),
    _e4(
        "e4.skip_salience.reward_wager_risky",
        "E4 risky payoff: opt-outs faintest minus brightest third, paired by seed",
        "H4",
    ),
    _e4("e4.accuracy.reward_wager.self_on", "E4 arm (a): task accuracy", "H5"),
    _e4(
        "e4.accuracy_change.reward_wager",
        "E4 arm (a): change of task accuracy when z_self is zeroed",
        "H5",
        "the policy reads the workspace, never z_self, so zeroing z_self cannot change a choice",
    ),
    _e4(
        "e4.auroc.reward_wager.self_off",
        "E4 arm (a): Type-2 AUROC with z_self zeroed",
        "H5",
        E4_BY_WIRING,
    ),
    _e4(
        "e4.auroc.reward_logits.self_on",
        "E4 control, confidence reads the policy's logits only: Type-2 AUROC",
        "H6",
    ),
    _e4(
        "e4.auroc.reward_workspace.self_on",
        "E4 control, confidence reads the workspace only: Type-2 AUROC",
        "H6",
    ),
    # ------------------------------------------- E4 again (issue 23): protocol 8.8.5
    _e4(
        "e4.auroc.reward_late.self_on",
        "E4 again, cell (a'): wager learned once the policy converged, centred head: Type-2 AUROC",
        "R1",
    ),
    _e4(
        "e4.auroc_meaningful.reward_late.self_on",
        "E4 again, cell (a'): share of seeds whose AUROC is meaningful (confidence-spread rule)",
        "R1",
    ),
    _e4(
        "e4.skip_low.reward_late_risky.self_on",
        "E4 again, risky payoff: opt-outs on the faintest third of flashes",
        "R2",
    ),
    _e4(
        "e4.skip_high.reward_late_risky.self_on",
        "E4 again, risky payoff: opt-outs on the brightest third",
        "R2",
    ),
    _e4(
        "e4.skip_salience.reward_late_risky",
        "E4 again, risky payoff: opt-outs faintest minus brightest third, paired by seed",
        "R2",
    ),
    _e4(
        "e4.auroc.reward_late_uncentred.self_on",
        "E4 again, raw (uncentred) features: Type-2 AUROC",
        "R3",
    ),
    _e4(
        "e4.auroc.reward_late_uncentred_sgd.self_on",
        "E4 again, raw features, wager head by SGD: Type-2 AUROC",
        "R4",
    ),
    _e4(
        "e4.head_mean_cosine.reward_late_uncentred",
        "E4 again, raw features, Adam: cosine of the head's weight with the mean z_self",
        "R4",
    ),
    _e4(
        "e4.head_mean_cosine.reward_late_uncentred_sgd",
        "E4 again, raw features, SGD: cosine of the head's weight with the mean z_self",
        "R4",
    ),
)
"""E4's claims (docs/protocol.md sec. 8.5, and 8.8.5 for "E4 again"): the paper has no number
(verdict :data:`labcore.paper.NEW`); each names the hypothesis it tests. Arm (b)'s claims join when
its arm does."""
