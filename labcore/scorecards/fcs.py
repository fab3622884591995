"""Functional Consciousness Score formulas, as pure functions.

``FCS = R · P`` with R the representational capacity of a system's self-models (read as
``variables × bits per variable``) and P its "reasoning power". The page gives **no procedure
for P**; anything computed here carries the P it was handed.
"""

from __future__ import annotations

import math

from labcore.scorecards.documents import FCSRow


def _nonnegative(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {value}")
    return float(value)


def representational_capacity(n_self_model_variables: float, bits_per_variable: float) -> float:
    """Representational capacity R in bits (over-stated for correlated variables).

    Examples
    --------
    LIDA's row: 20 variables x 4 bits:

    >>> representational_capacity(20, 4)
    80.0
    """
    n = _nonnegative(n_self_model_variables, "n_self_model_variables")
    return n * _nonnegative(bits_per_variable, "bits_per_variable")


def functional_consciousness_score(
    representational_capacity_bits: float, reasoning_power: float
) -> float:
    """FCS = R · P (P in the page's undefined units).

    Examples
    --------
    Waymo L4: R = 40 x 14 = 560, P = 133:

    >>> functional_consciousness_score(560, 133)
    74480.0
    """
    r = _nonnegative(representational_capacity_bits, "representational_capacity_bits")
    return r * _nonnegative(reasoning_power, "reasoning_power")


def round_to_significant(value: float, figures: int) -> float:
    """Round to a number of significant figures (0 figures: the value as it is).

    Examples
    --------
    >>> round_to_significant(74_480, 3), round_to_significant(6_461_000, 2)
    (74500.0, 6500000.0)
    """
    if value == 0 or figures == 0:
        return float(value)
    return float(round(value, figures - 1 - math.floor(math.log10(abs(value)))))


def fcs_of_row(row: FCSRow) -> float:
    """A page row's FCS recomputed from its own columns, B vars × bits/var × P.

    Examples
    --------
    >>> from labcore.scorecards.documents import FCS
    >>> fcs_of_row(FCS.reference_table[2]), FCS.reference_table[2]["stated_fcs_text"]
    (2640.0, '~2,600')
    """
    r = representational_capacity(row["n_self_model_variables"], row["bits_per_variable"])
    return functional_consciousness_score(r, row["reasoning_power"])


def printed_fcs_agrees(row: FCSRow) -> bool:
    """Whether a row's printed FCS equals the recomputed one at the printed precision.

    >>> from labcore.scorecards.documents import FCS
    >>> all(printed_fcs_agrees(row) for row in FCS.reference_table)
    True
    """
    recomputed = round_to_significant(fcs_of_row(row), row["stated_significant_figures"])
    return recomputed == float(row["stated_fcs"])
