"""Projector mode: one switch that enlarges the type the back row of a classroom must
read at 1366x768: metric values and labels, captions (darker than Streamlit's grey), body text,
and the fonts of every figure.

:func:`projector_switch` draws the sidebar toggle; ``app.py`` calls it once per run, before the
page, so the switch is on every page and keeps its state between them. The switch lives in
``st.session_state`` and in the URL (``projector=1``, :data:`labcore.links.FLAGS`): a link with it
opens in projector mode (read on arrival, clamped like every URL value), and the URL follows the
toggle. ``ui.components.figure`` draws every figure through :func:`enlarged` while it is on, on a
copy: the prepared figures are cached and shared by every session, and are never changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ui.controls import arrived
from ui.state import escape_markdown, parse_flag

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["CSS", "MIN_FIGURE_PX", "SCALE", "enlarged", "is_on", "projector_switch"]

WIDGET_KEY = "projector.on"
STATE_KEY = "_projector"
"""Where the switch is kept (the widget's own state is the truth while it is drawn)."""
SCALE = 1.4
"""How much a figure's fonts grow."""
MIN_FIGURE_PX = 18
"""The smallest type of an enlarged figure: tick labels, legend, colour bars (12 px
ticks are unreadable from the back row)."""

CSS = """
<style>
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {
  font-size: 1.3rem !important;
}
[data-testid="stMetricValue"],
[data-testid="stMetricValue"] *,
[data-testid="stMetricValue"] p {
  font-size: 3.2rem !important;
}
[data-testid="stMetricLabel"],
[data-testid="stMetricLabel"] *,
[data-testid="stMetricLabel"] p {
  font-size: 1.45rem !important;
  opacity: 1 !important;
  white-space: normal !important;
}
[data-testid="stMetricDelta"],
[data-testid="stMetricDelta"] *,
[data-testid="stMetricDelta"] p {
  font-size: 1.3rem !important;
}
[data-testid="stCaptionContainer"],
[data-testid="stCaptionContainer"] *,
[data-testid="stCaptionContainer"] p {
  font-size: 1.25rem !important;
  opacity: 1 !important;
}
[data-testid="stWidgetLabel"] p {
  font-size: 1.2rem !important;
}
</style>
"""
"""The page's type in projector mode (rem of Streamlit's 16 px), measured in chromium at 1366x768:
metric values 51 px (36 px before), metric labels 23 px (14), captions 20 px at full opacity (14 px
at opacity 0.6 before: Streamlit's grey), body text 21 px (14). Later rules win: a caption's
paragraph is also a Markdown paragraph, and a rule with an element (``p``) outranks one without.
"""


def is_on() -> bool:
    """Whether projector mode is on in this session."""
    return bool(st.session_state.get(STATE_KEY, False))


def carried(params: dict[str, str]) -> dict[str, str]:
    """A link's query parameters with the projector switch when it is on: the page the link opens
    would otherwise add it on arrival, and Streamlit makes each such rewrite a history entry (Back
    would then need two presses)."""
    return {**params, "projector": "1"} if is_on() else dict(params)


def projector_switch() -> bool:
    """Draw the sidebar's "Projector mode" toggle, read the URL on arrival, keep the URL in step
    and, while it is on, enlarge the page's type (:data:`CSS`). Returns whether it is on.

    ``app.py`` calls it once per run, after ``ui.controls.note_arrival`` and before the page. A
    ``projector`` value other than 1 or 0 is read as off, with a notice.
    """
    if arrived() and "projector" in st.query_params:
        wanted, notice = parse_flag("projector", st.query_params.get_all("projector"))
        if notice:
            st.warning(escape_markdown(notice), icon=":material/warning:")
        st.session_state[WIDGET_KEY] = bool(wanted)
    elif WIDGET_KEY not in st.session_state:
        st.session_state[WIDGET_KEY] = is_on()
    on = st.sidebar.toggle(
        "Projector mode",
        key=WIDGET_KEY,
        help="Larger type in metrics, captions and figures, so the back row can read them on a "
        "1366x768 projector.",
    )
    st.session_state[STATE_KEY] = on
    if st.query_params.get("projector") != ("1" if on else None):  # the URL follows the switch
        if on:
            st.query_params["projector"] = "1"
        else:
            del st.query_params["projector"]
    if on:
        st.sidebar.markdown(CSS, unsafe_allow_html=True)  # a style sheet applies page-wide
    return on


def _scaled(size: float | None, base: float, least: float = 0) -> int:
    return round(max((size or base) * SCALE, least))


def enlarged(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with its fonts scaled by :data:`SCALE`: the base font, tick labels, axis
    titles, legend, annotations (panel titles and notes), text on traces and colour bars; tick
    labels, legend and colour bars at least :data:`MIN_FIGURE_PX`. The margins grow with the type
    and the figure's height with them, so the plot area keeps its size; every axis grows its
    margin for longer labels. ``fig`` itself is never changed (a cached figure is shared).

    >>> import plotly.graph_objects as go
    >>> fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1])).update_layout(font_size=14, height=400)
    >>> big = enlarged(fig)
    >>> big.layout.xaxis.tickfont.size, big.layout.font.size, fig.layout.xaxis.tickfont.size
    (20, 20, None)
    """
    import plotly.graph_objects as go  # not on the first page's path

    big = go.Figure(fig)
    layout = big.layout
    base = layout.font.size or 14
    layout.font.size = _scaled(base, base)
    for name in list(layout):
        if name.startswith(("xaxis", "yaxis")) and layout[name] is not None:
            axis = layout[name]
            axis.tickfont.size = _scaled(axis.tickfont.size, base, MIN_FIGURE_PX)
            axis.title.font.size = _scaled(axis.title.font.size, base, MIN_FIGURE_PX)
            axis.automargin = True
    layout.legend.font.size = _scaled(layout.legend.font.size, base, MIN_FIGURE_PX)
    layout.title.font.size = _scaled(layout.title.font.size, base + 3)
    layout.hoverlabel.font.size = _scaled(layout.hoverlabel.font.size, base)
    for note in layout.annotations:
        note.font.size = _scaled(note.font.size, base)
    for trace in big.data:
        if getattr(trace, "textfont", None) is not None:
            trace.textfont.size = _scaled(trace.textfont.size, base)
        colorbar = getattr(trace, "colorbar", None)
        if colorbar is not None:
            colorbar.tickfont.size = _scaled(colorbar.tickfont.size, base, MIN_FIGURE_PX)
            colorbar.title.font.size = _scaled(colorbar.title.font.size, base, MIN_FIGURE_PX)
    top, bottom = layout.margin.t or 95, layout.margin.b or 70
    layout.margin.t, layout.margin.b = round(top * SCALE), round(bottom * SCALE)
    if layout.height:  # grown by the margins' own (rounded) growth: the plot area keeps its size
        layout.height = layout.height + layout.margin.t - top + layout.margin.b - bottom
    return big
