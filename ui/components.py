"""Small shared page components: plain-language help, metrics beside the intact value, the paper's
number for the condition shown and chance, verdict boxes from the result set, downloads."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import streamlit as st

from labcore.experiments.paper_results import ResultSet
from labcore.findings import Finding
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import (
    UNDEFINED,
    findings_table,
    finite,
    note_text,
    paper_text,
    value_text,
    verdict_text,
)
from labcore.render import chance as chance_level
from ui import projector
from ui.state import escape_markdown

if TYPE_CHECKING:
    import plotly.graph_objects as go


FINDINGS_WIDTHS = {
    "Question": "medium",
    "Ours": "small",
    "Paper": "small",
    "Verdict": "small",
    "Evidence": "small",
    "Note": "large",
}
"""Column widths of a findings table: the question wide enough to read, the numbers narrow, so a
phone (390 px) shows at least three columns."""


def findings_frame(findings: Any, *, paper: bool = True) -> None:
    """A table of findings (:func:`labcore.render.findings_table`), its columns sized for a
    phone and a projector alike."""
    import pandas as pd

    rows = findings_table(findings, paper=paper)
    if not rows:
        return
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        column_config={
            name: st.column_config.TextColumn(name, width=width)
            for name, width in FINDINGS_WIDTHS.items()
            if name in rows[0]
        },
    )


def explain(what: str, try_this: str, theory: str, *, expanded: bool = False) -> None:
    """The three questions every page answers for someone who has not read the paper."""
    with st.expander(
        "What am I looking at?  ·  What to try  ·  What the theory predicts", expanded=expanded
    ):
        cols = st.columns(3)
        cols[0].markdown("**What you are looking at**\n\n" + what)
        cols[1].markdown("**What to try**\n\n" + try_this)
        cols[2].markdown("**What the theory predicts**\n\n" + theory)


def number_text(value: Any, fmt: str = "{:.2f}") -> str:
    """A value as a metric shows it, in the page's format; the lab's one word for an undefined
    value (:data:`labcore.render.UNDEFINED`) for None or nan (never the text "nan").

    >>> number_text(0.8712, "{:.1%}"), number_text(float("nan"))
    ('87.1%', 'not defined here')
    """
    return fmt.format(value) if finite(value) else UNDEFINED


def paper_value(claim_id: str, fmt: str | None = None) -> str:
    """The paper's value of a claim, as the paper states it (from the one reference table);
    with ``fmt`` (e.g. ``"{:.1%}"``) in the unit of the metric it is shown beside."""
    return paper_text(CLAIMS_BY_ID[claim_id].paper, "percent" if fmt and "%" in fmt else "number")


def paper_number(claim_id: str) -> float | None:
    """The paper's number for a claim (None if it reports only a bound or nothing)."""
    return CLAIMS_BY_ID[claim_id].paper.value


def change_text(value: Any, intact: Any, fmt: str = "{:.2f}") -> str | None:
    """The change from the intact value, in the metric's unit: percentage points for a
    percentage, else a signed difference; None when either value is undefined.

    >>> change_text(0.87, 0.87, "{:.1%}"), change_text(0.5, 0.846), change_text(float("nan"), 0.8)
    ('+0.0 pts vs intact', '-0.35 vs intact', None)
    """
    if not (finite(value) and finite(intact)):
        return None
    diff = float(value) - float(intact)
    if "%" in fmt:
        return f"{100 * diff:+.1f} pts vs intact"
    digits = fmt.split(".")[-1].rstrip("}%fg") if "." in fmt else "2"
    return f"{diff:+.{digits or 2}f} vs intact"


INTACT, THIS_CONDITION = "intact", "this condition"
"""What a metric's caption calls the intact agent's value and the condition shown."""
NOT_REPORTED = "not reported for this condition"
"""What a metric's caption says where the paper gives no number for the condition shown."""


def metric(
    column: Any,
    label: str,
    value: Any,
    *,
    claim: str | None = None,
    fmt: str = "{:.2f}",
    help: str | None = None,
    reference: str | None = None,
    intact: Any = None,
    intact_claim: str | None = None,
    chance: str | None = None,
    paper_label: str = "paper",
    paper_missing: str = NOT_REPORTED,
    undefined: str | None = None,
) -> None:
    """An ``st.metric`` with the intact value, the change from it, the paper's number and chance.

    Parameters
    ----------
    column : Streamlit container
    label, value, fmt, help
        As ``st.metric`` (``fmt`` formats ``value``; None/nan is shown as labcore.render.UNDEFINED).
    claim : str, optional
        The paper's claim for the condition shown (:func:`labcore.paper_claims.claim_for`); None
        when the paper reports nothing for it.
    intact : float, optional
        The intact agent's value when the condition shown is a lesion: then the change is the
        metric's delta (grey: a drop is not judged good or bad) and the caption says "intact".
    intact_claim : str, optional
        The paper's claim for the intact condition: shown as "paper, intact" when ``claim`` is
        None (never as if it were this condition's).
    chance : str, optional
        A chance level of :data:`labcore.config.CHANCE_LEVELS` (``"wager"``, ``"auroc"``,
        ``"decision"``, ``"conjunction"``), written in the metric's unit by
        :func:`labcore.render.chance`.
    reference : str, optional
        Any other reference, appended to the caption.
    paper_label : str
        How the paper's value is introduced (e.g. "paper (B1)" when the paper's agent differs).
    paper_missing : str
        What is said when ``claim`` is None but ``intact_claim`` is given.
    undefined : str, optional
        Why the value can be undefined here; said first in the caption when it is (a
        headline "undefined" must be explained where it is shown).

    A percentage's paper value is written as a percentage; other paper values as the paper
    gives them (``0.492 ± 0.058``, not rounded to the metric's digits).
    """
    lesioned = intact is not None
    column.metric(
        label,
        number_text(value, fmt),
        help=help,
        delta=change_text(value, intact, fmt) if lesioned else None,
        delta_color="off",
    )
    parts = [f"{INTACT}: {number_text(intact, fmt)}"] if lesioned else []
    if not finite(value):
        parts.insert(
            0,
            (
                "**Undefined here:** "
                f"{(undefined or 'it cannot be computed from these trials').rstrip('.')}"
            ),
        )
    paper_fmt = fmt if "%" in fmt else None
    if claim:
        parts.append(
            f"{paper_label}{f', {THIS_CONDITION}' if lesioned else ''}: "
            f"{paper_value(claim, paper_fmt)}"
        )
    elif intact_claim:
        parts.append(
            f"{paper_label}: {paper_missing} · {paper_label}, {INTACT}: "
            f"{paper_value(intact_claim, paper_fmt)}"
        )
    if chance:
        parts.append(f"chance: {chance_level(chance, 'percent' if '%' in fmt else 'number').text}")
    if reference:
        parts.append(reference)
    if parts:
        column.caption(" · ".join(parts))


VERDICT_MARKDOWN_COLOURS = {
    "reproduced": "green",
    "partly reproduced": "orange",
    "not reproduced": "red",
    "not comparable": "gray",
}
"""Streamlit text colours of the four verdicts (labcore.paper.VERDICTS)."""


def claim_line(claim: Finding, label: str, n_seeds: int | None = None) -> str:
    """One claim of a result set as a Markdown line: the verdict, what it is, ours beside the
    paper's.

    Everything comes from the claim's finding; the verdict is never decided here. Our value is the
    result set's mean over its seeds, and says so: a page shows it beside one seed's live numbers
    (87.0% for seed 0 beside 85.6% for five, unlabelled, would read as a contradiction).

    >>> from labcore.findings import PaperValue
    >>> claim_line(Finding(id="x", question="?", verdict="not reproduced", value=0.304, n=5,
    ...                    paper=PaperValue(value=0.04)), "B1's noise tolerance L75")
    ":red[**not reproduced**]: B1's noise tolerance L75: here 0.304 (mean of 5 seeds), paper 0.04."
    """
    verdict = claim.verdict or "not comparable"
    colour = VERDICT_MARKDOWN_COLOURS.get(verdict, "gray")
    built = "" if claim.evidence else " (counted apart, so not evidence either way)"
    scope = ""
    if claim.n > 1 and finite(claim.value):
        scope = f" (mean of {claim.n} seeds)"
    elif claim.n <= 1 and n_seeds and n_seeds > 1 and finite(claim.value):  # one number (an R²)
        scope = f" (from all {n_seeds} seeds)"
    ours = f"here {value_text(claim, with_n=False)}{scope}" if claim.defined else UNDEFINED
    return (
        f":{colour}[**{verdict}**]{built}: {label}: {ours}, "
        f"paper {paper_text(claim.paper, claim.unit)}."
    )


def live_scope(kind_label: str, seed: int, measured: str, res: ResultSet | None = None) -> None:
    """One line above a page's live metrics: they are one agent's, one seed's; the verdicts below
    are means over the result set's seeds."""
    n = len(res.seeds) if res is not None else 0
    over = f" The verdict box below gives means over the result set's {n} seeds." if n > 1 else ""
    st.caption(f"**Live, one agent:** {kind_label}, seed {seed} ({measured}).{over}")


def verdict_box(
    title: str,
    res: ResultSet,
    claims: Sequence[tuple[str, str]],
    *,
    lead: Sequence[str] = (),
    why: Sequence[str] = (),
    why_title: str = "Why",
    why_shown: int = 4,
) -> None:
    """The page's plain-language verdict: sentences, then each claim's verdict from the result set.

    Parameters
    ----------
    title : str
    res : ResultSet
        The result set (``ui.data.checked_results()``): verdicts and flags come from its findings.
    claims : sequence of (claim id, plain label)
        Claims shown, in order; claims the result set lacks are left out (and said so).
    lead : sequence of str
        Sentences shown first (already drawn from the result set by the caller).
    why : sequence of str
        Sentences explaining the verdicts (e.g. the E3 design study's answer), under ``why_title``;
        the first ``why_shown`` in the box, the rest in an expander.
    """
    found = res.findings
    with st.container(border=True):
        st.markdown(f"**{title}**")
        for sentence in lead:
            st.markdown(sentence)
        n_seeds = len(res.seeds) or None
        lines = [claim_line(found[cid], label, n_seeds) for cid, label in claims if cid in found]
        if lines:
            st.markdown("\n".join(f"- {line}" for line in lines))
        else:
            st.info("The result set holds no verdicts for this experiment.", icon=":material/info:")
        for i, sentence in enumerate(why[:why_shown]):
            st.markdown(f"**{why_title}.** {sentence}" if i == 0 else sentence)
        if len(why) > why_shown:
            with st.expander(f"More: {why_title[0].lower()}{why_title[1:]}"):
                for sentence in why[why_shown:]:
                    st.markdown(sentence)
        if lines:
            with st.expander("The pre-registered rule behind each verdict"):
                st.caption(
                    f"From the result set `{res.directory.name}` (its `summary.json`), by the "
                    "rules of `docs/verdicts.md`; each claim's id in brackets."
                )
                st.markdown(
                    "\n".join(
                        f"- **{label}** (`{cid}`): "
                        + "; ".join(
                            x for x in (verdict_text(found[cid]), note_text(found[cid])) if x
                        )
                        for cid, label in claims
                        if cid in found
                    )
                )
        st.caption(
            "Verdicts from the lab's own runs, by rules written down before the runs. "
            '"By construction": our design fixes that value in advance.'
        )


PHONE_ROW_CHARS = 34
"""Characters of subplot title that fit side by side across a phone (390 px at 14 px type; at
the 12 px a wrapped title is drawn in they fit a 360 px phone too)."""
TITLE_PX, SMALLEST_TITLE_PX = 12, 10
"""Type size of a wrapped panel title (14 px overlapped three figures' titles at 360 px), and the
least it shrinks to for a word that cannot fit its panel's share of the row."""


TITLE_LINE_PX = 19
"""Pixels of one line of a panel title (14 px type), what a wrapped title grows by."""


def _lower_row(fig: go.Figure, y: float, row: list, lines: int) -> None:
    """Move a row of panels below an inner row of titles down by ``lines`` title lines, and their
    titles with them: a wrapped title grows upwards (it is anchored at its bottom), and without
    this it sits on the panels above (as on the Mystery page's slots figure)."""
    plot_px = (fig.layout.height or 460) - (fig.layout.margin.t or 95) - (fig.layout.margin.b or 70)
    axes = [
        fig.layout[name]
        for name in fig.layout
        if name.startswith("yaxis")
        and fig.layout[name].domain is not None
        and abs(fig.layout[name].domain[1] - y) < 1e-6
    ]
    if not axes or plot_px <= 0:
        return
    low = min(a.domain[0] for a in axes)
    shift = min(lines * TITLE_LINE_PX / plot_px, 0.5 * (y - low))  # keep half of the panel
    for a in axes:
        a.domain = (a.domain[0], a.domain[1] - shift)
    for a in row:
        a.y = float(a.y) - shift


def phone_safe_titles(fig: go.Figure) -> int:
    """Wrap panel titles so that they fit a phone's width and never overlap, in place;
    returns how many lines the top row of titles grew by. A lower row of panels whose titles
    grew moves down by as much, titles with it, so its titles stay clear of the panels above.

    >>> from plotly.subplots import make_subplots
    >>> fig = make_subplots(rows=1, cols=2,
    ...                     subplot_titles=("ROC curve (pooled trials)", "Area under the curve"))
    >>> phone_safe_titles(fig), [a.text for a in fig.layout.annotations]
    (1, ['ROC curve (pooled<br>trials)', 'Area under the<br>curve'])

    A word longer than a panel's share breaks after a hyphen, or else the row's type shrinks:

    >>> fig = make_subplots(rows=1, cols=3, subplot_titles=("per-step accuracy",
    ...     "report-window decision accuracy", "conjunction (both reports right)"))
    >>> _ = phone_safe_titles(fig)
    >>> for a in fig.layout.annotations:
    ...     print(a.text, a.font.size)
    per-step<br>accuracy 12
    report-<br>window<br>decision<br>accuracy 12
    conjunction<br>(both<br>reports<br>right) 12
    >>> fig = make_subplots(rows=1, cols=4, subplot_titles=("A0", "A1", "B1", "conjunctionality"))
    >>> _ = phone_safe_titles(fig)
    >>> fig.layout.annotations[3].text, fig.layout.annotations[0].font.size
    ('conjunctionality', 10)
    """
    rows: dict[float, list] = {}
    for a in fig.layout.annotations:
        if (
            a.yref == "paper"
            and a.yanchor == "bottom"
            and a.xanchor == "center"
            and a.showarrow is False
            and a.text
        ):
            rows.setdefault(round(float(a.y), 3), []).append(a)
    grown = 0
    for y, row in rows.items():
        width = max(10, PHONE_ROW_CHARS // len(row))
        if all(len(line) <= width for a in row for line in a.text.split("<br>")):
            continue
        before = max(a.text.count("<br>") + 1 for a in row)
        for a in row:
            # words; one too long for the panel's share breaks after its hyphens ("report-")
            parts = [
                part
                for word in a.text.replace("<br>", " ").split()
                for part in (re.findall(r"\S+?-(?=\S)|\S+", word) if len(word) > width else [word])
            ]
            lines, line = [], ""
            for part in parts:
                joined = line + part if line.endswith("-") else f"{line} {part}".strip()
                if line and len(joined) > width:
                    lines.append(line)
                    line = part
                else:
                    line = joined
            a.text = "<br>".join([*lines, line])
        longest = max(len(line) for a in row for line in a.text.split("<br>"))
        size = max(SMALLEST_TITLE_PX, min(TITLE_PX, TITLE_PX * width // longest))
        for a in row:
            a.font.size = size
        added = max(a.text.count("<br>") + 1 for a in row) - before
        if y == max(rows):
            grown = added
        elif added > 0:
            _lower_row(fig, y, row, added)
    return max(grown, 0)


MODEBAR_PX = 32
"""Height of plotly's toolbar (the modebar, top right of a chart, shown on hover or a tap) with
its gap: panel titles start below it (on a phone it would cover a histogram's title)."""


@dataclass(frozen=True)
class Prepared:
    """A figure as the page shows it: its title and note (drawn as text), the chart, the chart
    with its panels stacked for a narrow column (None when its panels are not side by side), its
    text alternative and its HTML download."""

    title: str | None
    shown: go.Figure
    html: str | None
    alt: str = ""
    note: str | None = None
    narrow: go.Figure | None = None
    columns: int = 1


def _top_title_lines(fig: go.Figure) -> int:
    """Lines of the panel titles on the figure's top row (0 without any)."""
    rows = [
        (float(a.y), a.text.count("<br>") + 1)
        for a in fig.layout.annotations
        if a.yref == "paper" and a.yanchor == "bottom" and a.text and a.y is not None
    ]
    top = max((y for y, _ in rows), default=None)
    return max((n for y, n in rows if y == top and y >= 0.95), default=0)


NOTE_LINE_PX = 17
"""Pixels of one line of a figure's note (plotly's subtitle, 12 px type), with its gap 6 px."""


def prepare(fig: go.Figure, download: bool, answer: Sequence[str] = ()) -> Prepared:
    """The title and the note taken out of the chart (they wrap as text; plotly's do not, and a
    note wider than a phone was cut), the panel titles made phone-safe (:func:`phone_safe_titles`)
    and below the toolbar, the legend entries told apart without colour
    (:func:`labcore.figures.access.distinguish`), a copy with the panels stacked for a narrow
    column (:func:`labcore.figures.access.stacked`), the chart's text alternative (``answer``,
    then :func:`labcore.figures.access.text_alternative`) and, if asked, the standalone HTML."""
    import plotly.graph_objects as go  # not on the first page's path

    from labcore.figures.access import (
        distinguish,
        panel_columns,
        plain,
        stacked,
        text_alternative,
    )

    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else None
    subtitle = fig.layout.title.subtitle if fig.layout.title else None
    note = subtitle.text if subtitle and subtitle.text else None
    alt = text_alternative(fig, answer)
    shown = distinguish(go.Figure(fig))
    extra = TITLE_LINE_PX * phone_safe_titles(shown)  # px per added line of subplot title
    lines = _top_title_lines(shown)
    clear = MODEBAR_PX + TITLE_LINE_PX * lines + 4 if lines else 0  # titles under the toolbar
    margin, height = fig.layout.margin.t or 95, fig.layout.height or 460
    noted = NOTE_LINE_PX * (note.count("<br>") + 1) + 6 if note else 0
    if note:
        shown.update_layout(title_subtitle_text="")
    if title:
        top = max(40, margin - 70 - noted + extra, clear)
        shown.update_layout(title_text="", margin_t=top, height=height - margin + top)
    elif extra or noted or clear > margin:
        top = max(40, margin - noted + extra, clear)
        shown.update_layout(margin_t=top, height=height + top - margin)
    columns = panel_columns(shown)
    narrow = stacked(shown) if columns > 1 else None
    html = fig.to_html(include_plotlyjs="cdn", full_html=True) if download else None
    return Prepared(
        title.replace("<br>", " ") if title else None,
        shown,
        html,
        alt,
        escape_markdown(plain(note)) if note else None,
        narrow,
        columns,
    )


def freeze_spec(fig: go.Figure) -> go.Figure:
    """``fig``, its ``to_dict()`` worked out once: what ``st.plotly_chart`` serialises on every
    run (a deep copy of the figure with its arrays in base64, a third of a switch's CPU otherwise)
    is then one shared dict. Only for a figure nothing changes afterwards; returns
    ``fig`` itself.

    >>> import plotly.graph_objects as go
    >>> fig = freeze_spec(go.Figure(go.Bar(y=[1, 2])))
    >>> fig.to_dict() is fig.to_dict(), fig.to_dict()["data"][0]["type"]
    (True, 'bar')
    """
    spec = fig.to_dict()
    object.__setattr__(fig, "to_dict", lambda: spec)  # on this object only (plotly allows no attrs)
    return fig


@st.cache_resource(show_spinner=False, max_entries=1024)
def _prepared(
    cache_key: tuple,
    _build: Callable[[], go.Figure],
    download: bool,
    answer: tuple[str, ...],
) -> Prepared:
    # Shared by every session and never mutated (st.plotly_chart only reads it): a figure is built,
    # validated, turned into HTML and into the dict plotly_chart serialises once per distinct view,
    # not on every rerun of every student.
    ready = prepare(_build(), download, answer)
    freeze_spec(ready.shown)
    if ready.narrow is not None:
        freeze_spec(ready.narrow)
    return ready


def figure(
    fig: go.Figure | None = None,
    *,
    key: str,
    download: str | None = None,
    build: Callable[[], go.Figure] | None = None,
    cache_key: tuple | None = None,
    answer: str | Sequence[str] = (),
) -> None:
    """Show a plotly figure; offer it as a standalone HTML download (PNG is in the modebar).

    Every chart has a text alternative, its accessible name (``role="figure"`` with an
    ``aria-label``, what a screen reader says): ``answer`` (the sentence the chart answers with,
    if the page has one) and then the figure's title, note, axes and numbers
    (:func:`labcore.figures.access.text_alternative`).

    The figure's title is shown as text above the chart (it wraps to the column; plotly titles
    do not), and removed from the chart itself. With ``build`` and a ``cache_key`` naming
    everything the figure depends on (e.g. the checkpoint's version and the controls), the
    prepared figure is built once per key and shared (building the Metacognition page's
    figures would be most of a rerun). In projector mode the chart is drawn with larger type
    (:func:`ui.projector.enlarged`, on a copy: the shared figure is never changed).
    """
    answer = (answer,) if isinstance(answer, str) else tuple(answer)
    if cache_key is not None and build is not None:
        ready = _prepared(cache_key, build, bool(download), answer)
    else:
        ready = prepare(fig if fig is not None else build(), bool(download), answer)
    if ready.title:
        st.markdown(f"**{ready.title}**")
    if ready.note:
        st.caption(ready.note)

    def draw(fig: go.Figure, key: str) -> None:
        shown = projector.enlarged(fig) if projector.is_on() else fig
        st.plotly_chart(
            shown, width="stretch", key=key, config={"displaylogo": False}, alt=ready.alt or None
        )

    if ready.narrow is None:
        draw(ready.shown, key)
    else:  # both drawn; the page's CSS shows the one that fits the column (NARROW_CSS)
        n = min(ready.columns, max(NARROW_BELOW_PX))
        with st.container(key=f"chartbox-{key}"):
            with st.container(key=f"chart-wide{n}-{key}"):
                draw(ready.shown, key)
            with st.container(key=f"chart-narrow{n}-{key}"):
                draw(ready.narrow, f"{key}.narrow")
    if download and ready.html is not None:
        st.download_button(
            "Download figure (HTML)",
            ready.html,
            file_name=f"{download}.html",
            mime="text/html",
            key=f"dl-{key}",
        )


SELF_MODEL_LABELS = {"on": "on", "zero": "zeroed", "noise": "noise", "permute": "shuffled"}
"""How the self-model control names each of labcore.config.SELF_MODEL_MODES."""

SCOPE_LINE = (
    "These agents are not conscious. They are small reference implementations of mechanisms that "
    "theories of consciousness propose, built to test what those mechanisms do."
)


ACCESSIBLE_CSS = """
<style>
[data-testid="stCaptionContainer"] { color: #5c5b59; opacity: 1 !important; }
label[data-testid="stWidgetLabel"][disabled] p { color: #5c5b59; }
.stButtonGroup [role="radiogroup"] { flex-wrap: wrap; overflow: visible; }
[data-testid="stCode"] pre, [data-testid="stCode"] code {
  white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important;
}
kbd { opacity: 1 !important; }
</style>
"""
NARROW_BELOW_PX = {2: 560, 3: 720, 4: 900}
"""Below this width of its column, a chart with 2, 3 or 4 (or more) panels side by side is shown
with its panels stacked (else a 100 px ROC panel on a phone, an axis title over the next
panel's points in the Lesson's side column): about 170 px a panel and the axes' margins."""
NARROW_CSS = (
    "<style>[class*='st-key-chartbox-'] { container-type: inline-size; }"
    "[class*='st-key-chart-narrow'] { display: none; }"
    + "".join(
        f"@container (max-width: {px}px) {{ [class*='st-key-chart-wide{n}-'] {{ display: none; }}"
        f" [class*='st-key-chart-narrow{n}-'] {{ display: flex; }} }}"
        for n, px in NARROW_BELOW_PX.items()
    )
    + "</style>"
)
"""Which of a multi-panel chart's two drawings shows: a CSS container query on its column's width
(the server does not know a screen's width)."""
"""What makes Streamlit's own parts pass WCAG 2.1 AA (axe-core's serious rules, checked on every
page by the browser test): captions and a disabled control's label at least 4.5:1 on white
(Streamlit draws them 3.9:1 and 2.3:1); segmented controls and code blocks wrap instead of
scrolling (a region that scrolls must take the keyboard's focus, and theirs cannot); a button's
shortcut badge at full opacity (2.8:1 at Streamlit's 0.6)."""


def accessible_style() -> None:
    """Add :data:`ACCESSIBLE_CSS` and :data:`NARROW_CSS` to the page (``app.py`` calls it once per
    run, before the page)."""
    st.html(ACCESSIBLE_CSS + NARROW_CSS)
