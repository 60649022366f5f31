"""The runtime's dependency rule: it imports the compiler through its package faces and
libraries, never tests or the oracle."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINE = [
    ROOT / "compiler" / "machine.py",
    *sorted((ROOT / "runtime").glob("*.py")),
    *sorted((ROOT / "runtime" / "sensors").glob("*.py")),
    ROOT / "runtime" / "commands" / "run.py",
    ROOT / "runtime" / "commands" / "watch.py",
]
FORBIDDEN = ("tests", "htcondor", "htcondor2", "classad", "classad2")


@pytest.mark.parametrize("path", MINE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_of_tests_or_the_oracle(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        forbidden = (*FORBIDDEN, "runtime") if path.parent.name == "compiler" else FORBIDDEN
        for name in names:
            assert name.split(".")[0] not in forbidden, f"{path.name} imports {name}"


# -- every runtime module uses only the compiler's public faces ------------------------------

ALL_RUNTIME = sorted((ROOT / "runtime").rglob("*.py"))
#: The compiler's public faces: its packages' __init__ (`compiler` holds compile_policy,
#: StateTable, Row, CompiledGuard, Program, Settings, holds, ...), the AST node types, the
#: error root, the text reader and the transitions adapter.
FACES = frozenset({
    "compiler", "compiler.analysis", "compiler.classad", "compiler.classad.ast",
    "compiler.config", "compiler.diagram", "compiler.errors", "compiler.machine",
    "compiler.schedd", "compiler.simplify", "compiler.slots", "compiler.spec", "compiler.textio",
})  # fmt: skip
#: Deep imports still allowed: the trace generator reads the literal helpers of the
#: simplifier's abstraction and the analysis's attribute references to pick sensor values.
WALKERS = {
    ("generate.py", "compiler.analysis.sat"), ("generate.py", "compiler.simplify.abstract"),
}  # fmt: skip


def imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, imported names) of every import statement in `path`."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, tuple(a.name for a in node.names)))
    return out


@pytest.mark.parametrize("path", ALL_RUNTIME, ids=lambda p: str(p.relative_to(ROOT)))
def test_runtime_uses_only_public_faces(path: Path) -> None:
    """Every module of runtime/ (the engine, the ad builder, the clock, the sensors as much
    as the CLI and the checker) imports the compiler through its package faces only, and
    no private name of the compiler or of another runtime package."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for module, names in imports(path):
        root = module.split(".")[0]
        if root == "compiler" and (path.name, module) not in WALKERS:
            assert module in FACES, f"{path.name} imports the deep module {module}"
        if root in ("compiler", "runtime"):
            private = [n for n in names if n.startswith("_")]
            assert not private, f"{path.name} imports private {private} from {module}"
            last = module.split(".")[-1]
            inside = module.rsplit(".", 1)[0] == package
            assert not last.startswith("_") or inside, f"{path.name} imports {module}"


def test_the_walker_exceptions_are_still_needed() -> None:
    """An entry of WALKERS that no file uses any more must be removed from the list."""
    used = {(p.name, m) for p in ALL_RUNTIME for m, _ in imports(p) if (p.name, m) in WALKERS}
    assert not WALKERS - used, f"no longer imported, remove from WALKERS: {WALKERS - used}"


@pytest.mark.parametrize("path", MINE[1:], ids=lambda p: str(p.relative_to(ROOT)))
def test_lower_floors_do_not_import_the_cli_or_the_checker(path: Path) -> None:
    if path.parent.name == "commands" or path.name in ("__main__.py", "cli.py"):
        return  # the CLI itself
    for module, _ in imports(path):
        assert not module.startswith(("runtime.check", "runtime.commands", "runtime.cli")), (
            f"{path.name} imports {module}"
        )


def test_the_rule_can_fail(tmp_path: Path) -> None:
    """The checker sees a deep import and a private name (as in the old reference.py)."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from compiler.classad.values import UNDEFINED\nfrom runtime.ads import _context\n"
    )
    found = imports(bad)
    assert ("compiler.classad.values", ("UNDEFINED",)) in found
    assert "compiler.classad.values" not in FACES
    assert ("runtime.ads", ("_context",)) in found


def test_the_compiler_face_is_complete_and_lazy() -> None:
    """`compiler/__init__.py` names each public type three times: in `__all__`, in its
    TYPE_CHECKING imports (what mypy sees) and in the table `__getattr__` imports from on
    first use. The three agree, every name resolves, and importing `compiler` imports none
    of the modules behind it (`import compiler.classad` must not pull in sympy)."""
    import subprocess
    import sys

    import compiler

    tree = ast.parse((ROOT / "compiler" / "__init__.py").read_text())
    typed = {
        alias.name: node.module
        for block in tree.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert set(typed) == set(compiler.__all__)
    for name, home in typed.items():
        assert getattr(compiler, name) is getattr(importlib.import_module(str(home)), name)
    probe = (
        "import sys, compiler; print(sorted(m for m in sys.modules if m.startswith('compiler.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]", f"`import compiler` imports {loaded}"


@pytest.mark.parametrize("path", ALL_RUNTIME, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_era_name_in_runtime_code(path: Path) -> None:
    """Era facts are spec data (spec/eras options, helpers): no runtime module names an
    era, neither in a comparison (`if era == "htcondor-current"`) nor in a list of its own
    (compiler.spec.ERAS is the one list)."""
    from compiler.spec import ERAS

    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Constant) and node.value in ERAS:
            raise AssertionError(f"{path.name}:{node.lineno} names the era {node.value!r}")
