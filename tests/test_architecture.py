"""The few house rules no import contract can state, read from the source (AST only).

The layers, "labcore never imports Streamlit", "a page imports no science", scikit-learn only in
labcore.markers and multiprocessing only in labcore.parallel are import-linter contracts
(pyproject.toml, run by ``make lint``); docstrings and type hints on public definitions are ruff
rules. What is left here is held by calls and literals, not imports:

- the layer table of docs/ARCHITECTURE.md says what the layers contract checks;
- a call that has one home is made there only: an AUROC ranked or integrated in
  labcore.markers, a worker pool started in labcore.parallel, an interval or a sample SD taken in
  labcore.stats;
- an agent is trained and saved in labcore/training/provision.py only;
- a page path is typed in labcore.config.PAGE_URLS only;
- a page holds no bare string (Streamlit's magic would draw it).

Each check has a test that shows it failing on a broken example.
"""

from __future__ import annotations

import ast
import re
import tomllib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(ROOT.joinpath("app_pages").glob("*.py"))
CODE = sorted([*ROOT.joinpath("labcore").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")])
CODE += [ROOT / "app.py", *PAGES]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def called_name(call: ast.Call) -> str | None:
    """``f`` of ``f(...)`` or ``x.f(...)``."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


# --------------------------------------------------------------------------- the layer table
def documented_layers() -> list[list[str]]:
    """docs/ARCHITECTURE.md's layer table, lowest first, as module names relative to labcore."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    table = text.split("<!-- layers -->", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = [line.split("|")[2] for line in table.splitlines() if line.count("|") >= 3]
    return [re.findall(r"`labcore\.([\w.]+)`", row) for row in rows if "`" in row]


def contract_layers() -> list[list[str]]:
    """The layers contract of pyproject.toml, lowest first."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    return [re.split(r"\s*[:|]\s*", layer.strip()) for layer in reversed(layers)]


def test_the_documented_layers_are_the_checked_ones():
    assert documented_layers() == contract_layers()
    assert len(contract_layers()) > 10 and "markers" in contract_layers()[4]


# --------------------------------------------------------------------------- calls with one home
ONE_HOME = {
    "labcore/markers/": {"rankdata", "mannwhitneyu", "roc_auc_score", "roc_curve", "trapezoid"},
    "labcore/parallel.py": {"ProcessPoolExecutor", "ThreadPoolExecutor", "Pool", "Parallel"},
    "labcore/stats.py": {"t_interval", "welch_interval", "bootstrap_ci", "ttest_1samp"}
    | {"ttest_ind", "ttest_rel", "sem", "bootstrap"},
}
"""Calls only their home makes: an AUROC's ranks or ROC integral; a worker pool; a seed summary's
interval (its building blocks or scipy's t tests)."""
SAMPLE_SD_ELSEWHERE = {
    "labcore/markers/integration.py": "the covariance of one agent's channels (a marker's input)",
    "labcore/experiments/construction.py": "the audit's equivalence margin (protocol sec. 4)",
}
"""Modules that take an SD with ``ddof=1`` for something other than a seed summary."""


def calls_out_of_home(module: ast.Module, where: str) -> list[str]:
    """Calls of ``module`` (at file ``where``) that belong to another home, and sample SDs
    (``ddof=1``: a seed summary is labcore.stats' job) outside labcore.stats."""
    found = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        for home, names in ONE_HOME.items():
            if called_name(node) in names and not where.startswith(home):
                found.append(f"{where}:{node.lineno} calls {called_name(node)} (home: {home})")
        ddof_1 = any(
            kw.arg == "ddof" and isinstance(kw.value, ast.Constant) and kw.value.value == 1
            for kw in node.keywords
        )
        if ddof_1 and where not in ("labcore/stats.py", *SAMPLE_SD_ELSEWHERE):
            found.append(f"{where}:{node.lineno} takes a sample SD (home: labcore/stats.py)")
    return found


def test_calls_with_one_home_are_made_there():
    problems = [p for path in CODE for p in calls_out_of_home(tree(path), rel(path))]
    assert not problems, "\n".join(problems)
    assert all((ROOT / path).is_file() for path in SAMPLE_SD_ELSEWHERE)


def test_the_one_home_check_can_fail():
    broken = ast.parse(
        "from scipy import stats\n"
        "def auroc(y, s):\n    return stats.mannwhitneyu(s[y], s[~y]).statistic\n"
        "def run(xs):\n    return ProcessPoolExecutor(2).map(f, xs)\n"
        "def summary(xs):\n    return stats.sem(xs), np.std(xs, ddof=1)\n"
    )
    found = calls_out_of_home(broken, "labcore/figures/x.py")
    assert sorted(p.split()[0].split(":")[1] for p in found) == ["3", "5", "7", "7"]
    assert sorted(calls_out_of_home(broken, "labcore/stats.py")) == [
        "labcore/stats.py:3 calls mannwhitneyu (home: labcore/markers/)",
        "labcore/stats.py:5 calls ProcessPoolExecutor (home: labcore/parallel.py)",
    ]


# --------------------------------------------------------------------------- train and save
TRAIN_AND_SAVE_HOME = "labcore/training/provision.py"


def train_and_save_scopes(module: ast.Module, where: str) -> list[str]:
    """Functions of ``module`` (or its own statements: a page is a script) that call a trainer
    and ``save_checkpoint`` themselves instead of provision's ``train_and_save``."""
    definitions = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    top = [n for s in module.body if not isinstance(s, definitions) for n in ast.walk(s)]
    functions = [f for f in ast.walk(module) if isinstance(f, ast.FunctionDef)]
    scopes = [("<module>", top)] + [(f.name, list(ast.walk(f))) for f in functions]
    found = []
    for name, nodes in scopes:
        calls = {called_name(n) for n in nodes if isinstance(n, ast.Call)} - {None}
        trains = {c for c in calls if c.lstrip("_").startswith("train_") and "_and_save" not in c}
        if "save_checkpoint" in calls and trains:
            found.append(f"{where}:{name} calls {', '.join(sorted(trains))} and save_checkpoint")
    return found


def test_train_and_save_has_one_home():
    found = {rel(p): train_and_save_scopes(tree(p), rel(p)) for p in CODE}
    assert found.pop(TRAIN_AND_SAVE_HOME), "the home itself is found"
    assert not [p for problems in found.values() for p in problems]


def test_the_train_and_save_check_can_fail():
    page = ast.parse(
        "trained = behaviour_cloning.train_seeds('dual', 'b1', [5])[0]\n"
        "save_checkpoint(trained.agent, trained.record, 'runs/user')\n"
        "def ok():\n    return train_and_save('dual', 'b1', [5], None, 'out')\n"
    )
    assert train_and_save_scopes(page, "p.py") == [
        "p.py:<module> calls train_seeds and save_checkpoint"
    ]


# --------------------------------------------------------------------------- pages
def literal_url_paths(module: ast.Module) -> list[str]:
    """String literals passed as ``url_path=`` or ``page=``: a page path typed by hand."""
    return [
        kw.value.value
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg in ("url_path", "page") and isinstance(kw.value, ast.Constant)
    ]


def test_page_paths_have_one_home():
    """app.py and the lesson's links take every page's path from labcore.config.PAGE_URLS."""
    from labcore.config import PAGE_URLS

    assert set(PAGE_URLS) == {p.stem for p in PAGES}
    for path in (ROOT / "app.py", ROOT / "labcore" / "classroom" / "lesson.py"):
        assert literal_url_paths(tree(path)) == [], rel(path)
    typed = ast.parse('st.Page("a.py", url_path="agents")\nStep(page="")')
    assert literal_url_paths(typed) == ["agents", ""]


def drawn_strings(module: ast.Module) -> list[int]:
    """Lines of the bare string statements Streamlit's magic draws on a page: every one but a
    docstring (the first statement of the module or of a function)."""
    docstrings = {
        id(body[0])
        for node in ast.walk(module)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef)
        and (body := node.body)
    }
    return [
        node.lineno
        for node in ast.walk(module)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant | ast.JoinedStr)
        and (isinstance(node.value, ast.JoinedStr) or isinstance(node.value.value, str))
        and id(node) not in docstrings
    ]


def test_pages_hold_no_bare_strings():
    assert not [f"{rel(p)}:{line}" for p in PAGES for line in drawn_strings(tree(p))]
    broken = ast.parse(
        '"""Docstring."""\nX = 1\n"""A note about X."""\ndef f():\n    """Doc."""\n'
        '    "a note"\nif X:\n    f"{X} in a branch"\n'
    )
    assert sorted(drawn_strings(broken)) == [3, 6, 8]
