"""What a classroom walk through every page found (issue 24, defects 3-9), each pinned by a test."""

from __future__ import annotations

import pytest

from tests.ui.apptest_pages import exceptions, first_index, open_page

# ------------------------------------------------------------------ defect 3: controls first


@pytest.mark.parametrize(("page", "params", "control", "result", "prose"), [
    ("robustness", {"agent": "b1", "seed": "0"}, "Noise sigma", "Report accuracy with this noise",
     "Verdict: does the paper's robustness hierarchy hold here?"),
    ("metacognition", None, "Workspace slots", "Type-2 AUROC", "Verdict: does the paper's blindsight"),
    ("workspace", None, "Workspace slots", "Conjunction accuracy", "Verdict: does the paper's capacity result"),
])
def test_a_page_opens_on_its_controls_and_result_with_the_verdict_prose_below(page, params, control, result, prose):
    at = open_page(page, params)
    assert not exceptions(at)
    assert first_index(at, control) < first_index(at, result, "metric") < first_index(at, prose)
