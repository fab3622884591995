"""The "From reward alone" page (E4, issue 15) in AppTest: it renders, the lesion switch works on both
agents, verdicts and the answer come from the result set, the URL is clamped, and the live training
run writes only to the session's own folder."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from labcore.checkpoints import BUNDLED_DIR, MANIFEST
from labcore.config import TrainConfig
from tests.ui.apptest_pages import ROOT, exceptions, markdown_text, metric_value, open_page, url
from ui import data

PAGE = "reward"


def test_the_page_renders_the_comparison_the_answer_and_the_hypotheses():
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert at.title[0].value == "From reward alone"
    assert not at.error, [e.value for e in at.error]  # the bundled set and agents are usable
    labels = {m.label for m in at.metric}
    assert {"Type-2 AUROC · supervised", "Type-2 AUROC · reward only"} <= labels
    text = markdown_text(at)
    summary = json.loads((data.E4_RESULTS_DIR / "summary.json").read_text())
    for h in summary["hypotheses"]:
        assert f"**{h['outcome']}**] **{h['id']}**" in text  # each verdict, as the result set gives it
    assert "2 P(correct) - 1" in text  # the ideal-observer argument of protocol 8.2
    # the URL describes the view: the default agent may be left out of a bare link (no extra history entry)
    assert url(at).get("agent", "reward_wager") == "reward_wager"


def test_zeroing_the_self_model_sets_both_aurocs_to_chance_and_keeps_accuracy():
    at = open_page(PAGE, {"agent": "reward_wager", "seed": "0"})
    before = {who: (metric_value(at, f"Task accuracy · {who}"), metric_value(at, f"Type-2 AUROC · {who}"))
              for who in ("supervised", "reward only")}
    assert all(auroc != "0.50" for _, auroc in before.values())
    at.segmented_control(key="reward.self_model_mode").set_value("zero").run()
    assert not exceptions(at), exceptions(at)
    for who, (accuracy, _) in before.items():
        assert metric_value(at, f"Type-2 AUROC · {who}") == "0.50"
        assert metric_value(at, f"Task accuracy · {who}") == accuracy  # doing is kept
    assert sum("by construction" in s.value for s in at.success) == 2  # said on both agents
    assert at.query_params["self_model_mode"] in (["zero"], "zero")


def test_verdicts_and_the_answer_follow_a_modified_copy_of_the_summary(tmp_path, monkeypatch):
    copy = tmp_path / "e4"
    shutil.copytree(data.E4_RESULTS_DIR, copy, ignore=shutil.ignore_patterns("report.html"))
    summary = json.loads((copy / "summary.json").read_text())
    h1 = next(h for h in summary["hypotheses"] if h["id"] == "H1")
    flipped = "supported" if h1["outcome"] != "supported" else "not supported"
    h1["outcome"] = flipped
    summary["values"]["e4.auroc.reward_wager.self_on"] = 0.987
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data, "E4_RESULTS_DIR", copy)
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    text = markdown_text(at)
    assert f"**{flipped}**] **H1** (primary)" in text
    assert "0.99" in text  # the answer quotes the edited value


def test_a_missing_result_set_is_one_error_and_the_live_lab_still_works(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "E4_RESULTS_DIR", tmp_path / "nowhere")
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "reproduce --experiment e4" in at.error[0].value
    assert metric_value(at, "Type-2 AUROC · reward only") != "undefined"


def test_bad_url_values_are_clamped_with_a_notice():
    at = open_page(PAGE, {"agent": "b1", "seed": "99", "self_model_mode": "off"})
    assert not exceptions(at), exceptions(at)
    notices = " ".join(w.value for w in at.warning)
    assert "agent='b1' is not one of" in notices and "'off' is not one of" in notices
    assert "seed=99 is not available" in notices
    assert at.selectbox(key="reward.agent").value == "reward_wager"


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_the_live_training_run_writes_only_to_the_session_folder(tmp_path, monkeypatch):
    tiny = TrainConfig(max_updates=4, min_updates=4, eval_every=2, heldout_episodes=32, train_episodes=64,
                       batch_episodes=8)
    monkeypatch.setattr(data, "LIVE_TRAIN", tiny)  # a tiny budget: the real trainer, four updates
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
    assert any(b.label == "Train reward_wager seed 6 live" for b in at.button)  # seed 5 is taken now
    record = json.loads(saved[0].with_suffix(".json").read_text())
    assert [h["update"] for h in record["history"]] == [2, 4] and "heldout_auroc" in record["history"][0]


# --------------------------------------------------------------------------- the NeuroGym study (protocol 8.6)
def neurogym_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "explore_neurogym"
    shutil.copytree(data.NEUROGYM_STUDY_DIR, copy, ignore=shutil.ignore_patterns("checkpoints"))
    return copy


def test_the_neurogym_study_is_shown_with_its_answer_and_figures():
    from labcore.experiments.explore_neurogym import answer_paragraph

    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    text = markdown_text(at)
    summary = json.loads((data.NEUROGYM_STUDY_DIR / "summary.json").read_text())
    assert summary["answer"] in text
    reward = summary["reading"]["reward"]
    assert f"{reward['mean']:+.3f}" in text
    assert ("**Why, as far as we found" in text) == (reward["rises"] is False)
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert " ".join(answer_paragraph(summary).split()) in readme  # the README states the bundled answer


def test_the_neurogym_numbers_follow_the_study_and_a_damaged_study_is_one_error(tmp_path, monkeypatch):
    copy = neurogym_copy(tmp_path)
    summary = json.loads((copy / "summary.json").read_text())
    summary["means"]["reward_reward"]["mean"] = 0.4321
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data, "NEUROGYM_STUDY_DIR", copy)
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert "0.432" in markdown_text(at) and not at.error
    del summary["reading"]
    (copy / "summary.json").write_text(json.dumps(summary))
    data._neurogym.clear()
    at = open_page(PAGE)
    assert not exceptions(at), exceptions(at)
    assert len(at.error) == 1 and "NeuroGym study cannot be shown" in at.error[0].value
    assert metric_value(at, "Type-2 AUROC · reward only") != "undefined"  # the rest of the page works
