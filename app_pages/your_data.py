"""Your data: people's trials (the Confidence Database's format or the lab's) through the lab's
markers, per person and condition, each data set's group line, beside the bundled agents and the
human reference."""

import pandas as pd
import streamlit as st

from labcore.figures.humans import beside_agents_figure, group_figure, group_label
from labcore.humans.datasets import GROUP_MARKERS, interval_text, notes, subjects_csv
from labcore.humans.example import EXAMPLE_NAME, synthetic_example
from labcore.humans.markers import SubjectMarkers
from labcore.humans.reference import REFERENCE, figure_text
from labcore.humans.trials import (
    CDB_ACCURACY,
    CDB_COLUMNS,
    CONDITION,
    FORMATS,
    LAB_COLUMNS,
    MAX_FILE_BYTES,
    MAX_SUBJECTS,
    MIN_TRIALS,
    MISSED,
    RECOMMENDED_TRIALS,
    header_of,
    task_suffixes,
)
from labcore.render import fmt, term
from ui import humans
from ui.components import explain, figure
from ui.state import escape_markdown

PAGE = "your_data"
DETECT = "detect"
AUTO = "auto"
POOL = "pool"
READ = {*CDB_COLUMNS.values(), CDB_ACCURACY, *LAB_COLUMNS}  # not offered to split trials by
LIMIT = f"{MAX_FILE_BYTES // 2**20} MiB"

st.title("Your data: people's confidence, the lab's markers")
st.caption(
    "Bring trials where people chose between two answers and said how sure they were: the lab "
    "measures them with the same markers it uses on its agents, and shows them beside the agents."
)
explain(
    what="Each row of your file is one trial: what was shown, what the person answered, and "
    "their confidence. For every person (and every condition, if your file has a Condition "
    "column) the lab computes **accuracy**, the **Type-2 AUROC** "
    f"({term('type2_auroc').plain}) and the **M-ratio** ({term('m_ratio').plain}), then each "
    "data set's group mean and median, and draws them beside the bundled agents. Nothing you "
    "upload is stored: it lives in this browser tab until you close it.",
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
        f"{', '.join(f'`{c}`' for c in CDB_COLUMNS.values())}, a `Condition` and an "
        f"`{CDB_ACCURACY}` column if there are, and ignores the rest (response times, "
        "difficulty). Stimulus and Response use two codes (most datasets: 1 and 2); the "
        "confidence stays on the dataset's own scale.\n\n"
        f"**The lab's**: columns {', '.join(f'`{c}`' for c in LAB_COLUMNS)}; stimulus and "
        "response 0 or 1, confidence the probability of being right (0 to 1); subject, "
        "difficulty and condition optional. The *Be the agent* page writes this format.\n\n"
        "**Missed trials** (a stimulus, response or confidence cell that is empty or reads "
        f"{', '.join(sorted(m.upper() for m in MISSED if m))}) are left out and counted per "
        "person; only a file without a single usable trial is refused. **Conditions** are "
        "never pooled without your say: a file with a `Condition` column is measured per person "
        "and condition. **Dual-task files** (`Response_1`, `Response_2`...) are measured one "
        f"task at a time, the one you choose. An **{CDB_ACCURACY}** column is checked against "
        "Stimulus and Response; where they disagree the page says so, and the markers use "
        "Stimulus and Response.\n\n"
        f"**Checked before anything is measured**: at most {LIMIT} per file and {MAX_SUBJECTS} "
        "people (or people in a condition); every cell a number or a missed trial; a person is "
        f"measured with both stimuli, both right and wrong answers and at least **{MIN_TRIALS} "
        "usable trials** (below that a meta-d' fit has fewer than 2.5 trials per cell of its "
        "16-cell table), and otherwise listed with the reason. "
        f"Rahnev (2025) recommends at least {RECOMMENDED_TRIALS}; people with fewer are "
        f"measured, flagged and left out of the group line ({term('trials_per_person').name}: "
        f"{term('trials_per_person').plain})\n\n"
        "**Ratings**: a confidence with at most 10 distinct values is a rating scale used as it "
        "is; a continuous one (a slider) is cut at each person's quartiles into 4 ratings, the "
        "rule the lab uses for its agents. Calibration is computed only where confidence is a "
        "probability (the lab format).\n\n"
        "**The group line** of each data set and condition: the mean and median Type-2 AUROC "
        "and M-ratio across its people, each with a 95% bootstrap interval over the people "
        f"(10,000 resamples, seed {humans.GROUP_SEED}; `python -m labcore markers` gives the "
        "same lines, its `--seed` another draw)."
    )

left, right = st.columns([3, 2])
with left:
    uploaded = st.file_uploader(
        "Upload trial tables (CSV, one data set per file)",
        type=["csv"],
        accept_multiple_files=True,
        key=f"{PAGE}.upload",
        max_upload_size=humans.UPLOAD_LIMIT_MB,
        help=f"At most {LIMIT} per file; nothing is stored on the server.",
    )
    st.caption(
        f"At most {LIMIT} per file and {humans.MAX_FILES} files at once; the command line "
        "`python -m labcore markers FOLDER` takes any number."
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

if use_example:
    files, who = [(EXAMPLE_NAME, synthetic_example())], "synthetic example (made up)"
    fmt_choice = "confidence-database"
else:
    files, who = [(u.name, u.getvalue()) for u in uploaded or []], "your subjects"
    fmt_choice = None if chosen in (None, DETECT) else chosen
if not files:
    st.info("Upload a file, or switch on the synthetic example, to see its markers.")
    st.stop()
if len(files) > humans.MAX_FILES:
    st.warning(
        escape_markdown(
            f"The page measures {humans.MAX_FILES} files at once; left out: "
            f"{', '.join(name for name, _ in files[humans.MAX_FILES :])}."
        ),
        icon=":material/warning:",
    )
    files = files[: humans.MAX_FILES]

headers = [header_of(content) for _, content in files]
splits = list(
    dict.fromkeys(
        h for header in headers for h in header if h and h not in READ and h.casefold() != CONDITION
    )
)
suffixes = list(dict.fromkeys(s for header in headers for s in task_suffixes(header)))
split_col, task_col = st.columns(2)
split = split_col.selectbox(
    "Measure each person per",
    [AUTO, POOL, *splits],
    format_func=lambda c: {
        AUTO: "condition (the file's Condition column, if it has one)",
        POOL: "all their trials, conditions pooled",
    }.get(c, f"value of {c}"),
    key=f"{PAGE}.by",
)
task = None
if suffixes:
    task = task_col.selectbox(
        "Task of a dual-task file",
        suffixes,
        index=None,
        placeholder="choose a task",
        format_func=lambda s: f"task {s} (columns ending in {s})",
        key=f"{PAGE}.task",
    )

measured = humans.measure_files(
    files,
    fmt_choice,
    by=None if split in (None, AUTO, POOL) else split,
    pool=split == POOL,
    task=task,
)
for ds in measured:
    if ds.error:
        st.error(escape_markdown(ds.error), icon=":material/error:")
ok = [ds for ds in measured if not ds.error]
if not ok:
    st.stop()

if use_example:
    st.warning(
        "**Synthetic data**: these subjects were made up by the lab's model, not measured.",
        icon=":material/science:",
    )
said = [
    escape_markdown(text)
    + (" (to pool them, measure each person per *all their trials*)" if pooling_hint else "")
    for ds in ok
    for kind, text in notes(ds)
    for pooling_hint in [kind == "by" and ds.by_default]
    if kind != "accuracy_disagrees"
]
if said:
    st.info("\n".join(f"- {text}" for text in said), icon=":material/info:")
for ds in ok:
    for kind, text in notes(ds):
        if kind == "accuracy_disagrees":
            st.warning(escape_markdown(text), icon=":material/warning:")

several = len(ok) > 1
by_condition = any(ds.by for ds in ok)
rows = []
for ds in ok:
    for r in ds.rows:
        measured_row = isinstance(r, SubjectMarkers)
        row = {"data set": ds.name} if several else {}
        row.update({"subject": r.subject})
        if by_condition:
            row["condition"] = r.condition or ""
        row.update(
            {
                "trials": r.n_trials,
                "missed": r.n_missed,
                "accuracy": fmt(r.accuracy, "percent") if measured_row else "",
                "Type-2 AUROC": fmt(r.type2_auroc) if measured_row else "",
                "meta-d'": fmt(r.meta_d) if measured_row else "",
                "M-ratio": fmt(r.m_ratio) if measured_row else "",
                "calibration error": fmt(r.calibration_error) if measured_row else "",
                "notes": "; ".join(r.notes) if measured_row else f"not measured: {r.reason}",
            }
        )
        rows.append(row)
people = len({(ds.name, r.subject) for ds in ok for r in ds.rows})
st.subheader(f"{people} people: {who}")
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
st.download_button(
    "Download these markers (CSV)",
    subjects_csv(ok),
    file_name=f"markers_{ok[0].name}" if not several else "markers.csv",
    mime="text/csv",
    key=f"{PAGE}.download_markers",
)

lines = humans.group_lines(ok)
several_sets = len({line.dataset for line in lines}) > 1
st.subheader("Each data set's group")
st.dataframe(
    pd.DataFrame(
        [
            {
                "group": group_label(line, several_sets),
                "people": line.n_subjects,
                f"left out: under {line.min_trials} trials": line.n_few_trials,
                "not measured": line.n_unmeasured,
                **{
                    f"{name} {which}": interval_text(getattr(line, marker), which)
                    for marker, name in GROUP_MARKERS
                    for which in ("mean", "median")
                },
            }
            for line in lines
        ]
    ),
    hide_index=True,
    width="stretch",
)
st.caption(
    "Each value with its 95% bootstrap interval over the group's people; people with fewer "
    f"than {RECOMMENDED_TRIALS} usable trials are left out of the group, and counted."
)
markers = [m for ds in ok for m in ds.markers]
figure(
    group_figure(
        markers,
        lines,
        title="Each person, side by side by condition, and the group"
        if by_condition
        else "Each person, and the group",
    ),
    key=f"{PAGE}.groups",
    download=f"{PAGE}_groups",
)

agents = humans.bundled_agents()
if len(lines) == 1:
    groups = {who: markers}
else:
    groups = {
        group_label(line, several_sets): [
            m for m in markers if (m.dataset, m.condition) == (line.dataset, line.condition)
        ]
        for line in lines
    }
figure(
    beside_agents_figure(
        {**groups, **agents},
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
