"""The lab's URL state: every control a page shares through its link, typed, in one place.

:func:`parse_params` reads a link back, replacing an invalid value by the nearest valid one with
a plain-language notice, never an exception. Pure: ``ui/state.py`` binds it to the app.
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
"""Tasks of the Rollout theatre."""
MAX_SLOTS = AgentConfig().n_slots
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
    """Active workspace slots."""
    noise: float = 0.0
    noise_mode: str = "stored"
    episode: int = 0
    soa: int = MASKING_DEFAULT[0]
    masks: int = MASKING_DEFAULT[1]
    task: str = "dual"
    normalisation: str = "zlib"
    """PCI-A normalisation (a value of ``measures.PCI_NORMALISATIONS``)."""
    compare: tuple[str, ...] = ("b1", "b2", "b2_ws", "hot_only")
    """Agent kinds compared in the bundled noise titration."""
    geometry: str = "layernorm"
    """E3 design study: write geometry."""
    loop: str = "open"
    """E3 design study: open or closed loop."""
    gain: float = 1.0
    """E3 design study: readout gain."""
    schedule: str = "fast"
    """E3 design study: training schedule."""
    design_noise: str = "stored"
    """E3 design study: noise protocol."""
    explorer_cell: str = "S"
    """Reward explorer (protocol 8.7): the cell shown."""
    pdw_policy: str = "sampled"
    """Song et al. reproduction: "sampled" (registered) or "greedy" choices."""
    signal: str = "h"
    """Integration study: the recorded signal shown."""
    variant: str = "intact"
    """Integration study: "intact" or "evoked" (the answer to a pulse)."""
    code: str = ""
    """Mystery agent: a puzzle's code (the page reads it)."""
    predict: bool = False
    """"Predict first": ask for a prediction before a lesion's result (``ui/predict.py``)."""
    projector: bool = False
    """Projector mode: larger type for the back row (``ui/projector.py``)."""
    step: int = 1
    """Lesson: the step shown (the page reads it)."""
    silenced: float = 0.0
    """Metacognition, measured variant: a dose of ``SILENCED_DOSES``."""
    self_noise: float = 0.0
    """Metacognition, measured variant: a dose of ``SELF_NOISE_DOSES``."""
    route_off: bool = False
    """Metacognition, measured variant: the confidence's policy route off."""
    block: float = SALIENCE_BLOCKS[1]
    """Metacognition, measured variant: the flash's salience (``SALIENCE_BLOCKS``)."""

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
    """The query parameters of a link: the given fields of :class:`LabState`, in order.

    >>> query(agent="b1", seed=0, capacity=0, noise=0.1)
    {'agent': 'b1', 'seed': '0', 'capacity': '0', 'noise': '0.1'}
    """
    return LabState(**values).to_params(list(values))


FLAGS = ("predict", "projector")
"""Switches a link may carry beside any page's controls."""
FLAG_VALUES = {"1": True, "0": False, "true": True, "false": False, "on": True, "off": False}
"""How a switch may be written in a URL (case ignored)."""


def parse_flag(key: str, raw: str | Sequence[str] | None) -> tuple[bool | None, str | None]:
    """A switch read from its URL value: None when absent; an unknown value is off, with a notice.

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
"""URL parameters renamed since links were first shared."""


ECHO_LIMIT = 40
"""Characters of a URL value quoted back in a notice."""


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

    ``agents``: the kinds this page offers; ``seeds``: per kind; ``options``: valid values of
    the fields whose choices the page knows (one without them keeps its default). Returns the
    state and one :class:`~labcore.findings.Problem` per corrected parameter.

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
    """The query with old parameter names renamed, and a notice per renamed or unknown one."""
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

    def note(self, text: str, key: str, kind: str, field: str = "") -> None:
        """Add a notice about parameter ``key``."""
        self.notices.append(Problem(text, key, kind, field))

    def finite(self, key: str, v: str, using: str) -> float | None:
        """``v`` as a finite number, else None with a notice that ``using`` stands instead."""
        try:
            x = float(v)
        except ValueError:
            x = math.nan
        if math.isfinite(x):
            return x
        self.note(f"{key}={echo(v)} is not a number; using {using}.", key, "not_a_number")
        return None

    def choice(self, key: str, options: Sequence[str]) -> None:
        """One of ``options``, else the default with a notice."""
        v = self.text(key)
        if v is None:
            return
        if v in options:
            self.values[key] = v
        else:
            self.note(
                f"{key}={echo(v)} is not one of {', '.join(options)}; using {self.values[key]}.",
                key,
                "not_an_option",
            )

    def number(self, key: str, lo: float, hi: float, integer: bool) -> None:
        """A finite number clamped to [lo, hi] (rounded to a whole number or to 2 decimals)."""
        v = self.text(key)
        if v is None:
            return
        x = self.finite(key, v, f"{self.values[key]}")
        if x is None:
            return
        clamped = min(max(x, lo), hi)
        value = round(clamped) if integer else round(clamped, 2)
        if clamped != x:
            self.note(
                f"{key}={v} is out of range ({lo:g}-{hi:g}); using {value}.", key, "out_of_range"
            )
        elif integer and value != x:
            self.note(f"{key}={v} is not a whole number; using {value}.", key, "not_whole")
        self.values[key] = int(value) if integer else float(value)

    def level(self, key: str, levels: Sequence[float]) -> None:
        """A number snapped to the nearest of ``levels`` (a registered dose), with a notice."""
        v = self.text(key)
        if v is None:
            return
        x = self.finite(key, v, f"{self.values[key]:g}")
        if x is None:
            return
        value = min(levels, key=lambda o: (abs(o - x), o))
        if value != x:
            shown = ", ".join(f"{o:g}" for o in levels)
            self.note(
                f"{key}={echo(v)} is not one of {shown}; using {value:g}.", key, "not_an_option"
            )
        self.values[key] = float(value)

    def switch(self, key: str) -> None:
        """A switch written 1 or 0 (as :data:`FLAG_VALUES`), else off with a notice."""
        value, notice = parse_flag(key, self.raw.get(key))
        if value is not None:
            self.values[key] = value
        if notice:
            self.note(notice, key, "not_an_option")

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
            self.note(
                f"gain={echo(v)} is not one of {', '.join(f'{o:g}' for o in allowed)}; "
                f"using {self.values['gain']:g}.",
                "gain",
                "not_an_option",
            )

    def compare(self, allowed: list[str]) -> None:
        """The comma-separated agents to compare, keeping the allowed ones in order, once each."""
        v = self.text("compare")
        if v is None:
            return
        names = [n.strip() for n in v.split(",") if n.strip()]
        kept = tuple(dict.fromkeys(n for n in names if n in allowed))
        if dropped := [n for n in names if n not in allowed]:
            self.note(
                f"compare: {', '.join(echo(n) for n in dropped[:5])} "
                f"{'is' if len(dropped) == 1 else 'are'} not an agent here; left out.",
                "compare",
                "not_an_option",
                ",".join(dropped),
            )
        self.values["compare"] = kept

    def seed(self, available: list[int]) -> None:
        """An available seed of the chosen agent (the nearest one to a number that is not)."""
        v = self.text("seed")
        wanted = None if v is None else self.finite("seed", v, f"{available[0]}")
        if v is not None and wanted is None:
            self.values["seed"] = available[0]
        elif wanted is not None and wanted not in available:
            nearest = min(available, key=lambda o: (abs(o - wanted), o))
            self.note(
                f"seed={v} is not available for {self.values['agent']}; using {nearest} (nearest).",
                "seed",
                "not_available",
            )
            self.values["seed"] = nearest
        elif wanted is not None:
            self.values["seed"] = int(wanted)
        if self.values["seed"] not in available:
            self.values["seed"] = available[0]
