"""The answer's parts on Song et al.'s task, E4 and protocol 8.6, each study's sentence for the
lead,
and what every part shares (issue 23).

:mod:`labcore.experiments.reward_answer` composes the lab's answer to "does metacognition emerge
from
reward alone?" from these: :func:`pdw_part` (protocol 8.7's reproduction of Song et al.),
:func:`e4_part` (E4 and "E4 again", protocol 8.8.6's text) and :func:`neurogym_part` (protocol 8.6's
older cell), with :func:`_pdw_headline` (the registered verdict), :func:`neurogym_sentence` and
:func:`e4_sentence` for the lead; the reward explorer's parts and sentences (the explorer and its
post hoc follow-up) are in :mod:`labcore.experiments.reward_answer_explorer`. Both modules use
:class:`Part`, :data:`COMMANDS`, the number words, and :func:`usable`, which says whether a
study's summary holds what its part reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from labcore import render
from labcore.experiments.e4 import FIRST_SCHEDULE
from labcore.experiments.e4_text import REPRODUCE as E4_COMMAND
from labcore.experiments.e4_text import answer as e4_answer
from labcore.experiments.e4_text import e4_fields
from labcore.experiments.pdw_findings import signature_outcome
from labcore.findings import Finding, StudySummary
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES, WAIVED_COHERENCES
from labcore.storage.studies import NEUROGYM_DIR
from labcore.training.neurogym_trainer import SONG_2017

COMMANDS = {
    "pdw": "python -m labcore study pdw --jobs 2",
    "pdw_sweep": "python -m labcore study pdw_sweep --jobs 2",
    "pdw_held": "python -m labcore study pdw_held --jobs 2",
    "e4": E4_COMMAND,
    "neurogym": "python -m labcore study neurogym --jobs 2",
}
"""The command that writes each study's bundled folder."""
ANCHOR = "Song, Yang & Wang (2017, eLife)"
AGENTS = {
    "plain_gru": "the plain GRU (Song et al.'s network)",
    "b2_ws": "our B2 family (workspace + z_self)",
}
OLD_CELL = "default initialisation, 1,500 updates"
"""Protocol 8.6's study as protocol 8.7 labels it."""


@dataclass(frozen=True)
class Part:
    """One study's paragraph of the answer: its label, its text, and whether its folder has run."""

    key: str
    title: str
    text: str
    ran: bool


# --------------------------------------------------------------------------- what a part reads
def usable(key: str, summary: StudySummary | Mapping[str, Any] | None) -> bool:
    """Does ``summary`` hold what its part of the answer reads: for the studies of NeuroGym's task
    a summary (validated by :func:`labcore.findings.load_summary`) of that study; for E4 its
    result set's values?"""
    if key in ("pdw", "pdw_sweep", "pdw_held", "neurogym"):
        return isinstance(summary, StudySummary) and summary.study == key
    if not isinstance(summary, Mapping):
        return False
    return summary.get("study") == "e4" and _finite(
        e4_fields(summary)["values"].get(f"e4.auroc.{A}.self_on")
    )


# --------------------------------------------------------------------------- numbers in words
A, C, A2, RISKY2 = "reward_wager", "supervised", "reward_late", "reward_late_risky"


def _finite(x: Any) -> bool:
    try:
        return x is not None and not isinstance(x, bool) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _signed(x: Any) -> str:
    return f"{float(x):+.3f}" if _finite(x) else "undefined"


def estimate_of(f: Finding | None) -> dict[str, Any] | None:
    """A finding as the ``{"mean", "ci95", "n"}`` the parts' number words read (None without
    it)."""
    if f is None:
        return None
    ci = None if f.interval is None else [f.interval.low, f.interval.high]
    return {"mean": f.value, "ci95": ci, "n": f.n}


def _estimate(s: Mapping[str, Any] | None) -> str:
    """``+0.123 (95% t interval +0.1 to +0.2, n = 5)``: a seed mean of the studies' ``interval``
    form."""
    if not s or not _finite(s.get("mean")):
        return "undefined (no seed defines it)"
    ci = s.get("ci95")
    if ci and all(map(_finite, ci)):
        return (
            f"{_signed(s['mean'])} (95% t interval {_signed(ci[0])} to {_signed(ci[1])}, n "
            f"= {s.get('n')})"
        )
    return f"{_signed(s['mean'])} (n = {s.get('n')}, no interval)"


def _pct(x: float) -> str:
    return f"{100 * float(x):.1f}%"


def _coherences(levels: Sequence[float]) -> str:
    return (
        " and ".join(f"{c:g}" for c in levels) + "%"
        if len(levels) == 2
        else ", ".join(f"{c:g}" for c in levels[:-1]) + f" and {levels[-1]:g}%"
    )


S1_WORDS = (
    f"S1, the sure option chosen more at {_coherences(LOW_COHERENCES)} coherence than at "
    f"{_coherences(HIGH_COHERENCES)}"
)
S2_WORDS = (
    f"S2, side choices more accurate when the option was offered and waived than when it was not "
    f"offered (at {_coherences(WAIVED_COHERENCES)})"
)


# --------------------------------------------------------------------------- the reproduction (8.7)
def _s(summary: StudySummary, observer: str, key: str) -> dict[str, Any] | None:
    """S1 ("s1_contrast") or S2 ("s2_waived_advantage") of ``observer`` as a seed estimate."""
    return estimate_of(summary.finding(f"pdw.{observer}.{key}"))


def _shows(outcome: str | None) -> str:
    return {
        "both": "shows both signatures",
        "neither": "shows neither signature",
        "s1": "shows S1 but not S2",
        "s2": "shows S2 but not S1",
        "undecided": "is not decided (an interval is undefined: fewer than 2 seeds define it)",
        None: "was not trained in this set",
    }[outcome]


def _agent_sentence(summary: StudySummary, agent: str) -> str:
    outcome = signature_outcome(summary, f"{agent}.reward")
    if outcome is None:
        return f"{AGENTS[agent]} was not trained in this set"
    return (
        f"{AGENTS[agent]} {_shows(outcome)}: S1 "
        f"{_estimate(_s(summary, f'{agent}.reward', 's1_contrast'))}, "
        f"S2 {_estimate(_s(summary, f'{agent}.reward', 's2_waived_advantage'))}"
    )


def _claim(summary: StudySummary, key: str) -> Mapping[str, Any] | None:
    return estimate_of(summary.finding(key))


def _stopping(summary: StudySummary, agent: str) -> str:
    """How the agent's seeds stopped (criterion or cap) and after how many updates."""
    runs = [
        n
        for n in summary.tables.get("networks") or []
        if (n["agent"], n["training"]) == (agent, "reward")
    ]
    if not runs:
        return ""
    met = [int(r["updates"]) for r in runs if r.get("stopped") == "criterion"]
    capped = [int(r["updates"]) for r in runs if r.get("stopped") != "criterion"]

    def span(xs: list[int]) -> str:
        return f"{min(xs):,}" if min(xs) == max(xs) else f"{min(xs):,}-{max(xs):,}"

    said = []
    if met:
        said.append(
            f"{len(met)} of {len(runs)} seeds met the stopping criterion (after "
            f"{span(met)} updates)"
        )
    if capped:
        said.append(
            f"{len(capped)} of {len(runs)} stopped at the cap ({span(capped)} updates) "
            "without meeting it"
        )
    return "; ".join(said)


def _registered_setting(summary: StudySummary) -> str:
    """A warning when the set was trained with another setting or fewer seeds than registered."""
    config = summary.config or {}
    seeds = summary.seeds or []
    rl = config.get("rl") or {}
    notes = []
    if rl and rl != json.loads(json.dumps(asdict(SONG_2017))):
        notes.append(
            "trained with another setting than the registered one (cap "
            f"{int(rl.get('max_updates', 0)):,} "
            f"updates, {int(rl.get('trials_per_update', 0))} trials per update)"
        )
    if len(seeds) < 5:
        notes.append(
            f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''} (the registered "
            "reading needs at least 5)"
        )
    return "" if not notes else f" This set is not the registered study: {' and '.join(notes)}."


def _ceiling(summary: StudySummary, agent: str) -> str:
    """The imitation ceiling of ``agent`` (post hoc, 8.6): whether imitating the ideal observer
    shows the signatures."""
    outcome = signature_outcome(summary, f"{agent}.imitation")
    s1 = _s(summary, f"{agent}.imitation", "s1_contrast") or {}
    s2 = _s(summary, f"{agent}.imitation", "s2_waived_advantage") or {}
    if outcome is None:
        return "its imitation ceiling was not trained in this set"
    can = {
        "both": "so the architecture can represent the behaviour",
        "neither": "so this set does not show that the architecture can represent it",
        "undecided": "so whether the architecture can represent it is not decided",
    }.get(outcome, "so the architecture represents part of it")
    return (
        "imitating the ideal observer (post hoc, the architecture's ceiling) the same "
        f"network {_shows(outcome)} "
        f"(S1 {_signed(s1.get('mean'))}, S2 "
        f"{_signed(s2.get('mean'))}), "
        f"{can}"
    )


def pdw_part(summary: StudySummary | None) -> Part:
    """The reproduction of Song et al. (protocol 8.7), per agent, with the ideal observer and the
    ceiling."""
    title = (
        "Song et al. reproduced on NeuroGym's post-decision wager (protocol 8.7, `results/pdw/`)"
    )
    if not usable("pdw", summary):
        return Part(
            "pdw",
            title,
            f"Not run yet: `{COMMANDS['pdw']}` (about 35 min on 2 cores) trains the plain GRU "
            "and our B2 family from NeuroGym's reward under Song et al.'s training, 5 seeds each.",
            False,
        )
    ideal = {
        k: _s(summary, "ideal_observer.ideal", key) or {}
        for k, key in (("s1", "s1_contrast"), ("s2", "s2_waived_advantage"))
    }
    parts = []
    for agent in AGENTS:
        sentence = _agent_sentence(summary, agent)
        sure = _claim(summary, f"pdw.{agent}.reward.p_sure_offered")
        pooled = _claim(summary, f"pdw.{agent}.reward.pooled_difference")
        extra = []
        if sure and _finite(sure.get("mean")):
            extra.append(
                f"it takes the sure option on {_pct(sure['mean'])} of the trials offering it"
            )
        if pooled and _finite(pooled.get("mean")):
            extra.append(
                "waived minus not offered, pooled over coherences (confounded by the "
                "coherence mix of "
                f"waived trials), {_signed(pooled['mean'])}"
            )
        if stop := _stopping(summary, agent):
            extra.append(stop)
        if signature_outcome(summary, f"{agent}.imitation") is not None:
            extra.append(_ceiling(summary, agent))
        parts.append(
            f"{sentence[0].upper()}{sentence[1:]}" + (f"; {'; '.join(extra)}." if extra else ".")
        )
    ideal_text = (
        "The ideal observer on the same trials: S1 "
        f"{_signed((ideal.get('s1') or {}).get('mean'))}, "
        f"S2 {_signed((ideal.get('s2') or {}).get('mean'))}."
        if ideal["s1"]
        else ""
    )
    return Part(
        "pdw",
        title,
        " ".join(
            [
                "Trained from NeuroGym's payoff alone under Song et al.'s training "
                "(REINFORCE on the full return, a separate "
                "GRU baseline, readout initialised at zero, input weights x10, "
                "entropy bonus, stopped by a behavioural "
                "criterion). The signatures appear for an agent when the 95% t "
                "interval over its seeds lies above 0 for "
                f"{S1_WORDS}, and for {S2_WORDS}.",
                *parts,
                ideal_text,
            ]
        ).strip()
        + _registered_setting(summary)
        + f" Reproduce: `{COMMANDS['pdw']}`.",
        True,
    )


# --------------------------------------------------------------------------- E4 (8.3-8.5, 8.8)
def _has_again(summary: Mapping[str, Any]) -> bool:
    return _finite(e4_fields(summary)["values"].get(f"e4.auroc.{A2}.self_on"))


def e4_part(summary: Mapping[str, Any] | None) -> Part:
    """E4 on our wagering task: protocol 8.8.6's text
    (:func:`labcore.experiments.e4_text.answer`)."""
    if not usable("e4", summary):
        return Part(
            "e4",
            "On our wagering task: E4 (protocol 8.3-8.5, 8.8, `results/e4/`)",
            f"Not run yet: `{COMMANDS['e4']}`.",
            False,
        )
    if _has_again(summary):
        return Part(
            "e4",
            (
                "On our wagering task: E4 again, then E4's first cells (protocol 8.8, "
                "8.3-8.5, `results/e4/`)"
            ),
            e4_answer(summary),
            True,
        )
    return Part(
        "e4",
        f"On our wagering task: E4's first cells only ({FIRST_SCHEDULE}; protocol 8.3-8.5, "
        "`results/e4/`)",
        e4_answer(summary) + " The cells of E4 again (protocol 8.8) are not in this set "
        "yet; the same command trains them.",
        True,
    )


def _hypothesis(summary: Mapping[str, Any], name: str) -> str:
    for h in summary.get("hypotheses") or []:
        if isinstance(h, Mapping) and h.get("id") == name:
            return str(h.get("outcome", "undefined"))
    return "not tested"


def _spread(summary: Mapping[str, Any], key: str) -> bool | None:
    entry = (summary.get("auroc_spread") or {}).get(key)
    return entry.get("meaningful") if isinstance(entry, Mapping) else None


def e4_sentence(summary: Mapping[str, Any] | None) -> str:
    """E4's outcome in one sentence for the lead (protocol 8.8.6's verdict, the AUROC and its
    spread, R2)."""
    if not usable("e4", summary):
        return f"E4 on our own wagering task has not run yet (`{COMMANDS['e4']}`)."
    again = _has_again(summary)
    summary = e4_fields(summary)
    values = summary["values"]
    if not again:
        h1 = _hypothesis(summary, "H1")
        flat = _spread(summary, f"e4.auroc.{A}.self_on") is False
        return (
            "On our own wagering task only E4's first training has run "
            f"({FIRST_SCHEDULE}): confidence learned "
            "from the wager's payoff reaches a Type-2 AUROC of "
            f"{float(values[f'e4.auroc.{A}.self_on']):.2f}"
            + (" (not meaningful: its variation changes no bet)" if flat else "")
            + (
                f" against {float(values[f'e4.auroc.{C}.self_on']):.2f} supervised (H1 "
                f"{h1}); E4 again is not run yet."
            )
        )
    r1, r2 = _hypothesis(summary, "R1"), _hypothesis(summary, "R2")
    if r1 in ("undefined", "not tested"):
        verdict = "not settled by this result set"
    else:
        verdict = {(True, True): "yes, once the training artefacts are removed"}.get(
            (r1 == "supported", r2 == "supported"),
            "partly"
            if "supported" in (r1, r2)
            else "not from reward alone, even without the training artefacts",
        )
    key = f"e4.auroc.{A2}.self_on"
    auroc = f"Type-2 AUROC {float(values[key]):.2f}" + (
        ", not meaningful: its variation changes no bet" if _spread(summary, key) is False else ""
    )
    parts = [
        "On our own wagering task (E4 again, protocol 8.8: the wager learned once the "
        "policy had converged, "
        f"head bias 0, opting out kept alive), {verdict}: confidence learned from the "
        "wager's payoff alone "
        f"{'tells right from wrong' if r1 == 'supported' else 'does not reliably tell right from'}"
        f"{'' if r1 == 'supported' else ' wrong'} "
        f"({auroc}, against {float(values[f'e4.auroc.{C}.self_on']):.2f} supervised; R1 {r1})"
    ]
    low, high = (values.get(f"e4.skip_{t}.{RISKY2}.self_on") for t in ("low", "high"))
    if _finite(low) and _finite(high):
        parts.append(
            f"when a wrong bet costs 3 it opts out on {_pct(low)} of the faintest "
            "third of flashes and "
            f"{_pct(high)} of the brightest (R2 {r2})"
        )
    ece, ece_c = values.get(f"e4.ece.{A2}.self_on"), values.get(f"e4.ece.{C}.self_on")
    if _finite(ece) and _finite(ece_c):
        parts.append(
            f"its calibration error (ECE) is {float(ece):.2f} against "
            f"{float(ece_c):.2f} supervised, "
            f"{'less' if float(ece) > float(ece_c) else 'no less'} calibrated "
            "(descriptive, not tested)"
        )
    return (
        "; ".join(parts)
        + ". E4's first training ("
        + FIRST_SCHEDULE
        + ") is kept below as a labelled cell."
    )


# --------------------------------------------------------------------------- 8.6, the older cell
def neurogym_part(summary: StudySummary | None, plain: str | None) -> Part:
    """Protocol 8.6's answer under its label (its long answer, one paragraph), with 8.7's caveat
    for the plain GRU's outcome ``plain``."""
    title = f"Older cell: NeuroGym's task, {OLD_CELL} (protocol 8.6, `results/{NEUROGYM_DIR}/`)"
    if not usable("neurogym", summary):
        return Part("neurogym", title, f"Not run yet: `{COMMANDS['neurogym']}`.", False)
    text = " ".join(render.answer(summary, "long").split())
    caveat = {
        "both": " This answer was a property of that training, not of reward alone: under Song "
        "et al.'s "
        "training (above) both signatures appear.",
        "neither": " This answer stands, with a caveat: our implementation of Song et al.'s "
        "training (above) "
        "did not reproduce their result either, a claim about our optimisation until shown "
        "otherwise.",
    }.get(plain or "", "")
    return Part("neurogym", title, text + caveat, True)


def neurogym_sentence(summary: StudySummary | None) -> str:
    """8.6's outcome in one sentence for the lead."""
    if not usable("neurogym", summary):
        return (
            "Protocol 8.6's first training on NeuroGym's task has not run yet "
            f"(`{COMMANDS['neurogym']}`)."
        )
    gap = summary.finding("neurogym.reward_sure_gap")
    reward = estimate_of(gap) or {}
    rises = {"supported": True, "not supported": False}.get(gap.outcome if gap else None)
    did = {
        True: "took the sure option more often as coherence fell",
        False: "did not take the sure option more often as coherence fell",
        None: "was not decided",
    }[rises if isinstance(rises, bool) else None]
    return (
        f"Under our first training on NeuroGym's post-decision wager ({OLD_CELL}, A2C "
        "with PyTorch's initialisation; protocol 8.6) "
        f"our B2 family {did} (S1 {_signed(reward.get('mean'))})."
    )


# --------------------------------------------------------------------------- for the lead (8.7's
# rewrite rules)
def _pdw_headline(summary: StudySummary | None) -> tuple[str, str | None]:
    """The registered verdict (protocol 8.7) and the plain GRU's outcome."""
    if not usable("pdw", summary):
        return (
            f"**Not settled yet.** {ANCHOR} trained networks from reward alone on "
            "Kiani & Shadlen's post-decision "
            f"wager and found both signatures; our reproduction of their training has not run yet "
            f"(`{COMMANDS['pdw']}`).",
            None,
        )
    plain, b2 = (signature_outcome(summary, f"{a}.reward") for a in AGENTS)
    sentences = {a: _agent_sentence(summary, a) for a in AGENTS}
    ceiling = (
        _ceiling(summary, "b2_ws")
        if signature_outcome(summary, "b2_ws.imitation") is not None
        else "its imitation ceiling was not run"
    )
    on_task = (
        "On NeuroGym's post-decision wager, trained from its reward alone under Song et "
        "al.'s training"
    )
    if plain == "both" and b2 == "both":
        head = "**Yes under Song's training; 8.6's no was a property of our training.**"
        body = f"{on_task}, {sentences['plain_gru']}, and {sentences['b2_ws']}, as {ANCHOR} found."
    elif plain == "both":
        head = (
            "**Reward teaches it to a plain GRU; our architecture does not learn it under "
            "the same training.**"
        )
        body = (
            f"{on_task}, {sentences['plain_gru']}, as {ANCHOR} found; "
            f"{sentences['b2_ws']}; {ceiling}."
        )
    elif plain == "neither":
        head = "**Not reproduced here.**"
        body = (
            f"{on_task}, {sentences['plain_gru']}, where {ANCHOR} found both: a claim "
            "about our optimisation of "
            "Song's setting until shown otherwise, so 8.6's answer stands with that "
            "caveat. Under the same "
            f"training {sentences['b2_ws']}."
        )
    elif plain in ("s1", "s2"):
        shown, missing = ("S1", "S2") if plain == "s1" else ("S2", "S1")
        head = f"**Partly: under Song's training the plain GRU shows {shown} but not {missing}.**"
        body = (
            f"{on_task}, {sentences['plain_gru']}, where {ANCHOR} found both; under "
            "the same training "
            f"{sentences['b2_ws']}."
        )
    else:
        head = "**Not decided by this set.**"
        body = f"{on_task}, {sentences['plain_gru']}; {sentences['b2_ws']}."
    return f"{head} {body}", plain
