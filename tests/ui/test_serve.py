"""A class on several server processes behind nginx (issue 24, ``make class``): sticky sessions,
websockets through the proxy, a page that works.

Starts two real lab servers and Debian's nginx. Skips (with the reason) where nginx or the browser
is missing; with ``CTLAB_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing one is a failure.
"""

from __future__ import annotations

import collections
import urllib.request

import pytest

from tests.ui.real_parts import require_real_parts
from ui.serve import CHROMIUM, CHROMIUM_ARGS, STICKY_COOKIE, nginx_config, running_class


@pytest.fixture(scope="module")
def lab_class():
    require_real_parts(nginx=True)
    with running_class(2, scratch_runs=True) as running:
        yield running


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
