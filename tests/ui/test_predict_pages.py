"""Predict, then reveal on the three dissociation pages (issue 14): the lesion's numbers wait."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.ui.apptest_pages import open_page


def labels(at: AppTest) -> list[str]:
    return [m.label for m in at.metric]


def test_metacognition_holds_the_zeroed_auroc_until_a_prediction_is_locked_in():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    assert "Type-2 AUROC" in labels(at)  # the toggle is off by default: the page is as before
    at.toggle(key="predict.metacognition.on").set_value(True).run()
    assert not at.exception
    assert "Type-2 AUROC" not in labels(at) and not at.get("plotly_chart")
    assert any("What will **Type-2 AUROC**" in m.value for m in at.markdown)
    condition = "b2_ws/0/zero/4"
    at.radio(key=f"predict.metacognition.choice.{condition}").set_value(1).run()  # "falls to chance"
    at.button(key=f"predict.metacognition.lock.{condition}").click().run()
    assert not at.exception
    assert any("Correct" in s.value for s in at.success), [w.value for w in at.warning]
    assert "Type-2 AUROC" in labels(at)


def test_workspace_reveal_says_when_the_prediction_was_wrong():
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "0"})
    at.toggle(key="predict.workspace.on").set_value(True).run()
    assert "Conjunction accuracy" not in labels(at)
    at.radio(key="predict.workspace.choice.b1/0/0").set_value(0).run()  # "stays": bus-off does not
    at.button(key="predict.workspace.lock.b1/0/0").click().run()
    assert not at.exception
    assert any("did something else" in w.value for w in at.warning)
    assert "Conjunction accuracy" in labels(at)


def test_robustness_asks_only_when_there_is_noise():
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0"})
    at.toggle(key="predict.robustness.on").set_value(True).run()
    assert "Report accuracy with this noise" in labels(at)  # no lesion, nothing to predict
    at.slider(key="robustness.noise").set_value(0.3).run()
    assert not at.exception
    assert "Report accuracy with this noise" not in labels(at)
