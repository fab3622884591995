"""A class on several server processes behind nginx (``make class``): sticky sessions,
websockets through the proxy, a page that works.

Starts two real lab servers and Debian's nginx. Skips (with the reason) where nginx or the browser
is missing; with ``CTLAB_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing one is a failure.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tomllib
import urllib.request

import pytest

from tests.ui.real_parts import require_real_parts
from ui.serve import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    STICKY_COOKIE,
    default_servers,
    main,
    nginx_config,
    running_class,
    server_command,
)


@pytest.fixture(scope="module")
def lab_class():
    require_real_parts(nginx=True)
    with running_class(2, scratch_runs=True) as running:
        yield running


def test_the_lab_serves_without_the_file_watcher_wherever_it_is_started():
    """One place says so (.streamlit/config.toml), and neither launcher overrides it."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["runOnSave"] is False
    command = server_command(8599)  # make class's and the tests' servers
    assert command[3:5] == ["run", str(ROOT / "app.py")]  # Streamlit reads the config beside app.py
    assert not any("fileWatcherType" in part or "runOnSave" in part for part in command)
    make_run = re.search(r"^run:.*\n\t(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert make_run.endswith("-m streamlit run app.py")  # from the repository's root: same config


def test_the_config_keeps_a_switch_cheap_and_sends_no_references_to_cached_messages():
    """No full garbage collection after every run (four fifths of a switch's CPU), and
    no message is ever cacheable, as Streamlit itself resolves the config: a reference to a cached
    message, queued by a superseded fragment run, outlives the clearing of that run's messages and
    made the browser's page fail under load (the rapid-clicks browser test)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
    probe = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "from streamlit.proto.ForwardMsg_pb2 import ForwardMsg; "
        "from streamlit.runtime.forward_msg_cache import populate_hash_if_needed; "
        "m = ForwardMsg(); m.delta.new_element.markdown.body = 'x' * 5_000_000; "
        "populate_hash_if_needed(m); print(m.metadata.cacheable)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}  # the files only
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False"]  # a 5 MB element (Streamlit's default: 10 kB is enough)


def test_streamlit_resolves_the_watcher_off_from_the_config_a_flag_turns_it_back_on():
    """What Streamlit itself makes of the config (its own resolution, no server started)."""
    probe = (
        "import sys; from streamlit import config; "
        "config.get_config_options(force_reparse=True, options_from_flags=dict(a.split('=') "
        "for a in sys.argv[1:])); print(config.get_option('server.fileWatcherType'))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}  # the files only

    def resolved(*flags: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe, *flags],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip().splitlines()[-1]

    assert resolved() == "none"
    assert resolved("server.fileWatcherType=auto") == "auto"  # the README's hot-reload command


def test_make_class_starts_one_server_per_core_by_default(monkeypatch):
    """Both cores of the reference machine, no more (ui.serve.default_servers)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert default_servers() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    assert default_servers() == 1  # one core: one server (behind nginx, still sticky)
    started = {}

    class Stop(Exception):
        pass

    def fake_running_class(servers, port, listen):
        started.update(servers=servers, port=port)
        raise Stop

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr("ui.serve.ensure_nginx", lambda: "/usr/sbin/nginx")
    monkeypatch.setattr("ui.serve.running_class", fake_running_class)
    with pytest.raises(Stop):
        main(["class"])
    assert started == {"servers": 2, "port": 8501}
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^SERVERS \?=\s*$", makefile, re.M)  # make class passes no count of its own


def test_the_proxy_config_is_sticky_and_passes_websockets(tmp_path):
    conf = nginx_config([8601, 8602], "0.0.0.0:8501", tmp_path)
    assert "hash $lab_key consistent" in conf and f"$cookie_{STICKY_COOKIE}" in conf
    assert (
        "proxy_set_header Upgrade $http_upgrade" in conf
        and "proxy_set_header Connection $connection_upgrade" in conf
    )
    assert (
        "server 127.0.0.1:8601" in conf
        and "server 127.0.0.1:8602" in conf
        and "listen 0.0.0.0:8501" in conf
    )
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    body = int(re.search(r"client_max_body_size (\d+)m;", conf).group(1))
    assert body > config["server"]["maxUploadSize"]  # an upload the servers take passes the proxy


@pytest.mark.slow
@pytest.mark.browser
def test_a_class_behind_nginx_is_spread_over_the_servers_and_each_browser_stays_on_one(lab_class):
    url, ports = lab_class.url, lab_class.ports
    servers = {f"127.0.0.1:{p}" for p in ports}
    first_visits = collections.Counter()
    for _ in range(16):  # new browsers (no cookie) are spread over the servers
        with urllib.request.urlopen(url + "/") as r:
            assert r.status == 200 and b"<html" in r.read(2000).lower()
            first_visits[r.headers["X-Lab-Server"]] += 1
    assert set(first_visits) == servers, first_visits

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        answered_by = set()
        page.on("response", lambda r: answered_by.add(r.headers.get("x-lab-server")))
        page.goto(f"{url}/metacognition?agent=b2_ws&seed=0&self_model_mode=on")
        metric = page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first
        metric.wait_for(timeout=120_000)
        page.get_by_role("radiogroup", name="Self-model").get_by_role(
            "radio", name="zeroed", exact=True
        ).click()
        page.wait_for_function(  # a rerun over the websocket, through the proxy
            """() => [...document.querySelectorAll('[data-testid="stMetric"]')]
                 .some(m => m.innerText.includes('Type-2 AUROC')
                   && m.innerText.includes('0.50'))""",
            timeout=60_000,
        )
        assert page.locator('[data-testid="stException"]').count() == 0
        assert len(answered_by - {None}) == 1 and answered_by - {None} <= servers, (
            answered_by
        )  # sticky
        browser.close()
