"""The one renderer: findings become words here and nowhere else.

One number formatter (:func:`fmt`), the chance levels' and glossary's words, a finding's parts
as words, and a study's answer from its template (``labcore/templates/<study>.j2``) in three
forms: ``short`` (at most 30 words), ``readme`` (at most 120) and ``long``. A template naming a
finding the summary lacks fails loudly (``StrictUndefined``).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from pydantic import BaseModel, ConfigDict, TypeAdapter

from labcore.checks import check_choice
from labcore.config import CHANCE_LEVELS
from labcore.findings import Finding, Flag, PaperValue, StudySummary

TEMPLATES = Path(__file__).resolve().parent / "templates"
UNDEFINED = "not defined here"
"""How an undefined value reads (a flag or the table says why)."""


# ----------------------------------------------------------------------------- numbers
def finite(x: Any) -> bool:
    """True for a finite number (or numeric string); False for None, nan, inf, bools and text.

    >>> finite(0.2), finite("0.2"), finite(None), finite(float("nan")), finite("> 0.5")
    (True, True, False, False, False)
    """
    if isinstance(x, bool):
        return False
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def fmt(x: Any, unit: str = "number", digits: int = 3, *, sign: bool = False) -> str:
    """A number as a reader sees it: the one formatter of the lab.

    ``digits`` significant digits (percent: ``digits - 2`` decimals), scientific below 1e-3 and
    from 1e5; None, nan and inf read :data:`UNDEFINED`; ``sign``: a plus on positive numbers.

    >>> fmt(0.12345), fmt(None), fmt(3.0, digits=2), fmt(0.8561, "percent")
    ('0.123', 'not defined here', '3', '85.6%')
    >>> fmt(12000, "count"), fmt(0.78, "ratio"), fmt(0.05, "difference", sign=True)
    ('12,000', 'x0.78', '+0.05')
    >>> fmt(2.8e-05), fmt(-0.0)
    ('2.8e-05', '0')
    """
    if not finite(x):
        return UNDEFINED
    x = float(x) + 0.0  # -0.0 -> 0.0
    plus = "+" if sign and x > 0 else ""
    if unit == "percent":
        return f"{plus}{x * 100:.{max(1, digits - 2)}f}%"
    if unit == "count":
        return f"{plus}{round(x):,}"
    if unit == "ratio":
        return f"x{x:.{digits - 1}g}"
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
        return f"{plus}{x:.{max(1, digits - 1)}e}".replace("e-0", "e-").replace("e+0", "e+")
    return f"{plus}{x:.{digits}g}"


def pct(x: Any) -> str:
    """A proportion as a percentage (:func:`fmt` with ``unit="percent"``)."""
    return fmt(x, "percent")


def words(text: str) -> int:
    """Words a reader reads in ``text`` (markdown marks and link targets not counted).

    >>> words("**Yes**: AUROC 0.84 ([page](app_pages/x.py)).")
    4
    """
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return len(re.findall(r"[\w.%+-]*\w[\w.%+-]*", text))


# ----------------------------------------------------------------------------- chance
@dataclass(frozen=True)
class ChanceText:
    """A chance level's value and its words."""

    value: float
    text: str


def chance(name: str, unit: str = "number") -> ChanceText:
    """A chance level of :data:`labcore.config.CHANCE_LEVELS` with its words.

    >>> chance("decision").text, chance("conjunction").text, chance("auroc").text
    ('1/7 (14.3%)', '1/49 (2.0%)', '0.5')
    >>> chance("wager", "percent").text
    '50.0%'
    """
    level = CHANCE_LEVELS[name]
    if level.fraction:
        return ChanceText(level.value, f"{level.fraction} ({pct(level.value)})")
    return ChanceText(level.value, fmt(level.value, unit))


def chance_text(name: str, unit: str = "number") -> str:
    """``"chance 1/7 (14.3%)"``: the label of a chance line."""
    return f"chance {chance(name, unit).text}"


# ----------------------------------------------------------------------------- glossary
class Term(BaseModel):
    """One glossary entry: the name a visitor reads and one plain-words definition."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    plain: str


@functools.cache
def glossary() -> dict[str, Term]:
    """The glossary (``labcore/templates/glossary.json``), validated."""
    data = json.loads((TEMPLATES / "glossary.json").read_text(encoding="utf-8"))
    return TypeAdapter(dict[str, Term]).validate_python(data)


def term(key: str) -> Term:
    """One term of the glossary; a KeyError names the missing key."""
    return glossary()[key]


# ----------------------------------------------------------------------------- a finding
def paper_text(paper: PaperValue | Mapping[str, Any] | None, unit: str = "number") -> str:
    """The paper's value: ``"0.885 ± 0.04"``, ``"> 0.5"``, ``"not reported"``.

    >>> paper_text(PaperValue(value=0.885, sd=0.04)), paper_text({"value": 0.5, "bound": ">"})
    ('0.885 ± 0.04', '> 0.5')
    >>> paper_text(None), paper_text(PaperValue(value=0.885, sd=0.04), "percent")
    ('not reported', '88.5% ± 4.0%')
    """
    if paper is None:
        return "not reported"
    p = paper if isinstance(paper, PaperValue) else PaperValue.model_validate(dict(paper))
    if p.value is None:
        return "not reported"
    if p.bound:
        return f"{p.bound} {fmt(p.value, unit)}"
    return fmt(p.value, unit) + (f" ± {fmt(p.sd, unit)}" if p.sd is not None else "")


def value_text(f: Finding, *, with_n: bool = True) -> str:
    """Our value: ``"0.856 ± 0.014 (n = 5)"``, ``"> 0.5 (4/5 seeds)"``, ``"not defined here"``.

    >>> value_text(Finding(id="a", question="?", value=0.8561, sd=0.0123, n=5))
    '0.856 ± 0.012 (n = 5)'
    >>> value_text(Finding(id="a", question="?", censored="right", bound=0.5, n_censored=4, n=5))
    '> 0.5 (4/5 seeds)'
    """
    if f.censored:
        sign = ">" if f.censored == "right" else "<="
        return f"{sign} {fmt(f.bound, f.unit)} ({f.n_censored}/{f.n} seeds)"
    if f.value is None:
        return UNDEFINED
    sd = f" ± {fmt(f.sd, f.unit, 2)}" if f.sd is not None and f.n > 1 else ""
    n = f" (n = {f.n})" if with_n and f.n > 1 else ""
    return f"{fmt(f.value, f.unit)}{sd}{n}"


def interval_text(f: Finding) -> str:
    """``"95% CI 0.83 to 0.86"`` (empty without an interval).

    >>> from labcore.findings import Interval
    >>> interval_text(Finding(id="a", question="?", value=0.5,
    ...                       interval=Interval(low=0.41, high=0.6)))
    '95% CI 0.41 to 0.6'
    """
    i = f.interval
    if i is None or not (finite(i.low) and finite(i.high)):
        return ""
    return f"{round(i.level * 100)}% CI {fmt(i.low, f.unit)} to {fmt(i.high, f.unit)}"


SENTENCES = json.loads((TEMPLATES / "sentences.json").read_text(encoding="utf-8"))
VERDICT_RULES: dict[str, str] = SENTENCES["verdict"]
"""Why a verdict came out as it did, one sentence per branch of :func:`labcore.paper.verdict`."""
FLAG_RULES: dict[tuple[str, str], str] = {
    (kind, rule): text for kind, rules in SENTENCES["flag"].items() for rule, text in rules.items()
}
"""One sentence per flag (kind, rule), filled from the flag's params (and note)."""


def verdict_text(f: Finding, contrast: str = "") -> str:
    """The reason of a finding's verdict in words (empty without a verdict)."""
    if f.verdict is None:
        return ""
    template = VERDICT_RULES.get(f.verdict_rule, "")
    return template.format(
        paper=paper_text(f.paper, f.unit),
        ours=value_text(f, with_n=False),
        pattern=f.pattern or "none registered",
        contrast=contrast or "see the claims table",
    )


def flag_text(flag: Flag) -> str:
    """A flag in words (its rule's sentence, else its note, else its kind).

    >>> flag_text(Flag(kind="not_comparable", rule="zero_variance",
    ...                params={"zero": 8, "kinds": 11}))
    'nothing to predict: the OOD gap is exactly 0 for 8 of 11 agent kinds'
    """
    template = FLAG_RULES.get((flag.kind, flag.rule)) or FLAG_RULES.get((flag.kind, ""))
    params = {k: fmt(v) if isinstance(v, float) else v for k, v in flag.params.items()}
    if template:
        try:
            return template.format(note=flag.note, **params)
        except (KeyError, IndexError):
            pass
    return flag.note or flag.kind.replace("_", " ")


def note_text(f: Finding) -> str:
    """Every flag of a finding in words, joined."""
    return "; ".join(flag_text(fl) for fl in f.flags)


def findings_table(findings: Iterable[Finding], *, paper: bool = True) -> list[dict[str, str]]:
    """Findings as table rows: Question, Ours, (Paper, Verdict,) Evidence, Note."""
    rows = []
    for f in findings:
        row = {"Question": f.question, "Ours": value_text(f)}
        ci = interval_text(f)
        if ci:
            row["Ours"] += f"; {ci}"
        if paper:
            row["Paper"] = paper_text(f.paper, f.unit) if f.paper else ""
            row["Verdict"] = f.verdict or (f.outcome or "")
        row["Evidence"] = "yes" if f.evidence else "counted apart"
        row["Note"] = note_text(f)
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- templates
class SummaryView:
    """What a template sees of a summary: ``s.f("id")``, ``s.v("id")``, ``s.answer``,
    ``s.tables``, ``s.summary``, ``s.say("short")`` (a macro of the study's own template)."""

    def __init__(self, summary: StudySummary, **context: Any) -> None:
        self.summary = summary
        self.answer = summary.answer
        self.tables = summary.tables
        self.context = context
        self._by_id = summary.by_id

    def f(self, finding_id: str) -> Finding:
        """The finding ``finding_id`` (a KeyError names the study and the id)."""
        try:
            return self._by_id[finding_id]
        except KeyError:
            raise KeyError(
                f"the {self.summary.study} summary has no finding {finding_id!r}"
            ) from None

    def v(self, finding_id: str) -> float | None:
        """The value of finding ``finding_id``."""
        return self.f(finding_id).value

    def has(self, finding_id: str) -> bool:
        """Whether the summary has finding ``finding_id``."""
        return finding_id in self._by_id

    def say(self, macro: str = "short", /, **args: Any) -> str:
        """Macro ``macro`` of the study's template, called with ``args`` (short forms squashed)."""
        module = _module(f"{self.summary.study}.j2", {"s": self, **self.context})
        text = str(getattr(module, macro)(**args)).strip()
        return _squash(text) if macro in ("short", "readme") else text


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of every template (filters: the formatters above)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(
        fmt=fmt,
        pct=pct,
        value=value_text,
        interval=interval_text,
        paper=paper_text,
        verdict=verdict_text,
        flag=flag_text,
        note=note_text,
        join=join,
    )
    env.globals.update(chance=chance, chance_text=chance_text, term=term, fmt=fmt, pct=pct)
    return env


FORMS = ("short", "readme", "long")
WORD_LIMITS = {"short": 30, "readme": 120}
"""At most this many words per form (a page's first line; a README answer)."""


def _squash(text: str) -> str:
    return re.sub(r"[ \t]*\n[ \t]*(?!\n)", " ", text.strip()).replace("  ", " ")


def _module(template: str, context: Mapping[str, Any]) -> Any:
    """Template ``template`` of ``labcore/templates`` as a module of macros, seeing ``context``."""
    return environment().get_template(template).make_module(dict(context))


def answer(summary: StudySummary, form: str = "short", **extra: Any) -> str:
    """A study's answer in words, from its template's macro ``form``."""
    check_choice(form, "form", FORMS)
    return SummaryView(summary, **extra).say(form)


def compose(template: str, form: str = "short", /, **inputs: Any) -> str:
    """Words drawn from several studies at once: macro ``form`` of ``templates/<template>``.

    A :class:`StudySummary` keyword reaches the template as a :class:`SummaryView`; None stands
    for a study not run yet; any other keyword is passed as it is (to each study's template too).
    """
    extra = {k: v for k, v in inputs.items() if v is not None and not isinstance(v, StudySummary)}
    seen = {
        k: SummaryView(v, **extra) if isinstance(v, StudySummary) else v for k, v in inputs.items()
    }
    text = str(getattr(_module(template, seen), form)()).strip()
    return _squash(text) if form in ("short", "readme") else text


def macro(summary: StudySummary, name: str, **extra: Any) -> str:
    """Any other macro of a study's template as one paragraph (e.g. the paper's ``counts``)."""
    return _squash(SummaryView(summary, **extra).say(name))


def render(template: str, **context: Any) -> str:
    """Any template of ``labcore/templates`` filled with ``context`` (the report, the handout)."""
    return environment().get_template(template).render(**context)


def markdown_html(text: str) -> str:
    """Markdown (a long answer) as HTML for the report; raw HTML in ``text`` is escaped.

    >>> markdown_html("**Yes**: <b>")
    '<p><strong>Yes</strong>: &lt;b&gt;</p>'
    """
    import html

    import markdown

    return markdown.markdown(html.escape(text, quote=False), extensions=["sane_lists"])


def has_template(study: str) -> bool:
    """Whether ``study`` has an answer template."""
    return (TEMPLATES / f"{study}.j2").is_file()


def join(items: Sequence[str], last: str = "and") -> str:
    """``"a, b and c"``.

    >>> join(["a"]), join(["a", "b", "c"]), join([])
    ('a', 'a, b and c', '')
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def part(summary: StudySummary, macro: str, **args: Any) -> str:
    """A named macro of a study's template beyond its three forms, called with ``args``."""
    return SummaryView(summary).say(macro, **args)
