"""The precomputed views of the bundled agents (labcore.view_cache): equal to a fresh computation,
refused when stale, and what the pages read."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from labcore import view_cache as vc
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ("wagering-b2_ws-s1", "dual-b1-s2")


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("view_cache")
    vc.build([checkpoint_file(vc.CHECKPOINTS, stem) for stem in SAMPLE], out)
    return out


def assert_equal_views(cached, fresh) -> None:
    from labcore.measures import MetacognitionView

    names = vc.view_fields("meta" if isinstance(fresh, MetacognitionView) else "ws")
    if not isinstance(fresh, MetacognitionView):
        for name in ("valid", "step_kind", "action", "oracle", "cue", "occupied"):
            assert np.array_equal(getattr(cached.trace, name), getattr(fresh.trace, name)), name
        assert np.allclose(
            cached.trace.slots, fresh.trace.slots, atol=4e-3, rtol=1e-3
        )  # stored as float16
        assert np.array_equal(cached.trace.report_correct(), fresh.trace.report_correct())
        assert cached.means == fresh.means
    for name in names:
        a, b = getattr(cached, name), getattr(fresh, name)
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), name
        else:
            assert same(a, b), (name, a, b)


@pytest.mark.parametrize("stem", SAMPLE)
def test_cached_views_equal_a_fresh_computation(built, stem):
    checkpoint = checkpoint_file(vc.CHECKPOINTS, stem)
    views = vc.read_cache(vc.cache_path(checkpoint, built), vc.checkpoint_key(checkpoint))
    loaded = load_checkpoint(checkpoint)
    assert set(views) == {
        vc.condition_key(*c) for c in vc.conditions_of(loaded.task, loaded.entry["kind"])
    }
    rng = np.random.default_rng(0)
    for key in rng.choice(sorted(views), size=3, replace=False):  # a sample: each takes a rollout
        parts = key.split("|")
        if parts[0] == "meta":
            fresh = vc.metacognition_view(loaded.agent, loaded.seed, parts[1], int(parts[2]))
        else:
            fresh = vc.workspace_view(loaded.agent, loaded.seed, int(parts[1]))
        assert_equal_views(views[key], fresh)


def test_a_changed_checkpoint_or_format_misses_the_cache(built, tmp_path):
    checkpoint = checkpoint_file(vc.CHECKPOINTS, "wagering-b2_ws-s1")
    path = vc.cache_path(checkpoint, built)
    other = vc.checkpoint_key(
        checkpoint_file(vc.CHECKPOINTS, "wagering-b2_ws-s2")
    )  # another agent's weights
    with pytest.raises(vc.CacheMiss) as miss:
        vc.read_cache(path, other)
    assert miss.value.kind == "checkpoint"  # built from another agent's weights
    with np.load(path) as npz:
        header = json.loads(npz["__header__"].tobytes())
        arrays = {k: npz[k] for k in npz.files if k != "__header__"}
    header["version"] = vc.VERSION + 1
    old = tmp_path / path.name
    np.savez_compressed(
        old, __header__=np.frombuffer(json.dumps(header).encode(), np.uint8), **arrays
    )
    with pytest.raises(vc.CacheMiss) as miss:
        vc.read_cache(old)
    assert miss.value.kind == "format"
    header["version"] = vc.VERSION
    broken = tmp_path / "broken.npz"
    np.savez_compressed(
        broken,
        __header__=np.frombuffer(json.dumps(header).encode(), np.uint8),
        **{k: v for k, v in arrays.items() if not k.endswith("/confidence")},
    )
    with pytest.raises(vc.CacheMiss) as miss:
        vc.read_cache(broken)
    assert miss.value.kind == "shape" and "confidence" in miss.value.missing
    assert vc.check([checkpoint], built) == []
    assert vc.check([checkpoint_file(vc.CHECKPOINTS, "wagering-b2_ws-s3")], built), (
        "a missing file is a problem"
    )


def test_the_build_is_resumable(built, capsys):
    vc.build([checkpoint_file(vc.CHECKPOINTS, stem) for stem in SAMPLE], built)
    assert capsys.readouterr().out.split()[0] == "0"  # files left to build: none


def check_shipped_sample(size: int = 2, seed: int = 1) -> None:
    """Every shipped file is current and a sample of its entries equals a fresh computation in this
    process (run in portable compute mode on one thread, as the shipped files were built: MKL's
    compatible branch is reproducible for a fixed thread count)."""
    import torch

    torch.set_num_threads(1)
    shipped = sorted(vc.CACHE_DIR.glob("*.npz"))
    checkpoints = [checkpoint_file(vc.CHECKPOINTS, p.stem) for p in shipped]
    assert vc.check(checkpoints) == []
    rng = np.random.default_rng(seed)
    for checkpoint in rng.choice(checkpoints, size=min(size, len(checkpoints)), replace=False):
        views = vc.read_cache(vc.cache_path(checkpoint), vc.checkpoint_key(checkpoint))
        loaded = load_checkpoint(checkpoint)
        key = str(rng.choice(sorted(views)))
        parts = key.split("|")
        fresh = (
            vc.metacognition_view(loaded.agent, loaded.seed, parts[1], int(parts[2]))
            if parts[0] == "meta"
            else vc.workspace_view(loaded.agent, loaded.seed, int(parts[1]))
        )
        assert_equal_views(views[key], fresh)


def test_the_shipped_cache_matches_its_checkpoints_and_a_fresh_computation():
    """Every shipped file is current (else `make view-cache` rebuilds it) and a sample of its
    entries
    equals a fresh computation, in a child process in portable mode: the files were built in that
    mode, so they are equal bit for bit on any AVX2 x86-64 CPU (this test's own fast mode need not
    be)."""
    shipped = sorted(vc.CACHE_DIR.glob("*.npz"))
    if not shipped:
        pytest.skip("no view cache is shipped in this copy")
    header = json.loads(np.load(shipped[0])["__header__"].tobytes())
    assert header["compute"]["mode"] == "portable", "build the shipped cache with `make view-cache`"
    env = {**os.environ, "CTLAB_COMPUTE": "portable"}
    code = "from tests.test_view_cache import check_shipped_sample; check_shipped_sample()"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_pages_read_a_bundled_view_from_the_cache(built, monkeypatch):
    """A page's view of a bundled agent is a lookup: with the recipe broken, the cached conditions
    still show (and a visitor's own agent, or a noisy condition, is computed live)."""
    from tests.ui.apptest_pages import exceptions, metric_value, open_page
    from ui import data

    monkeypatch.setattr(data, "VIEW_CACHE_DIR", built)
    data._precomputed.clear()

    def broken(*args, **kwargs):
        raise AssertionError("computed live, not looked up")

    monkeypatch.setattr(vc, "metacognition_view", broken)
    at = open_page(
        "metacognition", {"agent": "b2_ws", "seed": "1", "self_model_mode": "zero", "capacity": "2"}
    )
    assert not exceptions(at), exceptions(at)
    sampled = checkpoint_file(vc.CHECKPOINTS, "wagering-b2_ws-s1")
    expected = vc.read_cache(vc.cache_path(sampled, built))
    assert metric_value(at, "Type-2 AUROC") == f"{expected['meta|zero|2'].auroc:.2f}"
    monkeypatch.setattr(vc, "workspace_view", broken)
    at = open_page("workspace", {"agent": "b1", "seed": "2", "capacity": "1"})
    assert not exceptions(at), exceptions(at)
    data._precomputed.clear()


def older_shape(built: Path, out: Path, stem: str, field: str) -> Path:
    """A copy of ``built``'s file of ``stem`` as a build before its views had ``field`` wrote it."""
    source = vc.cache_path(checkpoint_file(vc.CHECKPOINTS, stem), built)
    with np.load(source) as npz:
        header = json.loads(npz["__header__"].tobytes())
        arrays = {k: npz[k] for k in npz.files if k != "__header__"}
    for view in header["views"].values():
        view["scalars"].pop(field)
    out.mkdir(exist_ok=True)
    target = out / source.name
    np.savez_compressed(
        target, __header__=np.frombuffer(json.dumps(header).encode(), np.uint8), **arrays
    )
    return target


def test_a_view_of_another_shape_is_computed_live_with_a_warning(built, tmp_path, monkeypatch):
    """A file built before a view gained a field is a miss, never a TypeError: the page's view is
    computed live and a warning names the command that rebuilds the file."""
    from ui import data

    older_shape(built, tmp_path / "older", "wagering-b2_ws-s1", "aurc")
    with pytest.raises(vc.CacheMiss) as miss:
        vc.read_cache(tmp_path / "older" / "wagering-b2_ws-s1.npz")
    assert (miss.value.kind, miss.value.missing) == ("shape", ("aurc",))
    monkeypatch.setattr(data, "VIEW_CACHE_DIR", tmp_path / "older")
    data._precomputed.clear()
    with pytest.warns(UserWarning, match="make view-cache"):
        view = data.metacognition("b2_ws", 1, "zero", 2, 0.0)
    data._precomputed.clear()
    assert view.trace is not None  # computed live: a shipped view has no trace
    checkpoint = checkpoint_file(vc.CHECKPOINTS, "wagering-b2_ws-s1")
    assert same(view.aurc, vc.read_cache(vc.cache_path(checkpoint, built))["meta|zero|2"].aurc)


def test_make_view_cache_names_the_build_command():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("view-cache:", 1)[1].split()
    assert recipe[recipe.index("labcore.view_cache") + 1] == "build"


# ------------------------------------------------------------------ Integration and PCI views


def readings_equal(cached, fresh) -> bool:
    return len(cached) == len(fresh) and all(
        (a.signal, a.variant, a.measure, a.reason) == (b.signal, b.variant, b.measure, b.reason)
        and same(a.value, b.value)
        and same(a.surrogate_mean, b.surrogate_mean)
        for a, b in zip(cached, fresh, strict=True)
    )


@pytest.fixture(scope="module")
def side(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("side")
    vc.build([checkpoint_file(vc.CHECKPOINTS, "dual-b1-s2")], out, side=True)
    return out


def test_side_views_equal_a_fresh_computation_and_cover_every_control(side):
    path = checkpoint_file(vc.CHECKPOINTS, "dual-b1-s2")
    views = vc.read_side(vc.side_path(path, side), vc.checkpoint_key(path))
    loaded = load_checkpoint(path)
    integration, pci = vc.side_conditions("b1", loaded.agent.config)
    assert set(views) == {*integration, *pci}
    assert len(integration) == len(vc.SLOTS)  # B1: every capacity, no self-model control
    fresh = vc.integration_view(loaded.agent, loaded.seed, 0, "on")
    assert readings_equal(views["int|0|on"], fresh)
    pair = vc.pci_view(loaded.agent, "b1", loaded.seed, "zlib")
    assert all(same(a, b) for a, b in zip(views["pci|zlib"], pair, strict=True))


def test_a_stale_or_broken_side_file_misses(side, tmp_path):
    path = checkpoint_file(vc.CHECKPOINTS, "dual-b1-s2")
    good = json.loads(vc.side_path(path, side).read_text())
    with pytest.raises(vc.CacheMiss) as miss:
        vc.read_side(vc.side_path(path, side), "another content hash")
    assert miss.value.kind == "checkpoint"
    for change, kind in (
        ({"version": vc.SIDE_VERSION + 1}, "format"),
        ({"recipe": {"integration_episodes": 1}}, "recipe"),
        ({"views": {"pci|zlib": ["x", 1]}}, "field"),
        ({"views": {"int|0|on": [{**r, "added": 1} for r in good["views"]["int|0|on"]]}}, "shape"),
    ):
        bad = tmp_path / "bad.dual.json"
        bad.write_text(json.dumps({**good, **change}))
        with pytest.raises(vc.CacheMiss) as miss:
            vc.read_side(bad)
        assert miss.value.kind == kind
    assert vc.read_views(path, tmp_path / "nothing") == {}  # then every view is computed live


def test_the_integration_page_reads_a_bundled_view_from_the_cache(side, monkeypatch):
    from tests.ui.apptest_pages import exceptions, open_page
    from ui import data

    monkeypatch.setattr(data, "VIEW_CACHE_DIR", side)
    data._precomputed.clear()

    def broken(*args, **kwargs):
        raise AssertionError("computed live, not looked up")

    monkeypatch.setattr(vc, "integration_view", broken)
    at = open_page("integration", {"agent": "b1", "seed": "2", "capacity": "1"})
    assert not exceptions(at), exceptions(at)
    assert (
        data.pci("b1", 2, "shuffle")
        == vc.read_views(checkpoint_file(vc.CHECKPOINTS, "dual-b1-s2"), side)["pci|shuffle"]
    )
    data._precomputed.clear()
