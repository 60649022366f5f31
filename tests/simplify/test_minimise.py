"""Two-valued minimisation: applied to guards whose atoms are defined booleans, reported
honestly when a guard has more atoms than `max_vars` (sympy would otherwise stop
minimising silently above 8 variables)."""

from __future__ import annotations

import pytest

from compiler.classad import parse, unparse
from compiler.simplify import Domain, simplify

NUMS = {f"x{i}": Domain("integer", True, 0, 100) for i in range(12)}


def _redundant_guard(n: int) -> str:
    """(x0>1 && x1>1) || (x0>1 && x2>1) || ... : n atoms, x0>1 repeated; minimal form
    x0 > 1 && (x1 > 1 || x2 > 1 || ...)."""
    return " || ".join(f"(x0 > 1 && x{i} > 1)" for i in range(1, n))


def test_small_guard_is_minimised() -> None:
    got = simplify(parse(_redundant_guard(5)), domains=NUMS)
    assert got.minimised
    assert unparse(got.expr) == "x0 > 1 && (x1 > 1 || x2 > 1 || x3 > 1 || x4 > 1)"
    assert got.notes == ()


def test_more_atoms_than_max_vars_is_reported() -> None:
    got = simplify(parse(_redundant_guard(11)), domains=NUMS)  # 11 distinct atoms
    assert not got.minimised
    assert any("11 atoms" in n and "max_vars=8" in n for n in got.notes)


@pytest.mark.slow  # exact minimisation over 9 atoms (10 took six times as long)
def test_max_vars_can_be_raised() -> None:
    # 9 atoms: one more than the default max_vars and than sympy minimises unforced
    text = _redundant_guard(9)
    assert not simplify(parse(text), domains=NUMS).minimised
    got = simplify(parse(text), domains=NUMS, max_vars=9)
    assert got.minimised
    assert got.notes == ()
    ors = " || ".join(f"x{i} > 1" for i in range(1, 9))
    assert unparse(got.expr) == f"x0 > 1 && ({ors})"


def test_three_valued_atoms_are_not_minimised_as_booleans() -> None:
    # Without domains the atoms may be UNDEFINED or ERROR, so Boolean algebra does not
    # apply to the skeleton (factoring p out would change which ERROR is seen first);
    # only the four-valued local laws may act, and none applies here.
    text = "(x0 > 1 && x1 > 1) || (x0 > 1 && x2 > 1)"
    got = simplify(parse(text))
    assert got.expr == parse(text)
    assert got.minimised  # nothing was skipped for size
