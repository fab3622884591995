"""Checkpoints: weights + config in safetensors, written atomically, listed in a manifest.

safetensors holds tensors and a string-to-string header only, so loading never executes
code (no pickle). Every file is written to a temporary name in the same directory and moved
into place with ``os.replace``, so a crash never leaves a half-written checkpoint. The
manifest (``manifest.json``) records each file's sha256; loading checks it. Names derive from
what a checkpoint is (task, kind, seed, schedule), never from a timestamp, so the same
training run maps to the same file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from labcore.agents import Agent
from labcore.config import AgentConfig
from labcore.io import atomic_write, write_json

FORMAT = "ctlab-agent"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SUFFIX = ".safetensors"
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
"""The pre-trained agents shipped with the lab."""


class CheckpointError(ValueError):
    """A checkpoint cannot be used; the message says why in one sentence."""


def checkpoint_name(task: str, kind: str, seed: int, mode: str = "fast", episodes: int | None = None) -> str:
    """File stem of a checkpoint, derived from what it is.

    >>> checkpoint_name("dual", "b1", 3)
    'dual-b1-s3'
    >>> checkpoint_name("wagering", "b2_ws", 0, mode="paper", episodes=4000)
    'wagering-b2_ws-s0-paper4000'
    """
    stem = f"{task}-{kind}-s{seed}"
    return stem if mode == "fast" else f"{stem}-paper{episodes}"


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (the manifest's integrity check)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _manifest_lock(directory: Path) -> Iterator[None]:
    # Several training processes may finish at once: serialise manifest updates.
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".manifest.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_manifest(directory: Path | str) -> dict:
    """The manifest of a checkpoint directory (empty if there is none)."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "checkpoints": {}}
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    if manifest.get("format") != FORMAT or not isinstance(manifest.get("checkpoints"), dict):
        raise CheckpointError(f"{path} is not a lab checkpoint manifest.")
    return manifest


def save_checkpoint(agent: Agent, record: dict, directory: Path | str, name: str | None = None) -> Path:
    """Save weights + config atomically, write the JSON record beside it, update the manifest.

    Returns the checkpoint path. ``record`` is the training record of
    :func:`labcore.training.train_agent` (task, kind, seed, mode, agreement, ...).
    """
    directory = Path(directory)
    name = name or checkpoint_name(record["task"], record["kind"], record["seed"], record["mode"],
                                   record.get("train_config", {}).get("train_episodes"))
    path = directory / f"{name}{SUFFIX}"
    tensors = {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}
    metadata = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "config": json.dumps(asdict(agent.config), sort_keys=True),
        "task": record["task"],
        "seed": str(record["seed"]),
        "mode": record["mode"],
    }
    atomic_write(path, lambda tmp: save_file(tensors, str(tmp), metadata=metadata))
    write_json(directory / f"{name}.json", record)
    entry = {
        "file": path.name,
        "sha256": sha256_of(path),
        "bytes": path.stat().st_size,
        "task": record["task"],
        "kind": record["kind"],
        "seed": record["seed"],
        "mode": record["mode"],
        "heldout_agreement": round(record["heldout_agreement"], 6),
        "criterion_attainable": record["criterion_attainable"],
        "excluded": record["excluded"],
    }
    with _manifest_lock(directory):
        manifest = read_manifest(directory)
        manifest["checkpoints"][name] = entry
        write_json(directory / MANIFEST, manifest)
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


def load_checkpoint(path: Path | str, *, verify: bool = True) -> LoadedAgent:
    """Load a checkpoint written by :func:`save_checkpoint`, or fail with one clear sentence.

    Checks, in order: the file exists; its sha256 matches the manifest entry (if listed and
    ``verify``); it parses as safetensors; its header says it is a lab checkpoint of this
    format version; its config is valid; its tensors fit that config exactly.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"There is no checkpoint file at {path}.")
    name = path.name.removesuffix(SUFFIX)
    entry = None
    manifest_path = path.parent / MANIFEST
    if manifest_path.exists():
        entry = read_manifest(path.parent)["checkpoints"].get(name)
        if verify and entry is not None and sha256_of(path) != entry["sha256"]:
            raise CheckpointError(
                f"{path.name} does not match its manifest entry (sha256 differs): the file is corrupt or was changed.")
    try:
        with open(path, "rb") as fh:
            header_len = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(header_len)) if 0 < header_len < 10_000_000 else None
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError, json.JSONDecodeError):
        raise CheckpointError(f"{path.name} is not a readable checkpoint (corrupt or truncated).") from None
    metadata = (header or {}).get("__metadata__") or {}
    if metadata.get("format") != FORMAT:
        raise CheckpointError(f"{path.name} is not a lab agent checkpoint (foreign file).")
    if metadata.get("format_version") != str(FORMAT_VERSION):
        raise CheckpointError(
            f"{path.name} was written in checkpoint format v{metadata.get('format_version')}; "
            f"this lab reads v{FORMAT_VERSION} (retrain it with `python -m labcore train`).")
    try:
        raw = json.loads(metadata["config"])
        known = {f.name for f in fields(AgentConfig)}
        if set(raw) - known:
            raise ValueError(f"unknown fields {sorted(set(raw) - known)}")
        config = AgentConfig(**raw)
        seed = int(metadata["seed"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path.name} has an invalid agent config ({exc}).") from None
    agent = Agent(config, seed=seed)
    try:
        agent.load_state_dict(tensors, strict=True)
    except RuntimeError:
        raise CheckpointError(f"{path.name} holds weights that do not fit its own config.") from None
    agent.eval()
    for p in agent.parameters():
        p.requires_grad_(False)
    return LoadedAgent(agent, name, metadata.get("task", ""), seed, metadata.get("mode", ""), entry)


def find_checkpoints(directory: Path | str = BUNDLED_DIR, *, task: str | None = None,
                     kind: str | None = None, mode: str = "fast",
                     include_excluded: bool = False) -> list[tuple[str, dict]]:
    """Manifest entries ``(name, entry)`` matching a task/kind, sorted by seed.

    Seeds flagged as excluded (below the 95% agreement criterion) are left out unless asked.
    """
    entries = read_manifest(directory)["checkpoints"]
    found = [
        (name, e) for name, e in entries.items()
        if (task is None or e["task"] == task) and (kind is None or e["kind"] == kind)
        and e["mode"] == mode and (include_excluded or not e["excluded"])
    ]
    return sorted(found, key=lambda item: (item[1]["task"], item[1]["kind"], item[1]["seed"]))


def verify_directory(directory: Path | str = BUNDLED_DIR) -> list[str]:
    """Problems with a checkpoint directory (missing files, hash mismatches); empty if sound."""
    directory = Path(directory)
    problems = []
    for name, entry in read_manifest(directory)["checkpoints"].items():
        path = directory / entry["file"]
        if not path.exists():
            problems.append(f"{name}: listed in the manifest but {entry['file']} is missing")
        elif sha256_of(path) != entry["sha256"]:
            problems.append(f"{name}: sha256 differs from the manifest")
    return problems
