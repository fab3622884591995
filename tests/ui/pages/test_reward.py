"""The "From reward alone" page in AppTest: it opens on the lab's composed
answer (at most 30 words), one headline plot, the findings the answer cites and the long form in an
expander, every other chart in a tab per study; names a visitor knows in charts; the lesion switch
works on both agents, outcomes and the answer come from the summaries, the URL is clamped, and the
live runs work (the wager run writes only to the session's own folder); the NeuroGym study, Song et
al. 2017 and the explorer."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from labcore import render
from labcore.config import TrainConfig
from labcore.experiments import pdw_sweep as W
from labcore.experiments import reward_answer as ra
from labcore.experiments import study as study_module
from labcore.figures.style import network_label
from labcore.findings import load_summary
from labcore.storage.checkpoints import BUNDLED_DIR, read_record
from tests.ui.apptest_pages import (
    ROOT,
    counting,
    exceptions,
    kind_of,
    markdown_text,
    metric_value,
    shown_metric,
    url,
)
from ui import data, data_reward, reward_neurogym

PAGE = "reward"


def bundled() -> dict:
    """The five bundled studies the page composes its answer from."""
    return ra.read_summaries(ROOT / "results")


TABS = (
    "Song et al. reproduced",
    "Which training choice matters",
    "Train a network yourself",
    "Our wagering task",
    "Our first NeuroGym training",
)
INTERNAL = re.compile(r"plain gru|b2 ws|\bb2_ws\b|\bplain_gru\b|protocol \d|sec\. \d")
"""Internal ids and protocol numbers a visitor should not meet outside the long form."""


def test_the_page_renders_the_comparison_the_answer_and_the_hypotheses(open_page):
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert not at.error, [e.value for e in at.error]  # the bundled set and agents are usable
    for arm in ("supervised", "reward only"):  # each arm's metric is shown
        assert shown_metric(at, f"Type-2 AUROC · {arm}") is not None
    text = markdown_text(at)
    summary = json.loads((data_reward.E4_RESULTS_DIR / "summary.json").read_text())
    for h in summary["tables"]["hypotheses"]:
        assert f"**{h['outcome']}**] **{h['id']}**" in text  # each outcome, as the set gives it
    assert ra.answer(bundled(), "long") in text  # the long form, in its expander
    # the URL describes the view: the default agent may be left out of a bare link (no extra
    # history entry)
    assert url(at).get("agent", "reward_wager") == "reward_wager"


def test_the_page_opens_on_the_answer_one_plot_the_findings_then_the_long_form(open_page):
    at = open_page(PAGE)
    assert not exceptions(at)
    found = bundled()
    short = ra.answer(found, "short")
    top = list(at.main.children.values())
    kinds = [kind_of(n) for n in top]
    tabs = kinds.index("tab_container")
    assert [k for k in kinds[:tabs] if k == "plotly_chart"] == ["plotly_chart"]  # one plot
    answer_at = next(i for i, n in enumerate(top) if getattr(n, "value", None) == f"**{short}**")
    chart_at, table_at = kinds.index("plotly_chart"), kinds.index("dataframe")
    long_at = next(
        i for i, n in enumerate(top) if str(getattr(n, "label", "")).startswith("The answer")
    )
    assert answer_at < chart_at < table_at < long_at < tabs
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert top[chart_at].proto.id.endswith("reward-headline")
    table = top[table_at].value
    cited = ra.cited(found)
    assert list(table["Question"]) == [f.question for f in cited]
    assert list(table["Ours"]) == [r["Ours"] for r in render.findings_table(cited, paper=False)]
    terms = " ".join(c.value for c in at.caption)
    for key in ("sure_option", "coherence", "ideal_observer", "s1", "s2", "type2_auroc"):
        assert render.term(key).plain in terms, key
    assert [t.label for t in at.tabs] == list(TABS)


def test_charts_and_the_first_view_use_names_a_visitor_knows(open_page):
    at = open_page(PAGE)
    assert not exceptions(at)
    top = list(at.main.children.values())
    before_table = [getattr(n, "type", None) for n in top].index("dataframe")
    first_view = " ".join(str(getattr(n, "value", "")) for n in top[:before_table])
    assert not INTERNAL.search(first_view), first_view
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        title = spec["layout"].get("title") or {}
        shown = [str((title.get("subtitle") or {}).get("text", ""))]
        shown += [str(t.get("name", "")) for t in spec["data"]]
        assert not INTERNAL.search(" ".join(shown)), (c.proto.id, shown)
    titles = [  # a chart's title is drawn as one bold line above it
        m.value
        for m in at.markdown
        if m.value.startswith("**") and m.value.endswith("**") and "\n" not in m.value
    ]
    assert titles and not [t for t in titles if INTERNAL.search(t)]


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
    construction = [s for s in at.success if s.proto.icon == ":material/construction:"]
    assert len(construction) == 2  # the by-construction note, on both agents
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
    late = next(f for f in summary["findings"] if f["id"] == "e4.auroc.reward_late.self_on")
    late["value"] = 0.987
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data_reward, "E4_RESULTS_DIR", copy)
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    text = markdown_text(at)
    row = next(line for line in text.splitlines() if "**H1**" in line)  # the table shows the file
    assert f"[**{flipped}**]" in row and h1["primary"] and "(primary)" in row
    assert render.fmt(0.987, "auroc") in text  # the answer quotes the edited value


def test_a_missing_result_set_is_one_error_and_the_live_lab_still_works(
    open_page, tmp_path, monkeypatch
):
    monkeypatch.setattr(data_reward, "E4_RESULTS_DIR", tmp_path / "nowhere")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "python -m labcore study e4" in at.error[0].value
    assert metric_value(at, "Type-2 AUROC · reward only") != "undefined"


def test_bad_url_values_are_clamped_with_a_notice(open_page):
    at = open_page(PAGE, {"agent": "b1", "seed": "99", "self_model_mode": "off"})
    assert not exceptions(at), exceptions(at)
    notices = " ".join(w.value for w in at.warning)
    for echoed in ("agent='b1'", "seed=99", "'off'"):  # each bad value is named back
        assert echoed in notices
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
    at = open_page(PAGE)
    button = next(b for b in at.button if b.label.startswith("Train reward_wager seed"))
    assert button.label.split()[-2] == "5"  # the first seed the bundled agents leave free
    reservations = list((tmp_path / "user").rglob("*.reserved"))
    assert not reservations, "a visit reserves no seed; the run's start does"
    button.click().run()
    assert [p.name for p in (tmp_path / "user").rglob("*.reserved")] == [
        "wagering-reward_wager-s5.reserved"
    ]
    assert not exceptions(at), exceptions(at)
    saved = list((tmp_path / "user").glob("*/wagering-reward_wager-s5.safetensors"))
    assert len(saved) == 1
    assert digest(BUNDLED_DIR) == shipped
    assert any(saved[0].name in s.value for s in at.success)  # it says what it saved, where
    assert any(
        b.label.startswith(button.label.rsplit(" ", 2)[0]) and b.label.split()[-2] == "6"
        for b in at.button
    )  # seed 5 is taken now
    record = read_record(saved[0].parent, "wagering-reward_wager-s5")
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
    assert (render.part(summary, "why") in text) == (summary.answer.outcome != "rises")
    assert render.answer(summary, "long") in text  # in the page's long form, labelled


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
    data.read_study.clear()
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "results/explore_neurogym" in at.error[0].value
    assert (
        metric_value(at, "Type-2 AUROC · reward only") != "undefined"
    )  # the rest of the page works


# --------------------------------------------------------------------------- Song et al. 2017 and
# the explorer
@pytest.fixture(scope="module")
def pdw_sets(tmp_path_factory, neurogym_installed):
    """Tiny reproduction and explorer sets (``--quick`` budgets: their numbers mean nothing)."""
    from labcore.experiments.study import get_study, run_study

    out = tmp_path_factory.mktemp("pdw_sets")
    for name in ("pdw", "pdw_sweep"):
        config = get_study(name).quick()
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


def outside_axes(spec: dict) -> list[tuple]:
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
                found.append((trace.get("name"), letter, bad[:3].tolist(), span))
    return found


def test_the_answer_leads_and_says_not_run_yet_without_the_sets(open_page, tmp_path, monkeypatch):
    monkeypatch.setattr(data_reward, "PDW_STUDY_DIR", tmp_path / "no_pdw")
    monkeypatch.setattr(data_reward, "PDW_SWEEP_STUDY_DIR", tmp_path / "no_sweep")
    monkeypatch.setattr(data_reward, "PDW_HELD_STUDY_DIR", tmp_path / "no_held")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert not at.error, [e.value for e in at.error]  # not run yet is information, not an error
    infos = " ".join(i.value for i in at.info)
    assert reward_neurogym.PDW_COMMAND in infos and reward_neurogym.SWEEP_COMMAND in infos
    found = {**bundled(), "pdw": None, "pdw_sweep": None, "pdw_held": None}
    text = markdown_text(at)
    assert f"**{ra.answer(found, 'short')}**" in text and ra.answer(found, "long") in text
    headline = [c for c in at.get("plotly_chart") if c.proto.id.endswith("reward-headline")]
    assert not headline  # no headline plot without the reproduction
    assert [t.label for t in at.tabs] == list(TABS)  # every study's tab, the old E4 content too


@pytest.mark.slow
def test_the_page_draws_the_studies_with_the_answer_from_them(open_page, with_pdw):
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert not at.error, [e.value for e in at.error]
    text = markdown_text(at)
    tiny = ra.read_summaries(with_pdw)  # two tiny sets beside the bundled follow-up, E4, 8.6
    found = {**bundled(), "pdw": tiny["pdw"], "pdw_sweep": tiny["pdw_sweep"]}
    assert f"**{ra.answer(found, 'short')}**" in text and ra.answer(found, "long") in text
    assert not ra.song_setting(found["pdw"])  # a --quick set, which its long form says
    assert render.fmt(found["pdw"].config["rl"]["max_updates"], "count") in text
    signatures = chart(at, "reward-headline")
    names = {t.get("name") for t in signatures["data"]}
    assert any(str(n).startswith(network_label("plain_gru")) for n in names)
    assert any(str(n).startswith(network_label("ideal_observer")) for n in names)
    assert any(
        t.get("visible") == "legendonly" for t in signatures["data"]
    )  # the ceiling, a click away
    for key in (
        "reward-headline",
        "reward-pdw-curve-gru",
        "reward-pdw-curve-b2",
        "reward-explorer-curve",
        "reward-explorer-s1",
        *[f"reward-held-O~{h}+long" for h in W.LONG_CHOICES],  # the bundled follow-up's
    ):
        assert not outside_axes(chart(at, key)), (key, outside_axes(chart(at, key)))


def test_the_axis_check_can_fail():
    spec = {
        "layout": {"yaxis": {"range": [0.4, 1.0]}},
        "data": [{"name": "a", "x": [1, 2], "y": [0.3, 0.9]}],
    }
    assert outside_axes(spec) == [("a", "y", [0.3], [0.4, 1.0])]


def test_the_explorer_picker_switches_cells_without_computing(open_page, with_pdw, monkeypatch):
    data.read_study.clear()
    reads = counting(monkeypatch, study_module, "load_study")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    first = len(reads)
    assert first == 4  # the reproduction, the explorer, its follow-up and 8.6's study, once each
    before = chart(at, "reward-explorer-curve")
    at.selectbox(key="reward.explorer_factor").set_value("entropy").run()
    assert not exceptions(at), exceptions(at)
    assert len(reads) == first  # a cached read: nothing loaded, nothing trained
    assert at.query_params["explorer_cell"] in (["S-entropy"], "S-entropy")
    sweep = ra.read_summaries(with_pdw)["pdw_sweep"]
    assert render.part(sweep, "cell", name="S-entropy") in markdown_text(at)
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
    sweep = ra.read_summaries(with_pdw)["pdw_sweep"]
    assert render.part(sweep, "cell", name="O+baseline") in markdown_text(at)
    at = open_page(PAGE, {"explorer_cell": "Q-nothing"})
    assert "explorer_cell='Q-nothing'" in " ".join(w.value for w in at.warning).replace("\\", "")
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
    assert len(at.success) >= 1  # the run's end, said once
    live = chart(at, "reward-sure-live")
    mine = [t for t in live["data"] if t.get("name") == "your run"]
    assert mine and len(_numbers(mine[0]["x"])) == len(run.history)
    _, reference, _ = data_reward.reference_curves(run.cfg)
    assert "S-entropy" in reference and any(t.get("name") == reference for t in live["data"])
    assert not outside_axes(live)
