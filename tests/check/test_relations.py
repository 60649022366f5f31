"""The relations the analysis assumes between the startd's predicates and its pair
(`compiler.analysis.context.PREDICATE_RELATIONS`, NO_RETIREMENT, the CLAIM_WORKLIFE one)
hold at every guard evaluation of the reference interpreter (runtime.check.reference,
which computes each predicate from its own bookkeeping), on the configurations the
planner drives through every reachable pair. A relation that failed here would make a
coverage proof (`check`'s `never_possible`) wrong; a false relation is caught."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import pytest

from compiler import compile_policy
from compiler.analysis import Analysis
from compiler.classad import ast as A
from compiler.classad import compile_expr, parse, unparse
from compiler.config import load_config
from compiler.simplify.threevl import tv_of_value
from runtime.check.machines import config_timers
from runtime.check.plan import planned
from runtime.check.reference import PolicyExprs, ReferenceSlot

#: (template or None for the era default, era, semantics): no retirement time and a
#: retirement time, suspension, a claim worklife, every era. The README run checks the
#: relations on the plans tests/check/test_coverage.py makes anyway (its `_planned`
#: watches them); these re-plan, so they run under `-m explore`.
CASES = [
    ("Desktop", "htcondor-current", "code"),
    (None, "htcondor-current", "code"),
    ("Hold_If_Cpus_Exceeded", "htcondor-current", "manual"),
    ("Desktop", "condor-6.8", "code"),
    (None, "condor-6.8", "manual"),
    (None, "condor-6.4", "code"),
]
RETIRING = "use POLICY : Desktop\nMaxJobRetirementTime = 600\nCLAIM_WORKLIFE = 300\n"


@cache
def _setup(text: str, era: str, semantics: str):  # type: ignore[no-untyped-def]
    config = load_config(text=text, era=era) if text else load_config(era=era)
    table = compile_policy(config, era, semantics)
    return config, table, PolicyExprs.from_config(table.spec, config)


def _text(template: str | None) -> str:
    return f"use POLICY : {template}\n" if template else ""


def predicate_relations(an: Analysis) -> list[A.Expr]:
    """The relations of `an` about predicates, State and Activity only (the others
    name sensors a reference slot sets from witnesses)."""
    names = {p.lower() for p in an.predicates} | {"state", "activity"}
    return [
        rel for _, rel in an.proof_relations
        if {r.key for r in A.find_all(rel, A.AttrRef, same_scope=True)} <= names
    ]  # fmt: skip


@contextmanager
def watching(relations: list[A.Expr]) -> Iterator[list[str]]:
    """Every evaluation pass and every entry into a pair (its immediate steps) of every
    reference slot checks `relations` on its ad: the moments the proofs are about."""
    checks = [(unparse(rel), compile_expr(rel)) for rel in relations]
    broken: list[str] = []
    evaluate, entered = ReferenceSlot.evaluate, ReferenceSlot._entered

    def check(slot: ReferenceSlot) -> None:
        ad = slot.ad()
        for text, fn in checks:
            if tv_of_value(fn(ad, None)) != "T":
                broken.append(f"{text} fails in {slot.state}/{slot.activity}")

    def watched_evaluate(self: ReferenceSlot) -> bool:
        check(self)
        return evaluate(self)

    def watched_entered(self: ReferenceSlot, job: Any) -> None:
        check(self)
        entered(self, job)

    ReferenceSlot.evaluate = watched_evaluate  # type: ignore[method-assign]
    ReferenceSlot._entered = watched_entered  # type: ignore[method-assign]
    try:
        yield broken
    finally:
        ReferenceSlot.evaluate = evaluate  # type: ignore[method-assign]
        ReferenceSlot._entered = entered  # type: ignore[method-assign]


def _broken(text: str, era: str, semantics: str, extra: list[A.Expr] = ()) -> list[str]:  # type: ignore[assignment]
    config, table, policy = _setup(text, era, semantics)
    relations = [*predicate_relations(Analysis(table)), *extra]
    with watching(relations) as broken:
        planned(table, policy, timer_values=config_timers(table.spec, config))
    return sorted(set(broken))


@pytest.mark.explore
@pytest.mark.parametrize(("template", "era", "semantics"), CASES)
def test_predicate_relations_hold_at_every_reference_evaluation(
    template: str | None, era: str, semantics: str
) -> None:
    assert _broken(_text(template), era, semantics) == []


def test_relations_with_a_retirement_time_and_a_claim_worklife() -> None:
    _, table, _ = _setup(RETIRING, "htcondor-current", "code")
    texts = {unparse(rel) for rel in predicate_relations(Analysis(table))}
    # A retirement time: no NO_RETIREMENT relation; a worklife: it may expire.
    assert not any("RetirementExpired || !MayUnretire" in t for t in texts)
    assert "!ClaimWorklifeExpired" not in texts


@pytest.mark.explore
def test_relations_hold_with_a_retirement_time() -> None:
    assert _broken(RETIRING, "htcondor-current", "code") == []


def test_desktop_has_the_no_retirement_relations() -> None:
    _, table, _ = _setup(_text("Desktop"), "htcondor-current", "code")
    texts = {unparse(rel) for rel in predicate_relations(Analysis(table))}
    assert "RetirementExpired || !MayUnretire" in texts
    assert "!ClaimWorklifeExpired" in texts  # Desktop: CLAIM_WORKLIFE empty, forever


def test_a_false_relation_is_caught() -> None:
    """The check can fail: "no preempting claim in Claimed/Busy" is false on any plan
    that registers one (a preempting claim is evaluated at once)."""
    wrong = parse('State =!= "Claimed" || Activity =!= "Busy" || !HasPreemptingClaim')
    found = _broken(_text(None), "condor-6.8", "manual", [wrong])
    assert found and all(f.startswith('State =!= "Claimed" || Activity') for f in found)
