"""The product's import graph: no cycle, and dependencies point one way (issue 10, Layering).

The graph has one node per module of compiler/, runtime/ and spec/ (a package is its
`__init__`) and one edge per import statement, read with `ast` wherever it stands: at
module level, under `if TYPE_CHECKING:` and inside functions, because a lazy import is
still a dependency (it only moves the failure of a cycle from import time to call time).
`from X import Y` is an edge to the module X.Y when there is one, else to X. An edge from
a module to one of its own ancestor packages is left out of the cycle check: importing
`compiler.classad.parser` runs `compiler/__init__.py` and `compiler/classad/__init__.py`
whatever the code says, and a package's `__init__` re-exporting its modules (the
package's face) is not a design dependency of those modules on the face.

The floors (guide.md, Layout): spec/ is data and imports no code of the project;
compiler/ never imports runtime/; the ClassAd language (compiler.classad) stands alone,
using only the compiler's error root and text reader. Which compiler modules runtime/ may
import is tests/runtime/test_boundaries.py's rule.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator, Mapping
from functools import cache
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("compiler", "runtime", "spec")
#: What the ClassAd language may import from the rest of the compiler.
CLASSAD_MAY_USE = ("compiler.classad", "compiler.errors", "compiler.textio", "compiler.identity")

#: (importing module, imported module, line of the import statement)
Edge = tuple[str, str, int]


def modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted name -> file of every module under `root`/<package>."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _known(name: str, known: Mapping[str, Path]) -> str | None:
    """The longest prefix of `name` that is a module of the graph (None: not ours)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[Edge]:
    """Every edge from module `name` (file `path`) to a module of `known`, ancestors included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([base] if base else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            module = _known(target, known)
            if module is not None and module != name:
                yield name, module, node.lineno


@cache
def product_edges() -> tuple[Edge, ...]:
    known = modules(ROOT, PRODUCT)
    return tuple(edge for name, path in known.items() for edge in imports(name, path, known))


def find_cycle(edges: tuple[Edge, ...] | list[Edge]) -> list[str] | None:
    """One import cycle (first module repeated at the end), or None; edges to an
    ancestor package of the importer do not count."""
    graph: dict[str, set[str]] = {}
    for source, target, _ in edges:
        graph.setdefault(source, set())
        if not source.startswith(target + "."):
            graph[source].add(target)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        cycle: list[str] = error.args[1]
        return cycle[::-1]  # graphlib lists it against the edges' direction
    return None


def _describe(cycle: list[str], edges: tuple[Edge, ...] | list[Edge]) -> str:
    lines = {(source, target): line for source, target, line in edges}
    return "\n".join(
        f"  {source} (line {lines[source, target]}) imports {target}"
        for source, target in pairwise(cycle)
    )


def test_no_import_cycle() -> None:
    edges = product_edges()
    cycle = find_cycle(edges)
    if cycle is not None:
        raise AssertionError("import cycle:\n" + _describe(cycle, edges))


def test_compiler_and_spec_never_import_runtime() -> None:
    wrong = [
        f"{source}:{line} imports {target}"
        for source, target, line in product_edges()
        if source.split(".")[0] in ("compiler", "spec") and target.split(".")[0] == "runtime"
    ]
    assert not wrong, "\n".join(wrong)


def test_spec_data_imports_no_project_code() -> None:
    wrong = [
        f"{source}:{line} imports {target}"
        for source, target, line in product_edges()
        if source.split(".")[0] == "spec" and target.split(".")[0] != "spec"
    ]
    assert not wrong, "\n".join(wrong)


def test_classad_stands_alone() -> None:
    """compiler.classad imports from the compiler only itself, the error root, the text
    reader and the identity memo (leaves that import nothing of the compiler); `from
    compiler import X` (the compiler's face) counts as importing `compiler`."""
    wrong = [
        f"{source}:{line} imports {target}"
        for source, target, line in product_edges()
        if source.startswith("compiler.classad")
        and target.split(".")[0] == "compiler"
        and not any(target == ok or target.startswith(ok + ".") for ok in CLASSAD_MAY_USE)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_graph_is_the_real_one() -> None:
    """The reader sees the imports it must: module level, TYPE_CHECKING, inside functions."""
    edges = {(source, target) for source, target, _ in product_edges()}
    assert ("compiler.machine", "compiler.table") in edges  # module level
    assert ("compiler", "compiler.table") in edges  # under TYPE_CHECKING
    assert ("compiler.classad.evaluator", "compiler.classad.functions") in edges  # in a function
    assert ("runtime.ads", "compiler") in edges  # `from compiler import Program`: a name
    assert ("compiler.classad.compile", "compiler.classad.evaluator") in edges


def test_a_cycle_is_found(tmp_path: Path) -> None:
    """The checks can fail: a cycle closed by an import inside a function, through
    `from pkg import module`, is found; a module importing its own package's face is not
    a cycle; an edge into runtime is reported."""
    (tmp_path / "pkg").mkdir()
    files = {
        "__init__.py": "from pkg.x import X\n",
        "x.py": "from pkg import helper, y\nX = 1\n",
        "y.py": "def f():\n    from pkg.x import X\n    return X\n",
        "helper.py": "from . import errors\n",
        "errors.py": "",
    }
    for name, text in files.items():
        (tmp_path / "pkg" / name).write_text(text)
    known = modules(tmp_path, ("pkg",))
    edges = [edge for name, path in known.items() for edge in imports(name, path, known)]
    cycle = find_cycle(edges)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"pkg.x", "pkg.y"}
    assert "pkg.x (line 1) imports pkg.y" in _describe(cycle, edges)
    assert ("pkg.helper", "pkg.errors", 1) in edges  # relative import resolved

    (tmp_path / "pkg" / "y.py").write_text("import pkg\n")  # the face only: no cycle
    edges = [edge for name, path in known.items() for edge in imports(name, path, known)]
    assert find_cycle(edges) is None
    assert ("pkg.y", "pkg", 1) in edges
