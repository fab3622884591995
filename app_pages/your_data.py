"""Your data: people's trials (the Confidence Database's format or the lab's) through the lab's
markers, beside the bundled agents and the human reference."""

import pandas as pd
import streamlit as st

from labcore.figures.humans import beside_agents_figure
from labcore.humans.example import EXAMPLE_NAME, synthetic_example
from labcore.humans.markers import markers_csv
from labcore.humans.reference import REFERENCE, figure_text
from labcore.humans.trials import (
    CDB_COLUMNS,
    FORMATS,
    LAB_COLUMNS,
    MAX_FILE_BYTES,
    MAX_SUBJECTS,
    MIN_TRIALS,
    RECOMMENDED_TRIALS,
)
from labcore.render import fmt, term
from ui import humans
from ui.components import explain, figure
from ui.state import escape_markdown

PAGE = "your_data"
DETECT = "detect"

st.title("Your data: people's confidence, the lab's markers")
st.caption(
    "Bring trials where people chose between two answers and said how sure they were: the lab "
    "measures them with the same markers it uses on its agents, and shows them beside the agents."
)
explain(
    what="Each row of your file is one trial: what was shown, what the person answered, and "
    "their confidence. For every person the lab computes **accuracy**, the **Type-2 AUROC** "
    f"({term('type2_auroc').plain}) and the **M-ratio** ({term('m_ratio').plain}), then draws "
    "them beside the bundled agents. Nothing you upload is stored: it lives in this browser tab "
    "until you close it.",
    try_this="No file at hand? Switch on the lab's **synthetic example**: three made-up "
    "observers who differ only in how noisy their confidence is. Watch the third one's M-ratio "
    "fall while its accuracy stays put, the same dissociation the agents show when their "
    "self-model is zeroed.",
    theory="Higher-order theories tie awareness to representing one's own states. Confidence "
    "that tracks being right is the behavioural trace of such a representation, in people as "
    "in the agents; a blindsight patient chooses well but cannot tell when.",
)

with st.expander("The two file formats, and what the lab checks"):
    st.markdown(
        f"**The {term('confidence_database').name}'s**: {term('confidence_database').plain} "
        "One CSV per dataset; the lab reads "
        f"{', '.join(f'`{c}`' for c in CDB_COLUMNS.values())} and ignores the rest (response "
        "times, difficulty). Stimulus and Response use two codes (most datasets: 1 and 2); the "
        "confidence stays on the dataset's own scale.\n\n"
        f"**The lab's**: columns {', '.join(f'`{c}`' for c in LAB_COLUMNS)}; stimulus and "
        "response 0 or 1, confidence the probability of being right (0 to 1); subject, "
        "difficulty and condition optional. The *Be the agent* page writes this format.\n\n"
        f"**Checked before anything is measured**: at most {MAX_FILE_BYTES // 2**20} MiB and "
        f"{MAX_SUBJECTS} people; every cell a number; both stimuli and both right and wrong "
        f"answers for every person; at least **{MIN_TRIALS} trials per person**: below that a "
        "meta-d' fit has fewer than 2.5 trials per cell of its 16-cell table. "
        f"Rahnev (2025) recommends at least {RECOMMENDED_TRIALS}; people with fewer are "
        f"measured and flagged ({term('trials_per_person').name}: "
        f"{term('trials_per_person').plain})\n\n"
        "**Ratings**: a confidence with at most 10 distinct values is a rating scale used as it "
        "is; a continuous one (a slider) is cut at each person's quartiles into 4 ratings, the "
        "rule the lab uses for its agents. Calibration is computed only where confidence is a "
        "probability (the lab format)."
    )

left, right = st.columns([3, 2])
with left:
    uploaded = st.file_uploader(
        "Upload a trial table (CSV)",
        type=["csv"],
        key=f"{PAGE}.upload",
        max_upload_size=MAX_FILE_BYTES // 2**20,
        help=f"At most {MAX_FILE_BYTES // 2**20} MiB; nothing is stored on the server.",
    )
    chosen = st.segmented_control(
        "Format", [DETECT, *FORMATS], default=DETECT, key=f"{PAGE}.format"
    )
with right:
    use_example = st.toggle(
        "Use the lab's synthetic example instead",
        key=f"{PAGE}.example",
        help=f"{term('synthetic_data').plain} Three observers of a signal-detection model, drawn "
        "from a seed.",
    )
    st.download_button(
        "Download the synthetic example (CSV)",
        synthetic_example(),
        file_name=EXAMPLE_NAME,
        mime="text/csv",
        key=f"{PAGE}.download_example",
    )

fmt_choice = None if chosen in (None, DETECT) else chosen
if use_example:
    content, name, who = synthetic_example(), EXAMPLE_NAME, "synthetic example (made up)"
elif uploaded is not None:
    content, name, who = uploaded.getvalue(), uploaded.name, "your subjects"
else:
    content = None
if content is None:
    st.info("Upload a file, or switch on the synthetic example, to see its markers.")
    st.stop()

measured = humans.measure_upload(
    content, name, "confidence-database" if use_example else fmt_choice
)
if measured.error:
    st.error(escape_markdown(measured.error), icon=":material/error:")
    st.stop()

if use_example:
    st.warning(
        "**Synthetic data**: these subjects were made up by the lab's model, not measured.",
        icon=":material/science:",
    )
table = pd.DataFrame(
    [
        {
            "subject": m.subject,
            "trials": m.n_trials,
            "accuracy": fmt(m.accuracy, "percent"),
            "Type-2 AUROC": fmt(m.type2_auroc),
            "meta-d'": fmt(m.meta_d),
            "M-ratio": fmt(m.m_ratio),
            "calibration error": fmt(m.calibration_error),
            "notes": "; ".join(m.notes),
        }
        for m in measured.markers
    ]
)
st.subheader(f"{len(measured.markers)} people: {who}")
st.dataframe(table, hide_index=True, width="stretch")
st.download_button(
    "Download these markers (CSV)",
    markers_csv(measured.markers),
    file_name=f"markers_{name}",
    mime="text/csv",
    key=f"{PAGE}.download_markers",
)

agents = humans.bundled_agents()
figure(
    beside_agents_figure(
        {who: list(measured.markers), **agents},
        colours=humans.COLOURS,
        title=f"{who.capitalize()} beside the bundled agents (each agent: one point per seed)",
    ),
    key=f"{PAGE}.beside",
    download=f"{PAGE}_beside_agents",
)
if not agents:
    st.caption("No bundled wagering agent could be read, so only people are drawn.")

st.subheader("The human reference")
st.markdown(
    "What the published sources state, typed once in the lab (`labcore/humans/reference.py`). "
    "They give no range of people's AUROC or M-ratio to draw as a band, so the band beside the "
    "agents is the trials a person's numbers need."
)
st.markdown("\n".join(f"- {figure_text(f.key)}" for f in REFERENCE))
st.caption(" · ".join(sorted({f"{f.source.citation} doi:{f.source.doi}" for f in REFERENCE})))
