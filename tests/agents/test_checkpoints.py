"""Checkpoints: round trip, manifest integrity, atomic writes, clear rejection of bad files."""

from __future__ import annotations

import json
import struct

import pytest
import torch
from safetensors.torch import save_file

import labcore.envs as E
from labcore.envs.batch import oracle_demonstrations
from labcore.storage.checkpoint_format import CheckpointError
from labcore.storage.checkpoint_manifest import (
    MANIFEST,
    find_checkpoints,
    read_manifest,
    read_record,
    sha256_of,
    verify_directory,
)
from labcore.storage.checkpoints import load_checkpoint, save_checkpoint
from labcore.training.demonstrations import DemoTensors
from tests.agents.checkpoint_files import flip_weight_byte, inner_of, refusal, write_inner


@pytest.fixture()
def saved(tmp_path, e1_agent):
    path = save_checkpoint(e1_agent.agent, e1_agent.record, tmp_path)
    return tmp_path, path


def test_round_trip_gives_the_same_agent(saved, e1_agent):
    directory, path = saved
    assert path.name == "wagering-b2_ws-s0.safetensors.xz"
    loaded = load_checkpoint(path)
    assert (
        loaded.task == "wagering"
        and loaded.seed == 0
        and loaded.agent.config == e1_agent.agent.config
    )
    for (k, a), (k2, b) in zip(
        e1_agent.agent.state_dict().items(), loaded.agent.state_dict().items(), strict=True
    ):
        assert k == k2 and torch.equal(a, b)
    demos = DemoTensors.from_demonstrations(oracle_demonstrations(E.WAGERING, range(5)))
    e1_agent.agent.eval()
    assert torch.equal(
        e1_agent.agent.forward_sequence(demos.obs).logits,
        loaded.agent.forward_sequence(demos.obs).logits,
    )
    record = read_record(directory, "wagering-b2_ws-s0")
    assert record["seed"] == 0 and "heldout_agreement" in record and "wall_seconds" in record
    entry = read_manifest(directory)["checkpoints"]["wagering-b2_ws-s0"]
    assert (
        entry["sha256"] == sha256_of(path)
        and entry["content_sha256"] == loaded.entry["content_sha256"]
    )
    assert find_checkpoints(directory, task="wagering", kind="b2_ws")[0][0] == "wagering-b2_ws-s0"
    assert verify_directory(directory) == []
    # Loaded agents are frozen: nothing can train them by accident.
    assert not any(p.requires_grad for p in loaded.agent.parameters())


def test_no_temporary_files_are_left_behind(saved):
    directory, _ = saved
    assert sorted(
        p.name for p in directory.iterdir() if not p.name.startswith(".manifest.lock")
    ) == [MANIFEST, "wagering-b2_ws-s0.json.xz", "wagering-b2_ws-s0.safetensors.xz"]


def test_failed_write_leaves_nothing(tmp_path, e1_agent, monkeypatch):
    import labcore.storage.checkpoints as ck

    full = OSError(28, "No space left on device")

    def boom(*args, **kwargs):
        raise full

    monkeypatch.setattr(ck, "safetensors_save", boom)
    with pytest.raises(OSError) as caught:
        save_checkpoint(e1_agent.agent, e1_agent.record, tmp_path)
    assert caught.value is full  # the disk's own error, not a wrapped one
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".safetensors", ".safetensors.xz"])
def test_truncated_file_is_rejected(saved, suffix):
    # The safetensors file cut (raw, or inside an intact xz stream): the inner file's check.
    directory, path = saved
    data = inner_of(path)
    bad = directory / f"cut{suffix}"
    write_inner(bad, data[: len(data) // 2])
    error = refusal(load_checkpoint, bad)
    assert error.kind == "corrupt" and str(error).startswith(bad.name)


def test_changed_file_fails_its_manifest_hash(saved):
    directory, path = saved
    flip_weight_byte(path, -5)
    assert refusal(load_checkpoint, path).kind == "manifest_mismatch"
    assert [(p.name, p.kind) for p in verify_directory(directory)] == [
        ("wagering-b2_ws-s0", "manifest_mismatch")
    ]


def test_garbage_and_pickles_are_rejected_without_executing(tmp_path):
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


def test_foreign_and_future_files_are_rejected(tmp_path, e1_agent):
    foreign = tmp_path / "foreign.safetensors"
    save_file({"w": torch.zeros(2)}, str(foreign), metadata={"format": "someone-else"})
    assert refusal(load_checkpoint, foreign).kind == "foreign"
    tensors = {k: v.contiguous() for k, v in e1_agent.agent.state_dict().items()}
    future = tmp_path / "future.safetensors"
    save_file(
        tensors,
        str(future),
        metadata={"format": "ctlab-agent", "format_version": "99", "config": "{}", "seed": "0"},
    )
    error = refusal(load_checkpoint, future)
    assert error.kind == "format_version" and "v99" in str(error)
    wrong = tmp_path / "wrong.safetensors"
    cfg = json.dumps({"kind": "b1", "n_slots": 8})
    save_file(
        tensors,
        str(wrong),
        metadata={"format": "ctlab-agent", "format_version": "1", "config": cfg, "seed": "0"},
    )
    assert refusal(load_checkpoint, wrong).kind == "weights_mismatch"
    bad_cfg = tmp_path / "badcfg.safetensors"
    save_file(
        tensors,
        str(bad_cfg),
        metadata={
            "format": "ctlab-agent",
            "format_version": "1",
            "config": json.dumps({"wings": 2}),
            "seed": "0",
        },
    )
    error = refusal(load_checkpoint, bad_cfg)
    assert error.kind == "config" and "wings" in str(error)  # the unknown field is named


def test_corrupt_manifest_is_a_clear_error(saved):
    directory, path = saved
    (directory / MANIFEST).write_text("{not json")
    error = refusal(load_checkpoint, path)
    assert error.kind == "manifest" and MANIFEST in str(error)


def test_header_length_field_is_sanity_checked(tmp_path):
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**40) + b"{}")
    assert refusal(load_checkpoint, huge).kind == "too_large"


def test_song_et_als_plain_gru_round_trips_through_the_manifest(tmp_path):
    """Protocol 8.7's networks are checkpoints like every agent: saved through the manifest, loaded
    with every check, the file names its network (``network`` = plain_gru)."""
    from labcore.agents.plain import PlainGRUConfig, PlainGRUPolicy
    from labcore.storage.checkpoint_format import NETWORK_KEY, PLAIN_GRU

    net = PlainGRUPolicy(PlainGRUConfig(value_head=True), seed=3)
    record = {
        "task": "neurogym",
        "kind": "plain_gru",
        "seed": 3,
        "mode": "fast",
        "heldout_agreement": 0.5,
        "criterion_attainable": True,
        "excluded": False,
    }
    path = save_checkpoint(net, record, tmp_path, name="pdw-O-plus-entropy-plain_gru-reward-s3")
    loaded = load_checkpoint(path)
    assert isinstance(loaded.agent, PlainGRUPolicy) and loaded.agent.config == net.config
    assert all(
        torch.equal(a, b)
        for a, b in zip(net.state_dict().values(), loaded.agent.state_dict().values(), strict=True)
    )
    assert loaded.entry["kind"] == "plain_gru" and verify_directory(tmp_path) == []
    assert not any(p.requires_grad for p in loaded.agent.parameters())
    tensors = {k: v.contiguous() for k, v in net.state_dict().items()}
    for config, why in (
        ({"kind": "plain_gru", "hidden_dim": 5000}, "hidden_dim must be an integer in 1..1024"),
        ({"kind": "b2_ws"}, "a plain GRU's kind must be 'plain_gru'"),
        ({"kind": "plain_gru", "value_head": "yes"}, "value_head must be true or false"),
    ):
        bad = tmp_path / "bad.safetensors"
        save_file(
            tensors,
            str(bad),
            metadata={
                "format": "ctlab-agent",
                "format_version": "1",
                "config": json.dumps(config),
                "seed": "0",
                NETWORK_KEY: PLAIN_GRU,
            },
        )
        with pytest.raises(CheckpointError, match=why):
            load_checkpoint(bad, verify=False)
