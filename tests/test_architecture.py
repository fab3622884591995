"""The shape of the code, checked from the source (AST only: nothing is imported).

- labcore never imports Streamlit, the UI or the pages;
- every labcore module sits in one layer of docs/ARCHITECTURE.md and imports only its own
  layer or lower ones (function-level imports count too);
- the labcore import graph has no cycles;
- no module of labcore/ or ui/ is over 800 lines, except the data tables allowed below;
- no function or class is defined twice at the top level of a module;
- every public function, class and method in labcore/ and ui/ has a docstring and type hints.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
LONG_DATA_TABLES = {
    "labcore/scorecards/rubric_data.py": "the 90-point rubric's items, verbatim from its source: data, not logic",
}
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
    """Every module ``path`` imports, anywhere in the file (``from pkg import sub`` -> ``pkg.sub``)."""
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


def test_labcore_never_imports_streamlit_or_the_app():
    for path in LABCORE:
        bad = {m for m in imported_modules(path) if m.split(".")[0] in ("streamlit", "ui", "app_pages", "app")}
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
                problems.append(f"{me} ({layers()[mine][0]}) imports {other} ({layers()[layer_of(other)][0]})")
    assert not problems, "imports running up the layers:\n" + "\n".join(problems)


def test_the_layer_check_can_fail():
    """A module of a low layer importing a high one is caught (the check is not vacuous)."""
    assert layer_of("labcore.report") > layer_of("labcore.experiments.runner") > layer_of("labcore.rollout")
    assert layer_of("labcore.envs.render") == layer_of("labcore.envs.dual_task")


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
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
    graph = {module_name(p): {m for m in internal_imports(p) if m.startswith("labcore")} for p in LABCORE}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("path", LABCORE + UI, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_size(path):
    rel = str(path.relative_to(ROOT))
    lines = len(path.read_text().splitlines())
    if rel in LONG_DATA_TABLES:
        assert lines > MAX_LINES, f"{rel} is short now: take it off LONG_DATA_TABLES"
        return
    assert lines <= MAX_LINES, f"{rel} has {lines} lines (> {MAX_LINES}): split it by topic"


def duplicates(module: ast.Module) -> list[str]:
    seen: dict[str, int] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            seen[node.name] = seen.get(node.name, 0) + 1
    return sorted(name for name, n in seen.items() if n > 1)


def test_no_function_or_class_defined_twice():
    problems = {module_name(p): duplicates(tree(p)) for p in source_files("labcore", "ui", "app_pages")}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, f"defined twice (the second silently replaces the first): {problems}"


def test_duplicate_finder_can_fail():
    assert duplicates(ast.parse("def f(): pass\nx = 1\ndef f(): pass\n")) == ["f"]


def public_definitions(module: ast.Module):
    """Module-level functions and classes, and the methods of public classes, not starting with _."""
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
    missing += [f"*{a.arg}" for a in (args.vararg, args.kwarg) if a is not None and a.annotation is None]
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
