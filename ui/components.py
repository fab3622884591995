"""Small shared page components: plain-language help, paper-beside-ours metrics, downloads."""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from labcore.paper import CLAIMS_BY_ID, paper_text


def explain(what: str, try_this: str, theory: str, *, expanded: bool = False) -> None:
    """The three questions every page answers for someone who has not read the paper."""
    with st.expander("What am I looking at?  ·  What to try  ·  What the theory predicts", expanded=expanded):
        cols = st.columns(3)
        cols[0].markdown("**What you are looking at**\n\n" + what)
        cols[1].markdown("**What to try**\n\n" + try_this)
        cols[2].markdown("**What the theory predicts**\n\n" + theory)


def paper_value(claim_id: str) -> str:
    """The paper's value of a claim, as the paper states it (from the one reference table)."""
    return paper_text(CLAIMS_BY_ID[claim_id].paper)


def paper_number(claim_id: str) -> float | None:
    """The paper's number for a claim (None if it reports only a bound or nothing)."""
    return CLAIMS_BY_ID[claim_id].paper.value


def metric(column: Any, label: str, value: float, *, claim: str | None = None, fmt: str = "{:.2f}",
           help: str | None = None, reference: str | None = None) -> None:
    """An ``st.metric`` with the paper's value (or another reference) written beside ours."""
    shown = "undefined" if value is None or (isinstance(value, float) and math.isnan(value)) else fmt.format(value)
    note = reference or (f"paper: {paper_value(claim)}" if claim else None)
    column.metric(label, shown, help=help)
    if note:
        column.caption(note)


def figure(fig: go.Figure, *, key: str, download: str | None = None) -> None:
    """Show a plotly figure; offer it as a standalone HTML download (PNG is in the modebar).

    The figure's title is shown as text above the chart (it wraps to the column; plotly titles
    do not), and removed from the chart itself.
    """
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else None
    shown = go.Figure(fig)
    if title:
        st.markdown(f"**{title.replace('<br>', ' ')}**")
        top = max(40, (fig.layout.margin.t or 95) - 70)
        shown.update_layout(title_text="", margin_t=top, height=(fig.layout.height or 460) - (fig.layout.margin.t or 95) + top)
    st.plotly_chart(shown, width="stretch", key=key, config={"displaylogo": False})
    if download:
        st.download_button("Download figure (HTML)", fig.to_html(include_plotlyjs="cdn", full_html=True),
                           file_name=f"{download}.html", mime="text/html", key=f"dl-{key}")


SELF_MODEL_LABELS = {"on": "on", "zero": "zeroed", "noise": "noise", "permute": "shuffled"}
"""How the self-model control names each of labcore.config.SELF_MODEL_MODES."""

SCOPE_LINE = ("These agents are not conscious. They are small reference implementations of mechanisms that "
              "theories of consciousness propose, built to test what those mechanisms do.")
