"""Class load: N students on one server, or on ``make class``; as Streamlit-protocol clients
(``--mode protocol``, the default) or in headless chromium (``--mode browser``, an end-to-end
check at N <= 5).

Protocol mode (:mod:`bench.class_protocol`, :mod:`bench.protocol_client`): every student speaks
Streamlit's websocket protocol without a browser, so the cores go to the servers, as in a class
where the students' own devices render. Scenarios (``--scenarios``): Metacognition (B2, seed
i mod 5, the self-model through its four options), Workspace (B1, the capacity slider through
its values) and a lesson step (the students' link to the noise step, its "Open this view", then
the noise slider); paces (``--paces``): stress (0.5-2 s of thinking between switches) and class
(5-15 s). Reported per scenario, pace, class size and setup: p50, p95 and max of the switches,
failures by reason, the page opens' p95, the servers' CPU seconds per action (page opens and
switches; nginx counted with the servers), their peak memory (summed RSS) and the client's own
CPU seconds (this process: every student and the sampler). Each setup's servers are fresh per
scenario and warmed first (one pass of every seed's view per server; ``--cold`` skips it).

    python -m bench.bench_class                      # the lead's run: every scenario, pace, N
    python -m bench.bench_class --students 2 --scenarios metacognition --paces stress \
        --setups single --no-readme                  # a check (about 1 min)

Writes its table into bench/README.md between the ``class-protocol`` markers (unless
--no-readme).

Browser mode: each student is a browser session of its own (a chromium context: its own cookies,
so its own Streamlit session and, behind nginx, its own sticky server). Students open Metacognition
for one of the five bundled B2 seeds (student i: seed i mod 5) at the same time, then each switches
the self-model mode four times (zeroed, noise, shuffled, on), a second of "reading" between
switches.
A switch is timed from the click to the moment the Type-2 AUROC metric shows its new value and
Streamlit's run indicator has gone (as bench_browser.timed_change). Reported: p50 and p95 of the
switches, failures (a switch or page load that timed out or showed an exception), the servers'
peak memory (summed RSS of the lab processes, sampled every 0.5 s) and the first page's load time.

Where the time goes: the CPU seconds the lab servers used and the CPU seconds the client used
(chromium, Playwright's driver and this process), each against the machine's whole busy time over
the run (``/proc``), so the table says whether the servers or the browsers beside them fill the
cores.

    python -m bench.bench_class --mode browser --students 1 5 --setups single class
    python -m bench.bench_class --mode browser --students 2 --setups single --no-readme  # a check

Writes the table into bench/README.md between the ``class-load`` markers (unless --no-readme).
Either mode installs Debian's nginx with apt-get if it is missing (``ui.serve.ensure_nginx``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.class_protocol import PACES, SCENARIOS, ProtocolOutcome, run_students, warm_up
from ui.serve import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Served,
    default_servers,
    ensure_nginx,
    running_class,
)

MODES = ("zeroed", "noise", "shuffled", "on")
"""The four switches of every student, in order (labels of the Self-model control)."""
README = Path(__file__).resolve().parent / "README.md"
BEGIN, END = "<!-- class-load -->", "<!-- /class-load -->"
PROTOCOL_BEGIN, PROTOCOL_END = "<!-- class-protocol -->", "<!-- /class-protocol -->"
BROWSER_MAX = 5
"""The browser mode is an end-to-end check: at most this many chromium students."""
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
    Own times only (no children's), so nothing is counted twice. ``browsers=False`` (protocol
    mode): no chromium is counted, whoever else on the machine runs one."""

    def __init__(self, server_pids: list[int], *, browsers: bool = True) -> None:
        self.server_pids = server_pids
        self.browsers = browsers
        self.first: dict[tuple[int, int], float] = {}
        self.last: dict[tuple[int, int], float] = {}
        self.kind: dict[tuple[int, int], str] = {}
        self.lock = threading.Lock()

    def sample(self, initial: bool = False) -> None:
        """Read every server and client process's own CPU time now."""
        servers = process_tree(self.server_pids)
        client = process_tree([os.getpid()]) | (browser_processes() if self.browsers else set())
        client -= servers
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

    def stop(self, outcome: Outcome | ProtocolOutcome) -> None:
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
        stop = sampling(served, outcome)
        began = time.perf_counter()
        try:
            asyncio.run(run_class(served.url, students, outcome))
        finally:
            outcome.wall = time.perf_counter() - began
            stop()  # before the servers stop (closed browsers count to their last sample)
    return outcome


def sampling(
    served: Served, outcome: Outcome | ProtocolOutcome, *, browsers: bool = True
) -> Callable[[], None]:
    """Start metering the servers (and nginx) for ``outcome``; returns the function that stops it.

    The CPU meter and the servers' peak memory are sampled every 0.5 s in a thread."""
    pids = served.pids + ([served.proxy_pid] if served.proxy_pid else [])
    meter = CpuMeter(pids, browsers=browsers)
    done = threading.Event()
    meter.start()

    def sample() -> None:
        while not done.is_set():
            outcome.peak_rss = max(outcome.peak_rss, rss(served.pids))
            meter.sample()
            done.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def stop() -> None:
        meter.stop(outcome)  # before the servers stop
        done.set()
        sampler.join()

    return stop


def measure_protocol(
    setup: str,
    scenario: str,
    paces: list[str],
    students: list[int],
    servers: int,
    *,
    warm: bool = True,
    seed: int = 0,
    timeout: float = 120.0,
    rounds: int = 1,
    assets: bool = False,
) -> list[ProtocolOutcome]:
    """One scenario on one setup (fresh servers, warmed unless ``warm`` is False) at every pace
    and class size, one class after another."""
    spec = SCENARIOS[scenario]
    count = servers if setup == "class" else 1
    outcomes = []
    with running_class(count, proxy=setup == "class", scratch_runs=True) as served:
        if warm:
            asyncio.run(warm_up([f"http://127.0.0.1:{p}" for p in served.ports], spec))
        for pace in paces:
            for n in students:
                outcome = ProtocolOutcome(
                    setup, scenario, pace, n, count, len(spec.values) * rounds
                )
                stop = sampling(served, outcome, browsers=False)
                began = time.perf_counter()
                try:
                    asyncio.run(
                        run_students(
                            served.url,
                            spec,
                            pace,
                            outcome,
                            seed=seed,
                            timeout=timeout,
                            rounds=rounds,
                            assets=assets,
                        )
                    )
                finally:
                    outcome.wall = time.perf_counter() - began
                    stop()
                print(outcome.row(), flush=True)
                outcomes.append(outcome)
    return outcomes


def replace_between(text: str, begin: str, end: str, block: str, heading: str) -> str:
    r"""``text`` with what lies between the markers ``begin`` and ``end`` replaced by ``block``
    (markers included); appended under ``heading`` when the markers are missing.

    >>> replace_between("a <!-- x -->old<!-- /x --> b", "<!-- x -->", "<!-- /x -->", "new", "## X")
    'a <!-- x -->\nnew\n<!-- /x --> b'
    """
    table = f"{begin}\n{block}\n{end}"
    if begin in text and end in text:
        return text[: text.index(begin)] + table + text[text.index(end) + len(end) :]
    return text.rstrip("\n") + f"\n\n{heading}\n\n{table}\n"


def write_protocol_readme(rows: list[str], note: str) -> None:
    """Replace the protocol mode's table in bench/README.md (between its markers)."""
    block = "\n".join(
        [
            "| scenario | pace | setup | students | p50 | p95 | max | failures | page open p95 "
            "| server CPU per action | servers' peak RSS | client CPU |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            note,
        ]
    )
    heading = "## Class load at the server: students as protocol clients"
    README.write_text(
        replace_between(README.read_text(), PROTOCOL_BEGIN, PROTOCOL_END, block, heading)
    )


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
        text = text.rstrip("\n") + "\n\n## Class load in browsers\n\n" + table + "\n"
    README.write_text(text)


def protocol_note(args: argparse.Namespace, load: float) -> str:
    """The protocol table's note: when, the command, and what was measured."""
    scenarios = " ".join(args.scenarios)
    paces = ", ".join(f"{name} {low:g}-{high:g} s" for name, (low, high) in PACES.items())
    return (
        f"Measured {datetime.date.today().isoformat()} with `python -m bench.bench_class "
        f"--students {' '.join(map(str, args.students))} --setups {' '.join(args.setups)} "
        f"--scenarios {scenarios} --paces {' '.join(args.paces)} --servers {args.servers}"
        f"{' --cold' if args.cold else ''}{' --assets' if args.assets else ''}` "
        f"(load average {load:.1f} when it began). Every student a Streamlit-protocol client "
        "(bench/protocol_client.py: no browser), all opening the page at once, then making "
        f"the scenario's switches with {paces} "
        "of thinking before each. A switch is timed from the BackMsg to the run's "
        "script_finished and counts only when the watched metric shows a new value; a page "
        "open from the first HTTP request to its first run's end (the lesson: after following "
        "its link). Servers fresh per scenario and "
        f"{'not warmed' if args.cold else 'warmed by one pass of every seed per server'}; "
        "server CPU per action: the lab processes' and nginx's CPU seconds over the page opens "
        "and switches; client CPU: this process's (every student)."
    )


def main(argv: list[str] | None = None) -> None:
    """Run the setups at each class size; print the rows and write them into bench/README.md."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_class")
    parser.add_argument("--mode", choices=("protocol", "browser"), default="protocol")
    parser.add_argument(
        "--students", type=int, nargs="+", help="class sizes (protocol 1 10 30, browser 1 5)"
    )
    parser.add_argument(
        "--setups", nargs="+", choices=("single", "class"), default=["single", "class"]
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=default_servers(),
        help="servers of the class setup (make class's default: %(default)s)",
    )
    parser.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS))
    parser.add_argument("--paces", nargs="+", choices=list(PACES), default=list(PACES))
    parser.add_argument("--rounds", type=int, default=1, help="passes of each scenario's switches")
    parser.add_argument("--seed", type=int, default=0, help="the students' thinking times")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds an action may take")
    parser.add_argument("--cold", action="store_true", help="do not warm the servers first")
    parser.add_argument("--assets", action="store_true", help="also fetch the page's static files")
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args(argv)
    if args.students is None:
        args.students = [1, 10, 30] if args.mode == "protocol" else [1, BROWSER_MAX]
    if args.mode == "browser" and max(args.students) > BROWSER_MAX:
        parser.error(f"the browser mode is an end-to-end check: at most {BROWSER_MAX} students")
    if "class" in args.setups:
        ensure_nginx()
    if args.mode == "protocol":
        load = os.getloadavg()[0]
        rows = [
            outcome.row()
            for setup in args.setups
            for scenario in args.scenarios
            for outcome in measure_protocol(
                setup,
                scenario,
                args.paces,
                args.students,
                args.servers,
                warm=not args.cold,
                seed=args.seed,
                timeout=args.timeout,
                rounds=args.rounds,
                assets=args.assets,
            )
        ]
        if not args.no_readme:
            write_protocol_readme(rows, protocol_note(args, load))
        return
    rows = []
    for setup in args.setups:
        for n in args.students:
            outcome = measure(setup, n, args.servers)
            rows.append(outcome.row())
            print(rows[-1], flush=True)
    note = (
        f"Measured {datetime.date.today().isoformat()} with `python -m "
        "bench.bench_class --mode browser --students "
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
