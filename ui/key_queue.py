"""Key presses queued in the browser and sent in order: none is lost between two reruns.

A button's keyboard shortcut fires only while the button is drawn and enabled; a key pressed while
the previous press's rerun was still running reaches a disabled button, or two presses merge into
one rerun (Be the agent would lose the bet in about 10 of 50 trials with keys 0.1 s apart). This
component listens to the page's keys itself and keeps every press of the current queue; each press
sends the whole queue, so the newest value, whichever reruns merge, holds every press in order,
and the page answers those it has not answered yet (``ui.humans.press_keys``).

Keys typed into a text field, or with Ctrl, Alt or Meta held, are left to the page. The queue is
named by the page (a new name, such as a new game, starts an empty queue).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

_JS = """
export default function ({ data, setStateValue }) {
  const queue = (window.__ctlabKeyQueue ??= { name: null, keys: [], listener: null });
  if (queue.name !== data.name) {
    queue.name = data.name;
    queue.keys = [];
  }
  if (queue.listener) document.removeEventListener('keydown', queue.listener);
  const listener = (event) => {
    if (!data.keys.includes(event.key) || event.repeat) return;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest('input, textarea, select, [contenteditable]'))
      return;
    event.preventDefault();
    queue.keys.push(event.key);
    setStateValue('pressed', { name: queue.name, keys: queue.keys.slice() });
  };
  queue.listener = listener;
  document.addEventListener('keydown', listener);
  return () => {
    document.removeEventListener('keydown', listener);
    if (queue.listener === listener) queue.listener = null;
  };
}
"""

_COMPONENT = st.components.v2.component("ctlab_key_queue", js=_JS)


def key_queue(name: str, keys: Sequence[str], *, key: str) -> list[str]:
    """Every press of ``keys`` in the queue ``name``, in the order pressed (empty before the
    first, and in AppTest, which runs no browser)."""
    result = _COMPONENT(
        key=key,
        data={"name": name, "keys": list(keys)},
        default={"pressed": None},
        on_pressed_change=lambda: None,
    )
    value = result.get("pressed")
    if isinstance(value, dict) and value.get("name") == name:
        return [str(k) for k in value.get("keys") or []]
    return []
