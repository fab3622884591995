"""The URL state as the pages use it: :mod:`labcore.links` (the typed state, its clamping rules
and :func:`~labcore.links.query`, the one way a link is written), and how URL text is shown.

The binding to ``st.query_params`` and the widgets is :mod:`ui.controls`; the state itself is
pure and lives in labcore, so the classroom's links (``labcore.classroom``) are written from it
too.
"""

from __future__ import annotations

import re

from labcore.links import (
    ECHO_LIMIT,
    FLAGS,
    LEGACY_PARAMS,
    MAX_EPISODE,
    MAX_MASKS,
    MAX_NOISE,
    MAX_SLOTS,
    SOA_RANGE,
    TASK_CHOICES,
    LabState,
    echo,
    parse_flag,
    parse_params,
    query,
)

__all__ = [
    "ECHO_LIMIT",
    "FLAGS",
    "LEGACY_PARAMS",
    "MAX_EPISODE",
    "MAX_MASKS",
    "MAX_NOISE",
    "MAX_SLOTS",
    "SOA_RANGE",
    "TASK_CHOICES",
    "LabState",
    "echo",
    "escape_markdown",
    "parse_flag",
    "parse_params",
    "query",
]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$])")


def escape_markdown(text: str) -> str:
    r"""Backslash-escape every Markdown (and Streamlit directive) character, so user text shown in
    ``st.warning``/``st.markdown`` is literal: no image is fetched, no link made, no bold.

    >>> print(escape_markdown("![t](http://x/a.png) **b**").replace("\u200b", "~"))
    \!\[t\]\(http\:~//x/a\.png\) \*\*b\*\*
    """
    # a zero-width space after the scheme stops Markdown's bare-URL autolinks (a live link)
    text = re.sub(r"(?i)(://|www\.)", lambda m: m.group(1)[0] + "\u200b" + m.group(1)[1:], text)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
