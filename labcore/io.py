"""Files written so that a crash never leaves a half-written one behind, and read so that a
link or an oversized file cannot redirect or exhaust the reader."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Write through ``write(tmp_path)`` into a temporary file beside ``path``, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a result file is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json(path: Path, payload: Any, *, indent: int | None = 1) -> None:
    """Atomically write ``payload`` as JSON."""
    atomic_write(
        Path(path),
        lambda tmp: tmp.write_text(json.dumps(payload, indent=indent, sort_keys=True) + "\n"),
    )


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, so a corrupt or hostile file cannot
    exhaust memory: ValueError if larger, OSError if a symbolic link or not a regular file
    (``O_NOFOLLOW`` refuses a link swapped in late; ``O_NONBLOCK`` keeps a FIFO from blocking)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        size = os.fstat(fd).st_size
        if size > limit:
            raise ValueError(f"too large ({size:,} bytes, the cap is {limit:,})")
        return fh.read(limit + 1)
