"""Golden input/expected pairs (tests/simplify/golden.txt), written by hand from the laws.

Each expected output is also checked to be equal to its input on a grid of assignments
by the oracle, so a wrong golden line cannot hide a wrong simplifier.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.classad import parse, unparse
from compiler.simplify import STARTD_DOMAINS, simplify
from tests.simplify.helpers import ANY_VALUES, oracle_eval, project_evaluator

GOLDEN = Path(__file__).with_name("golden.txt")


def _cases() -> list[Any]:
    out = []
    law = ""
    for n, line in enumerate(GOLDEN.read_text().splitlines(), 1):
        if line.startswith("# law:"):
            law = line[len("# law:") :].strip()
        if not line.strip() or line.startswith("#"):
            continue
        tag, rest = line.split("]", 1)
        source, expected = (part.strip() for part in rest.split("=>"))
        out.append(pytest.param(tag.strip("[ "), source, expected, id=f"{n}:{law}:{source}"))
    return out


@pytest.mark.parametrize(("tag", "source", "expected"), _cases())
def test_golden(tag: str, source: str, expected: str) -> None:
    if tag == "fold" and project_evaluator() is None:
        pytest.skip("constant folding needs compiler.classad.evaluate")
    domains = {} if tag == "none" else STARTD_DOMAINS
    got = simplify(parse(source), domains=domains)
    assert unparse(got.expr) == unparse(parse(expected))
    assert got.expr == parse(expected)


@pytest.mark.parametrize(
    ("tag", "source", "expected"), [c for c in _cases() if c.values[0] == "none"]
)
def test_golden_pairs_are_equal_by_the_oracle(tag: str, source: str, expected: str) -> None:
    """The hand-written expectation itself is sound (no domains: any values)."""
    grid = ANY_VALUES[::3]
    src, exp = parse(source), parse(expected)
    for a in grid:
        for b in grid[::2]:
            my = {"a": a, "b": b}
            assert oracle_eval(src, my, {"c": 1}) == oracle_eval(exp, my, {"c": 1}), (a, b)
