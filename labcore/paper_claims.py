"""The paper's claims, read from ``paper_claims.json`` and ``e4_claims.json``, and how a page finds
the claim it needs. How our values are compared with them (the verdict rules) is in
:mod:`labcore.paper`."""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from labcore.findings import PaperValue
from labcore.paper import NEW, ClaimSpec, Values, hypothesis_section
from labcore.render import paper_text

_HERE = Path(__file__).parent
E3_FRAGILE = 0.1
"""B1 is "fragile" in the paper's sense (sec. 5.3.2, L75 0.04) when its L75 is below this
(protocol sec. 7.6; the E3 claims' patterns)."""
E3_ROBUST = 0.5
"""The paper's largest tested noise: "robust" means an L75 above it (sec. 5.3.2, "> 0.50")."""


def l75_key(kind: str, noise_mode: str = "stored") -> str:
    """The key of an agent kind's L75 under workspace (or, without a bus, carrier) noise.

    >>> l75_key("b1"), l75_key("b2_ws", "read")
    ('e3.l75.b1', 'e3.l75.b2_ws.read')
    """
    return f"e3.l75.{kind}" + ("" if noise_mode == "stored" else f".{noise_mode}")


INTACT_CONDITION = {"e1": "self_on", "e2": "k4"}
"""The intact condition of each experiment's claims (what a lesion is compared with)."""
E1_SELF_MODEL_CONDITIONS = {
    "on": "self_on",
    "zero": "self_off",
    "noise": "blind_noise",
    "permute": "blind_permute",
}
"""E1 condition of each self-model mode at full capacity (labcore.config.SELF_MODEL_MODES)."""


def e1_condition(self_model_mode: str, capacity: int, n_slots: int) -> str | None:
    """The paper's E1 condition a (self-model mode, active slots) setting is, or None.

    >>> (e1_condition("zero", 4, 4), e1_condition("on", 0, 4), e1_condition("on", 2, 4),
    ...  e1_condition("zero", 0, 4))
    ('self_off', 'bus_off', None, None)
    """
    if capacity == n_slots:
        return E1_SELF_MODEL_CONDITIONS.get(self_model_mode)
    return "bus_off" if capacity == 0 and self_model_mode == "on" else None


def e2_condition(capacity: int, n_slots: int) -> str | None:
    """The paper's E2 condition (``"k4"``, ``"k2"``, ``"k0"``) of a number of active slots, or None.

    >>> e2_condition(4, 4), e2_condition(2, 4), e2_condition(0, 4), e2_condition(3, 4)
    ('k4', 'k2', 'k0', None)
    """
    return {n_slots: "k4", n_slots // 2: "k2", 0: "k0"}.get(capacity) if n_slots == 4 else None


def claim_for(metric: str, condition: str | None) -> str | None:
    """The id of the paper's claim on ``metric`` in ``condition``, or None where it reports none.

    >>> (claim_for("e1.auroc", "self_off"), claim_for("e1.accuracy", "bus_off"),
    ...  claim_for("e2.gbi", None))
    ('e1.auroc.self_off', None, None)
    """
    if condition is None:
        return None
    claim_id = f"{metric}.{condition}"
    return claim_id if claim_id in CLAIMS_BY_ID else None


ROUNDING = 1e-9
"""Two values closer than this are equal to ``lt`` (docs/protocol.md change log, 2026-11-24): R^2 of
nested regressions that differ by 2e-16 ordered one way on one CPU code path and the other way on
another, and flipped e3.composite.r2_full's verdict."""
_KEY = re.compile(r"\b[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+")
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_COMPARE[ast.Eq] = operator.eq
_ARITHMETIC = {ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Add: operator.add}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "abs": abs,
    "lt": lambda a, b, margin=0.0: a < b - margin - ROUNDING,
    "between": lambda x, lo, hi: lo <= x <= hi,
}


def pattern_check(expression: str) -> Callable[[Values], bool]:
    """A claim's ``check`` or ``contrast_check`` from the claims table: a comparison of value keys
    (a missing key is nan) and numbers with ``and``, ``+ - *``, ``min``, ``abs``,
    ``between(x, lo, hi)`` and ``lt(a, b, margin=0)``, which is ``a < b - margin`` by more than
    :data:`ROUNDING`.

    >>> check = pattern_check("lt(e1.x, e1.y, 0.2) and e1.x > 2 * e1.z")
    >>> check({"e1.x": 0.1, "e1.y": 0.5, "e1.z": 0.0}), check({"e1.x": 0.1, "e1.y": 0.2})
    (True, False)
    >>> pattern_check("lt(x.a, x.b)")({"x.a": 0.2622434904889672, "x.b": 0.262243490488967})
    False
    """
    keys: list[str] = []

    def name(match: re.Match) -> str:
        keys.append(match.group())
        return f"_{len(keys) - 1}"

    tree = ast.parse(_KEY.sub(name, expression), mode="eval").body

    def value(node: ast.expr, v: Values) -> Any:
        match node:
            case ast.Constant(value=x):
                return x
            case ast.Name(id=n) if n.startswith("_"):
                return v.get(keys[int(n[1:])], math.nan)
            case ast.Call(func=ast.Name(id=f), args=args):
                return _FUNCTIONS[f](*(value(a, v) for a in args))
            case ast.BinOp(left=a, op=op, right=b):
                return _ARITHMETIC[type(op)](value(a, v), value(b, v))
            case ast.BoolOp(op=ast.And(), values=parts):
                return all(value(p, v) for p in parts)
            case ast.Compare(left=left, ops=ops, comparators=rights):
                a = value(left, v)
                for op, right in zip(ops, rights, strict=True):
                    b = value(right, v)
                    if not _COMPARE[type(op)](a, b):
                        return False
                    a = b
                return True
        raise ValueError(f"not a claim pattern: {expression!r}")

    return lambda v: bool(value(tree, v))


def _claims(path: Path, **common: Any) -> tuple[ClaimSpec, ...]:
    """The claims of a table: ``check`` and ``contrast_check`` read by :func:`pattern_check`."""
    specs = []
    for row in json.loads(path.read_text(encoding="utf-8")):
        row = {**common, **row}
        row["paper"] = PaperValue(**row["paper"])
        for field in ("check", "contrast_check"):
            if field in row:
                row[field] = pattern_check(row[field])
        specs.append(ClaimSpec(**{**row, "arms": tuple(row.get("arms", ()))}))
    return tuple(specs)


CLAIMS: tuple[ClaimSpec, ...] = _claims(_HERE / "paper_claims.json") + _claims(
    _HERE / "e4_claims.json", paper={"value": None, "section": "none: protocol 8.5"}
)
"""The paper's claims (``paper_claims.json``: Experiments 1-3), then E4's (``e4_claims.json``: no
paper number, each names the hypothesis of docs/protocol.md sec. 8.5 or 8.8.5 it tests)."""
CLAIMS_BY_ID = {c.id: c for c in CLAIMS}

GROUPS: dict[str, str] = {
    "e3.b1_fragile": "B1 is fragile under noise",
    "e3.b2_robust": "B2 is robust under noise",
}
"""Findings that several claims restate (``ClaimSpec.group``), in words: the evidence counts count
each once (rule ``independent``, protocol sec. 10.12)."""


def verdict_table_markdown() -> str:
    """The table of ``docs/verdicts.md`` (generated from :data:`CLAIMS`)."""
    rows = [
        "| claim | paper | tolerance | pattern (for 'partly') | note | group |",
        "|---|---|---|---|---|---|",
    ]
    for c in CLAIMS:
        note = (
            ("not comparable: " + c.not_comparable)
            if c.not_comparable
            else (("by construction: " + c.by_construction) if c.by_construction else "")
        )
        tol = "-" if c.tolerance is None else f"{c.tolerance:g}"
        if c.contrast:
            note = (note + "; " if note else "") + "contrast: " + c.contrast
        if c.paper.value is None:
            rows.append(
                f"| `{c.id}` | {NEW}: tests {c.hypothesis} (protocol "
                f"{hypothesis_section(c.hypothesis)}) "
                f"| - | - | {note} | |"
            )
            continue
        rows.append(
            f"| `{c.id}` | {paper_text(c.paper).replace('±', '+/-')} (sec. {c.paper.section}) "
            f"| {tol} | "
            f"{c.pattern or '-'} | {note} | {c.group or ''} |"
        )
    return "\n".join(rows)
