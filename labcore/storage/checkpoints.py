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

The file format, names and content hash: :mod:`labcore.storage.checkpoint_format`; the
manifest, journal, lock and whole-directory checks: :mod:`labcore.storage.checkpoint_manifest`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from safetensors.torch import save as safetensors_save

from labcore.agents.plain import PlainGRUPolicy
from labcore.io import atomic_write, directory_lock, open_regular_file, read_json, write_json
from labcore.storage.checkpoint_format import (
    CONTENT_KEY,
    FORMAT,
    FORMAT_VERSION,
    NETWORK_KEY,
    PLAIN_GRU,
    SUFFIX,
    CheckpointError,
    Network,
    StoredConfig,
    _check_name_part,
    _Hashes,
    _non_finite,
    _parse,
    build_network,
    checkpoint_name,
    content_sha256,
)
from labcore.storage.checkpoint_manifest import (
    _LOCK,
    MANIFEST,
    MAX_JSON_BYTES,
    PENDING_SUFFIX,
    ManifestWarning,
    _entry_for,
    _entry_matches,
    _entry_problem,
    _read_journal,
    _read_manifest_raw,
    _repair_locked,
    read_manifest,
    repair_directory,
)


# ---------------------------------------------------------------------------- save and load
def _save_step_done(step: str) -> None:
    """After each save step ("journal", "file", "record", "manifest"); tests replace it to kill a
    save."""


def save_checkpoint(
    agent: Network, record: dict, directory: Path | str, name: str | None = None
) -> Path:
    """Save weights + config atomically, write the JSON record beside it, update the manifest.

    Returns the checkpoint path. ``record`` is the training record of
    :func:`labcore.training.behaviour_cloning.train_seeds` (task, kind, seed, mode, agreement, ...)
    or of :func:`labcore.training.neurogym_trainer.train_network`; ``agent`` one of the lab's
    agents or Song et al.'s plain GRU (its file says so: metadata ``network``).

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
            f"{agent.config.kind!r}; save the record that came with this agent."
        )
    path = directory / f"{stem}{SUFFIX}"
    if path.is_symlink():
        raise CheckpointError(
            f"{path} is a symbolic link; the lab does not write through links (remove it)."
        )
    tensors = {k: v.detach().contiguous().clone() for k, v in agent.state_dict().items()}
    metadata = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "config": json.dumps(asdict(agent.config), sort_keys=True),
        "task": record["task"],
        "seed": str(record["seed"]),
        "mode": record["mode"],
    }
    if isinstance(agent, PlainGRUPolicy):
        metadata[NETWORK_KEY] = PLAIN_GRU
    metadata[CONTENT_KEY] = content_sha256(tensors, metadata)
    data = safetensors_save(tensors, metadata=metadata)
    try:  # never write a file that load_checkpoint would refuse
        _parse(io.BytesIO(data), len(data), path.name)
        if bad := _non_finite(tensors):
            raise CheckpointError(
                f"{path.name} would hold NaN or inf in {bad!r} (did training diverge?)"
            )
    except CheckpointError as exc:
        raise CheckpointError(f"Not saved: {str(exc).rstrip('.')}.") from None
    entry = _entry_for(
        stem,
        record,
        _Hashes(hashlib.sha256(data).hexdigest(), metadata[CONTENT_KEY], None),
        len(data),
    )
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
        _, done = _repair_locked(
            directory, manifest
        )  # this save's journal, and any a killed save left
        write_json(directory / MANIFEST, manifest)
        _save_step_done("manifest")
        for finished in done:
            finished.unlink(missing_ok=True)
    return path


@dataclass(frozen=True)
class LoadedAgent:
    """A loaded agent (or plain GRU), its identity and its manifest entry (if it has one)."""

    agent: Network
    name: str
    task: str
    seed: int
    mode: str
    entry: dict | None


def _unlisted_entry(
    path: Path, hashes: _Hashes, metadata: dict, config: StoredConfig
) -> dict | None:
    """The entry of an unlisted file verified by its own content hash, rebuilt from the training
    record beside it and recorded in the manifest; None without a record that matches the file."""
    name = path.name.removesuffix(SUFFIX)
    try:
        entry = _entry_for(
            name, read_json(path.with_suffix(".json"), MAX_JSON_BYTES), hashes, path.stat().st_size
        )
    except (CheckpointError, OSError, ValueError):
        return None
    if (entry["task"], entry["kind"], str(entry["seed"]), entry["mode"]) != (
        metadata.get("task"),
        config.kind,
        metadata.get("seed"),
        metadata.get("mode"),
    ):
        return None
    try:
        with directory_lock(path.parent, _LOCK):
            manifest = _read_manifest_raw(path.parent)
            if _entry_problem(name, manifest["checkpoints"].get(name)) is not None:
                manifest["checkpoints"][name] = entry
                write_json(path.parent / MANIFEST, manifest)
    except (OSError, CheckpointError) as exc:
        warnings.warn(
            f"{name}: verified but not recorded in the manifest ({exc}).",
            ManifestWarning,
            stacklevel=4,
        )
    return entry


def _verified_entry(
    path: Path, hashes: _Hashes, metadata: dict, config: StoredConfig
) -> dict | None:
    """The manifest entry ``path`` is verified by (repairing the manifest if needed), or
    CheckpointError."""
    name = path.name.removesuffix(SUFFIX)
    corrupt = CheckpointError(
        f"{path.name} is corrupt: its weights do not match the content hash stored inside "
        "it; restore it or retrain it."
    )
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
            warnings.warn(
                f"{name}: verified by its journal, manifest not repaired ({exc}).",
                ManifestWarning,
                stacklevel=3,
            )
        return journal["entry"]
    if stored is not None and problem is None:
        raise CheckpointError(
            f"{path.name} does not match its manifest entry (content hash differs): the file is "
            "corrupt or was changed; restore it or retrain it."
        )
    if hashes.embedded is not None:
        if hashes.embedded != hashes.content_sha256:
            raise corrupt
        return _unlisted_entry(path, hashes, metadata, config)
    why = "has no entry in" if stored is None else f"has a malformed entry ({problem}) in"
    raise CheckpointError(
        f"{path.name} {why} {path.parent / MANIFEST} and carries no content hash of its own, so "
        "its integrity cannot be checked; re-save it with save_checkpoint (or pass verify=False "
        "if you trust it)."
    )


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
       a file matching the journal of a killed save is accepted and the manifest repaired. A file
       with **no usable manifest entry** loads only if it carries its own
       content hash (every save since content hashes does) and that matches; its entry is then
       rebuilt from the record beside it and recorded (None without one). Else it is refused;
    4. the weights are finite.

    Only then is the agent built, loaded strictly and frozen (no gradients).
    """
    given = Path(path)
    if given.suffix != SUFFIX:
        raise CheckpointError(
            f"{given} is not a checkpoint file name (a checkpoint ends in {SUFFIX})."
        )
    if given.is_symlink():
        raise CheckpointError(
            f"{given} is a symbolic link; the lab loads only real files in their folder (copy "
            "the file instead)."
        )
    if not given.is_file():
        raise CheckpointError(f"There is no checkpoint file at {given}.")
    path = given.parent.resolve() / given.name
    try:
        fh = open_regular_file(path)  # O_NOFOLLOW: a link swapped in since the check is refused too
    except OSError as exc:
        raise CheckpointError(
            f"{path.name} cannot be opened ({exc.strerror}); use a regular file."
        ) from None
    with fh:
        blob, tensors, metadata, config, seed = _parse(fh, os.fstat(fh.fileno()).st_size, path.name)
    hashes = _Hashes(
        hashlib.sha256(blob).hexdigest(),
        content_sha256(tensors, metadata),
        metadata.get(CONTENT_KEY),
    )
    entry = None
    if verify:
        entry = _verified_entry(path, hashes, metadata, config)
    else:
        with contextlib.suppress(CheckpointError):
            entry = read_manifest(path.parent)["checkpoints"].get(path.stem)
    if bad := _non_finite(tensors):
        raise CheckpointError(
            f"{path.name} holds non-finite weights (NaN or inf in {bad!r}); restore a good copy "
            "or retrain it."
        )
    agent = build_network(config, seed)
    try:
        agent.load_state_dict(tensors, strict=True)
    except RuntimeError:
        raise CheckpointError(
            f"{path.name} holds weights that do not fit its own config; retrain it."
        ) from None
    agent.eval()
    for p in agent.parameters():
        p.requires_grad_(False)
    return LoadedAgent(
        agent, path.stem, metadata.get("task", ""), seed, metadata.get("mode", ""), entry
    )
