"""The bundled agents' live views, precomputed for every discrete control value.

The one recipe for a live view (the pages' caches in ``ui/data.py`` call it too) and a shipped
cache of them: per bundled checkpoint, ``results/view_cache/<name>.npz`` (Metacognition and
Workspace views) and ``<name>.dual.json`` (Integration and PCI views), built by
``CTLAB_COMPUTE=portable python -m labcore.view_cache build --jobs 2`` (``make view-cache``) and
checked by ``python -m labcore.view_cache check``.

A file is versioned, keyed by its checkpoint's content hash and validated on reading: a view
must store every field of its type, so a file built before a field was added misses, its views
are computed live and a warning names ``make view-cache``, which rebuilds exactly the files that
miss. Arrays are ``.npz`` without pickle. Built in portable compute mode, a fresh computation
equals the files bit for bit on any AVX2 x86-64 CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from labcore import compute
from labcore.budgets import LIVE_BUDGETS
from labcore.config import SELF_MODEL_MODES, AgentConfig, Intervention
from labcore.parallel import process_map

if TYPE_CHECKING:
    from labcore.agents import Agent
    from labcore.measures import MetacognitionView, WorkspaceView
    from labcore.measures_integration import IntegrationReading

ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = ROOT / "results" / "view_cache"
CHECKPOINTS = ROOT / "checkpoints"
FORMAT = "ctlab-view-cache"
VERSION = 1
"""Bump when a view's recipe or this file's layout changes: every older file is then refused."""
E1_TRIALS = LIVE_BUDGETS.metacognition_trials
DUAL_EPISODES = LIVE_BUDGETS.workspace_episodes
INTEGRATION_EPISODES = LIVE_BUDGETS.integration_episodes
PCI_EPISODES = LIVE_BUDGETS.pci_episodes
SLOTS = range(AgentConfig().n_slots + 1)
"""Active workspace slots of the pages' capacity controls: 0 (bus-off) to K."""
WORKSPACE_KINDS = ("b1", "b1_noise", "b1_reg", "b2", "b2_ws", "bc_linear", "bc_mlp", "bc_random")
"""Dual-task kinds the Workspace page offers."""
_TRACE_ARRAYS = ("seeds", "valid", "step_kind", "action", "oracle", "cue", "occupied", "slots")
"""What the Workspace page reads of a trace."""


# ------------------------------------------------------------------------- the recipes


def metacognition_view(
    agent: Agent, seed: int, self_model_mode: str, capacity: int, noise: float = 0.0
) -> MetacognitionView:
    """E1 markers of one wagering agent with ``capacity`` active slots (the pages' live view)."""
    from labcore import measures
    from labcore.interventions import bus_capacity
    from labcore.seeding import episode_seeds

    iv = bus_capacity(
        capacity,
        agent.config.n_slots,
        self_model_mode=self_model_mode,
        workspace_noise=noise,
        seed=seed,
    )
    return measures.metacognition(agent, iv, episode_seeds(seed, "eval", E1_TRIALS))


def workspace_view(
    agent: Agent,
    seed: int,
    capacity: int,
    noise: float = 0.0,
    noise_mode: str = "stored",
    self_model_mode: str = "on",
) -> WorkspaceView:
    """E2 accuracies and broadcast markers of one dual-task agent (the pages' live view)."""
    from labcore import measures
    from labcore.interventions import bus_capacity
    from labcore.seeding import episode_seeds

    iv = bus_capacity(
        capacity,
        agent.config.n_slots,
        self_model_mode=self_model_mode,
        workspace_noise=noise,
        noise_mode=noise_mode,
        seed=seed,
    )
    return measures.workspace(agent, iv, episode_seeds(seed, "eval", DUAL_EPISODES))


def integration_view(
    agent: Agent, seed: int, capacity: int, self_model_mode: str
) -> list[IntegrationReading]:
    """Every integration measure of one dual-task agent (the Integration page's live view)."""
    from labcore import measures_integration
    from labcore.interventions import bus_capacity
    from labcore.seeding import episode_seeds

    mode = self_model_mode if agent.config.self_model else "on"
    iv = bus_capacity(capacity, agent.config.n_slots, self_model_mode=mode)
    runs = measures_integration.integration_runs(
        agent, episode_seeds(seed, "eval", INTEGRATION_EPISODES), iv
    )
    return measures_integration.integration_readings(runs)


def pci_view(agent: Agent, kind: str, seed: int, normalisation: str) -> tuple[float, float]:
    """Mean PCI-A and dPCI of one dual-task agent (the Robustness page's live view)."""
    from labcore import measures
    from labcore.seeding import episode_seeds

    fixed = Intervention(**measures.evaluation_intervention(kind))
    return measures.pci_and_dpci(
        agent, episode_seeds(seed, "eval", PCI_EPISODES), normalisation, fixed=fixed
    )


def recipe() -> dict[str, int]:
    """The budgets a view is computed on (a file built on others is refused)."""
    return {"e1_trials": E1_TRIALS, "dual_episodes": DUAL_EPISODES}


# ------------------------------------------------------------------------- keys and files


def checkpoint_key(path: str | Path) -> str:
    """The content hash of a checkpoint (tensors and metadata): what a cache file must match."""
    from labcore.storage.checkpoints import content_hash_of

    return content_hash_of(path)


def cache_path(checkpoint: str | Path, directory: str | Path = CACHE_DIR) -> Path:
    """The cache file of a checkpoint: ``<directory>/<checkpoint name>.npz``."""
    from labcore.storage.checkpoints import checkpoint_stem

    return Path(directory) / f"{checkpoint_stem(checkpoint) or Path(checkpoint).stem}.npz"


def condition_key(*parts: Any) -> str:
    """A condition as the file names it, e.g. ``meta|zero|4`` or ``ws|2``."""
    return "|".join(str(p) for p in parts)


# ------------------------------------------------------------------------- views <-> arrays


def _slim_trace(trace: Any) -> dict[str, np.ndarray]:
    out = {}
    for name in _TRACE_ARRAYS:
        value = getattr(trace, name)
        if value is not None:
            out[f"trace.{name}"] = value.astype(np.float16) if name == "slots" else value
    for name, value in trace.labels.items():
        out[f"trace.labels.{name}"] = np.asarray(value)
    return out


def view_fields(kind: str) -> tuple[str, ...]:
    """The fields a cached view of ``kind`` ("meta" or "ws") stores: its type's, but the trace."""
    from labcore.measures import MetacognitionView, WorkspaceView

    view_type = MetacognitionView if kind == "meta" else WorkspaceView
    return tuple(f.name for f in fields(view_type) if f.name != "trace")


def _pack(view: Any) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """A view's arrays and scalars (a Metacognition view without its trace)."""
    from labcore.measures import MetacognitionView

    kind = "meta" if isinstance(view, MetacognitionView) else "ws"
    values = {k: getattr(view, k) for k in view_fields(kind)}
    arrays = {k: v for k, v in values.items() if isinstance(v, np.ndarray)}
    scalars = {k: float(v) for k, v in values.items() if k not in arrays}
    return arrays | ({} if kind == "meta" else _slim_trace(view.trace)), scalars


def _restore(
    kind: str,
    arrays: Mapping[str, np.ndarray],
    scalars: Mapping[str, float],
    info: Mapping[str, Any],
) -> Any:
    """The view a page reads, from a file's arrays (``kind``: "meta" or "ws")."""
    from labcore.measures import MetacognitionView, WorkspaceView
    from labcore.rollout import Trace

    stored = {k: v for k, v in arrays.items() if not k.startswith("trace.")} | dict(scalars)
    if kind == "meta":
        return MetacognitionView(**stored, trace=None)
    t = {
        k[len("trace.") :]: v
        for k, v in arrays.items()
        if k.startswith("trace.") and not k.startswith("trace.labels.")
    }
    labels = {
        k[len("trace.labels.") :]: v for k, v in arrays.items() if k.startswith("trace.labels.")
    }
    n, steps = t["valid"].shape
    empty = np.zeros((n, steps, 0), np.float32)  # left out of the cache: no page reading it uses it
    trace = Trace(
        task_id=info["task_id"],
        intervention=Intervention(**info["intervention"]),
        seeds=t["seeds"],
        valid=t["valid"],
        step_kind=t["step_kind"],
        action=t["action"],
        oracle=t["oracle"],
        logits=empty,
        probs=empty,
        confidence=np.full((n, steps), np.nan, np.float32),
        cue=t["cue"],
        reward=np.zeros((n, steps), np.float32),
        h=empty,
        slots=t["slots"].astype(np.float32) if "slots" in t else None,
        occupied=t.get("occupied"),
        z_self=None,
        labels=labels,
    )
    return WorkspaceView(**stored, trace=trace)


# ------------------------------------------------------------------------- building


def conditions_of(task: str, kind: str) -> list[tuple[str, ...]]:
    """The conditions cached for an agent: ``("meta", mode, slots)`` or ``("ws", slots)``."""
    if task == "wagering":
        return [("meta", mode, k) for mode in SELF_MODEL_MODES for k in SLOTS]
    if task == "dual" and kind in WORKSPACE_KINDS:
        return [("ws", k) for k in SLOTS]
    return []


def build_file(checkpoint: str | Path, directory: str | Path = CACHE_DIR) -> Path | None:
    """Compute every cached view of one checkpoint and write its file (None if none is cached)."""
    from labcore.io import atomic_write
    from labcore.storage.checkpoints import load_checkpoint

    loaded = load_checkpoint(checkpoint)  # verifies the stored content hash against the weights
    agent, seed = loaded.agent, loaded.seed
    kind = loaded.entry.get("kind") if loaded.entry else agent.config.kind
    wanted = conditions_of(loaded.task, kind)
    if not wanted:
        return None
    content = checkpoint_key(checkpoint)
    file_hash = hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest()
    arrays: dict[str, np.ndarray] = {}
    views: dict[str, dict[str, Any]] = {}
    info: dict[str, Any] = {}
    for condition in wanted:
        if condition[0] == "meta":
            view = metacognition_view(agent, seed, condition[1], condition[2])
        else:
            view = workspace_view(agent, seed, condition[1])
            info = {"task_id": view.trace.task_id, "intervention": asdict(view.trace.intervention)}
        key = condition_key(*condition)
        packed, scalars = _pack(view)
        arrays.update({f"{key}/{name}": value for name, value in packed.items()})
        views[key] = {
            "scalars": {k: (None if math.isnan(v) else v) for k, v in scalars.items()},
            **info,
        }
    header = {
        "format": FORMAT,
        "version": VERSION,
        "checkpoint": Path(checkpoint).name,
        "task": loaded.task,
        "kind": kind,
        "seed": seed,
        "content_sha256": content,
        "file_sha256": file_hash,
        "views": views,
        "recipe": recipe(),
        "compute": compute.fingerprint(),
    }  # portable: equal on any AVX2 CPU
    target = cache_path(checkpoint, directory)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a file object: savez would add ".npz" to a name
            np.savez_compressed(
                fh, __header__=np.frombuffer(json.dumps(header).encode(), np.uint8), **arrays
            )

    atomic_write(target, write)
    return target


# ------------------------------------------------------------------------- reading


class CacheMiss(LookupError):
    """No usable cached view: the page computes it live. ``kind`` says why ("unreadable",
    "format", "recipe", "checkpoint", "shape": fields differ, those lacking in ``missing``;
    "field": a trace array lacking or a malformed view)."""

    def __init__(self, message: str, kind: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kind, self.missing = kind, tuple(missing)

    def __reduce__(self) -> tuple:
        """Pickled with its record."""
        return (type(self), (str(self), self.kind, self.missing))


def read_cache(path: str | Path, expected: str | None = None) -> dict[str, Any]:
    """The views of one cache file, validated, as ``{condition key: view}``.

    ``expected`` is the checkpoint's content hash. Raises :class:`CacheMiss` in one sentence.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            header = json.loads(npz["__header__"].tobytes())
            data = {k: npz[k] for k in npz.files if k != "__header__"}
    except (OSError, ValueError, KeyError) as exc:
        raise CacheMiss(
            f"{Path(path).name} cannot be read ({type(exc).__name__})", "unreadable"
        ) from None
    _check_header(Path(path).name, header, (FORMAT, VERSION, recipe()), expected)
    views = {}
    for key, entry in header.get("views", {}).items():
        kind = key.split("|")[0]
        arrays = {
            name[len(key) + 1 :]: value
            for name, value in data.items()
            if name.startswith(f"{key}/")
        }
        scalars = {
            k: math.nan if v is None else float(v) for k, v in (entry.get("scalars") or {}).items()
        }
        stored = {*scalars, *(n for n in arrays if not n.startswith("trace."))}
        _same_shape(Path(path).name, key, stored, view_fields(kind))
        trace = [f"trace.{n}" for n in _TRACE_ARRAYS[:-2]] if kind == "ws" else []
        missing = [n for n in trace if n not in arrays]
        if missing:
            raise CacheMiss(
                f"{Path(path).name}: view {key} lacks {', '.join(missing)}", "field", missing
            )
        views[key] = _restore(kind, arrays, scalars, entry)
    return views


def _check_header(
    name: str, header: Mapping[str, Any], wanted: tuple[str, int, Any], expected: str | None
) -> None:
    """Raise :class:`CacheMiss` unless a file's header has the ``wanted`` format, version and
    recipe, and (``expected``) was built from the same weights."""
    form, version, budgets = wanted
    if header.get("format") != form or header.get("version") != version:
        raise CacheMiss(
            f"{name} is {header.get('format')} v{header.get('version')}, not {form} v{version}",
            "format",
        )
    if header.get("recipe") != budgets:
        raise CacheMiss(
            f"{name} was built on {header.get('recipe')}, not the live budgets {budgets}", "recipe"
        )
    if expected is not None and header.get("content_sha256") != expected:
        raise CacheMiss(
            f"{name} was built from another version of {header.get('checkpoint')}", "checkpoint"
        )


def _same_shape(name: str, key: str, stored: Iterable[str], wanted: Iterable[str]) -> None:
    """Raise a ``"shape"`` :class:`CacheMiss` when a view stores other fields than its type."""
    missing = sorted(set(wanted) - set(stored))
    extra = sorted(set(stored) - set(wanted))
    if missing or extra:
        differs = ", ".join(
            [*(f"lacks {n}" for n in missing), *(f"has no {n} field" for n in extra)]
        )
        raise CacheMiss(f"{name}: view {key} {differs}", "shape", tuple(missing))


# ------------------------------------------------------------------------- Integration and PCI

SIDE_FORMAT = "ctlab-view-cache-dual"
SIDE_VERSION = 1
"""Bump when :func:`integration_view` or :func:`pci_view` changes: every older file is refused."""


def side_path(checkpoint: str | Path, directory: str | Path = CACHE_DIR) -> Path:
    """The Integration and PCI views' file of a dual-task checkpoint: ``<name>.dual.json``."""
    from labcore.storage.checkpoints import checkpoint_stem

    return Path(directory) / f"{checkpoint_stem(checkpoint) or Path(checkpoint).stem}.dual.json"


def side_recipe() -> dict[str, Any]:
    """The budgets and normalisations the side views are computed on."""
    from labcore.measures import PCI_NORMALISATIONS

    return {
        "integration_episodes": INTEGRATION_EPISODES,
        "pci_episodes": PCI_EPISODES,
        "pci_kinds": list(LIVE_BUDGETS.pci_kinds),
        "normalisations": sorted(PCI_NORMALISATIONS.values()),
    }


def side_conditions(kind: str, config: AgentConfig) -> tuple[list[str], list[str]]:
    """The Integration (``int|<slots>|<mode>``) and PCI (``pci|<name>``) conditions of an agent."""
    slots = list(SLOTS) if config.workspace else [config.n_slots]
    modes = list(SELF_MODEL_MODES) if config.self_model else ["on"]
    integration = [condition_key("int", k, m) for m in modes for k in slots]
    pci = (
        [condition_key("pci", n) for n in side_recipe()["normalisations"]]
        if kind in LIVE_BUDGETS.pci_kinds
        else []
    )
    return integration, pci


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def build_side_file(checkpoint: str | Path, directory: str | Path = CACHE_DIR) -> Path | None:
    """Compute and write the side file of one dual-task checkpoint (None for another task)."""
    from labcore.io import atomic_write
    from labcore.storage.checkpoints import load_checkpoint

    loaded = load_checkpoint(checkpoint)
    if loaded.task != "dual":
        return None
    agent, seed = loaded.agent, loaded.seed
    kind = loaded.entry.get("kind") if loaded.entry else agent.config.kind
    integration, pci = side_conditions(kind, agent.config)
    views: dict[str, Any] = {}
    for key in integration:
        _, slots, mode = key.split("|")
        views[key] = [
            {k: _number(v) if isinstance(v, float) else v for k, v in r.__dict__.items()}
            for r in integration_view(agent, seed, int(slots), mode)
        ]
    for key in pci:
        views[key] = [_number(v) for v in pci_view(agent, kind, seed, key.split("|")[1])]
    header = {
        "format": SIDE_FORMAT,
        "version": SIDE_VERSION,
        "checkpoint": Path(checkpoint).name,
        "kind": kind,
        "seed": seed,
        "content_sha256": checkpoint_key(checkpoint),
        "recipe": side_recipe(),
        "compute": compute.fingerprint(),
        "views": views,
    }
    target = side_path(checkpoint, directory)
    atomic_write(target, lambda tmp: tmp.write_text(json.dumps(header, indent=0)))
    return target


def read_side(path: str | Path, expected: str | None = None) -> dict[str, Any]:
    """The Integration views (lists of readings) and PCI views (``(PCI-A, dPCI)``) of one side
    file, as ``{condition key: view}``; :class:`CacheMiss` as :func:`read_cache`."""
    from labcore.measures_integration import IntegrationReading

    name = Path(path).name
    try:
        header = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise CacheMiss(f"{name} cannot be read ({type(exc).__name__})", "unreadable") from None
    _check_header(name, header, (SIDE_FORMAT, SIDE_VERSION, side_recipe()), expected)
    nan = lambda v: math.nan if v is None else v  # noqa: E731
    reading = [f.name for f in fields(IntegrationReading)]
    views: dict[str, Any] = {}
    try:
        for key, view in (header.get("views") or {}).items():
            if key.startswith("int|"):
                for r in view:
                    _same_shape(name, key, r, reading)
                views[key] = [
                    IntegrationReading(
                        **{
                            k: nan(v) if k in ("value", "surrogate_mean") else v
                            for k, v in r.items()
                        }
                    )
                    for r in view
                ]
            elif key.startswith("pci|"):
                pci, dpci = (float(nan(v)) for v in view)
                views[key] = (pci, dpci)
    except (TypeError, ValueError) as exc:
        raise CacheMiss(f"{name}: a view is malformed ({type(exc).__name__})", "field") from None
    return views


def read_views(checkpoint: str | Path, directory: str | Path = CACHE_DIR) -> dict[str, Any]:
    """Every shipped view of one checkpoint; a file that misses is left out with a warning."""
    try:
        expected = checkpoint_key(checkpoint)
    except (OSError, ValueError):
        return {}
    views: dict[str, Any] = {}
    for read, where in ((read_cache, cache_path), (read_side, side_path)):
        path = where(checkpoint, directory)
        try:
            views.update(read(path, expected))
        except (CacheMiss, OSError, TypeError, ValueError) as miss:
            if path.exists():  # a file that no longer fits the code: say how to rebuild it
                warnings.warn(
                    f"{miss}; its views are computed live until `make view-cache` rebuilds it",
                    stacklevel=2,
                )
    return views


def _timed_build(
    make: Callable[[str, str], object], checkpoint: str, directory: str
) -> tuple[str, float]:
    """``make(checkpoint, directory)`` on one thread, with its wall seconds."""
    import torch

    torch.set_num_threads(1)
    start = time.perf_counter()
    make(checkpoint, directory)
    return checkpoint, time.perf_counter() - start


def build(
    checkpoints: Iterable[str | Path],
    directory: str | Path = CACHE_DIR,
    jobs: int = 1,
    force: bool = False,
    side: bool = False,
) -> list[Path]:
    """Build the cache files (``side``: the side files) of ``checkpoints`` that are missing or
    miss, ``jobs`` at a time (resumable: a file that still matches is kept)."""
    files = (side_path, read_side, build_side_file), (cache_path, read_cache, build_file)
    path_of, read, make = files[0] if side else files[1]
    todo = []
    for ckpt in checkpoints:
        target = path_of(ckpt, directory)
        if not force and target.exists():
            try:
                read(target, checkpoint_key(ckpt))
                continue
            except CacheMiss:
                pass
        todo.append((make, str(ckpt), str(directory)))
    print(f"{len(todo)} {'side file' if side else 'file'}(s) to build", flush=True)

    def built(_: int, result: tuple[str, float]) -> None:
        name = side_path(result[0], "").name if side else Path(result[0]).name
        print(f"{name}: {result[1]:.1f} s", flush=True)

    process_map(_timed_build, todo, jobs, on_result=built)
    return [path_of(c, directory) for _, c, _ in todo]


def check(
    checkpoints: Sequence[str | Path], directory: str | Path = CACHE_DIR, side: bool = False
) -> list[str]:
    """One sentence per checkpoint whose cache file (``side``: side file) misses."""
    path_of, read = (side_path, read_side) if side else (cache_path, read_cache)
    problems = []
    for ckpt in checkpoints:
        try:
            read(path_of(ckpt, directory), checkpoint_key(ckpt))
        except (CacheMiss, ValueError) as exc:  # ValueError: the checkpoint itself is broken
            problems.append(str(exc))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.view_cache build|check [--only NAME ...] [--jobs N] [--out DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.view_cache", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument(
        "--only", nargs="*", default=None, help="checkpoint stems, e.g. wagering-b2_ws-s0"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=str(CACHE_DIR))
    parser.add_argument("--checkpoints", default=str(CHECKPOINTS))
    parser.add_argument("--force", action="store_true", help="rebuild files that still match")
    args = parser.parse_args(argv)
    from labcore.storage.checkpoints import read_manifest

    fast = [
        e
        for e in read_manifest(args.checkpoints)["checkpoints"].values()
        if e["mode"] == "fast"
        and (args.only is None or cache_path(e["file"], "").stem in args.only)
    ]
    folder = Path(args.checkpoints)
    chosen = sorted(folder / e["file"] for e in fast if conditions_of(e["task"], e["kind"]))
    dual = sorted(folder / e["file"] for e in fast if e["task"] == "dual")
    if args.command == "build":
        start = time.perf_counter()
        build(chosen, args.out, args.jobs, args.force)
        build(dual, args.out, args.jobs, args.force, side=True)
        print(f"done in {time.perf_counter() - start:.0f} s", flush=True)
        return 0
    problems = check(chosen, args.out) + check(dual, args.out, side=True)
    print(
        "\n".join(problems)
        or f"{len(chosen)} cache file(s) and {len(dual)} side file(s) match their checkpoints"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
