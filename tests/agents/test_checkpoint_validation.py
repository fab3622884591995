"""Checkpoints under hostile input: stored configs, metadata, headers, dtypes, shapes, paths and
content hashes. Each is refused with one sentence before any tensor is built.

Every file here is built by hand (untrained agents, forged headers), so nothing is trained.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields, replace

import pytest
import torch
from safetensors.torch import save_file

import labcore.storage.checkpoints as ck
from labcore.agents import Agent, build_agent
from labcore.agents.plain import PlainGRUConfig
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    CONFIG_INT_CAPS,
    MAX_HEADER_BYTES,
    MAX_PARAMETERS,
    checkpoint_file,
    checkpoint_name,
    content_sha256,
    load_checkpoint,
    read_manifest,
    save_checkpoint,
    verify_directory,
)
from tests.agents.checkpoint_files import flip_weight_byte, header_of, raw_file, refusal


def record_of(agent: Agent, seed: int = 0, task: str = "dual") -> dict:
    return {
        "task": task,
        "kind": agent.config.kind,
        "seed": seed,
        "mode": "fast",
        "heldout_agreement": 0.5,
        "criterion_attainable": True,
        "excluded": False,
        "train_config": {"train_episodes": 10},
    }


def tensors_of(agent: Agent) -> dict[str, torch.Tensor]:
    return {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}


def forge(path, tensors, config: dict, *, embed_hash: bool = False, **extra) -> None:
    """A checkpoint written without save_checkpoint's checks (config given as a dict)."""
    metadata = {
        "format": "ctlab-agent",
        "format_version": "1",
        "config": json.dumps(config),
        "seed": "0",
        "task": "dual",
        "mode": "fast",
        **extra,
    }
    if embed_hash:
        metadata["content_sha256"] = content_sha256(tensors, metadata)
    save_file(tensors, str(path), metadata=metadata)


@pytest.fixture(scope="module")
def b1() -> Agent:
    return build_agent("b1", seed=0)


@pytest.fixture()
def no_real_build(monkeypatch):
    """Fails the test if an Agent is built anywhere but on the meta device (which allocates
    nothing)."""
    built = []

    def spy(config, seed=0):
        built.append(torch.get_default_device().type)
        if built[-1] != "meta":
            raise AssertionError("an agent was built before the checkpoint was validated")
        return Agent(config, seed=seed)

    # The layout check (on the meta device) and the load both build through build_network.
    monkeypatch.setattr(ck, "Agent", spy)
    return built


# ---------------------------------------------------------------------------- stored config
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("embed_dim", "151"),
        ("embed_dim", 151.0),
        ("n_slots", True),
        ("recurrent", 1),
        ("readout_gain", "1"),
        ("readout_gain", float("inf")),
        ("dropout", float("nan")),
        ("kind", 3),
    ],
)
def test_config_fields_must_have_their_own_type(tmp_path, b1, no_real_build, field, value):
    path = tmp_path / "typed.safetensors"
    forge(path, tensors_of(b1), {**asdict(b1.config), field: value})
    error = refusal(load_checkpoint, path)
    assert (error.kind, error.field) == ("config", field)
    assert str(error).startswith(path.name)  # the sentence names the file
    assert no_real_build == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("hidden_dim", 0),
        ("hidden_dim", -64),
        ("n_slots", CONFIG_INT_CAPS["n_slots"] + 1),
        ("embed_dim", CONFIG_INT_CAPS["embed_dim"] + 1),
        ("slot_dim", 10**12),
    ],
)
def test_config_integers_are_bounded_before_anything_is_built(
    tmp_path, b1, no_real_build, field, value
):
    # 10**12 slots of width would ask for terabytes: refused from the header, nothing built.
    path = tmp_path / "huge.safetensors"
    forge(path, tensors_of(b1), {**asdict(b1.config), field: value})
    error = refusal(load_checkpoint, path)
    assert (error.kind, error.field) == ("config_range", field)
    assert str(value) in str(error)  # the sentence gives the value refused
    assert no_real_build == []


def test_parameter_cap_is_checked_on_the_meta_device(tmp_path, b1, no_real_build):
    # Every field within its cap, but together over MAX_PARAMETERS: only a meta model is built.
    config = {
        **asdict(b1.config),
        "kind": "bc_mlp",
        "bottleneck": "mlp",
        "n_slots": 64,
        "slot_dim": 1024,
    }
    path = tmp_path / "wide.safetensors"
    forge(path, tensors_of(b1), config)
    error = refusal(load_checkpoint, path)
    assert error.kind == "too_many_weights" and f"{MAX_PARAMETERS:,}" in str(error)
    assert no_real_build == ["meta"]


def test_every_integer_config_field_has_a_cap_well_above_the_bundled_agents():
    int_fields = {
        f.name
        for config in (AgentConfig(), PlainGRUConfig())
        for f in fields(config)
        if type(getattr(config, f.name)) is int
    }
    assert set(CONFIG_INT_CAPS) == int_fields
    for name in read_manifest(BUNDLED_DIR)["checkpoints"]:
        header, _ = header_of(checkpoint_file(BUNDLED_DIR, name))
        config = json.loads(header["__metadata__"]["config"])
        assert all(config.get(f, 1) * 4 <= cap for f, cap in CONFIG_INT_CAPS.items())
        numbers = sum(
            torch.Size(e["shape"]).numel() for k, e in header.items() if k != "__metadata__"
        )
        assert numbers * 10 < MAX_PARAMETERS


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("b2.layernorm-open-g1", {}),
        (
            "b2_ws.raw-closed-g10",
            {"write_geometry": "raw", "closed_loop": True, "readout_gain": 10.0},
        ),
        ("b1.offset-open-g0.5", {"write_geometry": "offset", "readout_gain": 0.5}),
    ],
)
def test_design_study_kinds_round_trip(tmp_path, kind, changes):
    config = replace(AGENT_KINDS[kind.split(".")[0]], kind=kind, **changes)
    agent = build_agent(config, seed=2)
    path = save_checkpoint(agent, record_of(agent, seed=2), tmp_path)
    assert path.name == f"{checkpoint_name('dual', kind, 2)}.safetensors"
    loaded = load_checkpoint(path)
    assert loaded.agent.config == config
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            agent.state_dict().values(), loaded.agent.state_dict().values(), strict=True
        )
    )


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("zz", {}),  # no such kind
        ("b9.layernorm-open-g1", {}),  # a design cell of no such kind
        ("b2.raw-open-g1", {}),  # a design cell the config does not have
        ("b2.layernorm-closed-g1", {}),
        ("b2.layernorm-open-g10", {"readout_gain": 1.5}),
    ],
)
def test_unknown_or_inconsistent_kinds_are_refused(tmp_path, kind, changes):
    config = replace(AGENT_KINDS["b2"], kind=kind, **changes)
    agent = Agent(config)
    path = tmp_path / "kind.safetensors"
    forge(path, tensors_of(agent), asdict(config))
    loaded = refusal(load_checkpoint, path)
    saved = refusal(save_checkpoint, agent, record_of(agent), tmp_path / "out", name="kind")
    for error in (loaded, saved):
        assert (error.kind, error.field) == ("config_kind", "kind") and repr(kind) in str(error)
    assert not (tmp_path / "out").exists()  # refused before anything was written


# ---------------------------------------------------------------------------- header and tensors
def test_a_header_over_the_cap_is_called_too_large(tmp_path, b1):
    # A real safetensors file (safetensors itself accepts headers up to 100 MB), but over ours.
    path = tmp_path / "padded.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config), pad="x" * (MAX_HEADER_BYTES + 10))
    error = refusal(load_checkpoint, path)
    assert error.kind == "too_large" and str(error).startswith(path.name)
    assert f"{MAX_HEADER_BYTES:,}" in str(error)  # the sentence gives the cap


@pytest.mark.parametrize(
    ("edit", "kind", "tensor", "named"),
    [
        (lambda h: h["gru.weight_hh_l0"].update(dtype="F64"), "dtype", "gru.weight_hh_l0", "F64"),
        (
            lambda h: h["policy.0.bias"].update(shape=[65]),
            "weights_mismatch",
            "policy.0.bias",
            "65",
        ),
        (lambda h: h.update(extra=h.pop("write.bias")), "weights_mismatch", None, "extra"),
    ],
)
def test_header_is_checked_against_the_config_before_the_data(
    tmp_path, b1, edit, kind, tensor, named
):
    # The data region is dropped: the error names the header's problem, so no data was needed.
    path = tmp_path / "dual-b1-s0.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config))
    header, _ = header_of(path)
    edit(header)
    forged = tmp_path / "header.safetensors"
    raw_file(forged, header)
    error = refusal(load_checkpoint, forged)
    assert (error.kind, error.tensor) == (kind, tensor)
    assert named in str(error)  # what is wrong: the dtype, the shape, the stray tensor


def test_offsets_that_do_not_tile_the_data_are_refused(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    header, data = header_of(path)
    first = min(
        (k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0]
    )
    header[first]["data_offsets"][0] += 4
    forged = tmp_path / "offsets.safetensors"
    raw_file(forged, header, data)
    assert refusal(load_checkpoint, forged).kind == "corrupt"  # safetensors' own check


@pytest.mark.parametrize("dtype", [torch.float64, torch.int64])
def test_wide_dtypes_are_refused_not_cast(tmp_path, b1, dtype):
    tensors = tensors_of(b1)
    tensors["embed.0.weight"] = tensors["embed.0.weight"].to(dtype)
    path = tmp_path / "wide.safetensors"
    forge(path, tensors, asdict(b1.config), embed_hash=True)
    name = {torch.float64: "F64", torch.int64: "I64"}[dtype]
    error = refusal(load_checkpoint, path)
    assert (error.kind, error.tensor) == ("dtype", "embed.0.weight") and name in str(error)
    wide = build_agent("b1").to(torch.float64)
    error = refusal(save_checkpoint, wide, record_of(wide), tmp_path / "out")
    assert error.kind == "dtype" and "F64" in str(error)
    assert not (tmp_path / "out").exists()  # refused before anything was written


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused(tmp_path, b1, bad):
    tensors = tensors_of(b1)
    tensors["policy.2.bias"][3] = bad
    path = tmp_path / "nan.safetensors"
    forge(path, tensors, asdict(b1.config), embed_hash=True)  # intact, just not finite
    error = refusal(load_checkpoint, path)
    assert (error.kind, error.tensor) == ("non_finite", "policy.2.bias")
    broken = build_agent("b1")
    with torch.no_grad():
        broken.policy[2].bias[3] = bad
    error = refusal(save_checkpoint, broken, record_of(broken), tmp_path / "out")
    assert (error.kind, error.tensor) == ("non_finite", "policy.2.bias")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------- paths
@pytest.mark.parametrize("kind", ["../evil", "a/b", "..", ".hidden", "b1/../../x", "b1\\x", ""])
def test_names_that_could_leave_the_folder_are_refused(tmp_path, kind):
    assert refusal(checkpoint_name, "dual", kind, 0).kind == "unsafe_name"
    agent = Agent(replace(AGENT_KINDS["b1"], kind=kind))
    inner = tmp_path / "inner"
    assert refusal(save_checkpoint, agent, record_of(agent), inner).kind == "unsafe_name"
    b1 = build_agent("b1")
    assert refusal(save_checkpoint, b1, record_of(b1), inner, name=kind).kind == "unsafe_name"
    assert list(tmp_path.rglob("*")) == []


@pytest.mark.parametrize("seed", [-1, 1.0, True, "0", 2**31])
def test_checkpoint_names_need_a_real_seed(seed):
    error = refusal(checkpoint_name, "dual", "b1", seed)
    assert error.kind == "name" and repr(seed) in str(error)


def test_symbolic_links_are_refused(tmp_path, b1):
    folder, outside = tmp_path / "ckpt", tmp_path / "elsewhere"
    real = save_checkpoint(b1, record_of(b1), outside)
    original = real.read_bytes()
    folder.mkdir()
    (folder / "inside.safetensors").symlink_to(real)
    (folder / "dual-b1-s1.safetensors").symlink_to(folder / "inside.safetensors")
    for link in ("inside.safetensors", "dual-b1-s1.safetensors"):
        assert refusal(load_checkpoint, folder / link).kind == "symlink"
    assert refusal(save_checkpoint, b1, record_of(b1, seed=1), folder).kind == "symlink"
    assert real.read_bytes() == original and load_checkpoint(real).seed == 0
    assert refusal(load_checkpoint, tmp_path / "weights.pt").kind == "not_a_checkpoint"


# ---------------------------------------------------------------------------- metadata
METADATA_PROBLEMS = {
    "code-like key": ({"__reduce__": "os.system('rm -rf ~')"}, "metadata", "__reduce__"),
    "code as config": ({"config": "__import__('os').system('x')"}, "config", None),
    "config a list": ({"config": "[]"}, "config", None),
    "config nested deep": ({"config": "[" * 100_000 + "]" * 100_000}, "config", None),
    "seed in hex": ({"seed": "0x1"}, "metadata", "seed"),
    "seed too large": ({"seed": str(2**31)}, "metadata", "seed"),
    "task a path": ({"task": "../x"}, "metadata", "task"),
    "unknown mode": ({"mode": "slow"}, "metadata", "mode"),
    "no mode": ({"mode": None}, "metadata", "mode"),
    "short hash": ({"content_sha256": "abc"}, "metadata", "content_sha256"),
    "other network": ({"network": "transformer"}, "metadata", "network"),
}
"""Metadata a checkpoint must not carry, each in one way: (change, refusal, field named)."""


@pytest.mark.parametrize("case", sorted(METADATA_PROBLEMS))
def test_metadata_is_validated_before_anything_is_built(tmp_path, b1, no_real_build, case):
    change, kind, field = METADATA_PROBLEMS[case]
    path = tmp_path / "meta.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config))
    header, data = header_of(path)
    header["__metadata__"] |= change
    header["__metadata__"] = {k: v for k, v in header["__metadata__"].items() if v is not None}
    raw_file(path, header, data)
    error = refusal(load_checkpoint, path)
    assert error.kind == kind and str(error).startswith(path.name)
    if field is not None:
        assert error.field == field
    assert no_real_build == []


def test_a_file_without_its_own_content_hash_loads_only_if_trusted(tmp_path, b1):
    path = tmp_path / "dual-b1-s0.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config))
    assert refusal(load_checkpoint, path).kind == "unverifiable"
    assert load_checkpoint(path, verify=False).entry is None  # no record: no listing entry


# ---------------------------------------------------------------------------- content hash
def test_the_same_weights_have_the_same_content_hash_whatever_the_file_layout(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    entry = read_manifest(tmp_path)["checkpoints"]["dual-b1-s0"]
    before = path.read_bytes()
    # Rewrite the header with its metadata in reverse order (what another writer may do).
    header, data = header_of(path)
    header["__metadata__"] = dict(reversed(list(header["__metadata__"].items())))
    raw_file(path, header, data)
    assert path.read_bytes() != before
    assert load_checkpoint(path).entry["content_sha256"] == entry["content_sha256"]
    assert verify_directory(tmp_path) == []
    other = build_agent("b1", seed=5)
    save_checkpoint(other, record_of(other), tmp_path)
    assert (
        read_manifest(tmp_path)["checkpoints"]["dual-b1-s0"]["content_sha256"]
        != entry["content_sha256"]
    )


def test_content_hash_sees_every_part_of_the_content_but_the_record(b1):
    tensors, metadata = tensors_of(b1), {"task": "dual", "seed": "0"}
    base = content_sha256(tensors, metadata)
    assert content_sha256(dict(reversed(list(tensors.items()))), metadata) == base
    assert content_sha256(tensors, {**metadata, "content_sha256": "x", "record": "{}"}) == base
    changed = [
        {**tensors, "write.bias": tensors["write.bias"] + 1e-6},
        {**tensors, "write.bias": tensors["write.bias"].reshape(2, -1)},
        {**tensors, "write.bias": tensors["write.bias"].double()},
        {("write.biaz" if k == "write.bias" else k): v for k, v in tensors.items()},
    ]
    assert all(content_sha256(t, metadata) != base for t in changed)
    assert content_sha256(tensors, {**metadata, "seed": "1"}) != base
    # Length prefixes: moving a character between a key and its value is a different content.
    assert content_sha256({}, {"ab": "c"}) != content_sha256({}, {"a": "bc"})


def test_a_weight_changed_in_place_is_caught_by_the_hash_inside(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    flip_weight_byte(path)
    assert refusal(load_checkpoint, path).kind == "hash_mismatch"


def test_file_reads_are_bounded(tmp_path, monkeypatch, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    monkeypatch.setattr(ck, "MAX_FILE_BYTES", 1000)
    (problem,) = verify_directory(tmp_path)
    assert (problem.name, problem.kind) == ("dual-b1-s0", "too_large")
    assert f"{path.stat().st_size:,}" in problem and "1,000" in problem  # the size and the cap
