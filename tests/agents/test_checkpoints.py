"""Checkpoints: plain safetensors files that round-trip an agent, list a folder, and are written
atomically; the bundled ones verify."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

import labcore.envs as E
from labcore import LabWarning
from labcore.agents import build_agent
from labcore.envs.batch import oracle_demonstrations
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    CheckpointError,
    checkpoint_file,
    content_sha256,
    load_checkpoint,
    read_manifest,
    read_record,
    save_checkpoint,
    verify_directory,
)
from tests.agents.checkpoint_files import flip_weight_byte, header_of, refusal
from tests.agents.demo_tensors import DemoTensors

ROOT = Path(__file__).resolve().parents[2]
NAME = "dual-b1-s0"


def record_of(agent, seed: int = 0, agreement: float = 0.97, **extra) -> dict:
    return {
        "task": "dual",
        "kind": agent.config.kind,
        "seed": seed,
        "mode": "fast",
        "heldout_agreement": agreement,
        "criterion_attainable": True,
        "excluded": False,
        "train_config": {"train_episodes": 10},
        **extra,
    }


def same_weights(a, b) -> bool:
    return all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


@pytest.fixture(scope="module")
def old():
    return build_agent("b1", seed=0)


@pytest.fixture(scope="module")
def new():
    """Other weights for the same checkpoint name (a retrained seed)."""
    return build_agent("b1", seed=7)


@pytest.fixture()
def saved(tmp_path, e1_agent):
    path = save_checkpoint(e1_agent.agent, e1_agent.record, tmp_path)
    return tmp_path, path


# ---------------------------------------------------------------------------- the file
def test_round_trip_gives_the_same_agent_and_record(saved, e1_agent):
    directory, path = saved
    assert path.name == "wagering-b2_ws-s0.safetensors"
    loaded = load_checkpoint(path)
    assert (loaded.task, loaded.seed, loaded.mode) == ("wagering", 0, "fast")
    assert loaded.agent.config == e1_agent.agent.config
    assert same_weights(loaded.agent, e1_agent.agent)
    demos = DemoTensors.from_demonstrations(oracle_demonstrations(E.WAGERING, range(5)))
    e1_agent.agent.eval()
    assert torch.equal(
        e1_agent.agent.forward_sequence(demos.obs).logits,
        loaded.agent.forward_sequence(demos.obs).logits,
    )
    # The whole record comes back, its learning curve (a list of dicts) included.
    assert read_record(directory, "wagering-b2_ws-s0") == json.loads(json.dumps(e1_agent.record))
    assert e1_agent.record["history"] and isinstance(e1_agent.record["history"][0], dict)
    entry = read_manifest(directory)["checkpoints"]["wagering-b2_ws-s0"]
    assert loaded.entry == entry and entry["kind"] == "b2_ws" and entry["seed"] == 0
    assert not any(p.requires_grad for p in loaded.agent.parameters())  # frozen


def test_safetensors_alone_opens_a_checkpoint(saved, e1_agent):
    directory, path = saved
    with safe_open(path, "pt") as f:
        metadata = f.metadata()
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    assert tensors.keys() == e1_agent.agent.state_dict().keys()
    assert all(t.dtype == torch.float32 for t in tensors.values())
    assert json.loads(metadata["config"]) == json.loads(json.dumps(asdict(e1_agent.agent.config)))
    record = json.loads(metadata["record"])
    assert record["heldout_agreement"] == e1_agent.record["heldout_agreement"]
    # A learning curve is stored as a table: its column names once, not once per row.
    history = record["history"]
    assert set(history) == {"columns", "data"}
    assert len(history["data"]) == len(e1_agent.record["history"])
    assert metadata["content_sha256"] == content_sha256(tensors, metadata)
    assert sorted(p.name for p in directory.iterdir()) == [path.name]  # no index, lock or temp


def test_the_readme_opens_a_bundled_checkpoint_in_five_lines(monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (BUNDLED_DIR / "README.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len([line for line in code.splitlines() if line.strip()]) <= 5
    scope: dict = {}
    exec(code, scope)  # the README's own snippet, run from the lab's root
    loaded = load_checkpoint(checkpoint_file(BUNDLED_DIR, "dual-b1-s0"))
    assert scope["weights"].keys() == loaded.agent.state_dict().keys()
    assert all(torch.equal(scope["weights"][k], v) for k, v in loaded.agent.state_dict().items())
    assert scope["config"]["kind"] == "b1" and scope["record"]["seed"] == 0


def test_a_learning_curve_is_a_table_only_when_its_rows_share_their_keys(tmp_path, old):
    uneven = [{"update": 1, "loss": 0.5}, {"update": 2}]
    even = [{"update": 1, "loss": 0.5}, {"update": 2, "loss": float("nan")}]
    path = save_checkpoint(old, record_of(old, uneven=uneven, even=even, empty=[]), tmp_path)
    stored = json.loads(header_of(path)[0]["__metadata__"]["record"])
    assert stored["uneven"] == uneven and stored["empty"] == []
    assert stored["even"]["columns"] == ["update", "loss"]
    back = read_record(tmp_path, NAME)
    assert back["uneven"] == uneven and back["even"][0] == even[0]
    assert back["even"][1]["loss"] != back["even"][1]["loss"]  # NaN survives


# ---------------------------------------------------------------------------- bad files
@pytest.mark.parametrize("cut", ["data", "header"])
def test_a_truncated_file_is_refused(saved, cut):
    directory, path = saved
    blob = path.read_bytes()
    n = int.from_bytes(blob[:8], "little")
    bad = directory / f"cut-{cut}.safetensors"
    bad.write_bytes(blob[: 8 + n + 100] if cut == "data" else blob[: 8 + n // 2])
    error = refusal(load_checkpoint, bad)
    assert error.kind == "corrupt" and str(error).startswith(bad.name)


def test_a_changed_weight_fails_the_content_hash_inside_the_file(saved):
    directory, path = saved
    flip_weight_byte(path, -5)
    assert refusal(load_checkpoint, path).kind == "hash_mismatch"
    assert [(p.name, p.kind) for p in verify_directory(directory)] == [
        ("wagering-b2_ws-s0", "hash_mismatch")
    ]
    assert load_checkpoint(path, verify=False).seed == 0  # the structure is still sound


def test_garbage_and_pickles_are_refused_without_executing(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    pickle_path = tmp_path / "evil.safetensors"
    torch.save({"x": Evil()}, pickle_path)
    assert refusal(load_checkpoint, pickle_path).kind in ("corrupt", "too_large")
    assert not marker.exists()
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x00" * 3)
    assert refusal(load_checkpoint, junk).kind == "corrupt"
    assert refusal(load_checkpoint, tmp_path / "missing.safetensors").kind == "missing"
    assert refusal(load_checkpoint, tmp_path / "weights.pt").kind == "not_a_checkpoint"


def test_foreign_and_future_files_are_refused(tmp_path, old):
    foreign = tmp_path / "foreign.safetensors"
    save_file({"w": torch.zeros(2)}, str(foreign), metadata={"format": "someone-else"})
    assert refusal(load_checkpoint, foreign).kind == "foreign"
    no_metadata = tmp_path / "bare.safetensors"
    save_file({"w": torch.zeros(2)}, str(no_metadata))
    assert refusal(load_checkpoint, no_metadata).kind == "corrupt"
    tensors = {k: v.contiguous() for k, v in old.state_dict().items()}
    future = tmp_path / "future.safetensors"
    save_file(
        tensors,
        str(future),
        metadata={"format": "ctlab-agent", "format_version": "99", "config": "{}", "seed": "0"},
    )
    error = refusal(load_checkpoint, future)
    assert error.kind == "format_version" and "v99" in str(error)


def test_a_header_length_past_the_cap_is_refused_before_reading_it(tmp_path):
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes((2**40).to_bytes(8, "little") + b"{}")
    assert refusal(load_checkpoint, huge).kind == "too_large"


def test_song_et_als_plain_gru_round_trips(tmp_path):
    """Protocol 8.7's networks are checkpoints like every agent: the file names its network
    (``network`` = plain_gru), loaded with every check."""
    from labcore.agents.plain import PlainGRUConfig, PlainGRUPolicy

    net = PlainGRUPolicy(PlainGRUConfig(value_head=True), seed=3)
    record = {**record_of(net, seed=3), "task": "neurogym"}
    path = save_checkpoint(net, record, tmp_path, name="pdw-O-plus-entropy-plain_gru-reward-s3")
    loaded = load_checkpoint(path)
    assert isinstance(loaded.agent, PlainGRUPolicy) and loaded.agent.config == net.config
    assert same_weights(loaded.agent, net) and loaded.entry["kind"] == "plain_gru"
    assert header_of(path)[0]["__metadata__"]["network"] == "plain_gru"
    tensors = {k: v.contiguous() for k, v in net.state_dict().items()}
    for config, field in (
        ({"kind": "plain_gru", "hidden_dim": 5000}, "hidden_dim"),
        ({"kind": "b2_ws"}, "kind"),
        ({"kind": "plain_gru", "value_head": "yes"}, "value_head"),
    ):
        bad = tmp_path / "bad.safetensors"
        metadata = {"format": "ctlab-agent", "format_version": "1", "task": "neurogym"}
        metadata |= {"seed": "0", "mode": "fast", "config": json.dumps(config)}
        save_file(tensors, str(bad), metadata={**metadata, "network": "plain_gru"})
        error = refusal(load_checkpoint, bad, verify=False)
        assert error.field == field and error.kind.startswith("config")


# ---------------------------------------------------------------------------- writing
def test_a_failed_write_leaves_the_old_file_and_nothing_else(tmp_path, monkeypatch, old, new):
    path = save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    full = OSError(28, "No space left on device")

    def disk_full(*args, **kwargs):
        raise full

    monkeypatch.setattr("labcore.io.os.replace", disk_full)
    with pytest.raises(OSError) as caught:
        save_checkpoint(new, record_of(new), tmp_path)
    assert caught.value is full  # the disk's own error, not a wrapped one
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the temporary file is gone
    assert same_weights(load_checkpoint(path).agent, old)
    assert read_record(tmp_path, NAME)["heldout_agreement"] == 0.96


KILL_SCRIPT = textwrap.dedent("""
    import os, sys
    import labcore.io
    from labcore.agents import build_agent
    from labcore.storage.checkpoints import save_checkpoint

    labcore.io.os.replace = lambda *args: os._exit(9)  # killed just before the rename
    agent = build_agent("b1", seed=7)
    record = {"task": "dual", "kind": "b1", "seed": 0, "mode": "fast", "heldout_agreement": 0.97,
              "criterion_attainable": True, "excluded": False}
    save_checkpoint(agent, record, sys.argv[1])
""")


def test_a_killed_save_leaves_the_old_checkpoint_whole(tmp_path, old):
    path = save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stderr
    assert same_weights(load_checkpoint(path).agent, old)
    assert list(read_manifest(tmp_path)["checkpoints"]) == [NAME]  # the debris is not listed
    assert verify_directory(tmp_path) == []


def test_a_resave_replaces_weights_and_record_together(tmp_path, old, new):
    path = save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    first = read_manifest(tmp_path)["checkpoints"][NAME]
    assert save_checkpoint(new, record_of(new), tmp_path) == path
    entry = read_manifest(tmp_path)["checkpoints"][NAME]
    assert entry["heldout_agreement"] == 0.97 and entry["content_sha256"] != first["content_sha256"]
    assert same_weights(load_checkpoint(path).agent, new)
    # The same weights saved again have the same content hash (the record is not part of it).
    save_checkpoint(new, record_of(new, agreement=0.5), tmp_path)
    assert read_manifest(tmp_path)["checkpoints"][NAME]["content_sha256"] == entry["content_sha256"]


def test_a_symbolic_link_is_neither_read_nor_written_through(tmp_path, old):
    real = save_checkpoint(old, record_of(old), tmp_path / "elsewhere")
    original = real.read_bytes()
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / f"{NAME}.safetensors").symlink_to(real)
    assert refusal(load_checkpoint, folder / f"{NAME}.safetensors").kind == "symlink"
    assert refusal(save_checkpoint, old, record_of(old), folder).kind == "symlink"
    assert real.read_bytes() == original
    problems: dict[str, str] = {}
    assert read_manifest(folder, problems=problems)["checkpoints"] == {} and NAME in problems


# ---------------------------------------------------------------------------- folders
def test_a_folder_is_listed_from_its_files(tmp_path, old, new):
    assert read_manifest(tmp_path / "none")["checkpoints"] == {}
    save_checkpoint(old, record_of(old, agreement=0.96), tmp_path)
    save_checkpoint(new, {**record_of(new, seed=1), "excluded": True}, tmp_path)
    entries = read_manifest(tmp_path)["checkpoints"]
    assert {n: (e["seed"], e["heldout_agreement"], e["excluded"]) for n, e in entries.items()} == {
        "dual-b1-s0": (0, 0.96, False),
        "dual-b1-s1": (1, 0.97, True),
    }
    checkpoint_file(tmp_path, "dual-b1-s1").unlink()
    assert list(read_manifest(tmp_path)["checkpoints"]) == [NAME]


def test_a_file_that_cannot_be_listed_is_left_out_with_its_sentence(tmp_path, old):
    save_checkpoint(old, record_of(old), tmp_path)
    save_file({"w": torch.zeros(2)}, str(tmp_path / "foreign.safetensors"), metadata={"a": "b"})
    (tmp_path / "notes.txt").write_text("not a checkpoint")  # other files are not looked at
    with pytest.warns(LabWarning) as caught:
        assert list(read_manifest(tmp_path)["checkpoints"]) == [NAME]
    assert "foreign.safetensors" in str(caught[0].message)  # the file left out is named
    problems: dict[str, str] = {}
    read_manifest(tmp_path, problems=problems)
    assert list(problems) == ["foreign"] and problems["foreign"].startswith("foreign.safetensors")


RECORD_PROBLEMS = {
    "no record": None,
    "no excluded": lambda r: {k: v for k, v in r.items() if k != "excluded"},
    "excluded as text": lambda r: {**r, "excluded": "no"},
    "a list": lambda r: [r],
}
"""A record a listing cannot use, each in one way."""


@pytest.mark.parametrize("case", sorted(RECORD_PROBLEMS))
def test_a_file_whose_record_a_listing_cannot_use_is_left_out(tmp_path, old, case):
    tensors = {k: v.contiguous() for k, v in old.state_dict().items()}
    metadata = {"format": "ctlab-agent", "format_version": "1", "task": "dual", "seed": "0"}
    metadata |= {"mode": "fast", "config": json.dumps(asdict(old.config))}
    metadata["content_sha256"] = content_sha256(tensors, metadata)
    if edit := RECORD_PROBLEMS[case]:
        metadata["record"] = json.dumps(edit(record_of(old)))
    save_file(tensors, str(tmp_path / f"{NAME}.safetensors"), metadata=metadata)
    problems: dict[str, str] = {}
    assert read_manifest(tmp_path, problems=problems)["checkpoints"] == {}
    assert list(problems) == [NAME]
    assert load_checkpoint(tmp_path / f"{NAME}.safetensors").entry is None  # the weights load
    assert [(p.name, p.kind) for p in verify_directory(tmp_path)] == [(NAME, "record")]


def test_the_bundled_agents_verify_and_keep_their_content_hashes():
    entries = read_manifest(BUNDLED_DIR)["checkpoints"]
    # E1-E3's 60, E4's first five reward-trained arms and E4 again's four cells, and the measured
    # dissociations' three kinds (protocol 11), 5 seeds each.
    assert len(entries) == 60 + 25 + 20 + 15
    assert verify_directory(BUNDLED_DIR) == []
    assert sorted(p.name for p in BUNDLED_DIR.iterdir() if not p.name.endswith(".safetensors")) == [
        "README.md"
    ]
    # The view cache (results/view_cache/) is keyed by these hashes.
    from labcore import view_cache

    for name in ("wagering-b2_ws-s0", "dual-b2_ws-s3"):
        path = checkpoint_file(BUNDLED_DIR, name)
        key = view_cache.checkpoint_key(path)
        assert key == entries[name]["content_sha256"]
        assert view_cache.read_cache(view_cache.cache_path(path), key)  # a hit, not a CacheMiss


def test_refusals_survive_pickling():
    import pickle

    error = CheckpointError("bad", "dtype", tensor="w", field="f")
    back = pickle.loads(pickle.dumps(error))
    assert (str(back), back.kind, back.tensor, back.field) == ("bad", "dtype", "w", "f")
