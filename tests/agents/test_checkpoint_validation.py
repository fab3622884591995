"""Checkpoints under bad input: stored configs, headers, dtypes, paths, manifests, content hashes.

Every file here is built by hand (untrained agents, forged headers), so nothing is trained. A
save writes the compressed form (``.safetensors.xz``); ``forge`` writes the raw form, as files
saved before issue 33 are. The compressed form's own faults: ``test_checkpoint_compressed.py``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields, replace

import pytest
import torch
from safetensors.torch import save_file

import labcore.storage.checkpoint_format as ck_format
import labcore.storage.checkpoint_manifest as ck_manifest
from labcore.agents import Agent, build_agent
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.storage.checkpoint_format import (
    COMPRESSED_SUFFIX,
    CONFIG_INT_CAPS,
    MAX_HEADER_BYTES,
    MAX_PARAMETERS,
    checkpoint_file,
    checkpoint_name,
    content_sha256,
)
from labcore.storage.checkpoint_manifest import (
    BUNDLED_DIR,
    MANIFEST,
    ManifestWarning,
    find_checkpoints,
    read_manifest,
    sha256_of,
    upgrade_manifest,
    verify_directory,
)
from labcore.storage.checkpoints import load_checkpoint, save_checkpoint
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
    monkeypatch.setattr(ck_format, "Agent", spy)
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
    assert f"{field}={value}" in str(error)  # the sentence gives the value refused
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
        f.name for f in fields(AgentConfig) if type(getattr(AgentConfig(), f.name)) is int
    }
    assert set(CONFIG_INT_CAPS) == int_fields
    for name, _ in find_checkpoints(BUNDLED_DIR, include_excluded=True):
        header, _ = header_of(checkpoint_file(BUNDLED_DIR, name))
        config = json.loads(header["__metadata__"]["config"])
        assert all(
            config.get(f, getattr(AgentConfig(), f)) * 4 <= cap
            for f, cap in CONFIG_INT_CAPS.items()
        )
        planes = json.loads(header["__metadata__"].get("byte_planes", "{}"))  # logical shapes
        numbers = sum(
            torch.Size(planes.get(k, e)["shape"]).numel()
            for k, e in header.items()
            if k != "__metadata__"
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
    assert path.name == f"{checkpoint_name('dual', kind, 2)}{COMPRESSED_SUFFIX}"
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
    # A raw file (its header holds the float32 tensors themselves; a compressed file's planes:
    # test_checkpoint_compressed.py).
    path = tmp_path / "dual-b1-s0.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config))
    header, _ = header_of(path)
    edit(header)
    forged = tmp_path / "header.safetensors"
    raw_file(forged, header)
    error = refusal(load_checkpoint, forged)
    assert (error.kind, error.tensor) == (kind, tensor)
    assert named in str(error)  # what is wrong: the dtype, the shape, the stray tensor


@pytest.mark.parametrize("suffix", [".safetensors", COMPRESSED_SUFFIX])
def test_offsets_that_do_not_tile_the_data_are_refused(tmp_path, b1, suffix):
    path = save_checkpoint(b1, record_of(b1), tmp_path)  # compressed: its inner file's header
    header, data = header_of(path)
    first = min(
        (k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0]
    )
    header[first]["data_offsets"][0] += 4
    forged = tmp_path / f"offsets{suffix}"
    raw_file(forged, header, data)
    error = refusal(load_checkpoint, forged)
    assert (error.kind, error.tensor) == ("corrupt", first)


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
    (folder / "dual-b1-s1.safetensors.xz").symlink_to(folder / "inside.safetensors")
    for link in ("inside.safetensors", "dual-b1-s1.safetensors.xz"):
        assert refusal(load_checkpoint, folder / link).kind == "symlink"
    assert refusal(save_checkpoint, b1, record_of(b1, seed=1), folder).kind == "symlink"
    assert real.read_bytes() == original and load_checkpoint(real).seed == 0
    assert refusal(load_checkpoint, tmp_path / "weights.pt").kind == "not_a_checkpoint"


def test_a_linked_manifest_is_refused(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path / "a")
    (tmp_path / "a" / MANIFEST).rename(tmp_path / "real.json")
    (tmp_path / "a" / MANIFEST).symlink_to(tmp_path / "real.json")
    error = refusal(load_checkpoint, path)
    assert error.kind == "manifest" and MANIFEST in str(error)


# ---------------------------------------------------------------------------- manifest
WHOLE_FILE_PROBLEMS = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty": lambda text: "",
    "binary": lambda text: b"\xff\xfe\x00\x81manifest".decode("latin-1"),
    "a list": lambda text: "[]",
    "entries as a list": lambda text: json.dumps({"format": "ctlab-agent", "checkpoints": []}),
    "newer version": lambda text: json.dumps(
        {"format": "ctlab-agent", "format_version": 9, "checkpoints": {}}
    ),
}
"""A manifest that is unusable as a whole, each in one way only."""


@pytest.mark.parametrize("case", sorted(WHOLE_FILE_PROBLEMS))
def test_an_unusable_manifest_is_one_clear_error(tmp_path, b1, case):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    manifest = tmp_path / MANIFEST
    manifest.write_bytes(WHOLE_FILE_PROBLEMS[case](manifest.read_text()).encode("latin-1"))
    for call in (
        lambda: read_manifest(tmp_path),
        lambda: load_checkpoint(path),
        lambda: verify_directory(tmp_path),
        lambda: save_checkpoint(b1, record_of(b1, seed=1), tmp_path),
    ):
        error = refusal(call)
        assert error.kind == "manifest" and str(manifest) in str(error)
    assert not checkpoint_file(tmp_path, "dual-b1-s1").exists()  # the save stopped before writing


def test_an_oversized_manifest_is_refused_without_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr(ck_manifest, "MAX_JSON_BYTES", 100)
    (tmp_path / MANIFEST).write_text(
        json.dumps({"format": "ctlab-agent", "checkpoints": {}, "pad": "x" * 200})
    )
    error = refusal(read_manifest, tmp_path)
    assert error.kind == "manifest" and "100" in str(error)  # the sentence gives the cap


ENTRY_PROBLEMS = {
    "a string": (lambda e: "dual-b1-s0.safetensors", "str"),
    "no sha256": (
        lambda e: {k: v for k, v in e.items() if k not in ("sha256", "content_sha256")},
        "'sha256'",
    ),
    "no kind": (lambda e: {k: v for k, v in e.items() if k != "kind"}, "'kind'"),
    "seed as text": (lambda e: {**e, "seed": "0"}, "'seed'"),
    "file elsewhere": (lambda e: {**e, "file": "../../etc/passwd"}, "'../../etc/passwd'"),
    "short hash": (lambda e: {**e, "content_sha256": "abc"}, "64"),
}
"""A malformed entry, each in one way, and what its problem names (the type, the field, the
value or the length wanted)."""


@pytest.mark.parametrize("case", sorted(ENTRY_PROBLEMS))
def test_a_malformed_entry_counts_as_missing(tmp_path, b1, case):
    good = save_checkpoint(b1, record_of(b1, seed=1), tmp_path)
    legacy = tmp_path / "dual-b1-s0.safetensors"
    forge(
        legacy, tensors_of(b1), asdict(b1.config)
    )  # no content hash of its own, like the bundled files
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    entry = {
        **manifest["checkpoints"]["dual-b1-s1"],
        "file": legacy.name,
        "sha256": sha256_of(legacy),
        "seed": 0,
    }
    entry.pop("content_sha256")
    edit, named = ENTRY_PROBLEMS[case]
    manifest["checkpoints"]["dual-b1-s0"] = edit(entry)
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    with pytest.warns(ManifestWarning) as caught:
        assert set(read_manifest(tmp_path)["checkpoints"]) == {"dual-b1-s1"}
    warning = caught[0].message
    assert (warning.kind, warning.names) == ("entry", ("dual-b1-s0",))
    assert named in warning.problems["dual-b1-s0"]
    with pytest.warns(ManifestWarning):
        assert [n for n, _ in find_checkpoints(tmp_path, task="dual")] == ["dual-b1-s1"]
    (problem,) = verify_directory(tmp_path)
    assert (problem.name, problem.kind) == ("dual-b1-s0", "entry")
    assert warning.problems["dual-b1-s0"] in problem  # the same problem, told once
    # The legacy file can no longer be checked: refused with the reason. The listed one loads.
    error = refusal(load_checkpoint, legacy)
    assert error.kind == "unverifiable" and warning.problems["dual-b1-s0"] in str(error)
    assert load_checkpoint(good).entry["seed"] == 1


def test_an_unlisted_file_with_its_own_hash_is_verified_and_recorded(tmp_path, b1):
    saved = save_checkpoint(b1, record_of(b1), tmp_path / "a")
    other = tmp_path / "b"
    other.mkdir()
    (other / saved.name).write_bytes(saved.read_bytes())
    alone = load_checkpoint(other / saved.name)  # no record beside it: verified, not recorded
    assert alone.entry is None and not (other / MANIFEST).exists()
    record = "dual-b1-s0.json.xz"
    (other / record).write_bytes((tmp_path / "a" / record).read_bytes())
    recorded = load_checkpoint(other / saved.name)
    assert recorded.entry == read_manifest(tmp_path / "a")["checkpoints"]["dual-b1-s0"]
    assert read_manifest(other)["checkpoints"]["dual-b1-s0"] == recorded.entry
    assert verify_directory(other) == []
    # Its own hash still protects it: a changed weight is caught without any manifest.
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / saved.name).write_bytes(saved.read_bytes())
    flip_weight_byte(tmp_path / "c" / saved.name)
    assert refusal(load_checkpoint, tmp_path / "c" / saved.name).kind == "hash_mismatch"


def test_an_unlisted_file_without_a_hash_is_refused_unless_trusted(tmp_path, b1):
    path = tmp_path / "dual-b1-s0.safetensors"
    forge(path, tensors_of(b1), asdict(b1.config))
    error = refusal(load_checkpoint, path)
    assert error.kind == "unverifiable" and str(tmp_path / MANIFEST) in str(error)
    assert load_checkpoint(path, verify=False).entry is None


# ---------------------------------------------------------------------------- content hash
def test_the_same_weights_have_the_same_content_hash_whatever_the_file_layout(tmp_path, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    entry = read_manifest(tmp_path)["checkpoints"]["dual-b1-s0"]
    # Rewrite the header with its metadata in reverse order (what another process may write).
    header, data = header_of(path)
    header["__metadata__"] = dict(reversed(list(header["__metadata__"].items())))
    raw_file(path, header, data)
    assert sha256_of(path) != entry["sha256"]
    assert load_checkpoint(path).entry == entry
    assert verify_directory(tmp_path) == []
    # Saving the same weights again keeps the content hash; other weights change it.
    save_checkpoint(b1, record_of(b1), tmp_path)
    assert (
        read_manifest(tmp_path)["checkpoints"]["dual-b1-s0"]["content_sha256"]
        == entry["content_sha256"]
    )
    other = build_agent("b1", seed=5)
    save_checkpoint(other, record_of(other), tmp_path)
    assert (
        read_manifest(tmp_path)["checkpoints"]["dual-b1-s0"]["content_sha256"]
        != entry["content_sha256"]
    )


def test_content_hash_sees_every_part_of_the_content(b1):
    tensors, metadata = tensors_of(b1), {"task": "dual", "seed": "0"}
    base = content_sha256(tensors, metadata)
    assert content_sha256(dict(reversed(list(tensors.items()))), metadata) == base
    assert (
        content_sha256(tensors, {**metadata, "content_sha256": "x"}) == base
    )  # the hash is not its own input
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


def test_legacy_entries_load_and_upgrade_after_a_file_hash_check(tmp_path, b1):
    for seed in (0, 1):
        path = tmp_path / f"dual-b1-s{seed}.safetensors"
        forge(path, tensors_of(b1), asdict(b1.config), seed=str(seed))
    legacy = {
        f"dual-b1-s{s}": {
            "file": f"dual-b1-s{s}.safetensors",
            "sha256": sha256_of(tmp_path / f"dual-b1-s{s}.safetensors"),
            "task": "dual",
            "kind": "b1",
            "seed": s,
            "mode": "fast",
            "heldout_agreement": 0.5,
            "criterion_attainable": True,
            "excluded": False,
        }
        for s in (0, 1)
    }
    (tmp_path / MANIFEST).write_text(
        json.dumps({"format": "ctlab-agent", "format_version": 1, "checkpoints": legacy})
    )
    assert load_checkpoint(tmp_path / "dual-b1-s0.safetensors").entry == legacy["dual-b1-s0"]
    # Seed 1's file changes after it was listed: not upgraded, reported, still refused.
    tampered = tmp_path / "dual-b1-s1.safetensors"
    data = bytearray(tampered.read_bytes())
    data[-8] ^= 0x01
    tampered.write_bytes(bytes(data))
    assert [(p.name, p.kind) for p in upgrade_manifest(tmp_path)] == [
        ("dual-b1-s1", "manifest_mismatch")
    ]
    entries = read_manifest(tmp_path)["checkpoints"]
    assert (
        "content_sha256" in entries["dual-b1-s0"] and "content_sha256" not in entries["dual-b1-s1"]
    )
    assert load_checkpoint(tmp_path / "dual-b1-s0.safetensors").entry == entries["dual-b1-s0"]
    assert refusal(load_checkpoint, tampered).kind == "manifest_mismatch"
    assert [(p.name, p.kind) for p in verify_directory(tmp_path)] == [
        ("dual-b1-s1", "manifest_mismatch")
    ]
    before = (tmp_path / MANIFEST).read_bytes()
    assert [(p.name, p.kind) for p in upgrade_manifest(tmp_path)] == [
        ("dual-b1-s1", "manifest_mismatch")
    ]
    assert (tmp_path / MANIFEST).read_bytes() == before  # nothing new to upgrade: not rewritten


def test_bundled_manifest_holds_content_hashes_that_match():
    entries = read_manifest(BUNDLED_DIR)["checkpoints"]
    # E1-E3, E4's five first reward-trained arms (issue 15) and E4 again's four cells (issue 23), 5
    # seeds each
    assert len(entries) == 60 + 25 + 20 and all(
        "content_sha256" in e and "sha256" in e for e in entries.values()
    )
    assert verify_directory(BUNDLED_DIR) == []
    assert not any(p.name.endswith(".pending") for p in BUNDLED_DIR.iterdir())


def test_file_reads_are_bounded(tmp_path, monkeypatch, b1):
    path = save_checkpoint(b1, record_of(b1), tmp_path)
    monkeypatch.setattr(ck_format, "MAX_FILE_BYTES", 1000)
    (problem,) = verify_directory(tmp_path)
    assert (problem.name, problem.kind) == ("dual-b1-s0", "unreadable")
    assert f"{path.stat().st_size:,}" in problem and "1,000" in problem  # the size and the cap
