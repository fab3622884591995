"""The compressed checkpoint (``NAME.safetensors.xz``, issue 33): lossless, standard, checked.

Byte planes round trip bit for bit (a property test); a saved file is an xz stream around a
safetensors file any reader opens; the same weights have the same content hash in either form;
raw files saved before still load and verify; every fault of the new form (a decompression bomb,
a truncated or corrupt stream, a foreign file, inconsistent planes) is one sentence before a
tensor is built; ``compress_directory`` rewrites a raw directory losslessly and idempotently.
Untrained agents only: nothing is trained here.
"""

from __future__ import annotations

import json
import lzma
import os
import re
import shutil
from dataclasses import asdict

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from safetensors.numpy import load as numpy_load
from safetensors.torch import save

import labcore.storage.checkpoint_container as container
import labcore.storage.checkpoint_format as ck_format
from labcore.agents import Agent, build_agent
from labcore.storage.checkpoint_container import (
    PLANES_KEY,
    StreamError,
    from_byte_planes,
    logical_tensors,
    planed,
    planes_spec,
    to_byte_planes,
    xz_compress,
)
from labcore.storage.checkpoint_format import (
    MAX_FILE_BYTES,
    checkpoint_file,
    content_hash_of,
)
from labcore.storage.checkpoint_manifest import (
    BUNDLED_DIR,
    MAX_JSON_BYTES,
    read_manifest,
    read_record,
    record_file,
    verify_directory,
)
from labcore.storage.checkpoints import compress_directory, load_checkpoint, main, save_checkpoint
from tests.agents.checkpoint_files import as_saved_before_compression, header_of, refusal

NAME = "dual-b1-s0"


def record_of(agent: Agent, seed: int = 0) -> dict:
    return {
        "task": "dual",
        "kind": agent.config.kind,
        "seed": seed,
        "mode": "fast",
        "heldout_agreement": 0.97,
        "criterion_attainable": True,
        "excluded": False,
        "curve": [0.5, 0.75, 0.97],
    }


def bits(t: torch.Tensor) -> bytes:
    return t.detach().contiguous().numpy().tobytes()


def same_weights(a: Agent, b: Agent) -> bool:
    return all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


@pytest.fixture(scope="module")
def b1() -> Agent:
    return build_agent("b1", seed=0)


@pytest.fixture(scope="module")
def b1_other() -> Agent:
    return build_agent("b1", seed=7)


def metadata_of(agent: Agent) -> dict[str, str]:
    return {
        "format": "ctlab-agent",
        "format_version": "1",
        "config": json.dumps(asdict(agent.config)),
        "seed": "0",
        "task": "dual",
        "mode": "fast",
    }


def forge_xz(path, agent: Agent, edit=None, stored_edit=None) -> None:
    """A compressed checkpoint written by hand: ``edit`` changes the byte-plane table,
    ``stored_edit`` the stored tensors, before the file is written."""
    tensors = {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}
    stored, metadata = planed(tensors, metadata_of(agent))
    if edit is not None:
        spec = json.loads(metadata[PLANES_KEY])
        text = edit(spec)  # a string replaces the whole table
        metadata[PLANES_KEY] = text if isinstance(text, str) else json.dumps(spec)
    if stored_edit is not None:
        stored_edit(stored)
    path.write_bytes(xz_compress(save(stored, metadata=metadata)))


def one_sentence(message: str) -> bool:
    return "\n" not in message and message.endswith(".") and "Traceback" not in message


@pytest.fixture()
def no_tensor_built(monkeypatch):
    """Fails the test if safetensors builds a tensor (every check before it must refuse)."""

    def refuse(blob):
        raise AssertionError("a tensor was built before the checkpoint was refused")

    monkeypatch.setattr(ck_format, "safetensors_load", refuse)


# ---------------------------------------------------------------------------- byte planes
DTYPES = [np.float16, np.float32, np.float64, np.int16, np.int32, np.int64, np.uint8]


@settings(max_examples=150, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from(DTYPES),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
        elements=None,  # every value the dtype has: NaN, inf, -0.0, subnormals
    )
)
def test_byte_planes_round_trip_bit_for_bit(array):
    tensor = torch.from_numpy(array.copy())
    planes = to_byte_planes(tensor)
    assert planes.dtype == torch.uint8
    assert list(planes.shape) == [tensor.element_size(), tensor.numel()]
    back = from_byte_planes(planes, tensor.dtype, tensor.shape)
    assert back.dtype == tensor.dtype and back.shape == tensor.shape
    assert bits(back) == bits(tensor)
    # Plane k holds byte k of every element: a numpy transpose of the little-endian bytes.
    raw = array.astype(array.dtype.newbyteorder("<")).reshape(-1).view(np.uint8)
    assert planes.numpy().tobytes() == raw.reshape(-1, array.itemsize).T.tobytes()


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text("abcxyz._", min_size=1, max_size=8),
        hnp.arrays(
            dtype=st.sampled_from([np.float32, np.float64, np.uint8, np.bool_]),
            shape=hnp.array_shapes(min_dims=1, max_dims=2, max_side=5),
        ),
        max_size=4,
    )
)
def test_a_state_dict_round_trips_through_the_inner_file(arrays):
    tensors = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}
    stored, metadata = planed(tensors, {"task": "dual"})
    assert all(stored[k].dtype == torch.uint8 or tensors[k].element_size() == 1 for k in tensors)
    metadata = dict(metadata)
    back = logical_tensors(stored, planes_spec(metadata))
    assert metadata == {"task": "dual"}
    assert set(back) == set(tensors)
    assert all(
        back[k].dtype == tensors[k].dtype and bits(back[k]) == bits(tensors[k]) for k in tensors
    )


def test_the_plane_key_is_reserved():
    with pytest.raises(ValueError, match="reserved"):
        planed({}, {PLANES_KEY: "{}"})


# ---------------------------------------------------------------------------- the container
def test_a_save_is_an_xz_stream_around_a_safetensors_file_any_reader_opens(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    assert path.name == f"{NAME}.safetensors.xz"
    inner = lzma.decompress(path.read_bytes())  # the standard library's xz, nothing of ours
    planes = numpy_load(inner)  # a plain safetensors reader
    header, _ = header_of(path)
    spec = json.loads(header["__metadata__"][PLANES_KEY])
    for name, tensor in b1.state_dict().items():
        assert planes[name].dtype == np.uint8 and planes[name].shape == (4, tensor.numel())
        assert spec[name] == {"dtype": "F32", "shape": list(tensor.shape)}
        restored = planes[name].T.copy().view(np.float32).reshape(tuple(tensor.shape))
        assert restored.tobytes() == tensor.numpy().tobytes()
    # The record: the same JSON text as a raw record, xz-compressed.
    assert json.loads(lzma.decompress((tmp_path / f"{NAME}.json.xz").read_bytes())) == record_of(b1)
    assert read_record(tmp_path, NAME) == record_of(b1)


def test_the_same_weights_have_the_same_content_hash_in_either_form(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    entry = read_manifest(tmp_path)["checkpoints"][NAME]
    compressed = content_hash_of(path)
    raw = as_saved_before_compression(tmp_path, NAME)
    assert content_hash_of(raw) == compressed == entry["content_sha256"]
    loaded = load_checkpoint(checkpoint_file(tmp_path, NAME))
    assert loaded.name == NAME and loaded.entry["file"] == raw.name
    assert same_weights(loaded.agent, b1) and verify_directory(tmp_path) == []
    assert record_file(tmp_path, NAME).name == f"{NAME}.json"


def test_a_save_over_a_raw_checkpoint_replaces_it(tmp_path, b1, b1_other):
    save_checkpoint(b1, record_of(b1), tmp_path)
    as_saved_before_compression(tmp_path, NAME)
    path = save_checkpoint(b1_other, record_of(b1_other), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(NAME)) == [
        f"{NAME}.json.xz",
        f"{NAME}.safetensors.xz",
    ]
    assert checkpoint_file(tmp_path, NAME) == path
    assert same_weights(load_checkpoint(path).agent, b1_other) and verify_directory(tmp_path) == []


def test_checkpoint_file_prefers_the_compressed_form(tmp_path):
    assert checkpoint_file(tmp_path, NAME).name == f"{NAME}.safetensors.xz"  # where a save goes
    (tmp_path / f"{NAME}.safetensors").write_bytes(b"")
    assert checkpoint_file(tmp_path, NAME).name == f"{NAME}.safetensors"
    (tmp_path / f"{NAME}.safetensors.xz").write_bytes(b"")
    assert checkpoint_file(tmp_path, NAME).name == f"{NAME}.safetensors.xz"


# ---------------------------------------------------------------------------- faults
def test_a_decompression_bomb_is_refused_as_it_decompresses(tmp_path, no_tensor_built):
    # 17 MB of zeros in a few KB; the reader stops one byte past the cap.
    path = tmp_path / f"{NAME}.safetensors.xz"
    path.write_bytes(lzma.compress(bytes(MAX_FILE_BYTES + 1), preset=0))
    assert path.stat().st_size < 100_000
    error = refusal(load_checkpoint, path)
    assert error.kind == "bomb" and str(error).startswith(path.name)
    assert f"{MAX_FILE_BYTES:,}" in str(error) and one_sentence(str(error))  # the cap, said once
    assert refusal(content_hash_of, path).kind == "bomb"  # the hash path reads the same way
    bomb = tmp_path / f"{NAME}.json.xz"
    bomb.write_bytes(lzma.compress(bytes(MAX_JSON_BYTES + 1), preset=0))
    with pytest.raises(StreamError) as caught:
        read_record(tmp_path, NAME)
    assert caught.value.kind == "bomb" and f"{MAX_JSON_BYTES:,}" in str(caught.value)


STREAM_FAULTS = {
    "truncated": lambda b: b[: len(b) // 2],
    "corrupt": lambda b: b[:1000] + bytes([b[1000] ^ 0x01]) + b[1001:],
    "trailing": lambda b: b + b"junk",
    "not_xz": lambda b: lzma.decompress(b),
}
"""A compressed checkpoint's stream broken in one way, by the StreamError kind it is."""


@pytest.mark.parametrize("case", sorted(STREAM_FAULTS))
def test_a_broken_stream_is_one_sentence(tmp_path, b1, no_tensor_built, case):
    path = tmp_path / f"{NAME}.safetensors.xz"
    forge_xz(path, b1)
    path.write_bytes(STREAM_FAULTS[case](path.read_bytes()))
    error = refusal(load_checkpoint, path, verify=False)
    assert (error.kind, error.reason) == ("corrupt", case)
    assert str(error).startswith(path.name) and one_sentence(str(error))


def test_a_stream_needing_too_much_memory_is_refused(tmp_path, b1, monkeypatch):
    path = tmp_path / f"{NAME}.safetensors.xz"
    forge_xz(path, b1)
    path.write_bytes(lzma.compress(lzma.decompress(path.read_bytes()), preset=6))  # 8 MiB dict
    monkeypatch.setattr(container, "XZ_MEMORY_LIMIT", 1 << 20)
    error = refusal(load_checkpoint, path, verify=False)
    assert (error.kind, error.reason) == ("corrupt", "memory") and "1 MiB" in str(error)


def test_a_compressed_file_over_the_cap_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / f"{NAME}.safetensors.xz"
    path.write_bytes(lzma.compress(b"x" * 5000, preset=0) + bytes(5000))
    monkeypatch.setattr(ck_format, "MAX_FILE_BYTES", 1000)
    error = refusal(load_checkpoint, path)
    assert error.kind == "too_large" and "1,000" in str(error)  # the cap


def test_a_foreign_or_oversized_inner_file_is_refused_as_a_raw_one_is(tmp_path, b1):
    foreign = tmp_path / "foreign.safetensors.xz"
    foreign.write_bytes(xz_compress(save({"w": torch.zeros(2)}, metadata={"format": "other"})))
    assert refusal(load_checkpoint, foreign).kind == "foreign"
    padded = tmp_path / "padded.safetensors.xz"
    tensors = {k: v.contiguous() for k, v in b1.state_dict().items()}
    padded.write_bytes(
        xz_compress(save(tensors, metadata={**metadata_of(b1), "pad": "x" * (1 << 20)}))
    )
    assert refusal(load_checkpoint, padded).kind == "too_large"


PLANE_FAULTS = {
    "a shape the planes do not hold": (
        lambda spec: spec["write.bias"].update(shape=[spec["write.bias"]["shape"][0] + 1]),
        None,
        ("mismatch", "write.bias"),
    ),
    "planes not bytes": (
        None,
        lambda stored: stored.update({"write.bias": stored["write.bias"].float()}),
        ("mismatch", "write.bias"),
    ),
    "planes of a tensor not in the file": (
        lambda spec: spec.update(ghost={"dtype": "F32", "shape": [1]}),
        None,
        ("missing", "ghost"),
    ),
    "a table that is not JSON": (lambda spec: "{not json", None, ("table", None)),
    "a malformed entry": (
        lambda spec: spec["write.bias"].update(shape=[2, -1]),
        None,
        ("entry", "write.bias"),
    ),
    "an unknown dtype": (
        lambda spec: spec["write.bias"].update(dtype="F8"),
        None,
        ("entry", "write.bias"),
    ),
}
"""Byte planes broken in one way: the table's or the stored planes' edit, and the PlaneError
(kind, tensor) the refusal carries."""


@pytest.mark.parametrize("case", sorted(PLANE_FAULTS))
def test_inconsistent_planes_are_refused_before_a_tensor_is_built(
    tmp_path, b1, no_tensor_built, case
):
    edit, stored_edit, (reason, tensor) = PLANE_FAULTS[case]
    path = tmp_path / f"{NAME}.safetensors.xz"
    forge_xz(path, b1, edit, stored_edit)
    error = refusal(load_checkpoint, path, verify=False)
    assert (error.kind, error.reason, error.tensor) == ("corrupt", reason, tensor)
    assert str(error).startswith(path.name) and one_sentence(str(error))


def test_planes_of_the_wrong_dtype_or_shape_are_refused_as_a_raw_tensor_is(
    tmp_path, b1, no_tensor_built
):
    # Consistent planes, but not what the config implies: the raw form's sentences.
    bias = b1.state_dict()["write.bias"]
    for name, tensor, kind in (
        ("wide", bias.double(), "dtype"),
        ("long", torch.zeros(bias.numel() + 1), "weights_mismatch"),
    ):

        def swap(stored, tensor=tensor):
            stored["write.bias"] = to_byte_planes(tensor)

        def record(spec, tensor=tensor):
            spec["write.bias"] = {
                "dtype": container.DTYPE_NAMES[tensor.dtype],
                "shape": list(tensor.shape),
            }

        path = tmp_path / f"{name}.safetensors.xz"
        forge_xz(path, b1, record, swap)
        error = refusal(load_checkpoint, path, verify=False)
        assert (error.kind, error.tensor) == (kind, "write.bias")


def test_non_finite_weights_are_refused_in_the_compressed_form(tmp_path, b1):
    path = tmp_path / f"{NAME}.safetensors.xz"

    def poison(stored):
        stored["write.bias"][:, 0] = torch.tensor([0, 0, 0xC0, 0x7F], dtype=torch.uint8)  # NaN

    forge_xz(path, b1, stored_edit=poison)
    error = refusal(load_checkpoint, path, verify=False)
    assert (error.kind, error.tensor) == ("non_finite", "write.bias")


# ---------------------------------------------------------------------------- compress_directory
@pytest.fixture()
def raw_directory(tmp_path, b1, b1_other):
    """A directory as saved before issue 33: two raw checkpoints, raw records, a manifest."""
    for agent, seed in ((b1, 0), (b1_other, 1)):
        save_checkpoint(agent, record_of(agent, seed), tmp_path)
        as_saved_before_compression(tmp_path, f"dual-b1-s{seed}")
    return tmp_path


def test_compress_directory_is_lossless_and_idempotent(raw_directory, capsys):
    before = read_manifest(raw_directory)["checkpoints"]
    records = {n: (raw_directory / f"{n}.json").read_bytes() for n in before}
    weights = {n: load_checkpoint(raw_directory / e["file"]).agent for n, e in before.items()}
    assert main(["compress", str(raw_directory)]) == 0
    said = capsys.readouterr().out.removeprefix(f"{raw_directory}: ")
    assert [int(n) for n in re.findall(r"\d+", said)] == [2, 2, 0]  # checkpoints, records, problems
    after = read_manifest(raw_directory)["checkpoints"]
    assert sorted(p.name for p in raw_directory.iterdir() if not p.name.startswith(".")) == [
        "dual-b1-s0.json.xz",
        "dual-b1-s0.safetensors.xz",
        "dual-b1-s1.json.xz",
        "dual-b1-s1.safetensors.xz",
        "manifest.json",
    ]
    for name, entry in after.items():
        assert entry["content_sha256"] == before[name]["content_sha256"]
        assert entry["file"] == f"{name}.safetensors.xz"
        assert entry["bytes"] == os.path.getsize(raw_directory / entry["file"])
        assert {k: v for k, v in entry.items() if k not in ("file", "sha256", "bytes")} == {
            k: v for k, v in before[name].items() if k not in ("file", "sha256", "bytes")
        }
        assert lzma.decompress((raw_directory / f"{name}.json.xz").read_bytes()) == records[name]
        assert all(
            bits(a) == bits(b)
            for a, b in zip(
                weights[name].state_dict().values(),
                load_checkpoint(raw_directory / entry["file"]).agent.state_dict().values(),
                strict=True,
            )
        )
    assert verify_directory(raw_directory) == []
    again = compress_directory(raw_directory)
    assert (again.checkpoints, again.records, again.problems) == ([], [], [])
    assert read_manifest(raw_directory)["checkpoints"] == after


def test_compress_directory_finishes_a_run_killed_halfway(raw_directory, tmp_path_factory):
    done = tmp_path_factory.mktemp("done")
    for path in raw_directory.iterdir():
        shutil.copy(path, done)
    compress_directory(done)
    # Killed after writing the compressed file, before the manifest (which names the raw one):
    # the compressed file is the one found, and it loads against the raw file's entry.
    shutil.copy(done / "dual-b1-s0.safetensors.xz", raw_directory)
    loaded = load_checkpoint(checkpoint_file(raw_directory, "dual-b1-s0"))
    assert loaded.entry["file"] == "dual-b1-s0.safetensors"
    # Killed after the manifest, before the raw files went: the next run removes them.
    for stale in ("dual-b1-s1.safetensors", "dual-b1-s1.json"):
        shutil.copy(raw_directory / stale, done)
    finished = compress_directory(done)
    assert (finished.checkpoints, finished.records, finished.problems) == ([], ["dual-b1-s1"], [])
    assert not (done / "dual-b1-s1.safetensors").exists() and verify_directory(done) == []
    again = compress_directory(raw_directory)
    assert again.checkpoints == ["dual-b1-s0", "dual-b1-s1"] and not again.problems
    hashes = [
        {n: e["content_sha256"] for n, e in read_manifest(d)["checkpoints"].items()}
        for d in (raw_directory, done)
    ]
    assert hashes[0] == hashes[1]
    assert verify_directory(raw_directory) == []


def test_compress_directory_leaves_a_file_that_fails_its_entry(raw_directory):
    name = "dual-b1-s1"
    raw = raw_directory / f"{name}.safetensors"
    blob = bytearray(raw.read_bytes())
    blob[-8] ^= 0x01
    raw.write_bytes(bytes(blob))
    done = compress_directory(raw_directory)
    assert done.checkpoints == ["dual-b1-s0"] and done.records == ["dual-b1-s0"]
    assert [(p.name, p.kind) for p in done.problems] == [(name, "manifest_mismatch")]
    assert raw.exists() and (raw_directory / f"{name}.json").exists()
    assert read_manifest(raw_directory)["checkpoints"][name]["file"] == raw.name


# ---------------------------------------------------------------------------- the bundle
def test_the_bundled_agents_are_compressed_within_the_budget():
    entries = read_manifest(BUNDLED_DIR)["checkpoints"]
    assert all(e["file"] == f"{n}.safetensors.xz" for n, e in entries.items())
    assert all(record_file(BUNDLED_DIR, n).name == f"{n}.json.xz" for n in entries)
    assert not list(BUNDLED_DIR.glob("*.safetensors")) and not list(BUNDLED_DIR.glob("*-s*.json"))
    assert sum(p.stat().st_size for p in BUNDLED_DIR.iterdir()) < 30_000_000  # issue 33's budget
    sample = checkpoint_file(BUNDLED_DIR, "wagering-b2_ws-s0")
    assert content_hash_of(sample) == entries["wagering-b2_ws-s0"]["content_sha256"]
