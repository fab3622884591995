"""Verdicts do not depend on the machine (docs/reliability.md, "Same seed, same weights").

The bundled quick result set (`results/quick`) was made in portable compute mode from the bundled
agents. Here the same command runs in fast mode, this CPU's own kernels: a different code path on
every machine (MKL's AUTO branch instead of COMPATIBLE, at least), so its numbers may differ in the
last bits. Every claim must keep the bundled verdict and the bundled flags (by construction, and
which rule).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labcore.compute import same_code_path

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICK = ROOT / "results" / "quick"
COMMAND = ["study", "paper", "--quick"]
"""The bundled quick set's command (its summary's ``config`` says the same; checked below)."""


@pytest.fixture(scope="module")
def bundled() -> dict:
    return json.loads((QUICK / "summary.json").read_text())


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory, bundled) -> dict:
    out = tmp_path_factory.mktemp("quick")
    env = {k: v for k, v in os.environ.items() if k != "CTLAB_COMPUTE"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "labcore",
            "--compute",
            "fast",
            *COMMAND,
            "--no-report",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((out / "summary.json").read_text())


def test_the_bundled_quick_set_is_what_the_test_reproduces(bundled):
    assert bundled["config"]["quick"] is True and len(bundled["seeds"]) == 2
    assert bundled["tables"]["construction_audit"]["untrained_seeds"] == [0, 1]
    assert bundled["compute"]["portable"] is True  # made on the pinned code path


def _verdicts(summary: dict) -> dict:
    """Each finding's verdict and flags (kind and rule)."""
    return {
        f["id"]: (f["verdict"], sorted((fl["kind"], fl["rule"]) for fl in f["flags"]))
        for f in summary["findings"]
    }


def test_a_quick_set_on_another_code_path_keeps_every_verdict(bundled, reproduced):
    assert not same_code_path(bundled["compute"], reproduced["compute"])[
        0
    ]  # fast mode: another path
    ours, theirs = _verdicts(reproduced), _verdicts(bundled)
    assert ours.keys() == theirs.keys()
    changed = {k: (theirs[k], ours[k]) for k in theirs if theirs[k] != ours[k]}
    assert not changed, f"verdicts that depend on the machine (bundled, here): {changed}"
