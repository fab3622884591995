"""Checkpoints: one agent per plain safetensors file, its config and training record inside.

``NAME.safetensors``, NAME derived from task, kind, seed and schedule (:func:`checkpoint_name`).
Its tensors are the ``state_dict`` in float32; its metadata holds the format tag, ``task``,
``seed``, ``mode``, the ``config`` as JSON, the ``content_sha256`` and the training ``record``.
Loading runs no code, validates the header with pydantic before any tensor is read, then the
content hash and finite weights; every refusal is one :class:`CheckpointError` sentence. A save
is atomic; :func:`read_manifest` lists a folder from its files' headers (docs/reliability.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import typing
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import torch
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
)
from safetensors import SafetensorError
from safetensors.torch import load as safetensors_load
from safetensors.torch import save as safetensors_save

from labcore import LabWarning
from labcore.agents import Agent
from labcore.agents.plain import PlainGRUConfig, PlainGRUPolicy
from labcore.checks import choice_error
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.findings import Problem
from labcore.io import atomic_write, read_bounded

FORMAT = "ctlab-agent"
FORMAT_VERSION = "1"
SUFFIX = ".safetensors"
CONTENT_KEY = "content_sha256"
RECORD_KEY = "record"
"""Metadata key of the training record (not part of the content hash)."""
PLAIN_GRU = "plain_gru"
"""Metadata ``network`` of Song et al.'s plain GRU (protocol 8.7)."""
MODES = ("fast", "paper")
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "checkpoints"
"""The pre-trained agents shipped with the lab."""

MAX_HEADER_BYTES = 4 << 20
"""Largest safetensors header read (a bundled one is at most about 120 KB)."""
MAX_WIDTH = 1024
MAX_SLOTS = 64
MAX_PARAMETERS = 4_000_000
"""Cap on the numbers a checkpoint may hold (bundled agents hold under 100k)."""
MAX_SEED = 2**31 - 1
MAX_NAME_LENGTH = 120
MAX_FILE_BYTES = 8 + MAX_HEADER_BYTES + 4 * MAX_PARAMETERS
CONFIG_INT_CAPS: dict[str, int] = {
    **dict.fromkeys(("embed_dim", "hidden_dim", "slot_dim", "self_model_dim"), MAX_WIDTH),
    **dict.fromkeys(("bottleneck_dim", "readout_hidden", "n_inputs", "n_actions"), MAX_WIDTH),
    "n_slots": MAX_SLOTS,
}
"""Upper bound of every integer field of a stored config (all must also be >= 1)."""

Network = Agent | PlainGRUPolicy  # one of the lab's agents or Song et al.'s plain GRU
StoredConfig = AgentConfig | PlainGRUConfig

_DTYPE_NAMES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}
_NAME_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_DESIGN_VARIANT = re.compile(
    r"(?P<base>[a-z0-9_]+)\.(?P<geometry>[a-z]+)-(?P<loop>open|closed)-g(?P<gain>[0-9][0-9.e+-]*?)"
    r"(?:\.(?P<tag>class20(?:-lr[0-9e-]+)?))?"
)
"""A kind of the E3 design study, ``<kind>.<geometry>-<open|closed>-g<gain>[.class20[-lr..]]``."""


class CheckpointError(ValueError):
    """A checkpoint cannot be used or written, in one sentence; ``kind`` names the refusal,
    ``field`` and ``tensor`` the config field or tensor at fault."""

    def __init__(
        self,
        message: str,
        kind: str = "unreadable",
        *,
        tensor: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.tensor, self.field = kind, tensor, field

    def __reduce__(self) -> tuple:
        """Pickled with its record (caches and worker processes keep it whole)."""
        return (type(self), (str(self), self.kind), dict(self.__dict__))


# ---------------------------------------------------------------------------- names
def _check_name_part(what: str, value: object) -> str:
    # Only these characters, so a name can never hold a path separator or "..".
    if not (
        isinstance(value, str)
        and _NAME_PART.fullmatch(value)
        and ".." not in value
        and len(value) <= MAX_NAME_LENGTH
    ):
        raise CheckpointError(
            f"{what} {value!r} is not a safe checkpoint name: use letters, digits, '_', '-' and "
            f"single '.' (at most {MAX_NAME_LENGTH} characters, no path separators, no '..').",
            "unsafe_name",
        )
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def checkpoint_name(
    task: str, kind: str, seed: int, mode: str = "fast", episodes: int | None = None
) -> str:
    """File stem of a checkpoint, derived from what it is (:class:`CheckpointError` if unsafe).

    >>> checkpoint_name("dual", "b1", 3)
    'dual-b1-s3'
    >>> checkpoint_name("wagering", "b2_ws", 0, mode="paper", episodes=4000)
    'wagering-b2_ws-s0-paper4000'
    >>> checkpoint_name("dual", "b2.raw-closed-g10", 1)
    'dual-b2.raw-closed-g10-s1'
    """
    _check_name_part("task", task)
    _check_name_part("kind", kind)
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise CheckpointError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}.", "name")
    if problem := choice_error(mode, "mode", MODES):
        raise CheckpointError(f"{problem}.", "name")
    stem = f"{task}-{kind}-s{int(seed)}"
    if mode == "fast":
        return stem
    if not _is_int(episodes) or episodes < 1:
        raise CheckpointError(
            f"a paper-schedule checkpoint name needs its episode count, got {episodes!r}.", "name"
        )
    return f"{stem}-paper{int(episodes)}"


def checkpoint_file(directory: Path | str, name: str) -> Path:
    """The file of checkpoint ``name`` in ``directory``: ``directory/NAME.safetensors``."""
    return Path(directory) / f"{name}{SUFFIX}"


def checkpoint_stem(path: Path | str) -> str | None:
    """The checkpoint name of a file; None if it is not a checkpoint's file name.

    >>> checkpoint_stem("checkpoints/dual-b1-s3.safetensors"), checkpoint_stem("dual-b1-s3.json")
    ('dual-b1-s3', None)
    """
    file = Path(path).name
    return file.removesuffix(SUFFIX) if file.endswith(SUFFIX) and file != SUFFIX else None


# ---------------------------------------------------------------------------- content hash
def content_sha256(tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> str:
    """SHA-256 of the tensors (name order) and metadata (key order, without the hash and the
    record), every field length-prefixed: independent of the file's layout.

    >>> a = content_sha256({"w": torch.zeros(2)}, {"x": "1", "y": "2"})
    >>> a == content_sha256({"w": torch.zeros(2)}, {"y": "2", "x": "1", "record": "{}"})
    True
    >>> a == content_sha256({"w": torch.zeros(2, dtype=torch.float64)}, {"x": "1", "y": "2"})
    False
    """
    digest = hashlib.sha256(b"ctlab-content-v1")

    def put(field: bytes) -> None:
        digest.update(len(field).to_bytes(8, "little"))
        digest.update(field)

    put(str(len(tensors)).encode())
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        put(name.encode())
        put(_DTYPE_NAMES.get(t.dtype, str(t.dtype)).encode())
        put(json.dumps(list(t.shape)).encode())
        # torch runs on little-endian hosts only, so these are the bytes safetensors stores.
        put(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    for key in sorted(k for k in metadata if k not in (CONTENT_KEY, RECORD_KEY)):
        put(key.encode())
        put(metadata[key].encode())
    return digest.hexdigest()


# ---------------------------------------------------------------------------- metadata and config
def _digits(value: object) -> object:
    """A seed as safetensors stores it, a string of digits, as an int."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 10:
        return int(value)
    raise ValueError("must be a whole number written in digits")


class Metadata(BaseModel):
    """A checkpoint's metadata (safetensors' string table); ``config`` and ``record`` stay JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    format: Literal["ctlab-agent"]
    format_version: Literal["1"]
    config: str
    task: Annotated[str, AfterValidator(lambda task: _check_name_part("task", task))]
    seed: Annotated[int, BeforeValidator(_digits), Field(ge=0, le=MAX_SEED)]
    mode: Literal["fast", "paper"]
    network: Literal["plain_gru"] | None = None
    content_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    record: str | None = None


@cache
def _config_model(config_class: type) -> type[BaseModel]:
    """A strict pydantic model of a config dataclass's fields: JSON types only, capped integers,
    finite floats, short strings, no unknown field, a missing field at its default."""
    hints = typing.get_type_hints(config_class)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(config_class):
        kind = hints[f.name]
        if kind is int:
            kind = Annotated[int, Field(ge=1, le=CONFIG_INT_CAPS.get(f.name, 0))]
        elif kind is str:
            kind = Annotated[str, Field(max_length=MAX_NAME_LENGTH)]
        elif typing.get_origin(kind) is tuple:  # a short list (names, slot counts)
            kind = Annotated[kind, Field(max_length=MAX_SLOTS)]
        fields[f.name] = (kind, f.default)
    strict = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, frozen=True)
    return create_model(f"Stored{config_class.__name__}", __config__=strict, **fields)


def _kind_problem(config: AgentConfig) -> str | None:
    """Why ``config.kind`` is neither a known kind nor a design-study variant matching it."""
    if config.kind in AGENT_KINDS:
        return None
    match = _DESIGN_VARIANT.fullmatch(config.kind)
    if match is None or match["base"] not in AGENT_KINDS:
        return (
            f"unknown agent kind {config.kind!r}: expected one of {sorted(AGENT_KINDS)} or a "
            "design-study variant '<kind>.<geometry>-<open|closed>-g<gain>'"
        )
    if (match["geometry"], match["loop"] == "closed", match["gain"]) != (
        config.write_geometry,
        config.closed_loop,
        f"{config.readout_gain:g}",
    ):
        return (
            f"kind {config.kind!r} names a design cell its config does not have (write_geometry="
            f"{config.write_geometry!r}, closed_loop={config.closed_loop}, "
            f"readout_gain={config.readout_gain:g})"
        )
    return None


def _invalid(file: str, error: ValidationError, what: str) -> CheckpointError:
    """The first problem pydantic found, as one sentence naming the field."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    value = f", got {first['input']!r:.60}" if first["type"] != "missing" else ""
    kind = what.split()[-1]
    if kind == "config" and first["type"] in ("greater_than_equal", "less_than_equal"):
        kind = "config_range"
    return CheckpointError(
        f"{file} has an invalid {what} ({field}: {first['msg'].lower()}{value}); retrain it "
        "with `python -m labcore train`.",
        kind,
        field=field,
    )


def stored_config(metadata: Metadata, file: str) -> StoredConfig:
    """The config a checkpoint's metadata holds, validated, its kind known."""
    config_class = PlainGRUConfig if metadata.network == PLAIN_GRU else AgentConfig
    try:
        values = dict(_config_model(config_class).model_validate_json(metadata.config))
    except ValidationError as exc:
        raise _invalid(file, exc, "agent config") from None
    try:
        config = config_class(**values)  # its own consistency checks
    except ValueError as exc:
        raise CheckpointError(
            f"{file} has an invalid agent config ({exc}); retrain it.", "config"
        ) from None
    if config_class is PlainGRUConfig and config.kind != PLAIN_GRU:
        raise CheckpointError(
            f"{file} has an invalid agent config (a plain GRU's kind must be {PLAIN_GRU!r}, got "
            f"{config.kind!r}).",
            "config_kind",
            field="kind",
        )
    if config_class is AgentConfig and (problem := _kind_problem(config)):
        raise CheckpointError(
            f"{file} has an invalid agent config ({problem}).", "config_kind", field="kind"
        )
    return config


def build_network(config: StoredConfig, seed: int) -> Network:
    """The network a stored config describes, initialised for ``seed``."""
    if isinstance(config, PlainGRUConfig):
        return PlainGRUPolicy(config, seed)
    return Agent(config, seed=seed)


# ---------------------------------------------------------------------------- reading a file
@dataclass(frozen=True)
class _Header:
    """A checkpoint file's bytes, tensor entries, metadata (raw and validated) and config."""

    blob: bytes
    entries: dict[str, dict]
    raw: dict[str, str]
    metadata: Metadata
    config: StoredConfig


def _corrupt(file: str, why: str) -> CheckpointError:
    return CheckpointError(
        f"{file} is not a readable checkpoint (corrupt or truncated: {why}); restore it or "
        "retrain it.",
        "corrupt",
    )


def _read_header(path: Path) -> _Header:
    """The header of the checkpoint file ``path``; the tensor data is not parsed yet."""
    file = path.name
    if checkpoint_stem(path) is None:
        raise CheckpointError(
            f"{path} is not a checkpoint file name (a checkpoint ends in {SUFFIX}).",
            "not_a_checkpoint",
        )
    if path.is_symlink():
        raise CheckpointError(
            f"{path} is a symbolic link; the lab reads only real files in their folder (copy the "
            "file instead).",
            "symlink",
        )
    if not path.exists():
        raise CheckpointError(f"There is no checkpoint file at {path}.", "missing")
    try:
        blob = read_bounded(path, MAX_FILE_BYTES)  # O_NOFOLLOW: a link swapped in is refused too
    except OSError as exc:
        raise CheckpointError(
            f"{file} cannot be read ({exc.strerror}); use a regular file.", "unreadable"
        ) from None
    except ValueError as exc:
        raise CheckpointError(
            f"{file} is not a readable checkpoint ({exc}); it is corrupt or not a lab checkpoint.",
            "too_large",
        ) from None
    return _parse_header(blob, file)


def _parse_header(blob: bytes, file: str) -> _Header:
    """The header of checkpoint bytes ``blob``, every check of it passed."""
    if len(blob) < 8:
        raise _corrupt(file, "shorter than a safetensors header")
    n = int.from_bytes(blob[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(
            f"{file} is not a readable checkpoint (header too large: {n:,} bytes, the cap is "
            f"{MAX_HEADER_BYTES:,}); it is corrupt or not a lab checkpoint.",
            "too_large",
        )
    if 8 + n > len(blob):
        raise _corrupt(file, "the header runs past the end of the file")
    try:
        header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _corrupt(file, "the header is not JSON") from None
    raw = header.pop("__metadata__", None) if isinstance(header, dict) else None
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise _corrupt(file, "the header has no metadata string table")
    for name, e in header.items():
        if not (
            isinstance(e, dict)
            and isinstance(e.get("dtype"), str)
            and isinstance(e.get("shape"), list)
            and all(_is_int(d) and d >= 0 for d in e["shape"])
        ):
            raise _corrupt(file, f"the header entry of tensor {name!r} is malformed")
    if raw.get("format") != FORMAT:
        raise CheckpointError(
            f"{file} is not a lab agent checkpoint (foreign file): its metadata has no '{FORMAT}' "
            "format tag; load only files written by save_checkpoint.",
            "foreign",
        )
    if raw.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{file} was written in checkpoint format v{raw.get('format_version')}; this lab "
            f"reads v{FORMAT_VERSION} (retrain it with `python -m labcore train`).",
            "format_version",
        )
    try:
        metadata = Metadata.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(file, exc, "metadata") from None
    return _Header(blob, header, raw, metadata, stored_config(metadata, file))


def _check_layout(header: _Header, file: str) -> None:
    """The header's tensors are exactly those its config implies (built on the meta device)."""
    with torch.device("meta"):
        model = build_network(header.config, header.metadata.seed)
    expected = {
        k: (_DTYPE_NAMES.get(v.dtype, str(v.dtype)), list(v.shape))
        for k, v in model.state_dict().items()
    }
    total = sum(math.prod(shape) for _, shape in expected.values())
    if total > MAX_PARAMETERS:
        raise CheckpointError(
            f"{file} has an invalid agent config (it implies {total:,} weights, over the cap of "
            f"{MAX_PARAMETERS:,}); retrain it with `python -m labcore train`.",
            "too_many_weights",
        )
    entries = header.entries
    missing, unexpected = sorted(set(expected) - set(entries)), sorted(set(entries) - set(expected))
    if missing or unexpected:
        raise CheckpointError(
            f"{file} holds weights that do not fit its own config (missing {missing[:3]}, "
            f"unexpected {unexpected[:3]}); retrain it.",
            "weights_mismatch",
        )
    for name in sorted(expected):
        (dtype, shape), entry = expected[name], entries[name]
        if entry["dtype"] != dtype:
            raise CheckpointError(
                f"{file} stores tensor {name!r} as {entry['dtype']} where the lab expects {dtype}; "
                "it is refused rather than cast silently: re-save the weights as float32.",
                "dtype",
                tensor=name,
            )
        if entry["shape"] != shape:
            raise CheckpointError(
                f"{file} holds weights that do not fit its own config ({name} has shape "
                f"{entry['shape']}, the config implies {shape}); retrain it.",
                "weights_mismatch",
                tensor=name,
            )


def _tensors(header: _Header, file: str, *, verify: bool) -> dict[str, torch.Tensor]:
    """The tensors of a checked header's file, the content hash (``verify``) and finiteness
    checked."""
    _check_layout(header, file)
    try:
        tensors = safetensors_load(header.blob)
    except (SafetensorError, ValueError, RuntimeError) as exc:
        raise _corrupt(file, f"safetensors cannot parse it: {exc}") from None
    if verify:
        stored = header.metadata.content_sha256
        if stored is None:
            raise CheckpointError(
                f"{file} carries no content hash, so its integrity cannot be checked; re-save it "
                "with save_checkpoint (or pass verify=False if you trust it).",
                "unverifiable",
            )
        if content_sha256(tensors, header.raw) != stored:
            raise CheckpointError(
                f"{file} is corrupt: its weights do not match the content hash stored inside it; "
                "restore it or retrain it.",
                "hash_mismatch",
            )
    bad = next((k for k in sorted(tensors) if not torch.isfinite(tensors[k]).all()), None)
    if bad is not None:
        raise CheckpointError(
            f"{file} holds non-finite weights (NaN or inf in {bad!r}); restore a good copy or "
            "retrain it.",
            "non_finite",
            tensor=bad,
        )
    return tensors


# ---------------------------------------------------------------------------- training records
class RecordIndex(BaseModel):
    """What a listing reads from a training record (its other keys are the trainer's)."""

    model_config = ConfigDict(extra="ignore", strict=True)

    heldout_agreement: float
    criterion_attainable: bool
    excluded: bool


def _as_tables(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with every list of same-keyed dicts as ``{"columns", "data"}`` (pandas' split)."""
    out = dict(record)
    for key, rows in record.items():
        if (
            isinstance(rows, list)
            and rows
            and all(isinstance(r, dict) and r.keys() == rows[0].keys() for r in rows)
        ):
            columns = list(rows[0])
            out[key] = {"columns": columns, "data": [[r[c] for c in columns] for r in rows]}
    return out


def _from_tables(record: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`_as_tables` undone: each table back to a list of dicts."""
    return {
        key: [dict(zip(value["columns"], row, strict=True)) for row in value["data"]]
        if isinstance(value, dict) and value.keys() == {"columns", "data"}
        else value
        for key, value in record.items()
    }


def _record_json(header: _Header, file: str) -> dict:
    """The training record in a checked header, as stored (learning curves as tables)."""
    text = header.metadata.record
    if text is None:
        raise CheckpointError(f"{file} holds no training record.", "record")
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        record = None
    if not isinstance(record, dict):
        raise CheckpointError(
            f"{file} holds a training record that is not a JSON object; restore it or retrain it.",
            "record",
        )
    return record


def read_record(directory: Path | str, name: str) -> dict:
    """The training record of checkpoint ``name`` in ``directory``, learning curves as lists."""
    path = checkpoint_file(directory, name)
    record = _record_json(_read_header(path), path.name)
    try:
        return _from_tables(record)
    except (TypeError, ValueError, KeyError):
        raise CheckpointError(
            f"{path.name} holds a training record with a malformed table; restore it or retrain "
            "it.",
            "record",
        ) from None


def _entry(header: _Header, path: Path) -> dict:
    """What a listing says of a checkpoint: its metadata and its record's index fields."""
    try:
        index = RecordIndex.model_validate(_record_json(header, path.name))
    except ValidationError as exc:
        raise _invalid(path.name, exc, "training record") from None
    meta = header.metadata
    return {
        "file": path.name,
        "bytes": len(header.blob),
        CONTENT_KEY: meta.content_sha256,
        "task": meta.task,
        "kind": header.config.kind,
        "seed": meta.seed,
        "mode": meta.mode,
        **index.model_dump(),
        "heldout_agreement": round(index.heldout_agreement, 6),  # as listings always showed it
    }


# ---------------------------------------------------------------------------- save and load
@dataclass(frozen=True)
class LoadedAgent:
    """A loaded agent, its identity and its listing entry (None without a usable record)."""

    agent: Network
    name: str
    task: str
    seed: int
    mode: str
    entry: dict | None


def load_checkpoint(path: Path | str, *, verify: bool = True) -> LoadedAgent:
    """Load a checkpoint, or fail with one :class:`CheckpointError` sentence naming the file.

    The header and tensor layout are checked before any tensor is read; then the content hash
    (``verify``) and finite weights; only then is the network built, loaded and frozen.
    """
    path = Path(path)
    header = _read_header(path)
    tensors = _tensors(header, path.name, verify=verify)
    agent = build_network(header.config, header.metadata.seed)
    agent.load_state_dict(tensors, strict=True)
    agent.eval()
    for p in agent.parameters():
        p.requires_grad_(False)
    try:
        entry = _entry(header, path)
    except CheckpointError:
        entry = None
    meta = header.metadata
    return LoadedAgent(agent, checkpoint_stem(path), meta.task, meta.seed, meta.mode, entry)


def save_checkpoint(
    agent: Network, record: dict, directory: Path | str, name: str | None = None
) -> Path:
    """Save weights, config and training record atomically as ``directory/NAME.safetensors``.

    NAME is ``name``, else :func:`checkpoint_name` of the record. Nothing is written unless
    :func:`load_checkpoint` and a listing would accept the file.
    """
    directory = Path(directory)
    if name is not None:
        stem = _check_name_part("checkpoint name", name)
    else:
        stem = checkpoint_name(
            record["task"],
            record["kind"],
            record["seed"],
            record["mode"],
            record.get("train_config", {}).get("train_episodes"),
        )
    if record.get("kind") != agent.config.kind:
        raise CheckpointError(
            f"the record's kind {record.get('kind')!r} is not the agent's kind "
            f"{agent.config.kind!r}; save the record that came with this agent.",
            "record",
        )
    path = checkpoint_file(directory, stem)
    if path.is_symlink():
        raise CheckpointError(
            f"{path} is a symbolic link; the lab does not write through links (remove it).",
            "symlink",
        )
    tensors = {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}
    metadata = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "config": json.dumps(asdict(agent.config), sort_keys=True),
        "task": record["task"],
        "seed": str(record["seed"]),
        "mode": record["mode"],
    }
    if isinstance(agent, PlainGRUPolicy):
        metadata["network"] = PLAIN_GRU
    metadata[CONTENT_KEY] = content_sha256(tensors, metadata)
    metadata[RECORD_KEY] = json.dumps(_as_tables(record), sort_keys=True, separators=(",", ":"))
    data = safetensors_save(tensors, metadata)
    try:  # never write a file that load_checkpoint would refuse
        header = _parse_header(data, path.name)
        _tensors(header, path.name, verify=True)
        _entry(header, path)
    except CheckpointError as exc:
        raise CheckpointError(
            f"Not saved: {str(exc).rstrip('.')}.", exc.kind, tensor=exc.tensor, field=exc.field
        ) from None
    atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return path


# ---------------------------------------------------------------------------- folders
@lru_cache(maxsize=4096)
def _listed(path: Path, stamp: tuple[int, int, int]) -> tuple[dict | None, Exception | None]:
    """The listing entry of one file version (``stamp``), or why it has none; cached."""
    try:
        return _entry(_read_header(path), path), None
    except CheckpointError as exc:
        return None, exc


def read_manifest(
    directory: Path | str = BUNDLED_DIR, *, problems: dict[str, str] | None = None
) -> dict:
    """The checkpoints of a folder from their headers: ``{"checkpoints": {name: entry}}``.

    A file that cannot be used is left out, its sentence put in ``problems`` if given, else
    warned about.
    """
    directory = Path(directory)
    entries, bad = {}, {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        stat = path.lstat()
        entry, error = _listed(path, (stat.st_ino, stat.st_size, stat.st_mtime_ns))
        if error is None:
            entries[checkpoint_stem(path)] = dict(entry)
        else:
            bad[checkpoint_stem(path)] = str(error)
    if bad and problems is not None:
        problems.update(bad)
    elif bad:
        message = f"{directory}: checkpoints left out: " + " ".join(bad.values())
        warnings.warn(LabWarning(message), stacklevel=2)
    return {"checkpoints": entries}


def verify_directory(directory: Path | str = BUNDLED_DIR) -> list[Problem]:
    """One problem per checkpoint of a folder that would not load or has no usable record."""
    problems = []
    for path in sorted(Path(directory).glob(f"*{SUFFIX}")):
        try:
            header = _read_header(path)
            _tensors(header, path.name, verify=True)
            _entry(header, path)
        except CheckpointError as exc:
            problems.append(Problem(str(exc), checkpoint_stem(path), exc.kind))
    return problems


def content_hash_of(path: Path | str) -> str:
    """The content hash of a checkpoint file, computed (not read from its header)."""
    path = Path(path)
    header = _read_header(path)
    return content_sha256(_tensors(header, path.name, verify=False), header.raw)
