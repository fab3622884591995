"""Server CPU of one cached-view switch and of one warm page open.

One lab server (``streamlit run app.py``, no file watcher) and one Streamlit-protocol student
(:class:`bench.protocol_client.StreamlitClient`): every case is warmed first (each of its views
computed once), then the student opens the page and makes the case's switches, one at a time. The
server's own CPU time (``/proc/<pid>/stat``: user + system, every thread) is read before each
action and again once the run has finished and the server has gone quiet, so what it does after
``script_finished`` (sending, compressing) is counted too. Reported per case: the median and mean
CPU milliseconds of a switch and of a warm page open, and the wall time of a switch.

Cases: the class benchmark's three scenarios (:data:`bench.class_protocol.SCENARIOS`: the
Metacognition self-model, the Workspace capacity slider, the lesson's noise step followed to
Robustness and its noise slider) and the lesson page's own step control (:data:`CASES`). CPU times
are process CPU, so a background job at low priority changes them little; the load is printed.

    python -m bench.bench_switch                       # every case, 5 passes
    python -m bench.bench_switch --cases metacognition --passes 2
    python -m bench.bench_switch --profile DIR         # also py-spy the server (if installed)

Targets: a cached-view switch at most 50 ms of server CPU, a warm page open under 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.class_protocol import SCENARIOS, Scenario, open_scenario, warm_up
from bench.protocol_client import StreamlitClient
from ui.serve import running_class

CASES = {
    **SCENARIOS,
    "lesson_step": Scenario(
        "lesson_step", "lesson", "step=1", "lesson.step", (1, 2, 3, 4, 0), "", seeds=1
    ),
}
"""The class benchmark's scenarios and the lesson's step control (its options by position)."""
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads, not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def settled(pid: int, quiet: float = 0.15, limit: float = 3.0) -> float:
    """The process's CPU seconds once it has been idle for ``quiet`` seconds (at most ``limit``)."""
    last, began = cpu_seconds(pid), time.monotonic()
    while time.monotonic() - began < limit:
        await asyncio.sleep(quiet)
        now = cpu_seconds(pid)
        if now == last:
            return now
        last = now
    return last


async def measure_case(url: str, pid: int, case: Scenario, passes: int) -> dict[str, list[float]]:
    """Time ``passes`` page opens and their switches (server CPU, and the switches' wall time)."""
    out: dict[str, list[float]] = {"switch_cpu": [], "switch_wall": [], "open_cpu": []}
    for p in range(passes):
        client = StreamlitClient(url)
        try:
            before = await settled(pid)
            await open_scenario(client, case, p % case.seeds)
            out["open_cpu"].append(await settled(pid) - before)
            for value in case.values:
                before = await settled(pid)
                run = await client.set_widget(case.control, value)
                if run.exceptions:
                    raise RuntimeError(f"{case.name}: the page showed {run.exceptions}")
                out["switch_cpu"].append(await settled(pid) - before)
                out["switch_wall"].append(run.seconds)
        finally:
            await client.close()
    return out


def py_spy() -> str | None:
    """py-spy beside this interpreter or on the path (None when it is not installed)."""
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else shutil.which("py-spy")


async def measure(url: str, pid: int, cases: list[str], passes: int, profile: Path | None) -> None:
    """Every case in turn, one table row each, with one idle session open throughout (when the
    last session leaves, Streamlit forgets the pages' compiled code, which a class never sees)."""
    anchor = StreamlitClient(url)
    await anchor.open("")
    try:
        for name in cases:
            case = CASES[name]
            await warm_up([url], case)  # every view computed once
            spy = None
            if profile and (spy_exe := py_spy()):
                profile.mkdir(parents=True, exist_ok=True)
                spy = subprocess.Popen(
                    [spy_exe, "record", "--pid", str(pid), "--rate", "250", "--format",
                     "raw", "--output", str(profile / f"{name}.txt"), "--threads"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )  # fmt: skip
            try:
                got = await measure_case(url, pid, case, passes)
            finally:
                if spy is not None:
                    spy.send_signal(2)  # py-spy writes its file on SIGINT
                    spy.wait(timeout=60)
            ms = {k: [1000 * x for x in v] for k, v in got.items()}
            print(
                f"| {name} | {statistics.median(ms['switch_cpu']):.0f} ms | "
                f"{statistics.mean(ms['switch_cpu']):.0f} ms | "
                f"{statistics.median(ms['switch_wall']):.0f} ms | "
                f"{statistics.median(ms['open_cpu']):.0f} ms | "
                f"{statistics.mean(ms['open_cpu']):.0f} ms |",
                flush=True,
            )
    finally:
        await anchor.close()


def main(argv: list[str] | None = None) -> None:
    """Measure every case on one fresh server and print a table (milliseconds of server CPU)."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_switch")
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--passes", type=int, default=5, help="page opens per case")
    parser.add_argument("--profile", type=Path, help="a folder for py-spy's raw stacks")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(
        "| case | switch CPU median | switch CPU mean | switch wall median "
        "| warm open CPU median | warm open CPU mean |"
    )
    print("|---|---|---|---|---|---|")
    with running_class(1, proxy=False, scratch_runs=True) as served:
        asyncio.run(measure(served.url, served.pids[0], args.cases, args.passes, args.profile))


if __name__ == "__main__":
    main()
