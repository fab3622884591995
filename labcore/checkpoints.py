"""Checkpoints: weights + config in safetensors, written atomically, listed in a manifest.

safetensors holds tensors and a string-to-string header only, so loading never executes
code (no pickle). Names derive from what a checkpoint is (task, kind, seed, schedule), never
from a timestamp, so the same training run maps to the same file. The manifest
(``manifest.json``) records each file's *content hash* (:func:`content_sha256`: the same weights
give the same hash, whatever order safetensors writes its metadata in) and its file sha256.

A save runs under the directory lock in steps: (1) a journal ``.<name>.pending`` with the new
manifest entry and training record; (2) the checkpoint file, atomically (temporary file +
``os.replace``); (3) the record ``<name>.json``; (4) the manifest; then the journal goes. A save
killed after (2) leaves a complete file its journal vouches for, and the next load or save
finishes it (:func:`repair_directory`); killed before (2), it leaves the old file as it was.
What is guaranteed and what is not: docs/reliability.md, section "Checkpoints".
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from numbers import Integral
from pathlib import Path
from typing import Any, BinaryIO

import torch
from safetensors import SafetensorError
from safetensors.torch import load as safetensors_load
from safetensors.torch import save as safetensors_save

from labcore import LabWarning
from labcore.agents import Agent
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.io import (
    atomic_write,
    directory_lock,
    open_regular_file,
    read_bounded,
    read_json,
    write_json,
)
from labcore.io import sha256_of as sha256_of  # re-export: the manifest's "sha256"

FORMAT = "ctlab-agent"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SUFFIX = ".safetensors"
PENDING_SUFFIX = ".pending"
"""Journal of a save in progress: ``.<name>.pending`` beside the checkpoint."""
CONTENT_KEY = "content_sha256"
"""Metadata key (and manifest field) of the content hash."""
MODES = ("fast", "paper")
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
"""The pre-trained agents shipped with the lab."""

MAX_HEADER_BYTES = 1 << 20
"""Largest safetensors header read (1 MiB): a lab checkpoint's header is under 3 KB."""
MAX_WIDTH = 1024
"""Cap on every layer width of a stored config: bundled agents use at most 151 (embed_dim)."""
MAX_SLOTS = 64
"""Cap on the workspace slots K of a stored config: bundled agents use 4."""
MAX_PARAMETERS = 4_000_000
"""Cap on the numbers a checkpoint may hold (16 MB of float32): bundled agents hold under 100k."""
MAX_SEED = 2**31 - 1
"""Largest seed in a checkpoint name or header: far above any the lab uses (bundled 0-4, app 0-9999)."""
MAX_NAME_LENGTH = 120
"""Longest task, kind or checkpoint name: design-study kinds are about 25 characters."""
MAX_JSON_BYTES = 16 << 20
"""Largest manifest, journal or training record read (16 MiB): the bundled manifest is ~25 KB."""
MAX_FILE_BYTES = 8 + MAX_HEADER_BYTES + 4 * MAX_PARAMETERS
"""Largest checkpoint file a hash check reads: the header cap plus MAX_PARAMETERS float32s."""
CONFIG_INT_CAPS: dict[str, int] = {
    "embed_dim": MAX_WIDTH, "hidden_dim": MAX_WIDTH, "slot_dim": MAX_WIDTH, "self_model_dim": MAX_WIDTH,
    "bottleneck_dim": MAX_WIDTH, "readout_hidden": MAX_WIDTH, "n_slots": MAX_SLOTS,
}
"""Upper bound of every integer field of :class:`AgentConfig` (all must also be >= 1)."""

_NAME_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_DESIGN_VARIANT = re.compile(
    r"(?P<base>[a-z0-9_]+)\.(?P<geometry>[a-z]+)-(?P<loop>open|closed)-g(?P<gain>[0-9][0-9.e+-]*)")
"""A kind of the E3 design study, ``<kind>.<geometry>-<open|closed>-g<gain>`` (explore_e3.Cell)."""
_DTYPE_NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
                torch.uint8: "U8", torch.bool: "BOOL"}
_DTYPE_BYTES = {name: torch.empty(0, dtype=dtype).element_size() for dtype, name in _DTYPE_NAMES.items()}
_ENTRY_TYPES = {"file": str, "task": str, "kind": str, "seed": int, "mode": str,
                "heldout_agreement": float, "criterion_attainable": bool, "excluded": bool}
"""Fields every manifest entry has (callers index them directly) and their JSON types."""
_RESTORE = "restore it from version control or a backup"
_LOCK = ".manifest.lock"
"""Every write to a checkpoint directory holds this lock (several trainings may finish at once);
not reentrant, so nothing under it takes it again."""


class CheckpointError(ValueError):
    """A checkpoint cannot be used; the message says why in one sentence."""


class ManifestWarning(LabWarning):
    """A manifest entry is malformed and treated as missing, or a verified file was not recorded."""


def _is_int(value: object) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _safe_name(value: object) -> bool:
    # Only these characters, so a name can never hold a path separator or "..".
    return (isinstance(value, str) and bool(_NAME_PART.fullmatch(value)) and ".." not in value
            and len(value) <= MAX_NAME_LENGTH)


def _check_name_part(what: str, value: object) -> str:
    if not _safe_name(value):
        raise CheckpointError(
            f"{what} {value!r} is not a safe checkpoint name: use letters, digits, '_', '-' and single '.' "
            f"(at most {MAX_NAME_LENGTH} characters, no path separators, no '..').")
    return value


def checkpoint_name(task: str, kind: str, seed: int, mode: str = "fast", episodes: int | None = None) -> str:
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
        raise CheckpointError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}.")
    if mode not in MODES:
        raise CheckpointError(f"mode must be one of {MODES}, got {mode!r}.")
    stem = f"{task}-{kind}-s{int(seed)}"
    if mode == "fast":
        return stem
    if not _is_int(episodes) or episodes < 1:
        raise CheckpointError(f"a paper-schedule checkpoint name needs its episode count, got {episodes!r}.")
    return f"{stem}-paper{int(episodes)}"


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
def _unreadable(file: str, why: str) -> CheckpointError:
    return CheckpointError(f"{file} is not a readable checkpoint (corrupt or truncated: {why}); "
                           "restore it or retrain it.")


def _header_length(head: bytes, size: int, file: str) -> int:
    if len(head) < 8:
        raise _unreadable(file, "shorter than a safetensors header")
    n = int.from_bytes(head, "little")
    if n > MAX_HEADER_BYTES:
        raise CheckpointError(f"{file} is not a readable checkpoint (header too large: {n:,} bytes, the cap is "
                              f"{MAX_HEADER_BYTES:,}); it is corrupt or not a lab checkpoint.")
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
        ok = (isinstance(e, dict) and isinstance(e.get("dtype"), str) and isinstance(e.get("shape"), list)
              and all(_is_int(d) and d >= 0 for d in e["shape"]) and isinstance(e.get("data_offsets"), list)
              and len(e["data_offsets"]) == 2 and all(_is_int(o) for o in e["data_offsets"])
              and 0 <= e["data_offsets"][0] <= e["data_offsets"][1])
        if not ok:
            raise _unreadable(file, f"the header entry of tensor {name!r} is malformed")
    return header, metadata


def _tensors_of(blob: bytes, file: str) -> dict[str, torch.Tensor]:
    try:
        return safetensors_load(blob)
    except (SafetensorError, ValueError, RuntimeError):
        raise _unreadable(file, "safetensors cannot parse it") from None


_DEFAULT_CONFIG = AgentConfig()


def _kind_problem(config: AgentConfig) -> str | None:
    """Why ``config.kind`` is neither a known kind nor a design-study variant matching the config."""
    if config.kind in AGENT_KINDS:
        return None
    match = _DESIGN_VARIANT.fullmatch(config.kind)
    if match is None or match["base"] not in AGENT_KINDS:
        return (f"unknown agent kind {config.kind!r}: expected one of {sorted(AGENT_KINDS)} or a design-study "
                "variant '<kind>.<geometry>-<open|closed>-g<gain>'")
    if (match["geometry"], match["loop"] == "closed", match["gain"]) != (
            config.write_geometry, config.closed_loop, f"{config.readout_gain:g}"):
        return (f"kind {config.kind!r} names a design cell its config does not have (write_geometry="
                f"{config.write_geometry!r}, closed_loop={config.closed_loop}, readout_gain={config.readout_gain:g})")
    return None


def _stored_config(text: object) -> AgentConfig:
    """The :class:`AgentConfig` of a checkpoint's ``config`` metadata; ValueError says what is wrong."""
    try:
        raw = json.loads(text) if isinstance(text, str) else None
    except RecursionError:
        raise ValueError("the config is nested too deeply") from None
    if not isinstance(raw, dict):
        raise ValueError("the config is missing or not a JSON object")
    known = {f.name for f in fields(AgentConfig)}
    if set(raw) - known:
        raise ValueError(f"unknown fields {sorted(set(raw) - known)}")
    values: dict[str, Any] = {}
    for f in fields(AgentConfig):
        if f.name not in raw:
            continue  # written before the field existed: its default is what the agent was
        value, default = raw[f.name], getattr(_DEFAULT_CONFIG, f.name)
        if isinstance(default, bool):
            if type(value) is not bool:
                raise ValueError(f"{f.name} must be true or false, got {value!r}")
        elif isinstance(default, int):
            if type(value) is not int:  # not a string, a float or a bool
                raise ValueError(f"{f.name} must be an integer, got {value!r}")
            if not 1 <= value <= CONFIG_INT_CAPS.get(f.name, 0):
                raise ValueError(f"{f.name}={value} is outside 1..{CONFIG_INT_CAPS.get(f.name, 0)}")
        elif isinstance(default, float):
            if type(value) not in (int, float) or not math.isfinite(value):
                raise ValueError(f"{f.name} must be a finite number, got {value!r}")
            value = float(value)
        elif isinstance(default, tuple):  # a short list of names; AgentConfig checks which and their order
            value = tuple(value) if type(value) is list and len(value) <= len(default) else value
        elif not ((isinstance(value, str) and len(value) <= MAX_NAME_LENGTH) or (value is None is default)):
            raise ValueError(f"{f.name} must be a short string, got {value!r}")
        values[f.name] = value
    config = AgentConfig(**values)  # its own range and consistency checks
    if problem := _kind_problem(config):
        raise ValueError(problem)
    return config


def _check_metadata(metadata: dict[str, str], file: str) -> tuple[AgentConfig, int]:
    if metadata.get("format") != FORMAT:
        raise CheckpointError(f"{file} is not a lab agent checkpoint (foreign file): its header has no "
                              f"'{FORMAT}' format tag; load only files written by save_checkpoint.")
    if metadata.get("format_version") != str(FORMAT_VERSION):
        raise CheckpointError(
            f"{file} was written in checkpoint format v{metadata.get('format_version')}; "
            f"this lab reads v{FORMAT_VERSION} (retrain it with `python -m labcore train`).")
    try:
        config = _stored_config(metadata.get("config"))
        seed = metadata.get("seed", "")
        if not (seed.isascii() and seed.isdigit() and len(seed) <= 10 and int(seed) <= MAX_SEED):
            raise ValueError(f"the seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
        if not _safe_name(metadata.get("task", "dual")) or metadata.get("mode", "fast") not in MODES:
            raise ValueError(f"task {metadata.get('task')!r} or mode {metadata.get('mode')!r} is not valid")
    except ValueError as exc:
        raise CheckpointError(f"{file} has an invalid agent config ({exc}); retrain it with "
                              "`python -m labcore train`.") from None
    return config, int(seed)


def _expected_layout(config: AgentConfig, seed: int, file: str) -> dict[str, tuple[str, list[int]]]:
    """Name -> (dtype, shape) of every tensor ``config`` implies, built on the meta device (no memory)."""
    with torch.device("meta"):
        model = Agent(config, seed=seed)
    layout = {k: (_DTYPE_NAMES.get(v.dtype, str(v.dtype)), list(v.shape)) for k, v in model.state_dict().items()}
    total = sum(math.prod(shape) for _, shape in layout.values())
    if total > MAX_PARAMETERS:
        raise CheckpointError(f"{file} has an invalid agent config (it implies {total:,} weights, over the cap of "
                              f"{MAX_PARAMETERS:,}); retrain it with `python -m labcore train`.")
    return layout


def _check_layout(entries: dict[str, dict], expected: dict[str, tuple[str, list[int]]], data_bytes: int,
                  file: str) -> None:
    """The header's tensors are exactly those ``expected`` and tile the data region."""
    missing, unexpected = sorted(set(expected) - set(entries)), sorted(set(entries) - set(expected))
    if missing or unexpected:
        raise CheckpointError(f"{file} holds weights that do not fit its own config (missing {missing[:3]}, "
                              f"unexpected {unexpected[:3]}); retrain it.")
    for name in sorted(expected):
        (dtype, shape), entry = expected[name], entries[name]
        if entry["dtype"] != dtype:
            raise CheckpointError(f"{file} stores tensor {name!r} as {entry['dtype']} where the lab expects {dtype}; "
                                  "it is refused rather than cast silently: re-save the weights as float32.")
        if entry["shape"] != shape:
            raise CheckpointError(f"{file} holds weights that do not fit its own config ({name} has shape "
                                  f"{entry['shape']}, the config implies {shape}); retrain it.")
    cursor = 0
    for begin, end, name in sorted((e["data_offsets"][0], e["data_offsets"][1], n) for n, e in entries.items()):
        if begin != cursor or end - begin != math.prod(entries[name]["shape"]) * _DTYPE_BYTES[entries[name]["dtype"]]:
            raise _unreadable(file, f"the data offsets of tensor {name!r} do not match its shape")
        cursor = end
    if cursor != data_bytes:
        raise _unreadable(file, f"the data region is {data_bytes:,} bytes, the header describes {cursor:,}")


def _parse(fh: BinaryIO, size: int, file: str) -> tuple[bytes, dict, dict[str, str], AgentConfig, int]:
    """(bytes, tensors, metadata, config, seed) of a checkpoint that passes every structural check;
    the header and the config are checked before the tensor data is read."""
    head = fh.read(8)
    n = _header_length(head, size, file)
    raw_header = fh.read(n)
    entries, metadata = _parse_header(raw_header, file)
    config, seed = _check_metadata(metadata, file)
    _check_layout(entries, _expected_layout(config, seed, file), size - 8 - n, file)
    blob = head + raw_header + fh.read(size - 8 - n)
    return blob, _tensors_of(blob, file), metadata, config, seed


def _non_finite(tensors: Mapping[str, torch.Tensor]) -> str | None:
    """The first tensor (by name) holding NaN or inf, else None."""
    return next((k for k in sorted(tensors) if tensors[k].is_floating_point()
                 and not torch.isfinite(tensors[k]).all()), None)


@dataclass(frozen=True)
class _Hashes:
    file_sha256: str
    content_sha256: str
    embedded: str | None
    """The content hash the file carries in its metadata (None in files saved before it existed)."""


def _hashes_of(path: Path) -> _Hashes:
    """Both hashes of a checkpoint file (its structure checked, its config not)."""
    try:
        blob = read_bounded(path, MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path.name} cannot be read ({getattr(exc, 'strerror', None) or exc}).") from None
    n = _header_length(blob[:8], len(blob), path.name)
    _, metadata = _parse_header(blob[8:8 + n], path.name)
    content = content_sha256(_tensors_of(blob, path.name), metadata)
    return _Hashes(hashlib.sha256(blob).hexdigest(), content, metadata.get(CONTENT_KEY))


# ---------------------------------------------------------------------------- manifest and journal
def _read_manifest_raw(directory: Path) -> dict:
    """The manifest with every entry as stored; CheckpointError if the file as a whole is unusable."""
    path = directory / MANIFEST
    if not path.exists() and not path.is_symlink():
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "checkpoints": {}}
    try:
        manifest = read_json(path, MAX_JSON_BYTES)
    except OSError as exc:
        raise CheckpointError(f"{path} cannot be read ({exc.strerror}; a link is refused); {_RESTORE}.") from None
    except ValueError as exc:
        raise CheckpointError(f"{path} is {exc}; {_RESTORE}.") from None
    if (not isinstance(manifest, dict) or manifest.get("format") != FORMAT
            or not isinstance(manifest.get("checkpoints"), dict)):
        raise CheckpointError(f"{path} is not a lab checkpoint manifest (no '{FORMAT}' format tag or no "
                              f"'checkpoints' table); {_RESTORE}.")
    if manifest.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        raise CheckpointError(f"{path} is manifest format v{manifest.get('format_version')}; this lab reads "
                              f"v{FORMAT_VERSION} (update the lab or {_RESTORE}).")
    return manifest


def _entry_problem(name: str, entry: object) -> str | None:
    """Why a manifest entry cannot be used (None if it can)."""
    if not isinstance(entry, dict):
        return f"the entry is a {type(entry).__name__}, not an object"
    if not _safe_name(name):
        return "the checkpoint name is not a safe file name"
    for key, kind in _ENTRY_TYPES.items():
        value = entry.get(key)
        ok = {str: isinstance(value, str), bool: isinstance(value, bool), int: _is_int(value) and value >= 0,
              float: isinstance(value, int | float) and not isinstance(value, bool)}[kind]
        if not ok:
            return f"no valid {key!r}" if key in entry else f"no {key!r}"
    if entry["file"] != f"{name}{SUFFIX}":
        return f"'file' is {entry['file']!r}, not {name}{SUFFIX}"
    hashes = [entry[k] for k in ("sha256", CONTENT_KEY) if k in entry]
    if not hashes:
        return "no 'sha256'"
    if not all(isinstance(h, str) and _HEX64.fullmatch(h) for h in hashes):
        return "a hash is not 64 hex digits"
    return None


def read_manifest(directory: Path | str, *, problems: dict[str, str] | None = None) -> dict:
    """The manifest of a checkpoint directory (empty if there is none).

    Raises :class:`CheckpointError` if the file as a whole is unusable (not text, not JSON,
    not a manifest, too large, a link). A malformed entry (not an object, or without a field
    callers use such as ``sha256``, ``kind`` or ``excluded``) is left out with a
    :class:`ManifestWarning`: its checkpoint counts as unlisted (:func:`load_checkpoint`) and the
    others stay usable. Given a dict as ``problems``, the left-out entries are recorded there
    (checkpoint name: why) instead of warned about (the pages show them to the user).
    """
    manifest = _read_manifest_raw(Path(directory))
    bad = {n: p for n, e in manifest["checkpoints"].items() if (p := _entry_problem(n, e))}
    if bad and problems is not None:
        problems.update(bad)
    elif bad:
        warnings.warn(f"{Path(directory) / MANIFEST}: malformed entries treated as missing: "
                      + "; ".join(f"{n!r} ({p})" for n, p in sorted(bad.items())), ManifestWarning, stacklevel=2)
    manifest["checkpoints"] = {n: e for n, e in manifest["checkpoints"].items() if n not in bad}
    return manifest


def _entry_matches(entry: dict, hashes: _Hashes) -> bool:
    # The content hash when the entry has one; older entries only know the file's sha256.
    if CONTENT_KEY in entry:
        return entry[CONTENT_KEY] == hashes.content_sha256
    return entry["sha256"] == hashes.file_sha256


def _entry_for(name: str, record: Mapping[str, Any], hashes: _Hashes, size: int) -> dict:
    """The manifest entry of a checkpoint saved with training ``record``."""
    try:
        entry = {"file": f"{name}{SUFFIX}", "sha256": hashes.file_sha256, CONTENT_KEY: hashes.content_sha256,
                 "bytes": size, "task": record["task"], "kind": record["kind"], "seed": record["seed"],
                 "mode": record["mode"], "heldout_agreement": round(record["heldout_agreement"], 6),
                 "criterion_attainable": record["criterion_attainable"], "excluded": record["excluded"]}
    except (KeyError, TypeError) as exc:
        raise CheckpointError(f"the training record of {name} lacks a usable {exc} field.") from None
    if problem := _entry_problem(name, entry):
        raise CheckpointError(f"the training record of {name} gives a malformed manifest entry ({problem}).")
    return entry


def _read_journal(path: Path) -> dict | None:
    """A journal ``{"name", "entry", "record"}`` if it is well formed, else None."""
    try:
        journal = read_json(path, MAX_JSON_BYTES)
    except (OSError, ValueError):
        return None
    ok = (isinstance(journal, dict) and isinstance(journal.get("record"), dict)
          and path.name == f".{journal.get('name')}{PENDING_SUFFIX}"
          and _entry_problem(journal["name"], journal.get("entry")) is None and CONTENT_KEY in journal["entry"])
    return journal if ok else None


def _repair_locked(directory: Path, manifest: dict) -> tuple[list[str], list[Path]]:
    """Apply every complete journal to ``manifest`` (in place); (names repaired, journals done)."""
    repaired, done = [], []
    for path in sorted(directory.glob(f".*{PENDING_SUFFIX}")):
        journal = _read_journal(path)
        done.append(path)  # under the lock no save is running: every journal is finished or dead
        if journal is None:
            continue
        name, entry = journal["name"], journal["entry"]
        try:
            complete = _hashes_of(directory / entry["file"]).content_sha256 == entry[CONTENT_KEY]
        except CheckpointError:
            complete = False
        if not complete:
            continue  # the save died before its file was in place: the old file (if any) is untouched
        if manifest["checkpoints"].get(name) != entry:
            manifest["checkpoints"][name] = entry
            repaired.append(name)
        write_json(directory / f"{name}.json", journal["record"])  # missing, or an older run's
    return repaired, done


def repair_directory(directory: Path | str) -> list[str]:
    """Finish the saves in ``directory`` that a killed process left undone; the names repaired.

    For every journal ``.<name>.pending``: if the checkpoint file's content hash is the one
    the journal records, its manifest entry and its training record are written;
    otherwise the save died before its file was in place and the old file is left as it was.
    Either way the journal is removed. Runs under the directory lock, so no save is in
    progress while it looks. Loading and saving call it when needed.
    """
    directory = Path(directory)
    if not any(directory.glob(f".*{PENDING_SUFFIX}")):
        return []
    with directory_lock(directory, _LOCK):
        manifest = _read_manifest_raw(directory)
        repaired, done = _repair_locked(directory, manifest)
        if repaired:
            write_json(directory / MANIFEST, manifest)
        for path in done:
            path.unlink(missing_ok=True)
    return repaired


# ---------------------------------------------------------------------------- save and load
def _save_step_done(step: str) -> None:
    """After each save step ("journal", "file", "record", "manifest"); tests replace it to kill a save."""


def save_checkpoint(agent: Agent, record: dict, directory: Path | str, name: str | None = None) -> Path:
    """Save weights + config atomically, write the JSON record beside it, update the manifest.

    Returns the checkpoint path. ``record`` is the training record of
    :func:`labcore.training.behaviour_cloning.train_seeds` (task, kind, seed, mode, agreement, ...).

    Checked before anything is written (:class:`CheckpointError`): the name (from ``record``
    or ``name``) is safe (no separators, no ``..``); the record's kind is the agent's; the file
    would pass every check of :func:`load_checkpoint`; the manifest is readable; the target is
    not a link. The journaled steps of the module docstring run under the directory lock and
    also finish any save a killed process left undone (:func:`repair_directory`).
    """
    directory = Path(directory)
    if name is not None:
        stem = _check_name_part("checkpoint name", name)
    else:
        stem = checkpoint_name(record["task"], record["kind"], record["seed"], record["mode"],
                               record.get("train_config", {}).get("train_episodes"))
    if record.get("kind") != agent.config.kind:
        raise CheckpointError(f"the record's kind {record.get('kind')!r} is not the agent's kind "
                              f"{agent.config.kind!r}; save the record that came with this agent.")
    path = directory / f"{stem}{SUFFIX}"
    if path.is_symlink():
        raise CheckpointError(f"{path} is a symbolic link; the lab does not write through links (remove it).")
    tensors = {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}
    metadata = {"format": FORMAT, "format_version": str(FORMAT_VERSION),
                "config": json.dumps(asdict(agent.config), sort_keys=True),
                "task": record["task"], "seed": str(record["seed"]), "mode": record["mode"]}
    metadata[CONTENT_KEY] = content_sha256(tensors, metadata)
    data = safetensors_save(tensors, metadata=metadata)
    try:  # never write a file that load_checkpoint would refuse
        _parse(io.BytesIO(data), len(data), path.name)
        if bad := _non_finite(tensors):
            raise CheckpointError(f"{path.name} would hold NaN or inf in {bad!r} (did training diverge?)")
    except CheckpointError as exc:
        raise CheckpointError(f"Not saved: {str(exc).rstrip('.')}.") from None
    entry = _entry_for(stem, record, _Hashes(hashlib.sha256(data).hexdigest(), metadata[CONTENT_KEY], None),
                       len(data))
    _read_manifest_raw(directory)  # an unusable manifest stops the save before anything is written
    journal = directory / f".{stem}{PENDING_SUFFIX}"
    with directory_lock(directory, _LOCK):
        manifest = _read_manifest_raw(directory)
        write_json(journal, {"name": stem, "entry": entry, "record": record})
        _save_step_done("journal")
        try:
            atomic_write(path, lambda tmp: tmp.write_bytes(data))
        except Exception:
            journal.unlink(missing_ok=True)  # the old file (if any) is untouched: nothing to finish
            raise
        _save_step_done("file")
        write_json(directory / f"{stem}.json", record)
        _save_step_done("record")
        manifest["checkpoints"][stem] = entry
        _, done = _repair_locked(directory, manifest)  # this save's journal, and any a killed save left
        write_json(directory / MANIFEST, manifest)
        _save_step_done("manifest")
        for finished in done:
            finished.unlink(missing_ok=True)
    return path


@dataclass(frozen=True)
class LoadedAgent:
    """A loaded agent, its identity and its manifest entry (if it has one)."""

    agent: Agent
    name: str
    task: str
    seed: int
    mode: str
    entry: dict | None


def _unlisted_entry(path: Path, hashes: _Hashes, metadata: dict, config: AgentConfig) -> dict | None:
    """The entry of an unlisted file verified by its own content hash, rebuilt from the training
    record beside it and recorded in the manifest; None without a record that matches the file."""
    name = path.name.removesuffix(SUFFIX)
    try:
        entry = _entry_for(name, read_json(path.with_suffix(".json"), MAX_JSON_BYTES), hashes, path.stat().st_size)
    except (CheckpointError, OSError, ValueError):
        return None
    if (entry["task"], entry["kind"], str(entry["seed"]), entry["mode"]) != (
            metadata.get("task"), config.kind, metadata.get("seed"), metadata.get("mode")):
        return None
    try:
        with directory_lock(path.parent, _LOCK):
            manifest = _read_manifest_raw(path.parent)
            if _entry_problem(name, manifest["checkpoints"].get(name)) is not None:
                manifest["checkpoints"][name] = entry
                write_json(path.parent / MANIFEST, manifest)
    except (OSError, CheckpointError) as exc:
        warnings.warn(f"{name}: verified but not recorded in the manifest ({exc}).", ManifestWarning, stacklevel=4)
    return entry


def _verified_entry(path: Path, hashes: _Hashes, metadata: dict, config: AgentConfig) -> dict | None:
    """The manifest entry ``path`` is verified by (repairing the manifest if needed), or CheckpointError."""
    name = path.name.removesuffix(SUFFIX)
    corrupt = CheckpointError(f"{path.name} is corrupt: its weights do not match the content hash stored inside "
                              "it; restore it or retrain it.")
    stored = _read_manifest_raw(path.parent)["checkpoints"].get(name)
    problem = None if stored is None else _entry_problem(name, stored)
    if stored is not None and problem is None and _entry_matches(stored, hashes):
        if hashes.embedded not in (None, hashes.content_sha256):
            raise corrupt
        return stored
    journal = _read_journal(path.parent / f".{name}{PENDING_SUFFIX}")
    if journal is not None and journal["entry"][CONTENT_KEY] == hashes.content_sha256:
        try:  # a save killed after writing this file: finish it
            repair_directory(path.parent)
        except (OSError, CheckpointError) as exc:
            warnings.warn(f"{name}: verified by its journal, manifest not repaired ({exc}).", ManifestWarning,
                          stacklevel=3)
        return journal["entry"]
    if stored is not None and problem is None:
        raise CheckpointError(f"{path.name} does not match its manifest entry (content hash differs): the file is "
                              "corrupt or was changed; restore it or retrain it.")
    if hashes.embedded is not None:
        if hashes.embedded != hashes.content_sha256:
            raise corrupt
        return _unlisted_entry(path, hashes, metadata, config)
    why = "has no entry in" if stored is None else f"has a malformed entry ({problem}) in"
    raise CheckpointError(f"{path.name} {why} {path.parent / MANIFEST} and carries no content hash of its own, so "
                          "its integrity cannot be checked; re-save it with save_checkpoint (or pass verify=False "
                          "if you trust it).")


def load_checkpoint(path: Path | str, *, verify: bool = True) -> LoadedAgent:
    """Load a checkpoint written by :func:`save_checkpoint`, or fail with one clear sentence.

    Checks, in order, each failure a :class:`CheckpointError` naming the file:

    1. the path ends in ``.safetensors`` and is not a symbolic link (the only way a file name
       resolves outside its folder: :func:`checkpoint_name` allows no separator or ``..``);
    2. before any tensor data is read: the header is at most ``MAX_HEADER_BYTES``, from a lab
       checkpoint of this format version; the config's integers are integers (not strings,
       floats or booleans) in ``1..CONFIG_INT_CAPS``, its floats finite, at most
       ``MAX_PARAMETERS`` weights, its kind known or a design-study variant matching it
       (``b2.layernorm-open-g1``); the tensors have exactly the names, shapes and dtypes the
       config implies (float32; float64 or int64 is refused, never cast) and tile the file;
    3. integrity (skipped with ``verify=False``): the manifest entry matches (its content hash,
       or the file sha256 of an older entry) and so does a content hash stored in the file; else
       a file matching the journal of a killed save is accepted and the manifest repaired. A file with **no usable manifest entry** loads only if it carries its own
       content hash (every save since content hashes does) and that matches; its entry is then
       rebuilt from the record beside it and recorded (None without one). Else it is refused;
    4. the weights are finite.

    Only then is the agent built, loaded strictly and frozen (no gradients).
    """
    given = Path(path)
    if given.suffix != SUFFIX:
        raise CheckpointError(f"{given} is not a checkpoint file name (a checkpoint ends in {SUFFIX}).")
    if given.is_symlink():
        raise CheckpointError(f"{given} is a symbolic link; the lab loads only real files in their folder (copy "
                              "the file instead).")
    if not given.is_file():
        raise CheckpointError(f"There is no checkpoint file at {given}.")
    path = given.parent.resolve() / given.name
    try:
        fh = open_regular_file(path)  # O_NOFOLLOW: a link swapped in since the check is refused too
    except OSError as exc:
        raise CheckpointError(f"{path.name} cannot be opened ({exc.strerror}); use a regular file.") from None
    with fh:
        blob, tensors, metadata, config, seed = _parse(fh, os.fstat(fh.fileno()).st_size, path.name)
    hashes = _Hashes(hashlib.sha256(blob).hexdigest(), content_sha256(tensors, metadata), metadata.get(CONTENT_KEY))
    entry = None
    if verify:
        entry = _verified_entry(path, hashes, metadata, config)
    else:
        with contextlib.suppress(CheckpointError):
            entry = read_manifest(path.parent)["checkpoints"].get(path.stem)
    if bad := _non_finite(tensors):
        raise CheckpointError(f"{path.name} holds non-finite weights (NaN or inf in {bad!r}); restore a good copy "
                              "or retrain it.")
    agent = Agent(config, seed=seed)
    try:
        agent.load_state_dict(tensors, strict=True)
    except RuntimeError:
        raise CheckpointError(f"{path.name} holds weights that do not fit its own config; retrain it.") from None
    agent.eval()
    for p in agent.parameters():
        p.requires_grad_(False)
    return LoadedAgent(agent, path.stem, metadata.get("task", ""), seed, metadata.get("mode", ""), entry)


# ---------------------------------------------------------------------------- directories
def find_checkpoints(directory: Path | str = BUNDLED_DIR, *, task: str | None = None,
                     kind: str | None = None, mode: str = "fast",
                     include_excluded: bool = False) -> list[tuple[str, dict]]:
    """Manifest entries ``(name, entry)`` matching a task/kind, sorted by seed.

    Seeds flagged as excluded (below the 95% agreement criterion) are left out unless asked,
    malformed entries always (:func:`read_manifest`).
    """
    found = [(name, e) for name, e in read_manifest(directory)["checkpoints"].items()
             if (task is None or e["task"] == task) and (kind is None or e["kind"] == kind)
             and e["mode"] == mode and (include_excluded or not e["excluded"])]
    return sorted(found, key=lambda item: (item[1]["task"], item[1]["kind"], item[1]["seed"]))


def verify_directory(directory: Path | str = BUNDLED_DIR) -> list[str]:
    """Problems with a checkpoint directory, empty if sound; changes nothing.

    Reports malformed manifest entries, missing, linked or unreadable files, files whose hash
    differs from their entry (content hash, or the file sha256 of older entries) and journals
    of killed saves (:func:`repair_directory` finishes them).
    """
    directory = Path(directory)
    problems = []
    for name, entry in sorted(_read_manifest_raw(directory)["checkpoints"].items()):
        if problem := _entry_problem(name, entry):
            problems.append(f"{name}: malformed manifest entry ({problem})")
        elif not (directory / entry["file"]).exists() and not (directory / entry["file"]).is_symlink():
            problems.append(f"{name}: listed in the manifest but {entry['file']} is missing")
        else:
            try:
                if not _entry_matches(entry, _hashes_of(directory / entry["file"])):
                    problems.append(f"{name}: {'content hash' if CONTENT_KEY in entry else 'sha256'} differs "
                                    "from the manifest")
            except CheckpointError as exc:
                problems.append(f"{name}: {exc}")
    problems += [f"{p.name}: journal of a killed save (repair_directory finishes it)"
                 for p in sorted(directory.glob(f".*{PENDING_SUFFIX}"))]
    return problems


def upgrade_manifest(directory: Path | str) -> list[str]:
    """Add content hashes to the entries that only have a file sha256; the problems found.

    Each file is first verified against the sha256 its entry records; a file that fails (or
    is missing, a link or unreadable) keeps its old entry and is reported. The checkpoint
    files are not changed. Run once on a directory written before content hashes existed:
    ``python -c "from labcore.checkpoints import upgrade_manifest as u; print(u('checkpoints'))"``.
    """
    directory = Path(directory)
    problems, upgraded = [], 0
    with directory_lock(directory, _LOCK):
        manifest = _read_manifest_raw(directory)
        for name, entry in sorted(manifest["checkpoints"].items()):
            if _entry_problem(name, entry) or CONTENT_KEY in entry:
                continue
            try:
                hashes = _hashes_of(directory / entry["file"])
            except CheckpointError as exc:
                problems.append(f"{name}: not upgraded ({exc})")
                continue
            if hashes.file_sha256 != entry["sha256"]:
                problems.append(f"{name}: not upgraded (sha256 differs from the manifest)")
            else:
                entry[CONTENT_KEY] = hashes.content_sha256
                upgraded += 1
        if upgraded:
            write_json(directory / MANIFEST, manifest)
    return problems
