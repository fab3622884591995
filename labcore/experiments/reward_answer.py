"""The lab's answer to "does metacognition emerge from reward alone?", composed from the bundled
studies.

Issue 23 asks for one answer, generated (never typed), from four result folders under ``results/``:

- ``pdw/``: Song, Yang & Wang (2017) reproduced on NeuroGym's post-decision wager (protocol 8.7,
  :mod:`labcore.experiments.pdw_findings`): S1 and S2 for the plain GRU and our B2 family;
- ``pdw_sweep/``: the reward explorer (protocol 8.7, :mod:`labcore.experiments.pdw_sweep_findings`):
  which training choice decides whether the sure option survives;
- ``e4/``: E4 and "E4 again" on our wagering task (protocol 8.3-8.5, 8.8;
  :func:`labcore.experiments.e4_text.answer`, with R1-R4 and the confidence-spread rule);
- ``explore_neurogym/``: protocol 8.6's first NeuroGym study, kept as the labelled cell "default
  initialisation, 1,500 updates" (its long answer, ``labcore/templates/neurogym.j2``).

The four studies of NeuroGym's task are read through the one validated loader
(:func:`labcore.findings.load_summary`): their parts read findings and tables.

:func:`compose` follows protocol 8.7's registered rewrite rules ("How the answers will be
rewritten") whatever the outcome: both signatures for the plain GRU and B2 -> "yes under Song's
training; 8.6's no was a property of our training", naming the deciding factor(s); plain GRU yes,
B2 no -> "reward teaches it to a plain GRU; our architecture does not learn it under the same
training", with the imitation ceiling; plain GRU no -> "not reproduced here", 8.6's answer standing
with that caveat; one signature without the other -> said per signature; no deciding factor ->
"no single choice decides it", with the cells that keep the option. E4's part is protocol 8.8.6's
text. A folder not run yet gives its part as "not run yet" with the command that writes it; a
partial explorer gives what its finished cells show and waits for the rest.

The README's section opens with this text between :data:`START` and :data:`END`; the lead
regenerates it after bundling new studies with ``python -m labcore.experiments.reward_answer
--readme`` (``--check`` only compares), and a test keeps the two equal.

The parts and the lead's sentences, one per study, are in
:mod:`labcore.experiments.reward_answer_parts` and, for the reward explorer and its follow-up,
:mod:`labcore.experiments.reward_answer_explorer`; this module reads the folders, composes the
answer and keeps the README's block.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labcore.experiments.reward_answer_explorer import (
    held_part,
    held_sentence,
    sweep_part,
    sweep_sentence,
)
from labcore.experiments.reward_answer_parts import (
    ANCHOR,
    Part,
    _pdw_headline,
    e4_part,
    e4_sentence,
    neurogym_part,
    neurogym_sentence,
    pdw_part,
)
from labcore.findings import StudySummary, load_summary
from labcore.storage.studies import NEUROGYM_DIR, PDW_DIR, PDW_HELD_DIR, PDW_SWEEP_DIR

ROOT = Path(__file__).resolve().parents[2]
STUDIES = {
    "pdw": PDW_DIR,
    "pdw_sweep": PDW_SWEEP_DIR,
    "pdw_held": PDW_HELD_DIR,
    "e4": "e4",
    "neurogym": NEUROGYM_DIR,
}
"""Each part of the answer -> its folder under ``results/``."""
START, END = "<!-- reward-answer:start -->", "<!-- reward-answer:end -->"
"""The README markers between which the generated answer stands."""


@dataclass(frozen=True)
class RewardAnswer:
    """The answer: a lead paragraph (the registered verdict and one sentence per study) and the
    parts."""

    lead: str
    parts: tuple[Part, ...]

    @property
    def headline(self) -> str:
        """The lead's bold verdict alone (the page opens on it; the rest sits one click away).

        >>> RewardAnswer("**Not settled yet.** Song et al. found both.", ()).headline
        '**Not settled yet.**'
        """
        end = self.lead.find("**", 2) if self.lead.startswith("**") else -1
        return self.lead[: end + 2] if end > 0 else self.lead

    def markdown(self) -> str:
        """The whole answer as Markdown: the lead, then each part under its bold label."""
        return "\n\n".join([self.lead, *(f"**{p.title}.** {p.text}" for p in self.parts)])


# --------------------------------------------------------------------------- reading the folders
def read_summaries(
    results_dir: Path | str = ROOT / "results",
) -> dict[str, StudySummary | dict | None]:
    """Each study's summary under ``results_dir`` (None where missing or unusable): the studies of
    NeuroGym's task through the one validated loader, E4's result set as its JSON."""
    found: dict[str, StudySummary | dict | None] = {}
    for key, folder in STUDIES.items():
        loaded = load_summary(Path(results_dir) / folder, study=key).summary
        if key == "e4":  # E4's part still reads its summary as JSON (e4_text.e4_fields)
            found[key] = None if loaded is None else loaded.model_dump(mode="json")
        else:
            found[key] = loaded
    return found


# --------------------------------------------------------------------------- the lead (8.7's
# rewrite rules)
def compose(summaries: Mapping[str, StudySummary | Mapping[str, Any] | None]) -> RewardAnswer:
    """The lab's answer from the studies' summaries (``read_summaries``; a missing one is None)."""
    pdw, sweep, held, e4, neurogym = (summaries.get(k) for k in STUDIES)
    headline, plain = _pdw_headline(pdw)
    lead = " ".join(
        x
        for x in [
            headline,
            sweep_sentence(sweep),
            held_sentence(held),
            neurogym_sentence(neurogym),
            e4_sentence(e4),
        ]
        if x
    )
    anchor = Part(
        "anchor",
        f"The anchor: {ANCHOR}",
        (
            'Song, Yang & Wang, "Reward-based training of recurrent neural networks '
            "for cognitive and value-based "
            'tasks" (eLife 6:e21492), trained recurrent networks (GRUs) with a policy '
            "gradient from the task's reward "
            "alone on Kiani & Shadlen's (2009) post-decision wager and found the "
            "monkeys' two signatures: the sure "
            "option chosen more often the weaker the evidence, and higher accuracy on "
            "trials where it was offered and "
            "waived than where it was not offered. Their training stopped once the "
            "sure option was chosen on about half "
            "of the trials offering it."
        ),
        True,
    )
    return RewardAnswer(
        lead,
        (
            anchor,
            pdw_part(pdw),
            sweep_part(sweep),
            held_part(held),
            e4_part(e4),
            neurogym_part(neurogym, plain),
        ),
    )


def answer_markdown(results_dir: Path | str = ROOT / "results") -> str:
    """The whole answer (Markdown) from the studies under ``results_dir``."""
    return compose(read_summaries(results_dir)).markdown()


# --------------------------------------------------------------------------- the README
def readme_block(readme: str) -> str | None:
    """The README's text between :data:`START` and :data:`END` (stripped), or None without both
    markers."""
    match = re.search(re.escape(START) + r"(.*?)" + re.escape(END), readme, flags=re.S)
    return match.group(1).strip() if match else None


def rewrite_readme(readme: str, text: str) -> str:
    """``readme`` with the text between the markers replaced by ``text``; raises ValueError
    without them."""
    if readme_block(readme) is None:
        raise ValueError(f"the README has no {START} ... {END} block")
    return re.sub(
        re.escape(START) + r".*?" + re.escape(END),
        lambda _: f"{START}\n{text}\n{END}",
        readme,
        count=1,
        flags=re.S,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.experiments.reward_answer [--readme | --check] [--results DIR]``: print
    the answer,
    rewrite the README's block from the bundled studies, or check that it is current (exit 1 if
    not)."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.experiments.reward_answer", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--results",
        default=str(ROOT / "results"),
        help="the folder holding pdw/, pdw_sweep/, e4/, "
        "explore_neurogym/ (default: the bundled results/)",
    )
    parser.add_argument(
        "--readme", action="store_true", help="rewrite README.md's block between the markers"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when README.md's block is not the generated text",
    )
    parser.add_argument("--readme-path", default=str(ROOT / "README.md"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    text = answer_markdown(args.results)
    path = Path(args.readme_path)
    if args.check:
        current = readme_block(path.read_text(encoding="utf-8"))
        if current != text.strip():
            print(
                (
                    f"{path} is not current: run `python -m "
                    "labcore.experiments.reward_answer --readme`"
                ),
                file=sys.stderr,
            )
            return 1
        print(f"{path} states the generated answer")
        return 0
    if args.readme:
        path.write_text(rewrite_readme(path.read_text(encoding="utf-8"), text), encoding="utf-8")
        print(f"rewrote the answer in {path}")
        return 0
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
