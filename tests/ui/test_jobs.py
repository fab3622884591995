"""Training jobs of a class (ui/jobs.py): atomic seeds, a queue off the
page thread, and a progress bar that moves.

Three students pressing "Train" at once were all offered seed 6, all trained for 30 s, and two were
then told the seed "was saved by another session". Here every session gets its own seed, every
submitted job succeeds, and the queue never runs more jobs at once than it may (the Agents page
under the same load: ``pages/test_agents.py``). The progress bar runs to the first update at which
the convergence rule could stop a run.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from labcore.config import TrainConfig
from ui import jobs


def _reserve_in_a_process(root: str, session: str, out) -> None:
    out.put(jobs.SeedBook(root).reserve("wagering", "b2_ws", session, lambda s: s == 5))


def test_sessions_reserving_at_once_get_distinct_seeds(tmp_path):
    book = jobs.SeedBook(tmp_path / "_seeds")
    got: list[int] = []
    start = threading.Barrier(12)

    def one(i: int) -> None:
        start.wait()
        got.append(book.reserve("dual", "b1", f"session-{i}", lambda s: False))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(jobs.FIRST_USER_SEED, jobs.FIRST_USER_SEED + 12))
    assert book.owner("dual", "b1", got[0]) is not None
    # across processes too (the servers of `make class` share the folder); seed 5 counts as trained
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_reserve_in_a_process, args=(str(tmp_path / "_seeds"), f"p{i}", out))
        for i in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert sorted(out.get(timeout=5) for _ in procs) == [6, 7, 8, 9]


def test_a_seed_is_claimed_once_and_kept_by_its_session(tmp_path):
    book = jobs.SeedBook(tmp_path)
    assert book.claim("dual", "b1", 7, "a") and book.claim("dual", "b1", 7, "a")
    assert not book.claim("dual", "b1", 7, "b")
    assert book.reserve("dual", "b1", "b", lambda s: False) == 5


def test_the_next_free_seed_is_only_looked_up(tmp_path):
    """What a page offers: nothing is written; another session's reservation is
    skipped, the session's own is offered again."""
    book = jobs.SeedBook(tmp_path / "_seeds")
    assert book.next_free("dual", "b1", "a", lambda s: s == 5) == 6
    assert book.next_free("dual", "b1", "a", lambda s: False) == 5
    assert not (tmp_path / "_seeds").exists() or not list((tmp_path / "_seeds").iterdir())
    assert book.claim("dual", "b1", 5, "a")
    assert book.next_free("dual", "b1", "a", lambda s: False) == 5
    assert book.next_free("dual", "b1", "b", lambda s: False) == 6
    assert len(list((tmp_path / "_seeds").iterdir())) == 1


def test_many_sessions_submitting_at_once_all_succeed_within_the_concurrency_limit(tmp_path):
    running, peak, lock, go = [0], [0], threading.Lock(), threading.Event()

    def runner(spec: jobs.JobSpec, progress) -> dict:
        go.wait(
            10
        )  # the first two wait here, so the other six are still queued when their places are read
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        for done in (1, 2):
            time.sleep(0.05)
            progress(done, 2, {"loss": 0.1, "agreement": 0.9, "earliest_stop": 2})
        with lock:
            running[0] -= 1
        return {"record": {"seed": spec.seed}, "path": str(Path(spec.target) / f"s{spec.seed}")}

    queue = jobs.TrainingQueue(workers=2, in_process=True, runner=runner)
    book = jobs.SeedBook(tmp_path / "_seeds")
    submitted: list[jobs.Job] = []
    start = threading.Barrier(8)

    def student(i: int) -> None:
        session = f"student-{i}"
        seed = book.reserve("wagering", "b2_ws", session, lambda s: False)
        start.wait()
        submitted.append(
            queue.submit(
                session, jobs.JobSpec("wagering", "b2_ws", seed, TrainConfig(), str(tmp_path))
            )
        )

    threads = [threading.Thread(target=student, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(0.2)
    waiting = sorted(queue.position(j) for j in submitted if j.state == "queued")
    assert waiting == list(range(6)), (
        "two run, the six others each have their own place in the queue"
    )
    go.set()
    assert queue.wait_idle(30)
    assert all(j.state == "done" for j in submitted), [(j.state, j.error) for j in submitted]
    assert len({j.spec.seed for j in submitted}) == 8, "each session trained its own seed"
    assert peak[0] <= 2 and queue.running_peak <= 2
    assert peak[0] == 2, "two jobs did run side by side"
    assert all(jobs.progress_fraction(j) == 1.0 and len(j.history) == 2 for j in submitted)


def test_a_session_may_queue_one_job_at_a_time(tmp_path):
    gate = threading.Event()
    queue = jobs.TrainingQueue(
        workers=1, in_process=True, runner=lambda spec, progress: gate.wait(10) and {}
    )
    spec = jobs.JobSpec("dual", "b1", 5, TrainConfig(), str(tmp_path))
    first = queue.submit("a", spec)
    with pytest.raises(jobs.QueueFull):
        queue.submit("a", spec)
    other = queue.submit("b", jobs.JobSpec("dual", "b1", 6, TrainConfig(), str(tmp_path)))
    time.sleep(0.2)
    assert first.state == "running" and other.state == "queued" and queue.position(other) == 0
    gate.set()
    assert queue.wait_idle(10) and first.state == other.state == "done"
    queue.submit("a", spec)  # a finished job frees the session's place
    assert queue.wait_idle(10)


def test_a_failed_run_is_the_jobs_message_and_the_queue_goes_on(tmp_path):
    def runner(spec, progress):
        if spec.seed == 5:
            raise ValueError("diverged")
        return {"record": {}, "path": ""}

    queue = jobs.TrainingQueue(workers=1, in_process=True, runner=runner)
    bad = queue.submit("a", jobs.JobSpec("dual", "b1", 5, TrainConfig(), str(tmp_path)))
    good = queue.submit("b", jobs.JobSpec("dual", "b1", 6, TrainConfig(), str(tmp_path)))
    assert queue.wait_idle(10)
    assert bad.state == "failed" and "diverged" in bad.error and good.state == "done"


@pytest.mark.slow
def test_a_real_job_trains_in_a_worker_process_and_reports_progress(tmp_path):
    """The server's own path: a spawned worker (one torch thread), progress read from its file."""
    tiny = TrainConfig(
        max_updates=4,
        min_updates=4,
        eval_every=2,
        heldout_episodes=32,
        train_episodes=64,
        batch_episodes=8,
    )
    queue = jobs.TrainingQueue(workers=1)
    target = tmp_path / "user" / "session"
    job = queue.submit("s", jobs.JobSpec("wagering", "b2_ws", 5, tiny, str(target)))
    assert queue.wait_idle(240), job.state
    assert job.state == "done", job.error
    assert Path(job.result["path"]).exists() and job.result["record"]["seed"] == 5
    assert [h["done"] for h in job.history] == [2, 4] and "earliest_stop" in job.progress
    assert not list((tmp_path / "user" / "_jobs").glob("*.json")), "progress files are cleaned up"


def test_the_training_progress_ends_where_the_convergence_rule_can_stop():
    """The bar sat at 20% of the 3,000-update budget, then jumped to done: it now runs to the first
    update at which the rule could stop the run (``earliest_stop``), which the trainer reports."""
    from labcore.training.behaviour_cloning import train_seeds

    reports = []
    cfg = TrainConfig(
        max_updates=60,
        min_updates=4,
        eval_every=2,
        patience=2,
        heldout_episodes=32,
        train_episodes=64,
        batch_episodes=8,
    )
    train_seeds("wagering", "b2_ws", [5], cfg, progress=lambda d, t, m: reports.append((d, t, m)))
    for done, total, metrics in reports:
        assert done <= metrics["earliest_stop"] <= total
    done, total, last = reports[-1]
    assert last["earliest_stop"] == done  # the run ends where the bar does
    job = jobs.Job("j", "s", jobs.JobSpec("wagering", "b2_ws", 5, cfg, "."), state="running")
    job.progress = {"done": reports[0][0], "total": reports[0][1], **reports[0][2]}
    assert jobs.progress_fraction(job) == pytest.approx(
        reports[0][0] / reports[0][2]["earliest_stop"]
    )


def test_the_training_progress_counts_a_wager_phase_after_convergence():
    """E4 again's phased kinds (protocol 8.8.2) train ``wager_updates`` more updates once behaviour
    cloning has converged: the bar's end includes them, before and during the phase."""
    from labcore.training.behaviour_cloning import train_seeds

    reports = []
    cfg = TrainConfig(
        max_updates=8,
        min_updates=4,
        eval_every=2,
        patience=1,
        heldout_episodes=32,
        train_episodes=64,
        batch_episodes=8,
        wager_updates=20,
        curve_every=0,
    )
    train_seeds(
        "wagering", "reward_late", [5], cfg, progress=lambda d, t, m: reports.append((d, t, m))
    )
    assert reports[-1][1] == cfg.max_updates + cfg.wager_updates  # the budget counts the phase
    for done, total, metrics in reports:
        assert cfg.min_updates + cfg.wager_updates <= metrics["earliest_stop"] <= total
        assert done <= metrics["earliest_stop"] <= reports[-1][0]  # never past the run's real end
    assert reports[-1][2]["earliest_stop"] == reports[-1][0]


def test_the_training_worker_does_not_run_the_page_script_streamlit_left_as_main(
    tmp_path, monkeypatch
):
    """Streamlit installs the page it runs as ``__main__``; a plain spawn pool runs that file again
    in its worker, the training pool must not (and gives ``__main__`` back)."""
    ran = tmp_path / "page-ran"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(ran)!r}, 'w').close()\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(page)
    monkeypatch.setitem(sys.modules, "__main__", fake)

    pool = jobs.spawn_clean_pool()
    try:
        assert pool.submit(os.getpid).result() != os.getpid()
    finally:
        pool.shutdown()
    assert not ran.exists() and sys.modules["__main__"] is fake
    # The check can fail: a plain spawn pool runs the page script in its worker.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as plain:
        plain.submit(os.getpid).result()
    assert ran.exists()
