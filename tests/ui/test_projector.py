"""Projector mode (ui/projector.py): the sidebar switch, its URL round trip (a bad value
clamped), the page's style sheet, and figures drawn with larger type on a copy, the cached figure
unchanged."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from labcore.figures import episode, live
from tests.ui.apptest_pages import navigate, open_page, url
from ui import components, projector


def style_sheets(at: AppTest) -> list[str]:
    return [m.value for m in at.sidebar.markdown if "stMetricValue" in m.value]


def chart_layout(at: AppTest, n: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[n].proto.spec)["layout"]


def roc() -> go.Figure:
    correct = np.array([1, 1, 0, 0, 1, 0] * 5, bool)
    return live.type2_roc_figure({"intact": (correct, np.linspace(0, 1, correct.size))}, 0.9)


def test_an_enlarged_figure_has_larger_type_and_the_figure_given_is_unchanged():
    fig = components.prepare(roc(), download=False).shown
    before = fig.to_json()
    big = projector.enlarged(fig)
    assert fig.to_json() == before, "the cached figure is never changed"
    base = fig.layout.font.size
    assert big.layout.font.size > base
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert big.layout[axis].tickfont.size >= projector.MIN_FIGURE_PX
        assert big.layout[axis].title.font.size > (fig.layout[axis].title.font.size or base)
    assert big.layout.legend.font.size >= projector.MIN_FIGURE_PX > fig.layout.legend.font.size
    assert all(
        b.font.size > (a.font.size or base)
        for a, b in zip(fig.layout.annotations, big.layout.annotations, strict=True)
    )
    plot = lambda f: f.layout.height - f.layout.margin.t - f.layout.margin.b  # noqa: E731
    assert plot(big) == plot(fig), "the margins grow with the type, the plot area keeps its size"
    slots = np.zeros((4, 2, 3))
    heatmap = projector.enlarged(episode.workspace_heatmap(slots, slots[..., 0] > 0))
    assert all(
        t.colorbar.tickfont.size >= projector.MIN_FIGURE_PX
        for t in heatmap.data
        if t.type == "heatmap"
    )


def demo_page() -> None:
    """A page that draws one cached figure through ui.components.figure."""
    import numpy as np

    from labcore.figures import live
    from ui.components import figure
    from ui.controls import note_arrival
    from ui.projector import projector_switch

    note_arrival("demo")  # as app.py does: only an arrival reads the URL
    projector_switch()
    correct = np.array([1, 1, 0, 0, 1, 0] * 5, bool)
    figure(
        build=lambda: live.type2_roc_figure(
            {"intact": (correct, np.linspace(0, 1, correct.size))}, 0.9
        ),
        cache_key=("projector-test-roc",),
        key="roc",
    )


def test_the_switch_draws_the_cached_figure_larger_and_leaves_the_cache_alone():
    at = AppTest.from_function(demo_page, default_timeout=30).run()
    assert not at.exception
    small = chart_layout(at)
    assert not style_sheets(at)
    at.toggle(key=projector.WIDGET_KEY).set_value(True).run()
    assert not at.exception and style_sheets(at)
    big = chart_layout(at)
    assert big["xaxis"]["tickfont"]["size"] >= projector.MIN_FIGURE_PX
    assert big["font"]["size"] > small["font"]["size"]
    assert big["legend"]["font"]["size"] > small["legend"]["font"]["size"]
    assert "tickfont" not in small["xaxis"] or small["xaxis"]["tickfont"].get("size", 0) < 18
    cached = components._prepared(("projector-test-roc",), None, False, ()).shown  # the shared one
    assert cached.layout.font.size == small["font"]["size"], "the cached figure is unchanged"
    at.toggle(key=projector.WIDGET_KEY).set_value(False).run()
    assert chart_layout(at) == small and not style_sheets(at)


def test_projector_mode_round_trips_through_the_url_and_follows_the_visitor():
    at = open_page("replication", {"projector": "1"})
    assert not at.exception
    assert at.toggle(key=projector.WIDGET_KEY).value is True and style_sheets(at)
    assert url(at).get("projector") == "1"
    at = navigate(at, "robustness")  # through the sidebar: a bare URL
    assert not at.exception
    assert at.toggle(key=projector.WIDGET_KEY).value is True
    assert url(at).get("projector") == "1", "the page's own URL keeps the switch"
    assert all(
        chart_layout(at, n)["xaxis"]["tickfont"]["size"] >= projector.MIN_FIGURE_PX
        for n in range(len(at.get("plotly_chart")))
    )
    at.toggle(key=projector.WIDGET_KEY).set_value(False).run()
    assert "projector" not in url(at) and not style_sheets(at)


def test_a_bad_projector_value_is_clamped_with_a_notice():
    at = open_page("home", {"projector": "![x](http://127.0.0.1:9/t.png)"})
    assert not at.exception
    notices = [w.value for w in at.warning if "projector" in w.value]
    assert len(notices) == 1 and "](" not in notices[0], "quoted, never rendered"
    assert at.toggle(key=projector.WIDGET_KEY).value is False and not style_sheets(at)
    assert "projector" not in url(at)
