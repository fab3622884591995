"""Markers: pure functions from recorded agent activity to the paper's indicators.

Each module is one family (Phua 2025, sec 4.4); every public function is re-exported
here. A marker never runs an agent: it takes numpy arrays (a rollout Trace's fields) and
returns a float or a small frozen dataclass. Undefined values are nan with an
:class:`labcore.UndefinedMetricWarning`. See ``docs/markers.md``.
"""

from labcore.markers._common import ignore_undefined, pearson_r, undefined_as_nan
from labcore.markers.broadcast import (
    cue_retention,
    cue_signal,
    global_broadcast_index,
    ignition_sharpness,
)
from labcore.markers.complexity import (
    binarize,
    delta_pci,
    lempel_ziv_complexity,
    lz_complexity_casali,
    lz_complexity_shuffle_normalised,
    pci_a,
)
from labcore.markers.composite import (
    HierarchicalRegressionResult,
    RegressionStep,
    hierarchical_regression,
    ood_gap,
)
from labcore.markers.decoding import (
    DeltaNRSResult,
    decoded_information_bits,
    decoder_auroc,
    delta_nrs,
    effective_dimensionality,
    pca_matched_baseline,
)
from labcore.markers.integration import (
    HigherOrderInformation,
    IntegratedInformation,
    KnownAnswer,
    evoked_response,
    higher_order_information,
    integrated_information,
    known_answers,
    o_information,
    simulate_var1,
    surrogate_bias,
    tse_complexity,
)
from labcore.markers.meta_d import MetaDResult, meta_d_prime, meta_d_prime_from_counts
from labcore.markers.metacognition import (
    CalibrationCurve,
    RiskCoverageCurve,
    aurc,
    brier_score,
    calibration_curve,
    expected_calibration_error,
    learning_curve_auroc,
    risk_coverage_curve,
    skip_fraction,
    type2_auroc,
    type2_roc,
    wagering_utility,
)
from labcore.markers.robustness import (
    L75Result,
    ideal_observer_accuracy,
    ideal_observer_l75,
    ideal_observer_thresholds,
    l75,
)
from labcore.markers.sure_option import (
    ByCoherence,
    WaivedAccuracy,
    accuracy_waived_vs_not_offered,
    p_sure_by_coherence,
    sure_contrast,
    waived_advantage,
)

__all__ = [
    "ByCoherence",
    "CalibrationCurve",
    "DeltaNRSResult",
    "HierarchicalRegressionResult",
    "HigherOrderInformation",
    "IntegratedInformation",
    "KnownAnswer",
    "L75Result",
    "MetaDResult",
    "RegressionStep",
    "RiskCoverageCurve",
    "WaivedAccuracy",
    "accuracy_waived_vs_not_offered",
    "aurc",
    "binarize",
    "brier_score",
    "calibration_curve",
    "cue_retention",
    "cue_signal",
    "decoded_information_bits",
    "decoder_auroc",
    "delta_nrs",
    "delta_pci",
    "effective_dimensionality",
    "evoked_response",
    "expected_calibration_error",
    "global_broadcast_index",
    "hierarchical_regression",
    "higher_order_information",
    "ideal_observer_accuracy",
    "ideal_observer_l75",
    "ideal_observer_thresholds",
    "ignition_sharpness",
    "ignore_undefined",
    "integrated_information",
    "known_answers",
    "l75",
    "learning_curve_auroc",
    "lempel_ziv_complexity",
    "lz_complexity_casali",
    "lz_complexity_shuffle_normalised",
    "meta_d_prime",
    "meta_d_prime_from_counts",
    "o_information",
    "ood_gap",
    "p_sure_by_coherence",
    "pca_matched_baseline",
    "pci_a",
    "pearson_r",
    "risk_coverage_curve",
    "simulate_var1",
    "skip_fraction",
    "sure_contrast",
    "surrogate_bias",
    "tse_complexity",
    "type2_auroc",
    "type2_roc",
    "undefined_as_nan",
    "wagering_utility",
    "waived_advantage",
]
