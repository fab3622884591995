"""The safetensors file inside a checkpoint of either form, read and rewritten by hand (tests only).

A compressed checkpoint (``.safetensors.xz``) is an xz stream around a safetensors file; a raw one
(``.safetensors``) is that file itself. The tests that forge headers or change a weight go through
these helpers, so a changed byte is a changed weight (the xz stream stays intact) and each check is
reached in both forms. Imported as ``from tests.agents.checkpoint_files import header_of``.
"""

from __future__ import annotations

import json
import lzma
import struct
from pathlib import Path

from labcore.storage.checkpoint_container import xz_compress


def inner_of(path: Path) -> bytes:
    """The safetensors bytes of a checkpoint file (decompressed if it is ``.xz``)."""
    blob = Path(path).read_bytes()
    return lzma.decompress(blob) if str(path).endswith(".xz") else blob


def write_inner(path: Path, inner: bytes) -> None:
    """Write ``inner`` (safetensors bytes) as the checkpoint file ``path``, in its form."""
    Path(path).write_bytes(xz_compress(inner) if str(path).endswith(".xz") else inner)


def header_of(path: Path) -> tuple[dict, bytes]:
    """The JSON header and the data region of a checkpoint's safetensors file."""
    blob = inner_of(path)
    n = struct.unpack("<Q", blob[:8])[0]
    return json.loads(blob[8 : 8 + n]), blob[8 + n :]


def raw_file(path: Path, header: dict, data: bytes = b"") -> None:
    """A checkpoint file of the given header and data region (in the form ``path`` names)."""
    text = json.dumps(header).encode()
    write_inner(path, struct.pack("<Q", len(text)) + text + data)


def flip_weight_byte(path: Path, at: int = -8) -> None:
    """Flip one bit of the tensor data (byte ``at`` of the safetensors file): the file still
    parses (a compressed one is a valid xz stream), its content hash no longer matches."""
    inner = bytearray(inner_of(path))
    inner[at] ^= 0x01
    write_inner(path, bytes(inner))


def as_saved_before_compression(directory: Path, name: str) -> Path:
    """Turn checkpoint ``name`` saved in ``directory`` into what a save before issue 33 wrote: a
    raw ``NAME.safetensors`` (the same tensors and metadata), a raw ``NAME.json`` record and a
    manifest entry naming them; the raw checkpoint's path."""
    from safetensors.torch import load, save

    from labcore.io import sha256_of
    from labcore.storage.checkpoint_container import logical_tensors, planes_spec

    compressed = Path(directory) / f"{name}.safetensors.xz"
    header, _ = header_of(compressed)
    metadata = dict(header["__metadata__"])
    spec = planes_spec(metadata)
    raw = Path(directory) / f"{name}.safetensors"
    raw.write_bytes(save(logical_tensors(load(inner_of(compressed)), spec), metadata=metadata))
    record = Path(directory) / f"{name}.json"
    record.write_bytes(lzma.decompress((Path(directory) / f"{name}.json.xz").read_bytes()))
    manifest = json.loads((Path(directory) / "manifest.json").read_text())
    entry = manifest["checkpoints"][name]
    entry.update(file=raw.name, sha256=sha256_of(raw), bytes=raw.stat().st_size)
    (Path(directory) / "manifest.json").write_text(json.dumps(manifest, indent=1))
    compressed.unlink()
    (Path(directory) / f"{name}.json.xz").unlink()
    return raw


def refusal(call, *args, **kwargs):
    """The :class:`~labcore.storage.checkpoint_format.CheckpointError` ``call(*args, **kwargs)``
    raises (the tests read its ``kind``, ``tensor`` and ``field``, not its sentence)."""
    import pytest

    from labcore.storage.checkpoint_format import CheckpointError

    with pytest.raises(CheckpointError) as caught:
        call(*args, **kwargs)
    return caught.value
