"""Several trial tables measured together: one table of units, and a group line per data set and
condition.

What the command line (``python -m labcore markers FILE_OR_FOLDER ...``) and the "Your data" page
share: :func:`measure` (a refused file is named, the others still measured), :func:`notes`, and
:func:`group_lines` (mean and median Type-2 AUROC and M-ratio with 95% bootstrap intervals over
people, :func:`labcore.stats.group_summary`; people under ``min_trials`` left out and counted).

Examples
--------
>>> from labcore.humans.example import synthetic_example
>>> ds = measure(synthetic_example(), "example.csv")
>>> [m.subject for m in ds.markers], ds.error
(['synthetic-1', 'synthetic-2', 'synthetic-3'], None)
>>> (line,) = group_lines([ds])
>>> line.n_subjects, line.n_few_trials, line.m_ratio.n
(3, 0, 3)
>>> measure(b"a,b\\n1,2\\n", "bad.csv").kind
'unknown_column'
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from labcore.findings import Number
from labcore.humans.markers import SubjectMarkers, markers_csv, table_rows
from labcore.humans.trials import RECOMMENDED_TRIALS, Format, Unmeasured, read_trials
from labcore.render import fmt
from labcore.scorecards.contract import ContractError
from labcore.stats import group_summary

GROUP_MARKERS = (("type2_auroc", "Type-2 AUROC"), ("m_ratio", "M-ratio"))
"""The markers a group line summarises, with their names."""
Row = SubjectMarkers | Unmeasured


@dataclass(frozen=True)
class DataSet:
    """One file measured: its units' rows in file order, or the sentence (and kind) that refused
    it; ``by_default``: were the units formed by the file's condition column unasked?"""

    name: str
    rows: tuple[Row, ...] = ()
    error: str | None = None
    kind: str | None = None
    by: str | None = None
    by_default: bool = False
    pooled: str | None = None
    task: str | None = None
    n_missed: int = 0
    n_disagree: int = 0

    @property
    def markers(self) -> tuple[SubjectMarkers, ...]:
        """The measured units' markers."""
        return tuple(r for r in self.rows if isinstance(r, SubjectMarkers))

    @property
    def unmeasured(self) -> tuple[Unmeasured, ...]:
        """The units that could not be measured, each with its reason."""
        return tuple(r for r in self.rows if isinstance(r, Unmeasured))


def measure(
    data: bytes,
    name: str,
    fmt: Format | None = None,
    *,
    by: str | None = None,
    pool: bool = False,
    task: str | None = None,
) -> DataSet:
    """Read and measure one trial table (as :func:`~labcore.humans.trials.read_trials`); a
    refusal is the data set's ``error``."""
    try:
        trials = read_trials(data, name, fmt, by=by, pool=pool, task=task)
    except ContractError as err:
        return DataSet(name, error=str(err), kind=err.kind)
    return DataSet(
        name,
        rows=tuple(r.model_copy(update={"dataset": name}) for r in table_rows(trials)),
        by=trials.by,
        by_default=trials.by is not None and by is None,
        pooled=trials.pooled,
        task=trials.task,
        n_missed=trials.n_missed,
        n_disagree=0 if trials.disagrees is None else int(trials.disagrees.sum()),
    )


def notes(ds: DataSet) -> list[tuple[str, str]]:
    """What a reader must know about a measured data set, as ``(kind, sentence)``."""
    why = "the file's own condition column" if ds.by_default else "as chosen"
    found = [
        (
            "missed",
            ds.n_missed,
            f"{ds.name}: {ds.n_missed} missed trials (a stimulus, response or confidence "
            "missing) were left out, each counted in its person's row",
        ),
        ("by", ds.by is not None, f"{ds.name}: measured per person and {ds.by}, {why}"),
        (
            "pooled",
            ds.pooled is not None,
            f"{ds.name}: the conditions of its {ds.pooled} column are pooled, as chosen: each "
            "person's markers mix them",
        ),
        (
            "accuracy_disagrees",
            ds.n_disagree,
            f"{ds.name}: its Accuracy column disagrees with Stimulus and Response on "
            f"{ds.n_disagree} trials; the markers use Stimulus and Response (each person's notes "
            "count theirs)",
        ),
        (
            "unmeasured",
            ds.unmeasured,
            f"{ds.name}: {len(ds.unmeasured)} of its {len(ds.rows)} rows could not be measured; "
            "each row says why",
        ),
    ]
    return [(kind, sentence) for kind, shown, sentence in found if shown]


def subjects_csv(datasets: Sequence[DataSet]) -> str:
    """Every measured data set's rows as one CSV table."""
    return markers_csv([r for ds in datasets for r in ds.rows])


# ----------------------------------------------------------------------------- group lines
class GroupStat(BaseModel):
    """One marker across a group's people: ``n`` defined values, their mean and median with
    95% bootstrap intervals (None: undefined)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    n: int
    mean: Number = None
    mean_low: Number = None
    mean_high: Number = None
    median: Number = None
    median_low: Number = None
    median_high: Number = None


class GroupLine(BaseModel):
    """A data set's (and condition's) people summarised; ``n_few_trials`` of the ``n_subjects``
    left out for fewer than ``min_trials`` trials."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    dataset: str
    condition: str | None = None
    n_subjects: int
    n_few_trials: int
    n_unmeasured: int
    min_trials: int
    seed: int
    type2_auroc: GroupStat
    m_ratio: GroupStat


GROUP_COLUMNS = (
    "dataset",
    "condition",
    "n_subjects",
    "n_few_trials",
    "n_unmeasured",
    "min_trials",
    "seed",
    *(f"{marker}_{stat}" for marker, _ in GROUP_MARKERS for stat in GroupStat.model_fields),
)
"""The columns of the group table (``--groups``), in order."""


def group_lines(
    datasets: Sequence[DataSet], *, min_trials: int = RECOMMENDED_TRIALS, seed: int = 0
) -> list[GroupLine]:
    """One line per measured data set and condition (in file order); refused data sets skipped,
    ``seed`` draws every line's bootstrap resamples."""
    out = []
    for ds in datasets:
        conditions = dict.fromkeys(r.condition for r in ds.rows)
        for condition in conditions:
            rows = [r for r in ds.rows if r.condition == condition]
            people = [r for r in rows if isinstance(r, SubjectMarkers)]
            kept = [m for m in people if m.n_trials >= min_trials]
            stats = {}
            for marker, _ in GROUP_MARKERS:
                s = group_summary([getattr(m, marker) for m in kept], seed=seed)
                stats[marker] = GroupStat(**{k: getattr(s, k) for k in GroupStat.model_fields})
            out.append(
                GroupLine(
                    dataset=ds.name,
                    condition=condition,
                    n_subjects=len(people),
                    n_few_trials=len(people) - len(kept),
                    n_unmeasured=len(rows) - len(people),
                    min_trials=min_trials,
                    seed=seed,
                    **stats,
                )
            )
    return out


def groups_csv(lines: Sequence[GroupLine]) -> str:
    """The group lines as CSV text (undefined: an empty cell)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GROUP_COLUMNS)
    for line in lines:
        flat = line.model_dump()
        for marker, _ in GROUP_MARKERS:
            flat.update({f"{marker}_{k}": v for k, v in flat.pop(marker).items()})
        writer.writerow(["" if flat[c] is None else flat[c] for c in GROUP_COLUMNS])
    return out.getvalue()


def interval_text(stat: GroupStat, which: str) -> str:
    """``"0.81 [0.70, 0.93]"``: a group's mean or median with its interval (if defined)."""
    value = fmt(getattr(stat, which))
    low, high = getattr(stat, f"{which}_low"), getattr(stat, f"{which}_high")
    return value if low is None or high is None else f"{value} [{fmt(low)}, {fmt(high)}]"


def group_text(line: GroupLine) -> str:
    """A group line in words (the command line's and the page's)."""
    where = line.dataset + (f", {line.condition}" if line.condition is not None else "")
    left = []
    if line.n_few_trials:
        left.append(f"{line.n_few_trials} with fewer than {line.min_trials} trials left out")
    if line.n_unmeasured:
        left.append(f"{line.n_unmeasured} not measured")
    counted = f"{line.n_subjects} people" + (f" ({', '.join(left)})" if left else "")
    parts = [
        f"{name} mean {interval_text(stat, 'mean')}, median {interval_text(stat, 'median')} "
        f"(n = {stat.n})"
        for marker, name in GROUP_MARKERS
        for stat in [getattr(line, marker)]
    ]
    return f"{where}: {counted}; {'; '.join(parts)}"
