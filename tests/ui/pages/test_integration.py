"""The Integration page in AppTest: it opens without exceptions, shows every known answer
met, measures a lesioned agent beside the intact one, and opens on the study's short answer, its
table and its findings when the study exists (what to run otherwise)."""

from __future__ import annotations

from labcore import render
from labcore.experiments import integration as X
from labcore.experiments.study import resummarise, write_table
from labcore.figures.integration import signal_name
from tests.ui.apptest_pages import exceptions, markdown_text, url
from ui import data

PAGE = "integration"


def test_the_page_opens_with_known_answers_and_live_measures(open_page, tmp_path, monkeypatch):
    monkeypatch.setattr(data, "INTEGRATION_STUDY_DIR", tmp_path / "none")
    at = open_page(PAGE, {"agent": "b1", "seed": "0"})
    assert not exceptions(at), exceptions(at)
    assert at.title[0].value.split()[0] == "Integration"
    assert any("python -m labcore study integration" in i.value for i in at.info)  # how to run it
    checks = at.dataframe[0].value
    assert len(checks) == 7 and checks["check"].str.startswith("✓").all()
    live = at.dataframe[1].value
    names = {signal_name("h"), signal_name("slots")}  # names, not the study's codes
    assert set(live["signal"]) == names and set(live["variant"]) == {"intact", "evoked"}
    text = markdown_text(at)
    assert all(symbol in text for symbol in ("Φ_E", "Ω", "TSE"))  # each measure, explained
    # bus-off: the workspace has nothing in it, so its measures are undefined with the reason
    at.select_slider(key="integration.capacity").set_value(0).run()
    assert not exceptions(at), exceptions(at)
    lesioned = at.dataframe[1].value
    slots = lesioned[lesioned["signal"] == "slots"]
    assert (
        slots["value (bits)"].isna().all()
        and slots["not defined because"].str.contains("activity").all()
    )
    assert at.query_params["capacity"] in (["0"], "0")


def test_the_page_opens_on_the_studys_answer_and_findings(open_page, tmp_path, monkeypatch):
    rows = [
        {
            "kind": k,
            "seed": s,
            "training": t,
            "condition": "intact",
            "signal": "h",
            "variant": "intact",
            "group": "all",
            "measure": "phi",
            "ridge": 1e-3,
            "value": float(i + s / 10 - (t == "untrained")),
        }
        for i, k in enumerate(X.KINDS)
        for s in range(3)
        for t in ("trained", "untrained")
    ]
    write_table(tmp_path / X.ROWS.file, X.ROWS, rows)
    config = X.IntegrationStudyConfig(seeds=(0, 1, 2), ridges=(1e-3,))
    summary = resummarise("integration", tmp_path, config)
    monkeypatch.setattr(data, "INTEGRATION_STUDY_DIR", tmp_path)
    at = open_page(PAGE, {"agent": "a1", "seed": "0"})
    assert not exceptions(at), exceptions(at)
    assert not at.info
    short = render.answer(summary, "short")
    assert at.markdown[0].value == f"**{short}**"  # the first thing under the title
    assert render.words(short) <= render.WORD_LIMITS["short"]
    # the glossary's words where the terms first appear
    assert any(render.term("phi_e").plain in c.value for c in at.caption)
    findings = at.dataframe[0].value
    assert list(findings["Question"]) == [
        summary.by_id[i].question for i in summary.answer.findings
    ]
    every = at.dataframe[1].value
    assert len(every) == len(summary.tables["tests"])
    assert render.answer(summary, "long") in markdown_text(at)  # the long form, in its expander
    at.selectbox(key="integration.signal").set_value("z_self").run()
    assert not exceptions(at), exceptions(at)
    at.radio(key="integration.variant").set_value("evoked").run()
    assert url(at)["signal"] == "z_self" and url(at)["variant"] == "evoked"  # a shareable view
    shared = open_page(PAGE, {"agent": "a1", "seed": "0", "signal": "z_self", "variant": "evoked"})
    assert shared.selectbox(key="integration.signal").value == "z_self"
    assert shared.radio(key="integration.variant").value == "evoked"
    clamped = open_page(PAGE, {"agent": "a1", "signal": "soul", "variant": "x" * 500})
    assert not exceptions(clamped), exceptions(clamped)
    assert clamped.selectbox(key="integration.signal").value == "h"
    assert clamped.radio(key="integration.variant").value == "intact"
    assert len(clamped.warning) == 2  # one notice per clamped value
