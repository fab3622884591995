"""The pages' door to labcore's science layers: the registered settings a page offers or states, and
small readings of a measured view.

A page never imports ``labcore.markers``, ``labcore.measures`` or ``labcore.experiments`` (an import
contract in pyproject.toml): it asks here, or :mod:`ui.data` for cached measurements. Every name
is read from its one home when it is first used (those modules import torch; the first page of a
fresh server needs none of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from labcore.agents import Agent
    from labcore.config import AgentConfig
    from labcore.rollout import Trace


def e3_design_levels() -> dict[str, tuple]:
    """The E3 design study's factors and their levels, registered in protocol sec. 7
    (:mod:`labcore.experiments.e3_design`): write geometry, loop and readout gain."""
    from labcore.experiments import e3_design

    return {
        "geometry": e3_design.GEOMETRIES,
        "loop": e3_design.LOOPS,
        "gain": e3_design.GAINS,
    }


def e1_construction_notes(
    config: AgentConfig, self_model_mode: str, capacity: int, confidence: float | None = None
) -> list[str]:
    """What a wagering agent's wiring fixes in this setting, each a note labelled "by
    construction" (:func:`labcore.measures.e1_construction_notes`)."""
    from labcore import measures

    return measures.e1_construction_notes(config, self_model_mode, capacity, confidence)


def pci_normalisations() -> dict[str, str]:
    """PCI-A's normalisations, key -> label (:data:`labcore.measures.PCI_NORMALISATIONS`)."""
    from labcore import measures

    return {key: label for label, key in measures.PCI_NORMALISATIONS.items()}


def noise_target(agent: Agent) -> str:
    """Which latent state a titration perturbs in ``agent``
    (:func:`labcore.measures.noise_target`)."""
    from labcore import measures

    return measures.noise_target(agent)


def cue_kinds(trace: Trace, episode: int) -> list[str | None]:
    """What arrived on the cue channel at each step of one episode (colour / object / mask / None)
    (:func:`labcore.measures.cue_kinds`)."""
    from labcore import measures

    return measures.cue_kinds(trace, episode)


def integration_settings() -> tuple[tuple[str, ...], float, str]:
    """The registered integration readings (:mod:`labcore.measures_integration`): the signals read,
    the ridge on every covariance and Φ_E's normalisation."""
    from labcore import measures_integration as mi

    return (
        mi.INTEGRATION_SIGNALS,
        mi.INTEGRATION_RIDGE,
        mi.INTEGRATION_NORMALISATION,
    )
