"""Checkpoints: weights + config in safetensors, written atomically, listed in a manifest.

safetensors holds tensors and a string-to-string header only, so loading never executes
code (no pickle). Names derive from what a checkpoint is (task, kind, seed, schedule), never
from a timestamp, so the same training run maps to the same file. The manifest
(``manifest.json``) records each file's *content hash* (:func:`content_sha256`: the same weights
give the same hash, whatever order safetensors writes its metadata in, raw or compressed) and its
file sha256. A save writes the compressed form, ``<name>.safetensors.xz`` (xz over safetensors
with byte planes: :mod:`labcore.storage.checkpoint_container`); a raw ``<name>.safetensors``
saved before loads as it always did, and :func:`compress_directory` (``python -m
labcore.storage.checkpoints compress DIR``) rewrites a directory of them compressed.

A save runs under the directory lock in steps: (1) a journal ``.<name>.pending`` with the new
manifest entry and training record; (2) the checkpoint file, atomically (temporary file +
``os.replace``); (3) the record ``<name>.json.xz``; (4) the manifest (and a raw file and record of
the same name, an older run's, are removed); then the journal goes. A save
killed after (2) leaves a complete file its journal vouches for, and the next load or save
finishes it (:func:`repair_directory`); killed before (2), it leaves the old file as it was.
What is guaranteed and what is not: docs/reliability.md, section "Checkpoints".

The file format, names and content hash: :mod:`labcore.storage.checkpoint_format`; the
manifest, journal, lock and whole-directory checks: :mod:`labcore.storage.checkpoint_manifest`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import sys
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from safetensors.torch import save as safetensors_save

from labcore.agents.plain import PlainGRUPolicy
from labcore.findings import Problem
from labcore.io import atomic_write, directory_lock, open_regular_file, read_bounded, write_json
from labcore.storage.checkpoint_container import planed, read_xz_bounded, xz_compress
from labcore.storage.checkpoint_format import (
    COMPRESSED_SUFFIX,
    CONTENT_KEY,
    FORMAT,
    FORMAT_VERSION,
    NETWORK_KEY,
    PLAIN_GRU,
    SUFFIX,
    SUFFIXES,
    CheckpointError,
    Network,
    StoredConfig,
    _check_name_part,
    _Hashes,
    _non_finite,
    _parse,
    build_network,
    checkpoint_name,
    checkpoint_stem,
    content_sha256,
)
from labcore.storage.checkpoint_manifest import (
    _LOCK,
    COMPRESSED_RECORD_SUFFIX,
    MANIFEST,
    MAX_JSON_BYTES,
    PENDING_SUFFIX,
    RECORD_SUFFIX,
    ManifestWarning,
    _entry_for,
    _entry_matches,
    _entry_problem,
    _read_journal,
    _read_manifest_raw,
    _repair_locked,
    read_manifest,
    read_record,
    repair_directory,
    write_record,
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
            f"{agent.config.kind!r}; save the record that came with this agent.",
            "record",
        )
    path = directory / f"{stem}{COMPRESSED_SUFFIX}"
    if path.is_symlink():
        raise CheckpointError(
            f"{path} is a symbolic link; the lab does not write through links (remove it).",
            "symlink",
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
    data = xz_compress(safetensors_save(*planed(tensors, metadata)))
    try:  # never write a file that load_checkpoint would refuse
        _parse(io.BytesIO(data), len(data), path.name)
        if bad := _non_finite(tensors):
            raise CheckpointError(
                f"{path.name} would hold NaN or inf in {bad!r} (did training diverge?)",
                "non_finite",
                tensor=bad,
            )
    except CheckpointError as exc:
        raise CheckpointError(
            f"Not saved: {str(exc).rstrip('.')}.", exc.kind, tensor=exc.tensor, field=exc.field
        ) from None
    entry = _entry_for(
        stem,
        record,
        _Hashes(hashlib.sha256(data).hexdigest(), metadata[CONTENT_KEY], None),
        len(data),
        path.name,
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
        write_record(directory, stem, record)
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
    name = checkpoint_stem(path)
    try:
        entry = _entry_for(
            name, read_record(path.parent, name), hashes, path.stat().st_size, path.name
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
            ManifestWarning(
                f"{name}: verified but not recorded in the manifest ({exc}).",
                "not_recorded",
                (name,),
            ),
            stacklevel=4,
        )
    return entry


def _verified_entry(
    path: Path, hashes: _Hashes, metadata: dict, config: StoredConfig
) -> dict | None:
    """The manifest entry ``path`` is verified by (repairing the manifest if needed), or
    CheckpointError."""
    name = checkpoint_stem(path)
    corrupt = CheckpointError(
        f"{path.name} is corrupt: its weights do not match the content hash stored inside "
        "it; restore it or retrain it.",
        "hash_mismatch",
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
                ManifestWarning(
                    f"{name}: verified by its journal, manifest not repaired ({exc}).",
                    "not_repaired",
                    (name,),
                ),
                stacklevel=3,
            )
        return journal["entry"]
    if stored is not None and problem is None:
        raise CheckpointError(
            f"{path.name} does not match its manifest entry (content hash differs): the file is "
            "corrupt or was changed; restore it or retrain it.",
            "manifest_mismatch",
        )
    if hashes.embedded is not None:
        if hashes.embedded != hashes.content_sha256:
            raise corrupt
        return _unlisted_entry(path, hashes, metadata, config)
    why = "has no entry in" if stored is None else f"has a malformed entry ({problem}) in"
    raise CheckpointError(
        f"{path.name} {why} {path.parent / MANIFEST} and carries no content hash of its own, so "
        "its integrity cannot be checked; re-save it with save_checkpoint (or pass verify=False "
        "if you trust it).",
        "unverifiable",
    )


def load_checkpoint(path: Path | str, *, verify: bool = True) -> LoadedAgent:
    """Load a checkpoint written by :func:`save_checkpoint`, or fail with one clear sentence.

    Checks, in order, each failure a :class:`CheckpointError` naming the file:

    1. the path ends in ``.safetensors.xz`` or ``.safetensors`` and is not a symbolic link (the
       only way a file name resolves outside its folder: :func:`checkpoint_name` allows no
       separator or ``..``);
    2. a compressed file is at most ``MAX_FILE_BYTES``, one whole, intact xz stream (CRC64) that
       decompresses to at most ``MAX_FILE_BYTES`` (a decompression bomb is refused as it
       decompresses) in at most 128 MiB of memory; every check below is of the safetensors file
       inside it;
    3. before any tensor data is read: the header is at most ``MAX_HEADER_BYTES``, from a lab
       checkpoint of this format version; the config's integers are integers (not strings,
       floats or booleans) in ``1..CONFIG_INT_CAPS``, its floats finite, at most
       ``MAX_PARAMETERS`` weights, its kind known or a design-study variant matching it
       (``b2.layernorm-open-g1``); the tensors have exactly the names, shapes and dtypes the
       config implies (float32; float64 or int64 is refused, never cast; a tensor stored as
       byte planes by the logical dtype and shape its file records, the planes ``U8`` of shape
       ``[4, numel]``) and tile the file;
    4. integrity (skipped with ``verify=False``): the manifest entry matches (its content hash,
       or the file sha256 of an older entry) and so does a content hash stored in the file; else
       a file matching the journal of a killed save is accepted and the manifest repaired. A file
       with **no usable manifest entry** loads only if it carries its own
       content hash (every save since content hashes does) and that matches; its entry is then
       rebuilt from the record beside it and recorded (None without one). Else it is refused;
    5. the weights are finite.

    Only then is the agent built, loaded strictly and frozen (no gradients).
    """
    given = Path(path)
    name = checkpoint_stem(given)
    if name is None:
        raise CheckpointError(
            f"{given} is not a checkpoint file name (a checkpoint ends in {SUFFIXES[0]} or "
            f"{SUFFIXES[1]}).",
            "not_a_checkpoint",
        )
    if given.is_symlink():
        raise CheckpointError(
            f"{given} is a symbolic link; the lab loads only real files in their folder (copy "
            "the file instead).",
            "symlink",
        )
    if not given.is_file():
        raise CheckpointError(f"There is no checkpoint file at {given}.", "missing")
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
            entry = read_manifest(path.parent)["checkpoints"].get(name)
    if bad := _non_finite(tensors):
        raise CheckpointError(
            f"{path.name} holds non-finite weights (NaN or inf in {bad!r}); restore a good copy "
            "or retrain it.",
            "non_finite",
            tensor=bad,
        )
    agent = build_network(config, seed)
    try:
        agent.load_state_dict(tensors, strict=True)
    except RuntimeError:
        raise CheckpointError(
            f"{path.name} holds weights that do not fit its own config; retrain it.",
            "weights_mismatch",
        ) from None
    agent.eval()
    for p in agent.parameters():
        p.requires_grad_(False)
    return LoadedAgent(agent, name, metadata.get("task", ""), seed, metadata.get("mode", ""), entry)


# ---------------------------------------------------------------------------- compressing
@dataclass(frozen=True)
class Compression:
    """What :func:`compress_directory` did: the names rewritten, and the problems it left."""

    checkpoints: list[str]
    """Checkpoints rewritten as ``NAME.safetensors.xz`` (their raw files removed)."""
    records: list[str]
    """Training records rewritten as ``NAME.json.xz`` (their raw files removed)."""
    problems: list[Problem]
    """One sentence per checkpoint or record left as it was, and why (with its name and kind)."""


def _checked(path: Path) -> tuple[bytes, dict, dict]:
    """(file bytes, logical tensors, logical metadata) of a checkpoint file that passes every
    structural check of :func:`load_checkpoint` (either form)."""
    try:
        fh = open_regular_file(path)
    except OSError as exc:
        raise CheckpointError(
            f"{path.name} cannot be opened ({exc.strerror}); use a regular file."
        ) from None
    with fh:
        blob, tensors, metadata, _, _ = _parse(fh, os.fstat(fh.fileno()).st_size, path.name)
    return blob, tensors, metadata


def _compressed_entry(directory: Path, name: str, entry: dict) -> dict:
    """Write ``NAME.safetensors.xz`` from the raw ``NAME.safetensors`` its ``entry`` lists (which
    stays); the new entry. The raw file must match ``entry``, the new bytes give back the same
    logical tensors and metadata, else CheckpointError and nothing is written."""
    blob, tensors, metadata = _checked(directory / entry["file"])
    hashes = _Hashes(
        hashlib.sha256(blob).hexdigest(),
        content_sha256(tensors, metadata),
        metadata.get(CONTENT_KEY),
    )
    if not _entry_matches(entry, hashes) or hashes.embedded not in (None, hashes.content_sha256):
        raise CheckpointError(
            f"{entry['file']} does not match its manifest entry", "manifest_mismatch"
        )
    target = directory / f"{name}{COMPRESSED_SUFFIX}"
    data = xz_compress(safetensors_save(*planed(tensors, metadata)))
    _, back, back_metadata, _, _ = _parse(io.BytesIO(data), len(data), target.name)
    if back_metadata != metadata or content_sha256(back, back_metadata) != hashes.content_sha256:
        raise CheckpointError(f"{target.name} would not hold the same weights and metadata")
    if target.is_symlink():
        raise CheckpointError(f"{target.name} is a symbolic link (remove it)")
    atomic_write(target, lambda tmp: tmp.write_bytes(data))
    return {
        **entry,
        "file": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        CONTENT_KEY: hashes.content_sha256,
        "bytes": len(data),
    }


def _compress_record(directory: Path, name: str) -> bool:
    """Rewrite the raw record ``NAME.json`` as ``NAME.json.xz`` holding the same bytes, checked by
    decompressing it, then remove the raw one; whether there was one. CheckpointError if a
    compressed record of other content is already there (both are kept)."""
    raw = directory / f"{name}{RECORD_SUFFIX}"
    if not raw.is_file() or raw.is_symlink():
        return False
    target = directory / f"{name}{COMPRESSED_RECORD_SUFFIX}"
    try:
        text = read_bounded(raw, MAX_JSON_BYTES)
        if not target.exists():
            data = xz_compress(text)
            atomic_write(target, lambda tmp: tmp.write_bytes(data))
        same = read_xz_bounded(target, MAX_JSON_BYTES)[1] == text
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{raw.name} is not compressed ({exc})") from None
    if not same:
        raise CheckpointError(f"{target.name} and {raw.name} differ; keep the right one")
    raw.unlink()
    return True


def compress_directory(directory: Path | str) -> Compression:
    """Rewrite the raw checkpoints and records of a directory compressed, losslessly.

    For every checkpoint in the manifest, under the directory lock (one checkpoint at a time):

    1. a raw ``NAME.safetensors`` must pass every structural check of :func:`load_checkpoint`
       and match its manifest entry; ``NAME.safetensors.xz`` is written from it atomically (the
       same tensors and metadata, byte planes inside) after its bytes are read back to the same
       logical tensors and metadata; the entry's ``file``, ``sha256`` and ``bytes`` change (a
       content hash is added to an entry that had none), its content hash does not;
    2. the manifest is written; the compressed file is read back from disk, every check again,
       and only if its content hash is the entry's is the raw file removed;
    3. a raw record ``NAME.json`` is written as ``NAME.json.xz`` (its very bytes, checked by
       decompressing them) and removed.

    A checkpoint or record that fails a check stays as it was and is reported. Idempotent: a
    second run finds nothing to do, and a run killed at any point leaves files that load (a raw
    file beside a compressed one is never read:
    :func:`~labcore.storage.checkpoint_format.checkpoint_file` prefers the compressed
    one) and is finished by the next run. Files not in the manifest are left alone. Killed
    saves are finished first (:func:`repair_directory`). The command:
    ``python -m labcore.storage.checkpoints compress DIR``.
    """
    directory = Path(directory)
    repair_directory(directory)
    done = Compression([], [], [])
    for name in sorted(_read_manifest_raw(directory)["checkpoints"]):
        with directory_lock(directory, _LOCK):
            manifest = _read_manifest_raw(directory)
            entry = manifest["checkpoints"].get(name)
            if problem := _entry_problem(name, entry):
                done.problems.append(
                    Problem(
                        f"{name}: left as it is (malformed manifest entry: {problem})",
                        name,
                        "entry",
                    )
                )
                continue
            raw = directory / f"{name}{SUFFIX}"
            try:
                if entry["file"] == raw.name:
                    entry = _compressed_entry(directory, name, entry)
                    manifest["checkpoints"][name] = entry
                    write_json(directory / MANIFEST, manifest)
                    done.checkpoints.append(name)
                if raw.exists() or raw.is_symlink():
                    _, tensors, metadata = _checked(directory / entry["file"])
                    if content_sha256(tensors, metadata) != entry[CONTENT_KEY]:
                        raise CheckpointError(
                            f"{entry['file']} does not match its manifest entry",
                            "manifest_mismatch",
                        )
                    raw.unlink()
                if _compress_record(directory, name):
                    done.records.append(name)
            except CheckpointError as exc:
                done.problems.append(
                    Problem(f"{name}: left as it is ({str(exc).rstrip('.')}).", name, exc.kind)
                )
    return done


def main(argv: list[str] | None = None) -> int:
    """``python -m labcore.storage.checkpoints compress DIR [DIR ...]``: :func:`compress_directory`
    on each; exit status 1 if any problem is left."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.storage.checkpoints",
        description="Rewrite a checkpoint directory's raw checkpoints and records compressed "
        "(.safetensors.xz, .json.xz), losslessly: the content hashes do not change.",
    )
    parser.add_argument("command", choices=("compress",))
    parser.add_argument("directories", nargs="+", type=Path)
    args = parser.parse_args(argv)
    status = 0
    for directory in args.directories:
        if not directory.is_dir():
            print(f"{directory}: nothing compressed (not a directory)")
            status = 1
            continue
        try:
            done = compress_directory(directory)
        except (CheckpointError, OSError) as exc:  # an unusable manifest, an unwritable folder
            print(f"{directory}: nothing compressed ({exc})")
            status = 1
            continue
        print(
            f"{directory}: {len(done.checkpoints)} checkpoint(s) and {len(done.records)} "
            f"record(s) compressed; {len(done.problems)} problem(s)"
        )
        print("\n".join(done.problems) or "", end="\n" if done.problems else "")
        status = status or int(bool(done.problems))
    return status


if __name__ == "__main__":
    sys.exit(main())
