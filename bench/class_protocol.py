"""The class benchmark's protocol mode: students as Streamlit-protocol clients.

Every student is a :class:`bench.protocol_client.StreamlitClient`: no browser, so the machine's
cores go to the servers, as in a class where the students' own devices render. A student opens a
page (a :class:`Scenario`), then makes the scenario's switches, thinking between them at the
:data:`PACES`' rate (a uniform draw, seeded per student). A **switch** sets one widget's value and
reruns; it is timed from sending the ``BackMsg`` to the run's ``script_finished``, and it counts
only when the page then shows a new value of the scenario's metric, drew no exception and is still
the scenario's page (else it is a failure, by reason: see :data:`FAILURES`). A **page open** is
timed from the first HTTP request to the end of the first run (for the lesson: also following the
lesson step's link to its view).

``python -m bench.bench_class`` runs it (see there); this module holds the scenarios, one class's
run and its table row.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.protocol_client import Run, StreamlitClient

__all__ = [
    "FAILURES",
    "PACES",
    "SCENARIOS",
    "ProtocolOutcome",
    "Scenario",
    "open_scenario",
    "percentile",
    "run_students",
    "warm_up",
]


@dataclass(frozen=True)
class Scenario:
    """One thing a class does: open a page, then switch one control through its values."""

    name: str
    """Its name on the command line and in the table."""
    path: str
    """The page a student opens (its URL path)."""
    query: str
    """The page's query string: ``{seed}`` becomes the student's seed, ``{step}`` the lesson step
    whose view is :attr:`follow`."""
    control: str
    """The key of the widget a switch sets, as the page gives it (read from the served element's
    id, ``$$ID-<hash>-<key>``)."""
    values: tuple[Any, ...]
    """The switches of one pass, in turn: options as shown or their index, or slider values. Each
    must change :attr:`metric` from the value before it."""
    metric: str
    """The label of the metric a switch must change (what the student watches)."""
    follow: str | None = None
    """A page the opened page links to (``st.page_link``), followed before the switches."""
    seeds: int = 1
    """Student i opens seed i mod ``seeds``."""
    settings: tuple[tuple[str, Any], ...] = ()
    """Widgets (key, value) a student sets once the page is open, before the switches (part of
    the page open): the lesson's noise step opens with Predict first on, which holds the number
    back until a prediction is locked in; this benchmark measures the switch, so it turns it off."""

    def query_for(self, student: int) -> str:
        """Student ``student``'s query string."""
        step = lesson_step(self.follow) if "{step}" in self.query and self.follow else 0
        return self.query.format(seed=student % self.seeds, step=step)


@functools.cache
def lesson_step(page: str) -> int:
    """The lesson's first step whose view is ``page`` (its number, from 1)."""
    from labcore.classroom.lesson import LESSON

    return next(n for n, step in enumerate(LESSON, 1) if step.page == page)


SCENARIOS = {
    s.name: s
    for s in (
        Scenario(
            "metacognition",
            "metacognition",
            "agent=b2_ws&seed={seed}&self_model_mode=on&capacity=4",
            "metacognition.self_model_mode",
            ("zeroed", "noise", "shuffled", "on"),
            "Type-2 AUROC",
            seeds=5,
        ),
        Scenario(
            "workspace",
            "workspace",
            "agent=b1&seed={seed}&capacity=4",
            "workspace.capacity",
            # every value, by position: 2, 0, 3, 1 slots (1 and 0 both show 3.1% for seed 2)
            (2, 0, 3, 1),
            "Conjunction accuracy",
            seeds=5,
        ),
        Scenario(  # the students' link to a lesson step, its "Open this view", then its control
            "lesson",
            "lesson",
            "step={step}",
            "robustness.noise",
            (0.2, 0.3, 0.4, 0.1),
            "Report accuracy with this noise",
            follow="robustness",
            settings=(("predict.robustness.on", False),),
        ),
    )
}
"""The scenarios: the Metacognition switch (B2, the five bundled seeds), the Workspace
capacity slider (B1, five seeds) and a lesson step (the noise step: its view on Robustness)."""
PACES = {"stress": (0.5, 2.0), "class": (5.0, 15.0)}
"""Seconds a student thinks before each switch (uniform between the two)."""
FAILURES = (
    TIME_OUT := "time-out",
    EXCEPTION := "exception shown",
    WRONG_PAGE := "wrong page",
    MEDIA_MISSING := "media missing",
    UNCHANGED := "unchanged",
    NO_METRIC := "no metric",
    ERROR := "error",
)
"""Why an action failed: no ``script_finished`` in time; the page drew an exception; the page run is
not the scenario's; a file the page links was not served (a session that is not sticky behind
nginx); the metric showed the value it had before (a no-op); the metric is not on the page;
anything else (a refused connection, a missing control)."""


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile by nearest rank on the sorted values (nan when there are none), as
    the browser mode's table.

    >>> percentile([0.4, 0.1, 0.3, 0.2], 50), percentile(range(1, 101), 95), percentile([], 95)
    (0.3, 95, nan)
    """
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass
class ProtocolOutcome:
    """One scenario at one pace and class size, on one setup."""

    setup: str
    scenario: str
    pace: str
    students: int
    servers: int
    switches_each: int
    switches: list[float] = field(default_factory=list)
    opens: list[float] = field(default_factory=list)
    failures: collections.Counter[str] = field(default_factory=collections.Counter)
    peak_rss: int = 0
    cpu_servers: float = 0.0
    cpu_client: float = 0.0
    cpu_machine: float = 0.0
    wall: float = 0.0

    @property
    def actions(self) -> int:
        """Page opens and switches the students set out to make."""
        return self.students * (1 + self.switches_each)

    def fail(self, reason: str, count: int = 1) -> None:
        """Count ``count`` failed actions for ``reason``."""
        self.failures[reason] += count

    def row(self) -> str:
        """The README table row."""
        failed = sum(self.failures.values())
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(self.failures.items()))
        return (
            f"| {self.scenario} | {self.pace} | {self.setup} ({self.servers} server"
            f"{'s' * (self.servers > 1)}) | {self.students} | "
            f"{percentile(self.switches, 50):.2f} s | {percentile(self.switches, 95):.2f} s | "
            f"{max(self.switches, default=math.nan):.2f} s | "
            f"{failed} of {self.actions}{f' ({reasons})' if reasons else ''} | "
            f"{percentile(self.opens, 95):.1f} s | "
            f"{1000 * self.cpu_servers / max(1, self.actions):,.0f} ms | "
            f"{self.peak_rss / 2**20:,.0f} MiB | {self.cpu_client:.1f} s |"
        )


def check(client: StreamlitClient, run: Run, scenario: Scenario, before: str | None) -> str | None:
    """Why ``run`` is not a good switch (or page open, ``before`` None) of ``scenario``: a
    :data:`FAILURES` reason, or None."""
    if run.exceptions:
        return EXCEPTION
    if run.page_not_found or not client.on_page(scenario.follow or scenario.path):
        return WRONG_PAGE
    if run.media_missing:
        return MEDIA_MISSING
    shown = client.metric(scenario.metric)
    if shown is None or (before is not None and run.metric(scenario.metric) is None):
        return NO_METRIC
    if before is not None and shown == before:
        return UNCHANGED
    return None


async def open_scenario(client: StreamlitClient, scenario: Scenario, index: int) -> Run:
    """Student ``index`` opens the scenario's page: its link followed and its settings made (the
    run of the last of them returned)."""
    run = await client.open(scenario.path, scenario.query_for(index))
    if scenario.follow and not run.exceptions:
        run = await client.follow_link(scenario.follow)
    for key, value in scenario.settings:
        if not run.exceptions:
            run = await client.set_widget(key, value)
    return run


async def student(
    url: str,
    scenario: Scenario,
    index: int,
    think: tuple[float, float],
    rng: random.Random,
    outcome: ProtocolOutcome,
    *,
    timeout: float,
    rounds: int = 1,
    assets: bool = False,
) -> None:
    """One student: open the scenario's page, then make its switches, thinking between them."""
    client = StreamlitClient(url, timeout=timeout, assets=assets)
    plan = list(scenario.values) * rounds
    left = 1 + len(plan)  # actions not yet counted
    try:
        began = time.perf_counter()
        run = await open_scenario(client, scenario, index)
        if problem := check(client, run, scenario, None):
            outcome.fail(problem, left)  # a page that never showed: its switches fail too
            return
        outcome.opens.append(time.perf_counter() - began)
        left -= 1
        for value in plan:
            await asyncio.sleep(rng.uniform(*think))
            before = client.metric(scenario.metric)
            run = await client.set_widget(scenario.control, value)
            left -= 1
            if problem := check(client, run, scenario, before):
                outcome.fail(problem)
            else:
                outcome.switches.append(run.seconds)
    except TimeoutError:
        outcome.fail("time-out", left)  # the run may still go on: this student stops here
    except Exception:  # a refused or broken connection, a control the page does not show, ...
        outcome.fail("error", left)
    finally:
        try:
            await asyncio.wait_for(client.close(), timeout=5)
        except Exception:  # a connection that broke cannot be closed cleanly; it is gone anyway
            pass


async def run_students(
    url: str,
    scenario: Scenario,
    pace: str,
    outcome: ProtocolOutcome,
    *,
    seed: int = 0,
    timeout: float = 120.0,
    rounds: int = 1,
    assets: bool = False,
) -> None:
    """``outcome.students`` students at once (each a seeded generator of its thinking times)."""
    await asyncio.gather(
        *(
            student(
                url,
                scenario,
                i,
                PACES[pace],
                random.Random(f"{seed}:{scenario.name}:{pace}:{i}"),
                outcome,
                timeout=timeout,
                rounds=rounds,
                assets=assets,
            )
            for i in range(outcome.students)
        )
    )


async def warm_up(urls: Sequence[str], scenario: Scenario, *, timeout: float = 600.0) -> None:
    """One pass of every seed's view on each server (``urls``: the servers themselves, not the
    proxy), so a measured switch is what a class meets once the lesson is under way."""

    async def one(url: str, index: int) -> None:
        client = StreamlitClient(url, timeout=timeout)
        try:
            await open_scenario(client, scenario, index)
            for value in scenario.values:
                await client.set_widget(scenario.control, value)
        finally:
            await client.close()

    async def server(url: str) -> None:
        for index in range(scenario.seeds):
            await one(url, index)

    await asyncio.gather(*(server(url) for url in urls))  # each server on its own core
