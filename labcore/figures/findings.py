"""What the report says under its figures: "what we found" for each figure (a macro of
``labcore/templates/figures.j2`` filled by :class:`FigureView`), and a caption's texts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labcore.experiments.paper_results import ResultSet
from labcore.figures.paper import FIG3A_AGENTS
from labcore.figures.style import E1_CONDITIONS, label_of
from labcore.findings import Finding
from labcore.markers.robustness import L75_THRESHOLD
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import environment, finite, fmt, paper_text, value_text
from labcore.storage.formatting import l75_summary, seed_raw

TEMPLATE = "figures.j2"
VERDICT_ORDER = ("not comparable", "not reproduced", "partly reproduced", "reproduced")
"""Verdicts from the weakest: a hierarchy holds no better than its weakest claim."""


def claim_paper_text(claim_id: str, res: ResultSet | None = None) -> str:
    """The paper's value of a claim as text (:func:`labcore.render.paper_text`)."""
    spec = CLAIMS_BY_ID.get(claim_id)
    return paper_text(spec.paper) if spec is not None else paper_text(None)


def claim_ours_text(claim_id: str, res: ResultSet) -> str:
    """Our value of a claim as text (:func:`labcore.render.value_text`), or of an auxiliary
    key."""
    found = res.finding(claim_id)
    return value_text(found) if found is not None else fmt(res.values.get(claim_id))


def claim_description(claim_id: str, res: ResultSet) -> str:
    """A claim's question: from the result set, else from the paper's table, else its id."""
    found = res.finding(claim_id)
    if found is not None:
        return found.question
    spec = CLAIMS_BY_ID.get(claim_id)
    return spec.description if spec else claim_id


def masking_runs(res: ResultSet) -> dict:
    """``{seed: masking run}`` of the E2 seeds in ``figures.json`` that recorded one."""
    e2 = res.figures.get("e2") or {}
    return {
        seed: v.get("masking")
        for seed, v in e2.items()
        if isinstance(v, Mapping) and v.get("masking")
    }


def masking_summary(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The masking traces' reading: SOA, mask count, the step at which the colour's mean trace
    falls below half with 4 and with 2 slots (None if never), and whether bus-off is empty
    throughout. None without traces.
    """
    if not runs:
        return None
    soa = runs[0].get("soa")
    finals = {}
    for k in ("4", "2", "0"):
        traces = [r["traces"][k] for r in runs if r.get("traces", {}).get(k)]
        if traces:
            finals[k] = [sum(t[i] for t in traces) / len(traces) for i in range(len(traces[0]))]

    def kept_until(trace: Sequence[float]) -> int | None:
        gone = [i for i, x in enumerate(trace) if i > int(soa) - 1 and x < 0.5]
        return gone[0] if gone else None

    return {
        "soa": soa,
        "count": runs[0].get("count"),
        "k4": kept_until(finals["4"]) if "4" in finals and "2" in finals else None,
        "k2": kept_until(finals["2"]) if "4" in finals and "2" in finals else None,
        "off_empty": "0" in finals and not any(finals["0"]),
    }


class FigureView:
    """What ``figures.j2`` reads of a result set: values (None where undefined), findings, L75
    seed summaries, the masking reading, E4's hypotheses in words."""

    e1_conditions = E1_CONDITIONS
    fig3a_agents = FIG3A_AGENTS

    def __init__(self, res: ResultSet) -> None:
        self.res = res
        self.seeds = len(res.seeds)

    def v(self, key: str) -> float | None:
        """An aggregated value (None where absent or undefined)."""
        x = self.res.values.get(key)
        return float(x) if finite(x) else None

    def values(self, keys: Sequence[str]) -> list[float | None]:
        """Several values (:meth:`v`)."""
        return [self.v(k) for k in keys]

    def prefixed(self, prefix: str) -> list[float]:
        """The defined values whose key starts with ``prefix``."""
        return [float(v) for k, v in self.res.values.items() if k.startswith(prefix) and finite(v)]

    def f(self, finding_id: str) -> Finding | None:
        """A finding (None where the set has none)."""
        return self.res.finding(finding_id)

    def has(self, finding_id: str) -> bool:
        """Whether the set has the finding."""
        return self.res.finding(finding_id) is not None

    def ours(self, key: str) -> str:
        """Our value of a claim or key in words."""
        return claim_ours_text(key, self.res)

    def paper(self, claim_id: str) -> str:
        """The paper's value of a claim in words."""
        return claim_paper_text(claim_id, self.res)

    def l75(self, key: str) -> str:
        """An L75 key's seed summary (censoring said)."""
        return l75_summary(self.res.seed_values, key)

    def l75_seeds(self, key: str) -> int:
        """How many seeds an L75 key has."""
        return len(seed_raw(self.res.seed_values, key))

    def label(self, kind: str) -> str:
        """A kind's or condition's short name."""
        return label_of(kind)

    def low_accuracy(self, kinds: Sequence[str]) -> list[str]:
        """The kinds answering at or below the L75 threshold without noise."""
        return [
            k for k in kinds if (x := self.v(f"e3.accuracy.{k}")) is not None and x <= L75_THRESHOLD
        ]

    def weakest(self, claim_ids: Sequence[str]) -> str:
        """The weakest verdict of some claims (:data:`VERDICT_ORDER`)."""
        verdicts = [getattr(self.f(c), "verdict", None) or "not comparable" for c in claim_ids]
        return min(verdicts, key=lambda v: VERDICT_ORDER.index(v) if v in VERDICT_ORDER else 0)

    @property
    def masking(self) -> dict[str, Any] | None:
        """The masking traces' reading (:func:`masking_summary`)."""
        return masking_summary(list(masking_runs(self.res).values()))

    @property
    def hypotheses(self) -> list[dict]:
        """E4's tested hypotheses (protocol 8.5, 8.8.5), each with its outcome and conditions
        (their words: ``e4.j2``'s ``hypothesis``)."""
        return list(self.res.hypotheses.values())


def sentences(name: str, res: ResultSet) -> list[str]:
    """The sentences of macro ``name`` of ``figures.j2`` for a result set, one per line."""
    module = environment().get_template(TEMPLATE).make_module({"r": FigureView(res)})
    text = str(getattr(module, name)())
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]
