"""Figures without colour and without sight: Okabe & Ito's palette, every legend entry
told apart by more than its colour, a text alternative with the numbers, and the stacked drawing of
a multi-panel figure for a narrow column; on every figure of the report's registry."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import pytest

from labcore.experiments.paper_results import load_results
from labcore.figures import access, registry, style

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def figures() -> dict[str, go.Figure]:
    res = load_results(ROOT / "results" / "bundled")
    return {spec.slug: spec.build(res) for spec in registry.FIGURES}


def test_every_colour_of_the_palette_is_okabe_itos_or_a_grey():
    allowed = {c.lower() for c in (*style.OKABE_ITO.values(), *style.GREYS)}
    assert {c.lower() for c in style.PALETTE.values()} <= allowed
    assert style.color_of("a kind without a colour").lower() in allowed


def _style(trace, kind: str):
    if kind == "line":
        return trace.line.dash
    if kind == "marker":
        return str(trace.marker.symbol)
    return trace.marker.pattern.shape


def test_no_two_legend_entries_differ_by_colour_alone(figures):
    checked = 0
    for slug, fig in figures.items():
        entries: dict[str, dict[str, object]] = {}
        for trace in fig.data:
            kind = access._kind(trace)
            if kind is None or trace.showlegend is False:
                continue
            entries.setdefault(kind, {})[access._entry(trace)] = _style(trace, kind)
        for kind, styles in entries.items():
            if len(styles) > len(access.DASHES if kind == "line" else access.SYMBOLS):
                continue  # more entries than styles: the legend and the ticks name them
            shown = list(styles.values())
            assert len(set(shown)) == len(shown), (slug, kind, styles)
            checked += len(shown) > 1
    assert checked >= 3  # the check ran on figures with several entries


def test_every_figure_reads_as_text_with_its_title_and_numbers(figures):
    for slug, fig in figures.items():
        text = access.text_alternative(fig, ["An answer."])
        assert text.startswith("An answer. Chart: "), slug
        assert access.plain(fig.layout.title.text) in text, slug
        assert len(text) <= access.ALT_CHARS, slug
        if fig.data:
            assert any(ch.isdigit() for ch in text.split("Chart:", 1)[1]), slug


def test_a_horizontal_bar_chart_reads_with_its_category_names():
    fig = go.Figure(go.Bar(x=[3, 0], y=["A", "B"], orientation="h", name="votes"))
    assert "votes: A: 3, B: 0." in access.text_alternative(fig)


def test_a_multi_panel_figure_stacks_into_one_column_with_its_titles_on_their_panels(figures):
    stacked = 0
    for slug, fig in figures.items():
        if access.panel_columns(fig) < 2:
            continue
        tall = access.stacked(fig)
        assert access.panel_columns(tall) == 1, slug
        assert tall.layout.height > fig.layout.height, slug
        for a in tall.layout.annotations:
            if a.xref == "paper" and a.x is not None:
                assert -0.01 <= float(a.x) <= 1.01, (slug, a.text)
        stacked += 1
    assert stacked >= 3


def test_a_mark_beside_a_category_reads_as_that_category():
    fig = go.Figure(
        [
            go.Scatter(x=[0, 1], y=[0.84, 0.5], mode="markers", name="ours"),
            go.Scatter(x=[0.34], y=[0.92], mode="markers", name="paper"),
        ]
    )
    fig.update_xaxes(tickvals=[0, 1], ticktext=["intact", "zeroed"])
    assert "paper: intact: 0.92." in access.text_alternative(fig)


def test_a_table_beside_a_chart_is_stacked_above_it(figures):
    fig = figures["table3"] if "table3" in figures else None
    if fig is None:
        fig = next(f for f in figures.values() if any(t.type == "table" for t in f.data))
    assert access.panel_columns(fig) == 2
    tall = access.stacked(fig)
    table = next(t for t in tall.data if t.type == "table")
    assert tuple(table.domain.x) == (0.0, 1.0) and access.panel_columns(tall) == 1
