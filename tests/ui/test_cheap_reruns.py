"""Cheap reruns (issue 24): a figure is built once per distinct view for every session, not on every
rerun."""

from __future__ import annotations

from labcore.figures import live
from tests.ui.apptest_pages import exceptions, open_page
from ui import components


def counting(monkeypatch, module, name: str) -> list:
    calls: list = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    return calls


def test_a_figure_is_built_once_per_view_for_every_session(monkeypatch):
    components._prepared.clear()
    built = counting(monkeypatch, live, "type2_roc_figure")
    first = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "on"})
    first.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert len(built) == 2
    first.segmented_control(key="metacognition.self_model_mode").set_value("on").run()
    second = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    assert not exceptions(first) and not exceptions(second)
    assert len(built) == 2, "a view seen before, in this session or another, reuses its figure"
    assert any(c.proto.spec for c in second.get("plotly_chart"))
    components._prepared.clear()
