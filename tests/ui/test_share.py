"""The address students use for links and QR codes (ui/share.py; teacher mode, issue 24, defect 10):
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
