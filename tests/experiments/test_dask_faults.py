"""Dask runs on a real LocalCluster: where seeds run, dying workers, failing seeds, no workers, the
CLI.

The runners here are tiny functions injected through ``run_seeds``'s ``run_seed`` (and, for
``run_batches``, in place of ``provision.run_batch``), so no agent is trained.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time

import cloudpickle
import pytest

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402

from labcore import cli  # noqa: E402
from labcore.budgets import ReproduceConfig  # noqa: E402
from labcore.cluster import DistributedRunError  # noqa: E402
from labcore.config import TrainConfig  # noqa: E402
from labcore.experiments import runner  # noqa: E402
from labcore.experiments.common import SeedResult, run_seeds  # noqa: E402
from labcore.training import provision  # noqa: E402
from labcore.training.provision import Batch, run_batches  # noqa: E402

# pytest imports this file under a name the workers cannot import: ship its functions by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])

BOUND = 60.0
"""Seconds within which every failure below must be reported (it used to hang forever)."""
CFG = ReproduceConfig(seeds=(0, 1, 2))


def where(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """A seed that records the process that ran it."""
    return SeedResult(
        "tiny", seed, values={"pid": float(os.getpid()), "square": float(seed * seed)}
    )


def slow(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """A seed that takes longer than the watchdog's bound while its worker is alive."""
    time.sleep(1.5)
    return where(seed, cfg, cache_dir)


def dies_on_seed_1(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Seed 1 kills the worker process running it, every time."""
    if seed == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return where(seed, cfg, cache_dir)


def raises_on_seed_2(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Seed 2 raises an ordinary exception."""
    if seed == 2:
        raise ValueError("seed two is broken\nsecond line")
    return where(seed, cfg, cache_dir)


def dying_batch(batch: Batch, progress=None) -> list[dict]:
    """A training batch whose worker process exits."""
    os._exit(3)


def _one_worker_cluster():
    """One worker process with one thread; the scheduler allows one worker death per task."""
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def client():
    """A healthy cluster shared by the tests that do not kill workers."""
    yield from _one_worker_cluster()


@pytest.fixture
def doomed():
    """A cluster of its own for a test that kills its worker (the nanny may not bring it back)."""
    yield from _one_worker_cluster()


@pytest.fixture(scope="module")
def empty_client():
    """A scheduler with no worker at all."""
    with (
        distributed.LocalCluster(
            n_workers=0, processes=True, host="127.0.0.1", dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


def test_seeds_run_on_the_workers_not_in_this_process(client):
    seen = []
    results = run_seeds(
        where, [2, 0, 1], CFG, "unused", backend="dask", client=client, progress=seen.append
    )
    assert [r.seed for r in results] == [0, 1, 2]
    assert [r.values["square"] for r in results] == [0.0, 1.0, 4.0]
    assert sorted(r.seed for r in seen) == [0, 1, 2]
    worker_pids = set(client.run(os.getpid).values())
    ran_in = {int(r.values["pid"]) for r in results}
    assert os.getpid() not in ran_in and ran_in <= worker_pids


def test_a_seed_that_raises_is_one_sentence_naming_it(client):
    with pytest.raises(DistributedRunError) as caught:
        run_seeds(raises_on_seed_2, [0, 1, 2], CFG, "unused", backend="dask", client=client)
    message = str(caught.value)
    assert message.startswith("seed 2 failed on a Dask worker with ValueError: seed two is broken;")
    assert "\n" not in message and "--backend loky" in message


def test_a_seed_that_keeps_killing_its_worker_fails_clearly_and_quickly(doomed):
    start = time.monotonic()
    with pytest.raises(DistributedRunError) as caught:
        run_seeds(dies_on_seed_1, [0, 1], CFG, "unused", backend="dask", client=doomed)
    assert time.monotonic() - start < BOUND
    message = str(caught.value)
    # seed 0 may have been queued on the dying worker: then it counts the deaths too, and is named
    assert re.match(
        r"(seed 1 could not run on the Dask cluster: the worker running it died 2 time\(s\), "
        r"|seed 0 and seed 1 could not run on the Dask cluster: the worker running them died 2 "
        r"time\(s\) \(one of them may only have been queued there\), )"
        r"and the scheduler allows 1 worker death\(s\) per task "
        r"\(distributed.scheduler.allowed-failures\)",
        message,
    ), message
    assert isinstance(caught.value.__cause__, distributed.KilledWorker)


@pytest.mark.slow
def test_a_batch_that_keeps_killing_its_worker_fails_clearly_and_quickly(
    doomed, monkeypatch, tmp_path
):
    monkeypatch.setattr(provision, "run_batch", dying_batch)
    batch = Batch("dual", "b1", (0, 1), TrainConfig(), str(tmp_path))
    start = time.monotonic()
    with pytest.raises(
        DistributedRunError,
        match=r"^batch dual-b1 s0-1 could not run on the Dask cluster: "
        r"the worker running it died 2 time\(s\)",
    ):
        run_batches([batch], backend="dask", client=doomed)
    assert time.monotonic() - start < BOUND


def test_the_watchdog_waits_only_while_there_is_no_worker(client):
    # 1.5 s per seed on a live worker, watchdog at 0.5 s: the run finishes
    results = run_seeds(slow, [0], CFG, "unused", backend="dask", client=client, timeout=0.5)
    assert [r.seed for r in results] == [0]


@pytest.mark.parametrize("what", ["seeds", "batches"])
def test_no_worker_ends_the_run_after_the_timeout(empty_client, tmp_path, what):
    start = time.monotonic()
    with pytest.raises(DistributedRunError) as caught:
        if what == "seeds":
            run_seeds(where, [0, 1], CFG, "unused", backend="dask", client=empty_client, timeout=1)
        else:
            run_batches(
                [Batch("dual", "b1", (0,), TrainConfig(), str(tmp_path))],
                backend="dask",
                client=empty_client,
                timeout=1,
            )
    assert 1 <= time.monotonic() - start < 10
    first = "seed 0 and 1 other task(s)" if what == "seeds" else "batch dual-b1 s0"
    assert str(caught.value).startswith(
        f"{first} did not finish: the Dask cluster at tcp://127.0.0.1:"
    )
    assert "has had no worker for 1 s (--dask-timeout)" in str(caught.value)
    assert not any(
        f.status == "pending" for f in empty_client.futures.values()
    )  # cancelled, not left queued


def _reproduce_args(tmp_path, scheduler: str, *extra: str) -> list[str]:
    return [
        "reproduce",
        "--experiment",
        "e1",
        "--seeds",
        "2",
        "--backend",
        "dask",
        "--scheduler",
        scheduler,
        "--out",
        str(tmp_path),
        "--no-report",
        *extra,
    ]


def test_cli_says_where_the_seeds_run_and_runs_them_there(client, monkeypatch, tmp_path, capsys):
    ran: list[SeedResult] = []

    def fake_reproduce(experiments, cfg, out, **kw):
        assert kw["backend"] == "dask" and kw["dask_timeout"] == 30
        ran.extend(
            run_seeds(
                where, list(cfg.seeds), cfg, "unused", backend="dask", timeout=kw["dask_timeout"]
            )
        )
        return {"claims": [], "wall_seconds": 0.0, "excluded": [], "trained": []}

    monkeypatch.setattr(runner, "reproduce", fake_reproduce)
    address = client.scheduler.address
    assert cli.main(_reproduce_args(tmp_path, address, "--dask-timeout", "30")) == 0
    err = capsys.readouterr().err
    assert f"dask: 1 worker(s) with 1 thread(s) at {address}; seeds and training run there" in err
    assert [r.seed for r in ran] == [0, 1] and os.getpid() not in {
        int(r.values["pid"]) for r in ran
    }


def test_cli_exits_with_the_sentence_when_a_seed_kills_its_workers(doomed, monkeypatch, tmp_path):
    def fake_reproduce(experiments, cfg, out, **kw):
        run_seeds(dies_on_seed_1, [1], cfg, "unused", backend="dask", timeout=kw["dask_timeout"])
        raise AssertionError("not reached")

    monkeypatch.setattr(runner, "reproduce", fake_reproduce)
    start = time.monotonic()
    with pytest.raises(SystemExit) as caught:
        cli.main(_reproduce_args(tmp_path, doomed.scheduler.address, "--dask-timeout", "30"))
    assert time.monotonic() - start < BOUND
    assert str(caught.value.code).startswith(
        "error: seed 1 could not run on the Dask cluster: the worker running it died 2 time(s)"
    )


def test_cli_gives_up_on_a_scheduler_without_workers(empty_client, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runner, "reproduce", lambda *a, **kw: pytest.fail("ran without a worker"))
    address = empty_client.scheduler.address
    start = time.monotonic()
    with pytest.raises(SystemExit) as caught:
        cli.main(_reproduce_args(tmp_path, address, "--dask-timeout", "1"))
    assert time.monotonic() - start < 15
    assert (
        f"dask: 0 workers at {address} — waiting up to 1 s for a worker" in capsys.readouterr().err
    )
    assert caught.value.code == (
        f"error: no Dask worker joined the scheduler at {address} within 1 s; "
        f"start one (dask worker {address}) or use --backend loky"
    )


@pytest.mark.parametrize("bad", ["-1", "nan", "inf"])
def test_cli_refuses_a_bad_dask_timeout(bad, tmp_path):
    with pytest.raises(SystemExit, match="--dask-timeout must be a number of seconds >= 0"):
        cli.main(_reproduce_args(tmp_path, "tcp://127.0.0.1:1", "--dask-timeout", bad))
