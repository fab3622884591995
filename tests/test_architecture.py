"""The shape of the code, checked from the source (AST only: nothing is imported).

- labcore never imports Streamlit, the UI or the pages;
- every labcore module sits in one layer of docs/ARCHITECTURE.md and imports only its own
  layer or lower ones (function-level imports count too);
- the labcore import graph has no cycles;
- no module of the code base (labcore/, ui/, app_pages/, app.py, bench/, tests/) is over 800
  lines, except the data tables allowed below;
- no function or class is defined twice at the top level of a module;
- every public function, class and method in labcore/ and ui/ has a docstring and type hints;
- one home per concept: the AUROC is computed in labcore/markers only, agents are trained and
  saved in labcore/training/provision.py only, and a page imports no science (markers, measures,
  experiments) beyond the known imports listed below, which shrink to none.

Every check has a test that shows it can fail on a deliberately broken example.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
LONG_DATA_TABLES: dict[str, str] = {}
"""Modules allowed over MAX_LINES, each with the reason."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def source_files(*packages: str) -> list[Path]:
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


@cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


@cache
def known_modules() -> frozenset[str]:
    return frozenset(module_name(p) for p in source_files("labcore", "ui"))


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file (``from pkg import sub`` ->
    ``pkg.sub``)."""
    found: set[str] = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative imports are not used in this code base
                raise AssertionError(f"{path}: relative import")
            base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known_modules() else base)
    return found


def internal_imports(path: Path) -> set[str]:
    return {m for m in imported_modules(path) if m.split(".")[0] in ("labcore", "ui", "app_pages")}


@cache
def layers() -> list[tuple[str, list[str]]]:
    """The layer table of docs/ARCHITECTURE.md: (layer name, module prefixes), lowest first."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    table = text.split("<!-- layers -->", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1].startswith("`"):
            rows.append((cells[0], re.findall(r"`([\w.]+)`", cells[1])))
    assert rows, "no layer table in docs/ARCHITECTURE.md"
    return rows


def layer_of(module: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(layers()):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    if rank is None:
        raise AssertionError(f"{module} is in no layer of docs/ARCHITECTURE.md")
    return rank


LABCORE = source_files("labcore")
UI = source_files("ui")
PAGES = source_files("app_pages")


def test_labcore_never_imports_streamlit_or_the_app():
    for path in LABCORE:
        bad = {
            m
            for m in imported_modules(path)
            if m.split(".")[0] in ("streamlit", "ui", "app_pages", "app")
        }
        assert not bad, f"{module_name(path)} imports {sorted(bad)}"


def test_ui_never_imports_the_pages():
    for path in UI:
        bad = {m for m in imported_modules(path) if m.split(".")[0] in ("app_pages", "app")}
        assert not bad, f"{module_name(path)} imports {sorted(bad)}"


def test_every_module_is_placed_and_imports_only_downwards():
    problems = []
    for path in LABCORE:
        me = module_name(path)
        mine = layer_of(me)
        for other in internal_imports(path):
            if layer_of(other) > mine:
                problems.append(
                    f"{me} ({layers()[mine][0]}) imports {other} ({layers()[layer_of(other)][0]})"
                )
    assert not problems, "imports running up the layers:\n" + "\n".join(problems)


def test_the_layer_check_can_fail():
    """A module of a low layer importing a high one is caught (the check is not vacuous)."""
    assert (
        layer_of("labcore.report")
        > layer_of("labcore.experiments.runner")
        > layer_of("labcore.rollout")
    )
    assert layer_of("labcore.envs.render") == layer_of("labcore.envs.dual_task")


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycles_in_labcore():
    graph = {
        module_name(p): {m for m in internal_imports(p) if m.startswith("labcore")} for p in LABCORE
    }
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def too_long(text: str) -> bool:
    """Is a module's source over :data:`MAX_LINES` lines?"""
    return len(text.splitlines()) > MAX_LINES


@pytest.mark.parametrize(
    "path",
    LABCORE + UI + PAGES + [ROOT / "app.py"] + source_files("bench", "tests"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_module_size(path):
    rel = str(path.relative_to(ROOT))
    if rel in LONG_DATA_TABLES:
        assert too_long(path.read_text()), f"{rel} is short now: take it off LONG_DATA_TABLES"
        return
    assert not too_long(path.read_text()), (
        f"{rel} has {len(path.read_text().splitlines())} lines (> {MAX_LINES}): split it by topic"
    )


def test_the_size_check_can_fail():
    assert too_long("x = 1\n" * (MAX_LINES + 1)) and not too_long("x = 1\n" * MAX_LINES)


def duplicates(module: ast.Module) -> list[str]:
    seen: dict[str, int] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            seen[node.name] = seen.get(node.name, 0) + 1
    return sorted(name for name, n in seen.items() if n > 1)


def test_no_function_or_class_defined_twice():
    problems = {
        module_name(p): duplicates(tree(p)) for p in source_files("labcore", "ui", "app_pages")
    }
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, f"defined twice (the second silently replaces the first): {problems}"


def test_duplicate_finder_can_fail():
    assert duplicates(ast.parse("def f(): pass\nx = 1\ndef f(): pass\n")) == ["f"]


def public_definitions(module: ast.Module):
    """Module-level functions and classes, and the methods of public classes, not starting with
    _."""
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            yield node.name, node
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                        yield f"{node.name}.{item.name}", item


def missing_hints(fn: ast.FunctionDef) -> list[str]:
    args = fn.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if params and params[0].arg in ("self", "cls"):
        params = params[1:]
    missing = [a.arg for a in params if a.annotation is None]
    missing += [
        f"*{a.arg}" for a in (args.vararg, args.kwarg) if a is not None and a.annotation is None
    ]
    if fn.returns is None:
        missing.append("return")
    return missing


def test_every_public_definition_has_a_docstring_and_type_hints():
    problems = []
    for path in LABCORE + UI:
        for name, node in public_definitions(tree(path)):
            where = f"{path.relative_to(ROOT)}: {name}"
            if not ast.get_docstring(node):
                problems.append(f"{where}: no docstring")
            if isinstance(node, ast.FunctionDef) and missing_hints(node):
                problems.append(f"{where}: no type hint for {', '.join(missing_hints(node))}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


# --------------------------------------------------------------------------- one home per concept
def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def called_name(call: ast.Call) -> str | None:
    """``f`` of ``f(...)`` or ``x.f(...)``."""
    func = call.func
    return (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )


def functions(module: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(module) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def scopes(module: ast.Module) -> list[tuple[str, list[ast.AST]]]:
    """Each function's body, and the module's own statements (a page is a script), by name."""
    top = [
        n
        for stmt in module.body
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for n in ast.walk(stmt)
    ]
    return [("<module>", top)] + [(fn.name, list(ast.walk(fn))) for fn in functions(module)]


AUROC_PRIMITIVES = {
    "rankdata",
    "mannwhitneyu",
    "roc_auc_score",
    "roc_curve",
    "auc",
    "trapezoid",
    "trapz",
}
"""Calls that rank scores or integrate a ROC curve: an AUROC computed in place."""
AUROC_NAME = re.compile(r"(auroc|auc)$", re.IGNORECASE)
NOT_AN_AUROC = {
    "labcore/classroom/lesson.py:_intact_auroc": "the lesson's rule on a claim's value "
    "(which of three answers it supports)",
    "labcore/figures/paper_e1.py:fig1a_accuracy_and_auroc": "draws the result set's AUROCs",
}
"""Functions named like an AUROC that compute none, each with the reason."""


def marker_names(module: ast.Module) -> set[str]:
    """Names bound to labcore.markers or to anything imported from it."""
    names = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("labcore.markers"):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "labcore":
            names.update(a.asname or a.name for a in node.names if a.name == "markers")
        elif isinstance(node, ast.Import):
            names.update(
                a.asname or a.name for a in node.names if a.name.startswith("labcore.markers")
            )
    return names


def _has_none(index: ast.AST) -> bool:
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(p, ast.Constant) and p.value is None for p in parts)


def pairwise_comparison(node: ast.AST) -> bool:
    """``a[:, None] > b[None, :]``: every pair of two arrays compared."""
    return (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Subscript)
        and _has_none(node.left.slice)
        and any(isinstance(c, ast.Subscript) and _has_none(c.slice) for c in node.comparators)
    )


def split_by_label(node: ast.AST) -> bool:
    """``x[~label]``: the negatives of a labelled array (an AUROC compares them with the
    positives)."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.UnaryOp)
        and isinstance(node.slice.op, ast.Invert)
    )


def one_class_test(node: ast.AST) -> bool:
    """``y.all() or not y.any()``: the test of an AUROC's undefined case, which the markers own."""

    def method(n: ast.AST, name: str) -> bool:
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name

    def negated(n: ast.AST, name: str) -> bool:
        return isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) and method(n.operand, name)

    if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2):
        return False
    a, b = node.values
    return (method(a, "all") and negated(b, "any")) or (negated(a, "any") and method(b, "all"))


def auroc_homes(module: ast.Module, where: str) -> list[str]:
    """Functions of ``module`` that compute an AUROC themselves instead of calling
    labcore.markers."""
    markers = marker_names(module)
    found = []
    for fn in functions(module):
        nodes = list(ast.walk(fn))
        if any(pairwise_comparison(n) for n in nodes) and any(split_by_label(n) for n in nodes):
            found.append(f"{where}:{fn.name} compares every positive with every negative")
        if ranks := {called_name(n) for n in nodes if isinstance(n, ast.Call)} & AUROC_PRIMITIVES:
            found.append(
                f"{where}:{fn.name} ranks or integrates scores ({', '.join(sorted(ranks))})"
            )
        uses_markers = any(isinstance(n, ast.Name) and n.id in markers for n in nodes)
        if uses_markers and any(one_class_test(n) for n in nodes):
            found.append(
                f"{where}:{fn.name} tests the AUROC's undefined case itself "
                "(type2_auroc's undefined=...)"
            )
        if (
            AUROC_NAME.search(fn.name)
            and not uses_markers
            and f"{where}:{fn.name}" not in NOT_AN_AUROC
        ):
            found.append(
                f"{where}:{fn.name} is named as an AUROC and uses no labcore.markers function"
            )
    return found


def test_the_auroc_has_one_home():
    """labcore.markers computes every AUROC (type2_auroc, learning_curve_auroc, decoder_auroc,
    ...)."""
    problems = [
        p
        for path in LABCORE + UI + PAGES
        if not rel(path).startswith("labcore/markers/")
        for p in auroc_homes(tree(path), rel(path))
    ]
    assert not problems, "an AUROC outside labcore.markers:\n" + "\n".join(problems)
    assert all(name.split(":")[0] in map(rel, LABCORE + UI + PAGES) for name in NOT_AN_AUROC)


def test_the_auroc_check_can_fail():
    twin = ast.parse(
        "def _pairwise_auroc(correct, confidence):\n"
        "    pos, neg = confidence[correct], confidence[~correct]\n"
        "    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] "
        "== neg[None, :]).mean())\n"
        "def ranked(y, s):\n"
        "    from scipy.stats import mannwhitneyu\n"
        "    return mannwhitneyu(s[y], s[~y]).statistic / (y.sum() * (~y).sum())\n"
        "def chance_auc(y, s):\n"
        "    return 0.5 if y.all() or not y.any() else float(s[y].mean() > s[~y].mean())\n"
        "from labcore.markers import type2_auroc\n"
        "def imputed(y, s):\n"
        "    return (0.5, True) if y.all() or not y.any() else (type2_auroc(y, s), False)\n"
    )
    assert [p.split(" ")[0] for p in auroc_homes(twin, "fake.py")] == [
        "fake.py:_pairwise_auroc",
        "fake.py:_pairwise_auroc",
        "fake.py:ranked",
        "fake.py:chance_auc",
        "fake.py:imputed",
    ]
    delegate = ast.parse(
        "from labcore.markers import type2_auroc\n"
        "def report_auroc(y, s):\n    return type2_auroc(y, s, undefined='chance')\n"
    )
    assert auroc_homes(delegate, "fake.py") == []


TRAIN_AND_SAVE_HOME = "labcore/training/provision.py"
"""The one home of "train an agent and save it" (``train_and_save``, ``train_network_and_save``)."""


def train_and_save_homes(module: ast.Module, where: str) -> list[str]:
    """Scopes of ``module`` that call a trainer and ``save_checkpoint`` themselves."""
    found = []
    for name, nodes in scopes(module):
        calls = {called_name(n) for n in nodes if isinstance(n, ast.Call)} - {None}
        trains = {
            c for c in calls if c.startswith(("train_", "_train_")) and not c.endswith("_and_save")
        }
        if "save_checkpoint" in calls and trains:
            found.append(f"{where}:{name} calls {', '.join(sorted(trains))} and save_checkpoint")
    return found


def test_train_and_save_has_one_home():
    problems = [
        p
        for path in LABCORE + UI + PAGES
        if rel(path) != TRAIN_AND_SAVE_HOME
        for p in train_and_save_homes(tree(path), rel(path))
    ]
    assert not problems, (
        f"train-and-save outside {TRAIN_AND_SAVE_HOME} (call its train_and_save):\n"
        + "\n".join(problems)
    )
    assert train_and_save_homes(
        tree(ROOT / TRAIN_AND_SAVE_HOME), TRAIN_AND_SAVE_HOME
    )  # the home is found


def test_the_train_and_save_check_can_fail():
    page = ast.parse(
        "from labcore.training import behaviour_cloning\nfrom "
        "labcore.storage.checkpoints import save_checkpoint\n"
        "trained = behaviour_cloning.train_seeds('dual', 'b1', [5])[0]\n"
        "save_checkpoint(trained.agent, trained.record, 'runs/user')\n"
    )
    pipeline = ast.parse(
        "def provide(kind, seed):\n    trained = train_agent('dual', kind, seed)\n"
        "    return save_checkpoint(trained.agent, trained.record, 'cache')\n"
    )
    assert [p.split()[:3] for p in train_and_save_homes(page, "page.py")] == [
        ["page.py:<module>", "calls", "train_seeds"]
    ]
    assert [p.split()[:3] for p in train_and_save_homes(pipeline, "x.py")] == [
        ["x.py:provide", "calls", "train_agent"]
    ]
    assert (
        train_and_save_homes(
            ast.parse("rec = train_and_save('dual', 'b1', [5], None, 'out')\n"), "ok.py"
        )
        == []
    )


SCIENCE = (
    "labcore.markers",
    "labcore.measures",
    "labcore.measures_integration",
    "labcore.experiments",
)
"""What a page never imports: it reads values through ui/ and draws them with labcore.figures."""


def science_imports(path: Path) -> set[str]:
    return {
        m for m in imported_modules(path) if any(m == s or m.startswith(s + ".") for s in SCIENCE)
    }


def test_pages_import_no_science():
    found = sorted((rel(path), m) for path in PAGES for m in science_imports(path))
    assert not found, (
        "a page imports markers/measures/experiments (go through ui/science, ui/data and "
        "labcore.figures):\n" + "\n".join(f"{page}: {module}" for page, module in found)
    )


def test_the_page_import_check_can_fail(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        "from labcore import measures\nfrom labcore.markers import type2_auroc\n"
        "from labcore.experiments.e4 import ARMS\nfrom labcore.figures.live import "
        "titration_figure\n"
    )
    assert science_imports(page) == {
        "labcore.measures",
        "labcore.markers",
        "labcore.experiments.e4",
    }


def literal_url_paths(source: str) -> list[str]:
    """String literals passed as ``url_path=`` or ``page=`` keywords in ``source``."""
    return [
        kw.value.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg in ("url_path", "page")
        and isinstance(kw.value, ast.Constant)
        and isinstance(kw.value.value, str)
    ]


def test_page_urls_have_one_home():
    """app.py registers every page with its path from labcore.config.PAGE_URLS, and the lesson's
    links read it there: no page path is typed a second time."""
    from labcore.config import PAGE_URLS

    assert set(PAGE_URLS) == {p.stem for p in PAGES}  # one entry per page file
    for path in (ROOT / "app.py", ROOT / "labcore" / "classroom" / "lesson.py"):
        assert literal_url_paths(path.read_text()) == [], f"{path.name} types a page path again"


def test_the_page_url_check_can_fail():
    assert literal_url_paths('st.Page("a.py", url_path="agents")\nStep(page="")') == ["agents", ""]


def drawn_strings(source: str) -> list[int]:
    """Lines of the bare string statements (literal or f-string) in a page's ``source`` that
    Streamlit's magic draws on the page: every one but a docstring (the first statement of the
    module or of a function)."""
    found: list[int] = []

    def visit(node: ast.AST) -> None:
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for i, child in enumerate(getattr(node, field, []) or []):
                docstring = (
                    i == 0
                    and field == "body"
                    and isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef)
                )
                if (
                    isinstance(child, ast.Expr)
                    and isinstance(child.value, ast.Constant | ast.JoinedStr)
                    and (
                        isinstance(child.value, ast.JoinedStr) or isinstance(child.value.value, str)
                    )
                    and not docstring
                ):
                    found.append(child.lineno)
                visit(child)

    visit(ast.parse(source))
    return found


def test_pages_hold_no_bare_strings():
    """Streamlit's magic renders a bare string statement of a page script (issue 34: a developer's
    note above the Replication page's title): a page says what it means with st.* calls and
    comments, and a string statement is only ever a docstring."""
    found = [f"{rel(p)}:{line}" for p in PAGES for line in drawn_strings(p.read_text())]
    assert not found, "bare strings a page would draw:\n" + "\n".join(found)


def test_the_bare_string_check_can_fail():
    source = (
        '"""The module docstring (not drawn)."""\n'
        "X = 1\n"
        '"""A note about X (drawn)."""\n'
        "def f():\n"
        '    """A docstring (not drawn)."""\n'
        '    "a note in a function (drawn)"\n'
        "if X:\n"
        '    f"{X} in a branch (drawn)"\n'
        "with open('x') as h:\n"
        '    "in a with block (drawn)"\n'
    )
    assert drawn_strings(source) == [3, 6, 8, 10]
