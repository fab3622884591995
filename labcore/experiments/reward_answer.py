"""The lab's answer to "does metacognition emerge from reward alone?": five studies'
summaries read through the one loader, their words from one template, and the README's block."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

from labcore import render
from labcore.experiments.e4_hypotheses import answer_context
from labcore.experiments.study import STUDIES as REGISTRY
from labcore.findings import Finding, StudySummary, load_summary
from labcore.training.neurogym_trainer import SONG_2017

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "reward.j2"
STUDIES = {key: REGISTRY[key].folder for key in ("pdw", "pdw_sweep", "pdw_held", "e4", "neurogym")}
"""Each study of the answer -> its folder under ``results/``."""
Summaries = Mapping[str, StudySummary | None]


def read_summaries(results_dir: Path | str = ROOT / "results") -> dict[str, StudySummary | None]:
    """Each study's summary under ``results_dir`` through the one validated loader (None where
    missing, unusable or of another study)."""
    return {
        key: load_summary(Path(results_dir) / folder, study=key).summary
        for key, folder in STUDIES.items()
    }


def song_setting(pdw: StudySummary | None) -> bool:
    """Whether the reproduction was trained with Song et al.'s registered setting
    (:data:`labcore.training.neurogym_trainer.SONG_2017`); False without a reproduction."""
    registered = json.loads(json.dumps(asdict(SONG_2017)))
    return pdw is not None and (pdw.config or {}).get("rl") == registered


def answer(summaries: Summaries, form: str = "short") -> str:
    """The answer's ``form`` (``short``, ``readme``, ``long``, or another macro of the template)
    from the studies' summaries (:func:`read_summaries`; a missing one is None)."""
    found = {key: summaries.get(key) for key in STUDIES}
    return render.compose(
        TEMPLATE, form, **found, **answer_context(), pdw_song_setting=song_setting(found["pdw"])
    )


def cited(summaries: Summaries) -> list[Finding]:
    """The findings the answer cites, each named as the answer names it for a visitor (the
    template's ``cited``: one "study id | question" per line)."""
    out = []
    for line in answer(summaries, "cited").splitlines():
        if not line.strip():
            continue
        where, question = (part.strip() for part in line.split("|", 1))
        study, finding_id = where.split()
        out.append(summaries[study].by_id[finding_id].model_copy(update={"question": question}))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.experiments.reward_answer [--form F] [--results DIR]``: print one form
    of the answer (the README's block is written by ``python -m labcore.readme``)."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.experiments.reward_answer", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--results",
        default=str(ROOT / "results"),
        help="the folder holding the studies' folders (default: the bundled results/)",
    )
    parser.add_argument(
        "--form", choices=render.FORMS, default="long", help="the form to print (default: long)"
    )
    args = parser.parse_args(argv)
    print(answer(read_summaries(args.results), args.form))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
