"""A student without a browser: a client that speaks Streamlit's own websocket protocol.

The class benchmark (``bench/bench_class.py --mode protocol``) needs students that make the server
do what a browser makes it do, and nothing else on the machine: no rendering, no JavaScript. This
client follows Streamlit's frontend (``frontend/connection/src/WebsocketConnection.tsx``,
``ForwardMessageCache.ts`` and ``frontend/app/src/App.tsx`` of the ``streamlit/streamlit``
repository; checked against a chromium's frames on this lab, Streamlit 1.67):

1. **Opening a page.** GET the page's address (the server sets the ``_streamlit_xsrf`` cookie;
   behind ``make class`` nginx sets the sticky ``ctlab_server`` cookie), the frontend's two start-up
   requests (``/_stcore/health`` and ``/_stcore/host-config``, tried at the page's path first, then
   at the root), then the websocket ``ws://HOST:PORT/_stcore/stream`` with the cookies, the page's
   origin and the subprotocols ``streamlit``, the XSRF token (or the frontend's placeholder) and,
   on a reconnect, the session id. The first ``BackMsg.rerun_script`` carries the query string, the
   page's name from its path and no widget states, as a browser's does.
2. **A run** is read until its ``script_finished`` (after the run's ``new_session``). The client
   keeps what the frontend keeps: the session id, the page's script hash (``navigation``), the
   query string the page writes (``page_info_changed``), the elements on the page (by delta path;
   a full run drops the paths it did not write, a fragment's run those its fragments drew before
   and not now, as ``clearStaleNodes`` does), and every widget's
   state: the server's value when an element says ``set_value``, else the client's own, else the
   element's default (what a widget stores when it mounts); widgets a full run did not draw are
   forgotten (``removeInactive``).
3. **A switch** sets one widget's value and sends ``BackMsg.rerun_script`` with every widget's
   state, the page's script hash, the current query string, the widget's fragment id (a fragment
   rerun, when the widget sits in an ``st.fragment``), the hashes of the cached messages and the
   browser's context (time zone, locale, URL, colour scheme).
4. **The message cache**, as ``ForwardMsgCache``: a ``ForwardMsg`` marked cacheable is kept by its
   hash; a ``ref_hash`` message is replaced by the kept one (with the reference's metadata); entries
   older than ``max_cached_message_age`` finished runs (from ``new_session``) are dropped, and the
   kept hashes go with every rerun so the server sends references instead of figures it sent
   before. A reference to a message the client does not hold is a :class:`ProtocolError`.
5. **Files the page links** (download buttons, images, the page icon) are fetched once each, after
   the run, as the browser fetched them.

The websocket offers permessage-deflate, as chromium does, so the server compresses what it sends
as it would for a browser. What a browser does that this client does not: render, load the
frontend's static JavaScript (``assets=True`` fetches the files the page's HTML lists, not the
chunks loaded later), send heartbeats, and upload files.

Examples
--------
Against a running lab (``ui.serve.running_lab``)::

    client = StreamlitClient("http://127.0.0.1:8501")
    run = await client.open("metacognition", "agent=b2_ws&seed=0&self_model_mode=on&capacity=4")
    before = client.metric("Type-2 AUROC")            # "0.85"
    run = await client.set_widget("metacognition.self_model_mode", "zeroed")
    run.seconds, client.metric("Type-2 AUROC")        # (0.3, "0.50")
    await client.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import http.cookiejar
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState, ContextInfo
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

__all__ = [
    "MessageCache",
    "ProtocolError",
    "Run",
    "StreamlitClient",
    "Widget",
    "initial_state",
    "user_key",
    "widget_state",
]

STREAM_PATH = "/_stcore/stream"
"""The websocket's path under the server's address."""
XSRF_COOKIE = "_streamlit_xsrf"
"""The cookie whose value the frontend sends as the second subprotocol."""
PLACEHOLDER_TOKEN = "PLACEHOLDER_AUTH_TOKEN"
"""What the frontend sends in the token's place when there is no XSRF cookie."""
USER_AGENT = "ctlab-class-bench (Streamlit protocol client)"
CONTEXT = ContextInfo(
    timezone="UTC", timezone_offset=0, locale="en-US", is_embedded=False, color_scheme="light"
)
"""The browser context every rerun carries (the URL is added per page)."""
DONE = frozenset(
    {
        ForwardMsg.FINISHED_SUCCESSFULLY,
        ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
        ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    }
)
"""A run's last message; ``FINISHED_EARLY_FOR_RERUN`` is not one (another run follows)."""
COUNTS = frozenset({*DONE, ForwardMsg.FINISHED_EARLY_FOR_RERUN}) - {
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR
}
"""Finishes that age the message cache (the frontend's ``incrementMessageCacheRunCount``)."""
WIDGETS = frozenset(
    {
        "button_group",
        "checkbox",
        "multiselect",
        "number_input",
        "radio",
        "selectbox",
        "slider",
        "text_input",
    }
)
"""Element types that hold a value in the frontend's widget state (buttons only trigger)."""
_HTTP = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="student-http")
"""HTTP requests run here, so thirty students' page loads do not queue behind a few threads."""
_ID = re.compile(r"\$\$ID-[0-9a-f]+-(.*)")
_ASSET = re.compile(r"""(?:src|href)="\./(static/[^"]+)\"""")


class ProtocolError(RuntimeError):
    """The server sent what a browser could not show (a reference to a message it never got)."""


def user_key(widget_id: str) -> str | None:
    """The key a page gave a widget, read from the element id Streamlit builds from it.

    >>> user_key("$$ID-67a84947cc4d2dd480ca60d4ab1b36f6-metacognition.self_model_mode")
    'metacognition.self_model_mode'
    >>> user_key("$$ID-2e203c576eb6ee7dbc02497b07acb462-None") is None
    True
    """
    match = _ID.fullmatch(widget_id)
    return None if match is None or match.group(1) == "None" else match.group(1)


@dataclass
class Widget:
    """A widget as the page last drew it."""

    id: str
    kind: str
    """The element's type (``slider``, ``button_group``, ...)."""
    proto: Any
    """The element's widget message (``Slider``, ``ButtonGroup``, ...)."""
    fragment_id: str = ""
    """The ``st.fragment`` it was drawn in ("" outside any)."""
    script_hash: str = ""
    """The script that drew it (the main script's widgets outlive a page change)."""

    @property
    def key(self) -> str | None:
        """The page's key for it (None when the page gave none)."""
        return user_key(self.id)

    @property
    def options(self) -> list[str]:
        """The options as shown (formatted), for widgets that have options."""
        if self.kind == "button_group":
            return [o.content for o in self.proto.options]
        return list(getattr(self.proto, "options", []))


def initial_state(kind: str, proto: Any) -> WidgetState | None:
    """The state the frontend stores for a widget it draws: the server's value when the element
    sets one (``set_value``), else the element's default; None when it holds no value.

    >>> from streamlit.proto.Checkbox_pb2 import Checkbox
    >>> initial_state("checkbox", Checkbox(id="t", default=True)).bool_value
    True
    >>> from streamlit.proto.Slider_pb2 import Slider
    >>> list(initial_state("slider", Slider(id="s", default=[4.0])).double_array_value.data)
    [4.0]
    """
    state = WidgetState(id=proto.id)
    setv = proto.set_value
    if kind in ("selectbox", "radio"):
        if setv and proto.HasField("raw_value"):
            state.string_value = proto.raw_value
        elif not setv and proto.HasField("default") and 0 <= proto.default < len(proto.options):
            state.string_value = proto.options[proto.default]
        else:
            return None
    elif kind == "button_group":
        labels = proto.raw_values if setv else [proto.options[i].content for i in proto.default]
        state.string_array_value.data.extend(labels)
    elif kind == "multiselect":
        labels = proto.raw_values if setv else [proto.options[i] for i in proto.default]
        state.string_array_value.data.extend(labels)
    elif kind == "slider" and proto.options:  # st.select_slider: the formatted options
        labels = proto.raw_value if setv else [proto.options[int(i)] for i in proto.default]
        state.string_array_value.data.extend(labels)
    elif kind == "slider":
        state.double_array_value.data.extend(proto.value if setv else proto.default)
    elif kind == "checkbox":
        state.bool_value = proto.value if setv else proto.default
    elif kind == "number_input":
        number = proto.value if setv else proto.default
        if proto.data_type == proto.INT:
            state.int_value = int(number)
        else:
            state.double_value = number
    elif kind == "text_input":
        state.string_value = proto.value if setv else proto.default
    else:
        return None
    return state


def widget_state(widget: Widget, value: Any) -> WidgetState:
    """The state a browser sends when a student sets ``widget`` to ``value``.

    ``value`` is an option as shown (or its index) for widgets with options, a number for a slider
    or number input, a bool for a checkbox or toggle, a list of options for a multiselect.

    >>> from streamlit.proto.ButtonGroup_pb2 import ButtonGroup
    >>> group = ButtonGroup(id="g", options=[ButtonGroup.Option(content=c) for c in "ab"])
    >>> list(widget_state(Widget("g", "button_group", group), 1).string_array_value.data)
    ['b']
    >>> widget_state(Widget("g", "button_group", group), "c")
    Traceback (most recent call last):
    ...
    ValueError: 'c' is not an option of g (a, b)
    """
    state = WidgetState(id=widget.id)
    options = widget.options

    def option(v: Any) -> str:
        if isinstance(v, int) and not isinstance(v, bool) and options:
            if not 0 <= v < len(options):
                raise ValueError(f"option {v} of {widget.id} is out of range ({len(options)})")
            return options[v]
        if str(v) not in options:
            raise ValueError(f"{v!r} is not an option of {widget.id} ({', '.join(options)})")
        return str(v)

    if widget.kind in ("selectbox", "radio"):
        state.string_value = option(value)
    elif widget.kind == "button_group" or (widget.kind == "slider" and options):
        state.string_array_value.data.append(option(value))
    elif widget.kind == "multiselect":
        state.string_array_value.data.extend(option(v) for v in value)
    elif widget.kind == "slider":
        low, high = widget.proto.min, widget.proto.max
        if not low <= float(value) <= high:
            raise ValueError(f"{value} is outside {widget.id}'s range [{low:g}, {high:g}]")
        state.double_array_value.data.append(float(value))
    elif widget.kind == "checkbox":
        state.bool_value = bool(value)
    elif widget.kind == "number_input":
        if widget.proto.data_type == widget.proto.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif widget.kind == "text_input":
        state.string_value = str(value)
    else:
        raise ValueError(f"{widget.id} is a {widget.kind}: the client cannot set it")
    return state


@dataclass
class _Entry:
    data: bytes
    run_count: int
    fragment_id: str


class MessageCache:
    """The frontend's cache of large messages (``ForwardMessageCache.ts``), keyed by hash."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}
        self.run_count = 0

    def resolve(self, msg: ForwardMsg, data: bytes) -> ForwardMsg:
        """Keep ``msg`` if it is cacheable; a reference becomes the message it refers to.

        Raises
        ------
        ProtocolError
            For a reference to a message the cache does not hold.
        """
        if msg.WhichOneof("type") == "ref_hash":
            entry = self.entries.get(msg.ref_hash)
            if entry is None:
                raise ProtocolError(
                    f"the server referred to a message never received ({msg.ref_hash})"
                )
            entry.run_count = self.run_count
            full = ForwardMsg.FromString(entry.data)
            full.metadata.CopyFrom(msg.metadata)
            return full
        if msg.metadata.cacheable and msg.hash:
            if msg.hash in self.entries:
                self.entries[msg.hash].run_count = self.run_count
            else:
                fragment = msg.delta.fragment_id if msg.WhichOneof("type") == "delta" else ""
                self.entries[msg.hash] = _Entry(data, self.run_count, fragment)
        return msg

    def finished_run(self, max_age: int, fragment_ids: Sequence[str] = ()) -> None:
        """A run finished: age the entries and drop those unused for more than ``max_age`` runs (a
        fragment run only ages its own fragments' entries)."""
        self.run_count += 1
        for key, entry in list(self.entries.items()):
            if fragment_ids and entry.fragment_id not in fragment_ids:
                continue
            if self.run_count - entry.run_count > max_age:
                del self.entries[key]

    def hashes(self) -> list[str]:
        """The hashes a rerun reports (``cached_message_hashes``)."""
        return list(self.entries)


@dataclass
class Run:
    """One script run as the client received it, and what it took."""

    seconds: float = float("nan")
    """From sending the request to the run's ``script_finished`` (wall clock)."""
    status: int | None = None
    """The ``script_finished`` status (None until it came)."""
    fragment_ids: list[str] = field(default_factory=list)
    """The fragments this run reran (empty: the whole page)."""
    elements: list[Element] = field(default_factory=list)
    """The elements the run drew, in the order they came."""
    paths: set[tuple[int, ...]] = field(default_factory=set)
    widget_ids: set[str] = field(default_factory=set)
    exceptions: list[str] = field(default_factory=list)
    """Messages of the exceptions the page showed."""
    page_not_found: bool = False
    messages: int = 0
    bytes: int = 0
    references: int = 0
    """Messages the server sent as references to the client's cache."""
    media: set[str] = field(default_factory=set)
    """Addresses of files the page links (``/media/...``)."""
    media_missing: int = 0
    """Of those, files the server did not serve (a browser shows a broken image or download)."""

    def metric(self, label: str) -> str | None:
        """The value this run showed for the metric ``label`` (None if it drew none)."""
        return _metric(self.elements, label)


def _metric(elements: Iterable[Element], label: str) -> str | None:
    for element in elements:
        if element.WhichOneof("type") == "metric" and element.metric.label == label:
            return element.metric.body
    return None


def _media(element: Element) -> list[str]:
    kind = element.WhichOneof("type")
    if kind == "download_button":
        return [element.download_button.url]
    if kind == "imgs":
        return [img.url for img in element.imgs.imgs]
    return []


class StreamlitClient:
    """One student's browser tab, as Streamlit's server sees it (see the module's docstring).

    Parameters
    ----------
    base_url : str
        The lab's address, e.g. ``http://127.0.0.1:8501`` (a server, or nginx before several).
    timeout : float
        Seconds an HTTP request or a run may take before :class:`TimeoutError`.
    assets : bool
        Also fetch the static files the page's HTML lists when opening a page (a browser's first
        visit; later visits have them cached).
    """

    def __init__(self, base_url: str, *, timeout: float = 120.0, assets: bool = False) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.assets = assets
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.ws: ClientConnection | None = None
        self.session_id = ""
        self.path = ""
        """The page's path in the address bar (no leading slash)."""
        self.query_string = ""
        self.page_script_hash = ""
        self.main_script_hash = ""
        self.pages: dict[str, str] = {}
        """The app's pages: URL path -> script hash (from ``navigation``)."""
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}
        self.elements: dict[tuple[int, ...], Element] = {}
        """The page as shown: element by delta path."""
        self.drawn_by: dict[tuple[int, ...], str] = {}
        """The fragment that drew each element ("" for the page itself)."""
        self.cache = MessageCache()
        self.max_message_age = 2
        self.fetched: set[str] = set()
        self.http_requests = 0

    # -- what a student does ------------------------------------------------------------------

    async def open(self, path: str, query: str = "") -> Run:
        """Open a page as a browser does (see the module's docstring); its ``seconds`` count from
        the first request to the run's end."""
        began = time.perf_counter()
        self.path, self.query_string = path.strip("/"), query
        status, html = await self.get(f"/{self.path}" + (f"?{query}" if query else ""))
        if status != 200:
            raise ProtocolError(f"GET /{self.path} answered {status}")
        if self.assets:
            await asyncio.gather(*(self.get(f"/{a}") for a in dict.fromkeys(_ASSET.findall(html))))
        for base in ([f"/{self.path}"] if self.path else []) + [""]:  # the frontend's init pings
            health, config = await asyncio.gather(
                self.get(f"{base}/_stcore/health"), self.get(f"{base}/_stcore/host-config")
            )
            if health == (200, "ok") and config[0] == 200:
                break
        else:
            raise ProtocolError("the server's health check did not answer ok")
        await self._connect()
        state = self._client_state(page_name=self.path)
        state.widget_states.SetInParent()  # sent, and empty, as a browser's first request
        run = await self._rerun(state, began)
        await self.fetch_media(run)
        return run

    async def set_widget(self, key: str, value: Any) -> Run:
        """Set the widget the page keyed ``key`` to ``value`` and rerun, as a click does."""
        widget = self.widget(key)
        self.states[widget.id] = widget_state(widget, value)
        state = self._client_state(
            page_script_hash=self.page_script_hash, fragment_id=widget.fragment_id
        )
        state.widget_states.widgets.extend(self.states.values())
        run = await self._rerun(state)
        await self.fetch_media(run)
        return run

    async def follow_link(self, page: str) -> Run:
        """Click the page's ``st.page_link`` to ``page`` (its URL path): a page change."""
        links = [
            e.page_link
            for e in self.elements.values()
            if e.WhichOneof("type") == "page_link" and not e.page_link.external
        ]
        target = self.pages.get(page.strip("/"))
        link = next((x for x in links if target and x.page_script_hash == target), None)
        if link is None:
            raise ProtocolError(f"the page shows no link to {page!r}")
        self.path, self.query_string = page.strip("/"), link.query_string
        state = self._client_state(page_script_hash=link.page_script_hash)
        kept = [  # the main script's widgets outlive the page (onPageChange)
            s
            for i, s in self.states.items()
            if self.widgets[i].script_hash == self.main_script_hash
        ]
        state.widget_states.widgets.extend(kept)
        run = await self._rerun(state)
        await self.fetch_media(run)
        return run

    async def close(self) -> None:
        """Close the tab."""
        await self._close_ws()

    # -- what the page shows --------------------------------------------------------------------

    def widget(self, key: str) -> Widget:
        """The widget the page keyed ``key``.

        Raises
        ------
        KeyError
            When the page does not show it.
        """
        for widget in self.widgets.values():
            if widget.key == key:
                return widget
        shown = sorted(k for w in self.widgets.values() if (k := w.key))
        raise KeyError(f"the page shows no widget keyed {key!r} (it shows {shown})")

    def metric(self, label: str) -> str | None:
        """The value the page shows for the metric ``label``."""
        return _metric(self.elements.values(), label)

    def on_page(self, path: str) -> bool:
        """Whether the page shown is the one at ``path``."""
        target = self.pages.get(path.strip("/"))
        return target is not None and target == self.page_script_hash

    # -- the protocol ---------------------------------------------------------------------------

    async def get(self, path: str) -> tuple[int, str]:
        """GET ``path`` with this tab's cookies: (status, body as text)."""
        request = urllib.request.Request(
            self.base_url + path,
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
        )

        def fetch() -> tuple[int, str]:
            try:
                with self.opener.open(request, timeout=self.timeout) as response:
                    body = response.read()
                    if response.headers.get("Content-Encoding") == "gzip":
                        body = gzip.decompress(body)
                    return response.status, body.decode(errors="replace")
            except urllib.error.HTTPError as error:
                return error.code, ""

        self.http_requests += 1
        return await asyncio.get_running_loop().run_in_executor(_HTTP, fetch)

    async def fetch_media(self, run: Run) -> None:
        """Fetch the files a run linked that this tab has not fetched yet (``run.media_missing``
        counts those the server did not serve: each lives in the process that holds the session,
        so behind several servers only a sticky session gets them)."""
        new = sorted(run.media - self.fetched)
        self.fetched.update(new)
        answers = await asyncio.gather(*(self.get(url) for url in new))
        run.media_missing = sum(status != 200 for status, _ in answers)

    def _cookie_header(self, url: str) -> str:
        probe = urllib.request.Request(url)
        self.jar.add_cookie_header(probe)
        return probe.get_header("Cookie", "")

    def _cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    async def _connect(self) -> None:
        protocols = ["streamlit", self._cookie(XSRF_COOKIE) or PLACEHOLDER_TOKEN]
        if self.session_id:
            protocols.append(self.session_id)
        headers = {}
        if cookies := self._cookie_header(self.base_url + STREAM_PATH):
            headers["Cookie"] = cookies
        self.ws = await connect(
            "ws" + self.base_url.removeprefix("http") + STREAM_PATH,
            subprotocols=protocols,  # type: ignore[arg-type]
            origin=self.base_url,  # type: ignore[arg-type]
            additional_headers=headers,
            user_agent_header=USER_AGENT,
            max_size=None,
            open_timeout=self.timeout,
        )

    async def _close_ws(self) -> None:
        if self.ws is not None:
            ws, self.ws = self.ws, None
            await ws.close()

    def _client_state(
        self, *, page_name: str = "", page_script_hash: str = "", fragment_id: str = ""
    ) -> ClientState:
        state = ClientState(
            query_string=self.query_string,
            page_script_hash=page_script_hash,
            page_name=page_name,
            fragment_id=fragment_id,
        )
        state.cached_message_hashes.extend(self.cache.hashes())
        state.context_info.CopyFrom(CONTEXT)
        state.context_info.url = f"{self.base_url}/{self.path}"
        return state

    async def _rerun(self, state: ClientState, began: float | None = None) -> Run:
        if self.ws is None:
            raise ProtocolError("not connected")
        began = time.perf_counter() if began is None else began
        await self.ws.send(BackMsg(rerun_script=state).SerializeToString())
        run, started = Run(), False
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no script_finished within {self.timeout:.0f} s")
            data = await asyncio.wait_for(self.ws.recv(decode=False), timeout=left)
            run.messages += 1
            run.bytes += len(data)
            msg = ForwardMsg.FromString(data)
            run.references += msg.WhichOneof("type") == "ref_hash"
            msg = self.cache.resolve(msg, data)
            started = self._receive(msg, run) or started
            if started and msg.WhichOneof("type") == "script_finished":
                self._finished(msg.script_finished, run)
                if msg.script_finished in DONE:
                    run.seconds = time.perf_counter() - began
                    run.status = msg.script_finished
                    return run

    def _receive(self, msg: ForwardMsg, run: Run) -> bool:
        """Take in one message as the frontend does; True when it starts a run."""
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            session = msg.new_session
            if session.initialize.session_id:
                self.session_id = session.initialize.session_id
            self.max_message_age = session.config.max_cached_message_age or self.max_message_age
            self.main_script_hash = session.main_script_hash or self.main_script_hash
            self.page_script_hash = session.page_script_hash
            self.pages.update({p.url_pathname: p.page_script_hash for p in session.app_pages})
            run.fragment_ids = list(msg.metadata.run.fragment_ids)
            return True
        if kind == "navigation":
            self.page_script_hash = msg.navigation.page_script_hash
            self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            run.page_not_found = True
        elif kind == "page_config_changed" and msg.page_config_changed.favicon.startswith(
            "/media/"
        ):
            run.media.add(msg.page_config_changed.favicon)
        elif kind == "delta":
            self._delta(msg, run)
        return False

    def _delta(self, msg: ForwardMsg, run: Run) -> None:
        delta, path = msg.delta, tuple(msg.metadata.delta_path)
        run.paths.add(path)
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        self.elements[path] = element
        self.drawn_by[path] = delta.fragment_id
        run.elements.append(element)
        kind = element.WhichOneof("type")
        if kind == "exception":
            run.exceptions.append(element.exception.message or element.exception.type)
        run.media.update(u for u in _media(element) if u.startswith("/media/"))
        if kind not in WIDGETS:
            return
        proto = getattr(element, kind)
        self.widgets[proto.id] = Widget(
            proto.id, kind, proto, delta.fragment_id, msg.metadata.active_script_hash
        )
        run.widget_ids.add(proto.id)
        if proto.set_value or proto.id not in self.states:
            state = initial_state(kind, proto)
            if state is not None:
                self.states[proto.id] = state
            elif proto.set_value:  # the server cleared it
                self.states.pop(proto.id, None)

    def _finished(self, status: int, run: Run) -> None:
        if status in COUNTS:
            self.cache.finished_run(self.max_message_age, run.fragment_ids)
        if status == ForwardMsg.FINISHED_SUCCESSFULLY and not run.fragment_ids:
            self.elements = {p: e for p, e in self.elements.items() if p in run.paths}
            gone = [i for i in self.widgets if i not in run.widget_ids]
        elif status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
            self.elements = {  # what the fragments drew before and not now (clearStaleNodes)
                p: e
                for p, e in self.elements.items()
                if p in run.paths or self.drawn_by.get(p, "") not in run.fragment_ids
            }
            gone = [
                i
                for i, w in self.widgets.items()
                if w.fragment_id in run.fragment_ids and i not in run.widget_ids
            ]
        else:
            gone = []
        for widget_id in gone:
            self.widgets.pop(widget_id, None)
            self.states.pop(widget_id, None)
