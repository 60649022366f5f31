"""Shared look-ups for the table checks and lints: guards of a row in the context of its
source pair, the firing condition of a trigger (earlier steps of the evaluation order
did not hold), and satisfiability with the table's domains.

Stage: static analysis support; pure functions over a `StateTable`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from compiler.analysis.sat import Satisfiability, machine_domains, satisfiable
from compiler.classad import ast as A
from compiler.program import Knob
from compiler.simplify import Domain
from compiler.table import CompiledGuard, Row, StateTable

#: Attributes whose value belongs to the state the slot is in (they change when it moves).
STATE_BOUND = ("State", "Activity", "EnteredCurrentState", "EnteredCurrentActivity")
#: Attributes the startd publishes as numbers when it publishes them at all (they may be
#: missing: UNDEFINED), used so that witnesses read like real slot ads.
PUBLISHED_NUMBERS = (
    "JobStart", "CpuBusyTime", "CpuBusyValue", "LastPeriodicCheckpoint", "TotalJobRunTime",
    "TotalJobSuspendTime", "TotalClaimRunTime", "TotalClaimSuspendTime", "ImageSize_RAW",
    "PreemptingRank", "RetirementTimeRemaining", "MachineMaxVacateTime", "Mips", "KFlops",
)  # fmt: skip
#: Suffix given to state-bound attributes of "the other" pair in two-pair questions.
AFTER = "__after"


def holds(e: A.Expr) -> A.Expr:
    """`e` as a conjunct whose truth is TRUE exactly when the startd's test holds."""
    return e


def fails(e: A.Expr) -> A.Expr:
    """TRUE exactly when `e` does not hold (FALSE, UNDEFINED or ERROR), left to right so
    that an ERROR operand cannot poison the disjunction."""
    return A.Binary(
        "||",
        A.Binary("||", A.Call("isError", (e,)), A.Call("isUndefined", (e,))),
        A.Unary("!", e),
    )


def conj(items: Iterable[A.Expr]) -> A.Expr:
    out: A.Expr | None = None
    for item in items:
        out = item if out is None else A.Binary("&&", out, item)
    return out if out is not None else A.Boolean(True)


def rename(e: A.Expr, names: Iterable[str], suffix: str = AFTER) -> A.Expr:
    """`e` with unscoped/MY references to `names` renamed (the other pair's copy)."""
    keys = {n.lower() for n in names}

    def walk(x: A.Expr) -> A.Expr:
        if isinstance(x, A.AttrRef) and x.scope in (None, "MY") and x.key in keys:
            return A.AttrRef(x.name + suffix, x.scope)
        return A.map_children(x, walk)

    return walk(e)


@dataclass(frozen=True)
class Analysis:
    """A table plus the domains and caches the checks share."""

    table: StateTable
    extra_machine: tuple[str, ...] = ()
    _cache: dict[Any, Satisfiability] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def predicates(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.table.spec.predicates)

    @cached_property
    def domains(self) -> dict[str, Domain]:
        doms = machine_domains(self.predicates)
        for name in PUBLISHED_NUMBERS:
            doms.setdefault(name, Domain("integer", False, 0))
        doms["State"] = Domain("string", True)
        doms["Activity"] = Domain("string", True)
        for name in STATE_BOUND:
            if name in doms:
                doms[name + AFTER] = doms[name]
        return doms

    def assume(self, pair: tuple[str, str], suffix: str = "") -> dict[str, Any]:
        return {f"State{suffix}": pair[0], f"Activity{suffix}": pair[1]}

    def sat(
        self,
        e: A.Expr,
        assume: dict[str, Any] | None = None,
        want: tuple[str, ...] = ("T",),
    ) -> Satisfiability:
        key = (e, tuple(sorted((assume or {}).items())), want)
        found = self._cache.get(key)
        if found is None:
            found = satisfiable(
                e,
                want=want,
                domains=self.domains,
                assume=assume,
                machine=self.extra_machine,
            )
            self._cache[key] = found
        return found

    # -- guards of rows ------------------------------------------------------------------

    def policy_guards(self, row: Row) -> list[tuple[int, CompiledGuard]]:
        """(trigger index, compiled guard) of the row's policy and immediate triggers."""
        out = []
        for index, (trig, compiled) in enumerate(
            zip(row.transition.triggers, row.triggers, strict=True)
        ):
            if trig.kind in ("policy", "immediate") and compiled is not None:
                out.append((index, compiled))
        return out

    def firing(self, row: Row, index: int) -> A.Expr:
        """The condition under which policy trigger `index` of `row` fires on an
        evaluation pass: its guard holds and no earlier step of the pair's order holds."""
        trig = row.transition.triggers[index]
        compiled = row.triggers[index]
        assert compiled is not None
        parts: list[A.Expr] = []
        if trig.kind == "policy" and trig.order is not None:
            state = self.table.spec.state(row.source[0])
            for step in state.evaluation_order:
                if (step.source.state, step.source.activity) != row.source:
                    continue
                if step.order >= trig.order or (
                    step.transition == row.id and step.trigger == index
                ):
                    continue
                try:
                    other = self.table.row(step.transition).triggers[step.trigger]
                except (KeyError, IndexError):
                    continue
                if other is not None:
                    parts.append(fails(other.expr))
        return conj([holds(compiled.expr), *parts])

    def policy_expr(self, name: str) -> A.Expr | None:
        """The configuration's expression of a policy name (`knob_expr`), None when the
        configuration leaves it to the era default (callers read the spec's) or it is
        not a knob of the era."""
        try:
            knob = self.table.program.knob(name)
        except KeyError:
            return None
        return knob_expr(knob)


def knob_expr(knob: Knob) -> A.Expr | None:
    """What the analysis reads for a knob: the configuration's (unexpanded) expression;
    UNDEFINED for one defined empty or not at all (as the guards see it); None for an era
    default or an invalid text, which the checks take from the spec or skip."""
    match knob.source:
        case "config":
            return knob.expr
        case "empty" | "undefined":
            return A.UndefinedLit()
        case _:
            return None


def with_machine(analysis: Analysis, names: Iterable[str]) -> Analysis:
    return replace(analysis, extra_machine=tuple(names), _cache={})
