"""The human reference: published figures about people's confidence data, typed once.

Only figures stated in a source are typed; neither source states a range of people's Type-2
AUROC or M-ratio, so the band pages draw is the trials a person's M-ratio needs
(:func:`trial_band`).

Examples
--------
>>> figure("rahnev2025.min_trials").value, trial_band()
(100.0, (100, 400))
>>> figure("rahnev2020.datasets").source.doi
'10.1038/s41562-019-0813-1'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from labcore.render import fmt


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Source(_Record):
    """A publication the figures come from; ``checked_at``: where they were read when typed."""

    key: str
    short: str
    citation: str
    doi: str
    checked_at: str


class HumanFigure(_Record):
    """One published figure about people (or a recommendation without a number).

    ``key`` is ``"<source>.<what>"``; ``statement`` the source paraphrased; ``qualifier`` how the
    source bounds the number ("over 8,700 participants"); ``locator`` where in the source it is.
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


_DATA = json.loads((Path(__file__).parent / "reference.json").read_text(encoding="utf-8"))
SOURCES: dict[str, Source] = {s["key"]: Source(**s) for s in _DATA["sources"]}
REFERENCE: tuple[HumanFigure, ...] = tuple(
    HumanFigure(**{**f, "source": SOURCES[f["source"]]}) for f in _DATA["figures"]
)
"""The human reference (``reference.json``): every published figure the lab shows about people."""

_BY_KEY = {f.key: f for f in REFERENCE}
if len(_BY_KEY) != len(REFERENCE):
    raise ValueError("a figure of the human reference is typed twice")


def figure(key: str) -> HumanFigure:
    """The figure ``key`` of :data:`REFERENCE` (a KeyError names the missing key)."""
    return _BY_KEY[key]


def trial_band() -> tuple[int, int]:
    """Rahnev (2025)'s trial counts per person: the minimum and for individual differences."""
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
