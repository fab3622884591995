"""The reward explorer's parts of the answer and their sentences for the lead (issue 23, protocol
8.7).

:mod:`labcore.experiments.reward_answer` composes the lab's answer from :func:`sweep_part` (the
reward explorer: which training choice decides whether the sure option survives) and
:func:`held_part` (its post hoc follow-up on the five choices it held), with :func:`sweep_sentence`
and :func:`held_sentence` for the lead. They read what every part shares (:class:`Part`,
:data:`COMMANDS`, :func:`usable`, the number words) from
:mod:`labcore.experiments.reward_answer_parts`, and lived in that module until it grew past the
size cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labcore import render
from labcore.experiments.pdw_sweep_findings import FACTORS
from labcore.experiments.reward_answer_parts import (
    COMMANDS,
    Part,
    _finite,
    _signed,
    estimate_of,
    usable,
)
from labcore.findings import StudySummary


def _join(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------- the reward explorer
# (8.7)
def _level_words(factor: str, level: Mapping[str, Any]) -> str:
    field, value = next(iter(level.items()))
    if factor == "readout_init":
        return (
            "the readout initialised at zero"
            if value == "zero"
            else "PyTorch's readout initialisation"
        )
    if factor == "baseline":
        return "a separate GRU baseline" if value == "gru" else "a value head as baseline"
    words = {
        "input_scale": "input scale {:g}",
        "entropy": "entropy bonus {:g}",
        "trials_per_update": "{:g} trials per update",
        "learning_rate": "learning rate {:g}",
        "training_length": "a cap of {:,.0f} updates",
    }
    return words[factor].format(value) if _finite(value) else f"{field} {value}"


def cell_words(name: str, levels: Mapping[str, Any]) -> str:
    """A cell of the explorer in words, from the summary's ``config.levels``.

    >>> cell_words("S-entropy",
    ...            {"entropy": {"song": {"entropy_coef": 0.02}, "old": {"entropy_coef": 0.003}}})
    "Song's setting with entropy bonus 0.003"
    >>> cell_words("O", {})
    'the old default'
    """
    if name in ("S", "O"):
        return "Song's setting" if name == "S" else "the old default"
    side, factor = name[0], name[2:]
    level = (levels.get(factor) or {}).get("old" if side == "S" else "song")
    what = (
        _level_words(factor, level)
        if isinstance(level, Mapping) and level
        else factor.replace("_", " ")
    )
    return f"Song's setting with {what}" if side == "S" else f"the old default with {what}"


def _cells(summary: StudySummary) -> dict[str, Mapping[str, Any]]:
    """The cells of a run by name (the summary's ``tables.cells``), in the design's order."""
    return {c["name"]: c for c in summary.tables.get("cells") or []}


def _complete(summary: StudySummary) -> bool:
    return bool(summary.tables.get("complete")) and summary.answer is not None


def sweep_part(summary: StudySummary | None) -> Part:
    """The reward explorer (protocol 8.7): the deciding factors, or "no single choice decides it",
    and the
    cells that keep the sure option."""
    title = (
        "The reward explorer: which training choice decides it (protocol 8.7, `results/pdw_sweep/`)"
    )
    if not usable("pdw_sweep", summary):
        return Part(
            "pdw_sweep",
            title,
            f"Not run yet: `{COMMANDS['pdw_sweep']}` (about 1.9 h on 2 cores) trains the "
            "plain GRU in 16 cells, each one training choice away from Song's setting "
            "or from our old "
            "default, 3 seeds each.",
            False,
        )
    cells = _cells(summary)
    levels, keeps_at = summary.tables.get("levels") or {}, summary.tables.get("keeps_at")
    rule = (
        f"An agent keeps the sure option when S1's contrast is at least {keeps_at:g}; "
        "a cell keeps it when most of "
        f"its seeds do."
        if _finite(keeps_at)
        else ""
    )
    keeping = [n for n, c in cells.items() if isinstance(c, Mapping) and c.get("keeps")]
    losing = [n for n, c in cells.items() if isinstance(c, Mapping) and c.get("keeps") is False]

    def listed(names: Sequence[str]) -> str:
        return (
            "; ".join(
                (
                    f"`{n}` ({cell_words(n, levels)}, {cells[n].get('n_keep')} of "
                    f"{cells[n].get('n')} seeds)"
                )
                for n in names
            )
            if names
            else "none"
        )

    kept = (
        f"Cells that keep the option: {listed(keeping)}. Cells that lose it: "
        f"{', '.join(f'`{n}`' for n in losing) or 'none'}."
    )
    if not _complete(summary):
        return Part(
            "pdw_sweep",
            title,
            f"Incomplete: {len(cells)} of 16 cells in this set, so which factor decides "
            f"it is not answered yet (`{COMMANDS['pdw_sweep']}` resumes it). {rule} So far: {kept}",
            True,
        )
    effects = []
    for factor in summary.answer.params.get("deciding") or []:
        said = []
        for side, words in (
            ("from_song", "from Song's setting"),
            ("from_old", "from the old default"),
        ):
            d = estimate_of(summary.finding(f"pdw_sweep.effect.{factor}.{side}")) or {}
            if _finite(d.get("mean")):
                ci = d.get("ci95")
                said.append(
                    f"{_signed(d['mean'])} {words}"
                    + (
                        f" (Welch 95% interval {_signed(ci[0])} to {_signed(ci[1])})"
                        if ci and all(map(_finite, ci))
                        else ""
                    )
                )
        if said:
            effects.append(
                f"{factor.replace('_', ' ')} moves S1's contrast by {' and '.join(said)}"
            )
    text = render.part(summary, "decision")
    seeds = summary.seeds or []
    head = (
        f"Plain GRU, {len(cells)} cells of {len(seeds)} "
        f"seed{'s' if len(seeds) != 1 else ''}: each changes one "
        "of seven training choices "
        f"({', '.join(f.replace('_', ' ') for f in FACTORS)}) from Song's setting or "
        "from our old default (protocol 8.6's)."
    )
    return Part(
        "pdw_sweep",
        title,
        " ".join(
            x
            for x in (
                head,
                rule,
                text,
                ("Effects of the deciding factors on S1's contrast: " + "; ".join(effects) + ".")
                if effects
                else "",
                kept,
                f"Reproduce: `{COMMANDS['pdw_sweep']}`.",
            )
            if x
        ),
        True,
    )


def sweep_sentence(summary: StudySummary | None) -> str:
    """The explorer's outcome in one sentence for the lead."""
    if not usable("pdw_sweep", summary):
        return (
            "Which training choice decides it has not been explored yet (the reward "
            f"explorer: `{COMMANDS['pdw_sweep']}`)."
        )
    if not _complete(summary):
        return (
            f"The reward explorer is incomplete ({len(_cells(summary))} of 16 cells), "
            "so which training choice "
            "decides it is not answered yet."
        )
    keeping = [n for n, c in _cells(summary).items() if c.get("keeps")]
    deciding = summary.answer.params.get("deciding") or []
    if deciding:
        return (
            f"In the reward explorer (plain GRU, one training choice changed at a time), "
            f"{_join([d.replace('_', ' ') for d in deciding])} "
            f"decide{'s' if len(deciding) == 1 else ''} whether "
            f"the sure option survives."
        )
    return (
        "In the reward explorer (plain GRU, one training choice changed at a time) no "
        "single choice decides "
        "whether the sure option survives; cells that keep it: "
        f"{_join([f'`{n}`' for n in keeping]) if keeping else 'none'}."
    )


# --------------------------------------------------------------------------- what the explorer held
# (post hoc)
HELD_WORDS = {
    "return": "GAE's lambda 0.95 instead of the full return",
    "normalisation": "advantages normalised",
    "clipping": "gradients clipped at norm 0.5 instead of 1",
    "policy_steps": "only the two paid steps in the gradient",
    "stopping": "no behavioural stop (every update run, the best-reward network kept)",
    "all": "all five (protocol 8.6's trainer on the plain GRU)",
}
"""Each held choice at protocol 8.6's level, in words (the post hoc follow-up)."""


def _held_complete(summary: StudySummary | None) -> bool:
    return usable("pdw_held", summary) and _complete(summary)


def held_part(summary: StudySummary | None) -> Part:
    """The post hoc follow-up of the explorer (protocol change log 2026-11-24): the five choices the
    explorer held at Song's values, each set to protocol 8.6's from the old default."""
    title = "What the explorer held (post hoc, not registered; `results/pdw_held/`)"
    why = (
        "The old-default cell keeps the sure option, yet protocol 8.6's agents gave it up: besides "
        "the seven factors, the explorer held five choices at Song's values that "
        "protocol 8.6 set otherwise, "
        "and trained the plain GRU, not the B2 family."
    )
    if not usable("pdw_held", summary):
        return Part(
            "pdw_held",
            title,
            f"Not run yet: `{COMMANDS['pdw_held']}` (about 15 min on 2 cores) "
            f"sets each of them to 8.6's value from the old default. {why}",
            False,
        )
    cells = _cells(summary)
    seeds = summary.seeds or []

    def cell_text(name: str) -> str:
        c = cells[name]
        s1 = summary.value(f"pdw_held.{name}.s1")
        what = "the old default" if name == "O" else HELD_WORDS.get(name.split("~", 1)[-1], name)
        return (
            f"`{name}` ({what}): keeps it in {c.get('n_keep')} of {c.get('n')} seeds, S1 mean "
            f"{_signed(s1)}"
        )

    listing = "; ".join(cell_text(n) for n in cells if isinstance(cells[n], Mapping))
    if not _held_complete(summary):
        return Part(
            "pdw_held",
            title,
            f"{why} Incomplete ({len(cells)} of 7 cells, `{COMMANDS['pdw_held']}` "
            f"resumes it). So far: {listing}.",
            True,
        )
    effects = []
    for cell in summary.tables.get("design_cells", [])[1:]:
        name = cell.split("~", 1)[-1]
        e = estimate_of(summary.finding(f"pdw_held.effect.{name}")) or {}
        if _finite(e.get("mean")):
            ci = e.get("ci95")
            effects.append(
                f"{name.replace('_', ' ')} {_signed(e['mean'])}"
                + (
                    f" ({_signed(ci[0])} to {_signed(ci[1])})"
                    if ci and all(map(_finite, ci))
                    else ""
                )
            )
    text = " ".join(
        x
        for x in (
            why,
            (
                "Each set alone to 8.6's value from the old default (plain GRU, "
                f"{len(seeds)} seeds per cell):"
            ),
            f"{listing}.",
            render.part(summary, "decision"),
            (
                "Effects on S1's contrast, the cell minus the old default (Welch 95% interval): "
                + "; ".join(effects)
                + "."
            )
            if effects
            else "",
            f"Reproduce: `{COMMANDS['pdw_held']}`.",
        )
        if x
    )
    return Part("pdw_held", title, text, True)


def held_sentence(summary: StudySummary | None) -> str:
    """The follow-up's outcome for the lead (empty until it has run in full)."""
    if not _held_complete(summary):
        return ""
    text = render.part(summary, "decision")
    first = text[:1].lower() if text[1:2].islower() else text[:1]  # "GAE's" keeps its capitals
    return f"Post hoc, on what the explorer held: {first}{text[1:]}"
