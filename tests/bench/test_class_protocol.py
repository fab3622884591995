"""The class benchmark's protocol mode (bench/class_protocol.py): the scenarios, what
counts as a switch, how failures are counted, and the table row. No server: the students' client
is replaced by a scripted one."""

from __future__ import annotations

import asyncio
import random

import pytest

from bench import class_protocol
from bench import class_protocol as P
from bench.class_protocol import (
    SCENARIOS,
    ProtocolOutcome,
    Scenario,
    check,
    open_scenario,
    percentile,
    student,
)
from bench.protocol_client import Run
from labcore.classroom.lesson import LESSON

META = SCENARIOS["metacognition"]


class ScriptedClient:
    """A student's client whose page shows the scripted AUROC after each switch (or raises)."""

    script: tuple[object, ...] = ()

    def __init__(self, url: str, **kwargs: object) -> None:
        self.shown = "0.85"
        self.steps = list(self.script)
        self.closed = False

    def on_page(self, path: str) -> bool:
        return path == "metacognition"

    def metric(self, label: str) -> str | None:
        return self.shown

    async def open(self, path: str, query: str) -> Run:
        return self._run()

    async def set_widget(self, key: str, value: object) -> Run:
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        self.shown = step
        return self._run()

    async def close(self) -> None:
        self.closed = True

    def _run(self) -> Run:
        from streamlit.proto.Element_pb2 import Element

        run = Run(seconds=0.25)
        run.elements.append(Element(metric={"label": "Type-2 AUROC", "body": self.shown}))
        return run


def outcome_of(script: list[object], monkeypatch: pytest.MonkeyPatch) -> ProtocolOutcome:
    monkeypatch.setattr(ScriptedClient, "script", script)
    monkeypatch.setattr(class_protocol, "StreamlitClient", ScriptedClient)
    outcome = ProtocolOutcome("single", "metacognition", "stress", 1, 1, len(META.values))
    coroutine = student("http://x", META, 0, (0.0, 0.0), random.Random(0), outcome, timeout=1.0)
    asyncio.run(coroutine)
    return outcome


def test_a_switch_counts_only_when_the_metric_shows_a_new_value(monkeypatch):
    outcome = outcome_of(["0.50", "0.51", "0.51", "0.85"], monkeypatch)
    assert outcome.opens and len(outcome.switches) == 3
    assert dict(outcome.failures) == {"unchanged": 1}  # shuffled showed what noise showed


def test_a_time_out_fails_that_switch_and_those_the_student_never_made(monkeypatch):
    outcome = outcome_of(["0.50", TimeoutError()], monkeypatch)
    assert len(outcome.switches) == 1 and dict(outcome.failures) == {"time-out": 3}
    outcome = outcome_of([KeyError("no widget")], monkeypatch)
    assert dict(outcome.failures) == {"error": 4}
    assert sum(outcome.failures.values()) + len(outcome.switches) + len(outcome.opens) == 5


def test_opening_follows_the_link_then_makes_the_scenarios_settings(monkeypatch):
    """The lesson's noise step opens Robustness with Predict first on (the number held back): the
    student follows the step's link, then turns it off, before the switches."""
    done: list[object] = []

    class Opening(ScriptedClient):
        async def follow_link(self, page: str) -> Run:
            done.append(("follow", page))
            return self._run()

        async def set_widget(self, key: str, value: object) -> Run:
            done.append((key, value))
            return self._run()

    asyncio.run(open_scenario(Opening("http://x"), SCENARIOS["lesson"], 0))
    assert done == [("follow", "robustness"), ("predict.robustness.on", False)]


def test_check_names_exceptions_wrong_pages_and_missing_metrics():
    client = ScriptedClient("http://x")
    run = client._run()
    assert check(client, run, META, None) is None
    assert check(client, run, META, "0.85") == P.UNCHANGED
    assert check(client, run, META, "0.50") is None
    run.exceptions.append("boom")
    assert check(client, run, META, "0.50") == P.EXCEPTION
    assert check(client, client._run(), SCENARIOS["workspace"], None) == P.WRONG_PAGE
    run = client._run()
    run.media_missing = 1
    assert check(client, run, META, "0.50") == P.MEDIA_MISSING
    assert check(client, Run(), META, "0.50") == P.NO_METRIC  # the switch's run drew none


def test_scenarios_give_each_student_a_seed_and_the_lesson_its_step():
    assert [META.query_for(i).split("seed=")[1][0] for i in (0, 4, 5, 12)] == ["0", "4", "0", "2"]
    step = int(SCENARIOS["lesson"].query_for(3).removeprefix("step="))
    assert LESSON[step - 1].page == "robustness" and SCENARIOS["lesson"].follow == "robustness"
    assert Scenario("x", "p", "a=1", "k", (1,), "m").query_for(7) == "a=1"
    for scenario in SCENARIOS.values():
        assert len(scenario.values) == 4 and scenario.control.startswith(scenario.follow or "")
    assert sorted(SCENARIOS["workspace"].values) == [0, 1, 2, 3]  # every capacity but the open 4


def test_the_row_reports_percentiles_failures_by_reason_and_cpu_per_action():
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0 and percentile(range(1, 21), 95) == 19
    outcome = ProtocolOutcome("class", "workspace", "stress", 2, 2, 4)
    outcome.switches, outcome.opens = [0.2, 0.4, 0.3, 0.5, 0.6, 0.1, 0.7], [1.0, 2.0]
    outcome.fail("unchanged")
    outcome.cpu_servers, outcome.cpu_client, outcome.peak_rss = 2.5, 0.3, 3 * 2**29
    row = outcome.row()
    assert row.startswith(
        "| workspace | stress | class (2 servers) | 2 | 0.40 s | 0.70 s | 0.70 s |"
    )
    assert "| 1 of 10 (unchanged 1) |" in row and "| 2.0 s |" in row
    assert row.endswith("| 250 ms | 1,536 MiB | 0.3 s |")  # 2.5 CPU s over 10 actions


def test_the_protocol_table_replaces_only_what_lies_between_its_readme_markers():
    from bench.bench_class import BEGIN, END, PROTOCOL_BEGIN, PROTOCOL_END, README, replace_between

    text = README.read_text()
    assert text.count(PROTOCOL_BEGIN) == text.count(PROTOCOL_END) == 1
    row = "| a row |"
    new = replace_between(text, PROTOCOL_BEGIN, PROTOCOL_END, row, "## unused")
    head, tail = text.split(PROTOCOL_BEGIN)[0], text.split(PROTOCOL_END)[1]
    assert new == f"{head}{PROTOCOL_BEGIN}\n{row}\n{PROTOCOL_END}{tail}"
    browser_table = text[text.index(BEGIN) : text.index(END)]
    assert browser_table in new  # the browser mode's table is left as it is
    lines = replace_between("x", "<a>", "</a>", "t", "## H").split("\n")
    assert lines == ["x", "", "## H", "", "<a>", "t", "</a>", ""]  # the heading, then the block
