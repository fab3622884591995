"""The Agents page in AppTest: the kinds offered fit the task; training writes to a user
directory, never ``checkpoints/``, seen by its session only; a seed taken anywhere is not offered;
and training as a class does it: two students pressing "Train" at once each get
their own agent, and the page returns at once and shows the queue (the queue itself:
``tests/ui/test_jobs.py``)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import labcore.training.behaviour_cloning
from labcore.agents import build_agent
from labcore.config import AGENT_KINDS, KINDS_OF_EXPERIMENT, TASK_OF_EXPERIMENT, TrainConfig
from labcore.storage.checkpoints import BUNDLED_DIR
from labcore.training.behaviour_cloning import TrainedAgent
from tests.ui.apptest_pages import exceptions
from ui import data


def kinds_offered(at: AppTest) -> list[str]:
    by_label = {data.label(k): k for k in AGENT_KINDS}
    return [by_label[o] for o in at.selectbox(key="train_kind").options]


def used_on(task: str) -> set[str]:
    """The kinds the experiments on ``task`` run (config.KINDS_OF_EXPERIMENT)."""
    return {k for e, t in TASK_OF_EXPERIMENT.items() if t == task for k in KINDS_OF_EXPERIMENT[e]}


def test_the_kinds_offered_fit_the_task(open_page):
    at = open_page("agents")
    assert not exceptions(at)
    assert at.selectbox(key="train_kind").value == "b1"
    assert set(kinds_offered(at)) == used_on("dual") and "b2_ws" in kinds_offered(at)
    at.selectbox(key="train_task").set_value("wagering").run()  # with b1 still selected
    assert not exceptions(at)
    offered = kinds_offered(at)
    assert set(offered) == used_on("wagering") and "b1" not in offered
    assert all(AGENT_KINDS[k].self_model for k in offered)  # E1's markers need a confidence head
    assert at.selectbox(key="train_kind").value == "b2_ws"  # the unfit b1 was not kept
    assert offer(at) == (5, True)


def offer(at: AppTest) -> tuple[int, bool]:
    """The seed the page offers (its Seed field) and whether its Train button is there."""
    seed = next(n for n in at.number_input if n.label == "Seed").value
    return int(seed), any(b.label.startswith("Train ") for b in at.button)


def saved_shown(at: AppTest, folder: Path) -> list[str]:
    """The trained agents' files under ``folder`` whose agent and seed ``at``'s success notices
    name (by the agent's name and seed: a visitor never reads a file name)."""
    found = []
    for path in folder.glob("*/*.safetensors*"):
        _, kind, seed = path.name.split(".")[0].rsplit("-", 2)
        said = f"{data.label(kind)}, seed {seed[1:]},"
        if any(said in s.value and path.name not in s.value for s in at.success):
            found.append(path.name)
    return found


def fake_training(calls: list):
    def train_seeds(task, kind, seeds, cfg: TrainConfig | None = None, progress=None, resume=None):
        (seed,) = seeds
        calls.append((task, kind, seed))
        if progress:
            progress(1, 1, {"loss": 0.1, "agreement": 0.97})
        record = {
            "task": task,
            "task_id": "",
            "kind": kind,
            "seed": seed,
            "mode": "fast",
            "train_config": {"train_episodes": 1},
            "heldout_agreement": 0.97,
            "criterion_attainable": True,
            "meets_criterion": True,
            "excluded": False,
            "updates": 1,
            "wall_seconds": 0.0,
        }
        return [TrainedAgent(build_agent(kind, seed).eval(), record)]

    return train_seeds


def digest(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def test_training_writes_to_the_session_directory_and_is_seen_by_that_session_only(
    open_page, tmp_path, monkeypatch
):
    calls: list = []
    monkeypatch.setattr(
        labcore.training.behaviour_cloning, "train_seeds", fake_training(calls)
    )  # no real training in tests
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    shipped = digest(BUNDLED_DIR)

    at = open_page("agents")
    at.selectbox(key="train_task").set_value("wagering").run()
    tables = len(at.dataframe)
    next(
        b for b in at.button if b.label == "Train seed 5 of this agent on the wagering (E1)"
    ).click().run()
    assert not exceptions(at), exceptions(at)
    assert data.training_queue().wait_idle(
        30
    )  # queued off the page thread; the next run shows the result
    at.run()
    assert not exceptions(at), exceptions(at)
    assert calls == [("wagering", "b2_ws", 5)]

    assert digest(BUNDLED_DIR) == shipped
    saved = list((tmp_path / "user").glob("*/wagering-b2_ws-s5.safetensors"))
    assert len(saved) == 1
    assert saved_shown(at, tmp_path / "user") == [saved[0].name]
    assert len(at.dataframe) == tables + 1  # "Your agents" appeared without a reload
    assert "5" in at.dataframe[-1].value["seeds"].tolist()
    assert offer(at) == (6, True)  # seed 5 is taken now

    mine = open_page("metacognition", {"agent": "b2_ws", "seed": "0"}, at=at)  # same session
    assert not exceptions(mine)
    assert (
        5 in mine.selectbox(key="metacognition.seed").options
        or "5" in mine.selectbox(key="metacognition.seed").options
    )
    assert mine.selectbox(key="metacognition.seed").value == 0  # the default view is unchanged

    other = open_page(
        "metacognition", {"agent": "b2_ws", "seed": "5"}
    )  # another visitor, same server
    assert not exceptions(other)
    assert [str(o) for o in other.selectbox(key="metacognition.seed").options] == [
        "0",
        "1",
        "2",
        "3",
        "4",
    ]
    assert any("seed=5" in w.value for w in other.warning)


@pytest.mark.parametrize("where", ["bundled", "another session"])
def test_a_seed_taken_anywhere_is_not_offered(open_page, tmp_path, monkeypatch, where):
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    if where == "another session":
        folder = tmp_path / "user" / "someone-else"
        folder.mkdir(parents=True)
        (folder / "wagering-b2_ws-s5.safetensors").write_bytes(b"")
        assert data.seed_taken("wagering", "b2_ws", 5)
    else:
        assert data.seed_taken("wagering", "b2_ws", 0) and not data.seed_taken(
            "wagering", "b2_ws", 5
        )
    at = open_page("agents")
    at.selectbox(key="train_task").set_value("wagering").run()
    free = 6 if where == "another session" else 5
    assert offer(at) == (free, True)


def test_a_visit_reserves_no_seed(open_page, tmp_path, monkeypatch):
    """A seed is reserved only when its run starts: a visit writes no seed file (else one walk
    would leave dozens, and the offered seed would climb)."""
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    for _ in range(2):  # two visits, two sessions
        at = open_page("agents")
        for task in ("wagering", "dual"):
            at.selectbox(key="train_task").set_value(task).run()
            for kind in at.selectbox(key="train_kind").options[:2]:
                at.selectbox(key="train_kind").set_value(kind).run()
        assert not exceptions(at), exceptions(at)
    assert not list((tmp_path / "user").rglob("*.reserved")), "a visit reserves no seed"
    at.selectbox(key="train_task").set_value("wagering").run()
    assert offer(at) == (5, True)


# --------------------------------------------------------------------------- training as a class
# does it


def test_two_students_pressing_train_at_once_both_get_their_own_agent(
    open_page, tmp_path, monkeypatch, _training_in_this_process
):
    """The classroom failure itself, on the Agents page: two sessions, one click each."""
    from labcore.training import behaviour_cloning

    calls: list = []
    monkeypatch.setattr(behaviour_cloning, "train_seeds", fake_training(calls))
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    students = [open_page("agents") for _ in range(2)]
    buttons = []
    for at in students:
        at.selectbox(key="train_task").set_value("wagering").run()
        buttons.append(next(b for b in at.button if b.label.startswith("Train seed")))
    # both are offered seed 5 (nothing is reserved before a run starts); the second to
    # start trains the next free seed instead
    assert not list((tmp_path / "user" / "_seeds").glob("*")), "a visit reserves no seed"
    for button in buttons:
        button.click()
    for at in students:
        at.run()
    assert _training_in_this_process.wait_idle(30)
    for at in students:
        at.run()
        assert not exceptions(at), exceptions(at)
        assert len(saved_shown(at, tmp_path / "user")) == 1, [w.value for w in at.warning]
        assert not at.warning  # no refusal (a seed another session took gives way)
    assert sorted(seed for _, _, seed in calls) == [5, 6]
    assert len(list((tmp_path / "user").glob("*/wagering-b2_ws-s*.safetensors"))) == 2


def test_the_page_returns_at_once_and_shows_the_queue_while_others_train(
    open_page, tmp_path, monkeypatch, _training_in_this_process
):
    from labcore.training import behaviour_cloning

    gate, calls = threading.Event(), []
    real = fake_training(calls)
    monkeypatch.setattr(
        behaviour_cloning, "train_seeds", lambda *a, **k: (gate.wait(30), real(*a, **k))[1]
    )
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    first, second = open_page("agents"), open_page("agents")
    for at in (first, second):
        next(
            b for b in at.button if b.label.startswith("Train seed")
        ).click().run()  # returns while training
        assert not exceptions(at)
    assert any(i.icon == ":material/hourglass_top:" for i in second.info), (
        "the second student sees the queue"
    )
    assert second.selectbox(key="train_kind").value == "b1"
    assert any(b.label.startswith("Train ") and b.disabled for b in second.button), (
        "one job per student"
    )
    assert not calls, "nothing has finished: no page waited for a run"
    gate.set()
    assert _training_in_this_process.wait_idle(30)
    for at in (first, second):
        at.run()
        assert len(saved_shown(at, tmp_path / "user")) == 1
