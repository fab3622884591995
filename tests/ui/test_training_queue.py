"""Training as a class does it (issue 24, defect 11): atomic seeds, a queue off the page thread.

Three students pressing "Train" at once were all offered seed 6, all trained for 30 s, and two were
then told the seed "was saved by another session". Here every session gets its own seed, every
submitted job succeeds, and the queue never runs more jobs at once than it may.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from labcore.config import TrainConfig
from tests.ui.apptest_pages import exceptions, open_page
from ui import data, jobs


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
    procs = [ctx.Process(target=_reserve_in_a_process, args=(str(tmp_path / "_seeds"), f"p{i}", out)) for i in range(4)]
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


def test_many_sessions_submitting_at_once_all_succeed_within_the_concurrency_limit(tmp_path):
    running, peak, lock, go = [0], [0], threading.Lock(), threading.Event()

    def runner(spec: jobs.JobSpec, progress) -> dict:
        go.wait(10)  # the first two wait here, so the other six are still queued when their places are read
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
        submitted.append(queue.submit(session, jobs.JobSpec("wagering", "b2_ws", seed, TrainConfig(), str(tmp_path))))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(0.2)
    waiting = sorted(queue.position(j) for j in submitted if j.state == "queued")
    assert waiting == list(range(6)), "two run, the six others each have their own place in the queue"
    go.set()
    assert queue.wait_idle(30)
    assert all(j.state == "done" for j in submitted), [(j.state, j.error) for j in submitted]
    assert len({j.spec.seed for j in submitted}) == 8, "each session trained its own seed"
    assert peak[0] <= 2 and queue.running_peak <= 2
    assert peak[0] == 2, "two jobs did run side by side"
    assert all(jobs.progress_fraction(j) == 1.0 and len(j.history) == 2 for j in submitted)


def test_a_session_may_queue_one_job_at_a_time(tmp_path):
    gate = threading.Event()
    queue = jobs.TrainingQueue(workers=1, in_process=True, runner=lambda spec, progress: gate.wait(10) and {})
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
    tiny = TrainConfig(max_updates=4, min_updates=4, eval_every=2, heldout_episodes=32, train_episodes=64,
                       batch_episodes=8)
    queue = jobs.TrainingQueue(workers=1)
    target = tmp_path / "user" / "session"
    job = queue.submit("s", jobs.JobSpec("wagering", "b2_ws", 5, tiny, str(target)))
    assert queue.wait_idle(240), job.state
    assert job.state == "done", job.error
    assert Path(job.result["path"]).exists() and job.result["record"]["seed"] == 5
    assert [h["done"] for h in job.history] == [2, 4] and "earliest_stop" in job.progress
    assert not list((tmp_path / "user" / "_jobs").glob("*.json")), "progress files are cleaned up"


def test_two_students_pressing_train_at_once_both_get_their_own_agent(tmp_path, monkeypatch,
                                                                       _training_in_this_process):
    """The classroom failure itself, on the Agents page: two sessions, one click each."""
    from labcore.training import behaviour_cloning
    from tests.ui.test_rollouts_agents import fake_training

    calls: list = []
    monkeypatch.setattr(behaviour_cloning, "train_seeds", fake_training(calls))
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    students = [open_page("agents") for _ in range(2)]
    buttons = []
    for at in students:
        at.selectbox(key="train_task").set_value("wagering").run()
        buttons.append(next(b for b in at.button if b.label.startswith("Train b2_ws seed")))
    assert buttons[0].label != buttons[1].label, "never the same seed offered to two sessions"
    for button in buttons:
        button.click()
    for at in students:
        at.run()
    assert _training_in_this_process.wait_idle(30)
    for at in students:
        at.run()
        assert not exceptions(at), exceptions(at)
        assert any("for this session only" in s.value for s in at.success), [w.value for w in at.warning]
        assert not any("another session" in w.value for w in at.warning)
    assert sorted(seed for _, _, seed in calls) == [5, 6]
    assert len(list((tmp_path / "user").glob("*/wagering-b2_ws-s*.safetensors"))) == 2


def test_the_page_returns_at_once_and_shows_the_queue_while_others_train(tmp_path, monkeypatch,
                                                                         _training_in_this_process):
    from labcore.training import behaviour_cloning
    from tests.ui.test_rollouts_agents import fake_training

    gate, calls = threading.Event(), []
    real = fake_training(calls)
    monkeypatch.setattr(behaviour_cloning, "train_seeds", lambda *a, **k: (gate.wait(30), real(*a, **k))[1])
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    first, second = open_page("agents"), open_page("agents")
    for at in (first, second):
        next(b for b in at.button if b.label.startswith("Train b1 seed")).click().run()  # returns while training
        assert not exceptions(at)
    assert "training now" in " ".join(i.value for i in second.info), "the second student sees the queue"
    assert any(b.label.startswith("Train b1 seed") and b.disabled for b in second.button), "one job per student"
    assert not calls, "nothing has finished: no page waited for a run"
    gate.set()
    assert _training_in_this_process.wait_idle(30)
    for at in (first, second):
        at.run()
        assert any("for this session only" in s.value for s in at.success)
