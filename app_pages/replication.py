"""Replication: every claim of the paper, the paper's number beside ours, the verdict and why."""

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from labcore import report
from labcore.figures import registry
from labcore.figures.explore import e3_robustness_verdict
from labcore.findings import evidence_split
from labcore.render import answer, has_template, macro
from ui import controls, data
from ui.components import SCOPE_LINE, figure

PAGE = "replication"
# The training-length table's columns (results' gain rows) and the names a reader sees (a comment,
# not a string: Streamlit's magic draws a bare string of a page on the page).
GAIN_COLUMNS = {
    "seed": "seed",
    "training": "training",
    "updates": "updates",
    "jacobian": "bus Jacobian (gain)",
    "l75_text": "noise tolerance L75",
    "accuracy": "clean accuracy",
}

st.title("Replication")
st.caption(
    "Does the paper reproduce? Every number here comes out of training and evaluating "
    "the bundled agents; "
    "the paper's numbers live in one reference table and are used only for the comparison."
)
with st.expander("How are verdicts decided?"):
    st.markdown(
        "The rules were written down **before** any result was computed "
        "(`docs/verdicts.md`) and are applied by "
        "code: **reproduced** if the paper's value lies in our 95% bootstrap interval "
        "over seeds or within a "
        "pre-set tolerance; **partly reproduced** if the qualitative pattern holds "
        "(e.g. 'B1 is more fragile "
        "than B2') but not the number; **not reproduced** otherwise; **not "
        "comparable** when the paper's "
        "number has no counterpart we can compute. Claims marked *by construction* are "
        "fixed by the design "
        "(for instance, a constant confidence has AUROC 0.5 exactly) and are not evidence."
    )

sets = data.result_sets()
if not sets:
    st.error("No result set found. Run `python -m labcore study paper --out results/bundled`.")
    st.stop()
names = [Path(p).name for p in sets]
controls.url_choice(PAGE, "results", names)
chosen = sets[names.index(st.selectbox("Result set", names, key=controls.key(PAGE, "results")))]
controls.publish_choice(PAGE, "results", default=names[0])
res = data.checked_results(chosen)
summary = res.summary
if summary is None:
    st.stop()  # checked_results has said which file is broken and how to restore it

config = summary.config
st.write(
    f"**{len(res.seeds)} seeds** per agent · experiments "
    f"{', '.join(e.upper() for e in res.experiments)}"
    f" · {'quick' if config.get('quick') else 'full'} budgets"
)
if has_template(summary.study):
    st.markdown(answer(summary, "short"))
split = evidence_split(res.claims)
counts = {v: split["evidence"][v] + split["apart"][v] for v in split["evidence"]}
counts = {v: n for v, n in counts.items() if n}
cols = st.columns(len(counts) + 1 or 1)
for col, verdict in zip(cols, counts, strict=False):
    col.metric(verdict.capitalize() + " (evidence)", split["evidence"][verdict])
cols[-1].metric(
    "Counted apart",
    sum(split["apart"].values()),
    help="Fixed by the design (the same for an untrained agent, or by the allocation rule), or "
    "without a counterpart here: not evidence either way. Their verdicts: "
    + ", ".join(f"{n} {v}" for v, n in split["apart"].items() if n),
)
if has_template(summary.study):
    st.caption(macro(summary, "counts"))
if res.tables is not None and res.tables.excluded:
    st.warning(
        "Excluded agents (below the 95% agreement criterion): " + ", ".join(res.tables.excluded)
    )

rows = [
    {
        "what is claimed": r["Question"],
        "paper": r["Paper"],
        "ours": r["Ours"],
        "verdict": r["Verdict"],
        "why": r["why"],
        "evidence": r["Evidence"],
        "experiment": r["id"].split(".")[0].upper(),
        "claim": r["id"],  # in the CSV download (docs/verdicts.md's ids), not on the page
    }
    for r in report.finding_rows(res.claims)
]
# The verdict and the two numbers first, the long texts after: a phone shows the first three
# columns.
claims = pd.DataFrame(
    rows,
    columns=[
        "experiment",
        "verdict",
        "paper",
        "ours",
        "what is claimed",
        "why",
        "evidence",
        "claim",
    ],
)
st.subheader("Claims, paper beside ours")
f1, f2 = st.columns(2)
exps = f1.multiselect(
    "Experiments",
    sorted(claims["experiment"].unique()),
    default=sorted(claims["experiment"].unique()),
)
verdicts = f2.multiselect("Verdicts", list(counts), default=list(counts))
shown = claims[claims["experiment"].isin(exps) & claims["verdict"].isin(verdicts)]
st.dataframe(
    shown.drop(columns="claim"),
    width="stretch",
    hide_index=True,
    height=420,
    column_config={
        "what is claimed": st.column_config.TextColumn("what is claimed", width="medium"),
        "paper": st.column_config.TextColumn("paper", width=110),
        "ours": st.column_config.TextColumn("ours", width=140),
        "why": st.column_config.TextColumn("why", width="large"),
        "verdict": st.column_config.TextColumn("verdict", width=140),
        "experiment": st.column_config.TextColumn("exp.", width="small"),
    },
)
st.download_button(
    "Download the claims (CSV)", claims.to_csv(index=False), file_name="claims.csv", mime="text/csv"
)

st.subheader("The paper's figures, rebuilt from our data")
tabs = st.tabs(
    [registry.EXPERIMENT_TITLES.get(e, e) for e in res.experiments] + ["Exploratory (post hoc)"]
)
for tab, exp in zip(tabs, [*res.experiments, "explore"], strict=True):
    with tab:
        if exp != "explore":
            st.markdown(registry.EXPERIMENT_INTROS.get(exp, ""))
        if exp == "e3":
            st.markdown(
                "**The E3 robustness verdict, with the design study.** "
                + " ".join(e3_robustness_verdict(res))
                + " Explore the study's designs on the Robustness page."
            )
        elif exp == "explore":  # only the post-hoc tab, not every tab but E3
            st.markdown(
                "Added after the results were seen: not pre-registered, no verdicts. "
                "Hypotheses for a "
                "future, pre-registered run."
            )
            if res.gain.get("rows"):
                st.markdown(
                    "**Does training length decide B1's fragility?** "
                    + res.gain.get("description", "")
                )
                st.dataframe(
                    pd.DataFrame(res.gain["rows"])[list(GAIN_COLUMNS)].rename(columns=GAIN_COLUMNS),
                    hide_index=True,
                    width="stretch",
                )
        for spec in (
            *registry.FIGURES,
            *registry.E4_FIGURES,
        ):  # E4 (beyond the paper): its own set, results/e4
            if (exp == "explore") != spec.exploratory or (
                exp != "explore" and spec.experiment != exp
            ):
                continue
            try:
                findings = spec.findings(res) if spec.findings else []
            except Exception as exc:  # as for figures: one sentence, not the page
                findings = [f"(not available from this result set: {type(exc).__name__})"]
            try:
                figure(
                    build=lambda spec=spec: spec.build(res),
                    cache_key=(
                        "replication",
                        spec.slug,
                        str(res.directory),
                        data.version(res),
                    ),
                    key=f"fig-{spec.slug}",
                    download=spec.slug,
                    answer=tuple(findings),  # what the chart says, then its numbers
                )
            except Exception as exc:  # one broken figure must not take the page down
                st.warning(
                    "This figure could not be drawn from this result set "
                    f"({type(exc).__name__}: {exc})."
                )
                continue
            with st.expander("What it shows, what the paper reported, what we found"):
                st.markdown(f"**What you are looking at.** {spec.what}")
                if spec.paper_note:
                    st.markdown(f"**What the paper reported.** {spec.paper_note}")
                if findings:
                    st.markdown("**What we found.** " + " ".join(findings))
                found = [res.finding(c) for c in spec.claims if res.finding(c) is not None]
                for r in report.finding_rows(found):
                    st.markdown(
                        f"- {r['Question']}: paper {r['Paper']}, ours {r['Ours']}: "
                        f"**{r['Verdict']}** — {r['why']}"
                    )

inconsistencies = res.tables.paper_inconsistencies if res.tables is not None else []
if inconsistencies:
    with st.expander(f"Inconsistencies inside the paper ({len(inconsistencies)})"):
        st.markdown("\n".join(f"- {item}" for item in inconsistencies))

researchers = st.expander("For researchers: how this result set was made, rerunning it, its files")
researchers.markdown(
    f"Result set `{Path(chosen).name}`, created {summary.created or 'unknown'} from commit "
    f"`{(summary.git_commit or 'unknown')[:10]}` in "
    f"{summary.wall_seconds if summary.wall_seconds is not None else '?'} s. Claim ids (as in "
    "`docs/verdicts.md` and `summary.json`) are in the CSV download of the claims."
)
researchers.markdown("**Rerun it, with more seeds**")
researchers.code(
    "python -m labcore --compute portable study paper --set seeds="
    + ",".join(map(str, range(20)))
    + " --jobs 2 --out results/seeds20",
    language="bash",
)
researchers.markdown(
    "Agents missing from `checkpoints/` are trained first (fast mode) and cached in "
    "`runs/checkpoints`. "
    "The run writes `summary.json`, the trial-level CSV files and `report.html`; "
    "anything it writes "
    "under `results/` appears in the selector above. With a Dask cluster: add "
    "`--backend dask --scheduler tcp://HOST:8786`."
)
d1, d2, d3 = researchers.columns(3)
d1.download_button(
    "summary.json",
    json.dumps(summary.model_dump(mode="json"), indent=1),
    file_name="summary.json",
    mime="application/json",
)
trials_path = Path(chosen) / "e1_trials.csv"
if trials_path.exists():
    d2.download_button(
        "e1_trials.csv", trials_path.read_bytes(), file_name="e1_trials.csv", mime="text/csv"
    )
if d3.button("Build the full HTML report"):
    d3.download_button(
        "report.html", report.build_report_html(res), file_name="report.html", mime="text/html"
    )
st.caption(SCOPE_LINE)
