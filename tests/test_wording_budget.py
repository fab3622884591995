"""Tests assert findings, not sentences (issue 32 item 4): the few assertions on English wording
that remain are counted here, and the count may not grow past :data:`BUDGET`.

The rule, applied to every ``tests/**/*.py`` by the AST (nothing is imported):

- **counted**: a string literal of natural-language text that an ``assert`` checks against: a
  direct operand of a comparison (``==``, ``!=``, ``in``, ``not in``; also as an element of a
  tuple, list or set operand), the pattern of ``re.search``/``re.match``/``re.fullmatch`` or of
  ``.startswith``/``.endswith``/``.count``/``.find``/``.index``; the ``match=`` of
  ``pytest.raises``/``pytest.warns``; a literal passed to a test helper at a parameter that
  helper compares in an assert or a returned test, or searches for (``in``, ``startswith``) in a
  filter it returns where the assert takes the call's truth (so a helper cannot hide a sentence;
  an ``==`` in a filter looks a thing up); and a name bound to one
  literal and then checked as above (so a variable cannot hide it either);
- **natural-language text**: two or more whitespace-separated pieces that contain a letter
  (``"falls to chance"``, ``"not defined here"``; an f-string's literal parts count together, a
  pattern's escapes such as ``\\b`` and ``\\d`` are not letters; code is not wording: a command
  line, an option, markup, a Markdown row or heading, a configuration line with a ``$``);
- **not counted**: a literal a widget is looked up by (any other call argument, such as
  ``metric_value(at, "Task accuracy")``), an assertion's message (after the comma), single tokens
  (ids, keys, file names, URLs, format codes, numbers: ``"e1.auroc.b2"``, ``"1/7 (14.3%)"``),
  a text the test feeds in itself and finds again (a named literal also given to a call or put
  in a dict: a round trip, the lab carried it as it is), and a value of one of the lab's
  declared enumerations (the ``Literal`` types of
  :mod:`labcore.findings`: a verdict such as ``"partly reproduced"``, an outcome such as
  ``"not supported"``), which is a finding's value, not a sentence.

The ones that remain are where the wording itself is the behaviour (each listed in
:data:`KEPT` with the reason).
"""

from __future__ import annotations

import ast
import re
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BUDGET = 20
"""At most this many assertions on English wording in tests/ (issue 32 item 4)."""
SEARCHES = {
    "search",
    "match",
    "fullmatch",
    "startswith",
    "endswith",
    "count",
    "find",
    "index",
    "contains",
}
"""Calls whose first argument is text looked for (``re.search(p, s)``, ``s.startswith(p)``)."""
CODE = re.compile(r"\s*(python |make |git |--|-[A-Za-z]|\^?<|\||#|@|`|/\*)")
"""How code begins: a command line, an option, markup, a Markdown table row, heading or code span,
a CSS at-rule, a JavaScript or CSS comment."""


@cache
def enumerated_values() -> frozenset[str]:
    """Every value of the ``Literal`` types :mod:`labcore.findings` declares (verdicts, outcomes,
    flag kinds, units)."""
    from labcore import findings

    return frozenset(
        a
        for v in vars(findings).values()
        if typing.get_origin(v) is typing.Literal
        for a in typing.get_args(v)
        if isinstance(a, str)
    )


def is_wording(node: ast.AST) -> bool:
    """Is ``node`` a string literal (or f-string) of two or more words, and not a value of a
    declared enumeration?"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value in enumerated_values():
            return False
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    else:
        return False
    if CODE.match(text) or "$" in text:
        return False  # a command line, markup or a configuration line: code, not wording
    text = re.sub(r"\\[A-Za-z]", " ", text)  # a pattern's escapes (\b, \d, \s) are not words
    return sum(any(c.isalpha() for c in piece) for piece in text.split()) >= 2


def _operands(node: ast.Compare) -> Iterator[ast.AST]:
    for side in (node.left, *node.comparators):
        yield side
        if isinstance(side, ast.Tuple | ast.List | ast.Set):
            yield from side.elts


def _fed(module: ast.Module) -> set[str]:
    """Names ``module`` gives the code under test: an argument of a call (other than a search's
    pattern) or a value in a dict. A text a test feeds in and finds again is a round trip (the
    lab carried it as it is), not the lab's wording."""
    fed: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            search = isinstance(node.func, ast.Attribute) and node.func.attr in SEARCHES
            args = node.args[1:] if search else node.args
            fed |= {
                a.id for a in (*args, *(k.value for k in node.keywords)) if isinstance(a, ast.Name)
            }
        elif isinstance(node, ast.Dict):
            fed |= {v.id for v in node.values if isinstance(v, ast.Name)}
    return fed


def named_literals(module: ast.Module) -> dict[str, ast.AST]:
    """Names ``module`` binds to one wording literal (``posthoc = "Added after ..."``, at module
    level or in a function) and to nothing else: an assert on the name is one on the literal
    (unless the test feeds the text in itself, :func:`_fed`)."""
    bound: dict[str, list[ast.AST]] = {}
    fed = _fed(module)
    for node in ast.walk(module):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.For | ast.comprehension | ast.With | ast.NamedExpr):
            targets, value = [getattr(node, "target", None)], None
        else:
            continue
        for target in targets:
            for name in (n for n in ast.walk(target) if isinstance(n, ast.Name)) if target else ():
                one = value if isinstance(target, ast.Name) else None
                bound.setdefault(name.id, []).append(one)
    return {
        name: values[0]
        for name, values in bound.items()
        if values[0] is not None
        and name not in fed
        and is_wording(values[0])
        and all(v is not None and ast.dump(v) == ast.dump(values[0]) for v in values)
    }


def _resolved(node: ast.AST, named: dict[str, ast.AST]) -> ast.AST:
    return named.get(node.id, node) if isinstance(node, ast.Name) else node


def checked_literals(test: ast.AST, named: dict[str, ast.AST] | None = None) -> Iterator[ast.AST]:
    """The wording literals an assert's expression checks against (see the module docstring);
    ``named``: names bound to one (:func:`named_literals`)."""
    named = named or {}
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            yield from (
                _resolved(n, named) for n in _operands(node) if is_wording(_resolved(n, named))
            )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in SEARCHES and node.args:
                first = _resolved(node.args[0], named)
                if is_wording(first):
                    yield first


def _params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]


def _predicate(node: ast.AST | None) -> bool:
    """Does a helper return a test (``x in text``, ``any(...)``, ``a and b``), rather than a
    thing it looked up?"""
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("any", "all", "bool")
    return isinstance(node, ast.Compare | ast.BoolOp)


def _compared_params(node: ast.AST, params: set[str], *, equality: bool = True) -> set[str]:
    """Parameters compared (or searched for) anywhere in ``node``; without ``equality``, only
    those searched for (``in``, ``startswith``, ...): an ``==`` in a filter looks a thing up."""
    compared: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare):
            if equality or any(isinstance(op, ast.In | ast.NotIn) for op in sub.ops):
                compared |= {n.id for n in _operands(sub) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr in SEARCHES:
                compared |= {n.id for n in sub.args[:1] if isinstance(n, ast.Name)}
    return compared & params


def wording_helpers(trees: list[ast.Module]) -> dict[str, tuple[list[str], set[str], set[str]]]:
    """Functions of the tests that compare one of their parameters: name -> (its parameters in
    order, those compared in an assert or in a returned test, those compared in a filter of what
    it returns). A literal passed at the first is an assertion on wording wherever the call is; at
    the second, where the call's truth is asserted (``assert problems_naming(res, "...")``)."""
    found: dict[str, tuple[list[str], set[str], set[str]]] = {}
    for module in trees:
        for fn in ast.walk(module):
            if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("test_"):
                continue
            params = _params(fn)
            checks: set[str] = set()
            filters: set[str] = set()
            for node in ast.walk(fn):
                if isinstance(node, ast.Assert):
                    checks |= _compared_params(node.test, set(params))
                elif isinstance(node, ast.Return) and node.value is not None:
                    if _predicate(node.value):
                        checks |= _compared_params(node.value, set(params))
                    else:
                        filters |= _compared_params(node.value, set(params), equality=False)
            if checks or filters:
                old = found.get(fn.name, (params, set(), set()))
                found[fn.name] = (params, old[1] | checks, old[2] | filters)
    return found


def _truth_calls(test: ast.AST) -> Iterator[ast.Call]:
    """Calls whose truth an assert's test takes (``assert f(x)``, ``assert not f(x) and g(y)``)."""
    if isinstance(test, ast.Call):
        yield test
    elif isinstance(test, ast.BoolOp):
        for v in test.values:
            yield from _truth_calls(v)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _truth_calls(test.operand)


def _helper_literals(
    call: ast.Call,
    helpers: dict[str, tuple[list[str], set[str], set[str]]],
    truth: bool = False,
) -> Iterator[ast.AST]:
    """Wording literals ``call`` gives a helper at a parameter the helper compares (at one it
    filters by, only where the assert takes the call's truth: ``truth``)."""
    func = call.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )
    if name not in helpers:
        return
    params, checks, filters = helpers[name]
    compared = checks | (filters if truth else set())
    for i, arg in enumerate(call.args):
        if i < len(params) and params[i] in compared and is_wording(arg):
            yield arg
    for kw in call.keywords:
        if kw.arg in compared and is_wording(kw.value):
            yield kw.value


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _checked_names(fn: ast.FunctionDef) -> set[str]:
    """Names a test compares in an assert or gives as a ``match=`` (with what they hold)."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            for sub in ast.walk(node.test):
                if isinstance(sub, ast.Compare):
                    for side in _operands(sub):
                        if isinstance(side, ast.Name | ast.JoinedStr):
                            names |= _names_in(side)
                elif (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr in SEARCHES
                    and sub.args
                ):
                    names |= _names_in(sub.args[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("raises", "warns")
        ):
            for kw in node.keywords:
                if kw.arg == "match":
                    names |= _names_in(kw.value)
    return names


def _parametrized(fn: ast.FunctionDef) -> Iterator[tuple[str, ast.AST]]:
    """(argument name, one value) of each ``pytest.mark.parametrize`` of ``fn``."""
    for deco in fn.decorator_list:
        if not (
            isinstance(deco, ast.Call)
            and isinstance(deco.func, ast.Attribute)
            and deco.func.attr == "parametrize"
            and len(deco.args) >= 2
        ):
            continue
        first = deco.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            argnames = [a.strip() for a in first.value.split(",")]
        elif isinstance(first, ast.Tuple | ast.List):
            argnames = [e.value for e in first.elts if isinstance(e, ast.Constant)]
        else:
            continue
        values = deco.args[1]
        if not isinstance(values, ast.List | ast.Tuple):
            continue
        for case in values.elts:
            if isinstance(case, ast.Call) and case.args:  # pytest.param(...)
                case = ast.Tuple(elts=case.args) if len(argnames) > 1 else case.args[0]
            cells = case.elts if len(argnames) > 1 and isinstance(case, ast.Tuple) else [case]
            yield from zip(argnames, cells, strict=False)


def parametrized_wording(module: ast.Module) -> list[tuple[int, str]]:
    """Wording literals given to a test through ``parametrize`` and then checked by it (each
    case is one assertion)."""
    found = []
    for fn in ast.walk(module):
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test"):
            continue
        checked = _checked_names(fn)
        for name, value in _parametrized(fn):
            if name in checked and is_wording(value):
                found.append((value.lineno, ast.unparse(value)))
    return found


def wording_assertions(
    module: ast.Module, helpers: dict[str, tuple[list[str], set[str], set[str]]] | None = None
) -> list[tuple[int, str]]:
    """Every assertion on English wording in ``module``, once per ``assert`` statement or call:
    (its line, the literals it checks)."""
    helpers = helpers or {}
    named = named_literals(module)
    found: dict[int, list[str]] = {}

    def add(line: int, literals: list[ast.AST]) -> None:
        if literals:
            found.setdefault(line, []).extend(ast.unparse(n) for n in literals)

    for node in ast.walk(module):
        if isinstance(node, ast.Assert):
            add(node.lineno, list(checked_literals(node.test, named)))
            for call in _truth_calls(node.test):
                add(node.lineno, list(_helper_literals(call, helpers, truth=True)))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("raises", "warns"):
                add(
                    node.lineno,
                    [
                        _resolved(kw.value, named)
                        for kw in node.keywords
                        if kw.arg == "match" and is_wording(_resolved(kw.value, named))
                    ],
                )
            add(node.lineno, list(_helper_literals(node, helpers)))
    for line, text in parametrized_wording(module):
        found.setdefault(line, []).append(text)
    return sorted((line, " | ".join(dict.fromkeys(texts))) for line, texts in found.items())


def count(root: Path = TESTS) -> dict[tuple[str, str], int]:
    """Every assertion on wording under ``root``: (file, the literals it checks) -> its line."""
    files = sorted(root.rglob("*.py"))
    trees = {f: ast.parse(f.read_text(), filename=str(f)) for f in files}
    helpers = wording_helpers(list(trees.values()))
    return {
        (str(f.relative_to(root)), text): line
        for f, module in trees.items()
        for line, text in wording_assertions(module, helpers)
    }


KEPT: dict[tuple[str, str], str] = {
    (
        "scorecards/test_scorecards_reference_checks.py",
        "'not peer-reviewed' | 'LLM raters' | 'no procedure for P' | "
        "'Neither instrument measures consciousness'",
    ): "the required disclaimers: what a caveat must say is the behaviour (a caveat that stopped "
    "saying the working paper is not peer-reviewed would be a defect whatever its id)",
    (
        "scorecards/test_scorecards_reference_checks.py",
        "'Φ_FCS = P(S) − Σⱼ P(moduleⱼ)'",
    ): "a transcription check: the FCS source must state the equation the lab implements, verbatim",
    (
        "scorecards/test_scorecards_rules.py",
        "'Explicit modules + persisted ledger + module recalibrates from ledger.' | "
        "'No selection mechanism.' | 'Autobiographical continuity'",
    ): "a transcription spot-check: the rubric's criteria are text copied from the paper's "
    "appendix A, so their words are the data",
}
"""The assertions on wording that stay, each where the wording itself is the behaviour, with the
reason: (file under tests/, the literals it checks) -> why."""


def test_the_wording_budget_holds():
    found = count()
    new = sorted(
        f"{f}:{line}: {text}" for (f, text), line in found.items() if (f, text) not in KEPT
    )
    assert not new, (
        f"{len(new)} assertion(s) on English wording (assert a finding, a flag, a kind or a value "
        "instead; or, where the wording is the behaviour, list it in KEPT with why):\n"
        + "\n".join(new)
    )
    assert len(KEPT) <= BUDGET, f"{len(KEPT)} kept, the budget is {BUDGET}"
    stale = sorted(f"{f}: {text}" for f, text in KEPT if (f, text) not in found)
    assert not stale, "KEPT lists assertions that are gone:\n" + "\n".join(stale)


def test_the_counter_can_fail():
    source = ast.parse(
        "import re, pytest\n"
        "def says(text, phrase):\n    return phrase in text\n"
        "def naming(res, name):\n    return [p for p in res.problems if p.startswith(name)]\n"
        "@pytest.mark.parametrize(('x', 'why'), [(1, 'falls to chance'), (2, 'x')])\n"
        "def test_x(at, x, why):\n"
        "    assert 'falls to chance' in text\n"  # counted: a sentence searched for
        "    assert text == f'Task accuracy is {v}'\n"  # counted: an f-string's words
        "    assert metric_value(at, 'Task accuracy') == '87%'\n"  # a lookup, one token
        "    assert finding.verdict == 'partly reproduced'\n"  # a verdict's value
        "    assert x in text, 'the sentence names it'\n"  # the message is not checked
        "    assert re.search('not defined here', text)\n"  # counted: a pattern
        "    with pytest.raises(ValueError, match='must be one of'):\n        f()\n"  # counted
        "    with pytest.raises(ValueError, match='seed'):\n        f()\n"  # one token
        "    assert says(text, 'more than once')\n"  # counted: through a helper
        "    with pytest.raises(ValueError, match=why):\n        f()\n"  # counted: parametrized
        "    assert naming(res, 'is not a directory')\n"  # counted: a filter's truth
        "    assert x in naming(res, 'is not a directory')\n"  # a lookup
        "    said = 'the answer is'\n"
        "    assert said in text\n"  # counted: a name bound to a sentence
        "    note = 'written by this test'\n"
        "    f(note)\n"
        "    assert note in text\n"  # a round trip: the test fed the text in
    )
    found = wording_assertions(source, wording_helpers([source]))
    assert [line for line, _ in found] == [6, 8, 9, 13, 14, 18, 21, 24]
