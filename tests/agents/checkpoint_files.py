"""A checkpoint file read and rewritten by hand (tests only): its safetensors header and data.

The tests that forge headers or change a weight go through these helpers. Imported as
``from tests.agents.checkpoint_files import header_of``.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path


def header_of(path: Path) -> tuple[dict, bytes]:
    """The JSON header and the data region of a checkpoint file."""
    blob = Path(path).read_bytes()
    n = struct.unpack("<Q", blob[:8])[0]
    return json.loads(blob[8 : 8 + n]), blob[8 + n :]


def raw_file(path: Path, header: dict, data: bytes = b"") -> None:
    """A checkpoint file of the given header and data region."""
    text = json.dumps(header).encode()
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + data)


def flip_weight_byte(path: Path, at: int = -8) -> None:
    """Flip one bit of byte ``at`` of the file (by default in the tensor data): the file still
    parses, its content hash no longer matches."""
    blob = bytearray(Path(path).read_bytes())
    blob[at] ^= 0x01
    Path(path).write_bytes(bytes(blob))


def refusal(call, *args, **kwargs):
    """The :class:`~labcore.storage.checkpoints.CheckpointError` ``call(*args, **kwargs)``
    raises (the tests read its ``kind``, ``tensor`` and ``field``, not its sentence)."""
    import pytest

    from labcore.storage.checkpoints import CheckpointError

    with pytest.raises(CheckpointError) as caught:
        call(*args, **kwargs)
    return caught.value
