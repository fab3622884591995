"""Checkpoint directories: the manifest, the journals of saves in progress, the directory lock,
and the checks, repairs and upgrades of a whole directory.

The manifest (``manifest.json``) records each checkpoint's file (``NAME.safetensors.xz``, or
``NAME.safetensors`` if it was saved raw before issue 33), its content hash and file sha256 and the
fields callers index (task, kind, seed, ...). Beside each checkpoint is its training record,
``NAME.json.xz`` (or ``NAME.json``): :func:`read_record` reads either. A save
(:func:`labcore.storage.checkpoints.save_checkpoint`)
journals its entry in ``.<name>.pending`` first; :func:`repair_directory` finishes a save a killed
process left undone. Every write holds the directory lock. What is guaranteed and what is not:
docs/reliability.md, section "Checkpoints".
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from labcore import LabWarning
from labcore.findings import Problem
from labcore.io import atomic_write, directory_lock, read_json, write_json
from labcore.io import sha256_of as sha256_of  # re-export: the manifest's "sha256"
from labcore.storage.checkpoint_container import read_json_xz, xz_compress
from labcore.storage.checkpoint_format import (
    CONTENT_KEY,
    FORMAT,
    FORMAT_VERSION,
    SUFFIX,
    SUFFIXES,
    CheckpointError,
    _Hashes,
    _hashes_of,
    _is_int,
    _safe_name,
)

MANIFEST = "manifest.json"
PENDING_SUFFIX = ".pending"
"""Journal of a save in progress: ``.<name>.pending`` beside the checkpoint."""
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "checkpoints"
"""The pre-trained agents shipped with the lab."""
MAX_JSON_BYTES = 16 << 20
"""Largest manifest, journal or training record read (16 MiB; a compressed record's cap is on its
decompressed text): the bundled manifest is ~25 KB, the largest record ~170 KB."""
RECORD_SUFFIX = ".json"
"""Suffix of a raw training record (every record saved before issue 33)."""
COMPRESSED_RECORD_SUFFIX = ".json.xz"
"""Suffix of a compressed training record (what a save writes: the same JSON text, xz)."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_ENTRY_TYPES = {
    "file": str,
    "task": str,
    "kind": str,
    "seed": int,
    "mode": str,
    "heldout_agreement": float,
    "criterion_attainable": bool,
    "excluded": bool,
}
"""Fields every manifest entry has (callers index them directly) and their JSON types."""
_RESTORE = "restore it from version control or a backup"
_LOCK = ".manifest.lock"
"""Every write to a checkpoint directory holds this lock (several trainings may finish at once);
not reentrant, so nothing under it takes it again."""


class ManifestWarning(LabWarning):
    """A manifest entry is malformed and treated as missing, or a verified file was not recorded.

    ``names`` are the checkpoints it is about; ``kind`` is ``"entry"`` (malformed entries, each
    with its problem in ``problems``), ``"not_recorded"`` (a verified file whose entry could not
    be written) or ``"not_repaired"`` (a save's journal that could not be finished).
    """

    def __init__(
        self,
        message: str,
        kind: str = "entry",
        names: tuple[str, ...] = (),
        problems: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.names, self.problems = kind, tuple(names), dict(problems or {})


# ---------------------------------------------------------------------------- manifest and journal
def _read_manifest_raw(directory: Path) -> dict:
    """The manifest with every entry as stored; CheckpointError if the file as a whole is
    unusable."""
    path = directory / MANIFEST
    if not path.exists() and not path.is_symlink():
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "checkpoints": {}}
    try:
        manifest = read_json(path, MAX_JSON_BYTES)
    except OSError as exc:
        raise CheckpointError(
            f"{path} cannot be read ({exc.strerror}; a link is refused); {_RESTORE}.", "manifest"
        ) from None
    except ValueError as exc:
        raise CheckpointError(f"{path} is {exc}; {_RESTORE}.", "manifest") from None
    if (
        not isinstance(manifest, dict)
        or manifest.get("format") != FORMAT
        or not isinstance(manifest.get("checkpoints"), dict)
    ):
        raise CheckpointError(
            f"{path} is not a lab checkpoint manifest (no '{FORMAT}' format tag or no "
            f"'checkpoints' table); {_RESTORE}.",
            "manifest",
        )
    if manifest.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} is manifest format v{manifest.get('format_version')}; this lab reads "
            f"v{FORMAT_VERSION} (update the lab or {_RESTORE}).",
            "manifest",
        )
    return manifest


def _entry_problem(name: str, entry: object) -> str | None:
    """Why a manifest entry cannot be used (None if it can)."""
    if not isinstance(entry, dict):
        return f"the entry is a {type(entry).__name__}, not an object"
    if not _safe_name(name):
        return "the checkpoint name is not a safe file name"
    for key, kind in _ENTRY_TYPES.items():
        value = entry.get(key)
        ok = {
            str: isinstance(value, str),
            bool: isinstance(value, bool),
            int: _is_int(value) and value >= 0,
            float: isinstance(value, int | float) and not isinstance(value, bool),
        }[kind]
        if not ok:
            return f"no valid {key!r}" if key in entry else f"no {key!r}"
    if entry["file"] not in [f"{name}{suffix}" for suffix in SUFFIXES]:
        return f"'file' is {entry['file']!r}, not {name}{SUFFIXES[0]} or {name}{SUFFIX}"
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
        warnings.warn(
            ManifestWarning(
                f"{Path(directory) / MANIFEST}: malformed entries treated as missing: "
                + "; ".join(f"{n!r} ({p})" for n, p in sorted(bad.items())),
                "entry",
                tuple(sorted(bad)),
                bad,
            ),
            stacklevel=2,
        )
    manifest["checkpoints"] = {n: e for n, e in manifest["checkpoints"].items() if n not in bad}
    return manifest


def _entry_matches(entry: dict, hashes: _Hashes) -> bool:
    # The content hash when the entry has one; older entries only know the file's sha256.
    if CONTENT_KEY in entry:
        return entry[CONTENT_KEY] == hashes.content_sha256
    return entry["sha256"] == hashes.file_sha256


def _entry_for(name: str, record: Mapping[str, Any], hashes: _Hashes, size: int, file: str) -> dict:
    """The manifest entry of checkpoint file ``file`` saved with training ``record``."""
    try:
        entry = {
            "file": file,
            "sha256": hashes.file_sha256,
            CONTENT_KEY: hashes.content_sha256,
            "bytes": size,
            "task": record["task"],
            "kind": record["kind"],
            "seed": record["seed"],
            "mode": record["mode"],
            "heldout_agreement": round(record["heldout_agreement"], 6),
            "criterion_attainable": record["criterion_attainable"],
            "excluded": record["excluded"],
        }
    except (KeyError, TypeError) as exc:
        raise CheckpointError(
            f"the training record of {name} lacks a usable {exc} field.", "record"
        ) from None
    if problem := _entry_problem(name, entry):
        raise CheckpointError(
            f"the training record of {name} gives a malformed manifest entry ({problem}).",
            "record",
        )
    return entry


# ---------------------------------------------------------------------------- training records
def record_file(directory: Path | str, name: str) -> Path:
    """The training record of checkpoint ``name`` in ``directory``, whichever form it has:
    ``NAME.json.xz`` if it is there, else ``NAME.json`` if that is there, else ``NAME.json.xz``."""
    compressed = Path(directory) / f"{name}{COMPRESSED_RECORD_SUFFIX}"
    raw = Path(directory) / f"{name}{RECORD_SUFFIX}"
    if compressed.exists() or compressed.is_symlink():
        return compressed
    return raw if raw.exists() or raw.is_symlink() else compressed


def read_record(directory: Path | str, name: str) -> Any:
    """The training record of checkpoint ``name`` in ``directory`` (:func:`record_file`).

    Raises OSError (missing, a link, not a regular file) or ValueError whose message completes
    "the file is ...": too large (over ``MAX_JSON_BYTES``, decompressed for ``.json.xz``), not
    a readable xz file, not UTF-8, not valid JSON.
    """
    path = record_file(directory, name)
    if path.name.endswith(COMPRESSED_RECORD_SUFFIX):
        return read_json_xz(path, MAX_JSON_BYTES)
    return read_json(path, MAX_JSON_BYTES)


def _record_text(record: Mapping[str, Any]) -> bytes:
    """A record's JSON text, as :func:`labcore.io.write_json` writes it."""
    return (json.dumps(record, indent=1, sort_keys=True) + "\n").encode()


def write_record(directory: Path | str, name: str, record: Mapping[str, Any]) -> Path:
    """Write checkpoint ``name``'s training record as ``NAME.json.xz``, atomically; its path."""
    path = Path(directory) / f"{name}{COMPRESSED_RECORD_SUFFIX}"
    data = xz_compress(_record_text(record))
    atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return path


def _drop_raw_forms(directory: Path, name: str) -> None:
    """Remove the raw checkpoint and record of ``name`` where its compressed forms are in place
    (a save over a checkpoint saved raw): they are an older run's."""
    for compressed, raw in (
        (f"{name}{SUFFIXES[0]}", f"{name}{SUFFIX}"),
        (f"{name}{COMPRESSED_RECORD_SUFFIX}", f"{name}{RECORD_SUFFIX}"),
    ):
        if (directory / compressed).is_file() and not (directory / compressed).is_symlink():
            (directory / raw).unlink(missing_ok=True)


def _read_journal(path: Path) -> dict | None:
    """A journal ``{"name", "entry", "record"}`` if it is well formed, else None."""
    try:
        journal = read_json(path, MAX_JSON_BYTES)
    except (OSError, ValueError):
        return None
    ok = (
        isinstance(journal, dict)
        and isinstance(journal.get("record"), dict)
        and path.name == f".{journal.get('name')}{PENDING_SUFFIX}"
        and _entry_problem(journal["name"], journal.get("entry")) is None
        and CONTENT_KEY in journal["entry"]
    )
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
            continue  # the save died before its file was in place: the old file (if any) is
            # untouched
        if manifest["checkpoints"].get(name) != entry:
            manifest["checkpoints"][name] = entry
            repaired.append(name)
        if entry["file"].endswith(SUFFIXES[0]):
            write_record(directory, name, journal["record"])  # missing, or an older run's
            _drop_raw_forms(directory, name)  # the journal keeps vouching until the manifest is
            # written
        else:  # a journal of a raw save (written before issue 33)
            write_json(directory / f"{name}{RECORD_SUFFIX}", journal["record"])
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


# ---------------------------------------------------------------------------- directories
def find_checkpoints(
    directory: Path | str = BUNDLED_DIR,
    *,
    task: str | None = None,
    kind: str | None = None,
    mode: str = "fast",
    include_excluded: bool = False,
) -> list[tuple[str, dict]]:
    """Manifest entries ``(name, entry)`` matching a task/kind, sorted by seed.

    Seeds flagged as excluded (below the 95% agreement criterion) are left out unless asked,
    malformed entries always (:func:`read_manifest`).
    """
    found = [
        (name, e)
        for name, e in read_manifest(directory)["checkpoints"].items()
        if (task is None or e["task"] == task)
        and (kind is None or e["kind"] == kind)
        and e["mode"] == mode
        and (include_excluded or not e["excluded"])
    ]
    return sorted(found, key=lambda item: (item[1]["task"], item[1]["kind"], item[1]["seed"]))


def verify_directory(directory: Path | str = BUNDLED_DIR) -> list[Problem]:
    """Problems with a checkpoint directory, empty if sound; changes nothing.

    Reports malformed manifest entries, missing, linked or unreadable files, files whose hash
    differs from their entry (content hash, or the file sha256 of older entries) and journals
    of killed saves (:func:`repair_directory` finishes them).
    """
    directory = Path(directory)
    problems = []
    for name, entry in sorted(_read_manifest_raw(directory)["checkpoints"].items()):
        if problem := _entry_problem(name, entry):
            problems.append(Problem(f"{name}: malformed manifest entry ({problem})", name, "entry"))
        elif (
            not (directory / entry["file"]).exists()
            and not (directory / entry["file"]).is_symlink()
        ):
            problems.append(
                Problem(
                    f"{name}: listed in the manifest but {entry['file']} is missing",
                    name,
                    "missing",
                )
            )
        else:
            try:
                if not _entry_matches(entry, _hashes_of(directory / entry["file"])):
                    problems.append(
                        Problem(
                            f"{name}: {'content hash' if CONTENT_KEY in entry else 'sha256'} "
                            "differs from the manifest",
                            name,
                            "manifest_mismatch",
                        )
                    )
            except CheckpointError as exc:
                problems.append(Problem(f"{name}: {exc}", name, exc.kind))
    problems += [
        Problem(
            f"{p.name}: journal of a killed save (repair_directory finishes it)", p.name, "journal"
        )
        for p in sorted(directory.glob(f".*{PENDING_SUFFIX}"))
    ]
    return problems


def upgrade_manifest(directory: Path | str) -> list[Problem]:
    """Add content hashes to the entries that only have a file sha256; the problems found.

    Each file is first verified against the sha256 its entry records; a file that fails (or
    is missing, a link or unreadable) keeps its old entry and is reported. The checkpoint
    files are not changed. Run once on a directory written before content hashes existed:
    ``python -c "from labcore.storage.checkpoint_manifest import upgrade_manifest as u;
    print(u('checkpoints'))"``.
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
                problems.append(Problem(f"{name}: not upgraded ({exc})", name, exc.kind))
                continue
            if hashes.file_sha256 != entry["sha256"]:
                problems.append(
                    Problem(
                        f"{name}: not upgraded (sha256 differs from the manifest)",
                        name,
                        "manifest_mismatch",
                    )
                )
            else:
                entry[CONTENT_KEY] = hashes.content_sha256
                upgraded += 1
        if upgraded:
            write_json(directory / MANIFEST, manifest)
    return problems
