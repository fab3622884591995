"""``python -m labcore train``: a real run with a tiny budget (CleanRL's smoke-test pattern)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from labcore.checks import choice_error
from labcore.cli import training_jobs
from labcore.config import AGENT_KINDS
from labcore.seeding import parse_seeds
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint, read_manifest, read_record
from tests.refusals import refused

ROOT = Path(__file__).resolve().parents[2]


def test_parse_seeds():
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert parse_seeds("3,1,3") == [1, 3]
    for bad in ("4-0", "a", "-1", "1-"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_seeds(bad)


def test_training_jobs_cover_each_experiment():
    assert training_jobs("e1", "all", "fast") == [("wagering", "b2_ws", None)]
    e3 = training_jobs("e3", "all", "fast")
    assert ("dual", "hot_only", None) in e3 and len(e3) == 11
    # E2 and E3 share their fast-mode dual-task agents; paper mode differs by episode count.
    assert len(training_jobs("all", "all", "fast")) == 12
    assert ("dual", "b1", 4000) in training_jobs("all", "b1", "paper")
    assert ("dual", "b1", 8000) in training_jobs("all", "b1", "paper")


@pytest.mark.slow
def test_cli_trains_and_writes_checkpoints(tmp_path):
    out = tmp_path / "ckpt"
    cmd = [
        sys.executable,
        "-m",
        "labcore",
        "train",
        "--experiment",
        "e1",
        "--agent",
        "b2_ws",
        "--seeds",
        "0-1",
        "--out",
        str(out),
        "--max-updates",
        "30",
        "--episodes",
        "200",
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "training" in done.stderr  # the progress bar
    manifest = read_manifest(out)["checkpoints"]
    assert set(manifest) == {"wagering-b2_ws-s0", "wagering-b2_ws-s1"}
    loaded = load_checkpoint(checkpoint_file(out, "wagering-b2_ws-s1"))
    assert loaded.seed == 1
    record = read_record(out, "wagering-b2_ws-s1")
    assert record["updates"] == 30 and record["versions"]["torch"].startswith("2.13.0")
    files = {p.name: p.stat().st_mtime_ns for p in out.glob("[!.]*")}
    again = subprocess.run(
        [*cmd, "--skip-existing"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0 and "training" not in again.stderr  # no progress bar: none ran
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("[!.]*")} == files  # none rewritten


def test_the_command_line_starts_without_torch_or_scikit_learn():
    """A mistyped argument is refused before anything heavy loads (it took five seconds)."""
    probe = (
        "import sys, labcore.cli; "
        "print(' '.join(m for m in ('torch', 'sklearn', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == ""


def test_cli_rejects_bad_arguments():
    bad = subprocess.run(
        [sys.executable, "-m", "labcore", "train", "--experiment", "e1", "--agent", "zz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0
    assert choice_error("zz", "agent kind", (*AGENT_KINDS, "all")) in bad.stderr  # one sentence
    bad = subprocess.run(
        [sys.executable, "-m", "labcore", "train", "--experiment", "e9", "--agent", "b1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "'e9'" in bad.stderr  # argparse's usage error names it


def test_study_command_writes_the_result_set_then_the_report(tmp_path, capsys):
    """The runner writes the result set; the command line adds report.html after it."""
    from labcore.cli import main

    def study(out, *extra):
        return main(
            [
                *("study", "paper", "--quick", "--set", "experiments=e1", "--set", "seeds=0"),
                *("--set", "audit_seeds=1", "--set", f"cache={tmp_path / 'cache'}"),
                *("--out", str(out), *extra),
            ]
        )

    out = tmp_path / "r"
    assert study(out) == 0
    assert (out / "summary.json").exists() and (out / "report.html").exists()
    assert "report.html" in capsys.readouterr().out
    assert study(tmp_path / "n", "--no-report") == 0
    assert not (tmp_path / "n" / "report.html").exists()
    refusal = str(refused(SystemExit, study, tmp_path / "x", "--scheduler", "tcp://127.0.0.1:1"))
    assert "--scheduler" in refusal and "--backend" in refusal  # the option and what it needs
