"""Soundness of the compiled tables (hypothesis).

For every guard of the seeds' policies (each trigger, each activity choice, each row's
combined guard, in all three eras and both semantics):

1. the simplified guard has exactly the same ClassAd value as the expanded (unsimplified)
   guard, for attribute assignments that include UNDEFINED (missing) and ERROR and that
   respect the startd's attribute domains and the row's own State/Activity (the only
   facts the simplifier is allowed to use);
2. the compiled predicate (`CompiledGuard.predicate`) returns what the interpreter
   (`compiler.classad.evaluate`) returns for the simplified guard, and the compiled
   expanded guard what the interpreter returns for it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import compile_expr, evaluate, parse
from compiler.classad.evaluator import function_context
from compiler.config import load_config
from compiler.policy import _domains, compile_policy
from compiler.simplify import Domain
from compiler.spec import load_spec
from compiler.table import CompiledGuard, StateTable
from tests.compile.sampling import NOW, STRINGS, references, targets, value_key

FIXTURES = Path(__file__).parent / "fixtures"
POLICIES: tuple[tuple[str, str | None], ...] = (
    ("condor-6.4", None),
    ("condor-6.4", "c64-uwcs.config"),
    ("condor-6.4", "c64-testjob.config"),
    ("condor-6.8", None),
    ("condor-6.8", "c68-desktop.config"),
    ("condor-6.8", "c68-suspension.config"),
    ("condor-6.8", "c68-time-of-day.config"),
    ("htcondor-current", None),
    ("htcondor-current", "cur-desktop.config"),
    ("htcondor-current", "cur-testjob.config"),
    ("htcondor-current", "cur-suspension.config"),
)
ABSENT = "<absent>"


@cache
def _table(era: str, fixture: str | None, semantics: str) -> StateTable:
    config = load_config(FIXTURES / fixture, era=era) if fixture else None
    return compile_policy(config, era, semantics)


@cache
def _guards(era: str, fixture: str | None, semantics: str) -> tuple[Any, ...]:
    """(row source pair, compiled guard) for every guard of the table."""
    out = []
    for row in _table(era, fixture, semantics).rows:
        found = [g for g in (*row.triggers, *row.choices, row.guard) if g is not None]
        out += [(row.source, g) for g in found]
    return tuple(out)


def _candidates(domain: Domain | None, near: list[float]) -> list[Any]:
    numbers: list[Any] = []
    for x in near[:12]:
        numbers += [int(x), float(x)] if float(int(x)) == x else [float(x)]
    if domain is not None:
        match domain.kind:
            case "boolean":
                values: list[Any] = [False, True]
            case "string":
                values = list(STRINGS)
            case "integer" | "number":
                values = [0, 1, 1_000_000_000, *numbers]
                values = [
                    v
                    for v in values
                    if (domain.low is None or v >= domain.low)
                    and (domain.high is None or v <= domain.high)
                    and (domain.kind == "number" or isinstance(v, int))
                ] or [0]
            case _:
                values = [0]
        return values if domain.defined else [ABSENT, A.ErrorLit(), *values]
    return [ABSENT, A.ErrorLit(), True, False, 0, 1, 2.5, *numbers, *STRINGS[:3], [1]]


@st.composite
def guard_and_ads(draw: st.DrawFn, semantics: str) -> tuple[Any, ...]:
    era, fixture = draw(st.sampled_from(POLICIES))
    guards = _guards(era, fixture, semantics)
    source, guard = draw(st.sampled_from(guards))
    expanded = parse(guard.expanded)
    domains = {k.lower(): v for k, v in _domains(load_spec(era, semantics)).items()}
    near = targets([expanded])
    my: dict[str, Any] = {"State": source[0], "Activity": source[1]}
    target: dict[str, Any] = {}
    for scope, name in sorted(references([expanded]), key=lambda r: (r[0] or "", r[1])):
        key = name.lower()
        if key in ("state", "activity"):
            continue
        aimed = near.get((scope, key)) or near.get((None, key)) or []
        if scope == "TARGET":
            value = draw(st.sampled_from(_candidates(None, aimed)))
            if value is not ABSENT:
                target[name] = value
            continue
        domain = domains.get(key)
        value = draw(st.sampled_from(_candidates(domain, aimed)))
        if value is not ABSENT:
            my[name] = value
        if domain is None and scope is None:
            other = draw(st.sampled_from(_candidates(None, aimed)))
            if other is not ABSENT:
                target[name] = other
    return guard, expanded, my, target


def _value(expr: A.Expr, my: dict[str, Any], target: dict[str, Any]) -> Any:
    return value_key(evaluate(expr, my, target, now=NOW))


@settings(max_examples=400)
@given(guard_and_ads("manual"))
def test_simplified_equals_expanded_manual(case: tuple[Any, ...]) -> None:
    guard, expanded, my, target = case
    assert _value(guard.expr, my, target) == _value(expanded, my, target), (
        guard.expanded,
        guard.simplified,
    )


@settings(max_examples=400)
@given(guard_and_ads("code"))
def test_simplified_equals_expanded_code(case: tuple[Any, ...]) -> None:
    guard, expanded, my, target = case
    assert _value(guard.expr, my, target) == _value(expanded, my, target), (
        guard.expanded,
        guard.simplified,
    )


@settings(max_examples=300)
@given(st.sampled_from(("manual", "code")).flatmap(guard_and_ads))
def test_compiled_predicates_agree_with_interpreter(case: tuple[Any, ...]) -> None:
    guard, expanded, my, target = case
    assert isinstance(guard, CompiledGuard)
    ctx = function_context(NOW)
    got = value_key(guard.predicate(my, target, ctx=ctx))
    assert got == _value(guard.expr, my, target), guard.simplified
    compiled_expanded = compile_expr(expanded)
    assert value_key(compiled_expanded(my, target, ctx=ctx)) == _value(expanded, my, target)


def test_every_policy_compiles_in_both_semantics() -> None:
    for era, fixture in POLICIES:
        for semantics in ("manual", "code"):
            table = _table(era, fixture, semantics)
            assert len(table.numbered()) == load_spec(era, semantics).numbered_count
            assert _guards(era, fixture, semantics), (era, fixture, semantics)
