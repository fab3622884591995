"""The compressed form of a checkpoint and of its record: xz over byte planes, lossless.

A checkpoint saved since issue 33 is ``NAME.safetensors.xz``: an xz stream whose content is a
valid safetensors file in which every tensor wider than one byte is stored as a ``U8`` tensor of
shape ``[itemsize, numel]``, its *byte planes* (plane ``k`` holds byte ``k`` of every element's
little-endian representation, as HDF5's and Blosc's shuffle filter lay them out). The
metadata key :data:`PLANES_KEY` records each such tensor's logical dtype and shape; every other
metadata key is the checkpoint's own, unchanged. Float weights compress badly as they are (xz saves
8-9% of the lab's), their sign and exponent bytes well once they sit together (15% in all).
``xz -dc NAME.safetensors.xz > NAME.safetensors`` gives a file any safetensors reader opens, and
:func:`from_byte_planes` (or a numpy transpose) gives back the float32 weights bit for bit.

A record saved since is ``NAME.json.xz``: the JSON text a raw record would hold, xz-compressed
(E4's wager learning curves are most of the records' bytes). Both forms are read within a byte
cap on the decompressed output (:func:`xz_decompress`): a decompression bomb is refused before
it is held in memory. The checks of what the decompressed file holds are the raw file's
(:mod:`labcore.storage.checkpoint_format`); this module knows bytes and tensors, not agents.
"""

from __future__ import annotations

import json
import lzma
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from labcore.io import parse_json, read_bounded

PLANES_KEY = "byte_planes"
"""Metadata key of a compressed checkpoint's inner file: JSON ``{tensor: {"dtype": "F32",
"shape": [...]}}`` for every tensor stored as byte planes. Not part of the checkpoint's own
metadata (nor of its content hash); a checkpoint's own metadata never uses this key."""
XZ_MAGIC = b"\xfd7zXZ\x00"
"""The first six bytes of every xz stream."""
XZ_PRESET = 9 | lzma.PRESET_EXTREME
"""The compression preset of every file the lab writes (``xz -9e``)."""
XZ_MEMORY_LIMIT = 128 << 20
"""Most memory a decompression may use (128 MiB): ``xz -9`` of any file needs 65 MiB, the lab's
own files (dictionary fitted to the file) a few MiB."""

DTYPE_NAMES = {
    torch.float64: "F64",
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
"""safetensors' name of each dtype."""
DTYPE_BYTES = {
    name: torch.empty(0, dtype=dtype).element_size() for dtype, name in DTYPE_NAMES.items()
}
"""Bytes per element of each safetensors dtype name."""
_DTYPES = {name: dtype for dtype, name in DTYPE_NAMES.items()}


class PlaneError(ValueError):
    """A byte-plane table or tensor the lab will not read: ``kind`` says why (``"table"``: the
    table is not a JSON object, ``"entry"``: an entry without a known dtype or a shape,
    ``"missing"``: planes not in the file, ``"mismatch"``: planes that do not hold the recorded
    tensor), ``tensor`` names the tensor where there is one; the message in words."""

    def __init__(self, message: str, kind: str, tensor: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.tensor = kind, tensor

    def __reduce__(self) -> tuple:
        """Pickled with its record."""
        return (type(self), (str(self), self.kind, self.tensor))


class StreamError(ValueError):
    """An xz stream the lab will not read: ``kind`` says why (``"not_xz"``, ``"corrupt"``,
    ``"memory"``: more than :data:`XZ_MEMORY_LIMIT` needed, ``"truncated"``, ``"trailing"``: bytes
    after it, ``"bomb"``: longer than its reader's cap), the message in words."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind

    def __reduce__(self) -> tuple:
        """Pickled with its record."""
        return (type(self), (str(self), self.kind))


class DecompressionBomb(StreamError):
    """An xz stream decompresses to more bytes than its reader's cap."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "bomb")

    def __reduce__(self) -> tuple:
        """Pickled as its message."""
        return (type(self), (str(self),))


# ---------------------------------------------------------------------------- byte planes
def to_byte_planes(tensor: torch.Tensor) -> torch.Tensor:
    """The byte planes of a tensor: ``uint8`` of shape ``[itemsize, numel]``.

    Row ``k`` holds byte ``k`` (little-endian) of every element in row-major order.

    >>> to_byte_planes(torch.tensor([1.0, -2.0])).tolist()
    [[0, 0], [0, 0], [128, 0], [63, 192]]
    """
    t = tensor.detach().cpu().contiguous().reshape(-1)
    if t.numel() == 0:  # torch cannot view an empty tensor's (arbitrary) strides as bytes
        return torch.empty((t.element_size(), 0), dtype=torch.uint8)
    return t.view(torch.uint8).reshape(t.numel(), t.element_size()).t().contiguous()


def from_byte_planes(
    planes: torch.Tensor, dtype: torch.dtype, shape: list[int] | tuple[int, ...]
) -> torch.Tensor:
    """The tensor of ``dtype`` and ``shape`` whose byte planes are ``planes``
    (:func:`to_byte_planes` inverted, bit for bit).

    Raises ValueError if ``planes`` is not ``uint8`` of shape ``[itemsize, prod(shape)]``.

    >>> x = torch.tensor([[1.5, float("nan")], [-0.0, 3e38]])
    >>> torch.equal(from_byte_planes(to_byte_planes(x), x.dtype, x.shape).view(torch.int32),
    ...             x.view(torch.int32))
    True
    """
    itemsize = torch.empty(0, dtype=dtype).element_size()
    if planes.dtype != torch.uint8 or list(planes.shape) != [itemsize, math.prod(shape)]:
        raise ValueError(
            f"{list(planes.shape)} {DTYPE_NAMES.get(planes.dtype, planes.dtype)} planes do not "
            f"hold a {DTYPE_NAMES.get(dtype, dtype)} tensor of shape {list(shape)}"
        )
    if planes.numel() == 0:
        return torch.empty(tuple(shape), dtype=dtype)
    return planes.t().contiguous().reshape(-1).view(dtype).reshape(tuple(shape))


def planed(
    tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]
) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """The tensors and metadata a compressed checkpoint's inner file stores.

    Every tensor wider than one byte becomes its byte planes (:func:`to_byte_planes`), its
    logical dtype and shape recorded under :data:`PLANES_KEY`; the other tensors and every
    metadata key are kept as they are. Raises ValueError if ``metadata`` already uses
    :data:`PLANES_KEY`.
    """
    if PLANES_KEY in metadata:
        raise ValueError(f"the metadata key {PLANES_KEY!r} is reserved for the file's byte planes")
    stored: dict[str, torch.Tensor] = {}
    spec: dict[str, dict[str, Any]] = {}
    for name, tensor in tensors.items():
        if tensor.element_size() > 1:
            stored[name] = to_byte_planes(tensor)
            spec[name] = {"dtype": DTYPE_NAMES[tensor.dtype], "shape": list(tensor.shape)}
        else:
            stored[name] = tensor.detach().cpu().contiguous()
    return stored, {**metadata, PLANES_KEY: json.dumps(spec, sort_keys=True, separators=(",", ":"))}


def planes_spec(metadata: dict[str, str]) -> dict[str, tuple[str, list[int]]]:
    """Pop :data:`PLANES_KEY` from an inner file's metadata: tensor -> (logical dtype, shape).

    Empty when the key is absent (a raw checkpoint, or one compressed by hand). Raises
    ValueError, its message completing "corrupt or truncated: ...", if the table is not JSON, or
    an entry has no known dtype or no shape of non-negative integers.
    """
    text = metadata.pop(PLANES_KEY, None)
    if text is None:
        return {}
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise PlaneError("its byte-plane table is not JSON", "table") from None
    if not isinstance(raw, dict):
        raise PlaneError("its byte-plane table is not a JSON object", "table")
    spec = {}
    for name, entry in raw.items():
        ok = (
            isinstance(entry, dict)
            and entry.get("dtype") in DTYPE_BYTES
            and isinstance(entry.get("shape"), list)
            and all(type(d) is int and d >= 0 for d in entry["shape"])
        )
        if not ok:
            raise PlaneError(f"the byte-plane entry of tensor {name!r} is malformed", "entry", name)
        spec[name] = (entry["dtype"], entry["shape"])
    return spec


def logical_entries(
    entries: Mapping[str, dict], spec: Mapping[str, tuple[str, list[int]]]
) -> dict[str, dict]:
    """The header entries of the logical tensors: each planed tensor's stored ``U8`` entry
    replaced by its logical dtype and shape, the others as stored.

    Raises ValueError ("corrupt or truncated: ...") if a planed tensor is missing from the
    header, or its stored entry is not ``U8`` of shape ``[itemsize, numel]`` of its logical
    dtype and shape.
    """
    logical = dict(entries)
    for name, (dtype, shape) in spec.items():
        stored = entries.get(name)
        if stored is None:
            raise PlaneError(
                f"the byte planes of tensor {name!r} are not in the file", "missing", name
            )
        if stored["dtype"] != "U8" or stored["shape"] != [DTYPE_BYTES[dtype], math.prod(shape)]:
            raise PlaneError(
                f"the byte planes of tensor {name!r} ({stored['dtype']} {stored['shape']}) do not "
                f"match its recorded {dtype} shape {shape}",
                "mismatch",
                name,
            )
        logical[name] = {**stored, "dtype": dtype, "shape": shape}
    return logical


def logical_tensors(
    stored: Mapping[str, torch.Tensor], spec: Mapping[str, tuple[str, list[int]]]
) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors from an inner file's: planed ones restored
    (:func:`from_byte_planes`), the others as stored. ValueError as :func:`logical_entries`."""
    out = dict(stored)
    for name, (dtype, shape) in spec.items():
        if name not in stored:
            raise PlaneError(
                f"the byte planes of tensor {name!r} are not in the file", "missing", name
            )
        try:
            out[name] = from_byte_planes(stored[name], _DTYPES[dtype], shape)
        except ValueError as exc:
            raise PlaneError(
                f"the byte planes of tensor {name!r} are inconsistent ({exc})", "mismatch", name
            ) from None
    return out


# ---------------------------------------------------------------------------- xz
def xz_compress(data: bytes) -> bytes:
    """``data`` as one xz stream (:data:`XZ_PRESET`, CRC64), deterministic for the same bytes.

    The dictionary is the smallest power of two holding ``data`` (4 KiB to 64 MiB): the same
    output as ``xz -9e`` for a file that size, in a few MiB of memory to write and to read.
    """
    dict_size = min(max(1 << 12, 1 << max(len(data) - 1, 1).bit_length()), 1 << 26)
    filters = [{"id": lzma.FILTER_LZMA2, "preset": XZ_PRESET, "dict_size": dict_size}]
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, filters=filters)


def xz_decompress(data: bytes, limit: int) -> bytes:
    """The content of one xz stream, never holding more than ``limit`` bytes of it.

    Raises
    ------
    DecompressionBomb
        The content is longer than ``limit`` (message: "it decompresses to more than ...").
    StreamError
        ``data`` is not one whole, intact xz stream (its ``kind``); the message completes
        "corrupt or truncated: ...": not an xz stream, corrupt (its CRC or structure),
        truncated, trailing bytes after it, or more than :data:`XZ_MEMORY_LIMIT` needed to
        decompress it.
    """
    if not data.startswith(XZ_MAGIC):
        raise StreamError("it is not an xz stream", "not_xz")
    decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=XZ_MEMORY_LIMIT)
    try:
        out = decompressor.decompress(data, max_length=limit + 1)
    except lzma.LZMAError as exc:
        if "memory" in str(exc).lower():
            raise StreamError(
                f"the xz stream needs more than {XZ_MEMORY_LIMIT >> 20} MiB to decompress", "memory"
            ) from None
        raise StreamError(f"the xz stream is corrupt ({exc})", "corrupt") from None
    if len(out) > limit:
        raise DecompressionBomb(f"it decompresses to more than {limit:,} bytes")
    if not decompressor.eof:
        raise StreamError("the xz stream ends early", "truncated")
    if decompressor.unused_data:
        raise StreamError("bytes follow the end of its xz stream", "trailing")
    return out


def read_xz_bounded(path: Path, limit: int) -> tuple[bytes, bytes]:
    """``(compressed bytes, content)`` of an xz file, both at most ``limit`` bytes.

    Raises OSError as :func:`labcore.io.open_regular_file`, ValueError if the file is larger
    than ``limit`` ("too large (...)") or as :func:`xz_decompress`.
    """
    compressed = read_bounded(path, limit)
    return compressed, xz_decompress(compressed, limit)


def read_json_xz(path: Path, limit: int) -> Any:
    """The JSON value of an xz-compressed JSON file (record) of at most ``limit`` bytes
    decompressed.

    Raises OSError as :func:`labcore.io.open_regular_file`, or ValueError whose message completes
    "the file is ...", as :func:`labcore.io.read_json` does.
    """
    try:
        _, raw = read_xz_bounded(path, limit)
    except StreamError as exc:  # the same kind, worded as "the file is ..."
        reason = f"too large ({exc})" if exc.kind == "bomb" else f"not a readable xz file ({exc})"
        raise StreamError(reason, exc.kind) from None
    return parse_json(raw)
