"""House style as tests (issue 25): the tree is formatted by ``ruff format`` and passes
``ruff check`` with the repository's settings (pyproject.toml: lines of at most 100 characters,
E501 on; McCabe complexity at most the ceiling the code meets), so a drift fails the suite, not
only ``make lint``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_the_tree_is_formatted():
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, f"run `ruff format .`:\n{done.stdout}{done.stderr}"


def test_the_tree_passes_the_linter():
    done = ruff("check", "--output-format", "concise", ".")
    assert done.returncode == 0, f"ruff check:\n{done.stdout}{done.stderr}"


def test_the_style_checks_can_fail(tmp_path):
    """A long line, a function over the complexity ceiling and unformatted code, under the
    repository's own settings, are each found."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(25))
    (tmp_path / "bad.py").write_text(
        f'"""A module."""\n\nTEXT = "{"x" * 120}"\n\n\ndef many(x):\n{branches}\n    return -1\n'
        "\n\ndef ugly( a,b ):\n    return a+b\n"
    )
    lint = ruff("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert lint.returncode != 0 and "E501" in lint.stdout and "C901" in lint.stdout
    assert ruff("format", "--check", ".", cwd=tmp_path).returncode != 0
    assert ruff("format", "--check", str(ROOT / "tests" / "test_style.py")).returncode == 0
