"""The product runs from the README's quick-start install (`pip install -e .`, no extra).

Every third-party module that compiler/, runtime/ and spec/ import must come from a
distribution in pyproject's [project].dependencies; the test extra (pytest, the htcondor
oracle, the linters) is for the tests only. Issue 10: `condor-policy check` died with
ModuleNotFoundError because runtime/check uses hypothesis, then a test-only dependency.

Two proofs: a static one (every `import` statement of the product, read with `ast`, resolved
to its distribution through the installed metadata, so PyYAML -> yaml is not typed in here)
and a dynamic one (a fresh interpreter in which the test-only distributions cannot be
imported imports every product module and runs `condor-policy check`).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import textwrap
import tomllib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("compiler", "runtime", "spec")
#: The oracle: tests compare against it, the product must never need it.
ORACLE = frozenset({"htcondor", "htcondor2", "classad", "classad2", "classad3"})


def _distribution(requirement: str) -> str:
    """PEP 503 normalized project name of a requirement string ("PyYAML>=6" -> "pyyaml")."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


@cache
def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project: dict[str, object] = tomllib.load(handle)["project"]
    return project


def _declared() -> frozenset[str]:
    requirements = _project()["dependencies"]
    assert isinstance(requirements, list)
    return frozenset(_distribution(r) for r in requirements)


def _test_only() -> frozenset[str]:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    return frozenset(_distribution(r) for r in extras["test"]) - _declared()


def _product_files() -> list[Path]:
    return sorted(p for top in PRODUCT for p in (ROOT / top).rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every absolute import in a file, wherever it is written
    (inside functions and `if TYPE_CHECKING:` blocks too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


@cache
def _third_party() -> dict[str, list[str]]:
    """Top-level module -> where the product imports it, stdlib and first-party left out
    (parsed once per process: three tests read it, none changes it)."""
    uses: dict[str, list[str]] = {}
    for path in _product_files():
        for line, module in _imports(path):
            if module in sys.stdlib_module_names or module in PRODUCT:
                continue
            uses.setdefault(module, []).append(f"{path.relative_to(ROOT)}:{line}")
    return uses


def test_the_walk_sees_the_product() -> None:
    """Guards the guard: the walk finds the libraries the product is known to build on."""
    assert {"lark", "yaml", "hypothesis"} <= set(_third_party())


def test_every_third_party_import_is_a_declared_dependency() -> None:
    owners = importlib.metadata.packages_distributions()
    declared = _declared()
    missing = []
    for module, where in sorted(_third_party().items()):
        distributions = {_distribution(d) for d in owners.get(module, [])}
        if not distributions & declared:
            missing.append(
                f"{module} (from {sorted(distributions) or 'no installed distribution'}) at {', '.join(where)}"
            )
    assert not missing, "imported by the product but not in [project].dependencies:\n" + "\n".join(
        missing
    )


def test_the_product_never_imports_the_oracle() -> None:
    used = _third_party()
    assert not {m: used[m] for m in ORACLE & set(used)}


def test_the_test_extra_holds_only_test_tools() -> None:
    """hypothesis is the search engine of `check`: a product dependency, not a test extra."""
    assert "hypothesis" in _declared()
    assert {"pytest", "htcondor"} <= _test_only()


_QUICK_START = textwrap.dedent(
    """
    import importlib, importlib.abc, importlib.metadata, pkgutil, sys

    hidden = set({test_only!r})
    blocked = {{
        module
        for module, dists in importlib.metadata.packages_distributions().items()
        if {{d.lower().replace("_", "-") for d in dists}} <= hidden
    }}

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    for top in {product!r}:
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            if not info.name.endswith(".__main__"):
                importlib.import_module(info.name)
    from runtime.cli import main
    sys.exit(main(["check", "--max-examples", "3"]))
    """
)


def test_check_runs_without_the_test_extra() -> None:
    """The quick-start path: every product module imports and `condor-policy check` runs
    in an interpreter where pytest, the oracle and the linters are not importable."""
    script = _QUICK_START.format(test_only=sorted(_test_only()), product=PRODUCT)
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]


def test_the_blocker_would_catch_an_oracle_import() -> None:
    """The dynamic test can fail: the oracle (which the test extra installs) is blocked."""
    owners = importlib.metadata.packages_distributions()
    for module in ("htcondor2", "classad2"):
        assert {_distribution(d) for d in owners[module]} <= _test_only(), module
