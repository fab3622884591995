"""Scorecards: two instruments for scoring whole systems, applied to reference systems and ours."""

import json

import pandas as pd
import streamlit as st

from labcore.figures.scorecards import fcs_plane, osmd_radar
from labcore.scorecards.checks import fcs_discrepancies, osmd_discrepancies, reference_summary
from labcore.scorecards.documents import CAVEATS, FCS, OSMD
from labcore.scorecards.fcs import fcs_of_row, printed_fcs_agrees
from labcore.scorecards.lab_agents import (
    LAB_AGENTS,
    lab_agent_fcs,
    lab_evidence,
    lab_fcs_inputs,
    score_lab_agent,
)
from labcore.scorecards.rubric import MAX_TOTAL, band_label, lm_flag, score_reference_system
from labcore.scorecards.user_systems import (
    JSON_FORMAT,
    JSON_VERSION,
    MAX_IMPORT_BYTES,
    UserSystem,
    assessed_total_text,
    score_user_system,
    user_system_to_json,
)
from ui import data
from ui.components import figure
from ui.scorecard_import import COLUMNS as EDITOR_COLUMNS
from ui.scorecard_import import clause_to_text, editor_rows, entries_from_rows, load_scorecard
from ui.state import escape_markdown

st.title("Scorecards")
st.caption(
    "Two instruments from outside the lab that score whole systems: the *Operational "
    "Self-Model Density* "
    "rubric (90 points) and the *Functional Consciousness Score* (FCS = R x P). Here "
    "they are applied to "
    "their own reference systems, checked against their own tables, and applied to our agents."
)
with st.container(border=True):
    st.markdown("**Read these first.**")
    for caveat in CAVEATS:
        st.markdown(f"- {caveat.text} *({caveat.source})*")

values = data.checked_results().values


@st.cache_data(show_spinner=False)
def scored(name: str, values: dict, lesioned: bool = False):
    """A scored system: a reference system of the rubric paper, or one of our agents (from
    ``values``,
    an argument so that the cache follows the result set)."""
    if name in OSMD.reference_systems:
        return score_reference_system(name)
    return score_lab_agent(name, lab_evidence(name, values, self_model_lesioned=lesioned))


SYSTEM_LABELS = {
    **OSMD.reference_systems,
    **{k: f"lab {data.label(kind)}" for k, kind in LAB_AGENTS.items()},
    "B2-lesioned": "lab B2, self-model zeroed",
}

osmd, fcs, own = st.tabs(
    ["Self-model density (OSMD)", "Functional Consciousness Score", "Score your own system"]
)

with osmd:
    st.markdown(
        "Thirty items in eight clusters, each scored 0-3 twice: **architectural** "
        "(does the system have "
        "the part?) and **behavioural** (does it show it?). The rules cap the behavioural score "
        "(at most architectural + 1 without operational evidence; "
        "language-model-vulnerable items at "
        "architectural + 0). Bands: 0 Trivial ... V Saturated."
    )
    chosen = st.multiselect(
        "Systems",
        list(SYSTEM_LABELS),
        default=["B1", "B2", "B2-lesioned"],
        format_func=SYSTEM_LABELS.get,
    )
    systems = {
        name: scored("B2", values, True) if name == "B2-lesioned" else scored(name, values)
        for name in chosen
    }
    if systems:
        figure(
            osmd_radar({SYSTEM_LABELS[n]: s.cluster_subtotals for n, s in systems.items()}),
            key="radar",
        )
        summary_rows = []
        for name, s in systems.items():
            low, high = s.behavioural_range
            summary_rows.append(
                {
                    "system": SYSTEM_LABELS[name],
                    "architectural /90": s.architectural_total,
                    "behavioural /90": s.behavioural_total,
                    "behavioural range": f"{low}-{high}",
                    "band": band_label(s.band),
                    "applicable items": s.n_applicable,
                    "behavioural / applicable points": f"{s.behavioural_total}/"
                    f"{s.applicable_max_points} "
                    f"({s.behavioural_fraction_of_applicable:.0%})",
                }
            )
        st.dataframe(pd.DataFrame(summary_rows), hide_index=True, width="stretch")
        if "B2" in systems and "B2-lesioned" in systems:
            hot2 = systems["B2"].item("HOT-2"), systems["B2-lesioned"].item("HOT-2")
            st.info(
                "HOT-2 (metacognitive monitoring) for B2: behavioural "
                f"{hot2[0].behavioural} intact, "
                f"{hot2[1].behavioural} with the self-model zeroed. Evidence: {hot2[0].evidence} | "
                f"lesioned: {hot2[1].evidence}",
                icon="🪞",
            )
        detail = st.selectbox("Item by item", list(systems), format_func=SYSTEM_LABELS.get)
        rows = []
        for item in systems[detail].items:
            rows.append(
                {
                    "item": item.item_id,
                    "name": OSMD.items[item.item_id]["name"],
                    "cluster": OSMD.clusters[item.item_id.split("-")[0]][0],
                    "architectural": item.architectural if item.applicable else None,
                    "behavioural": item.behavioural if item.applicable else None,
                    "cap": item.behavioural_cap if item.applicable else None,
                    "rules applied": ", ".join(OSMD.rules[r][0] for r in item.rules_applied),
                    "evidence / why N/A": item.evidence
                    if item.applicable
                    else item.not_applicable_reason,
                }
            )
        columns = [
            "item",
            "architectural",
            "behavioural",
            "cap",
            "name",
            "cluster",
            "rules applied",
            "evidence / why N/A",
        ]
        st.dataframe(
            pd.DataFrame(rows, columns=columns), hide_index=True, width="stretch", height=420
        )  # scores first
    st.markdown("##### Do the rubric paper's headline numbers match its own grid?")
    checks = []
    for system_id, name in OSMD.reference_systems.items():
        r = reference_summary(system_id)
        checks.append(
            {
                "system": name,
                "stated arch/behav": "{}/{}".format(*r["stated"]),
                "its grid sums to": "{}/{}".format(*r["grid"]),
                "after its own rules": r["after_rules"],
                "rater range (App. D)": "{}-{}".format(*r["rater_range"]),
            }
        )
    st.dataframe(pd.DataFrame(checks), hide_index=True, width="stretch")
    with st.expander(
        f"All {len(osmd_discrepancies())} places where the rubric paper disagrees with itself"
    ):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "where": d.where,
                        "quantity": d.quantity,
                        "stated": d.stated,
                        "recomputed": d.recomputed,
                        "note": d.note,
                    }
                    for d in osmd_discrepancies()
                ]
            ),
            hide_index=True,
            width="stretch",
        )

with fcs:
    st.markdown(
        "**FCS = R x P.** R (representational capacity) = number of self-model "
        "variables x bits per "
        "variable; P = reasoning power. The page gives numbers for nine systems but **no procedure "
        "for P**, so for our agents P is a stand-in you can set (and the result is "
        "labelled as such)."
    )
    # two formulas, one under the other: side by side they were wider than a phone (a
    # scrolling formula cannot take the keyboard's focus)
    st.latex(r"\mathrm{FCS} = R \cdot P")
    st.latex(
        FCS.formula_phi_fcs.replace("Φ_FCS", r"\Phi_{FCS}")
        .replace("Σⱼ", r"\sum_j")
        .replace("moduleⱼ", "module_j")
    )
    st.caption(
        "Phi_FCS is defined on the page but never evaluated there; we do not evaluate it either."
    )
    p_standin = st.select_slider(
        "Stand-in P for our agents",
        [1, 10, 33, 100, 1000],
        value=33,
        help="33 is the page's P for LIDA, the smallest non-zero reference P.",
    )
    points = []
    table = []
    for row in FCS.reference_table:
        points.append(
            {
                "name": row["system"],
                "R": row["n_self_model_variables"] * row["bits_per_variable"],
                "P": row["reasoning_power"],
                "group": "reference",
            }
        )
        table.append(
            {
                "system": row["system"],
                "vars": row["n_self_model_variables"],
                "bits/var": row["bits_per_variable"],
                "P": row["reasoning_power"],
                "stated FCS": row["stated_fcs_text"],
                "recomputed": f"{fcs_of_row(row):,.0f}",
                "agrees": printed_fcs_agrees(row),
            }
        )
    for name in ("B1", "B2"):
        for lesioned in (False, True) if name == "B2" else (False,):
            n_vars, bits = lab_fcs_inputs(name, values, self_model_lesioned=lesioned)
            r, fcs_value = lab_agent_fcs(name, n_vars, bits, float(p_standin))
            label = f"lab {name}" + (" (self-model zeroed)" if lesioned else "")
            points.append(
                {
                    "name": label,
                    "R": r,
                    "P": float(p_standin),
                    "group": "lab",
                    "standin": True,
                }
            )
            table.append(
                {
                    "system": label,
                    "vars": round(n_vars, 2),
                    "bits/var": round(bits, 3),
                    "P": p_standin,
                    "stated FCS": "(ours)",
                    "recomputed": f"{fcs_value:.3g} (stand-in P)",
                    "agrees": None,
                }
            )
    figure(fcs_plane(points), key="fcs")
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
    st.caption(
        "Our B2's R: its self-model's effective number of variables (participation "
        "ratio of the self-model's state) times "
        "the bits per variable that a held-out probe reads from the self-model about the "
        "agent's own correctness "
        "(a lower bound). B1 has no self-model: R = 0, so FCS = 0 whatever P is."
    )
    with st.expander("Where the FCS page disagrees with its own table"):
        for d in fcs_discrepancies():
            st.markdown(
                f"- **{d.quantity}** ({d.where}): stated {d.stated}; from its table "
                f"{d.recomputed}. {d.note}"
            )

with own:
    st.markdown(
        "Enter clauses (0-3) for a system of your own; the rubric's rules are applied as you type. "
        'Type **2-3** for "between clauses 2 and 3" (the rules take the lower, 2). '
        "Leave a row empty "
        "if you have not assessed the item: it then counts in no total (it is not a 0). "
        "Export the result as JSON, or load a scorecard you saved."
    )
    uploaded = st.file_uploader(
        "Load a scorecard (JSON)",
        type=["json"],
        key="scorecards.import",
        max_upload_size=max(1, MAX_IMPORT_BYTES // 2**20),
        help=f"At most {MAX_IMPORT_BYTES // 2**20} MiB of UTF-8 JSON.",
    )
    loaded = None
    if uploaded is not None:
        loaded, message = load_scorecard(uploaded.getvalue())
        (st.success if loaded else st.error)(escape_markdown(message))
    name = st.text_input("Name", value=loaded.name if loaded else "my system")
    clause_help = (
        "0-3, or two adjacent clauses such as 2-3 (the lower is taken); empty = not assessed"
    )
    SCORES_FIRST = ("item", "architectural", "behavioural", "confidence", "name")
    edited = st.data_editor(
        pd.DataFrame(editor_rows(loaded), columns=list(EDITOR_COLUMNS)),
        hide_index=True,
        width="stretch",
        height=420,
        # the scores first: on a phone the long item names filled the screen (layout walk)
        column_order=[*SCORES_FIRST, *(c for c in EDITOR_COLUMNS if c not in SCORES_FIRST)],
        disabled=["item", "name"],
        column_config={
            "architectural": st.column_config.TextColumn(help=clause_help, max_chars=5),
            "behavioural": st.column_config.TextColumn(help=clause_help, max_chars=5),
            "confidence": st.column_config.NumberColumn(
                "± confidence", min_value=0, max_value=2, step=1
            ),
            "N/A reason": st.column_config.TextColumn(help="fill in to mark the item N/A"),
            "evidence": st.column_config.TextColumn(help="kept in the exported JSON"),
        },
    )
    try:
        system = UserSystem(
            name=name or "my system", items=entries_from_rows(edited.to_dict("records"))
        )
        result = score_user_system(system)
    except ValueError as exc:
        st.error(escape_markdown(f"These scores break a rule of the rubric: {exc}."))
    else:
        low, high = result.behavioural_range
        out_of = MAX_TOTAL if result.complete else result.applicable_max_points
        c1, c2, c3 = st.columns(3)
        c1.metric(
            "Behavioural total",
            f"{result.behavioural_total} / {out_of}" if out_of else "no item scored",
            help="after the caps; over the items scored when some are not assessed",
        )
        c2.metric("Range (from confidences)", f"{low}-{high}")
        c3.metric(
            "Band",
            band_label(result.band) if result.complete else "not defined",
            help="The bands are defined on the 90-point total: assess all 30 items (or mark "
            "them N/A "
            "with a reason) to get one.",
        )
        if not result.complete:
            c3.caption(
                "Not defined until every item is assessed or marked N/A: the bands are "
                "cut on the 90-point "
                "total."
            )
        st.caption(f"Behavioural total: {assessed_total_text(result)}.")
        capped = [i.item_id for i in result.capped_items]
        if capped:
            st.caption("Capped by the rules: " + ", ".join(capped))
        figure(osmd_radar({result.name: result.cluster_subtotals}), key="own-radar")
        entered = {e.item_id: e for e in system.items}
        with st.expander("Item by item, after the rules"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "item": i.item_id,
                            "status": "scored"
                            if i.applicable
                            else "not assessed"
                            if not i.assessed
                            else "not applicable",
                            "architectural": clause_to_text(entered[i.item_id].architectural)
                            if i.applicable
                            else None,
                            "behavioural entered": clause_to_text(entered[i.item_id].behavioural)
                            if i.applicable
                            else None,
                            "behavioural after the rules": i.behavioural if i.applicable else None,
                            "rules applied": ", ".join(OSMD.rules[r][0] for r in i.rules_applied),
                        }
                        for i in result.items
                    ]
                ).astype({"behavioural after the rules": "Int64"}),
                hide_index=True,
                width="stretch",
            )
        st.download_button(
            "Export as JSON",
            user_system_to_json(system),
            file_name="scorecard.json",
            mime="application/json",
        )
    with st.expander("What each clause means (criteria for 0-3)"):
        pick = st.selectbox(
            "Item", list(OSMD.items), format_func=lambda k: f"{k} {OSMD.items[k]['name']}"
        )
        for clause, text in enumerate(OSMD.items[pick]["criteria"]):
            st.markdown(f"**{clause}.** {text}")
        st.caption(
            f"Cluster: {OSMD.clusters[pick.split('-')[0]][0]}. LM vulnerability: {lm_flag(pick)}."
        )
    st.caption(
        f"{len(OSMD.clusters)} clusters, {len(OSMD.items)} items. JSON format: "
        + json.dumps({"format": JSON_FORMAT, "version": JSON_VERSION})[:60]
    )
