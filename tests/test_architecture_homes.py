"""The architecture test, part two: one home per concept (issue 32 item 5), from the source (AST
only).

Each concept's home is held through what the code imports and how it is written, not by the
names of its functions: a second home is found by its shape (a chance level typed as a literal, an
interval assembled from its parts, a number formatted with its own word for "undefined", a
finiteness test of its own, a value checked against its choices by hand, a pool started outside
the pool policy, a URL's parameters typed by hand, a name re-exported lazily), and the home's
names are imported from the home itself. The homes are listed in docs/ARCHITECTURE.md ("Concept ->
its one home"). Every check has a test that shows it can fail on a deliberately broken example.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from labcore.config import CHANCE_LEVELS
from labcore.links import LabState
from labcore.paper_claims import E3_FRAGILE, E3_ROBUST
from tests.test_architecture import LABCORE, PAGES, ROOT, UI, called_name, rel, tree

CODE = LABCORE + UI + PAGES + [ROOT / "app.py"]


def parse(source: str) -> ast.Module:
    return ast.parse(source)


def check(paths: list[Path], finder, home: str | tuple[str, ...] = ()) -> list[str]:
    """``finder(module, where)`` over every file of ``paths`` but the home(s)."""
    homes = (home,) if isinstance(home, str) else home
    return [p for path in paths if rel(path) not in homes for p in finder(tree(path), rel(path))]


def imported_from_elsewhere(module: ast.Module, where: str, names, home: str | None) -> list[str]:
    """``from X import NAME`` of a home's name, where X is not the home (None: from anywhere)."""
    return [
        f"{where}:{node.lineno} imports {alias.name} from {node.module}"
        + (f", not {home}" if home else "")
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.module != home
        for alias in node.names
        if (alias.name in names if isinstance(names, set | frozenset) else names(alias.name))
    ]


def code_strings(module: ast.Module) -> Iterator[tuple[int, str]]:
    """The string literals of the code (an f-string's literal parts joined), docstrings and other
    bare string statements left out."""
    bare = {
        id(n.value)
        for n in ast.walk(module)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant | ast.JoinedStr)
    }
    inner = {id(v) for n in ast.walk(module) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(module):
        if id(node) in bare or id(node) in inner:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            yield (
                node.lineno,
                "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values),
            )


# --------------------------------------------------------------------------- chance levels
CHANCE_HOME = "labcore.config"
CHANCE_TEXT = re.compile(
    r"(?<![\d.])1 ?/ ?(7|49)(?![\d.])|\(1/7\)|1 in (7|49)\b|14\.3 ?%"
    r"|chance\W{0,3}(0\.5|50(\.0)? ?%|2(\.0)? ?%)|(0\.5|50 ?%)\W{0,3}(is |= )?(of )?chance",
    re.IGNORECASE,
)
"""A chance level as text: 1/7, 1/49, 14.3%, "chance 0.5", "0.5 of chance", "1 in 7"."""


def chance_homes(module: ast.Module, where: str) -> list[str]:
    """A chance level typed outside labcore.config: as text, as a number passed for ``chance``,
    or a chance constant imported from anywhere but its home (a re-export)."""
    found = [
        f"{where}:{line} types a chance level: {text!r}"
        for line, text in code_strings(module)
        if CHANCE_TEXT.search(text)
    ]
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            literal = [kw.value for kw in node.keywords if kw.arg == "chance"]
            if called_name(node) == "chance_level_line" and len(node.args) > 1:
                literal.append(node.args[1])
            for value in literal:
                if isinstance(value, ast.Constant) and value.value not in CHANCE_LEVELS:
                    found.append(f"{where}:{node.lineno} passes chance {value.value!r}")
    found += imported_from_elsewhere(module, where, lambda n: n.startswith("CHANCE_"), CHANCE_HOME)
    return found


def test_chance_levels_have_one_home():
    problems = check(CODE, chance_homes, "labcore/config.py")
    assert not problems, "a chance level outside labcore.config.CHANCE_LEVELS:\n" + "\n".join(
        problems
    )


def test_the_chance_check_can_fail():
    broken = parse(
        "from labcore.figures.style import CHANCE_E1\n"
        'HELP = "Mean over the two reports (chance 1/7 = 14%)."\n'
        "metric(col, 'AUROC', v, chance='0.5')\n"
        "chance_level_line(fig, 0.5)\nchance_line(fig, 0.5, 'chance 0.5')\n"
        "calibration_figure(curves, chance=0.5)\n"
        "x = f'well above the 0.5 of chance: {v}'\n"
    )
    found = chance_homes(broken, "page.py")
    assert sorted(p.split(" ")[0] for p in found) == [
        "page.py:1",  # a re-export's import
        "page.py:2",  # a fraction and its percentage in words
        "page.py:3",  # a chance level's text for a metric
        "page.py:4",  # a number for a chance line
        "page.py:5",  # "chance 0.5" as a line's label
        "page.py:6",  # a number for a figure's chance
        "page.py:7",  # "the 0.5 of chance"
    ]
    named = parse(
        "from labcore.config import CHANCE_E1\nfrom labcore.render import chance_text\n"
        "metric(col, 'AUROC', v, chance='auroc')\nchance_level_line(fig, 'decision')\n"
        "x = f'Mean over the two reports ({chance_text(\"decision\")}).'\n"
    )
    assert chance_homes(named, "page.py") == []


# --------------------------------------------------------------------------- seed summaries
STATS_HOME = "labcore.stats"
INTERVAL_PARTS = {"t_interval", "welch_interval", "bootstrap_ci"}
"""The building blocks of a seed summary's interval: only labcore.stats assembles them."""
SCIPY_INTERVALS = {"ttest_1samp", "ttest_ind", "ttest_rel", "sem", "bootstrap"}
NOT_A_SEED_SUMMARY = {
    "labcore/markers/integration.py": "the covariance of one agent's channels (a marker's input), "
    "not a summary over seeds",
    "labcore/experiments/construction.py": "the audit's equivalence rule (a margin against the "
    "standard error of two groups, protocol sec. 4), not a summary with an interval",
}
"""Modules that take an SD with ``ddof=1`` for another purpose, each with the reason."""


def seed_summary_homes(module: ast.Module, where: str) -> list[str]:
    """A seed summary assembled outside labcore.stats: its interval's parts imported, scipy's t
    tests or intervals called, or a sample SD (``ddof=1``) taken."""
    found = imported_from_elsewhere(module, where, INTERVAL_PARTS, None)
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        name = called_name(node)
        func = node.func
        if name in SCIPY_INTERVALS or (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Attribute)
            and func.value.attr == "t"
            and func.attr in ("ppf", "isf", "interval")
        ):
            found.append(f"{where}:{node.lineno} calls scipy's {ast.unparse(func)}")
        if where not in NOT_A_SEED_SUMMARY and any(
            kw.arg == "ddof" and isinstance(kw.value, ast.Constant) and kw.value.value == 1
            for kw in node.keywords
        ):
            found.append(f"{where}:{node.lineno} takes a sample SD ({ast.unparse(func)})")
    return found


def test_seed_summaries_have_one_home():
    problems = check(CODE, seed_summary_homes, "labcore/stats.py")
    assert not problems, (
        "a seed summary outside labcore.stats (call seed_summary, paired_summary, "
        "welch_summary):\n" + "\n".join(problems)
    )
    assert all((ROOT / path).is_file() for path in NOT_A_SEED_SUMMARY)


def test_the_seed_summary_check_can_fail():
    broken = parse(
        "import numpy as np\nfrom scipy import stats\nfrom labcore.stats import t_interval\n"
        "def estimate(xs):\n"
        "    low, high = t_interval(xs)\n"
        "    half = stats.t.ppf(0.975, len(xs) - 1) * stats.sem(xs)\n"
        "    return np.mean(xs), np.std(xs, ddof=1), low, high, half\n"
    )
    assert [(p.split()[0], p.split()[-1]) for p in seed_summary_homes(broken, "x.py")] == [
        ("x.py:3", "labcore.stats"),  # t_interval imported
        ("x.py:6", "stats.t.ppf"),
        ("x.py:6", "stats.sem"),
        ("x.py:7", "(np.std)"),  # with ddof=1
    ]
    ok = parse(
        "from labcore.stats import seed_summary\n"
        "def estimate(xs):\n    return seed_summary(xs, 't')\n"
    )
    assert seed_summary_homes(ok, "x.py") == []


# --------------------------------------------------------------------------- numbers and finiteness
FINITENESS = {"isfinite", "isnan", "isinf", "finite", "isna", "isnull"}


def _finiteness_test(node: ast.AST) -> bool:
    """Does ``node`` test a value for None, nan or inf?"""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and called_name(n) in FINITENESS:
            return True
        if (
            isinstance(n, ast.Compare)
            and any(isinstance(op, ast.Is | ast.IsNot) for op in n.ops)
            and any(isinstance(c, ast.Constant) and c.value is None for c in n.comparators)
        ):
            return True
    return False


def _formats_a_number(node: ast.AST) -> bool:
    """An f-string with a format spec, or ``str.format``."""
    return any(
        (isinstance(n, ast.FormattedValue) and n.format_spec is not None)
        or (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "format"
        )
        for n in ast.walk(node)
    )


def _word(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and any(c.isalpha() for c in node.value)
    )


def formatter_homes(module: ast.Module, where: str) -> list[str]:
    """A number written with a format spec beside a word of its own for an undefined value
    (labcore.render.fmt and UNDEFINED are the lab's)."""
    found = [
        f"{where}:{n.lineno} formats a number with its own undefined word"
        for n in ast.walk(module)
        if isinstance(n, ast.IfExp)
        and _finiteness_test(n.test)
        and (
            (_word(n.body) and _formats_a_number(n.orelse))
            or (_word(n.orelse) and _formats_a_number(n.body))
        )
    ]
    for fn in ast.walk(module):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        returns = [r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value]
        if not any(_formats_a_number(r) for r in returns):
            continue
        found += [
            f"{where}:{n.lineno} formats a number with its own undefined word"
            for n in ast.walk(fn)
            if isinstance(n, ast.If)
            and _finiteness_test(n.test)
            and any(isinstance(b, ast.Return) and _word(b.value) for b in n.body)
        ]
    return found


def test_number_formatting_has_one_home():
    problems = check(CODE, formatter_homes, "labcore/render.py")
    assert not problems, (
        "numbers formatted outside labcore.render (write fmt(x, unit), or UNDEFINED for an "
        "undefined value):\n" + "\n".join(problems)
    )


def test_the_number_formatting_check_can_fail():
    broken = parse(
        "def _fmt(value):\n"
        "    if value is None:\n        return 'not measured'\n"
        "    return 'undefined (nan)' if math.isnan(value) else f'{value:.3g}'\n"
        "def shown(v):\n    return 'n/a' if not finite(v) else '{:.0%}'.format(v)\n"
    )
    assert [p.split(" ")[0] for p in formatter_homes(broken, "x.py")] == [
        "x.py:4",
        "x.py:6",
        "x.py:2",
    ]
    ok = parse(
        "from labcore.render import UNDEFINED, finite, fmt\n"
        "def shown(v, spec):\n    return spec.format(v) if finite(v) else UNDEFINED\n"
        "def reason(v):\n    return 'not measured' if v is None else fmt(v)\n"
    )
    assert formatter_homes(ok, "x.py") == []


FINITE_HOME = "labcore.render"
NOT_A_FINITENESS_TEST = {
    "ui/scorecard_import.py:_empty": "an empty spreadsheet cell (pandas reads it as nan); an "
    "infinite cell is a value, refused by the clause check",
}
"""Predicates on nan that are not "is it a finite number", each with the reason."""


def finiteness_homes(module: ast.Module, where: str) -> list[str]:
    """A function of its own that answers "is this a finite number?" (labcore.render.finite is the
    lab's), or ``finite`` imported from anywhere but its home."""
    found = []
    for fn in ast.walk(module):
        if not isinstance(fn, ast.FunctionDef) or f"{where}:{fn.name}" in NOT_A_FINITENESS_TEST:
            continue
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        for ret in (r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value):
            test = ret.operand if isinstance(ret, ast.UnaryOp) else ret
            is_test = isinstance(test, ast.BoolOp | ast.Compare) or (
                isinstance(test, ast.Call) and called_name(test) in FINITENESS
            )
            raw = {called_name(n) for n in ast.walk(test) if isinstance(n, ast.Call)}
            reads = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
            if is_test and raw & (FINITENESS - {"finite"}) and reads & params:
                found.append(f"{where}:{fn.name} tests finiteness itself")
                break
    return found + imported_from_elsewhere(module, where, {"finite"}, FINITE_HOME)


def test_is_it_finite_has_one_home():
    problems = check(CODE, finiteness_homes, "labcore/render.py")
    assert not problems, "a finiteness test outside labcore.render.finite:\n" + "\n".join(problems)
    assert all(name.split(":")[0] in map(rel, CODE) for name in NOT_A_FINITENESS_TEST)


def test_the_finiteness_check_can_fail():
    broken = parse(
        "from labcore.storage.formatting import finite\n"
        "def _defined(v):\n    return v is not None and not math.isnan(v)\n"
        "def _is_number(x):\n    return isinstance(x, float) and math.isfinite(x)\n"
    )
    found = finiteness_homes(broken, "x.py")
    assert [p.split()[0] for p in found] == ["x.py:_defined", "x.py:_is_number", "x.py:1"]
    assert found[-1].split()[2:5] == ["finite", "from", "labcore.storage.formatting,"]
    ok = parse(
        "from labcore.render import finite\n"
        "def _is_number(x):\n    return isinstance(x, int | float) and finite(x)\n"
    )
    assert finiteness_homes(ok, "x.py") == []


# --------------------------------------------------------------------------- choices
CHOICE_HOME = "labcore.checks"
NOT_A_CHOICE_CHECK = {
    "labcore/scorecards/user_systems.py": "a scorecard file's contract (a pydantic error with its "
    "field and kind), not a programming error",
    "ui/scorecard_import.py": "an imported scorecard's contract (ContractError with its field and "
    "kind)",
}
"""Modules whose refusals of an unknown value are a file's contract, each with the reason."""


def _choices(node: ast.AST) -> bool:
    """A registry of choices: a module constant (``NAME``, ``NAME[key]``) or a literal tuple,
    list or set of constants."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id.lstrip("_").isupper()
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and all(
        isinstance(e, ast.Constant) for e in node.elts
    )


def _checked_value(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) or (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def choice_homes(module: ast.Module, where: str) -> list[str]:
    """``if value not in CHOICES: raise ...`` outside labcore.checks (check_choice is the lab's
    one check), or check_choice, choice_error or ChoiceError imported from anywhere else."""
    found = []
    for node in ast.walk(module):
        if not (isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Raise)):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
        for t in tests:
            if (
                isinstance(t, ast.Compare)
                and isinstance(t.ops[0], ast.NotIn)
                and _checked_value(t.left)
                and _choices(t.comparators[0])
            ):
                found.append(f"{where}:{node.lineno} checks {ast.unparse(t)} by hand")
    names = {"check_choice", "choice_error", "ChoiceError"}
    return found + imported_from_elsewhere(module, where, names, CHOICE_HOME)


def test_a_value_among_choices_has_one_check():
    problems = check(CODE, choice_homes, ("labcore/checks.py", *NOT_A_CHOICE_CHECK))
    assert not problems, (
        "a value checked against its choices outside labcore.checks (call check_choice or "
        "choice_error):\n" + "\n".join(problems)
    )


def test_the_choice_check_can_fail():
    broken = parse(
        "from labcore.markers._common import check_choice\n"
        "def f(mode, task):\n"
        "    if mode not in MODES:\n        raise ValueError(f'mode must be one of {MODES}')\n"
        "    if task not in _CONDITIONS or self.kind not in ('a', 'b'):\n"
        "        raise ValueError('unknown')\n"
    )
    assert [(p.split()[0], p.split()[2]) for p in choice_homes(broken, "x.py")] == [
        ("x.py:3", "mode"),
        ("x.py:5", "task"),
        ("x.py:5", "self.kind"),
        ("x.py:1", "check_choice"),  # imported from elsewhere
    ]
    ok = parse(
        "from labcore.checks import check_choice\n"
        "def f(mode, arr, options):\n    check_choice(mode, 'mode', MODES)\n"
        "    if arr.ndim not in (1, 2) or mode not in options:\n        raise ValueError('x')\n"
    )
    assert choice_homes(ok, "x.py") == []


# --------------------------------------------------------------------------- worker pools
POOL_HOME = "labcore/parallel.py"
POOL_MAKERS = {"ProcessPoolExecutor", "ThreadPoolExecutor", "Pool", "get_context", "Process"}
POOL_MODULES = ("multiprocessing", "loky", "joblib.Parallel", "joblib.parallel")


def pool_homes(module: ast.Module, where: str) -> list[str]:
    """A worker pool started outside labcore.parallel (process_pool, process_map)."""
    found = [
        f"{where}:{n.lineno} starts a pool ({called_name(n)})"
        for n in ast.walk(module)
        if isinstance(n, ast.Call) and called_name(n) in POOL_MAKERS | {"Parallel"}
    ]
    for node in ast.walk(module):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [f"{node.module}.{a.name}" for a in node.names]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        found += [
            f"{where}:{node.lineno} imports {n}"
            for n in names
            if n.startswith(POOL_MODULES) and not n.startswith("multiprocessing.connection")
        ]
    return found


def test_worker_pools_have_one_home():
    problems = check(CODE, pool_homes, POOL_HOME)
    assert not problems, f"a pool outside {POOL_HOME}:\n" + "\n".join(problems)
    assert pool_homes(tree(ROOT / POOL_HOME), POOL_HOME)  # the home is found


def test_the_pool_check_can_fail():
    broken = parse(
        "import multiprocessing\nfrom joblib import Parallel, delayed\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "def run(xs):\n"
        "    with multiprocessing.get_context('spawn').Pool(2) as pool:\n"
        "        pool.map(f, xs)\n"
        "    Parallel(n_jobs=2)(delayed(f)(x) for x in xs)\n"
        "    return ProcessPoolExecutor(2)\n"
    )
    assert sorted(p.split()[-1] for p in pool_homes(broken, "x.py")) == [
        "(Parallel)",
        "(Pool)",
        "(ProcessPoolExecutor)",
        "(get_context)",
        "joblib.Parallel",
        "multiprocessing",
    ]
    assert pool_homes(parse("from labcore.parallel import process_map\n"), "x.py") == []


# --------------------------------------------------------------------------- URL parameters
URL_HOME = "labcore/links.py"
URL_KEYS = frozenset(f.name for f in dataclasses.fields(LabState))
URL_TEXT = re.compile(r"[?&](" + "|".join(sorted(URL_KEYS)) + ")=")


def _url_dict(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Dict)
        and bool(node.keys)
        and all(isinstance(k, ast.Constant) and k.value in URL_KEYS for k in node.keys)
    )


def url_homes(module: ast.Module, where: str) -> list[str]:
    """A link's query parameters typed by hand (a ``?agent=`` in a string, a dict of
    parameters for a link) rather than written by labcore.links.query."""
    found = [
        f"{where}:{line} types a URL parameter: {text!r}"
        for line, text in code_strings(module)
        if URL_TEXT.search(text)
    ]
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        args = [kw.value for kw in node.keywords if kw.arg in ("query_params", "params")]
        if called_name(node) in ("urlencode", "from_dict") or (
            called_name(node) == "update" and "query_params" in ast.unparse(node.func)
        ):
            args += node.args
        found += [f"{where}:{node.lineno} types a link's parameters" for a in args if _url_dict(a)]
    return found


def test_url_parameters_have_one_home():
    problems = check(CODE, url_homes, URL_HOME)
    assert not problems, (
        "a link's parameters typed by hand (write them with labcore.links.query):\n"
        + "\n".join(problems)
    )


def test_the_url_check_can_fail():
    broken = parse(
        "st.page_link('a.py', query_params={'agent': 'b1', 'seed': '0'})\n"
        "link = f'{base}/mystery?code={code}'\n"
        "st.query_params.update({'step': str(n)})\n"
        "Step(page='workspace', params={'capacity': '0'})\n"
    )
    assert [p.split(" ")[0] for p in url_homes(broken, "x.py")] == [
        "x.py:2",
        "x.py:1",
        "x.py:3",
        "x.py:4",
    ]
    ok = parse(
        "st.page_link('a.py', query_params=query(agent='b1', seed=0))\n"
        "link = f'{base}/mystery?{urlencode(query(code=code))}'\nStep(params={})\n"
    )
    assert url_homes(ok, "x.py") == []


# --------------------------------------------------------------------------- lazy re-exports
def lazy_reexports(module: ast.Module, where: str) -> list[str]:
    """A module-level ``__getattr__``: a name served lazily from another module, which hides the
    import from every check above (a page would reach the science through it)."""
    return [
        f"{where}: a module __getattr__"
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]


def test_no_module_serves_names_lazily():
    problems = check(CODE, lazy_reexports)
    assert not problems, "\n".join(problems)


def test_the_lazy_reexport_check_can_fail():
    broken = parse(
        "def __getattr__(name):\n"
        "    if name == 'e1_construction_notes':\n"
        "        from labcore.measures import e1_construction_notes\n"
        "        return e1_construction_notes\n"
        "    raise AttributeError(name)\n"
    )
    assert [p.split(":")[0] for p in lazy_reexports(broken, "ui/x.py")] == ["ui/x.py"]
    assert lazy_reexports(parse("def getattr_of(x):\n    return x\n"), "ui/x.py") == []


# --------------------------------------------------------------------------- E3's thresholds
E3_HOME = "labcore.paper_claims"


def _mentions_l75(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Name) and "l75" in n.id.lower())
        or (isinstance(n, ast.Attribute) and "l75" in n.attr.lower())
        or (isinstance(n, ast.Constant) and isinstance(n.value, str) and "l75" in n.value.lower())
        for n in ast.walk(node)
    )


def e3_threshold_homes(module: ast.Module, where: str) -> list[str]:
    """An L75 compared with E3's fragile or robust threshold typed as a number, or the thresholds
    imported from anywhere but labcore.paper_claims."""
    found = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        numbers = [
            s
            for s in sides
            if isinstance(s, ast.Constant)
            and not isinstance(s.value, bool)
            and s.value in (E3_FRAGILE, E3_ROBUST)
        ]
        if numbers and any(_mentions_l75(s) for s in sides if s not in numbers):
            found.append(f"{where}:{node.lineno} types E3's threshold: {ast.unparse(node)}")
    return found + imported_from_elsewhere(module, where, {"E3_FRAGILE", "E3_ROBUST"}, E3_HOME)


def test_e3_thresholds_have_one_home():
    problems = check(LABCORE + UI + PAGES, e3_threshold_homes, "labcore/paper_claims.py")
    assert not problems, "\n".join(problems)


def test_the_e3_threshold_check_can_fail():
    broken = parse(
        "from labcore.experiments.explore_e3_findings import E3_ROBUST\n"
        "def hit(b1, r):\n    return b1 < 0.1 and r['l75'] > 0.5\n"
    )
    assert [(p.split()[0], p.split()[-1]) for p in e3_threshold_homes(broken, "x.py")] == [
        ("x.py:3", "0.5"),  # r['l75'] > 0.5
        ("x.py:1", "labcore.paper_claims"),  # E3_ROBUST imported from elsewhere
    ]
