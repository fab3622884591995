"""One-off: rewrite a folder of xz checkpoints (``NAME.safetensors.xz`` + ``NAME.json.xz``, byte
planes inside) as plain ``NAME.safetensors`` files with the training record in their metadata.

Run: ``python -m labcore.storage.convert_xz DIR [DIR ...]``. For every ``NAME.safetensors.xz``:
the byte planes are turned back into float32 tensors, the ``byte_planes`` key dropped, the record
``NAME.json.xz`` added as metadata ``record``; the new file is written atomically and must load
(:func:`~labcore.storage.checkpoints.load_checkpoint`, content hash checked) to the content hash
the old file carried and to the same record, before the old two files are removed. A folder's
``manifest.json`` and lock are removed once every checkpoint in it is converted.
"""

from __future__ import annotations

import json
import lzma
import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load as numpy_load
from safetensors.torch import save as safetensors_save

from labcore.io import atomic_write
from labcore.storage.checkpoints import (
    CONTENT_KEY,
    RECORD_KEY,
    _as_tables,
    content_sha256,
    load_checkpoint,
    read_record,
)


def convert(old: Path) -> Path:
    """Convert one ``NAME.safetensors.xz`` (and its record); the new file's path."""
    name = old.name.removesuffix(".safetensors.xz")
    inner = lzma.decompress(old.read_bytes())
    n = int.from_bytes(inner[:8], "little")
    metadata = json.loads(inner[8 : 8 + n])["__metadata__"]
    spec = json.loads(metadata.pop("byte_planes", "{}"))
    tensors = {}
    for key, planes in numpy_load(inner).items():
        if key in spec:
            assert spec[key]["dtype"] == "F32", spec[key]
            planes = planes.T.copy().view("<f4").reshape(spec[key]["shape"])
        tensors[key] = torch.from_numpy(np.ascontiguousarray(planes))
    assert content_sha256(tensors, metadata) == metadata[CONTENT_KEY], name
    record_file = old.with_name(f"{name}.json.xz")
    record = json.loads(lzma.decompress(record_file.read_bytes()))
    metadata[RECORD_KEY] = json.dumps(_as_tables(record), sort_keys=True, separators=(",", ":"))
    new = old.with_name(f"{name}.safetensors")
    data = safetensors_save(tensors, metadata)
    atomic_write(new, lambda tmp: tmp.write_bytes(data))
    loaded = load_checkpoint(new)
    assert loaded.entry is not None and loaded.entry[CONTENT_KEY] == metadata[CONTENT_KEY], name
    assert all(
        torch.equal(tensors[k].view(torch.int32), v.view(torch.int32))
        for k, v in loaded.agent.state_dict().items()
    ), name
    assert read_record(new.parent, name) == record, name
    old.unlink()
    record_file.unlink()
    return new


def main(argv: list[str]) -> int:
    """Convert every xz checkpoint of each folder in ``argv``; 0 when done."""
    for directory in map(Path, argv):
        done = [convert(p) for p in sorted(directory.glob("*.safetensors.xz"))]
        if not any(directory.glob("*.safetensors.xz")):
            for leftover in ("manifest.json", ".manifest.lock"):
                (directory / leftover).unlink(missing_ok=True)
        print(f"{directory}: {len(done)} checkpoint(s) converted")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
