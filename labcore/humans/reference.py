"""The human reference: published figures about people's confidence data, typed once.

One frozen table (:data:`REFERENCE`) of :class:`HumanFigure` records, each with its source
(:data:`SOURCES`) and where in the source it stands. Pages, the command line and the trial
checks read the figures here and nowhere else; nothing is downloaded at run time.

Only figures found stated in a source are typed. Neither source states a range of people's
Type-2 AUROC or M-ratio that could be drawn as a band of values, so none is typed: the band the
pages draw beside the agents is the one the sources do state, the trials a person's M-ratio
needs (:func:`trial_band`).

Examples
--------
>>> figure("rahnev2025.min_trials").value, trial_band()
(100.0, (100, 400))
>>> figure("rahnev2020.datasets").source.doi
'10.1038/s41562-019-0813-1'
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from labcore.render import fmt


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Source(_Record):
    """A publication the figures come from.

    Attributes
    ----------
    key : str
        Short name, e.g. ``"rahnev2020"``.
    short : str
        How a sentence cites it, e.g. ``"Rahnev et al. 2020"``.
    citation : str
        The reference as a reader cites it.
    doi : str
        Its DOI.
    checked_at : str
        Where the figures were read when they were typed (an address).
    """

    key: str
    short: str
    citation: str
    doi: str
    checked_at: str


class HumanFigure(_Record):
    """One published figure about people (or a recommendation for measuring them).

    Attributes
    ----------
    key : str
        ``"<source>.<what>"``, e.g. ``"rahnev2025.min_trials"``.
    statement : str
        The figure in plain words (the source paraphrased, never quoted at length).
    value : float or None
        The number, or None for a recommendation without one.
    qualifier : {"", "over", "almost", "at least"}
        How the source bounds the number ("over 8,700 participants").
    unit : {"count", "number"}
        How the value is written (:func:`labcore.render.fmt`).
    source : Source
    locator : str
        Where in the source it stands (abstract, a table's row).
    """

    key: str
    statement: str
    value: float | None = None
    qualifier: Literal["", "over", "almost", "at least"] = ""
    unit: Literal["count", "number"] = "count"
    source: Source
    locator: str

    @model_validator(mode="after")
    def _key_names_its_source(self) -> HumanFigure:
        if not self.key.startswith(self.source.key + "."):
            raise ValueError(f"key {self.key!r} must start with its source {self.source.key!r}")
        return self


RAHNEV_2020 = Source(
    key="rahnev2020",
    short="Rahnev et al. 2020",
    citation="Rahnev, D., Desender, K., Lee, A. L. F., et al. (2020). The Confidence Database. "
    "Nature Human Behaviour, 4(3), 317-325.",
    doi="10.1038/s41562-019-0813-1",
    checked_at="https://pmc.ncbi.nlm.nih.gov/articles/PMC7565481 (abstract)",
)
RAHNEV_2025 = Source(
    key="rahnev2025",
    short="Rahnev 2025",
    citation="Rahnev, D. (2025). A comprehensive assessment of current methods for measuring "
    "metacognition. Nature Communications.",
    doi="10.1038/s41467-025-56117-0",
    checked_at="https://www.nature.com/articles/s41467-025-56117-0 (abstract; Table 3)",
)
SOURCES: dict[str, Source] = {s.key: s for s in (RAHNEV_2020, RAHNEV_2025)}
"""Every source of :data:`REFERENCE`, by key."""

REFERENCE: tuple[HumanFigure, ...] = (
    HumanFigure(
        key="rahnev2020.datasets",
        statement="datasets in the Confidence Database when it was published",
        value=145,
        source=RAHNEV_2020,
        locator="abstract",
    ),
    HumanFigure(
        key="rahnev2020.participants",
        statement="participants in those datasets",
        value=8700,
        qualifier="over",
        source=RAHNEV_2020,
        locator="abstract",
    ),
    HumanFigure(
        key="rahnev2020.trials",
        statement="trials in those datasets",
        value=4_000_000,
        qualifier="almost",
        source=RAHNEV_2020,
        locator="abstract",
    ),
    HumanFigure(
        key="rahnev2025.measures",
        statement="measures of metacognition compared on the Confidence Database",
        value=17,
        source=RAHNEV_2025,
        locator="abstract",
    ),
    HumanFigure(
        key="rahnev2025.min_trials",
        statement="trials to collect per participant",
        value=100,
        qualifier="at least",
        source=RAHNEV_2025,
        locator="Table 3, experimental design, recommendation 3",
    ),
    HumanFigure(
        key="rahnev2025.individual_trials",
        statement="trials per participant, ideally, for research on individual differences",
        value=400,
        qualifier="at least",
        source=RAHNEV_2025,
        locator="Table 3, experimental design, recommendation 4",
    ),
    HumanFigure(
        key="rahnev2025.default_measure",
        statement="the M-ratio remains a good default measure of metacognitive ability",
        source=RAHNEV_2025,
        locator="Table 3, analysis, recommendation 2",
    ),
    HumanFigure(
        key="rahnev2025.m_ratio_below_one",
        statement="an M-ratio below 1 should not automatically be read as signal lost on the "
        "way from the decision to the confidence",
        source=RAHNEV_2025,
        locator="Table 3, interpretation, recommendation 1",
    ),
)
"""The human reference: every published figure the lab shows about people, with its source."""

_BY_KEY = {f.key: f for f in REFERENCE}
if len(_BY_KEY) != len(REFERENCE):
    raise ValueError("a figure of the human reference is typed twice")


def figure(key: str) -> HumanFigure:
    """The figure ``key`` of :data:`REFERENCE` (a KeyError names the missing key)."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"no human reference figure {key!r}") from None


def trial_band() -> tuple[int, int]:
    """Rahnev (2025)'s two trial counts per person: the minimum and the one for individual
    differences, ``(100, 400)``, the band the pages draw beside the agents."""
    low = figure("rahnev2025.min_trials").value
    high = figure("rahnev2025.individual_trials").value
    return int(low), int(high)


def figure_text(key: str) -> str:
    """A figure as one line: ``"at least 100 trials to collect per participant (Rahnev 2025)"``.

    >>> figure_text("rahnev2020.participants")
    'over 8,700 participants in those datasets (Rahnev et al. 2020)'
    >>> figure_text("rahnev2025.default_measure")
    'the M-ratio remains a good default measure of metacognitive ability (Rahnev 2025)'
    """
    f = figure(key)
    if f.value is None:
        return f"{f.statement} ({f.source.short})"
    bound = f"{f.qualifier} " if f.qualifier else ""
    return f"{bound}{fmt(f.value, f.unit)} {f.statement} ({f.source.short})"
