"""The Workspace page (E2, Global Workspace Theory) in AppTest: capacity controls access, chance and
the paper's number of the capacity shown, predict then reveal, a link opens its view, an episode
beyond the view is clamped, nothing drawn or named unexplained at zero slots, and a broken
checkpoint loses only its agent.
"""

from __future__ import annotations

import pytest

from labcore import view_cache
from labcore.experiments import paper_results
from labcore.figures import episode, live
from labcore.figures import paper as paper_figs
from labcore.render import chance
from labcore.storage.checkpoints import checkpoint_file
from tests.ui.apptest_pages import (
    caption_with,
    counting,
    exceptions,
    metric,
    metric_value,
    paper,
    shown_metric,
)
from tests.ui.pages.broken_checkpoints import (
    BROKEN,
    agent_options,
    assert_one_error_naming,
    errors,
    flip_byte,
)
from ui import components, data
from ui.components import INTACT, THIS_CONDITION

# ----------------------------------------------------------------------- capacity, chance and the
# paper's number


def test_workspace_capacity_controls_access(open_page):
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "4"})
    full = float(metric_value(at, "Conjunction accuracy").rstrip("%"))
    at.select_slider(key="workspace.capacity").set_value(0).run()
    off = float(metric_value(at, "Conjunction accuracy").rstrip("%"))
    assert full > 90 and off < 20
    assert not at.exception


def test_workspace_shows_chance_and_the_paper_number_of_the_capacity_shown(open_page):
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "2"})
    assert not at.exception
    conjunction = caption_with(at, f"chance: {chance('conjunction').text}")
    assert f"paper, {THIS_CONDITION}: {paper('e2.conjunction.k2', '{:.1%}')}" in conjunction
    delta = metric(at, "Conjunction accuracy").proto.delta
    assert f"{INTACT}: " in conjunction and delta.split()[1] == "pts"  # points of a percentage
    assert (
        len([c for c in at.caption if f"chance: {chance('decision').text}" in c.value]) == 2
    )  # decision, per step
    at.select_slider(key="workspace.capacity").set_value(3).run()
    conjunction = caption_with(at, f"chance: {chance('conjunction').text}")
    assert f"paper, {THIS_CONDITION}" not in conjunction  # the paper has no 3-slot number
    assert f"paper, {INTACT}: {paper('e2.conjunction.k4', '{:.1%}')}" in conjunction


def test_the_capacity_brackets_say_what_they_are(open_page):
    at = open_page("workspace", {"agent": "b1", "seed": "0"})
    slider = at.select_slider(key="workspace.capacity")
    assert "4 (scale 1)" in slider.options and "2 (scale 0.5)" in slider.options


def heatmaps(at) -> list[dict]:
    """The heatmap traces of the page's charts."""
    import json

    return [
        t
        for c in at.get("plotly_chart")
        for t in json.loads(c.proto.spec)["data"]
        if t.get("type") == "heatmap"
    ]


def test_no_empty_heatmap_at_zero_slots(open_page):
    """On this page and in the Rollout theatre: an empty heatmap would explain nothing."""
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "0"})
    assert not exceptions(at)
    assert not heatmaps(at) and any("heatmap" in i.value for i in at.info)  # a note instead
    theatre = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "capacity": "0"})
    assert not exceptions(theatre)
    assert not heatmaps(theatre) and any("heatmap" in i.value for i in theatre.info)


# ----------------------------------------------------------------------- predict, then reveal


def test_workspace_reveal_says_when_the_prediction_was_wrong(open_page):
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "0"})
    at.toggle(key="predict.workspace.on").set_value(True).run()
    assert shown_metric(at, "Conjunction accuracy") is None
    at.radio(key="predict.workspace.choice.b1/0/0").set_value(0).run()  # "stays": bus-off does not
    at.button(key="predict.workspace.lock.b1/0/0").click().run()
    assert not at.exception
    assert at.warning and not at.success  # the prediction was wrong, and it says so
    assert shown_metric(at, "Conjunction accuracy")


# ----------------------------------------------------------------------- the URL


def test_arriving_by_a_link_reads_the_link(open_page):
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "2"})
    at.query_params.clear()
    at.query_params.update({"agent": "b1", "seed": "0", "capacity": "1"})
    at.switch_page("app_pages/workspace.py").run()
    assert not at.exception
    assert at.select_slider(key="workspace.capacity").value == 1


def test_an_episode_beyond_the_view_is_clamped_with_a_notice(open_page):
    at = open_page("workspace", {"agent": "b1", "seed": "0", "episode": "999"})
    assert not at.exception, [e.value for e in at.exception]
    last = int(at.slider(key="workspace.episode").max)
    assert at.slider(key="workspace.episode").value == last < 999
    assert any(
        "episode=999" in w.value and str(last + 1) in w.value.split() for w in at.warning
    )  # the link's episode, and how many there are


# ----------------------------------------------------------------------- a broken checkpoint


@pytest.mark.parametrize("params", [None, {"agent": "b1", "seed": "0"}], ids=["default", "url"])
def test_workspace_without_its_agent_keeps_the_others(open_page, lab, params):
    flip_byte(lab)
    at = open_page("workspace", params)
    assert_one_error_naming(at, f"{BROKEN}.safetensors", "agent b1, seed 0")
    assert at.selectbox(key="workspace.agent").value == "b1"
    assert {"b2", "b2_ws"} <= agent_options(at, "workspace")
    assert any("dNRS" in s.value for s in at.subheader)  # the bundled results still show
    at.selectbox(key="workspace.agent").set_value("b2").run()
    assert not at.exception and not errors(at)
    assert shown_metric(at, "Conjunction accuracy")


def test_a_restored_checkpoint_loads_on_the_next_run(open_page, lab):
    path = checkpoint_file(lab, BROKEN)
    original = path.read_bytes()
    flip_byte(lab)
    at = open_page("workspace")
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    path.write_bytes(original)
    at.run()
    assert not at.exception and not errors(at)  # the failure was not cached
    assert shown_metric(at, "Conjunction accuracy")


def test_the_ideal_agent_is_scored_on_the_views_own_episodes_and_is_not_beaten(open_page):
    """A closed form over the task's distribution (43.0%) can sit under an agent's 53.1% at 2
    slots by chance; the ideal agent on the very episodes of the view (protocol sec. 10.1) bounds
    every bundled B1 seed within its 95% range."""
    from labcore.experiments.e2 import ideal_on_episodes
    from labcore.seeding import episode_seeds

    for seed in data.seeds_by_kind("dual")["b1"]:
        view = data.workspace("b1", seed, 2, 0.0, "stored")
        ideal = data.ideal_on_view(seed, 2, 4)
        assert set(ideal) == {"per_step", "decision", "conjunction"}
        for name, (_, low, high) in ideal.items():
            assert low <= float(view.means[name]) <= high, (seed, name)
        own = ideal_on_episodes(episode_seeds(seed, "eval", data.DUAL_EPISODES), active=2)
        assert ideal["conjunction"][0] == pytest.approx(float(own["conjunction"][0].mean()))
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "2"})
    mean = data.ideal_on_view(0, 2, 4)["conjunction"][0]
    assert any(f"{mean:.1%}" in c.value for c in at.caption)


# ----------------------------------------------------------------------- a switch is a lookup


def test_a_capacity_switch_computes_reads_and_draws_only_what_it_has_not_shown(
    open_page, monkeypatch
):
    """Back and forth between two capacities of a bundled agent: every view is the shipped cache's,
    the result set is read once, each figure is built once per view it shows."""
    components._prepared.clear()
    data.results.clear()
    computed = counting(monkeypatch, view_cache, "workspace_view")
    reads = counting(monkeypatch, paper_results, "load_results")
    heatmaps = counting(monkeypatch, episode, "workspace_heatmap")
    masking = counting(monkeypatch, live, "masking_figure")
    dnrs = counting(monkeypatch, paper_figs, "dnrs_by_scale")
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "4"})
    for capacity in (2, 4, 2, 4):
        at.select_slider(key="workspace.capacity").set_value(capacity).run()
    assert not exceptions(at)
    assert computed == [] and len(reads) == 1
    assert len(heatmaps) == 2  # episode 0 at 4 and at 2 slots
    assert len(masking) == len(dnrs) == 1  # neither depends on the capacity
    components._prepared.clear()
