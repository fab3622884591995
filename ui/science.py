"""The pages' door to labcore's science layers: the registered settings a page offers or states, and
small readings of a measured view.

A page never imports ``labcore.markers``, ``labcore.measures`` or ``labcore.experiments`` (an import
contract in pyproject.toml): it asks here, or :mod:`ui.data` for cached measurements. Every name
is read from its one home when it is first used (those modules import torch; the first page of a
fresh server needs none of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui import data

if TYPE_CHECKING:
    from labcore.agents import Agent
    from labcore.config import AgentConfig
    from labcore.rollout import Trace

_measures = data.measures  # ui.data's lazy handles, not a second import of the same module
_integration = data.integration_measures
_e3_design = data._Later("labcore.experiments.e3_design")


def e3_design_levels() -> dict[str, tuple]:
    """The E3 design study's factors and their levels, registered in protocol sec. 7
    (:mod:`labcore.experiments.e3_design`): write geometry, loop and readout gain."""
    return {
        "geometry": _e3_design.GEOMETRIES,
        "loop": _e3_design.LOOPS,
        "gain": _e3_design.GAINS,
    }


def e1_construction_notes(
    config: AgentConfig, self_model_mode: str, capacity: int, confidence: float | None = None
) -> list[str]:
    """What a wagering agent's wiring fixes in this setting, each a note labelled "by
    construction" (:func:`labcore.measures.e1_construction_notes`)."""
    return _measures.e1_construction_notes(config, self_model_mode, capacity, confidence)


def pci_normalisations() -> dict[str, str]:
    """PCI-A's normalisations, key -> label (:data:`labcore.measures.PCI_NORMALISATIONS`)."""
    return {key: label for label, key in _measures.PCI_NORMALISATIONS.items()}


def noise_target(agent: Agent) -> str:
    """Which latent state a titration perturbs in ``agent``
    (:func:`labcore.measures.noise_target`)."""
    return _measures.noise_target(agent)


def cue_kinds(trace: Trace, episode: int) -> list[str | None]:
    """What arrived on the cue channel at each step of one episode (colour / object / mask / None)
    (:func:`labcore.measures.cue_kinds`)."""
    return _measures.cue_kinds(trace, episode)


def integration_settings() -> tuple[tuple[str, ...], float, str]:
    """The registered integration readings (:mod:`labcore.measures_integration`): the signals read,
    the ridge on every covariance and Φ_E's normalisation."""
    return (
        _integration.INTEGRATION_SIGNALS,
        _integration.INTEGRATION_RIDGE,
        _integration.INTEGRATION_NORMALISATION,
    )
