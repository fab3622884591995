"""Fault injection: a save killed between any two of its steps is repaired, or refused clearly.

``save_checkpoint`` writes (1) a journal, (2) the checkpoint file, (3) the training record and
(4) the manifest, then removes the journal. ``_save_step_done`` is called after each step; the
tests replace it to raise :class:`Killed` (a BaseException, so no ``except Exception`` clean-up
runs, as with a real kill), then check what the next load or save makes of the debris. One test
kills a real process with ``os._exit``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import labcore.storage.checkpoint_manifest as ck_manifest
import labcore.storage.checkpoints as ck
from labcore.agents import Agent, build_agent
from labcore.storage.checkpoint_manifest import (
    MANIFEST,
    read_manifest,
    read_record,
    record_file,
    repair_directory,
    verify_directory,
)
from labcore.storage.checkpoints import load_checkpoint, save_checkpoint
from tests.agents.checkpoint_files import refusal

ROOT = Path(__file__).resolve().parents[2]
STEPS = ("journal", "file", "record", "manifest")
NAME = "dual-b1-s0"


class Killed(BaseException):
    """The process died here."""


def record_of(agent: Agent, seed: int = 0, agreement: float = 0.97) -> dict:
    return {
        "task": "dual",
        "kind": agent.config.kind,
        "seed": seed,
        "mode": "fast",
        "heldout_agreement": agreement,
        "criterion_attainable": True,
        "excluded": False,
        "train_config": {"train_episodes": 10},
    }


def same_weights(a: Agent, b: Agent) -> bool:
    return all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


def kill_after(monkeypatch, step: str) -> None:
    def die(done: str) -> None:
        if done == step:
            raise Killed(step)

    monkeypatch.setattr(ck, "_save_step_done", die)


@pytest.fixture(scope="module")
def old() -> Agent:
    return build_agent("b1", seed=0)


@pytest.fixture(scope="module")
def new() -> Agent:
    """Other weights for the same checkpoint name (a retrained seed)."""
    return build_agent("b1", seed=7)


def killed_save(monkeypatch, directory: Path, agent: Agent, step: str, seed: int = 0) -> None:
    kill_after(monkeypatch, step)
    with pytest.raises(Killed):
        save_checkpoint(agent, record_of(agent, seed), directory)
    monkeypatch.undo()


def journals(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob(".*.pending"))


@pytest.mark.parametrize("step", STEPS)
def test_a_resave_killed_after_any_step_is_repaired_by_the_next_load(
    tmp_path, monkeypatch, old, new, step
):
    path = save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    killed_save(monkeypatch, tmp_path, new, step)
    written = step != "journal"  # killed before os.replace: the old file is still there
    assert journals(tmp_path) == [f".{NAME}.pending"]
    if step in ("file", "record"):
        # The file is new, the manifest still describes the old one: only the journal vouches.
        assert [(p.name, p.kind) for p in verify_directory(tmp_path)] == [
            (NAME, "manifest_mismatch"),
            (f".{NAME}.pending", "journal"),
        ]
    loaded = load_checkpoint(path)
    assert same_weights(loaded.agent, new if written else old)
    entry = read_manifest(tmp_path)["checkpoints"][NAME]
    assert loaded.entry == entry and entry["heldout_agreement"] == (0.97 if written else 0.96)
    # The record beside the file is the one of its weights, never the previous run's.
    assert read_record(tmp_path, NAME)["heldout_agreement"] == entry["heldout_agreement"]
    if step in ("file", "record"):
        assert journals(tmp_path) == []  # the load finished the save
    repair_directory(
        tmp_path
    )  # a dead ("journal") or finished ("manifest") journal is cleared here
    assert journals(tmp_path) == [] and verify_directory(tmp_path) == []
    assert same_weights(load_checkpoint(path).agent, new if written else old)


@pytest.mark.parametrize("step", STEPS)
def test_a_first_save_killed_after_any_step_is_repaired_or_absent(tmp_path, monkeypatch, new, step):
    killed_save(monkeypatch, tmp_path, new, step)
    path = tmp_path / f"{NAME}.safetensors.xz"
    if step == "journal":
        assert refusal(load_checkpoint, path).kind == "missing"
        assert repair_directory(tmp_path) == [] and journals(tmp_path) == []
        assert NAME not in read_manifest(tmp_path)["checkpoints"]
        return
    if step == "file":
        assert not record_file(tmp_path, NAME).exists() and not (tmp_path / MANIFEST).exists()
    loaded = load_checkpoint(path)
    assert same_weights(loaded.agent, new) and loaded.entry["excluded"] is False
    # The journal held everything: manifest entry and training record are back.
    assert read_manifest(tmp_path)["checkpoints"][NAME] == loaded.entry
    assert read_record(tmp_path, NAME) == record_of(new)
    repair_directory(tmp_path)  # killed after the manifest, the journal is left for this
    assert journals(tmp_path) == [] and verify_directory(tmp_path) == []


@pytest.mark.parametrize("step", ["file", "record"])
def test_the_next_save_of_another_checkpoint_also_repairs(tmp_path, monkeypatch, old, new, step):
    save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    killed_save(monkeypatch, tmp_path, new, step)
    other = build_agent("b1", seed=2)
    save_checkpoint(other, record_of(other, seed=2), tmp_path)
    assert journals(tmp_path) == [] and verify_directory(tmp_path) == []
    assert set(read_manifest(tmp_path)["checkpoints"]) == {NAME, "dual-b1-s2"}
    assert read_manifest(tmp_path)["checkpoints"][NAME]["heldout_agreement"] == 0.97
    # Repaired without loading: the manifest now vouches for the new weights.
    assert same_weights(load_checkpoint(tmp_path / f"{NAME}.safetensors.xz").agent, new)


def test_a_changed_file_without_a_journal_is_still_refused(tmp_path, monkeypatch, old, new):
    path = save_checkpoint(old, record_of(old), tmp_path)
    killed_save(monkeypatch, tmp_path, new, "file")
    (
        tmp_path / f".{NAME}.pending"
    ).unlink()  # the journal is lost: nothing vouches for the new file
    error = refusal(load_checkpoint, path)
    assert error.kind == "manifest_mismatch" and str(error).startswith(path.name)
    # Saving again is the way out, and works.
    save_checkpoint(new, record_of(new), tmp_path)
    assert same_weights(load_checkpoint(path).agent, new)


def test_a_garbage_journal_neither_blocks_nor_repairs(tmp_path, old):
    path = save_checkpoint(old, record_of(old), tmp_path)
    (tmp_path / f".{NAME}.pending").write_bytes(b"\x00not json")
    assert same_weights(load_checkpoint(path).agent, old)
    assert repair_directory(tmp_path) == [] and journals(tmp_path) == []


def test_a_failed_file_write_leaves_the_old_checkpoint_and_no_journal(
    tmp_path, monkeypatch, old, new
):
    path = save_checkpoint(old, record_of(old), tmp_path)
    before = read_manifest(tmp_path)

    full = OSError(28, "No space left on device")

    def disk_full(path, write):
        raise full

    monkeypatch.setattr(ck, "atomic_write", disk_full)
    with pytest.raises(OSError) as caught:
        save_checkpoint(new, record_of(new), tmp_path)
    assert caught.value is full
    monkeypatch.undo()
    assert journals(tmp_path) == [] and read_manifest(tmp_path) == before
    assert same_weights(load_checkpoint(path).agent, old)


def test_a_read_only_folder_still_loads_a_file_its_journal_vouches_for(
    tmp_path, monkeypatch, old, new
):
    path = save_checkpoint(old, record_of(old), tmp_path)
    killed_save(monkeypatch, tmp_path, new, "file")

    def read_only(directory, name=".lock"):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(ck, "directory_lock", read_only)
    monkeypatch.setattr(ck_manifest, "directory_lock", read_only)
    with pytest.warns(ck_manifest.ManifestWarning) as caught:
        loaded = load_checkpoint(path)
    assert [(w.message.kind, w.message.names) for w in caught] == [("not_repaired", (NAME,))]
    assert same_weights(loaded.agent, new)
    assert journals(tmp_path) == [f".{NAME}.pending"]  # left for a run that may write


KILL_SCRIPT = textwrap.dedent("""
    import os, sys
    import labcore.storage.checkpoints as ck
    from labcore.agents import build_agent

    step = sys.argv[2]
    ck._save_step_done = lambda done: os._exit(9) if done == step else None
    agent = build_agent("b1", seed=7)
    record = {"task": "dual", "kind": "b1", "seed": 0, "mode": "fast", "heldout_agreement": 0.97,
              "criterion_attainable": True, "excluded": False}
    ck.save_checkpoint(agent, record, sys.argv[1])
""")


def test_a_really_killed_process_is_repaired(tmp_path, old, new):
    path = save_checkpoint(old, record_of(old), tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, str(tmp_path), "record"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stderr
    assert journals(tmp_path) == [f".{NAME}.pending"]
    assert same_weights(load_checkpoint(path).agent, new)
    assert journals(tmp_path) == [] and verify_directory(tmp_path) == []
