"""Be the agent: play the wagering task of Experiment 1, then see your metacognition beside the
B2 agent's, intact and with its self-model zeroed, on the very same trials."""

import pandas as pd
import streamlit as st

from labcore.classroom.store import ClassError, Question
from labcore.config import PAGE_URLS
from labcore.figures.humans import beside_agents_figure, recoloured
from labcore.figures.live import calibration_figure
from labcore.humans.session import (
    ANSWER_KEYS,
    SESSION_TRIALS,
    SIDES,
    WAGERS,
    answer_text,
    flash_image,
)
from labcore.render import fmt, term
from ui import classroom, humans
from ui.components import explain, figure
from ui.key_queue import key_queue
from ui.state import escape_markdown

PAGE = "be_the_agent"

st.title("Be the agent")
st.caption(
    "Do the agent's task yourself: a faint coloured flash, a choice of side, then a bet. Then see "
    "whether your confidence knew when you were right, beside the agent's."
)
explain(
    what="Each trial shows the flash the agent receives: **bluish means left, reddish means "
    "right**, some faint, some clear, always a little noisy. Choose a side, then say how sure you "
    "are: opt out if you are guessing, or bet. Afterwards the lab measures you exactly as it "
    f"measures the agent. **Type-2 AUROC**: {term('type2_auroc').plain} **M-ratio**: "
    f"{term('m_ratio').plain}",
    try_this="Play a full set with your honest feelings. Then compare your AUROC with the "
    "agent's, and with the agent whose **self-model is zeroed**: it chooses just as well, but "
    "its confidence no longer changes, so it cannot tell its right answers from its wrong ones.",
    theory="Higher-order theories say knowing that you know needs a representation of your own "
    "state. You have one; the intact agent has one (its self-model); the zeroed agent does not, "
    "a synthetic blindsight: doing without knowing.",
)

# What the class is asked: play; the numbers go to the teacher's projector.
CLASS_QUESTION = Question(
    id=f"activity.{humans.ACTIVITY}",
    text="Play the agent's task on your device: about three minutes. Your accuracy and how well "
    "your confidence told right from wrong go to the class, without your name.",
    choices=(),
    view=PAGE_URLS[PAGE],
    view_first=True,
    kind="activity",
)

in_class = None  # (class code, student id) of a student who came from their class view
seat = classroom.role()
if classroom.CODE_PARAM in st.query_params and classroom.STUDENT_PARAM in st.query_params:
    code = classroom.student_class()
    in_class = (code, classroom.student_id()) if code else None
elif seat.student:  # a student's browser (docs/classroom.md): no teacher's panel
    in_class = (seat.code, classroom.student_id()) if seat.code else None
else:
    with st.expander(
        "For teachers: the whole class plays, and sees itself beside the agents",
        icon=":material/groups:",
        expanded=classroom.running() is not None,
    ):
        taught = classroom.class_panel(PAGE)
        if taught is not None:
            st.button(
                "Ask the class to play",
                type="primary",
                key=f"{PAGE}.ask_class",
                on_click=classroom.post,
                args=(CLASS_QUESTION,),
            )

            humans.class_beside_agents(f"{PAGE}.class")

sets = humans.trial_sets()
g = humans.game()
top = st.columns([2, 2, 3])
trial_set = top[0].selectbox(
    "Trial set",
    sets,
    key=f"{PAGE}.trial_set",
    help="The trials are drawn from this seed: the same set gives the same trials. Set k is what "
    "the bundled agent of seed k saw first in its evaluation.",
)
top[1].button(
    "Start" if g is None else "Start over",
    type="primary" if g is None else "secondary",
    key=f"{PAGE}.start",
    shortcut="Enter" if g is None else None,  # Enter never restarts a session under way
    on_click=humans.start_game,
    args=(int(trial_set if trial_set is not None else sets[0]),),
)
g = humans.game()
top[2].caption(
    f"{SESSION_TRIALS} trials, about three minutes. Keys: ← and → choose a side; "
    "1 opts out, 2-4 bet."
)

if g is None:
    st.info("Press **Start** (or Enter) to begin.")
    st.stop()

if not g.done:  # the keys pressed since the last run first, in order (none is lost)
    humans.press_keys(g.name, key_queue(g.name, ANSWER_KEYS, key=f"{PAGE}.keys"))
if not g.done:
    st.progress(g.trial / len(g.trials), text=f"Trial {g.trial + 1} of {len(g.trials)}")
    picture, answer = st.columns([2, 3])
    picture.image(
        flash_image(g.trials.evidence[g.trial]),
        caption="the flash",
        width=220,
        alt="The flash of this trial: bluish means left, reddish means right.",
    )
    with answer:
        # The keys are the key queue's (above): a button's own shortcut is lost when pressed
        # while the button is still disabled by the run before.
        chosen = g.side is not None
        st.markdown(
            f"You chose **{SIDES[g.side]}**. **Bet or opt out?**"
            if chosen
            else "**Which side was it?**"
        )
        for side, (col, key) in enumerate(zip(st.columns(2), ("←", "→"), strict=True)):
            col.button(
                SIDES[side],
                key=f"{PAGE}.side{side}",
                help=f"Key: {key}",
                width="stretch",
                type="primary" if g.side == side else "secondary",
                disabled=chosen,
                on_click=humans.choose_side,
                args=(side,),
            )
        grid = [c for _ in range(len(WAGERS) // 2) for c in st.columns(2)]
        for col, w in zip(grid, WAGERS, strict=True):
            col.button(
                w.label,
                key=f"{PAGE}.wager{w.shortcut}",
                help=f"Key: {w.shortcut}",
                width="stretch",
                disabled=not chosen,
                on_click=humans.wager,
                args=(w.confidence,),
            )
        st.caption(f"**{term('opt_out').name.capitalize()}**: {term('opt_out').plain}")
    st.stop()

st.progress(1.0, text=f"All {len(g.trials)} trials done")
you = humans.visitor_played(g)
st.download_button(
    "Download your trials (lab format, CSV)",
    humans.visitor_table(g),
    file_name=f"be_the_agent_set{g.trial_set}.csv",
    mime="text/csv",
    key=f"{PAGE}.download",
    help="Read it back on the Your data page or with `python -m labcore markers FILE.csv`.",
)
if isinstance(you, str):
    st.error(escape_markdown(you), icon=":material/error:")
    st.stop()

if in_class is not None and st.session_state.get("_be_the_agent.sent") is not g:
    try:
        classroom.store().submit(
            in_class[0], humans.ACTIVITY, in_class[1], humans.class_values(you.markers)
        )
        st.session_state["_be_the_agent.sent"] = g  # once per finished session
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
if in_class is not None and st.session_state.get("_be_the_agent.sent") is g:
    st.success(
        "Your numbers went to your class, without your name.", icon=":material/check_circle:"
    )
    st.page_link(
        f"app_pages/{PAGE_URLS['join']}.py",
        label="Back to your class",
        icon=":material/groups:",
        query_params={classroom.CODE_PARAM: in_class[0], classroom.STUDENT_PARAM: in_class[1]},
    )

agents = humans.agents_on_trials(g)
intact = agents.get("B2 agent")
zeroed = agents.get("B2, self-model zeroed")
said = answer_text(you.markers, intact and intact.markers, zeroed and zeroed.markers)
st.markdown(said)
if not agents:
    st.caption("No bundled B2 agent of this seed could be read, so you are shown alone.")
else:
    st.caption(
        f"The agents' values are on your {len(g.trials)} trials exactly: the first trials of "
        f"their own evaluation (seed {g.trial_set}), measured with the same rules as yours."
    )

rows = {humans.YOU: you.markers, **{label: p.markers for label, p in agents.items()}}
st.dataframe(
    pd.DataFrame(
        [
            {
                "": label,
                "accuracy": fmt(m.accuracy, "percent"),
                "Type-2 AUROC": fmt(m.type2_auroc),
                "meta-d'": fmt(m.meta_d),
                "M-ratio": fmt(m.m_ratio),
                "calibration error": fmt(m.calibration_error),
            }
            for label, m in rows.items()
        ]
    ),
    hide_index=True,
    width="stretch",
)
with st.expander("What the numbers mean"):
    for key in (
        "accuracy",
        "type2_auroc",
        "meta_d",
        "m_ratio",
        "calibration",
        "ece",
        "trials_per_person",
    ):
        st.markdown(f"**{term(key).name}**: {term(key).plain}")

figure(
    beside_agents_figure(
        {label: [m] for label, m in rows.items()},
        colours=humans.COLOURS,
        title="You and the agent on the same trials",
    ),
    key=f"{PAGE}.beside",
    answer=said,  # the chart's text alternative begins with the answer
)
figure(
    recoloured(
        calibration_figure(
            {humans.YOU: (you.correct, you.confidence)}
            | {label: (p.correct, p.confidence) for label, p in agents.items()},
            chance="wager",
            title="Calibration: when you said 80% sure, were you right 80% of the time?",
        ),
        humans.COLOURS,
    ),
    key=f"{PAGE}.calibration",
)
