"""The class benchmark's protocol client (bench/protocol_client.py): a student without a
browser, checked on hand-made messages (what the frontend would make of them) and against a real
``streamlit run app.py`` (one student, one switch: the metric changes as a browser sees it)."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ButtonGroup_pb2 import ButtonGroup
from streamlit.proto.Checkbox_pb2 import Checkbox
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Metric_pb2 import Metric
from streamlit.proto.Selectbox_pb2 import Selectbox
from streamlit.proto.Slider_pb2 import Slider

from bench.class_protocol import SCENARIOS
from bench.protocol_client import (
    MessageCache,
    ProtocolError,
    StreamlitClient,
    Widget,
    initial_state,
    user_key,
    widget_state,
)
from ui.serve import running_lab

KEY = "metacognition.self_model_mode"
MODE_ID = f"$$ID-67a84947cc4d2dd480ca60d4ab1b36f6-{KEY}"


# -- hand-made messages ------------------------------------------------------------------------


def new_session(page_hash: str = "page", fragments: tuple[str, ...] = ()) -> ForwardMsg:
    msg = ForwardMsg()
    msg.new_session.page_script_hash = page_hash
    msg.new_session.main_script_hash = "main"
    msg.new_session.initialize.session_id = "session-1"
    msg.new_session.config.max_cached_message_age = 2
    msg.metadata.run.fragment_ids.extend(fragments)
    return msg


def navigation(page_hash: str = "page") -> ForwardMsg:
    msg = ForwardMsg()
    msg.navigation.page_script_hash = page_hash
    msg.navigation.app_pages.add(page_script_hash="home", url_pathname="")
    msg.navigation.app_pages.add(page_script_hash="page", url_pathname="metacognition")
    return msg


def element(path: tuple[int, ...], el: Element, fragment: str = "", script: str = "page"):
    msg = ForwardMsg()
    msg.delta.new_element.CopyFrom(el)
    msg.delta.fragment_id = fragment
    msg.metadata.delta_path.extend(path)
    msg.metadata.active_script_hash = script
    return msg


def metric(label: str, body: str) -> Element:
    return Element(metric=Metric(label=label, body=body))


def group(selected: str | None = None) -> Element:
    proto = ButtonGroup(id=MODE_ID, default=[3])
    proto.options.extend(
        ButtonGroup.Option(content=c) for c in ("zeroed", "noise", "shuffled", "on")
    )
    if selected is not None:
        proto.set_value = True
        proto.raw_values.append(selected)
    return Element(button_group=proto)


def finished(status: int = ForwardMsg.FINISHED_SUCCESSFULLY) -> ForwardMsg:
    return ForwardMsg(script_finished=status)


def page_run(auroc: str, selected: str | None = None) -> list[ForwardMsg]:
    query = ForwardMsg()
    query.page_info_changed.query_string = f"self_model_mode={selected or 'on'}"
    return [
        new_session(),
        navigation(),
        element((0, 0), group(selected)),
        query,
        element((0, 1), metric("Type-2 AUROC", auroc)),
        finished(),
    ]


class FakeSocket:
    """A websocket that records what the client sends and answers with scripted frames."""

    def __init__(self, *runs: list[ForwardMsg]) -> None:
        self.sent: list[BackMsg] = []
        self.frames = [m.SerializeToString() for run in runs for m in run]

    async def send(self, data: bytes) -> None:
        self.sent.append(BackMsg.FromString(data))

    async def recv(self, decode: bool = False) -> bytes:
        if not self.frames:
            await asyncio.sleep(3600)  # a server that never answers
        return self.frames.pop(0)

    async def close(self) -> None:
        pass


def connected(*runs: list[ForwardMsg]) -> tuple[StreamlitClient, FakeSocket]:
    client = StreamlitClient("http://127.0.0.1:1", timeout=1.0)
    client.ws = socket = FakeSocket(*runs)  # type: ignore[assignment]
    client.path, client.query_string = "metacognition", "self_model_mode=on"
    return client, socket


# -- widgets -----------------------------------------------------------------------------------


def test_a_widget_is_found_by_the_key_the_page_gave_it():
    assert user_key(MODE_ID) == KEY
    assert user_key("$$ID-c326c972679bb40d34c461fbb2802297-None") is None  # no key given
    assert user_key("a-plain-id") is None


def test_initial_states_are_the_servers_value_else_the_default_as_a_browser_stores_them():
    assert list(initial_state("button_group", group().button_group).string_array_value.data) == [
        "on"
    ]
    assert list(
        initial_state("button_group", group("zeroed").button_group).string_array_value.data
    ) == ["zeroed"]
    select = Selectbox(id="s", options=["B1", "B2"], default=1)
    assert initial_state("selectbox", select).string_value == "B2"
    select.set_value, select.raw_value = True, "B1"
    assert initial_state("selectbox", select).string_value == "B1"
    assert initial_state("selectbox", Selectbox(id="s", options=["a"])) is None  # index=None
    numeric = Slider(id="n", default=[4.0], min=0, max=4)
    assert list(initial_state("slider", numeric).double_array_value.data) == [4.0]
    choice = Slider(id="c", default=[4.0], options=[f"{k} slots" for k in range(5)])
    assert list(initial_state("slider", choice).string_array_value.data) == ["4 slots"]
    assert initial_state("checkbox", Checkbox(id="t", default=False)).bool_value is False
    assert initial_state("plotly_chart", Checkbox(id="x")) is None  # holds no value


def test_a_switch_state_takes_an_option_as_shown_or_its_position_and_refuses_others():
    widget = Widget(MODE_ID, "button_group", group().button_group)
    assert widget.options == ["zeroed", "noise", "shuffled", "on"]
    assert list(widget_state(widget, "noise").string_array_value.data) == ["noise"]
    assert list(widget_state(widget, 2).string_array_value.data) == ["shuffled"]
    with pytest.raises(ValueError, match="'zero'"):  # the value refused
        widget_state(widget, "zero")  # the URL's word, not the label a student clicks
    choice = Widget("c", "slider", Slider(id="c", options=["0 (scale 0)", "1 (scale 0.25)"]))
    assert list(widget_state(choice, 1).string_array_value.data) == ["1 (scale 0.25)"]
    numeric = Widget("n", "slider", Slider(id="n", min=0.0, max=1.0))
    assert list(widget_state(numeric, 0.3).double_array_value.data) == [0.3]
    with pytest.raises(ValueError, match="outside"):
        widget_state(numeric, 1.5)


# -- the message cache -------------------------------------------------------------------------


def figure(text: str, fragment: str = "") -> ForwardMsg:
    msg = element((0, 2), Element(markdown={"body": text}), fragment)
    msg.hash, msg.metadata.cacheable = f"hash-{text}", True
    return msg


def test_the_cache_keeps_large_messages_and_resolves_references_with_their_metadata():
    cache = MessageCache()
    big = figure("roc")
    assert cache.resolve(big, big.SerializeToString()) is big
    assert cache.hashes() == ["hash-roc"]
    ref = ForwardMsg(ref_hash="hash-roc")
    ref.metadata.delta_path.extend([0, 7])
    full = cache.resolve(ref, ref.SerializeToString())
    assert full.delta.new_element.markdown.body == "roc"
    assert list(full.metadata.delta_path) == [0, 7]  # where the reference puts it
    small = element((0, 3), metric("m", "1"))  # not marked cacheable: not kept
    cache.resolve(small, small.SerializeToString())
    assert cache.hashes() == ["hash-roc"]
    with pytest.raises(ProtocolError, match="hash-other"):  # the reference it cannot resolve
        cache.resolve(ForwardMsg(ref_hash="hash-other"), b"")


def test_cache_entries_expire_after_the_servers_max_age_and_a_fragment_run_ages_only_its_own():
    cache = MessageCache()
    for msg in (figure("page"), figure("inside", fragment="f1")):
        cache.resolve(msg, msg.SerializeToString())
    cache.finished_run(2)
    cache.finished_run(2)
    assert set(cache.hashes()) == {"hash-page", "hash-inside"}  # age 2: kept
    for _ in range(3):
        cache.finished_run(2, fragment_ids=["f1"])  # fragment runs: the page's entry waits
    assert cache.hashes() == ["hash-page"]
    cache.finished_run(2)
    assert cache.hashes() == []


# -- runs --------------------------------------------------------------------------------------


def test_opening_sends_what_a_browser_sends_first():
    client, socket = connected(page_run("0.85"))
    state = client._client_state(page_name="metacognition")
    state.widget_states.SetInParent()
    run = asyncio.run(client._rerun(state))
    sent = socket.sent[0].rerun_script
    assert sent.page_name == "metacognition" and sent.page_script_hash == ""
    assert sent.query_string == "self_model_mode=on" and sent.HasField("widget_states")
    assert not sent.widget_states.widgets and not sent.cached_message_hashes
    assert sent.context_info.url == "http://127.0.0.1:1/metacognition"
    assert sent.context_info.timezone == "UTC" and sent.context_info.color_scheme == "light"
    assert run.status == ForwardMsg.FINISHED_SUCCESSFULLY and run.metric("Type-2 AUROC") == "0.85"
    assert client.session_id == "session-1" and client.on_page("metacognition")


def test_a_switch_sends_every_widgets_state_the_page_and_the_query_the_page_wrote():
    client, socket = connected(page_run("0.85"), page_run("0.50", selected="zeroed"))
    asyncio.run(client._rerun(client._client_state(page_name="metacognition")))
    client.widgets["other"] = Widget("other", "checkbox", Checkbox(id="other"))
    client.states["other"] = initial_state("checkbox", Checkbox(id="other", default=True))
    run = asyncio.run(client.set_widget(KEY, "zeroed"))
    sent = socket.sent[1].rerun_script
    assert sent.page_script_hash == "page" and sent.query_string == "self_model_mode=on"
    states = {w.id: w for w in sent.widget_states.widgets}
    assert list(states[MODE_ID].string_array_value.data) == ["zeroed"]
    assert states["other"].bool_value is True  # the untouched widget keeps its value
    assert run.metric("Type-2 AUROC") == "0.50" and client.query_string == "self_model_mode=zeroed"
    assert "other" not in client.states  # this full run did not draw it: forgotten


def test_a_run_ends_at_its_own_finish_not_at_an_interrupted_one_and_old_elements_go():
    early = [new_session(), element((0, 1), metric("Type-2 AUROC", "0.7"))]
    early.append(finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    late = [m for m in page_run("0.50", "zeroed") if m.WhichOneof("type") != "navigation"]
    client, _ = connected(early + late)
    client.elements[(0, 9)] = metric("Gone", "1")  # drawn by an earlier run only
    run = asyncio.run(client._rerun(client._client_state()))
    assert (
        run.status == ForwardMsg.FINISHED_SUCCESSFULLY and client.metric("Type-2 AUROC") == "0.50"
    )
    assert client.metric("Gone") is None


def test_a_widget_in_a_fragment_reruns_its_fragment_and_keeps_the_rest_of_the_page():
    inside = element((0, 0), group(), fragment="frag")
    page = [new_session(), navigation(), inside, element((0, 1), metric("Outside", "1"))]
    page.append(element((0, 2), metric("Held back", "1"), fragment="frag"))
    rerun = [new_session(fragments=("frag",)), element((0, 0), group("noise"), fragment="frag")]
    rerun.append(finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))
    client, socket = connected([*page, finished()], rerun)
    asyncio.run(client._rerun(client._client_state()))
    assert client.metric("Held back") == "1"
    run = asyncio.run(client.set_widget(KEY, "noise"))
    assert socket.sent[1].rerun_script.fragment_id == "frag"
    assert run.fragment_ids == ["frag"] and client.metric("Outside") == "1"
    assert client.metric("Held back") is None  # the fragment did not draw it again: gone


def test_a_server_that_never_finishes_is_a_time_out_and_an_exception_is_seen():
    client, _ = connected([new_session()])
    with pytest.raises(TimeoutError):
        asyncio.run(client._rerun(client._client_state()))
    error = Element()
    error.exception.message = "boom"
    client, _ = connected([new_session(), navigation(), element((0, 0), error), finished()])
    run = asyncio.run(client._rerun(client._client_state()))
    assert run.exceptions == ["boom"] and client.on_page("metacognition")
    client.page_script_hash = "home"
    assert not client.on_page("metacognition")


# -- a real server -----------------------------------------------------------------------------


def markdown(elements) -> list[str]:
    return [e.markdown.body for e in elements if e.WhichOneof("type") == "markdown"]


@pytest.mark.slow
def test_a_student_opens_metacognition_and_one_switch_changes_the_metric_a_browser_shows():
    async def student(url: str) -> None:
        client = StreamlitClient(url, timeout=180)
        try:
            run = await client.open(
                "metacognition", "agent=b2_ws&seed=0&self_model_mode=on&capacity=4"
            )
            assert not run.exceptions and client.on_page("metacognition")
            assert client.session_id and "zeroed" in client.widget(KEY).options
            intact = client.metric("Type-2 AUROC")
            assert intact is not None and float(intact) > 0.6  # B2 knows when it knows
            run = await client.set_widget(KEY, "zeroed")
            # the switch reruns only the control's fragment: the verdicts stay
            assert run.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
            assert run.fragment_ids and not run.exceptions
            assert not any("Verdict" in text for text in markdown(run.elements))
            assert any("Verdict" in text for text in markdown(client.elements.values()))
            # a zeroed self-model gives a constant confidence: chance, as the browser shows it
            assert run.metric("Type-2 AUROC") == client.metric("Type-2 AUROC") == "0.50"
            assert "self_model_mode=zero" in client.query_string  # the URL the page wrote
            assert 0 < run.seconds < 180 and run.bytes > 0
        finally:
            await client.close()

    with running_lab(timeout=180) as url:
        asyncio.run(student(url))


@pytest.mark.slow
def test_a_student_following_the_lesson_link_turns_predict_first_off_and_sees_the_number():
    """The lesson's noise step links to Robustness with ``predict=1``. Predict first sits in the
    noise control's fragment; switching it off reran only that fragment, which read the URL again
    as if the page had just opened and turned Predict first back on: no student of the class
    benchmark ever saw the number (150 of 150 failed). Now only a page's arrival reads its URL."""
    scenario = SCENARIOS["lesson"]

    async def student(url: str) -> None:
        client = StreamlitClient(url, timeout=180)
        try:
            await client.open(scenario.path, scenario.query_for(0))
            run = await client.follow_link(scenario.follow)
            assert client.on_page("robustness") and "predict=1" in client.query_string
            assert client.metric(scenario.metric) is None  # held back for the prediction
            for key, value in scenario.settings:  # Predict first off
                run = await client.set_widget(key, value)
            assert not run.exceptions
            shown = client.metric(scenario.metric)
            assert shown is not None and "predict" not in client.query_string
            run = await client.set_widget(scenario.control, scenario.values[0])
            assert not run.exceptions and client.metric(scenario.metric) not in (None, shown)
        finally:
            await client.close()

    with running_lab(timeout=180) as url:
        asyncio.run(student(url))
