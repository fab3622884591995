"""Functional Consciousness Score formulas, as pure functions.

The page (:mod:`labcore.scorecards.tables`) defines ``FCS = R · P`` with R the
representational capacity of a system's self-models and P its "reasoning power", and an
IIT-like quantity ``Φ_FCS = P(S) − Σⱼ P(moduleⱼ)``. Its table gives, per system, the number
of self-model variables, bits per variable, P and FCS; we read R as
``variables × bits per variable``.

The page gives **no procedure for P** (nor for counting variables or bits); every P in its
table is asserted, not derived. Anything this module computes for a new system therefore
carries the P it was handed, and :class:`FCSEstimate` records whether that P is a stand-in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from labcore.scorecards.records import FCSReferenceRow


def _check_nonnegative(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {value}")
    return value


def representational_capacity(n_self_model_variables: float, bits_per_variable: float) -> float:
    """Representational capacity R in bits.

    Parameters
    ----------
    n_self_model_variables : float
        Number of self-model variables (the page's "B vars"); may be an effective,
        non-integer dimension.
    bits_per_variable : float
        Bits each variable carries about the state it models (the page's "bits/var"; for
        our agents a measured mutual information, see ``lab_agents.lab_agent_fcs``).

    Returns
    -------
    float
        ``R = n_self_model_variables * bits_per_variable``.

    Notes
    -----
    Summing bits across variables assumes they carry non-overlapping information; for
    correlated variables R over-states the joint information.

    Examples
    --------
    LIDA's row: 20 variables x 4 bits:

    >>> representational_capacity(20, 4)
    80.0
    """
    n = _check_nonnegative(n_self_model_variables, "n_self_model_variables")
    bits = _check_nonnegative(bits_per_variable, "bits_per_variable")
    return n * bits


def functional_consciousness_score(
    representational_capacity_bits: float, reasoning_power: float
) -> float:
    """FCS = R · P.

    Parameters
    ----------
    representational_capacity_bits : float
        R, in bits.
    reasoning_power : float
        P, in the page's (undefined) units.

    Returns
    -------
    float

    Examples
    --------
    Waymo L4: R = 40 x 14 = 560, P = 133:

    >>> functional_consciousness_score(560, 133)
    74480.0
    """
    r = _check_nonnegative(representational_capacity_bits, "representational_capacity_bits")
    p = _check_nonnegative(reasoning_power, "reasoning_power")
    return r * p


def phi_fcs(reasoning_power_system: float, reasoning_power_modules: Sequence[float]) -> float:
    """The page's IIT analogue, ``Φ_FCS = P(S) − Σⱼ P(moduleⱼ)``.

    Parameters
    ----------
    reasoning_power_system : float
        P of the whole system S.
    reasoning_power_modules : sequence of float
        P of each module j reasoning on its own.

    Returns
    -------
    float
        Positive when the whole reasons more than its parts summed; the page does not say
        how to read zero or negative values, nor gives any worked value.

    Examples
    --------
    >>> phi_fcs(10.0, [3.0, 4.0])
    3.0
    """
    whole = _check_nonnegative(reasoning_power_system, "reasoning_power_system")
    parts = [
        _check_nonnegative(p, f"reasoning_power_modules[{j}]")
        for j, p in enumerate(reasoning_power_modules)
    ]
    return whole - math.fsum(parts)


def round_to_significant(value: float, figures: int) -> float:
    """Round to a number of significant figures (0 figures: the value must be exactly 0).

    Examples
    --------
    >>> round_to_significant(74_480, 3), round_to_significant(6_461_000, 2)
    (74500.0, 6500000.0)
    """
    if figures < 0:
        raise ValueError(f"figures must be >= 0, got {figures}")
    if value == 0 or figures == 0:
        return float(value)
    exponent = math.floor(math.log10(abs(value)))
    return float(round(value, figures - 1 - exponent))


@dataclass(frozen=True)
class RecomputedFCSRow:
    """A page row recomputed from its own columns.

    Attributes
    ----------
    row : FCSReferenceRow
        The page's row.
    representational_capacity : float
        R = B vars x bits/var.
    recomputed_fcs : float
        R x P.
    """

    row: FCSReferenceRow
    representational_capacity: float
    recomputed_fcs: float

    @property
    def recomputed_fcs_rounded(self) -> float:
        """Recomputed FCS rounded to the printed value's significant figures."""
        return round_to_significant(self.recomputed_fcs, self.row.stated_significant_figures)

    @property
    def agrees_with_stated(self) -> bool:
        """Whether the printed FCS equals the recomputed one at the printed precision."""
        return self.recomputed_fcs_rounded == float(self.row.stated_fcs)


def recompute_fcs_row(row: FCSReferenceRow) -> RecomputedFCSRow:
    """Recompute R and FCS of one page row from its own columns.

    Examples
    --------
    >>> from labcore.scorecards.tables import FCS_ROW_BY_SYSTEM
    >>> lida = recompute_fcs_row(FCS_ROW_BY_SYSTEM["LIDA"])
    >>> lida.recomputed_fcs, lida.row.stated_fcs_text, lida.agrees_with_stated
    (2640.0, '~2,600', True)
    """
    r = representational_capacity(row.n_self_model_variables, row.bits_per_variable)
    return RecomputedFCSRow(row, r, functional_consciousness_score(r, row.reasoning_power))


@dataclass(frozen=True)
class FCSEstimate:
    """An FCS for a system outside the page's table, with its provenance.

    Attributes
    ----------
    system : str
        Name.
    n_self_model_variables : float
        Number (or effective number) of self-model variables.
    bits_per_variable : float
        Bits per variable.
    reasoning_power : float
        The P used.
    reasoning_power_is_standin : bool
        True unless P came from a documented procedure (the FCS page has none).
    notes : tuple of str
        Provenance notes shown with the number.
    """

    system: str
    n_self_model_variables: float
    bits_per_variable: float
    reasoning_power: float
    reasoning_power_is_standin: bool
    notes: tuple[str, ...] = ()

    @property
    def representational_capacity(self) -> float:
        """R in bits."""
        return representational_capacity(self.n_self_model_variables, self.bits_per_variable)

    @property
    def fcs(self) -> float:
        """R x P (with a stand-in P when :attr:`reasoning_power_is_standin`)."""
        return functional_consciousness_score(self.representational_capacity, self.reasoning_power)

    @property
    def label(self) -> str:
        """How the number should be labelled on a page."""
        if self.reasoning_power_is_standin:
            return f"FCS with stand-in P = {self.reasoning_power:g} (no procedure for P exists)"
        return "FCS"


def estimate_fcs(
    system: str,
    n_self_model_variables: float,
    bits_per_variable: float,
    reasoning_power: float,
    reasoning_power_is_standin: bool = True,
    notes: Sequence[str] = (),
) -> FCSEstimate:
    """Assemble an :class:`FCSEstimate` after validating its inputs.

    Examples
    --------
    >>> est = estimate_fcs("toy", 2, 0.5, 1.0)
    >>> est.representational_capacity, est.fcs, est.reasoning_power_is_standin
    (1.0, 1.0, True)
    """
    _check_nonnegative(n_self_model_variables, "n_self_model_variables")
    _check_nonnegative(bits_per_variable, "bits_per_variable")
    _check_nonnegative(reasoning_power, "reasoning_power")
    return FCSEstimate(
        system=system,
        n_self_model_variables=float(n_self_model_variables),
        bits_per_variable=float(bits_per_variable),
        reasoning_power=float(reasoning_power),
        reasoning_power_is_standin=bool(reasoning_power_is_standin),
        notes=tuple(notes),
    )
