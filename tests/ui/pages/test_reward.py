"""The "From reward alone" page (E4, issue 15) in AppTest: it renders and opens on a short answer
(issue 24, defect 5), the lesion switch works on both agents, verdicts and the answer come from the
result set, the URL is clamped, and the live training run writes only to the session's own folder;
the NeuroGym study (protocol 8.6), Song et al. 2017 and the explorer (issue 23)."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from labcore import render
from labcore.config import TrainConfig
from labcore.findings import load_summary
from labcore.storage.checkpoint_manifest import BUNDLED_DIR, MANIFEST
from tests.ui.apptest_pages import (
    ROOT,
    exceptions,
    first_index,
    in_order,
    markdown_text,
    metric_value,
    url,
)
from ui import data, data_reward

PAGE = "reward"


def test_the_page_renders_the_comparison_the_answer_and_the_hypotheses(open_page):
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert at.title[0].value == "From reward alone"
    assert not at.error, [e.value for e in at.error]  # the bundled set and agents are usable
    labels = {m.label for m in at.metric}
    assert {"Type-2 AUROC · supervised", "Type-2 AUROC · reward only"} <= labels
    text = markdown_text(at)
    summary = json.loads((data_reward.E4_RESULTS_DIR / "summary.json").read_text())
    for h in summary["tables"]["hypotheses"]:
        assert (
            f"**{h['outcome']}**] **{h['id']}**" in text
        )  # each verdict, as the result set gives it
    assert "2 P(correct) - 1" in text  # the ideal-observer argument of protocol 8.2
    # the URL describes the view: the default agent may be left out of a bare link (no extra history
    # entry)
    assert url(at).get("agent", "reward_wager") == "reward_wager"


def test_from_reward_alone_opens_on_a_short_answer_and_each_section_on_its_controls(open_page):
    # The answer box holds the verdict alone (the lead and the parts sit in an expander), so the
    # first plots and
    # controls are on the first screen; the E4 section still opens on its controls, its numbers
    # below.
    at = open_page("reward")
    assert not exceptions(at)
    box = first_index(at, "The answer, generated from the bundled studies")
    lead = in_order(at)[box + 1]
    assert len(lead.value.split()) <= 40, len(lead.value.split())
    assert any(e.label.startswith("The answer in full") for e in at.expander)
    assert (
        box
        < first_index(at, "Self-model (both agents)")
        < first_index(at, "Type-2 AUROC", "metric")
    )


def test_zeroing_the_self_model_sets_both_aurocs_to_chance_and_keeps_accuracy(open_page):
    at = open_page(PAGE, {"agent": "reward_wager", "seed": "0"})
    before = {
        who: (metric_value(at, f"Task accuracy · {who}"), metric_value(at, f"Type-2 AUROC · {who}"))
        for who in ("supervised", "reward only")
    }
    assert all(auroc != "0.50" for _, auroc in before.values())
    at.segmented_control(key="reward.self_model_mode").set_value("zero").run()
    assert not exceptions(at), exceptions(at)
    for who, (accuracy, _) in before.items():
        assert metric_value(at, f"Type-2 AUROC · {who}") == "0.50"
        assert metric_value(at, f"Task accuracy · {who}") == accuracy  # doing is kept
    assert sum("by construction" in s.value for s in at.success) == 2  # said on both agents
    assert at.query_params["self_model_mode"] in (["zero"], "zero")


def test_verdicts_and_the_answer_follow_a_modified_copy_of_the_summary(
    open_page, tmp_path, monkeypatch
):
    copy = tmp_path / "e4"
    shutil.copytree(data_reward.E4_RESULTS_DIR, copy, ignore=shutil.ignore_patterns("report.html"))
    summary = json.loads((copy / "summary.json").read_text())
    h1 = next(h for h in summary["tables"]["hypotheses"] if h["id"] == "H1")
    flipped = "supported" if h1["outcome"] != "supported" else "not supported"
    h1["outcome"] = flipped
    summary["tables"]["values"]["e4.auroc.reward_wager.self_on"] = 0.987
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data_reward, "E4_RESULTS_DIR", copy)
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    text = markdown_text(at)
    assert f"**{flipped}**] **H1** (primary)" in text
    assert "0.99" in text  # the answer quotes the edited value


def test_a_missing_result_set_is_one_error_and_the_live_lab_still_works(
    open_page, tmp_path, monkeypatch
):
    monkeypatch.setattr(data_reward, "E4_RESULTS_DIR", tmp_path / "nowhere")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "study e4" in at.error[0].value
    assert metric_value(at, "Type-2 AUROC · reward only") != "undefined"


def test_bad_url_values_are_clamped_with_a_notice(open_page):
    at = open_page(PAGE, {"agent": "b1", "seed": "99", "self_model_mode": "off"})
    assert not exceptions(at), exceptions(at)
    notices = " ".join(w.value for w in at.warning)
    assert "agent='b1' is not one of" in notices and "'off' is not one of" in notices
    assert "seed=99 is not available" in notices
    assert at.selectbox(key="reward.agent").value == "reward_wager"


def digest(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def test_the_live_training_run_writes_only_to_the_session_folder(open_page, tmp_path, monkeypatch):
    tiny = TrainConfig(
        max_updates=4,
        min_updates=4,
        eval_every=2,
        heldout_episodes=32,
        train_episodes=64,
        batch_episodes=8,
    )
    monkeypatch.setattr(
        data_reward, "LIVE_TRAIN", tiny
    )  # a tiny budget: the real trainer, four updates
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user")
    shipped = digest(BUNDLED_DIR)
    manifest = (BUNDLED_DIR / MANIFEST).read_bytes()
    at = open_page(PAGE)
    button = next(b for b in at.button if b.label.startswith("Train reward_wager seed"))
    assert button.label == "Train reward_wager seed 5 live"
    button.click().run()
    assert not exceptions(at), exceptions(at)
    saved = list((tmp_path / "user").glob("*/wagering-reward_wager-s5.safetensors"))
    assert len(saved) == 1 and (saved[0].parent / MANIFEST).exists()
    assert digest(BUNDLED_DIR) == shipped and (BUNDLED_DIR / MANIFEST).read_bytes() == manifest
    assert any("for this session only" in s.value for s in at.success)
    assert any(
        b.label == "Train reward_wager seed 6 live" for b in at.button
    )  # seed 5 is taken now
    record = json.loads(saved[0].with_suffix(".json").read_text())
    assert [h["update"] for h in record["history"]] == [2, 4] and "heldout_auroc" in record[
        "history"
    ][0]


# --------------------------------------------------------------------------- the NeuroGym study
# (protocol 8.6)
def neurogym_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "explore_neurogym"
    shutil.copytree(
        data_reward.NEUROGYM_STUDY_DIR, copy, ignore=shutil.ignore_patterns("checkpoints")
    )
    return copy


def test_the_neurogym_study_is_shown_with_its_answer_and_figures(open_page):
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    text = markdown_text(at)
    summary = load_summary(data_reward.NEUROGYM_STUDY_DIR, study="neurogym").summary
    assert render.answer(summary, "short") in text  # rendered from the study's findings
    ideal = summary.value("neurogym.ideal_sure_gap")
    assert render.fmt(ideal, "difference", sign=True) in text
    assert ("**Why, as far as we found" in text) == (summary.answer.outcome != "rises")
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (
        " ".join(render.answer(summary, "long").split()) in readme
    )  # the README states the bundled answer


def test_the_neurogym_numbers_follow_the_study_and_a_damaged_study_is_one_error(
    open_page, tmp_path, monkeypatch
):
    copy = neurogym_copy(tmp_path)
    summary = json.loads((copy / "summary.json").read_text())
    found = next(f for f in summary["findings"] if f["id"] == "neurogym.reward_reward")
    found["value"] = 0.4321
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data_reward, "NEUROGYM_STUDY_DIR", copy)
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert "0.432" in markdown_text(at) and not at.error
    found["value"] = "high"
    (copy / "summary.json").write_text(json.dumps(summary))
    data_reward._reward_study.clear()
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "NeuroGym study cannot be shown" in at.error[0].value
    assert (
        metric_value(at, "Type-2 AUROC · reward only") != "undefined"
    )  # the rest of the page works


# --------------------------------------------------------------------------- Song et al. 2017 and
# the explorer (issue 23)
@pytest.fixture(scope="module")
def pdw_sets(tmp_path_factory, neurogym_installed):
    """Tiny reproduction and explorer sets (``--quick`` budgets: their numbers mean nothing)."""
    from labcore.experiments.study import get_study, run_study

    out = tmp_path_factory.mktemp("pdw_sets")
    for name in ("pdw", "pdw_sweep"):
        config = get_study(name).config.quick()
        run_study(name, out / name, config, progress=False, say=lambda _: None)
    return out


@pytest.fixture
def with_pdw(pdw_sets, monkeypatch):
    monkeypatch.setattr(data_reward, "PDW_STUDY_DIR", pdw_sets / "pdw")
    monkeypatch.setattr(data_reward, "PDW_SWEEP_STUDY_DIR", pdw_sets / "pdw_sweep")
    return pdw_sets


def chart(at, key: str) -> dict:
    """The plotly JSON of the chart with ``key``."""
    return json.loads(
        next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key)).proto.spec
    )


def _numbers(values) -> np.ndarray:
    if isinstance(values, dict) and "bdata" in values:  # plotly's typed arrays
        return np.frombuffer(
            base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"])
        ).astype(float)
    out = []
    for v in values if isinstance(values, list) else []:
        if isinstance(v, int | float) and not isinstance(v, bool):
            out.append(float(v))
    return np.asarray(out, float)


def outside_axes(spec: dict) -> list[str]:
    """Values of every trace that lie outside a fixed range of its axes (category axes skipped)."""
    layout, found = spec["layout"], []
    for trace in spec["data"]:
        for letter in ("x", "y"):
            ref = trace.get(f"{letter}axis", letter)
            axis = layout.get(f"{letter}axis{ref[1:]}", {})
            span = axis.get("range")
            if not span or axis.get("type") == "category" or letter not in trace:
                continue
            values = _numbers(trace[letter])
            values = values[np.isfinite(values)]
            bad = values[(values < min(span)) | (values > max(span))]
            if bad.size:
                found.append(f"{trace.get('name')}: {letter} {bad[:3]} outside {span}")
    return found


def test_the_answer_leads_and_says_not_run_yet_without_the_sets(open_page, tmp_path, monkeypatch):
    monkeypatch.setattr(data_reward, "PDW_STUDY_DIR", tmp_path / "no_pdw")
    monkeypatch.setattr(data_reward, "PDW_SWEEP_STUDY_DIR", tmp_path / "no_sweep")
    monkeypatch.setattr(data_reward, "PDW_HELD_STUDY_DIR", tmp_path / "no_held")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert not at.error, [e.value for e in at.error]  # not run yet is information, not an error
    infos = " ".join(i.value for i in at.info)
    assert "study pdw --jobs 2" in infos and "study pdw_sweep --jobs 2" in infos
    text = markdown_text(at)
    assert "**Not settled yet.**" in text and "Song, Yang & Wang (2017" in text
    assert "Not run yet: `python -m labcore study pdw_held --jobs 2`" in text
    assert (
        "**Older cell: NeuroGym's task, default initialisation, 1,500 updates" in text
    )  # 8.6, labelled
    assert any(s.value.startswith("Older cell: NeuroGym") for s in at.subheader)
    assert any(
        h.value == "On our wagering task: E4" for h in at.header
    )  # the old E4 content, reachable


@pytest.mark.slow
def test_the_page_draws_the_studies_with_the_answer_from_them(open_page, with_pdw):
    from labcore.experiments.reward_answer import compose, read_summaries

    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert not at.error, [e.value for e in at.error]
    text = markdown_text(at)
    found = read_summaries(ROOT / "results")
    tiny = read_summaries(
        with_pdw
    )  # the two tiny sets beside the bundled follow-up, E4 and 8.6 studies
    found.update({"pdw": tiny["pdw"], "pdw_sweep": tiny["pdw_sweep"]})
    found["e4"] = json.loads((data_reward.E4_RESULTS_DIR / "summary.json").read_text())
    found["neurogym"] = load_summary(data_reward.NEUROGYM_STUDY_DIR, study="neurogym").summary
    answer = compose(found)
    assert answer.lead in text and all(p.text in text for p in answer.parts)
    assert "This set is not the registered study" in text  # a --quick set says so
    signatures = chart(at, "reward-pdw-signatures")
    names = {t.get("name") for t in signatures["data"]}
    assert any("plain GRU" in str(n) for n in names) and any(
        "ideal observer" in str(n) for n in names
    )
    assert any(
        t.get("visible") == "legendonly" for t in signatures["data"]
    )  # the ceiling, a click away
    for key in (
        "reward-pdw-signatures",
        "reward-pdw-curve-gru",
        "reward-pdw-curve-b2",
        "reward-explorer-curve",
        "reward-explorer-s1",
    ):
        assert not outside_axes(chart(at, key)), (key, outside_axes(chart(at, key)))


def test_the_axis_check_can_fail():
    spec = {
        "layout": {"yaxis": {"range": [0.4, 1.0]}},
        "data": [{"name": "a", "x": [1, 2], "y": [0.3, 0.9]}],
    }
    assert outside_axes(spec) == ["a: y [0.3] outside [0.4, 1.0]"]


def test_the_explorer_picker_switches_cells_without_computing(open_page, with_pdw, monkeypatch):
    read = data_reward.read_study
    reads = []
    monkeypatch.setattr(data_reward, "read_study", lambda *a: reads.append(a) or read(*a))
    data_reward._reward_study.clear()
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    first = len(reads)
    assert first == 4  # the reproduction, the explorer, its follow-up and 8.6's study, once each
    before = chart(at, "reward-explorer-curve")
    at.selectbox(key="reward.explorer_factor").set_value("entropy").run()
    assert not exceptions(at), exceptions(at)
    assert len(reads) == first  # a cached read: nothing loaded, nothing trained
    assert at.query_params["explorer_cell"] in (["S-entropy"], "S-entropy")
    assert "Cell `S-entropy`" in markdown_text(
        at
    ) and "**Cell S-entropy: the sure option over training**" in markdown_text(at)
    assert chart(at, "reward-explorer-curve")["data"] != before["data"]  # that cell's curves
    at.segmented_control(key="reward.explorer_side").set_value("O").run()
    assert at.query_params["explorer_cell"] in (["O+entropy"], "O+entropy")
    assert len(reads) == first


def test_an_explorer_link_opens_its_cell_and_a_bad_one_is_clamped(open_page, with_pdw):
    at = open_page(PAGE, {"explorer_cell": "O+baseline", "pdw_policy": "greedy"})
    assert not exceptions(at), exceptions(at)
    assert at.segmented_control(key="reward.explorer_side").value == "O"
    assert at.selectbox(key="reward.explorer_factor").value == "baseline"
    assert at.segmented_control(key="reward.pdw_policy").value == "greedy"
    assert "Cell `O+baseline`" in markdown_text(at)
    at = open_page(PAGE, {"explorer_cell": "Q-nothing"})
    assert "explorer_cell='Q-nothing' is not one of" in " ".join(
        w.value for w in at.warning
    ).replace("\\", "")
    assert at.query_params["explorer_cell"] in (["S"], "S")


def test_the_live_run_trains_in_the_background_and_draws_its_curve(
    open_page, with_pdw, monkeypatch
):
    from labcore.budgets import LiveBudgets

    tiny = LiveBudgets(
        sure_option_updates=4,
        sure_option_check_every=2,
        sure_option_heldout_trials=40,
        sure_option_train_pool=300,
    )
    monkeypatch.setattr(data_reward, "LIVE_SURE_OPTION", tiny)  # the real trainer, four updates
    at = open_page(PAGE)
    at.select_slider(key="reward.sure_entropy").set_value(0.003)
    at.radio(key="reward.sure_readout").set_value(
        "zero"
    )  # S with entropy at the old level: explorer cell S-entropy
    next(b for b in at.button if b.label == "Train and watch").click().run()
    assert not exceptions(at), exceptions(at)
    for _ in range(120):  # the thread finishes in about a second; each run redraws the fragment
        run = at.session_state["reward.sure_run"]
        if not run.running:
            break
        time.sleep(0.5)
        at.run()
    at.run()
    assert not exceptions(at), exceptions(at)
    assert not run.running and run.error is None, run.error
    assert (
        run.cfg.entropy_coef == 0.003
        and run.cfg.readout_init == "zero"
        and run.cfg.max_updates == 4
    )
    assert [h["update"] for h in run.history] == [2, 4][: len(run.history)] and run.history
    assert any(s.value.startswith("Done in") for s in at.success)
    live = chart(at, "reward-sure-live")
    mine = [t for t in live["data"] if t.get("name") == "your run"]
    assert mine and len(_numbers(mine[0]["x"])) == len(run.history)
    assert any(
        t.get("name", "").startswith("the explorer's cell S-entropy") for t in live["data"]
    )  # its bundled cell
    assert not outside_axes(live)
