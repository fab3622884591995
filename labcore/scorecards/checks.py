"""The two documents' arithmetic, checked: a table of checks and the one function that evaluates it.

Each row of ``data/checks.json`` is a number a document states and how to check it: ``stated``
and ``recomputed`` are Python expressions over the document's tables and the helpers of
:func:`osmd_names` / :func:`fcs_names` (with only :data:`BUILTINS`), ``agrees`` the test
(equality by default), the text fields f-string templates; ``each`` binds a ``for`` clause, like a
parametrized test. The file ships with the package and is reviewed like code; no user input
reaches it. :func:`evaluate` returns a :class:`Discrepancy` per binding that disagrees.

Examples
--------
>>> found = {d.discrepancy_id: d for d in osmd_discrepancies()}
>>> found["osmd.total.frank.behavioural"].stated, found["osmd.total.frank.behavioural"].recomputed
('71 / 90', '68 / 90 (sum of the §6.1 grid)')
>>> [d.discrepancy_id for d in fcs_discrepancies()]
['fcs.ratio.agentic_leap', 'fcs.ratio.human_gap']
"""

from __future__ import annotations

import ast
import builtins
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import CodeType
from typing import Any, NotRequired

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from labcore.render import fmt
from labcore.scorecards.documents import FCS, OSMD, FCSDocument, OSMDDocument, load
from labcore.scorecards.fcs import fcs_of_row, printed_fcs_agrees
from labcore.scorecards.rubric import (
    LM_CAPPED,
    band_for_total,
    behavioural_cap,
    score_reference_system,
)

COLUMNS = ("architectural", "behavioural")
"""The two scores of an OSMD cell, in the order of every pair."""
BUILTINS = {
    name: getattr(builtins, name)
    for name in "abs all any dict enumerate float len list max min range sorted str sum".split()
}
"""The only builtins a check's expression sees."""


class Check(TypedDict):
    """One row of ``data/checks.json`` (see the module docstring)."""

    id: str
    kind: str
    where: str
    quantity: str
    each: NotRequired[str]
    stated: str
    recomputed: str
    agrees: NotRequired[str]
    stated_text: NotRequired[str]
    recomputed_text: NotRequired[str]
    note: NotRequired[str]


TEMPLATES = ("id", "where", "quantity", "stated_text", "recomputed_text", "note")
"""A check's text fields, in the order of :class:`Discrepancy`'s (after its source and kind)."""
EXPRESSIONS = ("stated", "recomputed", "agrees")


@cache
def _code(source: str, template: bool = False) -> CodeType:
    """A check's expression (or text template, as an f-string) compiled once."""
    if template:
        if '"""' in source or "\\" in source or source.endswith('"'):
            raise SyntaxError('a template may hold no backslash, no """ and no final "')
        source = f'f"""{source}"""'
    return compile(source, "<check>", "eval")


class CheckTable(BaseModel):
    """``data/checks.json``: the checks of each document, in the order a page lists them."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    OSMD: tuple[Check, ...]
    FCS: tuple[Check, ...]

    @field_validator("OSMD", "FCS")
    @classmethod
    def _compiles(cls, checks: tuple[Check, ...]) -> tuple[Check, ...]:
        for check in checks:
            try:
                _bound_names(check.get("each", ""))
                for field in (*TEMPLATES, *EXPRESSIONS):
                    if field in check:
                        _code(check[field], template=field in TEMPLATES)  # type: ignore[literal-required]
            except SyntaxError as error:
                raise PydanticCustomError(
                    "check_syntax", "{id}: {error}", {"id": check["id"], "error": str(error)}
                ) from None
        return checks


@dataclass(frozen=True)
class Discrepancy:
    """A number a document states that its own tables do not give (``recomputed``: what they
    give, and from which table; ``note``: a likely explanation)."""

    discrepancy_id: str
    source: str
    kind: str
    where: str
    quantity: str
    stated: str
    recomputed: str
    note: str = ""


def _bound_names(each: str) -> list[str]:
    """The names an ``each`` clause binds (``"system, (a, b) in x"`` -> system, a, b)."""
    if not each:
        return []
    comprehension = ast.parse(f"[0 for {each}]", mode="eval").body
    assert isinstance(comprehension, ast.ListComp)  # parsed from a list display above
    target = comprehension.generators[0].target
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _bindings(each: str, names: dict[str, Any]) -> list[dict[str, Any]]:
    if not each:
        return [{}]
    bound = _bound_names(each)
    rows = eval(_code(f"[({', '.join(bound)},) for {each}]"), names)
    return [dict(zip(bound, row, strict=True)) for row in rows]


def evaluate(
    checks: Iterable[Check], names: Mapping[str, Any], source: str
) -> tuple[Discrepancy, ...]:
    """Every binding of every check whose stated and recomputed values disagree, in order;
    ``names`` is what the expressions may name, ``source`` ``"OSMD"`` or ``"FCS"``."""
    found = []
    for check in checks:
        for binding in _bindings(check.get("each", ""), {**names, "__builtins__": BUILTINS}):
            scope = {**names, **binding, "__builtins__": BUILTINS}
            scope["stated"] = eval(_code(check["stated"]), scope)
            scope["recomputed"] = eval(_code(check["recomputed"]), scope)
            if eval(_code(check.get("agrees", "stated == recomputed")), scope):
                continue
            defaults = {"stated_text": "{stated}", "recomputed_text": "{recomputed}"}
            identity, *text = (
                eval(_code(check.get(field, defaults.get(field, "")), template=True), scope)
                for field in TEMPLATES
            )
            found.append(Discrepancy(identity, source, check["kind"], *text))
    return tuple(found)


def _slug(text: str) -> str:
    """An id part from a section or a name: ``"§6.5"`` -> ``"s6_5"``."""
    return text.replace("§", "s").replace(".", "_").replace(" ", "_").lower()


def _band_span(low: int, high: int) -> str:
    """The band of a range's two ends: ``"I"``, or ``"I to II"`` when it crosses an edge."""
    ends = (band_for_total(low), band_for_total(high))
    return ends[0] if ends[0] == ends[1] else " to ".join(ends)


def _counts_near(percent: float, n: int) -> str:
    """The two proportions k/n around a percentage, as printed: ``"36/50 = 72.0%, ..."``."""
    below = math.floor(percent * n / 100)
    return ", ".join(f"{k}/{n} = {100 * k / n:.1f}%" for k in (below, below + 1))


def osmd_names(doc: OSMDDocument = OSMD) -> dict[str, Any]:
    """What an OSMD check's expressions may name: every table of ``doc`` by its field name, and
    helpers over the §6.1 grid (``total``, ``subtotal``, ``frank_cell``), Appendix D
    (``rater_range``, ``directions``), H2 (``h2_gap``, ``share``), the ablations (``rows_drop``,
    ``cluster_after``), percentages (``counts``, ``counts_near``) and the A.9 caps (``cap``).
    """
    grid = {system: doc.grid(system) for system in doc.reference_systems}

    def total(system: str, column: str) -> int:
        return sum(pair[COLUMNS.index(column)] for pair in grid[system].values())

    def subtotal(system: str, cluster: str) -> tuple[int, int]:
        cells = [grid[system][i] for i in doc.cluster_items(cluster)]
        return sum(a for a, _ in cells), sum(b for _, b in cells)

    def h2_gap(column: str) -> tuple[int, int]:
        c = COLUMNS.index(column)
        five = sum(grid["frank"][i][c] - grid["claude_code"][i][c] for i in doc.h2_items)
        return five, total("frank", column) - total("claude_code", column)

    def directions(rater: str, reference: str) -> dict[str, int]:
        out = {"lower": 0, "equal": 0, "higher": 0}
        for item, pair in doc.human_rater_scores[rater].items():
            other = doc.human_rater_scores[reference][item]
            out["equal" if pair == other else "lower" if sum(pair) < sum(other) else "higher"] += 1
        return out

    def frank_cell(label: str) -> tuple[int, int]:
        return grid["frank"][label] if "-" in label else subtotal("frank", label)

    def rows_drop(ablation: str) -> int:
        rows = doc.ablations[ablation]["rows"]
        listed = {label.split("-")[0] for label, _, _ in rows if "-" in label}
        return sum(after[1] - before[1] for label, before, after in rows if label not in listed)

    def cluster_after(ablation: str, cluster: str) -> int:
        after = {label: a[1] for label, _, a in doc.ablations[ablation]["rows"] if "-" in label}
        return sum(after.get(i, grid["frank"][i][1]) for i in doc.cluster_items(cluster))

    def counts(percent: float, decimals: int, n: int) -> list[int]:
        half_unit = 0.5 * 10.0 ** (-decimals)
        return [k for k in range(n + 1) if abs(100.0 * k / n - percent) <= half_unit + 1e-9]

    def cap(system: str, item: str) -> int:
        evidenced = item in doc.operational_evidence_items.get(system, ())
        return behavioural_cap(item, grid[system][item][0], evidenced)

    return {
        **dict(doc),
        "grid": grid,
        "total": total,
        "subtotal": subtotal,
        "rater_range": lambda s: (
            min(doc.rater_totals_appendix_d[s].values()),
            max(doc.rater_totals_appendix_d[s].values()),
        ),
        "h2_gap": h2_gap,
        "directions": directions,
        "frank_cell": frank_cell,
        "rows_drop": rows_drop,
        "cluster_after": cluster_after,
        "cluster_items": doc.cluster_items,
        "counts": counts,
        "counts_near": _counts_near,
        "share": lambda part, whole: f"{part} of {whole} ({100 * part / whole:.1f}%)",
        "cap": cap,
        "cap_rule": lambda item: doc.rules["lm_cap" if item in LM_CAPPED else "anti_eloquence"],
        "band": band_for_total,
        "band_span": _band_span,
        "slug": _slug,
        "COLUMNS": COLUMNS,
        "product": itertools.product,
        "isclose": math.isclose,
    }


def fcs_names(doc: FCSDocument = FCS) -> dict[str, Any]:
    """What an FCS check's expressions may name: every table of ``doc``, ``row[system]``,
    ``fcs[system]`` (recomputed), ``resolve(name)`` ("most capable AI agent": the AI system with
    the highest FCS) and ``nearest_ratio(target)``.

    Examples
    --------
    >>> names = fcs_names()
    >>> names["resolve"]("most capable AI agent"), names["nearest_ratio"](87)[:2]
    ('Generative Agents', ('Generative Agents', 'Waymo L4'))
    """
    rows = {r["system"]: r for r in doc.reference_table}
    fcs = {system: fcs_of_row(r) for system, r in rows.items()}

    def resolve(name: str) -> str:
        if name != "most capable AI agent":
            return name
        return max((s for s, r in rows.items() if r["is_artificial_agent"]), key=fcs.__getitem__)

    def nearest_ratio(target: float) -> tuple[str, str, float]:
        pairs = [(a, b) for a, b in itertools.permutations(fcs, 2) if fcs[a] > 0 and fcs[b] > 0]
        a, b = min(pairs, key=lambda p: abs(math.log(fcs[p[0]] / fcs[p[1]] / target)))
        return a, b, fcs[a] / fcs[b]

    return {
        **dict(doc),
        "row": rows,
        "fcs": fcs,
        "resolve": resolve,
        "nearest_ratio": nearest_ratio,
        "printed_fcs_agrees": printed_fcs_agrees,
        "fmt": fmt,
        "slug": _slug,
        "isinf": math.isinf,
    }


CHECKS = load("checks.json", CheckTable)


@cache
def osmd_discrepancies() -> tuple[Discrepancy, ...]:
    """Every disagreement between OSMD's stated numbers and its own tables."""
    return evaluate(CHECKS.OSMD, osmd_names(), "OSMD")


@cache
def fcs_discrepancies() -> tuple[Discrepancy, ...]:
    """Every disagreement between the FCS page's stated numbers and its own table."""
    return evaluate(CHECKS.FCS, fcs_names(), "FCS")


def reference_summary(system_id: str) -> dict[str, Any]:
    """Stated (§6.3) and recomputed totals of one OSMD reference system: the §6.1 grid's sums,
    the behavioural sum after the A.9 caps, the Appendix D rater range.

    Examples
    --------
    >>> s = reference_summary("frank")
    >>> s["stated"], s["grid"], s["after_rules"], s["rater_range"]
    ((60, 71), (63, 68), 67, (65, 71))
    """
    names = osmd_names()
    grid = tuple(names["total"](system_id, column) for column in COLUMNS)
    architectural, behavioural, band = OSMD.stated_point_totals[system_id]
    return {
        "stated": (architectural, behavioural),
        "stated_band": band,
        "grid": grid,
        "grid_band": band_for_total(grid[1]),
        "after_rules": score_reference_system(system_id).behavioural_total,
        "rater_range": names["rater_range"](system_id),
    }
