"""Long chains (issue 11): an OR of many clauses and long allow-lists simplify to guards
equal to the input (checked against the HTCondor oracle), the probes that spare most
full enumerations never contradict them, and the memo shared between calls keeps each
call's notes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import parse, unparse
from compiler.simplify import STARTD_DOMAINS, simplify
from compiler.simplify.context import ALL_PAIRS
from compiler.simplify.domains import Env
from compiler.simplify.regions import _enumerate, _probe_differs, _same, _tv
from tests.budget import examples
from tests.simplify.helpers import guards, oracle_eval

OWNERS: list[Any] = ["u1", "U7", "u29", "u30", "nobody", 5, None]
IDLES: list[Any] = [0, 1, 2, 7, 29, 30, 31, 10**6]


def _same_everywhere(src: A.Expr, out: A.Expr, machine_names: tuple[str, ...]) -> None:
    for owner in OWNERS:
        for idle in IDLES:
            job = {} if owner is None else {"Owner": owner}
            machine = {"KeyboardIdle": idle, "Machine": "h3.example.org"}
            if "owner" in machine_names and owner is not None:
                machine["Owner"] = owner
            assert oracle_eval(src, machine, job) == oracle_eval(out, machine, job), (
                owner,
                idle,
            )


@pytest.mark.parametrize("n", [ALL_PAIRS, ALL_PAIRS + 1, 30])
def test_or_of_clauses_stays_equal(n: int) -> None:
    src = parse(" || ".join(f'(Owner == "u{i}" && KeyboardIdle > {i})' for i in range(1, n + 1)))
    out = simplify(src, domains=STARTD_DOMAINS).expr
    _same_everywhere(src, out, ())


def test_allow_list_with_repeats_far_apart_stays_equal() -> None:
    """Beyond ALL_PAIRS operands only neighbours are compared: the far repeat of u1 may
    stay, the near one goes, and the guard keeps its value everywhere."""
    names = [f"u{i}" for i in range(1, 31)] + ["u1", "u30"]
    src = parse(" || ".join(f'Owner == "{u}"' for u in names))
    out = simplify(src, domains=STARTD_DOMAINS).expr
    _same_everywhere(src, out, ())
    assert unparse(out).count('"u30"') == 1  # the repeat right next to it is dropped


def test_clauses_over_undefined_collapse_to_the_first() -> None:
    """`undefined && KeyboardIdle > i` for i = 1..40 (START evaluated locally): every later
    clause is implied by its neighbour, so one remains, as with all pairs compared."""
    src = parse(" || ".join(f"undefined && KeyboardIdle > {i}" for i in range(1, 41)))
    out = simplify(src, domains=STARTD_DOMAINS).expr
    assert out == parse("undefined && KeyboardIdle > 1")


def _full_equal(a: A.Expr, b: A.Expr, env: Env, as_truth: bool) -> bool | None:
    rows = _enumerate((a, b), env)
    if rows is None:
        return None
    if as_truth:
        return all(_tv(va) == _tv(vb) for va, vb in rows)
    return all(_same(va, vb) for va, vb in rows)


_ENVS = [Env.make({}, {}), Env.make(STARTD_DOMAINS, {})]
_NAMES = ("KeyboardIdle", "Owner", "b")


@settings(max_examples=examples(150))
@given(
    guards(_NAMES),
    guards(_NAMES),
    st.sampled_from(["a", "a || b", "a && b", "b || a", "b && a"]),
    st.sampled_from(_ENVS),
    st.booleans(),
)
def test_a_probe_never_contradicts_the_full_enumeration(
    x: A.Expr, y: A.Expr, shape: str, env: Env, as_truth: bool
) -> None:
    """A probe that shows a difference must be right: the full enumeration (the oracle's
    own answer) then never finds the two equal. Candidates are often near-equal."""
    other = {
        "a": x,
        "a || b": A.Binary("||", x, y),
        "a && b": A.Binary("&&", x, y),
        "b || a": A.Binary("||", y, x),
        "b && a": A.Binary("&&", y, x),
    }[shape]
    if _probe_differs(x, other, env, as_truth):
        assert _full_equal(x, other, env, as_truth) is not True


def test_notes_survive_the_shared_memo() -> None:
    """A subtree without assumed attributes is memoised across calls; the note about an
    assumption is still written by every call that makes one."""
    e = parse('KeyboardIdle > 5 && State == "Owner"')
    first = simplify(e, domains=STARTD_DOMAINS, assume={"State": "Owner"})
    second = simplify(
        A.Binary("||", e, A.Boolean(False)), domains=STARTD_DOMAINS, assume={"State": "Owner"}
    )
    for result in (first, second):
        assert any("assumed State" in n for n in result.notes)
        assert unparse(result.expr) == "KeyboardIdle > 5"
