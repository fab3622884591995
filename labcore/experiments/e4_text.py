"""The answer of an E4 result set in plain language (docs/protocol.md sec. 8.8.6 and 8.2-8.5):
the first cells and those of "E4 again" in words, each hypothesis's outcome, the ideal-observer
argument, and the command that reproduces the set.

The hypotheses, their tests and the spread rule it reads are
:mod:`labcore.experiments.e4_hypotheses`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labcore.config import RISKY_WRONG_BET_PAYOFF
from labcore.experiments.e4 import AGAIN_SCHEDULE, FIRST_SCHEDULE
from labcore.experiments.e4_hypotheses import (
    A2,
    RAW,
    RISKY2,
    SGD,
    A,
    C,
    _finite,
    ideal_observer,
    spread_text,
)


# --------------------------------------------------------------------------- what it reads
def e4_fields(summary: Mapping[str, Any] | Any) -> dict[str, Any]:
    """What the words read from an E4 summary (``summary.json`` of the study ``e4``, as a dict or
    a :class:`~labcore.findings.StudySummary`): ``values``, ``hypotheses`` and ``auroc_spread``
    (its tables), each claim's t interval (``claims``: ``id``, ``ours.ci95``, from its finding),
    ``seeds`` and ``config``. {} for anything else."""
    if hasattr(summary, "model_dump"):
        summary = summary.model_dump(mode="json")
    if not isinstance(summary, Mapping):
        return {}
    tables = summary.get("tables") if isinstance(summary.get("tables"), Mapping) else {}
    claims = []
    for f in summary.get("findings") or []:
        if isinstance(f, Mapping):
            iv = f.get("interval") if isinstance(f.get("interval"), Mapping) else None
            ci = [iv.get("low"), iv.get("high")] if iv else None
            claims.append({"id": f.get("id"), "ours": {"ci95": ci}})
    return {
        "values": tables.get("values") or {},
        "hypotheses": tables.get("hypotheses") or [],
        "auroc_spread": tables.get("auroc_spread") or {},
        "claims": claims,
        "seeds": summary.get("seeds") or [],
        "config": summary.get("config") or {},
    }


# --------------------------------------------------------------------------- the answer in words
def reproduce_command(seeds: int = 5) -> str:
    """The command that writes an E4 result set of ``seeds`` seeds (5: the bundled one)."""
    more = "" if seeds == 5 else f" --set seeds={','.join(map(str, range(seeds)))}"
    return f"python -m labcore study e4{more} --out results/e4"


REPRODUCE = reproduce_command()
"""The command that writes the bundled E4 result set."""


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def outcome_text(hypothesis: Mapping[str, Any] | None) -> str:
    """A hypothesis's outcome, with which of its conditions hold when some do and some do not.

    >>> outcome_text({"id": "H3", "outcome": "not supported", "conditions": [
    ...     {"short": "fewer opt-outs than (c)", "holds": False}, {"short": "a higher ECE than (c)",
    ...                                                            "holds": True}]})
    'H3 not supported: a higher ECE than (c) holds, fewer opt-outs than (c) does not'
    """
    if not hypothesis:
        return "not in this result set"
    head = f"{hypothesis.get('id', '?')} {hypothesis.get('outcome', 'undefined')}"
    rows = [r for r in hypothesis.get("conditions") or [] if isinstance(r, Mapping)]
    held = [str(r.get("short") or r.get("what")) for r in rows if r.get("holds") is True]
    failed = [str(r.get("short") or r.get("what")) for r in rows if r.get("holds") is False]
    if held and failed:
        return f"{head}: {', '.join(held)} holds, {', '.join(failed)} does not"
    return head


def all_or_nothing(values: Mapping[str, Any], arm: str) -> str:
    """A sentence when an arm's opt-outs split over seeds into all or nothing, else "".

    Reads the counts of :func:`labcore.experiments.e4.cross_seed` from ``values``: said only
    when every measured seed opts out on (almost) every wager trial or on (almost) none and at
    least one does the former, because the mean opt-out rate then describes no agent.

    >>> all_or_nothing({"e4.seeds_opting_out_always.x": 2, "e4.seeds_opting_out_never.x": 18,
    ...                 "e4.seeds_opting_out_measured.x": 20}, "x")[:56]
    ' Per seed it is all or nothing: 2 of 20 agents opted out'
    >>> all_or_nothing({"e4.seeds_opting_out_always.x": 0, "e4.seeds_opting_out_never.x": 5,
    ...                 "e4.seeds_opting_out_measured.x": 5}, "x")
    ''
    """
    always, never, measured = (
        values.get(f"e4.seeds_opting_out_{k}.{arm}") for k in ("always", "never", "measured")
    )
    if not all(_finite(x) for x in (always, never, measured)):
        return ""
    always, never, measured = int(always), int(never), int(measured)
    if always < 1 or always + never != measured:
        return ""
    rest = f", the other {never} on (almost) none" if never else ""
    return (
        f" Per seed it is all or nothing: {always} of {measured} agents opted out on "
        "(almost) every wager "
        f"trial whatever the flash{rest}, so the mean opt-out rate describes no agent."
    )


def answer(summary: Mapping[str, Any]) -> str:
    """The answer of an E4 result set in plain language, every number read from ``summary``.

    With the cells of "E4 again" (protocol 8.8.3) it leads with them, as protocol 8.8.6 registers:
    R1 and R2 decide the verdict ("Yes, once the training artefacts are removed" / "Partly" /
    "Not from reward alone, even without the training artefacts"), then cell (a')'s confidence,
    the risky payoff (R2), centring (R3) and the optimiser (R4); the first cells follow under their
    label (:data:`~labcore.experiments.e4.FIRST_SCHEDULE`). Without them it is the first answer:
    H1 (primary) says whether confidence is above chance, uninformative or inverted; then betting
    and calibration against the supervised arm, the ideal-observer argument of protocol 8.2 (why
    this payoff gives almost no reason to discriminate), the risky payoff (H4), the controls (H6),
    the lesion (H5, by construction). Every AUROC whose spread fails the rule of protocol 8.8.4 says
    "not meaningful" with its spread (sets made before the rule have no spread and say nothing of
    it), and "inverted" is said only of a meaningful AUROC. It ends with the command that
    reproduces the set. A set without E4's values says so.

    Parameters
    ----------
    summary : mapping or StudySummary
        ``summary.json`` of the study ``e4`` (read through :func:`e4_fields`: the tables'
        ``values``, ``hypotheses`` and ``auroc_spread``, the claims' t intervals, ``seeds``).

    Returns
    -------
    str
        One Markdown paragraph.
    """
    summary = e4_fields(summary)
    values = summary.get("values") or {}
    if not all(
        _finite(values.get(f"e4.{m}.{arm}.self_on"))
        for m in ("accuracy", "auroc")
        for arm in (A, C)
    ):
        return (
            "This result set holds no E4 answer yet (the reward-trained and supervised "
            "arms' accuracy and Type-2 "
            f"AUROC are missing or undefined). Write it with `{REPRODUCE}`."
        )
    n = len(summary.get("seeds") or [])
    again = _again_text(summary)
    first = _first_text(summary, labelled=bool(again))
    return " ".join(
        [*([again] if again else []), first, f"Reproduce: `{reproduce_command(n or 5)}`."]
    )


def _spread_note(summary: Mapping[str, Any], key: str) -> str:
    """The spread of the AUROC ``key`` in words when it fails the rule (protocol 8.8.4), else ""."""
    entry = (summary.get("auroc_spread") or {}).get(key)
    if not entry or entry.get("meaningful") is not False:
        return ""
    return spread_text(entry, (summary.get("config") or {}).get("e1_trials"))


def _meaningful(summary: Mapping[str, Any], key: str) -> bool | None:
    """Whether the AUROC ``key`` is meaningful (protocol 8.8.4); None for a set without the rule."""
    entry = (summary.get("auroc_spread") or {}).get(key)
    return None if not entry else entry.get("meaningful")


def _interval_text(summary: Mapping[str, Any], key: str, note: str = "") -> str:
    """ " (95% t interval lo to hi, n = k seeds[; note])" of a claim, or the seed count without
    one."""
    claims = {c.get("id"): c for c in summary.get("claims") or [] if isinstance(c, Mapping)}
    ci = (claims.get(key) or {}).get("ours", {}).get("ci95")
    n = len(summary.get("seeds") or [])
    extra = f"; {note}" if note else ""
    if ci and all(map(_finite, ci)):
        return f" (95% t interval {ci[0]:.2f} to {ci[1]:.2f}, n = {n} seeds{extra})"
    return f" (n = {n} seed{'s' if n != 1 else ''}; no interval{extra})"


def _updates_text(
    values: Mapping[str, Any],
    arm: str,
    what: str = "train_updates",
    text: str = ", stopped after {} updates",
) -> str:
    """``text`` with the range of the records' update counts (``e4.<what>_min/_max.<arm>``), or
    ""."""
    lo, hi = (values.get(f"e4.{what}_{k}.{arm}") for k in ("min", "max"))
    if not (_finite(lo) and _finite(hi)):
        return ""
    return text.format(f"{int(lo):,}" if lo == hi else f"{int(lo):,}-{int(hi):,}")


def _again_text(summary: Mapping[str, Any]) -> str:
    """The cells of "E4 again" in words (protocol 8.8.6), or "" when they are not in the set."""
    values = summary.get("values") or {}
    hyps = {h.get("id"): h for h in summary.get("hypotheses") or [] if isinstance(h, Mapping)}
    v = {m: values.get(f"e4.{m}.{A2}.self_on") for m in ("accuracy", "auroc", "skip", "confidence")}
    if not all(_finite(v[m]) for m in ("accuracy", "auroc")):
        return ""
    r1, r2 = ((hyps.get(h) or {}).get("outcome", "undefined") for h in ("R1", "R2"))
    if r1 in ("undefined", "not tested"):
        head = f"**Not settled by this result set** (R1 {r1})."
    else:
        verdict = {
            (True, True): "Yes, once the training artefacts are removed.",
            (True, False): "Partly.",
            (False, True): "Partly.",
        }.get(
            (r1 == "supported", r2 == "supported"),
            "Not from reward alone, even without the training artefacts.",
        )
        head = f"**{verdict}**"
    key = f"e4.auroc.{A2}.self_on"
    rows = {
        r.get("key"): r
        for r in (hyps.get("R1") or {}).get("conditions") or []
        if isinstance(r, Mapping)
    }
    ci = (rows.get(key) or {}).get("ci95")
    au, au_c = float(v["auroc"]), float(values[f"e4.auroc.{C}.self_on"])
    spread = spread_text(
        (summary.get("auroc_spread") or {}).get(key), (summary.get("config") or {}).get("e1_trials")
    )
    interval = _interval_text(summary, key, spread)
    if r1 == "supported":
        how = f"its confidence tells right from wrong: Type-2 AUROC {au:.2f}{interval}"
    elif _meaningful(summary, key) is False:
        how = (
            "the payoff drove its confidence to where its variation changes no bet: "
            f"Type-2 AUROC {au:.2f}"
            f"{interval}"
        )
    elif ci and all(map(_finite, ci)) and ci[1] < 0.5:
        how = (
            "its confidence varies enough to matter but ranks backwards, higher on "
            "its errors: Type-2 AUROC "
            f"{au:.2f}{interval}"
        )
    else:
        how = (
            "its confidence varies enough to matter but does not tell right from "
            "wrong reliably: Type-2 AUROC "
            f"{au:.2f}{interval}"
        )
    parts = [
        f"{head} Trained on the wager's payoff alone, with the wager learned only once "
        "its policy had converged "
        f"({AGAIN_SCHEDULE}{_updates_text(values, A2, 'wager_updates', ', {} wager updates')}, "
        "centred "
        f"self-model features; protocol 8.8), the agent reaches an accuracy of "
        f"{_pct(float(v['accuracy']))} and {how}, against {au_c:.2f} for the "
        f"supervised agent ({outcome_text(hyps.get('R1'))})."
    ]
    if _finite(v["skip"]) and _finite(v["confidence"]):
        parts.append(
            f"It bets on {_pct(1 - float(v['skip']))} of wager trials with a mean confidence of "
            f"{float(v['confidence']):.3f}."
        )
    risky = {t: values.get(f"e4.skip{t}.{RISKY2}.self_on") for t in ("", "_low", "_high")}
    if all(_finite(x) for x in risky.values()):
        io = ideal_observer(RISKY_WRONG_BET_PAYOFF)
        parts.append(
            "When a wrong bet costs 3 (an ideal observer opts out on the faintest "
            f"{_pct(io['opt_out'])} of "
            f"flashes) it opts out on {_pct(float(risky['']))} of wager trials "
            f"({_pct(float(risky['_low']))} "
            f"on the faintest third, {_pct(float(risky['_high']))} on the brightest; "
            f"{outcome_text(hyps.get('R2'))})." + all_or_nothing(values, RISKY2)
        )
    raw = values.get(f"e4.auroc.{RAW}.self_on")
    if _finite(raw):
        note = _spread_note(summary, f"e4.auroc.{RAW}.self_on")
        parts.append(
            f"With raw instead of centred features the AUROC is {float(raw):.2f} "
            f"({f'{note}; ' if note else ''}{outcome_text(hyps.get('R3'))})."
        )
    sgd, cos_raw, cos_sgd = (
        values.get(k)
        for k in (
            f"e4.auroc.{SGD}.self_on",
            f"e4.head_mean_cosine.{RAW}",
            f"e4.head_mean_cosine.{SGD}",
        )
    )
    if all(_finite(x) for x in (sgd, cos_raw, cos_sgd)):
        note = _spread_note(summary, f"e4.auroc.{SGD}.self_on")
        parts.append(
            "With plain SGD instead of Adam on the wager head (raw features) the "
            "head's weight has a cosine "
            f"of {float(cos_sgd):.2f} with the mean z_self (Adam: "
            f"{float(cos_raw):.2f}) and the AUROC is "
            f"{float(sgd):.2f} ({f'{note}; ' if note else ''}{outcome_text(hyps.get('R4'))})."
        )
    return " ".join(parts)


def _first_text(summary: Mapping[str, Any], labelled: bool = False) -> str:
    """The cells of protocol 8.3 in words; ``labelled``: after the cells of "E4 again", under the
    first schedule's label instead of as the answer's lead."""
    values = summary.get("values") or {}
    hyps = {h.get("id"): h for h in summary.get("hypotheses") or [] if isinstance(h, Mapping)}
    v = {
        k: values.get(k)
        for k in (
            f"e4.{m}.{arm}.self_on"
            for m in ("accuracy", "auroc", "skip", "ece", "confidence")
            for arm in (A, C, "reward_wager_risky", "reward_logits", "reward_workspace")
        )
    }
    acc_a, acc_c = (float(v[f"e4.accuracy.{arm}.self_on"]) for arm in (A, C))
    au_a, au_c = (float(v[f"e4.auroc.{arm}.self_on"]) for arm in (A, C))
    key_a = f"e4.auroc.{A}.self_on"
    claims = {c.get("id"): c for c in summary.get("claims") or [] if isinstance(c, Mapping)}
    ci = (claims.get(key_a) or {}).get("ours", {}).get("ci95")
    interval = _interval_text(summary, key_a, _spread_note(summary, key_a))
    h1 = (hyps.get("H1") or {}).get("outcome", "undefined")
    chooses = (
        (
            f"chooses about as accurately as the supervised one (accuracy {_pct(acc_a)} vs "
            f"{_pct(acc_c)})"
        )
        if abs(acc_a - acc_c) <= 0.02
        else f"reaches an accuracy of {_pct(acc_a)} (supervised {_pct(acc_c)})"
    )
    flat = _meaningful(summary, key_a) is False
    inverted = bool(ci and all(map(_finite, ci)) and ci[1] < 0.5) and not flat
    if labelled:
        lead = (
            f"With the first schedule ({FIRST_SCHEDULE}{_updates_text(values, A)}; "
            "protocol 8.3) the agent "
            f"trained on the wager's payoff alone {chooses}, "
        )
        lead += {
            "supported": "and its confidence tells right from wrong above chance",
            "not supported": "but "
            + (
                "its confidence barely varies, in an order no bet depends on"
                if flat
                else "its confidence is **inverted**, higher on its errors than on its correct "
                "choices"
                if inverted
                else "its confidence says nothing reliable about whether it is right"
            ),
        }.get(h1, "and its confidence is not settled by this result set")
        lead += (
            f": Type-2 AUROC {au_a:.2f}{interval}, against {au_c:.2f} for the supervised "
            f"agent (H1 {h1})."
        )
    elif h1 == "supported":
        lead = (
            "**Partly.** Trained on the wager's payoff alone (no correctness label), "
            f"the agent {chooses} and "
            "its confidence tells right from wrong above chance: Type-2 AUROC "
            f"{au_a:.2f}{interval}, against "
            f"{au_c:.2f} for the supervised agent."
        )
    elif h1 == "not supported":
        how = (
            "its confidence barely varies, in an order no bet depends on"
            if flat
            else "its confidence is **inverted**, higher on its errors than on its correct choices"
            if inverted
            else "its confidence says nothing reliable about whether it is right"
        )
        lead = (
            "**Not from this reward.** Trained on the wager's payoff alone (no "
            "correctness label), the agent "
            f"{chooses}, but {how}: Type-2 AUROC {au_a:.2f}{interval}, where 0.5 is "
            "chance, against "
            f"{au_c:.2f} for the supervised agent."
        )
    else:
        lead = (
            f"**Not settled by this result set** (H1 {h1}). Trained on the wager's "
            "payoff alone, the agent's "
            f"accuracy is {_pct(acc_a)} (supervised {_pct(acc_c)}) and its Type-2 "
            f"AUROC {au_a:.2f}{interval} "
            f"(supervised {au_c:.2f})."
        )
    parts = [lead]
    if all(_finite(v[f"e4.{m}.{arm}.self_on"]) for m in ("skip", "ece") for arm in (A, C)):
        conf = v[f"e4.confidence.{A}.self_on"]
        parts.append(
            f"It bets on {_pct(1 - float(v[f'e4.skip.{A}.self_on']))} of wager trials (supervised "
            f"{_pct(1 - float(v[f'e4.skip.{C}.self_on']))})"
            + (f" with a mean confidence of {float(conf):.3f}" if _finite(conf) else "")
            + f", and its calibration error (ECE) is {float(v[f'e4.ece.{A}.self_on']):.2f} against "
            f"{float(v[f'e4.ece.{C}.self_on']):.2f} ({outcome_text(hyps.get('H3'))})."
        )
    ideal = ideal_observer(-1.0)
    bets_always = _finite(v[f"e4.skip.{A}.self_on"]) and float(v[f"e4.skip.{A}.self_on"]) <= 0.05
    parts.append(
        (
            "That is what this payoff teaches"
            if bets_always
            else "Under this payoff betting always is optimal"
        )
        + " (protocol 8.2): with +1 for a right bet, -1 for a wrong one and 0 for "
        "opting out, a bet is worth 2 P(correct) - 1, never negative for an agent at "
        "or above chance, and on this "
        "task no trial is below chance for an ideal observer (it is right on "
        f"{_pct(ideal['accuracy'])} of trials, "
        "and at least half the time on each). "
        "The reward-optimal wager is therefore to bet always, and once the agent bets "
        "on everything, being more "
        "confident when right than when wrong earns nothing: reward alone gives almost "
        "no incentive to discriminate."
        + (
            (
                " The argument explains why the confidence carries no information, not why "
                "it is inverted."
            )
            if inverted
            else ""
        )
    )
    risky = {t: values.get(f"e4.skip{t}.reward_wager_risky.self_on") for t in ("", "_low", "_high")}
    if all(_finite(x) for x in risky.values()):
        io = ideal_observer(RISKY_WRONG_BET_PAYOFF)
        parts.append(
            f"Even when a wrong bet costs 3 (break-even at {_pct(io['break_even'])} "
            "correct, where an ideal "
            f"observer would opt out on the faintest {_pct(io['opt_out'])} of flashes) "
            "it opted out on "
            f"{_pct(float(risky['']))} of wager trials ({_pct(float(risky['_low']))} "
            "on the faintest third, "
            f"{_pct(float(risky['_high']))} on the brightest; {outcome_text(hyps.get('H4'))})"
            + (
                ": so the missing incentive is not the whole story, since where opting "
                "out would pay the agent "
                "still did not learn to."
                if float(risky[""]) <= 0.01 and io["opt_out"] > 0.1
                else "."
            )
            + all_or_nothing(values, "reward_wager_risky")
        )
    lo, ws = v["e4.auroc.reward_logits.self_on"], v["e4.auroc.reward_workspace.self_on"]
    if _finite(lo) and _finite(ws):
        notes = [
            _spread_note(summary, f"e4.auroc.{arm}.self_on")
            for arm in ("reward_logits", "reward_workspace")
        ]
        lo_text, ws_text = (
            f"{float(x):.2f}" + (f" ({note})" if note else "")
            for x, note in zip((lo, ws), notes, strict=True)
        )
        parts.append(
            f"Confidence heads reading only the policy's logits or only the workspace reach AUROC "
            f"{lo_text} and {ws_text} ({outcome_text(hyps.get('H6'))})."
        )
    b = {
        m: values.get(f"e4.{m}.reward_all.self_on")
        for m in ("accuracy", "auroc", "skip", "confidence_sd")
    }
    if all(_finite(x) for x in b.values()):  # arm (b), exploratory (protocol 8.3)
        note = _spread_note(summary, "e4.auroc.reward_all.self_on")
        parts.append(
            "Without any demonstration (arm b: policy and wager by actor-critic from "
            "the task's reward) "
            f"the agent learns the task (accuracy {_pct(float(b['accuracy']))}) and "
            "the same wager: it bets "
            f"on {_pct(1 - float(b['skip']))} of wager trials with a confidence that "
            "barely varies (SD "
            f"{float(b['confidence_sd']):.1e} across trials), Type-2 AUROC {float(b['auroc']):.2f}"
            + (f" ({note})" if note else "")
            + "."
        )
    if (hyps.get("H5") or {}).get("outcome") == "supported":
        parts.append(
            "Zeroing z_self leaves the reward-trained agent's accuracy unchanged and "
            "sets its AUROC to 0.5, "
            "as its wiring fixes (H5: by construction, reported, not counted)."
        )
    return " ".join(parts)
