"""The benchmarks stay wired together: every `tests/bench_*.py` figure module is listed
in `tests.bench_all` and the README, and defines `figures(seconds)` (read, not run: the
benchmarks take minutes and assert no time)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.bench_all import MODULES

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = {"bench_common", "bench_all"}


def _figure_modules() -> set[str]:
    return {f"tests.{path.stem}" for path in (ROOT / "tests").glob("bench_*.py")} - {
        f"tests.{name}" for name in SUPPORT
    }


def test_bench_all_lists_every_figure_module() -> None:
    assert set(MODULES) == _figure_modules()


def test_every_figure_module_defines_figures_and_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for module in sorted(_figure_modules()):
        source = ROOT / (module.replace(".", "/") + ".py")
        tree = ast.parse(source.read_text(encoding="utf-8"))
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert {"figures", "main"} <= functions, module
        assert f"python -m {module}" in readme, f"{module} is not in the README's Benchmarks"
