"""Pages on broken checkpoints: no exception, one error naming the file, the other agents still shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from labcore.config import AGENT_KINDS
from labcore.storage.checkpoints import load_checkpoint, save_checkpoint
from tests.ui.apptest_pages import ROOT, metric_value, open_page
from ui import data

BUNDLED = ROOT / "checkpoints"
BROKEN = "dual-b1-s0"


def flip_byte(d: Path, name: str = BROKEN) -> None:
    """One flipped bit in the tensor data: the file parses, its content hash no longer matches."""
    f = d / f"{name}.safetensors"
    blob = bytearray(f.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    f.write_bytes(bytes(blob))


def drop_kind(d: Path) -> None:
    manifest = json.loads((d / "manifest.json").read_text())
    del manifest["checkpoints"][BROKEN]["kind"]
    (d / "manifest.json").write_text(json.dumps(manifest))


def truncate_manifest(d: Path) -> None:
    text = (d / "manifest.json").read_text()
    (d / "manifest.json").write_text(text[: len(text) // 2])


def list_manifest(d: Path) -> None:
    (d / "manifest.json").write_text("[1, 2, 3]")


@pytest.fixture
def lab(tmp_path, monkeypatch) -> Path:
    """A copy of the bundled checkpoints the pages read instead (the tracked folder is never touched)."""
    copy = tmp_path / "checkpoints"
    shutil.copytree(BUNDLED, copy)
    monkeypatch.setattr(data, "CHECKPOINTS_DIR", copy)
    monkeypatch.setattr(data, "ROOT", tmp_path)  # so the copy reads as the shipped `checkpoints/`
    return copy


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def assert_one_error_naming(at: AppTest, *names: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    naming = [e for e in errors(at) if all(n in e for n in names)]
    assert len(naming) == 1, errors(at)
    assert "restore" in naming[0] and "`git checkout checkpoints/" in naming[0]  # and says what to do
    assert "Traceback" not in " ".join(errors(at))
    assert at.title  # the page itself is still there


def agent_options(at: AppTest, page: str) -> set[str]:
    """The agent kinds the page's agent selector offers."""
    shown = at.selectbox(key=f"{page}.agent").options
    return {k for k in AGENT_KINDS if data.label(k) in shown}


def chart_agents(at: AppTest, key: str) -> set[str]:
    """The x labels of a plotly chart (the agents a bar chart shows)."""
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
    return {x for trace in json.loads(chart.proto.spec)["data"] for x in trace.get("x", [])}


# ---------------------------------------------------------------------------- one flipped byte
@pytest.mark.parametrize("params", [None, {"agent": "b1", "seed": "0"}], ids=["default", "url"])
def test_workspace_without_its_agent_keeps_the_others(lab, params):
    flip_byte(lab)
    at = open_page("workspace", params)
    assert_one_error_naming(at, f"{BROKEN}.safetensors", "agent b1, seed 0")
    assert at.selectbox(key="workspace.agent").value == "b1"
    assert {"b2", "b2_ws"} <= agent_options(at, "workspace")
    assert any("dNRS" in s.value for s in at.subheader)  # the bundled results still show
    at.selectbox(key="workspace.agent").set_value("b2").run()
    assert not at.exception and not errors(at)
    assert any(m.label == "Conjunction accuracy" for m in at.metric)


def test_a_restored_checkpoint_loads_on_the_next_run(lab):
    original = (lab / f"{BROKEN}.safetensors").read_bytes()
    flip_byte(lab)
    at = open_page("workspace")
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    (lab / f"{BROKEN}.safetensors").write_bytes(original)
    at.run()
    assert not at.exception and not errors(at)  # the failure was not cached
    assert any(m.label == "Conjunction accuracy" for m in at.metric)


def test_a_checkpoint_retrained_in_place_is_loaded_and_measured_afresh(lab):
    name, slots = "wagering-b2_ws-s0", AGENT_KINDS["b2_ws"].n_slots
    before, old = data.metacognition("b2_ws", 0, "on", slots, 0.0), data.agent("wagering", "b2_ws", 0)
    replaced = load_checkpoint(lab / f"{name}.safetensors").agent
    with torch.no_grad():
        replaced.confidence_head.bias.fill_(-30.0)  # confidence ~0: opts out on every wager trial
    save_checkpoint(replaced, json.loads((lab / f"{name}.json").read_text()), lab)  # atomic, as `train` does
    after = data.metacognition("b2_ws", 0, "on", slots, 0.0)
    assert data.agent("wagering", "b2_ws", 0) is not old
    assert before.skip_fraction < 0.1 and after.skip_fraction == 1.0
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    assert not at.exception and metric_value(at, "Opt-outs on wager trials") == "100.0%"


def test_robustness_leaves_the_broken_agent_out_of_the_pci_table(lab):
    flip_byte(lab)
    at = open_page("robustness")  # default view: the broken agent is the one selected
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert not any(m.label == "Report accuracy with this noise" for m in at.metric)
    assert any("Noise titration" in s.value for s in at.subheader)  # bundled results still show
    shown = chart_agents(at, "pci")
    assert shown and "B1" not in " ".join(shown)
    assert any("B2" in x for x in shown)
    assert any("Left out" in w.value and "B1" in w.value for w in at.warning)


def test_robustness_with_another_agent_selected_names_the_broken_one(lab):
    flip_byte(lab)
    at = open_page("robustness", {"agent": "b2", "seed": "0"})
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert any(m.label == "Report accuracy with this noise" for m in at.metric)  # the selected agent works
    assert any("Left out" in w.value and "B1" in w.value for w in at.warning)
    assert len(chart_agents(at, "pci")) >= 4


@pytest.mark.parametrize("params", [None, {"task": "masking", "agent": "b1", "seed": "0"}], ids=["default", "url"])
def test_rollouts_without_its_agent_keeps_the_others(lab, params):
    flip_byte(lab)
    at = open_page("rollouts", params)
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert {"b2", "b2_ws"} <= agent_options(at, "rollouts")
    at.selectbox(key="rollouts.agent").set_value("b2").run()
    assert not at.exception and not errors(at)
    assert at.get("progress")  # the theatre plays again


def test_metacognition_without_its_agent_keeps_the_others(lab):
    flip_byte(lab, "wagering-b2_ws-s0")
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    assert_one_error_naming(at, "wagering-b2_ws-s0.safetensors")
    assert "1" in at.selectbox(key="metacognition.seed").options
    at.selectbox(key="metacognition.seed").set_value(1).run()
    assert not at.exception and not errors(at)
    assert any(m.label == "Type-2 AUROC" for m in at.metric)


# ---------------------------------------------------------------------------- a bad manifest
@pytest.mark.parametrize("page", ["workspace", "robustness", "rollouts", "metacognition", "agents"])
def test_an_entry_without_kind_loses_only_that_agent(lab, page):
    drop_kind(lab)
    at = open_page(page, {"agent": "b2", "seed": "0"} if page == "robustness" else None)
    assert_one_error_naming(at, "manifest.json", BROKEN, "no 'kind'")
    if page in ("workspace", "robustness", "rollouts"):
        assert "b1" in agent_options(at, page)  # its other seeds are still there
    if page == "workspace":
        assert at.selectbox(key="workspace.seed").value == 1
        assert any(m.label == "Conjunction accuracy" for m in at.metric)
    if page == "robustness":
        assert len(chart_agents(at, "pci")) == 5  # b1 has no listed seed 0; the rest do
    if page == "metacognition":
        assert any(m.label == "Type-2 AUROC" for m in at.metric)
    if page == "agents":
        assert at.dataframe and at.number_input[0].value != 0  # seed 0's file exists: not offered


CASES = [(page, corrupt) for corrupt in (truncate_manifest, list_manifest)
         for page in ("workspace", "robustness", "rollouts", "metacognition", "agents")]


@pytest.mark.parametrize(("page", "corrupt"), CASES, ids=[f"{p}-{c.__name__}" for p, c in CASES])
def test_an_unusable_manifest_is_one_error(lab, page, corrupt):
    corrupt(lab)
    at = open_page(page)
    assert_one_error_naming(at, "manifest.json")
    if page == "robustness":
        assert any("Verdict" in m.value for m in at.markdown)  # the bundled results still show
    if page == "agents":
        assert any("Architecture" in s.value for s in at.subheader)
