"""Files written so that a crash never leaves a half-written one behind."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Write through ``write(tmp_path)`` into a temporary file beside ``path``, then rename.

    ``os.replace`` within one directory is atomic: readers see the old file or the new one.
    """
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
    atomic_write(Path(path), lambda tmp: tmp.write_text(json.dumps(payload, indent=indent, sort_keys=True) + "\n"))
