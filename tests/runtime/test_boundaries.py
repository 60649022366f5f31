"""The runtime's dependency rule: it imports compiler.* and libraries, never tests or the oracle."""

from __future__ import annotations

import ast
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
