"""The address students use for links and QR codes (ui/share.py; teacher mode):
a loopback address is never handed to a class. The pages that show the configured address:
``pages/test_lesson.py``, ``pages/test_mystery.py``."""

from __future__ import annotations

import pytest

from ui import share


@pytest.mark.parametrize(
    ("url", "lan", "expected"),
    [
        ("http://127.0.0.1:8501/lesson?step=2", "10.1.2.3", ("http://10.1.2.3:8501", True)),
        ("http://[::1]:8501/mystery", "10.1.2.3", ("http://10.1.2.3:8501", True)),
        ("http://127.0.0.1:8501/mystery", None, ("http://127.0.0.1:8501", False)),
        ("http://lab.school:8080/ctlab/lesson", None, ("http://lab.school:8080/ctlab", True)),
    ],
)
def test_a_loopback_address_is_never_handed_to_students(url, lan, expected):
    assert share.base_url(url, lan=lan) == expected


@pytest.mark.parametrize(
    ("listen", "configured", "reachable"),
    [
        ("127.0.0.1", None, False),  # a LAN link to a loopback-only server
        ("localhost", None, False),
        ("0.0.0.0", None, True),
        (None, None, True),
        ("127.0.0.1", "http://lab.school", True),  # a configured address (a proxy) is trusted
    ],
)
def test_a_link_to_an_address_the_server_does_not_listen_on_is_named_unreachable(
    listen, configured, reachable
):
    address, ok = share.base_url(
        "http://127.0.0.1:8501/lesson", lan="10.1.2.3", listen=listen, configured=configured
    )
    assert ok is reachable and address in ("http://10.1.2.3:8501", "http://lab.school")


def test_the_note_says_why_the_link_cannot_be_reached(monkeypatch):
    monkeypatch.setenv(share.LISTEN_ENV, "127.0.0.1")
    assert "127.0.0.1" in share.unreachable_note()
    monkeypatch.setenv(share.LISTEN_ENV, "0.0.0.0")
    assert "127.0.0.1" not in share.unreachable_note()
    assert share.listening_on() == "0.0.0.0"
