"""`explain_slot`: why a slot in a state and activity does what it does, from its ad.

Stage: runtime (pure; `runtime.commands.explain` prints the result). Given the compiled
table, the configuration it came from, a slot ad (as `condor_status -l` prints it) and
optionally a job ad:

* `steps`: every policy trigger the startd's evaluation pass tries in the pair, in the
  era's evaluation order (`StateSpec.evaluation_order`, the order `runtime.engine`
  follows), each with its guard's value (the table's compiled predicate, what `run`
  tests) and the clause tree that decided it (`runtime.explain.clauses`) over the
  guard as the configuration writes it (knobs expanded, not simplified); `fires` is the
  first that holds, None when the slot stays;
* for each step that does not fire, the smallest change of one (else two) machine
  attributes that makes it fire, where one exists (`nearest_change`), and, when the guard reads
  the clock, the time at which its value flips (`flip_time`);
* `others`: the rows leaving the pair that an event, command or timer fires, which no
  evaluation pass tries;
* `job`: with a job ad, whether START and the slot's Requirements accept it and, from
  the job's side, whether its Requirements accept the slot, each with its clauses.

The slot ad the guards read is the given ad plus the era's predicates (InRetirement,
Draining, ...) the real startd keeps to itself: values from the ad when it has them,
else those of a slot that entered the pair normally (`assumed_predicates`), listed in
`assumed` so that nobody mistakes them for observations.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compiler import Expander, StateTable, holds, load_attributes
from compiler.classad import ClassAd, evaluate, format_value, parse, unparse
from compiler.classad import ast as A
from compiler.config import Config
from compiler.errors import PolicyError, close_matches
from compiler.spec import Pair
from runtime.ads import REQUIREMENT_HELPERS
from runtime.explain.clauses import Ads, Clause, decide

#: The attributes of a slot ad that grow by one a second while nothing else happens
#: (keyboard and console untouched), besides the clock itself; the run totals only
#: while the job runs (`_advance`).
IDLE_CLOCKS = ("KeyboardIdle", "ConsoleIdle", "MyCurrentTime")
RUN_CLOCKS = ("TotalJobRunTime", "TotalClaimRunTime")
SUSPEND_CLOCKS = ("TotalJobSuspendTime", "TotalClaimSuspendTime")
#: How far ahead `flip_time` looks (seconds): 64 days.
HORIZON = 1 << 23


@dataclass(frozen=True, slots=True)
class Edit:
    """Setting machine attribute `attribute` from `now` to `to` (ClassAd syntax);
    `clause` is the comparison that decides the new value."""

    attribute: str
    now: str
    to: str
    clause: str

    def to_dict(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "now": self.now, "to": self.to, "clause": self.clause}


@dataclass(frozen=True, slots=True)
class Change:
    """The smallest change of machine attributes found that makes a guard hold: one
    attribute when one suffices, else two (`nearest_change`)."""

    edits: tuple[Edit, ...]

    def to_dict(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.edits]


@dataclass(frozen=True, slots=True)
class Step:
    """One policy trigger of the evaluation pass."""

    order: int
    row: str
    number: int | str
    letter: str | None
    target: str
    spec_guard: str
    against: str
    holds: bool
    clause: Clause
    change: Change | None = None
    flips_in: int | None = None
    note: str = ""

    def to_dict(self, now: float) -> dict[str, Any]:
        out: dict[str, Any] = {
            "order": self.order,
            "row": self.row,
            "number": self.number,
            "letter": self.letter,
            "to": self.target,
            "guard": self.spec_guard,
            "against": self.against,
            "holds": self.holds,
            "explanation": self.clause.to_dict(),
        }
        if self.note:
            out["note"] = self.note
        if self.change is not None:
            out["smallest_change"] = self.change.to_dict()
        if self.flips_in is not None:
            out["flips_in_seconds"] = self.flips_in
            out["flips_at"] = int(now) + self.flips_in
        return out


@dataclass(frozen=True, slots=True)
class Other:
    """A row leaving the pair that no evaluation pass tries (event, command, timer)."""

    row: str
    number: int | str
    letter: str | None
    target: str
    triggers: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "number": self.number,
            "letter": self.letter,
            "to": self.target,
            "triggers": list(self.triggers),
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether one expression accepts the match (`name`: START, Requirements, or the
    job's Requirements), with its clauses and, when it does not, the smallest change."""

    name: str
    side: str
    accepts: bool
    clause: Clause
    change: Change | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "expression": self.name,
            "side": self.side,
            "accepts": self.accepts,
            "explanation": self.clause.to_dict(),
        }
        if self.change is not None:
            out["smallest_change"] = self.change.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class Explanation:
    era: str
    semantics: str
    pair: Pair
    now: float
    steps: tuple[Step, ...]
    others: tuple[Other, ...]
    assumed: tuple[tuple[str, Any], ...]
    job: tuple[Verdict, ...] = ()

    @property
    def fires(self) -> Step | None:
        return next((s for s in self.steps if s.holds), None)

    def to_dict(self) -> dict[str, Any]:
        fires = self.fires
        return {
            "era": self.era,
            "semantics": self.semantics,
            "state": self.pair.state,
            "activity": self.pair.activity,
            "now": int(self.now),
            "fires": None if fires is None else fires.row,
            "steps": [s.to_dict(self.now) for s in self.steps],
            "others": [o.to_dict() for o in self.others],
            "assumed": {k: format_value(v) for k, v in self.assumed},
            "job": [v.to_dict() for v in self.job] if self.job else None,
        }


def parse_pair(text: str, table: StateTable, *, where: str = "--at") -> Pair:
    """`Claimed/Busy` (any case) as a pair of the era, else a PolicyError naming the
    pairs that exist."""
    state, _, activity = text.strip().partition("/")
    known = {f"{p.pair.state}/{p.pair.activity}": p.pair for p in table.spec.pairs}
    by_lower = {k.lower(): v for k, v in known.items()}
    found = by_lower.get(f"{state.strip()}/{activity.strip()}".lower())
    if found is not None:
        return found
    close = close_matches(text.strip().lower(), by_lower, n=3, cutoff=0.6)
    names = [f"{by_lower[c].state}/{by_lower[c].activity}" for c in close]
    hint = f"; did you mean {', '.join(names)}?" if names else f" (known: {', '.join(known)})"
    raise PolicyError(f"no state/activity '{text}' in era {table.era}{hint}", file=where)


def ad_pair(machine: Mapping[str, Any], table: StateTable) -> Pair:
    """The pair the slot ad says it is in (its State and Activity)."""
    state, activity = machine.get("State"), machine.get("Activity")
    if not isinstance(state, str) or not isinstance(activity, str):
        raise PolicyError(
            "the machine ad has no State and Activity strings: give the pair with --at",
            file="--machine",
        )
    return parse_pair(f"{state}/{activity}", table, where="--machine")


def ad_now(machine: Mapping[str, Any]) -> float:
    """The instant the ad describes: its MyCurrentTime, else LastHeardFrom, else now."""
    for name in ("MyCurrentTime", "LastHeardFrom"):
        value = machine.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return _time.time()


def assumed_predicates(table: StateTable, pair: Pair) -> dict[str, Any]:
    """The predicates of a slot that entered `pair` normally: a job runs in Claimed/Busy,
    Retiring and Suspended, no preempting claim is pending, the retirement may be undone,
    nothing has expired, nothing drains, backfill as configured."""
    running = pair.state == "Claimed" and pair.activity in ("Busy", "Retiring", "Suspended")
    values: dict[str, Any] = {
        "JobRunning": running,
        "HasPreemptingClaim": False,
        "MayUnretire": True,
        "InRetirement": pair.activity == "Retiring",
        "RetirementExpired": False,
        "PreemptLatch": False,
        "ClaimWorklifeExpired": False,
        "Draining": pair.state == "Drained",
        "AllSlotsDrained": pair.state == "Drained",
        "WaitingForActivation": False,
        "BackfillEnabled": bool(table.program.settings.backfill_enabled),
        "BackfillClientRunning": pair.state == "Backfill",
        "DestinationOwner": False,
        "DestinationMatched": False,
        "DestinationClaimed": False,
        "DynamicSlot": False,
    }
    names = {p.name for p in table.spec.predicates}
    return {k: v for k, v in values.items() if k in names}


class _Context:
    """What every guard of one explanation is evaluated with."""

    def __init__(
        self,
        table: StateTable,
        config: Config,
        machine: Mapping[str, Any],
        job: Mapping[str, Any] | None,
        pair: Pair,
        now: float,
    ) -> None:
        self.table = table
        self.expander = Expander(table.spec, config)
        self.pair = pair
        self.now = now
        my = ClassAd(dict(machine))
        if (my.get("State"), my.get("Activity")) != (pair.state, pair.activity):
            my["State"], my["Activity"] = pair.state, pair.activity  # --at: as published there
        self.assumed: list[tuple[str, Any]] = []
        for name, value in assumed_predicates(table, pair).items():
            if name not in my:
                my[name] = value
                self.assumed.append((name, value))
        for name, expr in REQUIREMENT_HELPERS.items():
            if name not in my:
                my[name] = expr
        if "START" not in my:  # the startd publishes it (what Requirements reads)
            my["START"] = self.expander.guard("START", "job")
        self.my = my
        self.assumed_names = frozenset(n.lower() for n, _ in self.assumed)
        self.job = None if job is None else ClassAd(dict(job))
        attributes = load_attributes()
        self.job_names = frozenset(n.lower() for n in attributes.job(table.era))
        self.known = tuple(sorted({e.name for e in attributes.entries}))
        self.predicates = frozenset(p.name.lower() for p in table.spec.predicates)

    def ads(self, against: str, my: Mapping[str, Any] | None = None, dt: float = 0) -> Ads:
        target = self.job if against == "job" else None
        return Ads(
            self.my if my is None else my,
            target,
            self.now + dt,
            local=against == "local",
            job_names=self.job_names,
            known=self.known,
            assumed=self.assumed_names,
        )


def explain_slot(
    table: StateTable,
    config: Config,
    machine: Mapping[str, Any],
    job: Mapping[str, Any] | None = None,
    *,
    pair: Pair | None = None,
    now: float | None = None,
) -> Explanation:
    """The explanation of the slot `machine` in `pair` (default: the ad's State and
    Activity) at `now` (default: the ad's MyCurrentTime); see the module docstring."""
    where = pair if pair is not None else ad_pair(machine, table)
    instant = now if now is not None else ad_now(machine)
    ctx = _Context(table, config, machine, job, where, instant)
    steps = tuple(_step(ctx, s) for s in _evaluation_steps(table, where))
    tried = {s.row for s in steps}
    others = tuple(
        Other(r.id, r.number, r.letter, _target_text(r.target), _event_triggers(r))
        for r in table.rows_from(where)
        if r.id not in tried and _event_triggers(r)
    )
    verdicts = _job_verdicts(ctx) if job is not None else ()
    return Explanation(
        table.era, table.semantics, where, instant, steps, others, tuple(ctx.assumed), verdicts
    )


def _evaluation_steps(table: StateTable, pair: Pair) -> list[Any]:
    for state in table.spec.states:
        if state.name == pair.state:
            return [s for s in state.evaluation_order if s.source == pair]
    return []


def _target_text(target: tuple[str, str]) -> str:
    return f"{target[0]}/{target[1]}"


def _event_triggers(row: Any) -> tuple[str, ...]:
    return tuple(
        t.describe() for t in row.transition.triggers if t.kind not in ("policy", "immediate")
    )


def _step(ctx: _Context, step: Any) -> Step:
    row = ctx.table.row(step.transition)
    compiled = row.triggers[step.trigger]
    expr = ctx.expander.guard(step.guard, "job")  # local: no TARGET below, so UNDEFINED
    ads = ctx.ads(step.against)

    def test(my: Mapping[str, Any], dt: float = 0) -> bool:
        if compiled is None:
            return True
        moved = ctx.ads(step.against, my, dt)
        return holds(compiled.predicate(my, moved.target, now=int(moved.now)))

    ok = test(ctx.my)
    clause = decide(expr, ads)
    change = None if ok else nearest_change(expr, ctx, test)
    flips = flip_time(expr, ctx, test) if _reads_clock(expr) else None
    return Step(
        step.order,
        row.id,
        row.number,
        row.letter,
        _target_text(row.target),
        step.guard,
        step.against,
        ok,
        clause,
        change,
        flips,
        _disagreement(ok, clause, step.against),
    )


def _disagreement(ok: bool, clause: Clause, against: str) -> str:
    """Why the compiled guard's test (what `run` does) and the clause tree differ, when
    they do: a guard evaluated locally reads an attribute the given ad holds but the
    slot ad's documented attributes do not (compiler.expand takes it for a job
    attribute, UNDEFINED)."""
    if ok is (clause.truth == "TRUE"):
        return ""
    if against == "local":
        return (
            "the compiled guard takes a name the documented slot ad does not hold for a job "
            "attribute (UNDEFINED when evaluated locally); publish it with STARTD_ATTRS"
        )
    return "the compiled guard and the clauses disagree"


def _job_verdicts(ctx: _Context) -> tuple[Verdict, ...]:
    """START and the slot's Requirements against the job (the startd's side), then the
    job's Requirements against the slot (the job's side, `condor_q -better-analyze`)."""
    out = []
    start = ctx.expander.guard("START", "job")
    out.append(_verdict(ctx, "START", "slot", start, ctx.my, ctx.job))
    requirements = ctx.my.get("Requirements")
    if requirements is None:
        requirements = _published_requirements(ctx)
    if requirements is not None:
        expr = requirements if isinstance(requirements, A.EXPR_TYPES) else _literal(requirements)
        out.append(_verdict(ctx, "Requirements", "slot", expr, ctx.my, ctx.job))
    assert ctx.job is not None
    theirs = ctx.job.get("Requirements")
    if theirs is not None:
        expr = theirs if isinstance(theirs, A.EXPR_TYPES) else _literal(theirs)
        out.append(_verdict(ctx, "Requirements", "job", expr, ctx.job, ctx.my))
    return tuple(out)


def _literal(value: Any) -> A.Expr:
    return parse(format_value(value))


def _published_requirements(ctx: _Context) -> A.Expr | None:
    """The Requirements the era's startd publishes in the pair (it reads the ad's START,
    which `_Context` supplies when the given ad lacks it)."""
    for rule in ctx.table.spec.publish:
        if rule.attribute == "Requirements" and ctx.pair.state in rule.states:
            return parse(rule.value)
    return None


def _verdict(
    ctx: _Context,
    name: str,
    side: str,
    expr: A.Expr,
    my: Mapping[str, Any],
    target: Mapping[str, Any] | None,
) -> Verdict:
    ads = Ads(
        my,
        target,
        ctx.now,
        job_names=ctx.job_names,
        known=ctx.known,
        assumed=ctx.assumed_names if side == "slot" else frozenset(),
        sides=("machine", "job") if side == "slot" else ("job", "machine"),
    )
    ok = holds(ads.value(expr))
    clause = decide(expr, ads)
    change = None
    if not ok and side == "slot":

        def test(m: Mapping[str, Any], dt: float = 0) -> bool:
            return holds(Ads(m, target, ctx.now + dt).value(expr))

        change = nearest_change(expr, ctx, test)
    return Verdict(name, side, ok, clause, change)


# -- the smallest change --------------------------------------------------------------------


def nearest_change(expr: A.Expr, ctx: _Context, test: Any) -> Change | None:
    """The smallest change of machine attributes that makes `test` hold: one attribute
    if one suffices (the value closest to the ad's), else two (the pair with the least
    total change), among the values that decide the comparisons `expr` makes of a
    machine attribute: for `X OP k`, `X + Y OP k`, `X - Y OP k` and `Y - X OP k` (k
    without attributes, Y read in the ad) the boundary value of X and one step each
    side of it: between two boundaries every comparison keeps its value, which is the
    region oracle's cut (compiler/simplify/regions.py); TRUE and FALSE for a bare
    attribute. Every change proposed was evaluated with the guard's compiled
    predicate. Predicates (InRetirement, ...) are not attributes an admin sets and are
    left alone. None when no change of at most two attributes does it."""
    options: list[tuple[float, Edit, Any]] = []
    seen: set[tuple[str, str]] = set()
    for attr, candidates, clause in _candidates(expr, ctx):
        current = ctx.my.get(attr)
        for value in candidates:
            if _same(value, current) or _finer(value, current):
                continue
            edit = Edit(attr, format_value(current), format_value(value), clause)
            if (attr.lower(), edit.to) in seen:
                continue
            seen.add((attr.lower(), edit.to))
            options.append((_distance(current, value), edit, value))
    options.sort(key=lambda o: (o[0], o[1].attribute.lower()))
    for _gap, edit, value in options:
        if test(_with(ctx.my, ((edit.attribute, value),))):
            return Change((edit,))
    best: tuple[float, Change] | None = None
    for i, (d1, e1, v1) in enumerate(options):
        for d2, e2, v2 in options[i + 1 :]:
            if e1.attribute.lower() == e2.attribute.lower():
                continue
            if best is not None and d1 + d2 >= best[0]:
                continue
            if test(_with(ctx.my, ((e1.attribute, v1), (e2.attribute, v2)))):
                best = (d1 + d2, Change((e1, e2)))
    return None if best is None else best[1]


def _with(ad: Mapping[str, Any], values: tuple[tuple[str, Any], ...]) -> ClassAd:
    out = ClassAd(dict(ad))
    for name, value in values:
        out[name] = value
    return out


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _finer(value: Any, current: Any) -> bool:
    """A fraction proposed for an attribute that holds an integer (KeyboardIdle)."""
    return type(current) is int and type(value) is float and not value.is_integer()


def _distance(current: Any, value: Any) -> float:
    if _number(current) and _number(value):
        return abs(float(value) - float(current))
    return math.inf


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _around(boundary: Any) -> list[Any]:
    """The boundary and a step each side: 1 for an integer, else 0.01 and 0.5."""
    if isinstance(boundary, int):
        return [boundary - 1, boundary, boundary + 1, boundary - 0.5, boundary + 0.5]
    return [boundary + d for d in (-0.5, -0.01, 0.0, 0.01, 0.5)]


def _candidates(expr: A.Expr, ctx: _Context) -> list[tuple[str, list[Any], str]]:
    out: list[tuple[str, list[Any], str]] = []
    for node in A.walk(expr, same_scope=False):
        split = _comparison(node, ctx)
        if split is not None:
            name, boundary = split
            out.append((name, _around(boundary), unparse(node)))
        elif isinstance(node, A.AttrRef):
            bare = _machine_attr(node, ctx)
            if bare is not None:
                out.append((bare, [True, False], unparse(node)))
    return out


def _comparison(node: A.Expr, ctx: _Context) -> tuple[str, Any] | None:
    """(machine attribute X, the value of X at which the comparison changes) for the
    shapes `nearest_change` names; else None."""
    if not isinstance(node, A.Binary) or node.op not in _CMP:
        return None
    for subject, other in ((node.left, node.right), (node.right, node.left)):
        if not _constant_expr(other):
            continue
        k = evaluate(other)
        if not _number(k):
            continue
        name = _machine_attr(subject, ctx)
        if name is not None:
            return name, k
        if isinstance(subject, A.Binary) and subject.op in ("+", "-"):
            solved = _solve(subject, k, ctx)
            if solved is not None:
                return solved
    return None


def _solve(subject: A.Binary, k: Any, ctx: _Context) -> tuple[str, Any] | None:
    """X for `X + Y = k`, `X - Y = k` or `Y - X = k`, Y evaluated in the ad."""
    for x, y, sign in ((subject.left, subject.right, 1), (subject.right, subject.left, -1)):
        name = _machine_attr(x, ctx)
        if name is None:
            continue
        other = evaluate(y, ctx.my)
        if not _number(other):
            continue
        if subject.op == "+":
            return name, k - other
        return name, (k + other) if sign == 1 else (other - k)
    return None


def _machine_attr(node: A.Expr, ctx: _Context) -> str | None:
    if not isinstance(node, A.AttrRef) or node.scope not in (None, "MY"):
        return None
    if node.key in ctx.predicates or node.name not in ctx.my:
        return None
    if isinstance(ctx.my.get(node.name), A.EXPR_TYPES):
        return None  # an expression (START, a helper): not a value one sets
    return node.name


_CMP = frozenset({"<", "<=", ">", ">=", "==", "!=", "=?=", "=!="})


def _constant_expr(expr: A.Expr) -> bool:
    return not any(isinstance(n, A.AttrRef | A.Call) for n in A.walk(expr, same_scope=False))


# -- time ------------------------------------------------------------------------------------

_CLOCK_NAMES = frozenset(
    n.lower() for n in (*IDLE_CLOCKS, *RUN_CLOCKS, *SUSPEND_CLOCKS, "CurrentTime", "ClockMin")
) | {"clockday"}


def _reads_clock(expr: A.Expr) -> bool:
    for node in A.walk(expr, same_scope=False):
        if isinstance(node, A.AttrRef) and node.key in _CLOCK_NAMES:
            return True
        if isinstance(node, A.Call) and node.key == "time":
            return True
    return False


def advance(my: Mapping[str, Any], pair: Pair, now: float, dt: int) -> ClassAd:
    """The slot ad `dt` seconds later if nothing but the clock moves: the keyboard and
    console stay untouched, the job keeps running (Busy, Retiring) or suspended."""
    out = ClassAd(dict(my))
    moving = list(IDLE_CLOCKS)
    if pair.activity in ("Busy", "Retiring"):
        moving += RUN_CLOCKS
    if pair.activity == "Suspended":
        moving += SUSPEND_CLOCKS
    for name in moving:
        value = out.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = value + dt
    minute = out.get("ClockMin")
    if isinstance(minute, int) and not isinstance(minute, bool):
        seconds = int(now) % 60 + dt
        total = minute + seconds // 60
        out["ClockMin"] = total % 1440
        day = out.get("ClockDay")
        if isinstance(day, int) and not isinstance(day, bool):
            out["ClockDay"] = (day + total // 1440) % 7
    return out


def flip_time(expr: A.Expr, ctx: _Context, test: Any) -> int | None:
    """Seconds from now until the guard's boolean test first changes if only the clock
    moves (`advance`), within `HORIZON`; None when it does not. The search tries the
    instants at which a comparison of a clock with a constant changes and powers of two,
    then bisects down to the second; a window shorter than the gap between two tried
    instants can be missed."""
    start = test(ctx.my)

    def at(dt: int) -> bool:
        return bool(test(advance(ctx.my, ctx.pair, ctx.now, dt), dt))

    points = {1 << i for i in range(24)} | _threshold_points(expr, ctx)
    previous = 0
    for dt in sorted(p for p in points if 0 < p <= HORIZON):
        if at(dt) != start:
            low, high = previous, dt
            while high - low > 1:
                mid = (low + high) // 2
                if at(mid) != start:
                    high = mid
                else:
                    low = mid
            return high
        previous = dt
    return None


def _threshold_points(expr: A.Expr, ctx: _Context) -> set[int]:
    out: set[int] = set()
    for node in A.walk(expr, same_scope=False):
        split = _comparison(node, ctx)
        if split is None:
            continue
        current = ctx.my.get(split[0])
        k = split[1]
        if isinstance(current, int | float) and isinstance(k, int | float):
            gap = int(k) - int(current)
            out.update(g for g in (gap, gap + 1, gap + 2) if g > 0)
    return out
