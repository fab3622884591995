"""The one Study shape and runner (labcore.experiments.study): units cached and resumable, rows
written then read back before summarising, a re-summary equal to the run's, the one loader,
overrides from the command line, and the one pool."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pytest

from labcore.checks import ChoiceError
from labcore.experiments import study as S
from labcore.findings import Answer, Finding, StudySummary, load_summary
from labcore.parallel import process_map
from tests.refusals import refused

CALLS: list[int] = []


@dataclass(frozen=True)
class ToyConfig:
    seeds: tuple[int, ...] = (0, 1, 2)
    scale: float = 0.5

    @classmethod
    def quick(cls) -> ToyConfig:
        return cls(seeds=(0,))


def toy_units(config: ToyConfig) -> list[int]:
    return list(config.seeds)


def toy_unit(config: ToyConfig, seed: int, out: str) -> S.Rows:
    CALLS.append(seed)
    return {
        "values": [{"seed": seed, "name": f"s{seed}", "value": seed * config.scale + 0.1}],
        "extra": [{"seed": seed, "flag": None}],
    }


def toy_summary(config: ToyConfig, rows: S.Rows) -> StudySummary:
    values = [r["value"] for r in rows["values"]]
    return StudySummary(
        study="toy",
        findings=[Finding(id="toy.mean", question="mean?", value=sum(values) / len(values))],
        answer=Answer(outcome="done", findings=("toy.mean",)),
    )


TOY = S.Study(
    name="toy",
    config=ToyConfig,
    units=toy_units,
    run_unit=toy_unit,
    summarise=toy_summary,
    tables=(
        S.Table("values", ("seed", "name", "value"), text=("name",)),
        S.Table("extra", ("seed", "flag"), optional=("flag",)),
    ),
    unit_of=lambda row: row["seed"],
)


def test_a_study_runs_writes_reads_back_and_resummarises_the_same(tmp_path):
    CALLS.clear()
    summary = S.run_study(TOY, tmp_path, jobs=1, progress=False, say=lambda _: None)
    assert summary.value("toy.mean") == pytest.approx((0.1 + 0.6 + 1.1) / 3)
    assert sorted(CALLS) == [0, 1, 2]
    loaded = load_summary(tmp_path, study="toy")
    assert loaded.ok and set(loaded.summary.files) == {"values.csv", "extra.csv"}
    again = S.resummarise(TOY, tmp_path)
    assert again.findings == summary.findings and again.created == summary.created
    rows, problems = S.read_rows(TOY, tmp_path)
    assert problems == [] and rows["values"][1] == {"seed": 1, "name": "s1", "value": 0.6}
    assert rows["extra"][0] == {"seed": 0, "flag": None}  # an empty optional cell


def test_units_already_done_are_not_run_again(tmp_path):
    CALLS.clear()
    S.run_study(TOY, tmp_path, progress=False, say=lambda _: None)
    CALLS.clear()
    # Kept from the files (unit_of), then from the joblib cache when rerun by pattern.
    S.run_study(TOY, tmp_path, progress=False, say=lambda _: None)
    assert CALLS == []
    more = ToyConfig(seeds=(0, 1, 2, 3))
    summary = S.run_study(TOY, tmp_path, more, progress=False, say=lambda _: None)
    assert CALLS == [3] and summary.finding("toy.mean").value == pytest.approx(0.85)
    CALLS.clear()
    S.run_study(TOY, tmp_path, more, rerun="1", progress=False, say=lambda _: None)
    assert CALLS == [1]  # a rerun by pattern runs the unit (it was kept from the files) ...
    S.run_study(TOY, tmp_path, more, rerun="1", progress=False, say=lambda _: None)
    assert CALLS == [1, 1]  # ... every time: the cache cannot see a change in the code it calls
    S.run_study(TOY, tmp_path, more, progress=False, say=lambda _: None)
    assert CALLS == [1, 1]  # without a rerun the files keep it


def test_a_damaged_table_is_a_problem_not_a_traceback(tmp_path):
    S.run_study(TOY, tmp_path, progress=False, say=lambda _: None)
    (tmp_path / "values.csv").write_text("seed,name,value\n0,s0,high\n")
    rows, problems = S.read_rows(TOY, tmp_path)
    assert "values" not in rows
    assert [(p.name, p.kind, p.field) for p in problems] == [
        ("values.csv", "not_a_number", "value")
    ]
    loaded = S.load_study(TOY, tmp_path)
    assert loaded.frame("values") is None and "values.csv" in " ".join(loaded.problems)
    with pytest.raises(ValueError, match=r"values\.csv"):  # refused, naming the table
        S.resummarise(TOY, tmp_path)


def test_the_loader_refuses_other_schemas_studies_and_invalid_findings(tmp_path):
    S.run_study(TOY, tmp_path, progress=False, say=lambda _: None)
    assert load_summary(tmp_path, study="other").summary is None
    data = json.loads((tmp_path / "summary.json").read_text())
    data["schema_version"] = 2
    (tmp_path / "summary.json").write_text(json.dumps(data))
    assert load_summary(tmp_path).summary is None
    data["schema_version"] = 3
    data["findings"][0]["value"] = "high"
    (tmp_path / "summary.json").write_text(json.dumps(data))
    loaded = load_summary(tmp_path)
    assert loaded.summary is None
    assert (loaded.problems[0].kind, loaded.problems[0].field) == ("invalid", "findings[0].value")


def test_overrides_are_typed_from_the_config_and_refused_when_unknown():
    assert S.with_overrides(ToyConfig(), ["seeds=4,5", "scale=2"]) == ToyConfig((4, 5), 2.0)
    with pytest.raises(ValueError, match="field=value"):
        S.with_overrides(ToyConfig(), ["nope=1"])
    with pytest.raises(ValueError, match="float"):  # the type the field takes
        S.with_overrides(ToyConfig(), ["scale=high"])


def test_the_one_pool_runs_calls_in_spawned_processes_in_order():
    got = process_map(math.pow, [(2, k) for k in range(5)], workers=2)
    assert got == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert process_map(math.pow, [(3, 2)], workers=1) == [9.0]


def test_every_registered_study_is_a_study():
    for name, entry in S.STUDIES.items():
        study = S.get_study(name)
        assert (study.name, study.title, study.folder) == (name, entry.title, entry.folder)
        assert study.quick() != study.design()
    # A registered setting of another study's module: its config carries the setting.
    held = S.get_study("pdw_held")
    assert held.config is S.get_study("pdw_sweep").config
    assert held.design().design == held.quick().design == "held"
    assert S.get_study("pdw_sweep").design().design == "registered"
    unknown = refused(ChoiceError, S.get_study, "nope")
    assert (unknown.name, unknown.choices) == ("study", tuple(S.STUDIES))


def test_a_table_keeps_its_row_order_and_derived_files_join_the_manifest(tmp_path):
    # Table.order: a stable sort before writing (every value before every L75, as a file always
    # was); Study.derived: files made from the rows read back, listed in the summary's manifest.
    ordered = S.Study(
        name="toy",
        config=ToyConfig,
        units=toy_units,
        run_unit=toy_unit,
        summarise=toy_summary,
        tables=(
            S.Table(
                "values", ("seed", "name", "value"), text=("name",), order=lambda r: -r["seed"]
            ),
            S.Table("extra", ("seed", "flag"), optional=("flag",)),
        ),
        derived=lambda config, rows, out: [
            (out / "n.txt").write_text(str(len(rows["values"]))) and "n.txt"
        ],
    )
    S.run_study(ordered, tmp_path, progress=False, say=lambda _: None)
    rows, _ = S.read_rows(ordered, tmp_path)
    assert [r["seed"] for r in rows["values"]] == [2, 1, 0]
    loaded = load_summary(tmp_path, study="toy")
    assert loaded.ok and "n.txt" in loaded.summary.files and (tmp_path / "n.txt").read_text() == "3"


def _page_script_as_main(tmp_path, monkeypatch) -> None:
    """As Streamlit (or an AppTest) does: a page script installed as ``__main__``."""
    import sys
    import types

    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('a page script ran in a worker')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(script)
    fake.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", fake)


def test_workers_start_clean_when_a_page_script_is_main(tmp_path, monkeypatch):
    _page_script_as_main(tmp_path, monkeypatch)
    assert process_map(math.pow, [(2, k) for k in range(3)], workers=2) == [1.0, 2.0, 4.0]


def test_without_a_clean_main_the_pool_breaks(tmp_path, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    from labcore import parallel

    _page_script_as_main(tmp_path, monkeypatch)
    monkeypatch.setattr(parallel, "_foreign_main", lambda main: False)
    with pytest.raises(BrokenProcessPool):
        process_map(math.pow, [(2, k) for k in range(3)], workers=2)
