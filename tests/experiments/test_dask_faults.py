"""Dask runs on a real LocalCluster: where units run, dying workers, failing units, no workers, the
CLI.

The units here are a tiny study's (its ``run_unit`` a module-level function of this file; for
``run_batches``, a function in place of ``provision.run_batch``), so no agent is trained.
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
from dataclasses import dataclass  # noqa: E402

import dask  # noqa: E402

from labcore import cli  # noqa: E402
from labcore.cluster import DistributedRunError  # noqa: E402
from labcore.config import TrainConfig  # noqa: E402
from labcore.experiments import study as S  # noqa: E402
from labcore.findings import StudySummary  # noqa: E402
from labcore.training import provision  # noqa: E402
from labcore.training.provision import Batch, run_batches  # noqa: E402

# pytest imports this file under a name the workers cannot import: ship its functions by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])

BOUND = 60.0
"""Seconds within which every failure below must be reported (it used to hang forever)."""


@dataclass(frozen=True)
class Tiny:
    seeds: tuple[int, ...] = (0, 1, 2)

    @classmethod
    def quick(cls) -> Tiny:
        return cls((0,))


def where(config: Tiny, seed: int, out: str) -> S.Rows:
    """A unit that records the process that ran it."""
    return {"seeds": [{"seed": seed, "pid": os.getpid(), "square": seed * seed}]}


def slow(config: Tiny, seed: int, out: str) -> S.Rows:
    """A unit that takes longer than the watchdog's bound while its worker is alive."""
    time.sleep(1.5)
    return where(config, seed, out)


def dies_on_seed_1(config: Tiny, seed: int, out: str) -> S.Rows:
    """Seed 1 kills the worker process running it, every time."""
    if seed == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return where(config, seed, out)


def raises_on_seed_2(config: Tiny, seed: int, out: str) -> S.Rows:
    """Seed 2 raises an ordinary exception."""
    if seed == 2:
        raise ValueError("seed two is broken\nsecond line")
    return where(config, seed, out)


def tiny(run_unit) -> S.Study:
    """A study whose units are seeds, run by ``run_unit``."""
    return S.Study(
        name="tiny",
        config=Tiny,
        units=lambda c: list(c.seeds),
        run_unit=run_unit,
        summarise=lambda c, rows: StudySummary(study="tiny"),
        tables=(S.Table("seeds", ("seed", "pid", "square")),),
        unit_label=lambda seed: f"seed {seed}",
    )


def run(run_unit, seeds, tmp_path, **kw) -> list[dict]:
    """The rows of ``run_unit`` over ``seeds`` on the Dask cluster of the current client."""
    rows = S.run_units(
        tiny(run_unit),
        Tiny(tuple(seeds)),
        tmp_path,
        backend="dask",
        progress=False,
        say=lambda _: None,
        **kw,
    )
    return rows["seeds"]


def dying_batch(batch: Batch, progress=None) -> list[dict]:
    """A training batch whose worker process exits."""
    os._exit(3)


def _one_worker_cluster():
    """One worker process with one thread; the scheduler allows no worker death per task (each
    death costs a worker restart, seconds on a busy machine)."""
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
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


def test_units_run_on_the_workers_not_in_this_process(client, tmp_path):
    rows = run(where, [2, 0, 1], tmp_path)
    assert [r["seed"] for r in rows] == [2, 0, 1]  # the units' order, whatever finished first
    assert [r["square"] for r in rows] == [4, 0, 1]
    worker_pids = set(client.run(os.getpid).values())
    ran_in = {r["pid"] for r in rows}
    assert os.getpid() not in ran_in and ran_in <= worker_pids


def test_a_unit_that_raises_is_one_sentence_naming_it(client, tmp_path):
    with pytest.raises(DistributedRunError) as caught:
        run(raises_on_seed_2, [0, 1, 2], tmp_path)
    error = caught.value
    assert (error.kind, error.labels) == ("failed", ("seed 2",))
    assert isinstance(error.__cause__, ValueError)
    assert str(error.__cause__).splitlines()[0] in str(error)  # its first line, in the sentence
    assert "\n" not in str(error) and "--backend" in str(error)  # one sentence: what to try


def test_a_unit_that_keeps_killing_its_worker_fails_clearly_and_quickly(doomed, tmp_path):
    start = time.monotonic()
    with pytest.raises(DistributedRunError) as caught:
        run(dies_on_seed_1, [0, 1], tmp_path)
    assert time.monotonic() - start < BOUND
    error = caught.value
    # seed 0 may have been queued on the dying worker: then it counts the deaths too, and is named
    assert error.kind == "killed" and error.labels in (("seed 1",), ("seed 0", "seed 1"))
    assert all(label in str(error) for label in error.labels)
    assert isinstance(error.__cause__, distributed.KilledWorker)
    allowed = error.__cause__.allowed_failures  # 0: the sentence gives the deaths and the limit
    assert re.search(rf"\b{allowed + 1}\b\D+\b{allowed}\b", str(error)), str(error)


@pytest.mark.slow
def test_a_batch_that_keeps_killing_its_worker_fails_clearly_and_quickly(
    doomed, monkeypatch, tmp_path
):
    monkeypatch.setattr(provision, "run_batch", dying_batch)
    batch = Batch("dual", "b1", (0, 1), TrainConfig(), str(tmp_path))
    start = time.monotonic()
    with pytest.raises(DistributedRunError) as caught:
        run_batches([batch], backend="dask", client=doomed)
    assert (caught.value.kind, caught.value.labels) == ("killed", ("batch dual-b1 s0-1",))
    assert time.monotonic() - start < BOUND


def test_the_watchdog_waits_only_while_there_is_no_worker(client, tmp_path):
    # 1.5 s per unit on a live worker, watchdog at 0.5 s: the run finishes
    assert [r["seed"] for r in run(slow, [0], tmp_path, dask_timeout=0.5)] == [0]


@pytest.mark.parametrize("what", ["units", "batches"])
def test_no_worker_ends_the_run_after_the_timeout(empty_client, tmp_path, what):
    start = time.monotonic()
    with pytest.raises(DistributedRunError) as caught:
        if what == "units":
            with empty_client.as_current():
                run(where, [0, 1], tmp_path, dask_timeout=1)
        else:
            run_batches(
                [Batch("dual", "b1", (0,), TrainConfig(), str(tmp_path))],
                backend="dask",
                client=empty_client,
                timeout=1,
            )
    assert 1 <= time.monotonic() - start < 10
    error = caught.value
    pending = ("seed 0", "seed 1") if what == "units" else ("batch dual-b1 s0",)
    assert (error.kind, error.labels) == ("no_worker", pending)
    assert str(error).startswith(pending[0]) and str(empty_client.scheduler.address) in str(error)
    assert re.search(r"\b1 s\b", str(error))  # the timeout it waited
    assert not any(
        f.status == "pending" for f in empty_client.futures.values()
    )  # cancelled, not left queued


def _study_args(tmp_path, scheduler: str, *extra: str) -> list[str]:
    return [
        "study",
        "tiny",
        "--backend",
        "dask",
        "--scheduler",
        scheduler,
        "--out",
        str(tmp_path),
        "--no-report",
        *extra,
    ]


@pytest.fixture
def tiny_registered(monkeypatch):
    """The study ``tiny`` in the registry, its units ``where``."""
    monkeypatch.setitem(S.STUDIES, "tiny", S.Registered("tiny", "tiny", module=__name__))
    monkeypatch.setattr(sys.modules[__name__], "STUDY", tiny(where), raising=False)


def test_cli_says_where_the_units_run_and_runs_them_there(
    client, tiny_registered, monkeypatch, tmp_path, capsys
):
    ran: list[dict] = []
    real = S.run_study

    def spy(study, out, config, **kw):
        assert kw["backend"] == "dask" and kw["dask_timeout"] == 30
        summary = real(study, out, config, **kw)
        ran.extend(S.read_rows(study, out)[0]["seeds"])
        return summary

    monkeypatch.setattr(S, "run_study", spy)
    address = client.scheduler.address
    assert cli.main(_study_args(tmp_path, address, "--dask-timeout", "30")) == 0
    (line,) = [line for line in capsys.readouterr().err.splitlines() if address in line]
    assert re.findall(r"\d+", line.split(address)[0]) == ["1", "1"]  # workers, threads
    assert [r["seed"] for r in ran] == [0, 1, 2] and os.getpid() not in {r["pid"] for r in ran}


def test_cli_exits_with_the_sentence_when_a_unit_fails_on_the_cluster(
    client, tiny_registered, monkeypatch, tmp_path
):
    # a failed unit and a killed worker reach the CLI alike (a DistributedRunError); the killed
    # worker's own sentence is tested above, on a cluster of its own
    monkeypatch.setattr(sys.modules[__name__], "STUDY", tiny(raises_on_seed_2))
    with pytest.raises(SystemExit) as caught:
        cli.main(_study_args(tmp_path, client.scheduler.address, "--dask-timeout", "30"))
    cause = caught.value.__cause__  # the run's own record, its sentence the exit's
    assert (cause.kind, cause.labels) == ("failed", ("seed 2",))
    assert caught.value.code == f"error: {cause}"


def test_cli_gives_up_on_a_scheduler_without_workers(
    empty_client, tiny_registered, monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(S, "run_study", lambda *a, **kw: pytest.fail("ran without a worker"))
    address = empty_client.scheduler.address
    start = time.monotonic()
    with pytest.raises(SystemExit) as caught:
        cli.main(_study_args(tmp_path, address, "--dask-timeout", "1"))
    assert time.monotonic() - start < 15
    (line,) = [line for line in capsys.readouterr().err.splitlines() if address in line]
    assert re.findall(r"\d+", line.replace(address, "")) == ["0", "1"]  # workers, the wait
    code = caught.value.code
    assert code.startswith("error:") and address in code and "--backend" in code
    assert re.search(r"\b1 s\b", code)


@pytest.mark.parametrize("bad", ["-1", "nan", "inf"])
def test_cli_refuses_a_bad_dask_timeout(bad, tmp_path):
    with pytest.raises(SystemExit, match="--dask-timeout"):
        cli.main(_study_args(tmp_path, "tcp://127.0.0.1:1", "--dask-timeout", bad))
