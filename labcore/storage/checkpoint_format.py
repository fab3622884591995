"""Checkpoint files: their names, their content hash, and the structural checks of one file.

A checkpoint is a safetensors file (tensors and a string-to-string header, never pickle) whose
name derives from what it is (:func:`checkpoint_name`) and whose content hash
(:func:`content_sha256`) is the same for the same weights however the file lays them out. It
comes in two forms (:func:`checkpoint_file` finds either): ``NAME.safetensors.xz``, what every
save writes (xz over safetensors with byte planes: :mod:`labcore.storage.checkpoint_container`),
and ``NAME.safetensors``, raw, as files saved before were. The checks here read the header and
the stored config of the (decompressed) safetensors file before any tensor data is taken from
it. The manifest, journal and lock of a checkpoint directory:
:mod:`labcore.storage.checkpoint_manifest`; saving and loading: :mod:`labcore.storage.checkpoints`.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from numbers import Integral
from pathlib import Path
from typing import Any, BinaryIO

import torch
from safetensors import SafetensorError
from safetensors.torch import load as safetensors_load

from labcore.agents import Agent
from labcore.agents.plain import PlainGRUConfig, PlainGRUPolicy
from labcore.checks import check_choice, choice_error
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.io import read_bounded
from labcore.storage.checkpoint_container import DTYPE_BYTES as _DTYPE_BYTES
from labcore.storage.checkpoint_container import DTYPE_NAMES as _DTYPE_NAMES
from labcore.storage.checkpoint_container import (
    DecompressionBomb,
    logical_entries,
    logical_tensors,
    planes_spec,
    xz_decompress,
)

FORMAT = "ctlab-agent"
FORMAT_VERSION = 1
SUFFIX = ".safetensors"
"""Suffix of a raw checkpoint file (every file saved before issue 33)."""
COMPRESSED_SUFFIX = SUFFIX + ".xz"
"""Suffix of a compressed checkpoint file (what a save writes)."""
SUFFIXES = (COMPRESSED_SUFFIX, SUFFIX)
"""The suffixes of a checkpoint file, the preferred form first."""
CONTENT_KEY = "content_sha256"
"""Metadata key (and manifest field) of the content hash."""
MODES = ("fast", "paper")
NETWORK_KEY = "network"
"""Metadata key naming the network a checkpoint holds: absent for the lab's agents (every file
saved before it existed), :data:`PLAIN_GRU` for Song et al.'s plain GRU (protocol 8.7)."""
PLAIN_GRU = "plain_gru"
StoredConfig = AgentConfig | PlainGRUConfig
"""What a checkpoint's ``config`` metadata holds: an agent's config or a plain GRU's."""
Network = Agent | PlainGRUPolicy
"""What a checkpoint holds: one of the lab's agents or Song et al.'s plain GRU."""

MAX_HEADER_BYTES = 1 << 20
"""Largest safetensors header read (1 MiB): a lab checkpoint's header is under 3 KB."""
MAX_WIDTH = 1024
"""Cap on every layer width of a stored config: bundled agents use at most 151 (embed_dim)."""
MAX_SLOTS = 64
"""Cap on the workspace slots K of a stored config: bundled agents use 4."""
MAX_PARAMETERS = 4_000_000
"""Cap on the numbers a checkpoint may hold (16 MB of float32): bundled agents hold under 100k."""
MAX_SEED = 2**31 - 1
"""Largest seed in a checkpoint name or header: far above any the lab uses (bundled 0-4, app
0-9999)."""
MAX_NAME_LENGTH = 120
"""Longest task, kind or checkpoint name: design-study kinds are about 25 characters."""
MAX_FILE_BYTES = 8 + MAX_HEADER_BYTES + 4 * MAX_PARAMETERS
"""Largest checkpoint file a hash check reads: the header cap plus MAX_PARAMETERS float32s."""
CONFIG_INT_CAPS: dict[str, int] = {
    "embed_dim": MAX_WIDTH,
    "hidden_dim": MAX_WIDTH,
    "slot_dim": MAX_WIDTH,
    "self_model_dim": MAX_WIDTH,
    "bottleneck_dim": MAX_WIDTH,
    "readout_hidden": MAX_WIDTH,
    "n_slots": MAX_SLOTS,
}
"""Upper bound of every integer field of :class:`AgentConfig` (all must also be >= 1)."""

_NAME_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_DESIGN_VARIANT = re.compile(
    r"(?P<base>[a-z0-9_]+)\.(?P<geometry>[a-z]+)-(?P<loop>open|closed)-g(?P<gain>[0-9][0-9.e+-]*?)"
    r"(?:\.(?P<tag>class20(?:-lr[0-9e-]+)?))?"
)
"""A kind of the E3 design study, ``<kind>.<geometry>-<open|closed>-g<gain>``, with the tag of the
schedule that trained it where that is not the agent's config (``.class20``: the paper-weighted
schedule, protocol sec. 7.7; ``.class20-lr1e-4``: its post hoc learning-rate probe;
explore_e3.Cell)."""


class CheckpointError(ValueError):
    """A checkpoint cannot be used; the message says why in one sentence.

    ``kind`` names the refusal for a caller (or a test) that reads the record rather than the
    sentence, one of :data:`CHECKPOINT_REFUSALS`; ``tensor`` names the tensor at fault and
    ``field`` the config field, where there is one; ``reason`` is the finer kind of a corrupt or
    refused compressed file (a :class:`~labcore.storage.checkpoint_container.StreamError`'s or
    :class:`~labcore.storage.checkpoint_container.PlaneError`'s ``kind``).
    """

    def __init__(
        self,
        message: str,
        kind: str = "unreadable",
        *,
        tensor: str | None = None,
        field: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.tensor, self.field, self.reason = kind, tensor, field, reason


class StoredConfigError(ValueError):
    """A stored config the lab cannot build: ``kind`` ``"config"`` (a field of the wrong type or
    an unknown field), ``"config_range"`` (an integer outside its cap) or ``"config_kind"`` (an
    unknown agent kind, or a design cell its config does not have); ``field`` names the field."""

    def __init__(self, message: str, kind: str = "config", field: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.field = kind, field


CHECKPOINT_REFUSALS = (
    "unsafe_name",  # a task or kind that could name a path
    "name",  # a seed, mode or episode count that cannot make a name
    "not_a_checkpoint",  # a file name without a checkpoint's suffix
    "missing",  # no file there
    "symlink",  # a link, where the lab reads and writes only real files
    "unreadable",  # the operating system cannot open or read it
    "corrupt",  # truncated or malformed: not a safetensors file the lab can parse
    "too_large",  # a file or header over its cap
    "bomb",  # a compressed file that decompresses past the cap
    "foreign",  # not written by save_checkpoint
    "format_version",  # written by another version of the format
    "config",  # a stored config the lab cannot build (``field`` names the field at fault)
    "config_range",  # a stored integer outside its cap
    "config_kind",  # a stored agent kind the lab does not know or whose cell the config lacks
    "too_many_weights",  # a config implying more weights than the cap
    "weights_mismatch",  # tensors that do not fit the config
    "dtype",  # a tensor stored in another dtype
    "non_finite",  # NaN or inf in a tensor
    "hash_mismatch",  # weights that do not match the content hash stored inside
    "manifest_mismatch",  # a file that does not match its manifest entry
    "unverifiable",  # no manifest entry and no content hash of its own
    "record",  # a training record that cannot make a manifest entry
    "manifest",  # a manifest the lab cannot read or use
    "other_config",  # a network trained with another configuration than the one asked for
)
"""Every ``CheckpointError.kind``."""


def _is_int(value: object) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _safe_name(value: object) -> bool:
    # Only these characters, so a name can never hold a path separator or "..".
    return (
        isinstance(value, str)
        and bool(_NAME_PART.fullmatch(value))
        and ".." not in value
        and len(value) <= MAX_NAME_LENGTH
    )


def _check_name_part(what: str, value: object) -> str:
    if not _safe_name(value):
        raise CheckpointError(
            f"{what} {value!r} is not a safe checkpoint name: use letters, digits, "
            "'_', '-' and single '.' "
            f"(at most {MAX_NAME_LENGTH} characters, no path separators, no '..').",
            "unsafe_name",
        )
    return value


def checkpoint_name(
    task: str, kind: str, seed: int, mode: str = "fast", episodes: int | None = None
) -> str:
    """File stem of a checkpoint, derived from what it is.

    Raises :class:`CheckpointError` for a task or kind that could name a path (separators,
    ``..``), a seed outside ``0..MAX_SEED``, an unknown mode, or a paper-schedule name without
    its episode count.

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


def checkpoint_stem(path: Path | str) -> str | None:
    """The checkpoint name of a file, whichever form it has; None if it is neither.

    >>> checkpoint_stem("checkpoints/dual-b1-s3.safetensors.xz")
    'dual-b1-s3'
    >>> checkpoint_stem("dual-b1-s3.safetensors"), checkpoint_stem("dual-b1-s3.json")
    ('dual-b1-s3', None)
    """
    file = Path(path).name
    suffix = next((s for s in SUFFIXES if file.endswith(s)), None)
    return None if suffix is None or file == suffix else file.removesuffix(suffix)


def checkpoint_file(directory: Path | str, name: str) -> Path:
    """The file of checkpoint ``name`` in ``directory``, whichever form it has.

    ``NAME.safetensors.xz`` if it is there (a save writes it, and removes an older raw file
    beside it), else ``NAME.safetensors`` if that is there (saved before issue 33), else
    ``NAME.safetensors.xz``, where a save would write it. A symbolic link counts as there (so
    that :func:`labcore.storage.checkpoints.load_checkpoint` refuses it by name).
    """
    compressed, raw = (Path(directory) / f"{name}{suffix}" for suffix in SUFFIXES)
    if compressed.exists() or compressed.is_symlink():
        return compressed
    return raw if raw.exists() or raw.is_symlink() else compressed


def is_compressed(path: Path | str) -> bool:
    """Is this checkpoint file name of the compressed form (``.safetensors.xz``)?"""
    return str(path).endswith(COMPRESSED_SUFFIX)


def content_sha256(tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> str:
    """Canonical hash of a checkpoint's content, independent of how the file lays it out.

    Parameters
    ----------
    tensors : mapping of str to Tensor
        The state dict.
    metadata : mapping of str to str
        The safetensors metadata; the key ``CONTENT_KEY`` (the hash itself) is left out.

    Returns
    -------
    str
        Hex SHA-256 of a version tag, the tensors in name order (name, dtype, shape, bytes)
        and the metadata in key order, every field length-prefixed.

    Examples
    --------
    >>> a = content_sha256({"w": torch.zeros(2)}, {"x": "1", "y": "2"})
    >>> a == content_sha256({"w": torch.zeros(2)}, {"y": "2", "x": "1"})
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
    for key in sorted(k for k in metadata if k != CONTENT_KEY):
        put(key.encode())
        put(metadata[key].encode())
    return digest.hexdigest()


# ---------------------------------------------------------------------------- the file
def _unreadable(file: str, why: str | ValueError, tensor: str | None = None) -> CheckpointError:
    """A corrupt file's refusal; a container error's ``kind`` and ``tensor`` are kept."""
    return CheckpointError(
        f"{file} is not a readable checkpoint (corrupt or truncated: {why}); "
        "restore it or retrain it.",
        "corrupt",
        tensor=tensor or getattr(why, "tensor", None),
        reason=getattr(why, "kind", None),
    )


def _header_length(head: bytes, size: int, file: str) -> int:
    if len(head) < 8:
        raise _unreadable(file, "shorter than a safetensors header")
    n = int.from_bytes(head, "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(
            f"{file} is not a readable checkpoint (header too large: {n:,} bytes, the cap is "
            f"{MAX_HEADER_BYTES:,}); it is corrupt or not a lab checkpoint.",
            "too_large",
        )
    if n == 0 or 8 + n > size:
        raise _unreadable(file, "the header runs past the end of the file")
    return n


def _parse_header(raw: bytes, file: str) -> tuple[dict[str, dict], dict[str, str]]:
    """Tensor entries and metadata of a safetensors header, their structure checked."""
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _unreadable(file, "the header is not JSON") from None
    if not isinstance(header, dict):
        raise _unreadable(file, "the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _unreadable(file, "the header's metadata is not a string table")
    for name, e in header.items():
        ok = (
            isinstance(e, dict)
            and isinstance(e.get("dtype"), str)
            and isinstance(e.get("shape"), list)
            and all(_is_int(d) and d >= 0 for d in e["shape"])
            and isinstance(e.get("data_offsets"), list)
            and len(e["data_offsets"]) == 2
            and all(_is_int(o) for o in e["data_offsets"])
            and 0 <= e["data_offsets"][0] <= e["data_offsets"][1]
        )
        if not ok:
            raise _unreadable(file, f"the header entry of tensor {name!r} is malformed", name)
    return header, metadata


def _tensors_of(blob: bytes, file: str) -> dict[str, torch.Tensor]:
    try:
        return safetensors_load(blob)
    except (SafetensorError, ValueError, RuntimeError):
        raise _unreadable(file, "safetensors cannot parse it") from None


def _decompressed(compressed: bytes, file: str) -> bytes:
    """The safetensors file inside a compressed checkpoint, at most ``MAX_FILE_BYTES`` of it."""
    try:
        return xz_decompress(compressed, MAX_FILE_BYTES)
    except DecompressionBomb as exc:
        raise CheckpointError(
            f"{file} is refused: {exc}, the cap of a checkpoint (a decompression bomb, or not a "
            "lab checkpoint); restore it or retrain it.",
            "bomb",
            reason="bomb",
        ) from None
    except ValueError as exc:
        raise _unreadable(file, exc) from None


def _spec_of(metadata: dict[str, str], file: str) -> dict[str, tuple[str, list[int]]]:
    """The byte-plane table popped from ``metadata`` (empty for a file without planes)."""
    try:
        return planes_spec(metadata)
    except ValueError as exc:
        raise _unreadable(file, exc) from None


def _logical_tensors_of(
    blob: bytes, spec: Mapping[str, tuple[str, list[int]]], file: str
) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors of a safetensors file, planed ones restored to their dtype."""
    try:
        return logical_tensors(_tensors_of(blob, file), spec)
    except ValueError as exc:
        raise _unreadable(file, exc) from None


_DEFAULT_CONFIG = AgentConfig()


def _kind_problem(config: AgentConfig) -> str | None:
    """Why ``config.kind`` is neither a known kind nor a design-study variant matching the
    config."""
    if config.kind in AGENT_KINDS:
        return None
    match = _DESIGN_VARIANT.fullmatch(config.kind)
    if match is None or match["base"] not in AGENT_KINDS:
        return (
            f"unknown agent kind {config.kind!r}: expected one of "
            f"{sorted(AGENT_KINDS)} or a design-study "
            "variant '<kind>.<geometry>-<open|closed>-g<gain>'"
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


def _config_object(text: object, config_class: type) -> dict[str, Any]:
    """A checkpoint's ``config`` metadata as a JSON object whose keys are all fields of
    ``config_class``; ValueError says what is wrong."""
    try:
        raw = json.loads(text) if isinstance(text, str) else None
    except RecursionError:
        raise ValueError("the config is nested too deeply") from None
    if not isinstance(raw, dict):
        raise ValueError("the config is missing or not a JSON object")
    known = {f.name for f in fields(config_class)}
    if set(raw) - known:
        raise ValueError(f"unknown fields {sorted(set(raw) - known)}")
    return raw


def _stored_config(text: object) -> AgentConfig:
    """The :class:`AgentConfig` of a checkpoint's ``config`` metadata; ValueError says what is
    wrong."""
    raw = _config_object(text, AgentConfig)
    values: dict[str, Any] = {}
    for f in fields(AgentConfig):
        if f.name not in raw:
            continue  # written before the field existed: its default is what the agent was
        value, default = raw[f.name], getattr(_DEFAULT_CONFIG, f.name)
        if isinstance(default, bool):
            if type(value) is not bool:
                raise StoredConfigError(
                    f"{f.name} must be true or false, got {value!r}", field=f.name
                )
        elif isinstance(default, int):
            if type(value) is not int:  # not a string, a float or a bool
                raise StoredConfigError(f"{f.name} must be an integer, got {value!r}", field=f.name)
            if not 1 <= value <= CONFIG_INT_CAPS.get(f.name, 0):
                raise StoredConfigError(
                    f"{f.name}={value} is outside 1..{CONFIG_INT_CAPS.get(f.name, 0)}",
                    "config_range",
                    f.name,
                )
        elif isinstance(default, float):
            if type(value) not in (int, float) or not math.isfinite(value):
                raise StoredConfigError(
                    f"{f.name} must be a finite number, got {value!r}", field=f.name
                )
            value = float(value)
        elif isinstance(
            default, tuple
        ):  # a short list of names; AgentConfig checks which and their order
            short = len(value) <= max(len(default), 8) if type(value) is list else False
            value = tuple(value) if short else value
        elif not (
            (isinstance(value, str) and len(value) <= MAX_NAME_LENGTH) or (value is None is default)
        ):
            raise StoredConfigError(f"{f.name} must be a short string, got {value!r}", field=f.name)
        values[f.name] = value
    config = AgentConfig(**values)  # its own range and consistency checks
    if problem := _kind_problem(config):
        raise StoredConfigError(problem, "config_kind", "kind")
    return config


def _stored_plain_config(text: object) -> PlainGRUConfig:
    """The :class:`PlainGRUConfig` of a plain GRU's ``config`` metadata; ValueError says what is
    wrong."""
    raw = _config_object(text, PlainGRUConfig)
    if raw.get("kind", PLAIN_GRU) != PLAIN_GRU:
        raise ValueError(f"a plain GRU's kind must be {PLAIN_GRU!r}, got {raw.get('kind')!r}")
    for name in ("n_inputs", "hidden_dim", "n_actions"):
        value = raw.get(name, 1)
        if type(value) is not int or not 1 <= value <= MAX_WIDTH:
            raise ValueError(f"{name} must be an integer in 1..{MAX_WIDTH}, got {value!r}")
    if type(raw.get("value_head", False)) is not bool:
        raise ValueError(f"value_head must be true or false, got {raw.get('value_head')!r}")
    return PlainGRUConfig(**raw)


def build_network(config: StoredConfig, seed: int) -> Network:
    """The network a stored config describes, initialised for ``seed`` (its weights are then
    loaded): a plain GRU for a :class:`PlainGRUConfig`, else one of the lab's agents."""
    if isinstance(config, PlainGRUConfig):
        return PlainGRUPolicy(config, seed)
    return Agent(config, seed=seed)


def _check_metadata(metadata: dict[str, str], file: str) -> tuple[StoredConfig, int]:
    if metadata.get("format") != FORMAT:
        raise CheckpointError(
            f"{file} is not a lab agent checkpoint (foreign file): its header has no "
            f"'{FORMAT}' format tag; load only files written by save_checkpoint.",
            "foreign",
        )
    if metadata.get("format_version") != str(FORMAT_VERSION):
        raise CheckpointError(
            f"{file} was written in checkpoint format v{metadata.get('format_version')}; "
            f"this lab reads v{FORMAT_VERSION} (retrain it with `python -m labcore train`).",
            "format_version",
        )
    try:
        network = metadata.get(NETWORK_KEY)
        check_choice(network, "network", (None, PLAIN_GRU))
        config: StoredConfig = (
            _stored_plain_config(metadata.get("config"))
            if network == PLAIN_GRU
            else _stored_config(metadata.get("config"))
        )
        seed = metadata.get("seed", "")
        if not (seed.isascii() and seed.isdigit() and len(seed) <= 10 and int(seed) <= MAX_SEED):
            raise ValueError(f"the seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
        if (
            not _safe_name(metadata.get("task", "dual"))
            or metadata.get("mode", "fast") not in MODES
        ):
            raise ValueError(
                f"task {metadata.get('task')!r} or mode {metadata.get('mode')!r} is not valid"
            )
    except ValueError as exc:
        raise CheckpointError(
            f"{file} has an invalid agent config ({exc}); retrain it with "
            "`python -m labcore train`.",
            getattr(exc, "kind", "config"),
            field=getattr(exc, "field", None),
        ) from None
    return config, int(seed)


def _expected_layout(
    config: StoredConfig, seed: int, file: str
) -> dict[str, tuple[str, list[int]]]:
    """Name -> (dtype, shape) of every tensor ``config`` implies, built on the meta device (no
    memory)."""
    with torch.device("meta"):
        model = build_network(config, seed)
    layout = {
        k: (_DTYPE_NAMES.get(v.dtype, str(v.dtype)), list(v.shape))
        for k, v in model.state_dict().items()
    }
    total = sum(math.prod(shape) for _, shape in layout.values())
    if total > MAX_PARAMETERS:
        raise CheckpointError(
            f"{file} has an invalid agent config (it implies {total:,} weights, over the cap of "
            f"{MAX_PARAMETERS:,}); retrain it with `python -m labcore train`.",
            "too_many_weights",
        )
    return layout


def _check_layout(
    entries: dict[str, dict],
    spec: Mapping[str, tuple[str, list[int]]],
    expected: dict[str, tuple[str, list[int]]],
    data_bytes: int,
    file: str,
) -> None:
    """The header's tensors are exactly those ``expected`` (planed ones by the dtype and shape
    ``spec`` records, their planes consistent with them) and tile the data region."""
    try:
        logical = logical_entries(entries, spec)
    except ValueError as exc:
        raise _unreadable(file, exc) from None
    missing, unexpected = sorted(set(expected) - set(logical)), sorted(set(logical) - set(expected))
    if missing or unexpected:
        raise CheckpointError(
            f"{file} holds weights that do not fit its own config (missing {missing[:3]}, "
            f"unexpected {unexpected[:3]}); retrain it.",
            "weights_mismatch",
        )
    for name in sorted(expected):
        (dtype, shape), entry = expected[name], logical[name]
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
    cursor = 0
    for begin, end, name in sorted(
        (e["data_offsets"][0], e["data_offsets"][1], n) for n, e in entries.items()
    ):
        if (
            begin != cursor
            or end - begin
            != math.prod(entries[name]["shape"]) * _DTYPE_BYTES[entries[name]["dtype"]]
        ):
            raise _unreadable(
                file, f"the data offsets of tensor {name!r} do not match its shape", name
            )
        cursor = end
    if cursor != data_bytes:
        raise _unreadable(
            file, f"the data region is {data_bytes:,} bytes, the header describes {cursor:,}"
        )


def _parse(
    fh: BinaryIO, size: int, file: str
) -> tuple[bytes, dict, dict[str, str], StoredConfig, int]:
    """(file bytes, tensors, metadata, config, seed) of a checkpoint that passes every structural
    check; the header and the config are checked before the tensor data is read.

    A compressed file (``file`` ends in ``.safetensors.xz``) is read whole (at most
    ``MAX_FILE_BYTES``) and decompressed to at most ``MAX_FILE_BYTES``; the checks then run on
    the safetensors file inside it. Tensors and metadata are the logical ones (planes restored,
    the byte-plane table left out) in both forms.
    """
    compressed = None
    if is_compressed(file):
        if size > MAX_FILE_BYTES:
            raise CheckpointError(
                f"{file} is not a readable checkpoint (too large: {size:,} bytes, the cap is "
                f"{MAX_FILE_BYTES:,}); it is corrupt or not a lab checkpoint.",
                "too_large",
            )
        compressed = fh.read(size)
        inner = _decompressed(compressed, file)
        fh, size = io.BytesIO(inner), len(inner)
    head = fh.read(8)
    n = _header_length(head, size, file)
    raw_header = fh.read(n)
    entries, metadata = _parse_header(raw_header, file)
    spec = _spec_of(metadata, file)
    config, seed = _check_metadata(metadata, file)
    _check_layout(entries, spec, _expected_layout(config, seed, file), size - 8 - n, file)
    blob = head + raw_header + fh.read(size - 8 - n)
    tensors = _logical_tensors_of(blob, spec, file)
    return blob if compressed is None else compressed, tensors, metadata, config, seed


def _non_finite(tensors: Mapping[str, torch.Tensor]) -> str | None:
    """The first tensor (by name) holding NaN or inf, else None."""
    return next(
        (
            k
            for k in sorted(tensors)
            if tensors[k].is_floating_point() and not torch.isfinite(tensors[k]).all()
        ),
        None,
    )


@dataclass(frozen=True)
class _Hashes:
    file_sha256: str
    content_sha256: str
    embedded: str | None
    """The content hash the file carries in its metadata (None in files saved before it existed)."""


def _hashes_of(path: Path) -> _Hashes:
    """Both hashes of a checkpoint file in either form (its structure checked, its config not):
    the file's own sha256 and the content hash of its logical tensors and metadata."""
    try:
        blob = read_bounded(path, MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:
        raise CheckpointError(
            f"{path.name} cannot be read ({getattr(exc, 'strerror', None) or exc})."
        ) from None
    inner = _decompressed(blob, path.name) if is_compressed(path.name) else blob
    n = _header_length(inner[:8], len(inner), path.name)
    _, metadata = _parse_header(inner[8 : 8 + n], path.name)
    spec = _spec_of(metadata, path.name)
    content = content_sha256(_logical_tensors_of(inner, spec, path.name), metadata)
    return _Hashes(hashlib.sha256(blob).hexdigest(), content, metadata.get(CONTENT_KEY))


def content_hash_of(path: Path | str) -> str:
    """The content hash of a checkpoint file in either form, computed from its tensors and
    metadata (not read from its header); :class:`CheckpointError` if its structure is broken.

    The same weights give the same hash whether the file is raw or compressed: what a cache
    keyed by a checkpoint's weights (``results/view_cache``) compares.
    """
    return _hashes_of(Path(path)).content_sha256
