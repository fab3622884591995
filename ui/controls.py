"""Binding the typed lab state to Streamlit widgets and to ``st.query_params``.

A page calls :func:`init_state` once at the top (widgets then read their values from
``st.session_state``) and :func:`publish` at the end (the URL then describes the view).

A control and what it changes may sit in an ``st.fragment`` (a switch reruns only
them): :func:`init_state` stays in the page's body, which only a full run executes, so a
fragment's rerun never reads the URL (the browser's lags behind fast changes); the fragment
calls :func:`publish` itself, and :func:`rerun_page_when_changed` when the rest of the page
must follow it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.data import label
from ui.state import FLAGS, LabState, echo, escape_markdown, parse_params


def _key(page: str, name: str) -> str:
    return f"{page}.{name}"


def note_arrival(url_path: str) -> None:
    """Record whether this run arrives on a page (a new session or a navigation) or reruns it.

    ``app.py`` calls this on every run, before the page. Only an arrival may read the URL: during
    fast widget changes the browser's URL lags one rerun behind, and reading it on a rerun
    would bring back an older state (2 of 5 rounds of 20 rapid changes were lost that way).
    """
    st.session_state["_arrived"] = st.session_state.get("_page") != url_path
    st.session_state["_page"] = url_path


def arrived() -> bool:
    """True when this run arrives on the page (:func:`note_arrival`), the only run that may read
    the URL. A fragment's rerun (a switch) never arrives: it does not run ``app.py``, so
    the arrival's flag is still set then, and reading the URL again would turn a lesson link's
    ``predict=1`` back on when a student switched Predict first off."""
    return not fragment_rerun() and st.session_state.get("_arrived", True)


def init_state(
    page: str,
    keys: Sequence[str],
    *,
    agents: Sequence[str],
    seeds: Mapping[str, Sequence[int]],
    default: LabState | None = None,
    options: Mapping[str, Sequence[Any]] | None = None,
) -> None:
    """Load the page's controls from the URL on arrival: a new session, or navigation with a link.

    On a rerun of the same page (a widget changed) the widgets keep the user's last input and
    the URL is only written (:func:`publish`), never read. Navigating back to a page with a bare
    URL keeps the values the user left there. Invalid values are clamped and a notice is shown
    (never an exception). ``options`` are the valid values of controls whose choices the page
    knows (see :func:`ui.state.parse_params`).
    """
    url = {k: v for k, v in st.query_params.to_dict().items()}
    last = st.session_state.get(f"_published.{page}")
    fresh = f"_initialised.{page}" not in st.session_state
    on_arrival = arrived()
    kept = st.session_state.get(f"_kept_values.{page}", {})
    if fresh or (on_arrival and url and url != last):
        state, notices = parse_params(
            url, agents=agents, seeds=seeds, default=default, options=options
        )
        for name in keys:
            st.session_state[_key(page, name)] = getattr(state, name)
        st.session_state[f"_initialised.{page}"] = True
        st.session_state[f"_notices.{page}"] = notices
    else:
        # Streamlit drops a widget's state when another page runs (the sidebar, a link): the values
        # the user left here come back from their copy under keys no widget owns (see publish).
        for name in keys:
            if _key(page, name) not in st.session_state and name in kept:
                st.session_state[_key(page, name)] = kept[name]
    st.session_state[f"_default.{page}"] = parse_params(
        {}, agents=agents, seeds=seeds, default=default, options=options
    )[0]
    for notice in st.session_state.get(f"_notices.{page}", []):
        st.warning(
            escape_markdown(notice), icon=":material/warning:"
        )  # URL text is quoted, never rendered


def value(page: str, name: str) -> Any:
    """The current value of a control."""
    return st.session_state[_key(page, name)]


def key(page: str, name: str) -> str:
    """The session-state key a widget must use for this control."""
    return _key(page, name)


def describes(
    url: Mapping[str, str], params: Mapping[str, str], defaults: Mapping[str, str]
) -> bool:
    """Does ``url`` already describe the view ``params``: every value the same, a missing one at its
    default, nothing else in it?

    >>> describes({"agent": "b1", "capacity": "0"},
    ...           {"agent": "b1", "capacity": "0", "episode": "0"}, {"episode": "0"})
    True
    >>> describes({"agent": "b1"}, {"agent": "b1", "episode": "3"}, {"episode": "0"})
    False
    """
    return set(url) <= set(params) and all(
        url.get(k, defaults.get(k)) == v for k, v in params.items()
    )


def publish(page: str, keys: Sequence[str]) -> dict[str, str]:
    """Write the page's current controls into the URL (so the view can be shared as a link).

    A URL that already describes the view is left as it is: the browser adds a history entry
    for every rewrite, so completing a link's defaults would make Back need two presses.
    The switches of :data:`ui.state.FLAGS` in the URL (Predict first, projector mode) are kept:
    their owners read and write them.
    """
    values = {k: value(page, k) for k in keys}
    current = LabState(**{**LabState().__dict__, **values})
    url = st.query_params.to_dict()
    params = {**current.to_params(keys), **{k: url[k] for k in FLAGS if k in url}}
    default = st.session_state.get(f"_default.{page}")
    defaults = default.to_params(keys) if default is not None else {}
    if not describes(url, params, defaults):
        st.query_params.from_dict(params)
    st.session_state[f"_published.{page}"] = params
    st.session_state[f"_kept_values.{page}"] = {
        **st.session_state.get(f"_kept_values.{page}", {}),
        **values,
    }
    return params


def fragment_rerun() -> bool:
    """Is this run a fragment's own rerun (a widget inside it changed), not the whole page?"""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def rerun_page_when_changed(page: str, name: str, value: Any) -> None:
    """In a fragment: rerun the whole page when ``value`` is not what the rest of the page was
    last drawn with; in a full run, note it.

    For what the page outside the fragment depends on, e.g. whether a lesion's result may be
    shown: while a prediction waits, the page stops (``st.stop()``) before its verdicts, which a
    fragment's rerun alone would leave on screen.
    """
    drawn = f"_drawn.{page}.{name}"
    if fragment_rerun() and st.session_state.get(drawn) != value:
        st.rerun()  # the whole page (scope "app"), which notes the value below
    st.session_state[drawn] = value


def agent_seed_picker(
    page: str, seeds: Mapping[str, Sequence[int]], agent_column: Any, seed_column: Any
) -> tuple[str, int]:
    """The agent and seed selectors every lab page shares, bound to the page's URL state.

    Parameters
    ----------
    page : str
        The page's name (its controls' key prefix); the page must have called
        :func:`init_state` with ``agent`` and ``seed`` among its keys.
    seeds : mapping
        Available seeds per agent kind (the agent choices, in order).
    agent_column, seed_column : Streamlit containers
        Where the two select boxes go (e.g. two ``st.columns``).

    Returns
    -------
    (kind, seed)
        The chosen agent kind and one of its available seeds (a seed the newly chosen agent
        lacks is replaced by its first).
    """
    agent_column.selectbox("Agent", list(seeds), format_func=label, key=key(page, "agent"))
    kind = value(page, "agent")
    if value(page, "seed") not in seeds[kind]:
        st.session_state[key(page, "seed")] = seeds[kind][0]
    seed_column.selectbox("Seed", seeds[kind], key=key(page, "seed"))
    return kind, value(page, "seed")


def _keep_selection(widget_key: str, fallback: Any) -> None:
    if st.session_state.get(widget_key) is None:  # a click on the selected button deselects it
        st.session_state[widget_key] = st.session_state.get(f"_kept.{widget_key}", fallback)


def segmented(
    container: Any,
    label: str,
    options: Sequence[Any],
    page: str,
    name: str,
    *,
    fallback: Any,
    **kwargs: Any,
) -> Any:
    """A segmented control bound to a page's control that can never be left empty.

    Clicking the selected button of ``st.segmented_control`` deselects it (value ``None``); in
    a page that reads the value that would be a traceback. An ``on_change`` callback
    (which runs before the widget is drawn, the only time its state may be set) puts the last
    selection back, or ``fallback`` if there was none.

    Parameters
    ----------
    container : a Streamlit container (``st`` or a column)
    label, options, **kwargs : as for ``st.segmented_control`` (e.g. ``format_func``, ``help``)
    page, name : the control (see :func:`key`)
    fallback : the value used when nothing was ever selected

    Returns
    -------
    The selected value (never ``None``).
    """
    widget_key = key(page, name)
    # Set on every run, so the run sends the browser the value it used: under fast clicks a
    # browser could keep showing an older selection, or none, after the runs caught up while the
    # page and its URL showed the last one (the rapid-clicks browser test).
    st.session_state[widget_key] = (
        fallback if st.session_state.get(widget_key) is None else st.session_state[widget_key]
    )
    container.segmented_control(
        label,
        list(options),
        key=widget_key,
        on_change=_keep_selection,
        args=(widget_key, fallback),
        **kwargs,
    )
    st.session_state[f"_kept.{widget_key}"] = st.session_state[widget_key]
    return st.session_state[widget_key]


def url_choice(page: str, name: str, options: Sequence[str]) -> str:
    """A page-specific choice among ``options`` (e.g. a result set's name) that lives in the URL.

    Read from the URL on arrival, like :func:`init_state` (a bare URL keeps the last choice); a
    value not among the options is replaced by the first with a notice (quoted and escaped).
    The page binds its widget to ``key(page, name)`` and calls :func:`publish_choice` after it.
    """
    widget_key = key(page, name)
    kept = st.session_state.get(f"_kept.{widget_key}")
    if widget_key not in st.session_state and kept in options and name not in st.query_params:
        st.session_state[widget_key] = kept  # its widget's state was dropped on another page
    elif widget_key not in st.session_state or (arrived() and name in st.query_params):
        wanted = st.query_params.get(name)
        if wanted is not None and wanted not in options:
            st.warning(
                escape_markdown(
                    f"{name}={echo(wanted)} is not one of {', '.join(options)}; "
                    f"showing {options[0]}."
                ),
                icon=":material/warning:",
            )
        st.session_state[widget_key] = wanted if wanted in options else options[0]
    elif st.session_state[widget_key] not in options:
        st.session_state[widget_key] = options[0]
    return st.session_state[widget_key]


def publish_choice(page: str, name: str, default: str | None = None) -> None:
    """Write a :func:`url_choice` into the URL (the other parameters are kept); a URL without it
    that means ``default`` (the first option) is left as it is (no extra history entry)."""
    value = st.session_state[key(page, name)]
    st.session_state[f"_kept.{key(page, name)}"] = value
    if st.query_params.get(name, default) != value:
        st.query_params[name] = value
