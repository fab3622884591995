"""Predict, then reveal (ui/predict.py) in a tiny AppTest script standing in for a dissociation
page."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def demo_page():
    """A lesion control, the component, and a metric the component may hold back."""
    import streamlit as st

    from ui.predict import Outcome, predict_then_reveal

    mode = st.radio("Self-model", ["on", "zero", "noise", "undefined"], key="mode")
    auroc = {"on": 0.84, "zero": 0.50, "noise": 0.51, "undefined": float("nan")}[mode]

    def outcome():
        st.session_state["measured_calls"] = st.session_state.get("measured_calls", 0) + 1
        if auroc != auroc:
            return None
        return Outcome(1 if auroc <= 0.55 else 0, f"Type-2 AUROC {auroc:.2f}")

    if predict_then_reveal(
        "demo",
        f"b2_ws/0/{mode}",
        "What will Type-2 AUROC do if the self-model is zeroed?",
        ["It stays where it is", "It falls to 0.5"],
        outcome,
        active=mode != "on",
    ):
        st.metric("Type-2 AUROC", f"{auroc:.2f}")


def start() -> AppTest:
    return AppTest.from_function(demo_page, default_timeout=30).run()


def shows_result(at: AppTest) -> bool:
    return any(m.label == "Type-2 AUROC" for m in at.metric)


def predict(at: AppTest, choice: int) -> AppTest:
    at.radio(key="predict.demo.choice.b2_ws/0/" + at.radio(key="mode").value).set_value(
        choice
    ).run()
    return at.button(key="predict.demo.lock.b2_ws/0/" + at.radio(key="mode").value).click().run()


def test_off_by_default_changes_nothing():
    at = start()
    assert not at.exception
    assert at.toggle(key="predict.demo.on").value is False
    at.radio(key="mode").set_value("zero").run()
    assert shows_result(at) and len(at.radio) == 1, "no question while the toggle is off"
    assert "measured_calls" not in at.session_state, "with the toggle off nothing extra is computed"


def test_holds_the_lesion_back_until_a_prediction_is_locked_in():
    at = start()
    at.toggle(key="predict.demo.on").set_value(True).run()
    assert shows_result(at), "the intact view is never held back"
    at.radio(key="mode").set_value("zero").run()
    assert not at.exception
    assert not shows_result(at)
    assert "measured_calls" not in at.session_state, (
        "the outcome is not computed before the prediction"
    )
    assert any("zeroed" in m.value for m in at.markdown)
    assert at.button(key="predict.demo.lock.b2_ws/0/zero").disabled, "nothing to lock in yet"
    at = predict(at, 0)  # a wrong prediction
    assert not at.exception and shows_result(at)
    choices = at.radio(key="predict.demo.choice.b2_ws/0/zero").options
    assert at.warning and choices[1] in at.warning[0].value  # what the agent did instead
    assert "0.50" in at.warning[0].value.split()[-1]  # with the measured value
    assert not at.success


def test_a_right_prediction_is_confirmed():
    at = start()
    at.toggle(key="predict.demo.on").set_value(True).run()
    at.radio(key="mode").set_value("zero").run()
    at = predict(at, 1)
    assert at.success and not at.warning
    assert shows_result(at)


def test_changing_the_lesion_asks_again_and_an_answered_one_is_remembered():
    at = start()
    at.toggle(key="predict.demo.on").set_value(True).run()
    at.radio(key="mode").set_value("zero").run()
    at = predict(at, 1)
    at.radio(key="mode").set_value("noise").run()
    assert not shows_result(at), "a new lesion asks again"
    at.radio(key="mode").set_value("zero").run()
    assert shows_result(at) and at.success, "the answered lesion shows its reveal"
    at.button(key="predict.demo.again.b2_ws/0/zero").click().run()
    assert not shows_result(at), "'Ask me again' forgets the prediction"


def test_an_undefined_outcome_is_not_scored():
    at = start()
    at.toggle(key="predict.demo.on").set_value(True).run()
    at.radio(key="mode").set_value("undefined").run()
    at = predict(at, 1)
    assert not at.exception and shows_result(at)
    assert at.info and not at.success and not at.warning  # not scored, neither right nor wrong
