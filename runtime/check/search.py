"""The dynamic check: generate traces with hypothesis, run the machine, judge the run.

Stage: check (runtime). `search(...)` runs hypothesis programmatically (`@given` with a
fixed seed and `max_examples`, no example database) over `generate.traces`; every
generated trace is run on the machine under test, recorded (`observe.record`) and judged
by the built-in properties, the admin properties and, when a reference machine is given,
the cross-check "same transitions as the reference interpreter". A violated property
raises an exception of a type of its own, so hypothesis shrinks each property's
counterexample separately (report_multiple_bugs); the last trace that raised for a
property, after shrinking, is its minimal counterexample.

Planned traces (runtime.check.plan: paths through the compiled table that reach every
live transition and both values of every live guard) run first, within the example
budget; a property one of them violates is shrunk by leaving out steps while the same
property still fails (`shrink_trace`). The rest of the budget goes to hypothesis, half
on variations of the planned traces (generate.varied) and half on random traces.

Machines are callables `Trace -> MachineRun` (see runtime.check.machines).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from random import Random
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hseed
from hypothesis import strategies as st

from compiler.errors import PolicyError
from compiler.spec import EraSpec
from runtime.check.builtin import BUILTINS, Context
from runtime.check.generate import sensor_values, traces, varied
from runtime.check.judge import Violation, violation
from runtime.check.observe import Moment, record
from runtime.check.properties import Property
from runtime.check.reference import PolicyExprs
from runtime.fired import Fired, num
from runtime.trace import Trace


@dataclass(frozen=True)
class MachineRun:
    """What a machine did with a trace: fired transitions (cascades included), its own
    published ad per step index when it has one, and the guard outcomes it saw
    (transition id, trigger index, truth value T/F/U/E)."""

    fired: tuple[Fired, ...]
    published: dict[int, dict[str, Any]] | None = None
    outcomes: frozenset[tuple[str, int, str]] = frozenset()


Machine = Callable[[Trace], MachineRun]


@dataclass(frozen=True)
class Counterexample:
    """A shrunk failing trace and what happened on it."""

    name: str
    message: str
    trace: Trace
    fired: tuple[Fired, ...]
    at: int


@dataclass
class Coverage:
    """Transitions fired and guard outcomes seen over all generated traces; `reasons`
    says, for a goal the planner could not reach ("14", "14#0 TRUE"), why."""

    fired: set[str] = field(default_factory=set)
    outcomes: set[tuple[str, int, str]] = field(default_factory=set)
    reasons: dict[str, str] = field(default_factory=dict)
    #: Goals proved impossible under the policy (keys as `reasons`): not counted as live.
    proved: dict[str, str] = field(default_factory=dict)


@dataclass
class SearchResult:
    examples: int
    counterexamples: list[Counterexample]
    coverage: Coverage
    properties: tuple[str, ...]


class PropertyFailed(Exception):
    """Raised inside the hypothesis test; one subclass per property name."""

    name = ""

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation


_TYPES: dict[str, type[PropertyFailed]] = {}


def _failure(name: str) -> type[PropertyFailed]:
    if name not in _TYPES:
        _TYPES[name] = type(f"Violated{len(_TYPES)}", (PropertyFailed,), {"name": name})
    return _TYPES[name]


def crosscheck(run: Sequence[Fired], ref: Sequence[Fired]) -> Violation | None:
    """The first place where two machines fired different transitions."""

    def key(f: Fired) -> tuple[Any, ...]:
        return (f.t, str(f.number), f.source, f.target)

    for i, (a, b) in enumerate(zip(run, ref, strict=False)):
        if key(a) != key(b):
            return Violation(
                "reference-crosscheck", i,
                f"at t={num(a.t)} the compiled machine fired {a.number} ({'/'.join(a.source)} -> "
                f"{'/'.join(a.target)}) where the reference fired {b.number} "
                f"({'/'.join(b.source)} -> {'/'.join(b.target)}) at t={num(b.t)}",
            )  # fmt: skip
    if len(run) != len(ref):
        longer, who = (run, "compiled machine") if len(run) > len(ref) else (ref, "reference")
        extra = longer[min(len(run), len(ref))]
        return Violation(
            "reference-crosscheck", min(len(run), len(ref)),
            f"only the {who} fired {extra.number} ({'/'.join(extra.source)} -> "
            f"{'/'.join(extra.target)}) at t={num(extra.t)}",
        )  # fmt: skip
    return None


def judge(
    spec: EraSpec,
    policy: PolicyExprs,
    trace: Trace,
    run: MachineRun,
    props: Sequence[Property],
    reference: MachineRun | None,
    builtins: bool = True,
) -> tuple[list[Violation], tuple[Moment, ...]]:
    """Every violated property of one run (built-ins, admin properties, cross-check)."""
    moments = record(
        trace.steps, run.fired, machine=dict(trace.machine), job=dict(trace.job),
        initial=trace.initial, idle_ages=trace.idle_ages, latch=policy.latch(),
    )  # fmt: skip
    published = None
    if run.published:
        published = {k: run.published[m.step] for k, m in enumerate(moments)
                     if m.fired is None and m.step in run.published}  # fmt: skip
    ctx = Context(spec, policy, trace.steps, published)
    found: list[Violation] = []
    if builtins:
        for _name, check in BUILTINS:
            v = check(ctx, moments)
            if v is not None:
                found.append(v)
    for prop in props:
        v = violation(prop, moments)
        if v is not None:
            found.append(v)
    if reference is not None:
        v = crosscheck(run.fired, reference.fired)
        if v is not None:
            found.append(v)
    return found, moments


def search(
    spec: EraSpec,
    policy: PolicyExprs,
    machine: Machine,
    props: Sequence[Property] = (),
    *,
    reference: Machine | None = None,
    max_examples: int = 200,
    seed: int = 0,
    max_steps: int = 30,
    owners: Sequence[str] = ("alice",),
    progress: Callable[[int], None] | None = None,
    builtins: bool = True,
    plans: Sequence[Trace] = (),
    fixed: Mapping[str, Any] | None = None,
) -> SearchResult:
    """Look for counterexamples; deterministic for a given seed. `plans` run first
    (each counts as an example), hypothesis gets the rest of `max_examples`."""
    coverage = Coverage()
    minimal: dict[str, Counterexample] = {}
    count = 0

    def examine(trace: Trace, covering: bool = True) -> list[Counterexample]:
        """Every property `trace` violates (a crash of the machine is one)."""
        try:
            run = machine(trace)
        except PolicyError as err:  # e.g. a cascade that never settles: the policy's fault
            message = f"the machine under test raised {type(err).__name__}: {err}"
            return [Counterexample("machine-crash", message, trace, (), 0)]
        ref = reference(trace) if reference is not None else None
        if covering:
            coverage.fired.update(f.id for f in run.fired)
            coverage.outcomes.update(run.outcomes)
            if ref is not None:
                coverage.outcomes.update(ref.outcomes)
        found, _ = judge(spec, policy, trace, run, props, ref, builtins)
        return [Counterexample(v.name, v.message, trace, run.fired, v.at) for v in found]

    for trace in plans[:max_examples]:
        count += 1
        if progress is not None:
            progress(count)
        for cx in examine(trace):
            if cx.name not in minimal:
                minimal[cx.name] = shrink_trace(cx, lambda t: examine(t, covering=False))

    def body(trace: Trace) -> None:
        nonlocal count
        count += 1
        if progress is not None:
            progress(count)
        found = examine(trace)
        if found:
            first = found[0]
            shrunk[first.name] = first
            raise _failure(first.name)(Violation(first.name, first.at, first.message))

    shrunk: dict[str, Counterexample] = {}
    if max_examples > count:
        strategy = traces(
            spec, _policy_texts(policy), max_steps=max_steps, owners=owners, fixed=fixed
        )
        if plans:
            values = sensor_values(_policy_texts(policy))
            strategy = st.one_of(varied(plans, values), strategy)
        test = search_settings(max_examples - count)(given(strategy)(body))
        test = hseed(seed)(test)
        try:
            test()
        except PropertyFailed:
            pass
        except BaseExceptionGroup as group:
            _, rest = group.split(PropertyFailed)
            if rest is not None:
                raise rest from None
    for name, cx in shrunk.items():
        if name not in minimal or len(cx.trace.steps) < len(minimal[name].trace.steps):
            minimal[name] = cx
    names = tuple(n for n, _ in BUILTINS) if builtins else ()
    names += tuple(p.name for p in props)
    ordered = sorted(minimal.values(), key=lambda c: c.name)
    return SearchResult(count, ordered, coverage, names)


#: Runs `shrink_trace` may spend on one counterexample.
SHRINK_RUNS = 150


def shrink_trace(
    cx: Counterexample, examine: Callable[[Trace], list[Counterexample]]
) -> Counterexample:
    """A shorter trace violating the same property: leave out chunks of steps (halves,
    then quarters, ... single steps) while the property still fails (delta debugging).
    For planned traces, which hypothesis did not generate and so cannot shrink."""
    best = cx
    steps = list(cx.trace.steps)
    runs = 0
    chunk = max(1, len(steps) // 2)
    while runs < SHRINK_RUNS:
        i, removed = 0, False
        while i < len(steps) and runs < SHRINK_RUNS:
            trial = steps[:i] + steps[i + chunk :]
            runs += 1
            again = [c for c in examine(replace(cx.trace, steps=tuple(trial))) if c.name == cx.name]
            if again:
                steps, best, removed = trial, again[0], True
            else:
                i += chunk
        if chunk == 1 and not removed:
            break
        chunk = max(1, chunk // 2) if not removed else chunk
    return best


def search_settings(max_examples: int) -> settings:
    """The hypothesis settings of `search`, the same whatever profile is loaded.

    `settings(...)` without a parent inherits every field it does not name from the
    loaded profile (under pytest, the test suite's `gate` or `explore` profile), so the
    product's search would depend on how its tests are run. The parent here is
    hypothesis's own "default" profile and every field the search depends on is named:
    no example database (a check run leaves nothing behind), no deadline (machines and
    judges are slow), randomness from `seed` only, all failing properties reported, quiet,
    only generation and shrinking (nothing replayed from a database or explained), no
    health check (the trace strategy is large on purpose), no failure blob printed.
    """
    return settings(
        parent=settings.get_profile("default"),
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=True,
        verbosity=Verbosity.quiet,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


def _policy_texts(policy: PolicyExprs) -> dict[str, str | None]:
    from compiler.classad import unparse

    return {name: unparse(expr) for name, expr in policy.exprs.items()}


def new_random(seed: int) -> Random:
    return Random(seed)
