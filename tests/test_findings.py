"""Every number a report finding states is tied to the results.

The findings (``labcore.figures.registry``: the sentences under each figure of the report and
the Replication page) are prose built from a result set. Two checks on the bundled set:

1. Every decimal number a finding states is a value of the result set or the paper's
   reference table, at the precision shown.
2. Scaling every measured number of the result set by 0.9 moves every decimal number of
   every finding, except the paper's reference values and the design's own constants (the
   noise and capacity grids, chance levels): a number that does not move was typed in.

Integers are structural (seeds, slots, steps, counts) and are not checked; section numbers
("sec. 2.5") are removed first.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pandas as pd
import pytest

from labcore.budgets import ReproduceConfig
from labcore.config import CHANCE_LEVELS
from labcore.experiments.paper_results import ResultTables, load_results
from labcore.figures import registry
from labcore.findings import StudySummary
from labcore.paper_claims import CLAIMS_BY_ID

NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
SECTION = re.compile(r"sec(?:tion|\.)\s*\d+(?:\.\d+)*", re.I)
SCALE = 0.9
DESIGN_CONSTANTS = {
    *(c.value for c in CHANCE_LEVELS.values()),
    *(100 * c.value for c in CHANCE_LEVELS.values()),
    2 / 3,
    0.25,
    0.75,
    *ReproduceConfig().sigmas,
}
"""Chance levels (the one table, as fractions and percentages), the GBI maximum for 4 slots (2/3),
the capacity scales and the noise grid: numbers the design fixes, which a finding may quote."""


def decimals(sentence: str) -> list[str]:
    """The decimal numbers of a sentence (integers and section numbers left out)."""
    return [t for t in NUMBER.findall(SECTION.sub("", sentence)) if "." in t.partition("e")[0]]


def _resolution(token: str) -> float:
    mantissa, _, exponent = token.replace("−", "-").partition("e")
    return 0.5 * 10.0 ** -len(mantissa.split(".")[1]) * 10.0 ** int(exponent or 0) * (1 + 1e-6)


def matches(token: str, pool) -> bool:
    """Does a value of ``pool`` round to ``token`` at the precision shown?"""
    value = abs(float(token.replace("−", "-")))
    return bool(np.any(np.abs(np.asarray(list(pool), float) - value) <= _resolution(token)))


def _numbers(x, out: list[float]) -> list[float]:
    if isinstance(x, bool):
        return out
    if isinstance(x, int | float):
        if math.isfinite(x):
            out.append(abs(float(x)))
    elif isinstance(x, dict):
        for v in x.values():
            _numbers(v, out)
    elif isinstance(x, list | tuple):
        for v in x:
            _numbers(v, out)
    return out


def _seed_number(v) -> float | None:
    try:
        x = float(str(v).lstrip("<>= "))
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def value_pool(res) -> list[float]:
    """Every number of the summary and the exploratory run, every per-seed value with its
    mean and SD, and the paper's reference values."""
    pool = _numbers([res.summary.model_dump(mode="json"), res.gain], [])
    if res.seed_values is not None:
        for _, rows in res.seed_values.groupby("key"):
            seeds = [x for x in map(_seed_number, rows["value"]) if x is not None]
            pool += [abs(x) for x in seeds]
            if len(seeds) > 1:
                pool += [abs(float(np.mean(seeds))), float(np.std(seeds, ddof=1))]
    return pool + PAPER_VALUES


PAPER_VALUES = _numbers([[c.paper.value, c.paper.sd] for c in CLAIMS_BY_ID.values()], [])


def _scaled(x):
    if isinstance(x, float) and not isinstance(x, bool):
        return x * SCALE
    if isinstance(x, dict):
        return {k: _scaled(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_scaled(v) for v in x]
    return x


def _scaled_frame(df: pd.DataFrame | None) -> pd.DataFrame | None:
    if df is None:
        return None
    df = df.copy()
    for column in df.columns:
        if df[column].dtype.kind == "f":
            df[column] = df[column] * SCALE
        elif column == "value":  # per-seed values, L75 cells written as text ("> 0.5")
            df[column] = [
                repr(x * SCALE) if (x := _seed_number(v)) is not None else v for v in df[column]
            ]
    return df


def scaled(res):
    """The result set with every measured number (floats) multiplied by ``SCALE``."""
    summary = StudySummary.model_validate(_scaled(res.summary.model_dump(mode="json")))
    return dataclasses.replace(
        res,
        summary=summary,
        tables=ResultTables.model_validate(summary.tables),
        gain=_scaled(res.gain),
        frames={k: _scaled_frame(v) for k, v in res.frames.items()},
    )


@pytest.fixture(scope="module")
def bundled():
    return load_results("results/bundled")


def _findings(res) -> list[tuple[str, int, str]]:
    return [
        (spec.slug, i, s)
        for spec in registry.FIGURES
        if spec.findings
        for i, s in enumerate(spec.findings(res))
    ]


def test_every_finding_number_is_a_number_of_the_results(bundled):
    pool = value_pool(bundled) + sorted(DESIGN_CONSTANTS)
    found = _findings(bundled)
    assert sum(len(decimals(s)) for *_, s in found) > 30  # the findings do state numbers
    for slug, _, sentence in found:
        assert not [t for t in decimals(sentence) if not matches(t, pool)], (slug, sentence)


def test_every_finding_number_moves_with_the_data(bundled):
    moved: dict[str, set[str]] = {}  # per figure: the numbers its findings state after scaling
    for slug, _, sentence in _findings(scaled(bundled)):
        moved.setdefault(slug, set()).update(decimals(sentence))
    fixed = PAPER_VALUES + sorted(DESIGN_CONSTANTS)
    for slug, _, sentence in _findings(bundled):
        after = moved.get(slug, set())
        stuck = [t for t in decimals(sentence) if t in after and not matches(t, fixed)]
        assert not stuck, (slug, stuck, sentence)


def test_the_checks_catch_a_typed_number(bundled):
    pool = value_pool(bundled)
    assert not matches("81.3", pool)  # not a value of ours nor of the paper
    assert decimals("see sec. 2.5: 4 slots, 0.264 at scale 0.5") == ["0.264", "0.5"]
    # A finding with a typed number would be stuck under scaling, and is not a design constant.
    assert not matches("0.0417", PAPER_VALUES + sorted(DESIGN_CONSTANTS))


def test_records_beside_sentences_survive_pickling():
    """st.cache_data and worker processes pickle what they return or raise: a problem, a refusal
    or a warning keeps its record (a plain str or ValueError would keep only the sentence)."""
    import pickle

    from labcore import UndefinedMetricWarning
    from labcore.checks import ChoiceError, ConfigError
    from labcore.classroom.mystery import CodeError
    from labcore.cluster import DistributedRunError
    from labcore.findings import Problem
    from labcore.storage.checkpoints import CheckpointError
    from labcore.view_cache import CacheMiss

    records = [
        Problem("summary.json is missing", "summary.json", "missing", "x"),
        ChoiceError("slow", "mode", ("fast", "paper")),
        ConfigError("n_steps must be >= 8", ("n_steps",)),
        DistributedRunError("seed 1 failed", "failed", ("seed 1",)),
        CheckpointError("bad", "dtype", tensor="w", field="f"),
        CacheMiss("lacks confidence", "field", ("confidence",)),
        CodeError("does not check out", "check"),
        UndefinedMetricWarning("one class", "one_class"),
    ]
    for record in records:
        back = pickle.loads(pickle.dumps(record))
        assert type(back) is type(record) and str(back) == str(record)
        assert vars(back) == vars(record)
