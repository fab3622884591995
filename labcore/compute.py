"""Which floating-point code paths a process computes with, and its compute fingerprint.

The same seed gives the same numbers only on the same code path: PyTorch, MKL, oneDNN, NumPy and
OpenBLAS pick kernels by the CPU. ``CTLAB_COMPUTE`` (or ``--compute``) chooses, on import:

- ``"fast"`` (default): each library's best kernels for this CPU;
- ``"portable"``: every library pinned to a path any AVX2+FMA x86-64 CPU runs identically, Intel
  or AMD (1.3-1.5x slower training; how the bundled agents and result sets are made;
  docs/reliability.md, "Same seed, same weights").

The pins are environment variables each library reads once; a process that imported NumPy or
computed with torch before labcore keeps what it had, and its fingerprint says so.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from pathlib import Path

from labcore.checks import check_choice
from labcore.settings import settings

MODES = ("fast", "portable")
ENV_VAR = "CTLAB_COMPUTE"
PINNED_VAR = "CTLAB_COMPUTE_PINNED"
"""The pins labcore itself set, so a child process can tell them from a user's own."""

FAST_ENV: dict[str, str] = {"MKL_CBWR": "AUTO,STRICT"}
"""Fast mode's only pin: a product rounds the same whatever its operands' alignment (so a seed's
numbers do not depend on which seeds share its training batch)."""

PORTABLE_ENV: dict[str, str] = {
    "MKL_CBWR": "COMPATIBLE,STRICT",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_NUM_THREADS": "1",
}
"""Portable mode's pins (only MKL's ``COMPATIBLE`` branch is the same on AMD and Intel)."""

_MKL_BRANCHES = {
    0: "OFF",
    1: "BRANCH_OFF",
    2: "AUTO",
    3: "COMPATIBLE",
    4: "SSE2",
    6: "SSSE3",
    7: "SSE4_1",
    8: "SSE4_2",
    9: "AVX",
    10: "AVX2",
    11: "AVX512_MIC",
    12: "AVX512",
    13: "AVX512_MIC_E1",
    14: "AVX512_E1",
}
"""MKL's ``mkl_cbwr_get`` codes (``mkl_cbwr.h``)."""
_MKL_STRICT = 0x10000
_MKL_ALL = -1

_configured: dict[str, object] = {}


def requested_mode() -> str:
    """The mode asked for by ``CTLAB_COMPUTE`` ("fast" when unset; ValueError otherwise)."""
    mode = settings().compute.strip().lower() or "fast"
    check_choice(mode, ENV_VAR, MODES)
    return mode


def _cpuinfo(key: str) -> str | None:
    """The value of the first ``key`` line of Linux's /proc/cpuinfo (None where absent)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(key)), None)


def cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux reports them (empty where /proc/cpuinfo is absent)."""
    return set((_cpuinfo("flags") or "").split())


def cpu_supports_portable(flags: set[str] | None = None) -> bool:
    """Can this CPU run portable mode's pinned code path (x86-64 with AVX2 and FMA)?

    >>> cpu_supports_portable({"avx2", "fma", "sse4_2"}), cpu_supports_portable({"sse4_2"})
    (True, False)
    """
    flags = cpu_flags() if flags is None else flags
    machine = platform.machine().lower()
    return machine in ("x86_64", "amd64") and {"avx2", "fma"} <= flags


def configure(mode: str | None = None) -> str:
    """Pin the libraries' code paths for ``mode`` (default: :func:`requested_mode`); return it.

    A variable the user set is kept; portable pins are skipped on a CPU without AVX2 and FMA.
    """
    mode = requested_mode() if mode is None else mode
    check_choice(mode, "compute mode", MODES)
    pins = dict(FAST_ENV)
    if mode == "portable" and cpu_supports_portable():
        pins = dict(PORTABLE_ENV)
    ours: set[str] = _configured.setdefault("ours", set())  # type: ignore[assignment]
    # pins a parent labcore process set (children inherit its environment) are labcore's, not the
    # user's
    ours |= {name for name in settings().compute_pinned.split(",") if name}
    for name in ours - set(pins):  # a pin of the previous mode (e.g. `--compute` after the import)
        os.environ.pop(name, None)
    for name, value in pins.items():
        if name not in os.environ or name in ours:
            os.environ[name] = value
            ours.add(name)
    ours &= set(pins)
    os.environ[ENV_VAR] = mode
    os.environ[PINNED_VAR] = ",".join(sorted(ours))
    _configured.update(
        mode=mode, numpy_before="numpy" in sys.modules, torch_before="torch" in sys.modules
    )
    return mode


def _mkl_state() -> dict[str, str]:
    """MKL's reproducibility branch as MKL itself reports it (read through libtorch_cpu)."""
    try:
        import torch

        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        get = lib.mkl_serv_cbwr_get
        get.restype, get.argtypes = ctypes.c_int, [ctypes.c_int]
        code = get(_MKL_ALL)
        auto = lib.mkl_serv_cbwr_get_auto_branch()
    except (OSError, AttributeError, ImportError):
        return {"mkl_cbwr": "unknown", "mkl_auto_branch": "unknown"}
    branch = _MKL_BRANCHES.get(code & ~_MKL_STRICT, str(code))
    return {
        "mkl_cbwr": branch + (",STRICT" if code & _MKL_STRICT else ""),
        "mkl_auto_branch": _MKL_BRANCHES.get(auto, str(auto)),
    }


def _numpy_state() -> dict[str, object]:
    import numpy as np
    from numpy._core import _multiarray_umath as umath  # where numpy.show_runtime reads it

    dispatch = [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]
    blas = "unknown"
    try:
        from threadpoolctl import threadpool_info

        arch = sorted(
            {
                f"{i.get('internal_api')}:{i.get('architecture')}"
                for i in threadpool_info()
                if i.get("user_api") == "blas"
            }
        )
        blas = ",".join(arch) or "none"
    except ImportError:
        pass
    return {"numpy": np.__version__, "numpy_simd": dispatch, "blas_kernels": blas}


def _cpuid_view() -> tuple[str, str, set[str]] | None:
    """Vendor, brand string and vector flags from CPUID itself (SLEEF inside libtorch_cpu): what
    the libraries see, also under an emulated CPU. None where not available."""
    try:
        import torch

        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        fn = lib.Sleef_x86CpuID
    except (OSError, AttributeError, ImportError):
        return None
    fn.restype, fn.argtypes = (
        None,
        [ctypes.POINTER(ctypes.c_int32), ctypes.c_uint32, ctypes.c_uint32],
    )

    def cpuid(leaf: int, sub: int = 0) -> list[int]:
        regs = (ctypes.c_int32 * 4)()
        fn(regs, leaf, sub)
        return [r & 0xFFFFFFFF for r in regs]  # eax, ebx, ecx, edx

    _, ebx, ecx, edx = cpuid(0)
    vendor = struct.pack("<III", ebx, edx, ecx).decode("ascii", "replace")
    brand = b"".join(struct.pack("<IIII", *cpuid(0x80000002 + i)) for i in range(3))
    leaf1, leaf7 = cpuid(1), cpuid(7)
    flags = {
        name
        for name, on in (
            ("avx", leaf1[2] >> 28 & 1),
            ("fma", leaf1[2] >> 12 & 1),
            ("sse2", leaf1[3] >> 26 & 1),
            ("avx2", leaf7[1] >> 5 & 1),
            ("avx512f", leaf7[1] >> 16 & 1),
        )
        if on
    }
    return vendor, brand.rstrip(b"\0").decode("ascii", "replace").strip(), flags


def _cpu_name() -> tuple[str, str, set[str] | None]:
    view = _cpuid_view() if platform.machine().lower() in ("x86_64", "amd64") else None
    if view is not None:
        return view
    return _cpuinfo("vendor_id") or "unknown", _cpuinfo("model name") or "unknown", None


def cpu_isa(flags: set[str] | None = None) -> str:
    """The widest vector instruction set of the CPU: "avx512", "avx2", "avx", "sse" or "other".

    >>> cpu_isa({"avx512f", "avx2"}), cpu_isa({"avx2", "fma"}), cpu_isa(set())
    ('avx512', 'avx2', 'other')
    """
    flags = cpu_flags() if flags is None else flags
    for isa, flag in (("avx512", "avx512f"), ("avx2", "avx2"), ("avx", "avx"), ("sse", "sse2")):
        if flag in flags:
            return isa
    return "other"


def fingerprint(threads: int | None = None) -> dict[str, object]:
    """The compute fingerprint of this process (JSON-clean): what decides its floating-point
    results; ``portable``: were portable mode's pins in force before any library read them."""
    import torch

    vendor, model, flags = _cpu_name()
    mode = str(_configured.get("mode", requested_mode()))
    out: dict[str, object] = {
        "mode": mode,
        "cpu_vendor": vendor,
        "cpu_model": model,
        "cpu_isa": cpu_isa(flags),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "aten_capability": torch.backends.cpu.get_cpu_capability(),
        **_mkl_state(),
        "onednn_max_isa": os.environ.get("ONEDNN_MAX_CPU_ISA", "default"),
        **_numpy_state(),
        "threads": int(torch.get_num_threads() if threads is None else threads),
    }
    pinned = all(os.environ.get(k) == v for k, v in PORTABLE_ENV.items())
    out["portable"] = bool(
        mode == "portable"
        and pinned
        and not _configured.get("numpy_before")
        and out["aten_capability"] == "AVX2"
        and out["mkl_cbwr"] == "COMPATIBLE,STRICT"
    )
    return out


def code_path(fp: dict[str, object]) -> dict[str, object]:
    """The fields of a fingerprint that decide its numbers (the CPU only in fast mode).

    >>> a = {"portable": True, "torch": "2.13.0", "numpy": "2.4.6", "threads": 1,
    ...      "cpu_vendor": "AuthenticAMD"}
    >>> code_path(a) == code_path({**a, "cpu_vendor": "GenuineIntel"})
    True
    """
    keys = ["portable", "torch", "numpy", "threads"]
    if not fp.get("portable"):
        keys += [
            "cpu_vendor",
            "cpu_isa",
            "aten_capability",
            "mkl_cbwr",
            "mkl_auto_branch",
            "onednn_max_isa",
            "numpy_simd",
            "blas_kernels",
            "machine",
        ]
    return {k: fp.get(k) for k in keys}


def same_code_path(a: dict[str, object], b: dict[str, object]) -> tuple[bool, list[str]]:
    """Do two fingerprints compute on the same code path? ``(same, differing fields)``."""
    if not a or not b:
        return False, ["fingerprint missing"]
    pa, pb = code_path(a), code_path(b)
    differing = sorted(k for k in set(pa) | set(pb) if pa.get(k) != pb.get(k))
    return not differing, differing


def describe(fp: dict[str, object]) -> str:
    """One line for people: the mode, the CPU and the kernels.

    >>> describe({"mode": "portable", "portable": True, "cpu_vendor": "GenuineIntel",
    ...           "cpu_isa": "avx512",
    ...           "aten_capability": "AVX2", "mkl_cbwr": "COMPATIBLE,STRICT", "torch": "2.13.0+cpu",
    ...           "threads": 1})
    'portable (any AVX2 x86-64 CPU) on GenuineIntel avx512: ATen AVX2, MKL COMPATIBLE,STRICT, torch
    2.13.0+cpu, 1 thread(s)'
    """
    mode = (
        "portable (any AVX2 x86-64 CPU)"
        if fp.get("portable")
        else f"{fp.get('mode', '?')} (this CPU's kernels)"
    )
    return (
        f"{mode} on {fp.get('cpu_vendor', '?')} {fp.get('cpu_isa', '?')}: ATen "
        f"{fp.get('aten_capability', '?')}, "
        f"MKL {fp.get('mkl_cbwr', '?')}, torch {fp.get('torch', '?')}, "
        f"{fp.get('threads', '?')} thread(s)"
    )


mode_error: str | None = None
"""Set by :mod:`labcore` when ``CTLAB_COMPUTE`` held an unknown value (fast mode was used)."""

RETRAIN_TOLERANCES: dict[str, float] = {
    "heldout_agreement": 0.01,
    "accuracy": 0.03,
    "auroc": 0.05,
    "confidence": 0.05,
    "skip": 0.05,
    "ece": 0.03,
}
"""How close a bundled E1 agent retrained on another code path must stay to the bundled one
(registered in docs/protocol.md): about twice the seed-to-seed SD."""
