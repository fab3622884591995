"""Class load (issue 24): N students in headless chromium on one server, or on ``make class``.

Each student is a browser session of its own (a chromium context: its own cookies, so its own
Streamlit session and, behind nginx, its own sticky server). Students open Metacognition for one
of the five bundled B2 seeds (student i: seed i mod 5) at the same time, then each switches the
self-model mode four times (zeroed, noise, shuffled, on), a second of "reading" between switches.
A switch is timed from the click to the moment the Type-2 AUROC metric shows its new value and
Streamlit's run indicator has gone (as bench_browser.timed_change). Reported: p50 and p95 of the
switches, failures (a switch or page load that timed out or showed an exception), the servers'
peak memory (summed RSS of the lab processes, sampled every 0.5 s) and the first page's load time.

Where the time goes: the CPU seconds the lab servers used and the CPU seconds the client used
(chromium, Playwright's driver and this process), each against the machine's whole busy time over
the run (``/proc``), so the table says whether the servers or the browsers beside them fill the
cores.

    python -m bench.bench_class --students 1 10 30 --setups single class   # the lead's run
    python -m bench.bench_class --students 2 --setups single class --no-readme   # a check (about 2
        min)

Writes the table into bench/README.md between the ``class-load`` markers (unless --no-readme).
Installs Debian's nginx with apt-get if it is missing (``ui.serve.ensure_nginx``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ui.serve import CHROMIUM, CHROMIUM_ARGS, ensure_nginx, running_class

MODES = ("zeroed", "noise", "shuffled", "on")
"""The four switches of every student, in order (labels of the Self-model control)."""
README = Path(__file__).resolve().parent / "README.md"
BEGIN, END = "<!-- class-load -->", "<!-- /class-load -->"
TIMEOUT_MS = 180_000
METRIC_CHANGED = """([label, old]) => {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
    .find(e => e.innerText.includes(label));
  return !!m && m.querySelector('[data-testid="stMetricValue"]').innerText !== old;
}"""


@dataclass
class Outcome:
    """One setup at one class size."""

    setup: str
    students: int
    servers: int
    switches: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    failures: int = 0
    peak_rss: int = 0
    cpu_servers: float = 0.0
    cpu_client: float = 0.0
    cpu_machine: float = 0.0
    wall: float = 0.0

    def row(self) -> str:
        """The README table row."""
        s = sorted(self.switches)
        p50 = statistics.median(s) if s else float("nan")
        p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))] if s else float("nan")
        load = statistics.median(self.loads) if self.loads else float("nan")
        requests = max(
            1, len(self.switches) + len(self.loads)
        )  # page loads and switches the servers answered
        return (
            f"| {self.setup} ({self.servers} server{'s' * (self.servers > 1)}) | "
            f"{self.students} | {p50:.2f} s | "
            f"{p95:.2f} s | {self.failures} of {self.students * (len(MODES) + 1)} | "
            f"{self.peak_rss / 2**20:,.0f} MiB | {load:.1f} s | "
            f"{1000 * self.cpu_servers / requests:,.0f} ms | "
            f"{self.share(self.cpu_servers)} / {self.share(self.cpu_client)} |"
        )

    def share(self, cpu: float) -> str:
        """A CPU time as a percentage of the machine's busy time over the run."""
        return f"{100 * cpu / self.cpu_machine:.0f}%" if self.cpu_machine > 0 else "n/a"


def rss(pids: list[int]) -> int:
    """Summed resident memory of processes and their children (bytes)."""
    total = 0
    for pid in process_tree(pids):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue  # ended between listing and reading
    return total


def process_tree(pids: list[int]) -> set[int]:
    """The processes and all their living descendants."""
    found, todo = set(), list(pids)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
        found.add(pid)
    return found


BROWSER_NAMES = ("chromium", "chrome", "headless_shell")
"""Process names of the browsers. Chromium's zygote forks its renderers outside the tree of the
process that launched it, so the browsers are found by name, not by descent."""


def browser_processes() -> set[int]:
    """Every running chromium process on the machine (by its ``comm`` name)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip().startswith(BROWSER_NAMES):
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


def machine_busy_seconds() -> float:
    """CPU time the whole machine spent not idle since boot, over all cores (seconds)."""
    ticks = [
        int(t) for t in Path("/proc/stat").read_text().split()[1:9]
    ]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


async def metric(page, label: str) -> str:
    """The shown value of a metric."""
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return await box.locator('[data-testid="stMetricValue"]').inner_text()


async def student(browser, url: str, seed: int, outcome: Outcome) -> None:
    """One student: open the page, then switch the self-model four times."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    try:
        start = time.perf_counter()
        await page.goto(
            f"{url}/metacognition?agent=b2_ws&seed={seed}&self_model_mode=on&capacity=4"
        )
        await (
            page.locator('[data-testid="stMetric"]')
            .filter(has_text="Type-2 AUROC")
            .first.wait_for(timeout=TIMEOUT_MS)
        )
        await page.wait_for_selector(
            '[data-testid="stStatusWidget"]', state="detached", timeout=TIMEOUT_MS
        )
        outcome.loads.append(time.perf_counter() - start)
    except Exception:  # a page that never loaded: every one of its switches fails too
        outcome.failures += 1 + len(MODES)
        await context.close()
        return
    group = page.get_by_role("radiogroup", name="Self-model")
    for mode in MODES:
        await page.wait_for_timeout(1000)  # a student reads the page before the next switch
        try:
            old = await metric(page, "Type-2 AUROC")
            start = time.perf_counter()
            await group.get_by_role("radio", name=mode, exact=True).click()
            await page.wait_for_function(
                METRIC_CHANGED, arg=["Type-2 AUROC", old], timeout=TIMEOUT_MS
            )
            await page.wait_for_selector(
                '[data-testid="stStatusWidget"]', state="detached", timeout=TIMEOUT_MS
            )
            took = time.perf_counter() - start
            if await page.locator('[data-testid="stException"]').count():
                raise RuntimeError("an exception on the page")
            outcome.switches.append(took)
        except Exception:
            outcome.failures += 1
    await context.close()


async def run_class(url: str, students: int, outcome: Outcome) -> None:
    """Every student at once, in one headless chromium."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        await asyncio.gather(*(student(browser, url, i % 5, outcome) for i in range(students)))
        await browser.close()


def own_cpu(pid: int) -> tuple[int, float] | None:
    """(start time, CPU seconds of the process itself, all its threads, without its children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[19]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds of the servers, of the client (every chromium process, this process and its other
    descendants: Playwright's driver) and of the machine between ``start()`` and ``stop()``.

    Each process's own time is sampled (``sample()``, every 0.5 s by the benchmark's sampler) and
    kept at its last reading, so a process that ends in between (a student's renderer) counts up
    to its last sample, whoever reaps it: Chromium's zygote forks renderers outside the tree of the
    process that launched the browser, so the browsers are found by name (:data:`BROWSER_NAMES`).
    Own times only (no children's), so nothing is counted twice."""

    def __init__(self, server_pids: list[int]) -> None:
        self.server_pids = server_pids
        self.first: dict[tuple[int, int], float] = {}
        self.last: dict[tuple[int, int], float] = {}
        self.kind: dict[tuple[int, int], str] = {}
        self.lock = threading.Lock()

    def sample(self, initial: bool = False) -> None:
        """Read every server and client process's own CPU time now."""
        servers = process_tree(self.server_pids)
        client = (process_tree([os.getpid()]) | browser_processes()) - servers
        with self.lock:
            for kind, pids in (("servers", servers), ("client", client)):
                for pid in pids:
                    read = own_cpu(pid)
                    if read is None:
                        continue
                    key = (pid, read[0])  # a reused process id is another process
                    self.first.setdefault(key, read[1] if initial else 0.0)
                    self.last[key], self.kind[key] = read[1], kind

    def start(self) -> None:
        self.busy = machine_busy_seconds()
        self.sample(initial=True)

    def stop(self, outcome: Outcome) -> None:
        self.sample()
        outcome.cpu_machine = machine_busy_seconds() - self.busy
        with self.lock:
            used = {k: self.last[k] - self.first[k] for k in self.last}
        outcome.cpu_servers = sum(v for k, v in used.items() if self.kind[k] == "servers")
        outcome.cpu_client = sum(v for k, v in used.items() if self.kind[k] == "client")


def measure(setup: str, students: int, servers: int) -> Outcome:
    """One setup (``single``: one server; ``class``: ``servers`` behind nginx) with a fresh
    server."""
    outcome = Outcome(setup, students, servers if setup == "class" else 1)
    with running_class(outcome.servers, proxy=setup == "class", scratch_runs=True) as served:
        done = threading.Event()
        meter = CpuMeter(served.pids)
        meter.start()

        def sample() -> None:
            while not done.is_set():
                outcome.peak_rss = max(outcome.peak_rss, rss(served.pids))
                meter.sample()
                done.wait(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        began = time.perf_counter()
        try:
            asyncio.run(run_class(served.url, students, outcome))
        finally:
            outcome.wall = time.perf_counter() - began
            meter.stop(
                outcome
            )  # before the servers stop (closed browsers count to their last sample)
            done.set()
            sampler.join()
    return outcome


def write_readme(rows: list[str], note: str) -> None:
    """Replace the class-load table in bench/README.md (between its markers)."""
    text = README.read_text()
    table = "\n".join(
        [
            BEGIN,
            "| setup | students | p50 | p95 | failures | server memory (peak RSS) | "
            "page load (median) "
            "| server CPU per request | CPU: servers / browsers |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            note,
            END,
        ]
    )
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + table + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n## Class load (issue 24)\n\n" + table + "\n"
    README.write_text(text)


def main(argv: list[str] | None = None) -> None:
    """Run the setups at each class size; print the rows and write them into bench/README.md."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_class")
    parser.add_argument("--students", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument(
        "--setups", nargs="+", choices=("single", "class"), default=["single", "class"]
    )
    parser.add_argument(
        "--servers", type=int, default=3, help="servers of the class setup (make class)"
    )
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args(argv)
    if "class" in args.setups:
        ensure_nginx()
    rows = []
    for setup in args.setups:
        for n in args.students:
            outcome = measure(setup, n, args.servers)
            rows.append(outcome.row())
            print(rows[-1], flush=True)
    note = (
        f"Measured {datetime.date.today().isoformat()} with `python -m "
        "bench.bench_class --students "
        f"{' '.join(map(str, args.students))} --setups {' '.join(args.setups)} "
        f"--servers {args.servers}`: "
        "each student a chromium session opening Metacognition (B2, seed i mod 5) and "
        "switching the self-model "
        f"{len(MODES)} times; a switch is timed to the updated Type-2 AUROC with the "
        "run indicator gone. The "
        "browsers share the machine's cores with the servers. Server CPU per request: "
        "the lab processes' CPU "
        "seconds over the page loads and switches they answered; CPU shares: the "
        "servers' and the client's "
        "(chromium, Playwright, the benchmark) CPU seconds as parts of the machine's "
        "busy time over the run."
    )
    if not args.no_readme:
        write_readme(rows, note)


if __name__ == "__main__":
    main()
