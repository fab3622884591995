"""The lab's URL state: every control a page shares through its link, typed, in one place.

Learned from TensorFlow Playground: every setting is a control, and the whole view is a link.
:class:`LabState` holds the controls, :meth:`LabState.to_params` writes them as a query string's
values and :func:`parse_params` reads them back, clamping what is invalid: an unknown or
out-of-range value is replaced by the nearest valid one and a plain-language notice says so, never
an exception. :func:`query` is how a link into a page is written (the lesson's steps, the Home
page's cards, the Mystery page's code): fields of the typed state, so a key or a value is typed
once. Pure (no Streamlit): ``ui/state.py`` and ``ui/controls.py`` bind it to the app.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from labcore.config import (
    AGENT_KINDS,
    MASKING_DEFAULT,
    NOISE_MODES,
    SALIENCE_BLOCKS,
    SELF_MODEL_MODES,
    SELF_NOISE_DOSES,
    SILENCED_DOSES,
    AgentConfig,
)
from labcore.findings import Problem

TASK_CHOICES = ("dual", "masking", "wagering", "ood")
"""Tasks of the Rollout theatre (the masking and OOD variants of the dual task included)."""
MAX_SLOTS = AgentConfig().n_slots
"""Upper end of the capacity control: the agents' slot count K."""
MAX_NOISE = 1.0
MAX_EPISODE = 999
SOA_RANGE = (2, 20)
MAX_MASKS = 8


@dataclass(frozen=True)
class LabState:
    """Every control a page can share through its URL."""

    agent: str = "b2_ws"
    seed: int = 0
    self_model_mode: str = "on"
    capacity: int = MAX_SLOTS
    """Active workspace slots (converted with labcore.interventions.capacity_scale)."""
    noise: float = 0.0
    noise_mode: str = "stored"
    episode: int = 0
    soa: int = MASKING_DEFAULT[0]
    masks: int = MASKING_DEFAULT[1]
    task: str = "dual"
    normalisation: str = "zlib"
    """PCI-A normalisation (a value of labcore.measures.PCI_NORMALISATIONS; the page supplies
    them)."""
    compare: tuple[str, ...] = ("b1", "b2", "b2_ws", "hot_only")
    """Agent kinds compared in the bundled noise titration (comma-separated in the URL)."""
    geometry: str = "layernorm"
    """E3 design study: write geometry of the design shown."""
    loop: str = "open"
    """E3 design study: open or closed loop."""
    gain: float = 1.0
    """E3 design study: readout gain."""
    schedule: str = "fast"
    """E3 design study: training schedule."""
    design_noise: str = "stored"
    """E3 design study: noise protocol (one of NOISE_MODES)."""
    explorer_cell: str = "S"
    """Reward explorer (protocol 8.7): the cell shown ("S", "S-<factor>", "O", "O+<factor>"; the
    page supplies them)."""
    pdw_policy: str = "sampled"
    """Song et al. reproduction: which choices of the networks are drawn ("sampled", registered,
    or "greedy")."""
    signal: str = "h"
    """Integration study: the recorded signal whose values are shown (the page supplies them)."""
    variant: str = "intact"
    """Integration study: the signal as the agent runs ("intact") or its answer to a pulse
    ("evoked")."""
    code: str = ""
    """Mystery agent: a puzzle's code (``labcore.classroom.mystery.decode`` reads it, refusing
    text longer than ``mystery.MAX_CODE_TEXT``; :func:`parse_params` leaves it to the page)."""
    predict: bool = False
    """"Predict first" switched on: the page asks for a prediction before it shows a lesion's
    result (the lesson's lesion steps link with it; ``ui/predict.py`` reads it with
    :func:`parse_flag`, :func:`parse_params` leaves it to it)."""
    projector: bool = False
    """Projector mode: larger type in metrics, captions and figures for the back row
    (``ui/projector.py`` reads it with :func:`parse_flag`; :func:`parse_params` leaves it)."""
    step: int = 1
    """Lesson: the step shown (``labcore.classroom.lesson.parse_step`` reads and clamps it;
    :func:`parse_params` leaves it to the page)."""
    silenced: float = 0.0
    """Metacognition, the measured variant: the fraction of the self-model's units silenced (a
    dose of ``labcore.config.SILENCED_DOSES``)."""
    self_noise: float = 0.0
    """Metacognition, the measured variant: the SD of the noise added to the self-model (a dose of
    ``labcore.config.SELF_NOISE_DOSES``)."""
    route_off: bool = False
    """Metacognition, the measured variant: the confidence's policy route switched off."""
    block: float = SALIENCE_BLOCKS[1]
    """Metacognition, the measured variant: the flash's salience (a block of
    ``labcore.config.SALIENCE_BLOCKS``)."""

    def to_params(self, keys: Sequence[str]) -> dict[str, str]:
        """The query-string form of the chosen fields (a list as comma-separated names).

        >>> LabState(compare=("b1", "b2"), gain=10.0).to_params(["compare", "gain"])
        {'compare': 'b1,b2', 'gain': '10'}
        >>> LabState(predict=True).to_params(["predict", "projector"])
        {'predict': '1', 'projector': '0'}
        """
        values = asdict(self)

        def text(v: Any) -> str:
            if isinstance(v, bool):
                return "1" if v else "0"
            if isinstance(v, list | tuple):
                return ",".join(str(x) for x in v)
            return f"{v:g}" if isinstance(v, float) else str(v)

        return {k: text(values[k]) for k in keys}


def query(**values: Any) -> dict[str, str]:
    """The query parameters of a link: the given fields of :class:`LabState`, in the order given,
    written as :meth:`LabState.to_params` writes them (an unknown field is a ``TypeError``).

    >>> query(agent="b1", seed=0, capacity=0, noise=0.1)
    {'agent': 'b1', 'seed': '0', 'capacity': '0', 'noise': '0.1'}
    """
    return LabState(**values).to_params(list(values))


FLAGS = ("predict", "projector")
"""Switches a link may carry beside any page's controls (fields of :class:`LabState`, read by
their owners with :func:`parse_flag`): ``ui.controls.publish`` keeps them in the URL."""
FLAG_VALUES = {"1": True, "0": False, "true": True, "false": False, "on": True, "off": False}
"""How a switch may be written in a URL (case ignored); :meth:`LabState.to_params` writes 1 or 0."""


def parse_flag(key: str, raw: str | Sequence[str] | None) -> tuple[bool | None, str | None]:
    """A switch of :data:`FLAGS` read from its URL value (a repeated key: its last value): None
    when absent; anything but :data:`FLAG_VALUES` is off, with a notice, like every URL value.

    >>> parse_flag("predict", "1"), parse_flag("projector", ["0", "true"]), parse_flag("x", None)
    ((True, None), (True, None), (None, None))
    >>> parse_flag("projector", "yes please")
    (False, "projector='yes please' is not 1 or 0; using 0.")
    """
    if raw is not None and not isinstance(raw, str):
        raw = raw[-1] if raw else None
    if raw is None:
        return None, None
    value = FLAG_VALUES.get(raw.strip().lower())
    if value is None:
        return False, f"{key}={echo(raw)} is not 1 or 0; using 0."
    return value, None


LEGACY_PARAMS = {"self_model": "self_model_mode", "protocol": "noise_mode"}
"""URL parameters renamed since links were first shared: old name -> new name."""


def _nearest(value: float, options: Sequence[int]) -> int:
    return min(options, key=lambda o: (abs(o - value), o))


ECHO_LIMIT = 40
"""Characters of a URL value quoted back in a notice (a 5,000-character value is not echoed)."""


def echo(value: object, limit: int = ECHO_LIMIT) -> str:
    """A URL value as a notice quotes it: ``repr``, cut to ``limit`` characters.

    >>> echo("abc"), len(echo("x" * 5000)), echo("x" * 5000)[-3:]
    ("'abc'", 40, "x'…")
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 2] + "'…"


def parse_params(
    raw: Mapping[str, str | list[str]],
    *,
    agents: Sequence[str],
    seeds: Mapping[str, Sequence[int]],
    default: LabState | None = None,
    options: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[LabState, list[str]]:
    """Read a state from query parameters, clamping what is invalid.

    Parameters
    ----------
    raw : the URL's query parameters (a repeated key uses its last value)
    agents : agent kinds this page offers
    seeds : available seeds per agent kind
    default : values for missing parameters
    options : valid values of the fields whose choices the page knows (``normalisation``,
        ``geometry``, ``loop``, ``gain``, ``schedule``, ``compare``, ``explorer_cell``,
        ``pdw_policy``, ``signal``, ``variant``); a field without them keeps its default (no page
        shows it)

    Returns
    -------
    state, notices : the valid state and one sentence per corrected parameter (a
        :class:`labcore.findings.Problem`: ``name`` the parameter, ``kind`` what was wrong:
        ``"renamed"``, ``"ignored"``, ``"unknown"``, ``"not_an_option"``, ``"not_a_number"``,
        ``"out_of_range"``, ``"not_whole"``, ``"not_available"``).

    Examples
    --------
    >>> s, notes = parse_params({"capacity": "9", "noise": "x"}, agents=["b1"],
    ...                         seeds={"b1": [0, 1]}, default=LabState(agent="b1"))
    >>> s.capacity, s.noise
    (4, 0.0)
    >>> notes[0]
    'capacity=9 is out of range (0-4); using 4.'

    A link from before the renaming still works, with a notice:

    >>> s, notes = parse_params({"self_model": "zero"}, agents=["b2_ws"], seeds={"b2_ws": [0]})
    >>> s.self_model_mode, notes
    ('zero', ["The URL parameter 'self_model' is now called 'self_model_mode'; reading
    self_model=zero as self_model_mode=zero."])
    """
    base = default or LabState(agent=agents[0])
    if base.agent not in agents:
        base = LabState(**{**asdict(base), "agent": agents[0]})
    read = _ParamReader(_renamed(raw), asdict(base))
    read.choice("agent", agents)
    read.choice("self_model_mode", SELF_MODEL_MODES)
    read.choice("noise_mode", NOISE_MODES)
    read.choice("task", TASK_CHOICES)
    read.number("capacity", 0, MAX_SLOTS, integer=True)
    read.number("noise", 0.0, MAX_NOISE, integer=False)
    read.number("episode", 0, MAX_EPISODE, integer=True)
    read.number("soa", SOA_RANGE[0], SOA_RANGE[1], integer=True)
    read.number("masks", 0, MAX_MASKS, integer=True)
    read.choice("design_noise", NOISE_MODES)
    read.level("silenced", SILENCED_DOSES)
    read.level("self_noise", SELF_NOISE_DOSES)
    read.level("block", SALIENCE_BLOCKS)
    read.switch("route_off")
    options = options or {}
    for key in (
        "normalisation",
        "geometry",
        "loop",
        "schedule",
        "explorer_cell",
        "pdw_policy",
        "signal",
        "variant",
    ):
        if key in options:
            read.choice(key, [str(o) for o in options[key]])
    if "gain" in options:
        read.gain([float(o) for o in options["gain"]])
    read.compare(list(options.get("compare", AGENT_KINDS)))
    read.seed(list(seeds.get(read.values["agent"], [])) or [0])
    return LabState(**read.values), read.notices


def _renamed(raw: Mapping[str, str | list[str]]) -> tuple[dict[str, Any], list[str]]:
    """The query with old parameter names read as their new ones, and a notice per renaming;
    then a notice per unknown parameter."""
    raw, notices = dict(raw), []
    for old, new in LEGACY_PARAMS.items():
        if old not in raw:
            continue
        value = raw.pop(old)
        if new in raw:
            notices.append(
                Problem(
                    f"Ignoring the old URL parameter {old!r}: {new!r} is given too.", old, "ignored"
                )
            )
            continue
        raw[new] = value
        shown = value[-1] if isinstance(value, list) and value else value
        shown = shown if isinstance(shown, str) and len(shown) <= ECHO_LIMIT else echo(shown)
        notices.append(
            Problem(
                f"The URL parameter {old!r} is now called {new!r}; reading {old}={shown} "
                f"as {new}={shown}.",
                old,
                "renamed",
                new,
            )
        )
    known = {f.name for f in fields(LabState)}
    notices += [
        Problem(f"Ignoring the unknown URL parameter {echo(key)}.", str(key), "unknown")
        for key in raw
        if key not in known
    ]
    return raw, notices


class _ParamReader:
    """Reads one query parameter at a time into ``values``, clamping and noting what it corrects."""

    def __init__(self, renamed: tuple[dict[str, Any], list[str]], values: dict[str, Any]) -> None:
        self.raw, self.notices = renamed
        self.values = values

    def text(self, key: str) -> str | None:
        """The parameter's text (a repeated key: its last value), or None when absent."""
        v = self.raw.get(key)
        if isinstance(v, list):
            v = v[-1] if v else None
        return None if v is None else str(v).strip()

    def choice(self, key: str, options: Sequence[str]) -> None:
        """One of ``options``, else the default with a notice."""
        v = self.text(key)
        if v is None:
            return
        if v in options:
            self.values[key] = v
        else:
            self.notices.append(
                Problem(
                    f"{key}={echo(v)} is not one of {', '.join(options)}; "
                    f"using {self.values[key]}.",
                    key,
                    "not_an_option",
                )
            )

    def number(self, key: str, lo: float, hi: float, integer: bool) -> None:
        """A finite number clamped to [lo, hi] (rounded to a whole number or to 2 decimals)."""
        v = self.text(key)
        if v is None:
            return
        try:
            x = float(v)
            if not math.isfinite(x):
                raise ValueError
        except ValueError:
            self.notices.append(
                Problem(
                    f"{key}={echo(v)} is not a number; using {self.values[key]}.",
                    key,
                    "not_a_number",
                )
            )
            return
        clamped = min(max(x, lo), hi)
        value = round(clamped) if integer else round(clamped, 2)
        if clamped != x:
            self.notices.append(
                Problem(
                    f"{key}={v} is out of range ({lo:g}-{hi:g}); using {value}.",
                    key,
                    "out_of_range",
                )
            )
        elif integer and value != x:
            self.notices.append(
                Problem(f"{key}={v} is not a whole number; using {value}.", key, "not_whole")
            )
        self.values[key] = int(value) if integer else float(value)

    def level(self, key: str, levels: Sequence[float]) -> None:
        """A number snapped to the nearest of ``levels`` (a registered dose), with a notice when it
        was not one of them; text that is no number keeps the default, with a notice."""
        v = self.text(key)
        if v is None:
            return
        try:
            x = float(v)
            if not math.isfinite(x):
                raise ValueError
        except ValueError:
            self.notices.append(
                Problem(
                    f"{key}={echo(v)} is not a number; using {self.values[key]:g}.",
                    key,
                    "not_a_number",
                )
            )
            return
        value = min(levels, key=lambda o: (abs(o - x), o))
        if value != x:
            shown = ", ".join(f"{o:g}" for o in levels)
            self.notices.append(
                Problem(
                    f"{key}={echo(v)} is not one of {shown}; using {value:g}.", key, "not_an_option"
                )
            )
        self.values[key] = float(value)

    def switch(self, key: str) -> None:
        """A switch written 1 or 0 (as :data:`FLAG_VALUES`), else off with a notice."""
        value, notice = parse_flag(key, self.raw.get(key))
        if value is not None:
            self.values[key] = value
        if notice:
            self.notices.append(Problem(notice, key, "not_an_option"))

    def gain(self, allowed: list[float]) -> None:
        """One of the allowed gains (compared as numbers), else the default with a notice."""
        v = self.text("gain")
        if v is None:
            return
        try:
            wanted = float(v)
        except ValueError:
            wanted = math.nan
        if wanted in allowed:
            self.values["gain"] = wanted
        else:
            self.notices.append(
                Problem(
                    f"gain={echo(v)} is not one of {', '.join(f'{o:g}' for o in allowed)}; "
                    f"using {self.values['gain']:g}.",
                    "gain",
                    "not_an_option",
                )
            )

    def compare(self, allowed: list[str]) -> None:
        """The comma-separated agents to compare, keeping the allowed ones in order, once each."""
        v = self.text("compare")
        if v is None:
            return
        names = [n.strip() for n in v.split(",") if n.strip()]
        kept = tuple(dict.fromkeys(n for n in names if n in allowed))
        if dropped := [n for n in names if n not in allowed]:
            self.notices.append(
                Problem(
                    f"compare: {', '.join(echo(n) for n in dropped[:5])} "
                    f"{'is' if len(dropped) == 1 else 'are'} not an agent here; left out.",
                    "compare",
                    "not_an_option",
                    ",".join(dropped),
                )
            )
        self.values["compare"] = kept

    def seed(self, available: list[int]) -> None:
        """An available seed of the chosen agent (the nearest one to a number that is not)."""
        v = self.text("seed")
        if v is not None:
            try:
                wanted = float(v)
                if not math.isfinite(wanted):
                    raise ValueError
                if wanted not in available:
                    nearest = _nearest(wanted, available)
                    self.notices.append(
                        Problem(
                            f"seed={v} is not available for {self.values['agent']}; using "
                            f"{nearest} (nearest).",
                            "seed",
                            "not_available",
                        )
                    )
                    self.values["seed"] = nearest
                else:
                    self.values["seed"] = int(wanted)
            except ValueError:
                self.notices.append(
                    Problem(
                        f"seed={echo(v)} is not a number; using {available[0]}.",
                        "seed",
                        "not_a_number",
                    )
                )
                self.values["seed"] = available[0]
        if self.values["seed"] not in available:
            self.values["seed"] = available[0]
