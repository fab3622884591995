"""Predict, then reveal: an optional question a page asks before it shows a lesion's result.

A dissociation teaches more when the student commits to a prediction first. A page calls
:func:`predict_then_reveal` once, where the lesioned result would appear; the component draws a
"Predict first" toggle (off by default, so the page behaves as before) and, when it is on and
the page is showing a lesion, asks the question and tells the page to hold the result back
until an answer is locked in. Then it reveals whether the prediction matched what the agent
measurably did (the page computes that from its live values).

The prediction is kept in ``st.session_state`` under the page and the condition (e.g. the
lesion and the agent), so changing the lesion asks again and going back to an answered one
does not.

The toggle lives in the URL too (``predict=1``, :data:`labcore.links.FLAGS`): a link with it
opens the page with "Predict first" on (the lesson's lesion steps), read on arrival and clamped
like every URL value; the URL then follows the toggle, so a shared link keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlencode

import streamlit as st

from labcore.classroom.store import Question
from ui import classroom
from ui.controls import arrived
from ui.state import escape_markdown, parse_flag

__all__ = [
    "CHANGE_CHOICES",
    "Outcome",
    "change_outcome",
    "class_question",
    "predict_then_reveal",
    "predicting",
]


@dataclass(frozen=True)
class Outcome:
    """What the agent measurably did, as one of the question's choices."""

    choice: int | None
    """Index of the choice the live values support; None when the outcome is not defined here."""
    detail: str = ""
    """The measured numbers in words (e.g. "Type-2 AUROC 0.50, by construction")."""


def _key(page: str, what: str, condition: str = "") -> str:
    return f"_predict.{page}.{what}" + (f".{condition}" if condition else "")


def _clear(answer_key: str) -> None:
    st.session_state.pop(answer_key, None)


def predict_then_reveal(
    page: str,
    condition: str,
    question: str,
    choices: Sequence[str],
    measured: Callable[[], Outcome | int | None],
    *,
    active: bool = True,
) -> bool:
    """Ask for a prediction before a lesion's result is shown; then say whether it came true.

    Parameters
    ----------
    page : str
        The page's name (the state's key prefix, as for :mod:`ui.controls`).
    condition : str
        What the prediction is about, e.g. ``f"{kind}/{seed}/{self_model_mode}"``: a new value
        asks again, a value answered before shows its reveal.
    question : str
        The question, in plain words (Markdown).
    choices : sequence of str
        The possible answers (at least two).
    measured : callable
        Called only after the prediction is locked in: the choice the live values support, as
        an :class:`Outcome` (with the numbers in words), an index, or None when undefined.
    active : bool
        Whether the page is showing the condition worth predicting (a lesion). When False only
        the toggle is drawn, so a student can switch it on before applying the lesion.

    Returns
    -------
    bool
        True when the page may show the result (the toggle is off, the page shows no lesion,
        or the prediction is in); False while the question waits for an answer.

    Examples
    --------
    On the metacognition page, where ``view`` holds the live markers::

        from ui.predict import Outcome, predict_then_reveal

        choices = ["It stays about where it is", "It falls to 0.5 (chance)", "It falls, but stays
        above chance"]

        def auroc_outcome() -> Outcome:  # called only once the prediction is in
            choice = 1 if view.auroc <= 0.55 else 0 if view.auroc >= intact.auroc - 0.05 else 2
            return Outcome(choice, f"Type-2 AUROC {view.auroc:.2f} (intact {intact.auroc:.2f})")

        if predict_then_reveal(PAGE, f"{kind}/{seed}/{self_model_mode}",
                               "What will Type-2 AUROC do if the self-model is zeroed?", choices,
                               auroc_outcome, active=self_model_mode != "on"):
            figure(type2_roc_figure(curves), key="roc")
    """
    if len(choices) < 2:
        raise ValueError("predict_then_reveal needs at least two choices")
    enabled_key, widget_key = _key(page, "enabled"), f"predict.{page}.on"
    if arrived() and "predict" in st.query_params:
        # a link (the lesson's steps) says whether to predict first; read on arrival only
        wanted, notice = parse_flag("predict", st.query_params.get_all("predict"))
        if notice:
            st.warning(escape_markdown(notice), icon=":material/warning:")
        st.session_state[widget_key] = bool(wanted)
    elif widget_key not in st.session_state:  # the widget's state is dropped on another page
        st.session_state[widget_key] = bool(st.session_state.get(enabled_key, False))
    on = st.toggle(
        "Predict first",
        key=widget_key,
        help=(
            "Answer a question before the lesion's result appears, then see whether you were right."
        ),
    )
    st.session_state[enabled_key] = on  # outlives the widget when the user visits another page
    if st.query_params.get("predict") != ("1" if on else None):  # the URL follows the toggle
        if on:
            st.query_params["predict"] = "1"
        else:
            del st.query_params["predict"]
    if not on or not active:
        return True
    answer_key = _key(page, "answer", condition)
    asked = class_question(page, condition, question, choices)
    if answer_key not in st.session_state:
        classroom.post(asked)  # with a class running, the students predict too
        with st.container(border=True):
            st.markdown(f"**Predict first.** {question}")
            mine = st.radio(
                "Your prediction",
                list(range(len(choices))),
                format_func=lambda i: choices[i],
                index=None,
                key=f"predict.{page}.choice.{condition}",
            )
            locked = st.button(
                "Lock in my prediction",
                key=f"predict.{page}.lock.{condition}",
                disabled=mine is None,
                type="primary",
            )
            if not locked or mine is None:
                st.caption("The result is held back until you lock in a prediction.")
                classroom.votes_panel(asked, lab_choice=None, revealed=False)
                return False
            st.session_state[answer_key] = mine
    mine = st.session_state[answer_key]
    result = measured()
    outcome = result if isinstance(result, Outcome) else Outcome(result)
    detail = f" {outcome.detail.rstrip('.')}." if outcome.detail else ""
    if classroom.running() is not None:  # the class sees the agent's outcome beside its votes
        measured_text = choices[outcome.choice] if outcome.choice is not None else "not defined"
        told = replace(
            asked,
            answer=f"**What the agent did**: {measured_text}.{detail}",
            lab_choice=outcome.choice,
        )
        classroom.post(told)
        classroom.reveal(told.id)
        classroom.votes_panel(told, lab_choice=outcome.choice, revealed=True)
    predicted = f"You predicted “{choices[mine]}”."
    if outcome.choice is None:
        st.info(
            f"{predicted} The outcome is not defined here, so it cannot be scored.{detail}",
            icon=":material/help:",
        )
    elif outcome.choice == mine:
        st.success(
            f"{predicted} Correct: that is what the agent did.{detail}",
            icon=":material/check_circle:",
        )
    else:
        st.warning(
            f"{predicted} The agent did something else: “{choices[outcome.choice]}”.{detail}",
            icon=":material/cancel:",
        )
    st.button(
        "Ask me again", key=f"predict.{page}.again.{condition}", on_click=_clear, args=(answer_key,)
    )
    return True


def predicting(page: str) -> bool:
    """Whether "Predict first" is on for ``page`` (its URL says so, or its switch in this session):
    a page then holds back anything that would answer the question, a summary curve included."""
    if "predict" in st.query_params:
        return parse_flag("predict", st.query_params.get_all("predict"))[0] is True
    return bool(
        st.session_state.get(
            f"predict.{page}.on", st.session_state.get(_key(page, "enabled"), False)
        )
    )


def class_question(page: str, condition: str, question: str, choices: Sequence[str]) -> Question:
    """A "Predict first" question as a class's question: its id from the page and the condition
    (the store's characters, at most 64), the lab's view the page with the condition's URL, shown
    to students once the teacher reveals what the agent did.

    >>> q = class_question("metacognition", "b2_ws/0/zero", "What happens?", ["a", "b"])
    >>> q.id, q.choices
    ('predict.metacognition.b2_ws:0:zero', ('a', 'b'))
    """
    safe = re.sub(r"[^A-Za-z0-9_.:+\-]", ":", f"predict.{page}.{condition}")[:64]
    params = {k: v for k, v in st.query_params.to_dict().items() if k != "predict"}
    view = page + (f"?{urlencode(params)}" if params else "")
    return Question(id=safe, text=question, choices=tuple(choices), view=view)


CHANGE_CHOICES = (
    "It stays about where it was",
    "It falls to chance",
    "It falls, but stays above chance",
    "It rises",
)
"""The answers of a "what will this number do under the lesion?" question."""


def change_outcome(
    value: float | None, intact: float, chance: float, *, tolerance: float, fmt: str = "{:.2f}"
) -> Outcome:
    """Which of :data:`CHANGE_CHOICES` a lesioned value supports, against the intact one.

    Within ``tolerance`` of the intact value it "stays"; above it, it "rises"; at or below
    ``chance + tolerance`` it "falls to chance"; otherwise it "falls, but stays above chance".
    An undefined value (None or NaN) is not scored.

    >>> (change_outcome(0.50, 0.85, 0.5, tolerance=0.05).choice,
    ...  change_outcome(0.84, 0.85, 0.5, tolerance=0.05).choice)
    (1, 0)
    >>> (change_outcome(0.70, 0.85, 0.5, tolerance=0.05).choice,
    ...  change_outcome(float("nan"), 0.85, 0.5, tolerance=0.05).choice)
    (2, None)
    """
    if value is None or value != value:
        return Outcome(None, "the value is not defined here")
    detail = (
        f"{fmt.format(value)} against {fmt.format(intact)} intact (chance {fmt.format(chance)})"
    )
    if abs(value - intact) <= tolerance:
        return Outcome(0, detail)
    if value > intact:
        return Outcome(3, detail)
    return Outcome(1 if value <= chance + tolerance else 2, detail)
