"""Protocol 8.7's studies in the one Study shape (labcore/experiments/pdw*.py): their rules on
hand-made rows (values, intervals, outcomes), their answers rendered from their findings within the
word limits, the bundled folders re-summarised to their own findings, and the reproduction end to
end on a tiny budget through the one runner (train, save through the manifest, measure, resume)."""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from labcore import render
from labcore.checks import ConfigError
from labcore.experiments import pdw as P
from labcore.experiments import pdw_sweep as W
from labcore.experiments.study import load_study, read_table, resummarise, run_study
from labcore.stats import t_interval, welch_interval
from labcore.storage.checkpoints import CheckpointError

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------- one observer, one seed
def test_signature_values_on_hand_made_trials():
    # Offered trials: at 0% 3 of 4 take the sure option, at 3.2% 1 of 2, at 25.6 and 51.2% none.
    trials = [
        (0.0, 1, "sure", None), (0.0, 1, "sure", None), (0.0, 1, "sure", None),
        (0.0, 1, "left", 1), (3.2, 1, "sure", None), (3.2, 1, "right", 1),
        (3.2, 0, "left", 0), (6.4, 1, "left", 1), (6.4, 0, "left", 0), (12.8, 1, "right", 1),
        (12.8, 0, "right", 1), (25.6, 1, "left", 1), (25.6, 1, "left", 1), (51.2, 1, "right", 1),
        (51.2, 1, "right", 0), (51.2, 0, "none", None),
    ]  # fmt: skip
    coh, offered, choice, correct = (list(c) for c in zip(*trials, strict=True))
    values = P.signature_values(coh, offered, choice, correct, reward=[1.0] * 16)
    assert values["s1_contrast"] == pytest.approx((3 / 4 + 1 / 2) / 2 - 0.0)
    # S2 at 3.2, 6.4, 12.8: waived accuracy 1, 1, 1; not offered 0, 0, 1.
    assert values["s2_waived_advantage"] == pytest.approx((1 + 1 + 0) / 3)
    assert values["p_sure_offered"] == pytest.approx(4 / 12)
    assert values["answered"] == pytest.approx(15 / 16) and values["reward"] == 1.0
    assert set(P.SEED_VALUES) == set(values)


# ----------------------------------------------------------------------- the reproduction's rules
def seed_row(agent: str, training: str, seed: int, s1: float, s2: float, **over) -> dict:
    policy = over.pop("policy", "ideal" if training == "ideal" else "sampled")
    row = {k: 0.5 + 0.01 * seed for k in P.SEED_VALUES}
    row.update(agent=agent, training=training, seed=seed, policy=policy)
    row.update(updates=1000 + 100 * seed, stopped="criterion", wall_seconds=10.0)
    row.update(s1_contrast=s1, s2_waived_advantage=s2, **over)
    return row


def seeds_rows(plain=(0.3, 0.1), b2=(0.25, 0.08), spread=0.02, n=5) -> list[dict]:
    rows = []
    for agent, (s1, s2) in (("plain_gru", plain), ("b2_ws", b2)):
        for seed in range(n):
            d = spread * (seed - (n - 1) / 2)
            rows.append(seed_row(agent, "reward", seed, s1 + d, s2 + d))
            rows.append(seed_row(agent, "reward", seed, s1 + 2 * d, s2, policy="greedy"))
            rows.append(seed_row(agent, "imitation", seed, 0.5 + d, 0.1 + d))
    rows += [seed_row(P.IDEAL, "ideal", seed, 0.56, 0.11) for seed in range(n)]
    return rows


def summary_of(rows: list[dict]):
    return P.summarise(None, {P.SEEDS.name: rows})


def test_the_reading_is_s1_and_s2_over_seeds_with_t_intervals():
    rows = seeds_rows(plain=(0.3, 0.01), spread=0.02)
    s = summary_of(rows)
    values = [
        r["s1_contrast"]
        for r in rows
        if (r["agent"], r["training"], r["policy"]) == ("plain_gru", "reward", "sampled")
    ]
    f = s.finding("pdw.plain_gru.reward.s1_contrast")
    assert f.value == pytest.approx(np.mean(values)) and f.n == 5
    assert (f.interval.low, f.interval.high) == pytest.approx(t_interval(values))
    assert (
        f.outcome == "supported" and f.hypothesis == "S1" and f.verdict == "new (no paper number)"
    )
    # S2 of the plain GRU straddles 0: not supported; the answer says "partly" (S1 only).
    assert s.finding("pdw.plain_gru.reward.s2_waived_advantage").outcome == "not supported"
    assert s.answer.outcome == "partly" and s.answer.params["signatures"]["plain_gru"] == "s1"
    # The imitation ceiling is post hoc; greedy choices and the ideal observer are not tested.
    assert s.finding("pdw.b2_ws.imitation.s1_contrast").flag("post_hoc") is not None
    assert s.finding("pdw.plain_gru.reward.greedy.s1_contrast").outcome is None
    assert s.finding("pdw.ideal_observer.ideal.s1_contrast").value == pytest.approx(0.56)
    assert s.tables["networks"][0]["updates"] == 1000 and len(s.tables["networks"]) == 20


@pytest.mark.parametrize(
    ("plain", "b2", "outcome"),
    [
        ((0.3, 0.1), (0.25, 0.08), "both"),
        ((0.3, 0.1), (0.0, 0.0), "plain_only"),
        ((0.0, 0.0), (0.3, 0.1), "not_reproduced"),
        ((0.0, 0.1), (0.3, 0.1), "partly"),
    ],
)
def test_the_registered_rewrite_rule(plain, b2, outcome):
    s = summary_of(seeds_rows(plain=plain, b2=b2))
    assert s.answer.outcome == outcome
    short = render.answer(s, "short")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.fmt(s.value("pdw.plain_gru.reward.s1_contrast"), "difference", sign=True) in short


def test_one_seed_is_undecided():
    s = summary_of(seeds_rows(n=1))
    f = s.finding("pdw.plain_gru.reward.s1_contrast")
    assert f.interval is None and f.sd is None and f.outcome == "undefined"
    assert s.answer.outcome == "undecided" and render.answer(s, "long")


# ----------------------------------------------------------------------- the explorer's rules
def test_the_explorer_has_16_cells_each_one_change_from_its_end():
    from labcore.training.neurogym_trainer import SONG_2017

    cells = W.cells()
    assert [c.name for c in cells] == W.cell_names() and len(cells) == 16
    by_name = {c.name: c for c in cells}
    for side, base, other in (("S", "S", "old"), ("O", "O", "song")):
        assert all(by_name[base].level(f) == ("song" if side == "S" else "old") for f in W.FACTORS)
        for f in W.FACTORS:
            cell = by_name[f"{side}{'-' if side == 'S' else '+'}{f}"]
            changed = [g for g in W.FACTORS if cell.level(g) != by_name[base].level(g)]
            assert changed == [f] and cell.level(f) == other
            assert all(cell.level(g) == W.level_of(cell.name, g) for g in W.FACTORS)
    assert by_name["S"].cfg == SONG_2017


def test_the_held_follow_up_changes_one_held_choice_at_a_time_from_the_old_default():
    cells = {c.name: c for c in W.held_cells()}
    assert list(cells) == W.cell_names("held")
    old = cells["O"].cfg
    assert old == next(c for c in W.cells() if c.name == "O").cfg
    fields = {k for levels in W.HELD.values() for level in levels for k in level}
    for held, (song, eight_six) in W.HELD.items():
        assert all(getattr(old, k) == v for k, v in song.items())  # O holds Song's value
        cfg = cells[f"O~{held}"].cfg
        changed = {k for k in fields if getattr(cfg, k) != getattr(old, k)}
        assert changed == set(eight_six) and all(getattr(cfg, k) == v for k, v in eight_six.items())
        assert all(getattr(cells["O~all"].cfg, k) == v for k, v in eight_six.items())
    short = [c for c in cells.values() if not W.is_long(c.name)]
    assert all(c.level(f) == "old" for c in short for f in W.FACTORS)
    for held in W.LONG_CHOICES:  # the long cells: the same cell, Song's training length
        long, same = cells[f"O~{held}+long"], cells[f"O~{held}"]
        assert long.cfg == replace(same.cfg, max_updates=W.LONG_UPDATES) and long.factor == held
        assert [f for f in W.FACTORS if long.level(f) != same.level(f)] == ["training_length"]
    assert W.cell_names("held")[-2:] == [f"O~{h}+long" for h in W.LONG_CHOICES]


def sweep_rows(keeping: set[str], design: str = "registered", seeds: int = 3) -> list[dict]:
    return [
        {
            "cell": name,
            "seed": s,
            "s1_contrast": (0.31 + 0.017 * i + 0.011 * s if name in keeping else 0.005 + 0.009 * s),
        }
        for i, name in enumerate(W.cell_names(design))
        for s in range(seeds)
    ]


def test_a_cell_keeps_the_option_when_most_of_its_seeds_do():
    assert W.cell_outcome([0.2, 0.05, 0.11])["keeps"]
    assert not W.cell_outcome([0.2, 0.05, float("nan")])["keeps"]
    assert W.cell_outcome([None, float("nan")]) == {
        "n": 2,
        "n_keep": 0,
        "n_defined": 0,
        "keeps": None,
    }


def test_the_explorer_names_the_factors_that_decide_with_their_welch_effects():
    keeping = {"S", *[f"S-{f}" for f in W.FACTORS if f != "training_length"], "O+readout_init"}
    rows = sweep_rows(keeping)
    s = W.summarise(W.SweepConfig(), {W.ROWS.name: rows})
    a = s.answer
    assert a.outcome == "deciding" and a.params["necessary"] == ["training_length"]
    assert a.params["sufficient"] == ["readout_init"]
    assert a.params["deciding"] == ["readout_init", "training_length"]
    s1 = {n: [r["s1_contrast"] for r in rows if r["cell"] == n] for n in W.cell_names()}
    effect = s.finding("pdw_sweep.effect.training_length.from_song")
    assert effect.value == pytest.approx(np.mean(s1["S"]) - np.mean(s1["S-training_length"]))
    low, high = welch_interval(s1["S"], s1["S-training_length"])
    assert (effect.interval.low, effect.interval.high) == pytest.approx((low, high))
    cells = {c["name"]: c for c in s.tables["cells"]}
    assert cells["S-training_length"]["keeps"] is False and cells["S"]["n_keep"] == 3
    text = render.part(s, "decision")  # the sentence the lab's reward answer embeds
    named = [text.find(f.replace("_", " ")) for f in W.FACTORS]  # filled from the answer's lists
    assert [f for f, at in zip(W.FACTORS, named, strict=True) if at >= 0] == a.params["deciding"]
    assert named[W.FACTORS.index("readout_init")] < named[W.FACTORS.index("training_length")]
    for form in ("short", "readme"):
        assert render.words(render.answer(s, form)) <= render.WORD_LIMITS[form]
    assert render.fmt(effect.value, "difference", sign=True) in render.answer(s, "long")


def test_an_explorer_where_song_loses_or_no_choice_decides():
    s = W.summarise(W.SweepConfig(), {W.ROWS.name: sweep_rows(set(W.cell_names()))})
    assert s.answer.outcome == "no_single" and s.answer.params["old_keeps"]
    lost = W.summarise(W.SweepConfig(), {W.ROWS.name: sweep_rows(set())})
    assert lost.answer.params["song_keeps"] is False and lost.answer.params["deciding"] == []
    said = render.part(lost, "decision")
    unknown = {
        **lost.answer.params,
        "song_keeps": None,
    }  # the other branch: Song's outcome undefined
    undefined = lost.model_copy(
        update={"answer": lost.answer.model_copy(update={"params": unknown})}
    )
    assert said != render.part(undefined, "decision") != render.part(s, "decision")
    assert not any(f.replace("_", " ") in said for f in W.FACTORS)


def test_a_partial_explorer_has_no_answer_yet():
    rows = [r for r in sweep_rows({"S"}) if r["cell"] in ("S", "O")]
    s = W.summarise(W.SweepConfig(cells=("S", "O")), {W.ROWS.name: rows})
    assert s.answer.outcome == "incomplete" and not s.tables["complete"]
    assert [c["name"] for c in s.tables["cells"]] == ["S", "O"]
    assert not any(f.id.startswith("pdw_sweep.effect") for f in s.findings)
    assert render.words(render.answer(s, "short")) <= render.WORD_LIMITS["short"]
    with pytest.raises(ConfigError) as refused:
        W.chosen_cells(W.SweepConfig(cells=("S", "Z")))
    assert refused.value.fields == ("cells",) and "['Z']" in str(refused.value)


@pytest.mark.parametrize(
    ("keeping", "outcome", "losing"),
    [
        (set(W.cell_names("held")) - {"O~normalisation", "O~all"}, "losing", ["normalisation"]),
        (set(W.cell_names("held")), "none_loses", []),
        (set(), "old_loses", []),
    ],
)
def test_the_held_rule(keeping, outcome, losing):
    rows = sweep_rows(keeping, "held")
    s = W.summarise(W.SweepConfig(design="held"), {W.ROWS.name: rows})
    assert s.study == "pdw_held" and s.answer.outcome == outcome
    assert s.answer.params["losing"] == losing
    assert all(f.flag("post_hoc") for f in s.findings)  # defined after the explorer's result
    s1 = {n: [r["s1_contrast"] for r in rows if r["cell"] == n] for n in W.cell_names("held")}
    effect = s.finding("pdw_held.effect.clipping")
    assert effect.value == pytest.approx(np.mean(s1["O~clipping"]) - np.mean(s1["O"]))
    for form in ("short", "readme"):
        text = render.answer(s, form)
        assert render.words(text) <= render.WORD_LIMITS[form], text
    render.answer(s, "long")


# ----------------------------------------------------------------------- the bundled folders
def test_the_bundled_answers_are_rendered_from_their_findings_within_the_word_limits():
    for name, first in (
        ("pdw", "pdw.plain_gru.reward.s1_contrast"),
        ("pdw_sweep", None),
        ("pdw_held", None),
    ):
        loaded = load_study(name, ROOT / "results" / name, tables=())
        assert loaded.problems == [], loaded.problems
        s = loaded.summary
        for form in ("short", "readme"):
            assert render.words(render.answer(s, form)) <= render.WORD_LIMITS[form], (name, form)
        render.answer(s, "long")
        if first:
            assert render.fmt(s.value(first), "difference", sign=True) in render.answer(s, "short")


def _copy(folder: Path, names: list[str], to: Path) -> Path:
    to.mkdir(parents=True, exist_ok=True)
    for name in [*names, "summary.json"]:
        shutil.copy(folder / name, to / name)
    return to


@pytest.mark.parametrize("name", ["pdw_sweep", "pdw_held"])
def test_the_bundled_explorer_resummarises_to_its_own_findings(name, tmp_path):
    bundled = ROOT / "results" / name
    copy = _copy(bundled, [W.ROWS.file, W.CURVES.file], tmp_path)
    before = load_study(name, bundled, tables=())
    after = resummarise(name, copy)
    assert after.findings == before.summary.findings and after.tables == before.summary.tables
    assert after.answer == before.summary.answer and after.created == before.summary.created


def test_the_bundled_reproduction_summarises_its_per_seed_table_to_its_own_findings():
    bundled = ROOT / "results" / "pdw"
    before = load_study("pdw", bundled, tables=())
    assert before.problems == []  # every file is the one its summary lists
    drawn = load_study("pdw", bundled, tables=(P.BY_COHERENCE.name,))  # what a page reads
    assert list(drawn.frames) == [P.BY_COHERENCE.name] and len(drawn.frame(P.BY_COHERENCE.name))
    rows, problems = read_table(bundled / P.SEEDS.file, P.SEEDS)
    after = P.summarise(None, {P.SEEDS.name: rows})
    assert problems == [] and after.findings == before.summary.findings
    assert after.answer == before.summary.answer and after.tables == before.summary.tables


@pytest.mark.slow
def test_the_bundled_reproduction_resummarises_from_its_files(tmp_path):
    bundled = ROOT / "results" / "pdw"
    copy = _copy(bundled, [t.file for t in P.TABLES], tmp_path)
    after = resummarise("pdw", copy)
    assert after.findings == load_study("pdw", bundled, tables=()).summary.findings


# ----------------------------------------------------------------------- end to end
@pytest.mark.slow
def test_the_reproduction_end_to_end_on_a_tiny_budget(tmp_path, monkeypatch, neurogym_installed):
    from labcore.figures.pdw import pdw_figure
    from labcore.storage.checkpoints import load_checkpoint
    from labcore.training import provision

    torch.set_num_threads(1)
    tiny = replace(P.PDWConfig.quick(), agents=("plain_gru",))
    say = lambda _: None  # noqa: E731
    summary = run_study("pdw", tmp_path, tiny, progress=False, say=say)
    trials = pd.read_csv(tmp_path / P.TRIALS.file, dtype={"correct": "Int64"})
    assert tuple(trials.columns) == P.TRIALS.fields
    assert set(trials["training"]) == {"reward", "imitation", "ideal"}
    assert set(trials.groupby(["agent", "training", "seed"]).size()) == {tiny.eval_trials}
    sides = trials["choice"].isin(["left", "right"])
    assert (
        trials.loc[~sides, "correct"].isna().all()
        and trials.loc[sides, "correct"].isin([0, 1]).all()
    )
    for seed in tiny.seeds:  # every observer of a seed acts on the same evaluation trials
        mine = trials[trials["seed"] == seed]
        coh = [g["coherence"].tolist() for _, g in mine.groupby(["agent", "training"])]
        assert all(c == coh[0] for c in coh)
    curves = pd.read_csv(tmp_path / P.CURVES.file)
    assert set(curves["policy"]) == {"sampled", "greedy", "probability"}
    assert curves.loc[curves["policy"] == "sampled", "update"].max() == tiny.rl.max_updates
    # The networks are checkpoints of the manifest, loaded with every check.
    saved = sorted((tmp_path / "checkpoints").glob("*.safetensors"))
    assert len(saved) == 4 and load_checkpoint(saved[0]).agent.config.kind == "plain_gru"
    loaded = load_study("pdw", tmp_path)
    assert loaded.problems == [] and loaded.frame(P.BY_COHERENCE.name) is not None
    ideal = [r for r in read_table(tmp_path / P.SEEDS.file, P.SEEDS)[0] if r["policy"] == "ideal"]
    assert all(r["s1_contrast"] > 0.2 for r in ideal)  # the ideal observer keeps the option
    assert pdw_figure(tmp_path).data
    render.answer(summary, "long")

    # Measured again from the checkpoints: nothing trains, the same findings come out.
    def refuse(*args, **kwargs):
        raise AssertionError("a finished network was retrained")

    monkeypatch.setattr(provision, "train_network_and_save", refuse)
    again = run_study("pdw", tmp_path, tiny, rerun="*", progress=False, say=say)
    assert again.findings == summary.findings
    other = tmp_path / "other"  # checkpoints trained under another configuration are refused
    shutil.copytree(tmp_path / "checkpoints", other / "checkpoints")
    changed = replace(tiny, rl=replace(tiny.rl, entropy_coef=0.5))
    with pytest.raises(CheckpointError) as refused:
        run_study("pdw", other, changed, progress=False, say=say)
    assert refused.value.kind == "other_config"


@pytest.mark.slow
def test_the_command_line_runs_held_cells_and_refuses_unknown_ones(
    tmp_path, capsys, neurogym_installed
):
    from labcore.cli import main

    assert (
        main(["study", "pdw_held", "--quick", "--set", "cells=O~stopping", "--out", str(tmp_path)])
        == 0
    )
    loaded = load_study("pdw_held", tmp_path)
    assert loaded.problems == [] and loaded.summary.answer.outcome == "incomplete"
    assert render.answer(loaded.summary, "short") in capsys.readouterr().out
    assert list(loaded.frame(W.ROWS.name)["cell"].unique()) == ["O~stopping"]
    with pytest.raises(SystemExit) as refused:
        main(["study", "pdw_held", "--quick", "--set", "cells=S", "--out", str(tmp_path)])
    assert isinstance(refused.value.__cause__, ConfigError)
    assert refused.value.__cause__.fields == ("cells",)
    assert math.isfinite(loaded.summary.value("pdw_held.O~stopping.s1"))
