"""The class-load benchmark's CPU accounting (bench/bench_class.py): what it adds up is real CPU
time."""

import subprocess
import sys

from bench.bench_class import (
    CpuMeter,
    Outcome,
    machine_busy_seconds,
    own_cpu,
    process_tree,
)

BURN = """
import sys, time
while time.process_time() < 0.4:  # CPU time, not wall: the same work however loaded the machine is
    pass
print("done", flush=True)
sys.stdin.read()  # stay alive until the test has read our counters
"""


def test_own_cpu_over_a_child_process_tree_and_the_machine_busy_time():
    busy = machine_busy_seconds()
    # a shell that starts the burner: the burner is a grandchild, found through /proc's children
    # lists
    shell = subprocess.Popen(
        ["/bin/sh", "-c", f"\"{sys.executable}\" -c '{BURN}'"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert shell.stdout.readline().strip() == "done"
        tree = process_tree([shell.pid])
        assert len(tree) == 2 and shell.pid in tree
        used = sum(own_cpu(pid)[1] for pid in tree)
        assert 0.35 <= used < 5.0  # /proc counts whole 10 ms ticks
        assert own_cpu(shell.pid)[1] < 0.2  # the shell itself only waits
        assert machine_busy_seconds() - busy >= 0.35  # the burner's time is part of the machine's
    finally:
        shell.communicate("")
    assert process_tree([shell.pid]) == set()  # gone: nothing is counted for an ended process
    assert own_cpu(shell.pid) is None


def test_row_reports_server_cpu_per_request_and_shares_of_the_busy_time():
    outcome = Outcome(
        "single",
        students=2,
        servers=1,
        switches=[0.5, 1.5, 1.0, 2.0],
        loads=[3.0, 4.0],
        cpu_servers=3.0,
        cpu_client=9.0,
        cpu_machine=12.0,
    )
    row = outcome.row()
    assert "| 500 ms |" in row  # 3.0 CPU s over 6 requests (2 loads + 4 switches)
    assert "| 25% / 75% |" in row
    assert (
        Outcome("single", 1, 1).row().endswith("| n/a / n/a |")
    )  # no busy time measured: no share invented


def test_the_meter_keeps_the_time_of_a_process_that_ended_and_counts_nothing_twice():
    """A burner started by a grandchild shell (so not this process's direct child) is counted as the
    client's up to its last sample, also after it has ended; the shell waiting for it adds
    nothing."""
    meter = CpuMeter(server_pids=[])
    meter.start()
    shell = subprocess.Popen(
        ["/bin/sh", "-c", f"\"{sys.executable}\" -c '{BURN}'"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert shell.stdout.readline().strip() == "done"
    meter.sample()  # the burner is alive: its 0.4 s are read
    burner = (process_tree([shell.pid]) - {shell.pid}).pop()
    assert own_cpu(burner)[1] >= 0.35
    shell.communicate("")  # both end; the shell's waited-for time now holds the burner's too
    outcome = Outcome("single", 1, 1)
    meter.stop(outcome)
    assert (
        0.35 <= outcome.cpu_client < 0.35 + 2.0
    )  # the burner once (plus this test process's own work)
    assert outcome.cpu_servers == 0.0 and outcome.cpu_machine >= 0.35
