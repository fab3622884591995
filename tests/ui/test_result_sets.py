"""The Replication page's choices (ui.data.result_sets): the folders of the paper's experiments
only, the study folders derived from the registry (labcore.experiments.study.STUDIES)."""

from __future__ import annotations

import json
from pathlib import Path

from labcore.experiments.study import STUDIES, study_folders
from ui import data


def test_only_result_sets_of_the_paper_are_choices(tmp_path, monkeypatch):
    results = tmp_path / "results"

    def folder(name: str, text: str) -> None:
        (results / name).mkdir(parents=True)
        (results / name / "summary.json").write_text(text)

    for name, study in [("bundled", "paper"), ("quick", "paper"), ("e4", "e4")]:
        folder(name, json.dumps({"study": study}))
    folder("explore_e3", json.dumps({"study": "e3_design"}))  # a registered study's folder
    folder("pdw_held", "{broken")  # ... stays out even when its summary cannot be read
    folder("dissociations_seeds20", json.dumps({"study": "dissociations"}))  # a second run
    folder("mine", "{broken")  # an unknown folder with a broken summary: a choice, to say why
    monkeypatch.setattr(data, "ROOT", tmp_path)
    assert [Path(p).name for p in data.result_sets()] == ["bundled", "e4", "mine", "quick"]


def test_every_registered_study_but_the_papers_has_a_study_folder():
    assert study_folders() == {e.folder for n, e in STUDIES.items() if n not in ("paper", "e4")}
    assert {"explore_e3", "explore_integration", "explore_neurogym", "pdw_held"} <= study_folders()
