"""What the page tests share: open a page of the real app in Streamlit's AppTest and read it.

The page tests (``tests/ui/pages/``) open pages through the ``open_page`` fixture of
``tests/ui/pages/conftest.py``, which is :func:`open_page` below, so every page test opens pages the
same way; they import the readers (``from tests.ui.apptest_pages import exceptions``; the repository
root is on pytest's path). A test that continues a session (:func:`navigate`) and the tests outside
``tests/ui/pages/`` (``tests/test_view_cache.py``) import :func:`open_page` itself.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import paper_text

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 300
"""Seconds one script run may take (a cold page trains nothing, but computes its first views)."""


def open_page(
    page: str, params: dict[str, str] | None = None, at: AppTest | None = None
) -> AppTest:
    """Run ``app_pages/<page>.py`` through the app (navigation, URL state) with URL ``params``;
    ``at``: continue an existing session instead of a new one."""
    at = at or AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


def exceptions(at: AppTest) -> list[str]:
    """The tracebacks a run raised (a page must raise none)."""
    return [e.value for e in at.exception]


def metric(at: AppTest, label: str):
    """The metric labelled ``label`` (its value, and its change in ``proto.delta``)."""
    return next(m for m in at.metric if m.label == label)


def metric_value(at: AppTest, label: str) -> str:
    """The shown value of the metric labelled ``label``."""
    return metric(at, label).value


def shown_metric(at: AppTest, label: str):
    """The metric labelled ``label``, or None when the page does not show it (held back)."""
    return next((m for m in at.metric if m.label == label), None)


def metric_labels(at: AppTest) -> list[str]:
    """The labels of the metrics the page shows, in order (a held-back number is missing)."""
    return [m.label for m in at.metric]


def caption_with(at: AppTest, *fragments: str) -> str:
    """The one caption holding every fragment (a metric's caption is found by its chance level)."""
    found = [c.value for c in at.caption if all(f in c.value for f in fragments)]
    assert len(found) == 1, (fragments, [c.value for c in at.caption])
    return found[0]


def paper(claim_id: str, fmt: str | None = None) -> str:
    """The paper's number of claim ``claim_id`` as the pages write it (``fmt``: its number
    format)."""
    return paper_text(CLAIMS_BY_ID[claim_id].paper, "percent" if fmt and "%" in fmt else "number")


def markdown_text(at: AppTest) -> str:
    """All Markdown of the page, one element per line."""
    return "\n".join(m.value for m in at.markdown)


def navigate(at: AppTest, page: str, params: dict[str, str] | None = None) -> AppTest:
    """Go to another page in the same session as the browser does: the sidebar (``params`` None:
    a bare URL) or a link with ``params``; the previous page's URL parameters are gone."""
    for name in list(at.query_params):
        del at.query_params[name]
    return open_page(page, params, at)


URL_OPTIONS = {
    "normalisation": ["zlib", "lz76", "casali", "shuffle"],
    "geometry": ["layernorm", "raw", "offset"],
    "loop": ["open", "closed"],
    "gain": [1.0, 10.0],
    "schedule": ["fast", "paper"],
}
"""The choices of the URL fields a page knows, as the Robustness page gives them to
``parse_params``."""


def url(at: AppTest) -> dict[str, str]:
    """The page's URL parameters after its run (the last value of a repeated one)."""
    return {k: v[-1] if isinstance(v, list) else v for k, v in at.query_params.items()}


NARROW = ".narrow"
"""The key suffix of a multi-panel chart's second drawing, its panels stacked for a narrow column
(``ui.components.figure``): the browser shows one of the two."""


def charts(at: AppTest) -> list:
    """The page's charts, each once (a chart's stacked drawing, :data:`NARROW`, left out)."""
    return [c for c in at.get("plotly_chart") if not str(getattr(c, "key", "")).endswith(NARROW)]


def kind_of(node) -> str | None:
    """An element's type as a reader sees it: the block that holds a chart's two drawings (the
    chart and its stacked drawing, ``ui.components.figure``) is a "plotly_chart"."""
    if str(getattr(node, "key", "")).startswith("chartbox-"):
        return "plotly_chart"
    return getattr(node, "type", None)


def in_order(at: AppTest) -> list:
    """Every element of the page's main area in the order the browser draws it (depth first; a
    chart once: its stacked drawing, :data:`NARROW`, left out)."""
    found = []

    def walk(node) -> None:
        if str(getattr(node, "key", None)).endswith(NARROW):
            return
        if getattr(node, "proto", None) is not None and not getattr(node, "children", None):
            found.append(node)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    return found


def first_index(at: AppTest, has: str, kind: str | None = None) -> int:
    """Position (:func:`in_order`) of the first element (of type ``kind``, e.g. "metric") whose
    label or text contains ``has``."""
    for i, node in enumerate(in_order(at)):
        if kind is not None and getattr(node, "type", None) != kind:
            continue
        text = " ".join(
            v
            for name in ("label", "value", "body")
            if isinstance(v := getattr(node, name, None), str)
        )
        if has in text:
            return i
    raise AssertionError(f"nothing on the page contains {has!r}")


def counting(monkeypatch, module, name: str) -> list:
    """Count the calls of ``module.name`` from now on (one entry per call); the real function still
    runs. A page imports its names on every run, so it calls the counted one."""
    calls: list = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    return calls


def join_block(at: AppTest) -> dict[str, tuple[str, float]]:
    """The class's join block as the page draws it (``ui.classroom.join_block``): its parts
    (``code``, ``link``), each as (text, font size in rem); empty without a class."""
    import html
    import re

    found = {}
    for element in at.get("html"):
        for part, size, text in re.findall(
            r'class="class-join-(code|link)"[^>]*font-size: ([0-9.]+)rem">(.*?)</div>',
            element.proto.body,
        ):
            found[part] = (html.unescape(re.sub("<[^>]*>", "", text)), float(size))
    return found


PROSE = ("title", "header", "subheader", "markdown", "caption", "text", "latex")
"""Element types a visitor reads as running text (alerts and metrics are counted too)."""
ALERTS = ("info", "warning", "error", "success")


def visible_words(at: AppTest) -> int:
    """Words a visitor sees on the page with every expander and popover closed: the text of its
    headings, Markdown, captions, alerts and metrics (tables and charts are not prose), in the
    first tab of each row of tabs (the one a page opens on)."""
    import re

    def words(text: str) -> int:
        text = re.sub(r"<[^>]+>|:[a-z]+\[|[*_`#>|\]\[]", " ", text)  # markup, not words
        return len(re.findall(r"[A-Za-z0-9][\w'’.,%±/-]*", text))

    def walk(node) -> int:
        kind = getattr(node, "type", None)
        if kind in ("expander", "popover"):
            return 0
        children = getattr(node, "children", None)
        if children:
            shown = list(children.values())
            if kind == "tab_container":
                shown = shown[:1]
            return sum(walk(child) for child in shown)
        if kind in PROSE:
            return words(str(node.value))
        if kind in ALERTS:
            return words(str(node.proto.body))
        if kind == "metric":
            return words(f"{node.label} {node.value}")
        return 0

    return walk(at.main)
