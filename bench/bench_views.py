"""Server time of the slowest first-time controls: Integration's switches, Robustness' first PCI-A
normalisation, Workspace's first mask onset.

Each case opens its page in Streamlit's AppTest (the real app: navigation, URL state, caches; no
browser, so the time is the server's script run) in a fresh process, so the caches are cold as on
a freshly started server, then changes one control at a time and times each run. Targets: an
Integration switch within 1 s (its views are precomputed for the bundled agents,
``labcore.view_cache`` side files), a first PCI-A normalisation within 3 s.

    python -m bench.bench_views                     # every case
    python -m bench.bench_views --cases integration
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable

from streamlit.testing.v1 import AppTest

CASES: dict[str, tuple[str, dict[str, str], list[tuple[str, str, object]]]] = {
    "integration": (
        "integration",
        {"agent": "b2", "seed": "0"},
        [
            ("segmented_control", "integration.self_model_mode", "zero"),
            ("select_slider", "integration.capacity", 0),
            ("selectbox", "integration.seed", 1),
            ("segmented_control", "integration.self_model_mode", "on"),
        ],
    ),
    "pci": (
        "robustness",
        {"agent": "b1", "seed": "0"},
        [
            ("selectbox", "robustness.normalisation", "shuffle"),
            ("selectbox", "robustness.normalisation", "lz76"),
        ],
    ),
    "masking": (
        "workspace",
        {"agent": "b1", "seed": "0"},
        [("slider", "workspace.soa", 5), ("slider", "workspace.soa", 8)],
    ),
}
"""Per case: the page, its URL and the switches made one after the other (widget type, key,
value)."""
TARGETS = {"integration": 1.0, "pci": 3.0}
"""Seconds a switch may take (every switch of Integration; the first of PCI-A)."""


def _widget(at: AppTest, kind: str, key: str) -> Callable:
    return getattr(at, kind)(key=key)


def run_case(name: str) -> list[float]:
    """Seconds of the first page run and of each switch's run, in this process."""
    from tests.ui.apptest_pages import open_page

    page, params, switches = CASES[name]
    start = time.perf_counter()
    at = open_page(page, params)
    times = [time.perf_counter() - start]
    for kind, key, value in switches:
        widget = _widget(at, kind, key).set_value(value)
        start = time.perf_counter()
        widget.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"{name}: {at.exception[0].value}")
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(" ".join(f"{t:.2f}" for t in run_case(args.child)), flush=True)
        return
    print(f"load {os.getloadavg()[0]:.1f}; seconds: page open, then each switch", flush=True)
    for name in args.cases:  # a fresh process per case: cold caches, as a new server
        done = subprocess.run(
            [sys.executable, "-m", "bench.bench_views", "--child", name],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode:
            print(f"{name}: failed\n{done.stderr[-2000:]}", flush=True)
            continue
        times = [float(t) for t in done.stdout.split()[-len(CASES[name][2]) - 1 :]]
        switches = ", ".join(f"{t:.2f}" for t in times[1:])
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            worst = max(times[1:]) if name == "integration" else times[1]
            verdict = f" (target {target:g} s: {'met' if worst <= target else 'missed'})"
        print(f"{name}: open {times[0]:.2f}; switches {switches}{verdict}", flush=True)


if __name__ == "__main__":
    main()
