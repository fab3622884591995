"""Every page: it runs without exceptions and with its plain-language help; never a traceback from
any widget at its extremes or deselected, nor from URL values beyond the data.

The every-widget driver finds the widgets a page shows (in AppTest's element tree, so a widget
added to a page later is driven without touching this file), sets each to its first and last value
(the ends of a slider, the first and last option of a choice, an empty and a full multiselect, a
flipped checkbox, a 5,000-character text with Markdown in it), deselects what can be deselected
(segmented controls and pills), and clicks plain buttons, one change per run. After every run no
exception may be on the page. Buttons that start training are not clicked (the Agents page's
own tests train with a tiny budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import TESTING_KEY

from labcore.config import PAGES as LAB_PAGES

PAGES = [p.name for p in LAB_PAGES]
"""Every page of the navigation (its one declaration, :data:`labcore.config.PAGES`)."""
WITHOUT_HELP = ("home", "scorecards", "your_data", "be_the_agent", "join")
"""Pages that explain themselves in their text, with no "what to look for" expander."""
LONG_TEXT = (
    "**bold** [link](http://127.0.0.1:9/x) ![i](http://127.0.0.1:9/i.png) " * 70
)  # ~5,000 chars
SKIP_BUTTONS = ("train", "download")  # long-running or file-producing; tested elsewhere


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_without_exceptions(open_page, page):
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, "every page has a title"
    assert (
        any("look" in e.label.lower() or "verdict" in e.label.lower() for e in at.expander)
        or page in WITHOUT_HELP
    ), "plain-language help on the page"


def _widget_lists(at: AppTest) -> dict[str, object]:
    kinds = {}
    for kind in (
        "slider",
        "select_slider",
        "selectbox",
        "segmented_control",
        "pills",
        "radio",
        "checkbox",
        "toggle",
        "multiselect",
        "number_input",
        "text_input",
        "text_area",
        "button",
    ):
        try:
            kinds[kind] = getattr(at, kind)
        except AttributeError:  # not offered by this Streamlit version
            continue
    return kinds


def _moves(kind: str, widget) -> Iterator[tuple[str, Callable[[object], object]]]:
    """(description, action) pairs: each action sets one value on the widget found again."""
    if kind in ("slider",):
        yield (
            "min",
            lambda w: w.set_value(w.min if not isinstance(w.value, tuple) else (w.min, w.min)),
        )
        yield (
            "max",
            lambda w: w.set_value(w.max if not isinstance(w.value, tuple) else (w.max, w.max)),
        )
    elif kind in ("select_slider", "selectbox", "radio"):
        if widget.options:
            yield "first", lambda w: w.set_value(_option(w, 0))
            yield "last", lambda w: w.set_value(_option(w, -1))
    elif kind in ("segmented_control", "pills"):
        if widget.options:
            yield "first", lambda w: w.set_value(_option(w, 0))
            yield "last", lambda w: w.set_value(_option(w, -1))
            yield "deselected", lambda w: w.set_value(None)
    elif kind in ("checkbox", "toggle"):
        yield "flipped", lambda w: w.set_value(not w.value)
        yield "flipped back", lambda w: w.set_value(not w.value)
    elif kind == "multiselect":
        yield "empty", lambda w: w.set_value([])
        yield "all", lambda w: w.set_value([_option(w, i) for i in range(len(w.options))])
    elif kind == "number_input":
        yield "min", lambda w: w.set_value(w.min if w.min is not None else -1e12)
        yield "max", lambda w: w.set_value(w.max if w.max is not None else 1e12)
    elif kind in ("text_input", "text_area"):
        yield "empty", lambda w: w.set_value("")
        yield "long markdown", lambda w: w.set_value(LONG_TEXT)
    elif kind == "button":
        if not any(word in (widget.label or "").lower() for word in SKIP_BUTTONS):
            yield "clicked", lambda w: w.click()


class Label(str):
    """An option given by its shown label (what the browser sends), not by its value."""


def _option(widget, index: int) -> Label:
    """The widget's option ``index`` as a label its format function passes through unchanged.

    Pages format options (``format_func``); the browser sends the formatted label and so does
    this driver: the widget's registered format function is wrapped to leave a ``Label`` alone.
    """
    funcs = widget.root.session_state[TESTING_KEY]
    original = funcs[widget.id]
    if not getattr(original, "passes_labels", False):

        def passing(value, original=original):
            return str(value) if isinstance(value, Label) else original(value)

        passing.passes_labels = True
        funcs[widget.id] = passing
    return Label(list(widget.options)[index])


def _find(at: AppTest, kind: str, ident: tuple[str | None, str, int]):
    key, label, index = ident
    widgets = list(getattr(at, kind))
    if key is not None:
        for w in widgets:
            if w.key == key:
                return w
        return None
    same = [w for w in widgets if w.label == label]
    return same[index] if index < len(same) else None


def _identities(at: AppTest) -> list[tuple[str, tuple[str | None, str, int]]]:
    found = []
    for kind, widgets in _widget_lists(at).items():
        seen: dict[str, int] = {}
        for w in widgets:
            label = w.label or ""
            n = seen.get(label, 0)
            seen[label] = n + 1
            found.append(
                (kind, (w.key if w.key and not w.key.startswith("$$") else None, label, n))
            )
    return found


SLOW_PAGES = {"reward", "robustness", "replication", "integration"}
"""Pages whose every-widget walk takes over 5 s on the reference machine (measured with
``--durations``): marked slow, so the quick lane skips them and the full suite runs them."""


@pytest.mark.parametrize(
    "page", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PAGES else p for p in PAGES]
)
def test_every_widget_survives_its_extremes_and_deselection(open_page, page):
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    driven = 0
    for kind, ident in _identities(at):
        widget = _find(at, kind, ident)
        if widget is None:
            continue
        for what, move in list(_moves(kind, widget)):
            widget = _find(at, kind, ident)
            if widget is None or getattr(widget, "disabled", False):
                break  # an earlier move hid or disabled it
            move(widget)
            at.run()
            driven += 1
            assert not at.exception, (
                f"/{page}: {kind} {ident[1]!r} {what}: {[e.value for e in at.exception]}"
            )
    assert driven > 0 or page in ("home",), f"/{page}: no widget was driven"


URL_EXTREMES = [
    {
        "agent": "zz",
        "seed": "1000000000000",
        "self_model_mode": "x" * 5000,
        "capacity": "99",
        "noise": "1e300",
        "noise_mode": "",
        "episode": "999",
        "soa": "1000",
        "masks": "99",
        "task": "ood",
        "step": "99",
        "code": "!!!!",
        "normalisation": "zz",
        "compare": "zz,b1,,",
        "results": "../../etc",
    },
    {
        "agent": "",
        "seed": "-5",
        "capacity": "-3",
        "noise": "-1",
        "noise_mode": "stored",
        "episode": "64",
        "soa": "0",
        "masks": "0",
        "task": "masking",
        "step": "0",
        "code": "",
        "normalisation": "",
        "compare": "",
        "results": "",
    },
    {
        "capacity": "nan",
        "noise": "inf",
        "episode": "1e9",
        "seed": "0x10",
        "soa": "2.5",
        "step": "-1",
    },
]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("params", range(len(URL_EXTREMES)))
def test_url_values_beyond_the_data_never_raise(open_page, page, params):
    at = open_page(page, URL_EXTREMES[params])
    assert not at.exception, (
        f"/{page} with URL_EXTREMES[{params}]: {[e.value[:300] for e in at.exception]}"
    )
