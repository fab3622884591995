"""Protocol 8.7's pipelines on tiny budgets (labcore/experiments/pdw.py, pdw_sweep.py): the result
contract's files and columns, resuming without retraining, a cache of another configuration, the
explorer's design and its answer rule, and the figures."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest
import torch

from labcore.experiments import pdw, pdw_sweep
from labcore.figures.pdw import kiani_shadlen_figure, training_curve_figure
from labcore.storage.results import MANIFEST
from labcore.storage.results_pdw import (
    BY_COHERENCE,
    CURVES,
    FACTORS,
    TRIALS,
    TRIALS_FIELDS,
    TRIALS_GREEDY,
    load_pdw,
)

pytestmark = pytest.mark.usefixtures("neurogym_installed")
TINY = replace(pdw.PDWConfig.quick(), seeds=(0, 1), agents=("plain_gru",))


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("pdw")
    return out, pdw.run(out, TINY)


def test_the_contract_file_has_exactly_its_columns_and_values(study):
    out, _ = study
    trials = pd.read_csv(out / TRIALS, dtype={"correct": "Int64"})
    assert tuple(trials.columns) == TRIALS_FIELDS
    assert set(trials["training"]) == {"reward", "imitation", "ideal"}
    assert set(trials["agent"]) == {"plain_gru", "ideal_observer"}
    assert set(trials["sure_offered"]) <= {0, 1}
    assert set(trials["choice"]) <= {"left", "right", "sure", "none"}
    sides = trials["choice"].isin(["left", "right"])
    assert (
        trials.loc[~sides, "correct"].isna().all()
        and trials.loc[sides, "correct"].isin([0, 1]).all()
    )
    # every observer of a seed acts on the same evaluation trials
    per = trials.groupby(["agent", "training", "seed"])
    assert set(per.size()) == {TINY.eval_trials}
    for seed in TINY.seeds:
        mine = trials[trials["seed"] == seed]
        coh = [g["coherence"].tolist() for _, g in mine.groupby(["agent", "training"])]
        assert all(c == coh[0] for c in coh)
    greedy = pd.read_csv(out / TRIALS_GREEDY)
    assert tuple(greedy.columns) == TRIALS_FIELDS and len(greedy) == len(trials)


def test_summary_has_the_manifest_claims_and_reading(study):
    out, summary = study
    assert set(summary[MANIFEST]) == {TRIALS, TRIALS_GREEDY, BY_COHERENCE, CURVES}
    assert summary["claims"] and all(
        c["verdict"] == "new (no paper number)" and c["paper"] is None for c in summary["claims"]
    )
    ids = {c["id"] for c in summary["claims"]}
    assert {
        "pdw.plain_gru.reward.s1_contrast",
        "pdw.plain_gru.reward.s2_waived_advantage",
        "pdw.ideal_observer.ideal.s1_contrast",
    } <= ids
    reading = summary["reading"]["plain_gru.reward"]
    assert reading["n_seeds"] == 2 and reading["signatures_appear"] in (True, False, None)
    assert "plain_gru trained from reward" in summary["answer"]
    loaded = load_pdw(out)
    assert not loaded.problems and loaded.frames[BY_COHERENCE] is not None
    # the ideal observer takes the sure option more at low coherence on every seed
    assert all(v["s1_contrast"] > 0.2 for v in summary["per_seed"]["ideal_observer.ideal"].values())


def test_curves_hold_sampled_greedy_and_probe_rows(study):
    out, _ = study
    curves = pd.read_csv(out / CURVES)
    assert set(curves["policy"]) == {"sampled", "greedy", "probability"}
    checks = curves[curves["policy"] == "sampled"]
    assert (
        checks["p_sure_offered"].between(0, 1).all()
        and checks["update"].max() == TINY.rl.max_updates
    )


def test_resuming_never_retrains_and_writes_the_same_files(study, monkeypatch):
    out, _ = study
    before = {name: (out / name).read_bytes() for name in (TRIALS, BY_COHERENCE, CURVES)}

    def refuse(*args, **kwargs):
        raise AssertionError("a finished network was retrained")

    monkeypatch.setattr(pdw, "train_network", refuse)
    pdw.run(out, TINY)
    assert {name: (out / name).read_bytes() for name in before} == before


def test_a_cache_of_another_configuration_is_refused(study):
    out, _ = study
    with pytest.raises(ValueError, match="another configuration"):
        pdw.run(out, replace(TINY, eval_trials=TINY.eval_trials + 1))


def test_an_edited_file_is_not_used(study, tmp_path):
    out, _ = study
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in (BY_COHERENCE, CURVES, "summary.json"):
        (copy / name).write_bytes((out / name).read_bytes())
    with open(copy / BY_COHERENCE, "a") as fh:
        fh.write("plain_gru,reward,9,sampled,0.0,1.0,1,,,0,0\n")
    loaded = load_pdw(copy)
    assert loaded.frames[BY_COHERENCE] is None and any(
        "not written by the run" in p for p in loaded.problems
    )


def test_figures_draw_the_study_and_say_when_empty(study):
    out, _ = study
    table = pd.read_csv(out / BY_COHERENCE)
    fig = kiani_shadlen_figure(table, imitation=True)
    names = {t.name for t in fig.data if t.showlegend is not False}
    assert any("plain GRU" in n for n in names) and any("ideal observer" in n for n in names)
    assert "no Song" in kiani_shadlen_figure(None).layout.annotations[0].text
    curve = training_curve_figure(pd.read_csv(out / CURVES))
    assert len(curve.data) >= 4
    assert (
        "no reward-trained"
        in training_curve_figure(pd.read_csv(out / CURVES), agent="b2_ws")
        .layout.annotations[0]
        .text
    )


def test_the_explorer_has_16_cells_each_one_change_from_its_end():
    cells = pdw_sweep.cells()
    assert len(cells) == 16 and len({c.name for c in cells}) == 16
    by_name = {c.name: c for c in cells}
    for side, base, other in (("S", "S", "old"), ("O", "O", "song")):
        assert all(by_name[base].level(f) == ("song" if side == "S" else "old") for f in FACTORS)
        for f in FACTORS:
            cell = by_name[f"{side}{'-' if side == 'S' else '+'}{f}"]
            changed = [g for g in FACTORS if cell.level(g) != by_name[base].level(g)]
            assert changed == [f] and cell.level(f) == other
    assert by_name["S"].cfg == pdw_sweep.SONG_2017


def outcomes(song: bool | None, old: bool | None, killed=(), revived=()):
    out = {"S": {"keeps": song}, "O": {"keeps": old}}
    for f in FACTORS:
        out[f"S-{f}"] = {"keeps": f not in killed if song else song}
        out[f"O+{f}"] = {"keeps": f in revived}
    return out


def test_the_answer_rule():
    rows = [{"cell": name, "s1_contrast": 0.3} for name in outcomes(True, False)]
    found = pdw_sweep.answer(
        outcomes(
            True, False, killed=["training_length"], revived=["training_length", "readout_init"]
        ),
        rows,
    )
    assert found["necessary"] == ["training_length"]
    assert found["sufficient"] == ["readout_init", "training_length"]
    assert found["deciding"] == ["readout_init", "training_length"] and found["text"].startswith(
        "Deciding factor(s)"
    )
    none = pdw_sweep.answer(outcomes(False, False), rows)
    assert none["deciding"] == [] and "Song cell itself does not keep" in none["text"]
    assert pdw_sweep.cell_outcome(
        [{"s1_contrast": 0.2}, {"s1_contrast": 0.05}, {"s1_contrast": 0.11}]
    )["keeps"]
    assert not pdw_sweep.cell_outcome(
        [{"s1_contrast": 0.2}, {"s1_contrast": 0.05}, {"s1_contrast": float("nan")}]
    )["keeps"]


def test_the_explorer_runs_a_subset_and_resumes(tmp_path):
    sweep = replace(pdw_sweep.SweepConfig.quick_config(), seeds=(0,))
    first = pdw_sweep.run(tmp_path, sweep, only=lambda c: c.name in ("S", "O"))
    assert (
        first["complete"] is False and first["answer"] is None and set(first["cells"]) == {"S", "O"}
    )
    rows = pd.read_csv(tmp_path / "pdw_sweep.csv")
    assert (
        set(rows["cell"]) == {"S", "O"}
        and rows.loc[rows["cell"] == "O", "trials_per_update"].item() == "old"
    )
    assert json.loads((tmp_path / "summary.json").read_text())["cells"]["S"]["n"] == 1


@pytest.mark.slow
def test_the_whole_explorer_on_a_tiny_budget(tmp_path):
    summary = pdw_sweep.run(tmp_path, pdw_sweep.SweepConfig.quick_config(), workers=2)
    assert summary["complete"] and len(summary["cells"]) == 16 and summary["answer"]["text"]


def test_the_held_follow_up_changes_one_held_choice_at_a_time_from_the_old_default():
    cells = {c.name: c for c in pdw_sweep.held_cells()}
    assert list(cells) == ["O", *[f"O~{h}" for h in pdw_sweep.HELD], "O~all"]
    old = cells["O"].cfg
    assert (
        old == next(c for c in pdw_sweep.cells() if c.name == "O").cfg
    )  # the registered O, trained again
    fields = {k for levels in pdw_sweep.HELD.values() for level in levels for k in level}
    for held, (song, eight_six) in pdw_sweep.HELD.items():
        assert all(getattr(old, k) == v for k, v in song.items())  # O holds Song's value
        cfg = cells[f"O~{held}"].cfg
        changed = {k for k in fields if getattr(cfg, k) != getattr(old, k)}
        assert changed == set(eight_six) and all(getattr(cfg, k) == v for k, v in eight_six.items())
        assert all(getattr(cells["O~all"].cfg, k) == v for k, v in eight_six.items())
    assert all(c.level(f) == "old" for c in cells.values() for f in FACTORS)  # the seven stay old


def held_outcomes(old: bool | None, losing=(), all_keeps: bool | None = False):
    out = {"O": {"keeps": old}, "O~all": {"keeps": all_keeps}}
    out.update({f"O~{h}": {"keeps": h not in losing} for h in pdw_sweep.HELD})
    return out


def test_the_held_answer_rule():
    rows = [
        {"cell": n, "s1_contrast": 0.4 if keeps["keeps"] else 0.01}
        for n, keeps in held_outcomes(True, ["normalisation"]).items()
        for _ in range(3)
    ]
    found = pdw_sweep.held_answer(held_outcomes(True, ["normalisation"]), rows)
    assert (
        found["losing"] == ["normalisation"]
        and "Advantage normalisation alone loses" in found["text"]
    )
    assert (
        "all five together" in found["text"]
        and found["effects"]["normalisation"]["difference"] < -0.3
    )
    assert found["effects"]["clipping"]["difference"] == 0.0
    kept = pdw_sweep.held_answer(held_outcomes(True, [], all_keeps=True), rows)
    assert (
        kept["losing"] == []
        and "its network" in kept["text"]
        and "No held choice alone" in kept["text"]
    )
    assert "answers nothing" in pdw_sweep.held_answer(held_outcomes(False), rows)["text"]


def test_the_command_line_runs_held_cells(tmp_path, capsys):
    from labcore.cli import main

    assert (
        main(["explore", "pdw-held", "--quick", "--cells", "O~stopping", "--out", str(tmp_path)])
        == 0
    )
    assert "partial run" in capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["study"] == "pdw_held" and "post hoc" in summary["protocol"]
    assert summary["config"]["cells"]["O~stopping"]["stop_rule"] == "none"
    with pytest.raises(SystemExit, match="unknown cell"):
        main(["explore", "pdw-held", "--quick", "--cells", "S", "--out", str(tmp_path)])


def test_the_command_line_runs_explorer_cells_and_refuses_unknown_ones(tmp_path, capsys):
    from labcore.cli import main

    assert main(["explore", "pdw-sweep", "--quick", "--cells", "S", "--out", str(tmp_path)]) == 0
    assert "partial run" in capsys.readouterr().out and (tmp_path / "pdw_sweep.csv").exists()
    with pytest.raises(SystemExit, match="unknown cell"):
        main(["explore", "pdw-sweep", "--quick", "--cells", "S,Z", "--out", str(tmp_path)])


@pytest.mark.slow
def test_the_command_line_writes_the_reproduction_and_its_figure(tmp_path, capsys):
    from labcore.cli import main

    assert main(["explore", "pdw", "--quick", "--out", str(tmp_path), "--jobs", "2"]) == 0
    assert "registered reading" in capsys.readouterr().out
    assert {TRIALS, TRIALS_GREEDY, BY_COHERENCE, CURVES, "summary.json", "figure.json"} <= {
        p.name for p in tmp_path.iterdir()
    }
