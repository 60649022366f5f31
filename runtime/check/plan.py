"""Model-based trace planning: event sequences and sensor values that drive the slot into
every reachable pair and make every live guard TRUE and not TRUE there.

Stage: check, before the hypothesis search (runtime.check.search runs the planned traces
first, then lets hypothesis vary and shrink around them). Random traces rarely reach
suspension, unretirement or a preempting claim (issue 12); a model-based tester covers a
model by planning paths through it, the way XState's path generation or a rule-based
state machine does. Here the model is the compiled table and the planner explores it by
*running* the reference interpreter (runtime.check.reference), so every predicate
(InRetirement, RetirementExpired, HasPreemptingClaim, ...) means exactly what the check
later tests, and no planning rule of its own can drift from the spec.

How. A node is a configuration of a reference slot reached by a trace prefix. From a
node the planner tries *moves*, each a step or two of a trace file:
* an event the pair reacts to (a trigger named by a row leaving the pair, an effect on
  the pair, or an effect in every pair), with each `how` the era knows; a claim carries
  a job ad;
* an evaluation pass (`tick`), after setting the sensors to a witness assignment from
  the region oracle (compiler.analysis: `Analysis.firing` for "this trigger fires",
  its negation for "reached and not TRUE"), solved with the pair's State, Activity and
  the slot's current predicates fixed; time-stamp attributes in a witness
  (`time() - EnteredCurrentActivity > 600`) become the wait before the tick;
* the expiry of the next timer.
Witnesses also supply the sensors set before an event whose guard needs them, the
activity choice of a "State/*" row and the immediate triggers of the pair entered. A
witness is first sought with the job the guard is tested against written in; one that
needs other job attributes rewrites the jobs the prefix's claims carry and replays it
(the job is fixed when the claim arrives).

Search: best first, by the fewest rows from a configuration's pair to the pair of an
open goal (plus a detour when the oracle proves the goal impossible with the
configuration's predicates), then by trace length. A configuration is kept when it is
new (pair, predicates, claim and preempting jobs, peaceful, drain kind, activated,
CpuBusy latch) or covers a goal. The search stops when every goal is covered, after
STALL moves without a new one, or after `budget` moves. The planned traces are a greedy
set cover of the configurations that covered something: a few dozen short traces.

A goal the plan does not cover gets a reason and a kind (`Plans.reasons`, `Plans.kinds`,
EXPLAINED). First a proof is sought ("never", PROVED): in no slot ad the startd can
publish in the pair, with the relations it guarantees between its predicates
(`Analysis.impossible`), can the goal happen, or the pair is left in the instant it is
entered; coverage does not count such goals. Otherwise an observation: the slot never
stayed in its pair, no row can enter the pair, the oracle proves it impossible in every
situation reached, the policy ties the needed sensors to a predicate; or a gap of the
planner, reported as such.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from compiler import Row, StateTable, holds
from compiler.analysis import Analysis, attribute_refs, conj, fails, reachable_pairs
from compiler.classad import ast as A
from compiler.classad import compile_expr
from compiler.errors import PolicyError
from runtime.check.judge import literal
from runtime.check.reference import AGEING, PolicyExprs, ReferenceSlot
from runtime.trace import EPOCH, Step, Trace

#: Moves the planner may try before it gives up on the goals left (deterministic).
BUDGET = 4000
#: Expansions of one pair after which the goals left there stop attracting the search.
PATIENCE = 6
#: Extra distance of a configuration whose predicates make a goal impossible.
DETOUR = 3
#: Distance of a configuration from which no open goal is in sight.
FAR = 1_000
#: Moves without a new goal after which the planner stops (the goals left get reasons).
STALL = 900
#: Waits (seconds) longer than this are not planned (e.g. MaxJobRetirementTime = 2^31-1).
LONGEST_WAIT = 10**6

Outcome = Literal["", "T", "notT"]


@dataclass(frozen=True, slots=True, order=True)
class Goal:
    """Fire row `row` (kind "fire"), or see policy trigger `trigger` of row `row`
    evaluated with the given outcome (kind "guard": "T" or "notT")."""

    kind: Literal["fire", "guard"]
    row: str
    trigger: int = -1
    outcome: Outcome = ""

    def describe(self) -> str:
        if self.kind == "fire":
            return f"fire {self.row}"
        value = "TRUE" if self.outcome == "T" else "not TRUE"
        return f"guard {self.row}#{self.trigger} {value}"


@dataclass(frozen=True)
class Plans:
    """The planned traces, the goals, those the reference covered on them, and for each
    goal left a reason and its kind (EXPLAINED kinds, or a gap of the planner)."""

    traces: tuple[Trace, ...]
    goals: tuple[Goal, ...]
    covered: frozenset[Goal]
    reasons: Mapping[Goal, str]
    moves: int
    kinds: Mapping[Goal, str] = field(default_factory=dict)


def goals(table: StateTable, reachable: frozenset[tuple[str, str]] | None = None) -> list[Goal]:
    """Every live row from a reachable pair must fire; every policy guard of such a row
    whose compiled status allows it must be seen TRUE and not TRUE."""
    if reachable is None:
        reachable = frozenset(reachable_pairs(Analysis(table)))
    out: list[Goal] = []
    for row in table.rows:
        if row.status == "dead" or row.source not in reachable:
            continue
        out.append(Goal("fire", row.id))
        for index, (trig, compiled) in enumerate(
            zip(row.transition.triggers, row.triggers, strict=True)
        ):
            if trig.kind != "policy" or not trig.guard.strip() or compiled is None:
                continue
            if compiled.status != "dead":
                out.append(Goal("guard", row.id, index, "T"))
            if compiled.status != "always":
                out.append(Goal("guard", row.id, index, "notT"))
    return out


@dataclass(frozen=True)
class _Header:
    """How a planned trace starts: initial machine ad, default job, slot kind."""

    machine: tuple[tuple[str, Any], ...]
    job: tuple[tuple[str, Any], ...]
    slot: str


@dataclass
class _Node:
    """A reference slot after `steps` of a trace starting with `headers[header]`."""

    slot: ReferenceSlot
    steps: tuple[Step, ...]
    header: int
    covered: frozenset[Goal]
    predicates: dict[str, Any]


@dataclass(frozen=True)
class _Move:
    """Steps to append; `jobs` (against -> job attributes) first rewrites the jobs the
    prefix's claims carry, which replays the prefix (the job is fixed at claim time)."""

    steps: tuple[Step, ...]
    jobs: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()


@dataclass(frozen=True)
class _Setting:
    """A witness split into what a trace can do about it."""

    values: tuple[tuple[str, Any], ...]  # sensors to set
    job: tuple[tuple[str, Any], ...]  # TARGET attributes
    wait: float  # seconds its time stamps ask for


class _Planner:
    def __init__(
        self,
        table: StateTable,
        policy: PolicyExprs,
        timer_values: Mapping[str, int],
        machine: Mapping[str, Any],
        idle: Mapping[str, Any],
        job: Mapping[str, Any],
    ) -> None:
        self.table, self.policy, self.spec = table, policy, table.spec
        self.timer_values = dict(timer_values)
        self.machine, self.idle, self.job = dict(machine), dict(idle), dict(job)
        self.an = Analysis(table)
        self.predicate_names = frozenset(p.name for p in self.spec.predicates)
        self._witnesses: dict[Any, dict[str, Any] | None] = {}
        self._names: dict[A.Expr, frozenset[str]] = {}
        self._goal_exprs: dict[Goal, A.Expr] = {}
        self._transient: dict[tuple[str, str], str] = {}
        self._at_entry: dict[tuple[str, str], str] = {}
        # (relation, its predicates) of the proof relations that also name sensors.
        keys = frozenset(p.lower() for p in self.predicate_names)
        self.tied = tuple(
            (rel, frozenset(names & keys))
            for _, rel in self.an.proof_relations
            if (names := {r.key for r in attribute_refs(rel)}) & keys
            and not names <= keys | {"state", "activity"}
            and all(rel != other for _, other in self.an.relations)
        )
        self._tied_checks: dict[tuple[A.Expr, ...], Any] = {}
        self.hows = {e.name: e.how for e in self.spec.events}
        self.rows_from: dict[tuple[str, str], list[Row]] = {}
        self.immediate: dict[tuple[str, str], list[A.Expr]] = {}
        for row in table.rows:
            if row.status == "dead":
                continue
            self.rows_from.setdefault(row.source, []).append(row)
            for trig, compiled in zip(row.transition.triggers, row.triggers, strict=True):
                if trig.kind == "immediate" and compiled is not None:
                    self.immediate.setdefault(row.source, []).append(compiled.expr)
        self.claim_events = self._claim_events()
        self.headers = self._headers()
        self.jobs = self._jobs()
        self.waits = self._waits()

    # -- fixed inputs -----------------------------------------------------------------------
    def _claim_events(self) -> dict[str, str]:
        """Event -> the ad its job payload becomes: "job" for an event tested against a
        job before the slot holds a claim (the request carries it: claim),
        "preempting_job" for one that registers a preempting claim. From the spec."""
        out: dict[str, str] = {}
        for row in self.table.rows:
            begins = any(a.name == "begin_claim" for a in self.spec.state(row.source[0]).on_enter)
            for trig in row.transition.triggers:
                actions = (*trig.actions, *row.transition.actions)
                if any(a.name == "register_preempting_claim" for a in actions):
                    out[trig.name] = "preempting_job"
                elif trig.kind == "protocol" and trig.against == "job" and not begins:
                    enters = self.spec.state(row.target[0]).on_enter
                    if any(a.name == "begin_claim" for a in enters):
                        out.setdefault(trig.name, "job")
        for effect in self.spec.event_effects:
            if any(a.name == "register_preempting_claim" for a in effect.actions):
                out[effect.event] = "preempting_job"
        return out

    def _headers(self) -> list[_Header]:
        """Static slot from a busy and from an idle desktop, and from sensors under which
        the first pair's immediate triggers fail (so that its policy triggers can be
        evaluated); a dynamic slot too when a live guard reads DynamicSlot."""
        job = tuple(sorted(self.job.items()))
        kinds = ["static"]
        if any(
            "dynamicslot" in {r.key for r in attribute_refs(g.expr)}
            for row in self.table.rows
            if row.status != "dead"
            for g in row.triggers
            if g is not None
        ):
            kinds.append("dynamic")
        starts = [self.machine, {**self.machine, **self.idle}]
        initial = (self.spec.initial.state, self.spec.initial.activity)
        context = {"State": initial[0], "Activity": initial[1]}
        for expr in self.immediate.get(initial, ()):  # a start that stays in the first pair
            found = self.witness(fails(expr), context)
            if found is not None:
                values = {k: v for k, v in found.items() if "." not in k and k not in context}
                values = {
                    k: v
                    for k, v in values.items()
                    if k not in self.predicate_names and not _stamp(v)
                }
                if values and {**self.machine, **values} not in starts:
                    starts.append({**self.machine, **values})
        return [
            _Header(tuple(sorted(machine.items())), job, kind)
            for kind in kinds
            for machine in starts
        ]

    def _jobs(self) -> list[dict[str, Any]]:
        """Jobs every claim is tried with: the default one, and when the policy's
        retirement limit is not 0 for it, one whose own limit is 0 (the spec's
        RetirementRule.job_limit), so that RetirementExpired can happen."""
        base = dict(self.job)
        try:
            probe = self.start(self.headers[0])
        except (PolicyError, RuntimeError):  # the policy's fault; the search reports it
            return [base]
        limit = probe.number(self.spec.helpers.retirement.limit, base)
        if limit is None or limit == 0:
            return [base]
        return [base, {**base, self.spec.helpers.retirement.job_limit: 0}]

    def _waits(self) -> list[float]:
        """Waits worth trying with the sensors as they are: one second, and just past
        every number a policy knob is set to (CLAIM_WORKLIFE = 1200, ...)."""
        found: set[float] = {1.0}
        for expr in self.policy.exprs.values():
            if isinstance(expr, A.Integer | A.Real) and 0 < expr.value <= LONGEST_WAIT:
                found.add(float(expr.value) + 1)
        return sorted(found)

    def start(self, header: _Header) -> ReferenceSlot:
        slot = ReferenceSlot(
            self.spec, self.policy, dict(header.machine), dict(header.job), True,
            dynamic=header.slot == "dynamic", keepalive=True,
            timer_values=dict(self.timer_values),
        )  # fmt: skip
        slot.start()
        return slot

    def replay(self, header: _Header, steps: Sequence[Step]) -> ReferenceSlot:
        slot = self.start(header)
        for index, step in enumerate(steps):
            slot.step(step, index)
        return slot

    # -- witnesses ----------------------------------------------------------------------------
    def relevant(self, expr: A.Expr, assume: Mapping[str, Any]) -> dict[str, Any]:
        """`assume` cut down to the names `expr` reads (more cache hits, same answer)."""
        names = self._names.get(expr)
        if names is None:
            names = frozenset(r.key for r in attribute_refs(expr))
            self._names[expr] = names
        return {k: v for k, v in assume.items() if k.lower() in names}

    def _tied_here(self, assume: Mapping[str, Any]) -> tuple[A.Expr, ...]:
        """The relations tying predicates to sensors (a retirement limit written with the
        PREEMPT condition) whose predicates `assume` fixes."""
        keys = {k.lower() for k in assume}
        return tuple(rel for rel, preds in self.tied if preds <= keys)

    def tied_to(self, expr: A.Expr, assume: Mapping[str, Any]) -> A.Expr | None:
        """`expr` with `_tied_here(assume)`: a witness of it does not move a predicate
        the situation assumed (issue 12, the "correlated" goals). None when no such
        relation applies."""
        tied = self._tied_here(assume)
        return conj([expr, *tied]) if tied else None

    def keeps(self, found: Mapping[str, Any], assume: Mapping[str, Any]) -> bool:
        """Whether the witness `found` satisfies `_tied_here(assume)` (then the sensors it
        sets move none of the predicates the situation fixes)."""
        tied = self._tied_here(assume)
        if not tied:
            return True
        check = self._tied_checks.get(tied)
        if check is None:
            check = self._tied_checks[tied] = compile_expr(conj(tied))
        my = {**assume, **{k: v for k, v in found.items() if not k.startswith("TARGET.")}}
        target = {k[7:]: v for k, v in found.items() if k.startswith("TARGET.")}
        # The oracle's clock reads EPOCH (as `setting` says of its time stamps).
        return holds(check(my, target, now=EPOCH))

    def witness(self, expr: A.Expr, assume: Mapping[str, Any]) -> dict[str, Any] | None:
        """The region oracle's assignment (TARGET attributes as "TARGET.name") making
        `expr` TRUE with `assume` fixed, or None."""
        fixed = self.relevant(expr, assume)
        key = (expr, tuple(sorted(fixed.items())))
        if key not in self._witnesses:
            found = self.an.sat(expr, fixed)
            out: dict[str, Any] | None = None
            if found.witness is not None:
                out = _plain(dict(found.witness.my))
                target = _plain(dict(found.witness.target))
                out.update({f"TARGET.{k}": v for k, v in target.items()})
            self._witnesses[key] = out
        return self._witnesses[key]

    def pinned(
        self, node: _Node, expr: A.Expr, against: str, mine: Iterable[str]
    ) -> dict[str, Any] | None:
        """A witness for `expr` with the job it is tested against as it is (its
        attributes written in as literals), so that no claim needs another job."""
        job = {"job": node.slot.claim_job, "preempting_job": node.slot.preempting_job}.get(against)
        if job is None:
            return None
        return self.witness(_pin(expr, job, {k.lower() for k in mine}), self.context(node))

    def context(self, node: _Node, pair: tuple[str, str] | None = None) -> dict[str, Any]:
        state, activity = pair or (node.slot.state, node.slot.activity)
        return {"State": state, "Activity": activity, **node.predicates}

    def setting(
        self, slot: ReferenceSlot, found: Mapping[str, Any], ad: Mapping[str, Any]
    ) -> _Setting:
        values: dict[str, Any] = {}
        job: dict[str, Any] = {}
        wait = 0.0
        spelling = {k.lower(): k for k in ad}
        for written, value in found.items():
            if written.startswith("TARGET."):
                job[written[7:]] = value
                continue
            name = spelling.get(written.lower(), written)
            if name in slot.machine or name not in ad:
                if name not in self.predicate_names:
                    values[name] = value
            elif _stamp(value) and _stamp(ad[name]):
                # the oracle's clock reads EPOCH: it wants the stamp EPOCH - value old
                wait = max(wait, (EPOCH - value) - (EPOCH + slot.t - ad[name]))
        return _Setting(
            tuple(sorted(values.items())), tuple(sorted(job.items())), min(wait, LONGEST_WAIT)
        )

    def goal_expr(self, goal: Goal) -> A.Expr:
        if goal not in self._goal_exprs:
            self._goal_exprs[goal] = self._goal_expr(goal)
        return self._goal_exprs[goal]

    def _goal_expr(self, goal: Goal) -> A.Expr:
        """TRUE exactly in the situations (of its source pair) where `goal` happens: a
        guard goal, when an evaluation pass reaches the trigger and the guard has that
        value; a fire goal, when some trigger of the row can fire (an event or timer
        trigger without a guard always can)."""
        row = self.table.row(goal.row)
        if goal.kind == "guard":
            compiled = row.triggers[goal.trigger]
            assert compiled is not None
            first = compiled.expr if goal.outcome == "T" else fails(compiled.expr)
            return conj([first, *self.earlier(row, goal.trigger)])
        ways: list[A.Expr] = []
        for index, (trig, compiled) in enumerate(
            zip(row.transition.triggers, row.triggers, strict=True)
        ):
            if compiled is None:
                if trig.kind in ("protocol", "command", "timer"):
                    return A.Boolean(True)
                continue
            if trig.kind == "policy":
                ways.append(conj([compiled.expr, *self.earlier(row, index)]))
            else:
                ways.append(compiled.expr)
        if not ways:
            return A.Boolean(False)
        out = ways[0]
        for other in ways[1:]:
            out = A.Binary("||", out, other)
        return out

    def proof(self, goal: Goal) -> str:
        """Why `goal` cannot happen in any slot ad the startd can publish in its pair
        (the region oracle with the table's domains and the relations the startd
        guarantees, `Analysis.relations`), or "" when no proof is found. A guard goal:
        no evaluation pass reaches the trigger with that value. A fire goal: no policy
        or immediate trigger of the row can fire, and its events and timers cannot
        happen because the slot leaves the pair in the instant it enters (`transient`)."""
        row = self.table.row(goal.row)
        pair = row.source
        assume = self.an.assume(pair)
        label = f"{pair[0]}/{pair[1]}"
        at_entry = self.left_at_entry(pair)
        if at_entry:
            for trig, compiled in zip(row.transition.triggers, row.triggers, strict=True):
                if (
                    trig.kind == "immediate"
                    and compiled is not None
                    and goal.kind == "fire"
                    and not self.an.impossible(compiled.expr, assume)
                ):
                    return ""
            return at_entry
        if goal.kind == "guard":
            if not self.an.impossible(self.goal_expr(goal), assume):
                return ""
            value = "TRUE" if goal.outcome == "T" else "not TRUE"
            return (
                f"in no slot ad the startd can publish in {label} does an evaluation pass "
                f"reach this guard with the value {value} (the region oracle, with the "
                "relations the startd guarantees between its predicates)"
            )
        ways: list[A.Expr] = []
        events = False
        for index, (trig, compiled) in enumerate(
            zip(row.transition.triggers, row.triggers, strict=True)
        ):
            if trig.kind == "policy" and compiled is not None:
                ways.append(conj([compiled.expr, *self.earlier(row, index)]))
            elif trig.kind == "immediate" and compiled is not None:
                ways.append(compiled.expr)
            elif compiled is None or not self.an.impossible(compiled.expr, assume):
                events = True  # an event or timer, unguarded or with a guard that may hold
        why = self.transient(pair) if events else "no event or timer can fire it there"
        if not why:
            return ""
        for way in ways:
            if not self.an.impossible(way, assume):
                return ""
        guards = "no trigger of its evaluation can fire there (the region oracle)"
        return f"{why}; {guards}" if ways else why

    def left_at_entry(self, pair: tuple[str, str]) -> str:
        """Why nothing but an immediate step ever happens in `pair`, or "": in every slot
        ad the startd can publish there one of its immediate steps holds, and they are
        tried on every entry (and at start-up), before any evaluation pass or event."""
        key = pair
        if key not in self._at_entry:
            steps = [
                (row, compiled)
                for row in self.rows_from.get(pair, [])
                for trig, compiled in zip(row.transition.triggers, row.triggers, strict=True)
                if trig.kind == "immediate" and compiled is not None
            ]  # fmt: skip
            stay = [fails(c.expr) for r, c in steps if not _enters(r, pair)]
            proved = (
                len(stay) == len(steps)
                and bool(stay)
                and self.an.impossible(conj(stay), self.an.assume(pair))
            )
            self._at_entry[key] = (
                f"the slot leaves {pair[0]}/{pair[1]} on entry by an immediate step, in "
                "every slot ad the startd can publish there: no evaluation pass and no "
                "event ever happens in it"
            ) if proved else ""  # fmt: skip
        return self._at_entry[key]

    def transient(self, pair: tuple[str, str]) -> str:
        """Why no event or timer can happen in `pair`, or "": every entry into it runs an
        evaluation pass at once (`evaluate_on_entry`, or the initial pair no row enters,
        evaluated at start-up), and in every slot ad the startd can publish there some
        step of that pass leaves the pair."""
        if pair not in self._transient:
            self._transient[pair] = self._transient_reason(pair)
        return self._transient[pair]

    def _transient_reason(self, pair: tuple[str, str]) -> str:
        spec = self.spec
        try:
            on_entry = spec.pair(f"{pair[0]}/{pair[1]}").evaluate_on_entry
        except KeyError:
            on_entry = False
        initial = (spec.initial.state, spec.initial.activity) == pair
        if not on_entry:
            entered = any(row.status != "dead" and _enters(row, pair) for row in self.table.rows)
            if not initial or entered:
                return ""
        stay: list[A.Expr] = []
        assume = self.an.assume(pair)
        for row in self.rows_from.get(pair, []):
            for trig, compiled in zip(row.transition.triggers, row.triggers, strict=True):
                if trig.kind not in ("policy", "immediate") or compiled is None:
                    continue
                if _enters(row, pair):
                    # A step that keeps the slot here (preempt_in_retirement) ends the
                    # pass with the slot still in the pair: no proof unless it never fires.
                    if not self.an.impossible(compiled.expr, assume):
                        return ""
                    continue
                stay.append(fails(compiled.expr))
        if not stay or not self.an.impossible(conj(stay), assume):
            return ""
        when = (
            "every entry runs an evaluation pass at once"
            if on_entry
            else ("it is entered only at start-up, which runs an evaluation pass at once")
        )
        return (
            f"the slot leaves {pair[0]}/{pair[1]} in the instant it enters ({when}, and "
            "in every slot ad the startd can publish there a step of it fires)"
        )

    def earlier(self, row: Row, index: int) -> list[A.Expr]:
        """`fails(guard)` of every step of the evaluation order before policy trigger
        `index` of `row` (the same steps as `Analysis.firing`)."""
        trig = row.transition.triggers[index]
        if trig.kind != "policy" or trig.order is None:
            return []
        out: list[A.Expr] = []
        for step in self.spec.state(row.source[0]).evaluation_order:
            if (step.source.state, step.source.activity) != row.source:
                continue
            if step.order >= trig.order or (step.transition == row.id and step.trigger == index):
                continue
            other = self.table.row(step.transition).triggers[step.trigger]
            if other is not None:
                out.append(fails(other.expr))
        return out

    def blocked(self, pair: tuple[str, str]) -> str:
        """Why no row can enter `pair`, when the compiled table shows it: every row into
        it is dead, or a "State/*" row whose activity choice always picks another
        activity first (WANT_VACATE always TRUE: never Killing). "" when not shown."""
        why: list[str] = []
        for row in self.table.rows:
            if not _enters(row, pair):
                continue
            if row.status == "dead":
                continue
            if not row.transition.target.is_wildcard:
                return ""
            forced = {t.activity for t in row.transition.triggers if t.activity}
            if pair[1] in forced:
                return ""
            free = any(not t.activity for t in row.transition.triggers)
            for choice, compiled in zip(row.transition.activity_choice, row.choices, strict=True):
                if choice.activity == pair[1]:
                    if free and compiled.status != "dead":
                        return ""
                    break
                if compiled.status == "always":
                    why.append(f"{row.id} always chooses {choice.activity} ({choice.guard})")
                    break
        return "; ".join(why) if why else ""

    def possible(self, goal: Goal, context: Mapping[str, Any]) -> bool:
        """Could `goal` happen in a situation with these predicates (oracle: not unsat)?"""
        expr = self.goal_expr(goal)
        if isinstance(expr, A.Boolean):
            return expr.value
        return self.an.sat(expr, self.relevant(expr, context)).verdict != "unsat"

    # -- moves ----------------------------------------------------------------------------
    def moves(self, node: _Node) -> Iterator[_Move]:
        """Every move worth trying from `node` (module docstring), events first."""
        slot = node.slot
        pair = (slot.state, slot.activity)
        ad = slot.ad()
        rows = self.rows_from.get(pair, [])
        seen: set[Any] = set()
        for move in (*self._event_moves(node, rows, ad), *self._tick_moves(node, pair, ad)):
            key = (tuple(_step_key(s) for s in move.steps), move.jobs)
            if key not in seen:
                seen.add(key)
                yield move
        if slot.timers:  # a step after the next expiry that changes nothing
            due = min(slot.timers.values())
            still = sorted(k for k in slot.machine if k not in AGEING)[:1]
            values = {k: slot.machine[k] for k in still}
            yield _Move((Step(max(due, slot.t) + 1, "set", values=values),))

    def _event_moves(self, node: _Node, rows: Sequence[Row], ad: Mapping[str, Any]) -> list[_Move]:
        slot = node.slot
        pair = (slot.state, slot.activity)
        guards: dict[tuple[str, str | None], list[tuple[A.Expr, str]]] = {}
        entering: dict[tuple[str, str | None], list[Row]] = {}

        def hows(name: str, only: Sequence[str]) -> tuple[str | None, ...]:
            return tuple(only) or self.hows.get(name, ()) or (None,)

        for row in rows:
            for trig, compiled in zip(row.transition.triggers, row.triggers, strict=True):
                if trig.kind in ("protocol", "command"):
                    for how in hows(trig.name, trig.how):
                        named = guards.setdefault((trig.name, how), [])
                        entering.setdefault((trig.name, how), []).append(row)
                        if compiled is not None:
                            named.append((compiled.expr, trig.against))
        for effect in self.spec.event_effects:
            if pair in [(p.state, p.activity) for p in effect.sources]:
                for how in hows(effect.event, effect.how):
                    guards.setdefault((effect.event, how), [])
        for event in self.spec.events:
            if event.effects:
                for how in hows(event.name, ()):
                    guards.setdefault((event.name, how), [])
        context = self.context(node)
        out: list[_Move] = []
        t = slot.t + 1
        for (name, how), exprs in sorted(guards.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            claim = self.claim_events.get(name)
            found_all: list[tuple[dict[str, Any], str]] = [({}, "local")]
            for expr, against in exprs:
                for want in (expr, fails(expr)):
                    found = None if claim else self.pinned(node, want, against, ad)
                    if found is not None:
                        found_all.append((found, against))
                        continue
                    found = self.witness(want, context)
                    if found is not None:
                        found_all.append((found, against))
            found_all += self._entry(node, entering.get((name, how), ()), ad)
            for found, against in found_all:
                setting = self.setting(slot, found, ad)
                sets = [Step(t, "set", values=dict(setting.values))] if setting.values else []
                if claim is not None:
                    jobs = [{**self.job, **dict(setting.job)}] if setting.job else self.jobs
                    for job in jobs:
                        out.append(_Move((*sets, Step(t, "event", name, how, job=job))))
                    continue
                retarget = self._retarget(node, setting, against)
                out.append(_Move((*sets, Step(t, "event", name, how)), retarget))
        return out

    def _retarget(
        self, node: _Node, setting: _Setting, against: str
    ) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
        """The job rewrite a witness needs (empty when the current job already fits or
        no claim of the prefix can carry it)."""
        if not setting.job or against not in ("job", "preempting_job"):
            return ()
        current = node.slot.claim_job if against == "job" else node.slot.preempting_job
        if current is not None and all(current.get(k) == v for k, v in setting.job):
            return ()
        if not any(self.claim_events.get(s.event or "") == against for s in node.steps):
            return ()
        return ((against, setting.job),)

    def _entry(
        self, node: _Node, rows: Sequence[Row], ad: Mapping[str, Any]
    ) -> list[tuple[dict[str, Any], str]]:
        """Witnesses (and the ad their TARGET side is) for how these rows enter a pair:
        the activity choice of a "State/*" row made and not made, and the immediate
        triggers of the pair entered holding and failing."""
        out: list[tuple[dict[str, Any], str]] = []
        context = self.context(node)
        for row in rows:
            for choice in row.choices:
                for want in (choice.expr, fails(choice.expr)):
                    found = self.pinned(node, want, choice.against, ad)
                    if found is None:
                        found = self.witness(want, context)
                    if found is not None and (found, choice.against) not in out:
                        out.append((found, choice.against))
            for target in row.transition.targets:
                goal = (target.state, target.activity)
                entered = self.context(node, goal)
                for expr in self.immediate.get(goal, ()):
                    for want in (expr, fails(expr)):
                        found = self.witness(want, entered)
                        if found is not None and (found, "local") not in out:
                            out.append((found, "local"))
        return out

    def _tick_moves(self, node: _Node, pair: tuple[str, str], ad: Mapping[str, Any]) -> list[_Move]:
        slot = node.slot
        found_all: list[tuple[dict[str, Any], str]] = []
        earlier: list[A.Expr] = []
        context = self.context(node)
        rows: list[Row] = []
        for step in self.spec.state(pair[0]).evaluation_order:
            if (step.source.state, step.source.activity) != pair:
                continue
            row = self.table.row(step.transition)
            compiled = row.triggers[step.trigger]
            if compiled is None:
                continue
            rows.append(row)
            for expr in (
                self.an.firing(row, step.trigger),
                conj([*earlier, fails(compiled.expr)]),
            ):
                tied = self.tied_to(expr, context)
                for want in (expr,) if tied is None else (expr, tied):
                    found = self.pinned(node, want, step.against, ad)
                    if found is None:
                        found = self.witness(want, context)
                    if found is not None and (found, step.against) not in found_all:
                        found_all.append((found, step.against))
                    if found is not None and self.keeps(found, context):
                        break  # the first witness moves no predicate: nothing to retry
            earlier.append(fails(compiled.expr))
        found_all += self._entry(node, rows, ad)
        busy = self.policy.cpu_busy
        if busy is not None:
            for expr in (busy, fails(busy)):
                found = self.witness(expr, context)
                if found is not None:
                    found_all.append((found, "local"))
        out = [_Move((Step(slot.t + wait, "tick"),)) for wait in self.waits]
        for found, against in found_all:
            setting = self.setting(slot, found, ad)
            retarget = self._retarget(node, setting, against)
            for gap in dict.fromkeys((max(setting.wait, 1.0), 1.0)):
                t = slot.t + gap
                sets = [Step(t, "set", values=dict(setting.values))] if setting.values else []
                out.append(_Move((*sets, Step(t, "tick")), retarget))
        return out

    def apply(self, node: _Node, move: _Move) -> ReferenceSlot:
        """The slot after `move` from `node` (replaying a rewritten prefix if asked)."""
        if move.jobs:
            slot = self.replay(self.headers[node.header], self.rewrite(node.steps, move.jobs))
        else:
            slot = node.slot.clone()
        base = len(node.steps)
        for k, step in enumerate(move.steps):
            slot.step(step, base + k)
        return slot

    def rewrite(
        self, steps: Sequence[Step], jobs: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    ) -> tuple[Step, ...]:
        wanted = dict(jobs)
        out = []
        for step in steps:
            against = self.claim_events.get(step.event or "")
            if step.kind == "event" and against in wanted:
                step = replace(step, job={**(step.job or self.job), **dict(wanted[against])})
            out.append(step)
        return tuple(out)


def plan(
    table: StateTable,
    policy: PolicyExprs,
    *,
    machine: Mapping[str, Any],
    idle: Mapping[str, Any],
    job: Mapping[str, Any],
    timer_values: Mapping[str, int] | None = None,
    budget: int = BUDGET,
    rows: Collection[str] | None = None,
) -> Plans:
    """Plan traces covering `goals(table)` (see the module docstring). `machine` is the
    initial machine ad, `idle` the sensor values of an idle desktop (a second start),
    `job` the default job ad. `rows`: only the goals of these row ids (what `diff
    --trace` aims at: the search stops as soon as they are covered). Deterministic."""
    reachable = frozenset(reachable_pairs(Analysis(table)))
    wanted = [g for g in goals(table, reachable) if rows is None or g.row in rows]
    wanted_set = frozenset(wanted)
    todo = set(wanted)
    planner = _Planner(table, policy, timer_values or {}, machine, idle, job)
    distance = _Distances(planner)
    queue: list[tuple[int, int, int, _Node]] = []
    seen: set[Any] = set()
    useful: list[_Node] = []
    reached: dict[tuple[str, str], list[dict[str, Any]]] = {}
    order = 0

    tries: dict[tuple[str, str], int] = {}
    passed: set[tuple[str, str]] = set()

    samples: dict[tuple[str, str], list[_Node]] = {}

    def push(node: _Node, depth: int) -> None:
        nonlocal order
        pair = (node.slot.state, node.slot.activity)
        contexts = reached.setdefault(pair, [])
        if node.predicates not in contexts:  # a new situation: worth some patience again
            contexts.append(node.predicates)
            samples.setdefault(pair, []).append(node)
            tries[pair] = 0
            distance.revive(pair)
        heapq.heappush(queue, (distance.to(todo, node), depth, order, node))
        order += 1

    def visit(slot: ReferenceSlot, steps: tuple[Step, ...], header: int, before: _Node | None,
              depth: int) -> bool:  # fmt: skip
        """Keep the configuration if it is new or covers a goal; True if it covers one."""
        fired_from, outcomes = 0, set()
        if before is not None and steps[: len(before.steps)] == before.steps:
            fired_from, outcomes = len(before.slot.fired), before.slot.outcomes
        got = _covered(slot, fired_from, outcomes, wanted_set)
        passed.update(f.source for f in slot.fired[fired_from:])
        predicates = slot.predicates()
        key = _key(slot, header, predicates)
        new = got & todo
        if not new and key in seen:
            return False
        seen.add(key)
        covered = (before.covered if fired_from and before is not None else frozenset()) | got
        node = _Node(slot, steps, header, covered, predicates)
        if new:
            todo.difference_update(new)
            useful.append(node)
        if not slot.deleted:
            push(node, depth)
        return bool(new)

    for index, header in enumerate(planner.headers):
        try:
            visit(planner.start(header), (), index, None, 0)
        except (PolicyError, RuntimeError):  # the policy's fault; the search reports it
            continue
    moves = 0
    last = 0

    while queue and todo and moves < budget and moves - last < STALL:
        h, depth, _, node = heapq.heappop(queue)
        now = distance.to(todo, node)
        if now > h:  # its goals were covered meanwhile: back in the queue at its new place
            heapq.heappush(queue, (now, depth, order, node))
            order += 1
            continue
        pair = (node.slot.state, node.slot.activity)
        distance.saw(node)
        tries[pair] = tries.get(pair, 0) + 1
        if tries[pair] == PATIENCE:
            distance.give_up(pair)
        for move in planner.moves(node):
            if moves >= budget or not todo:
                break
            moves += 1
            try:
                slot = planner.apply(node, move)
            except (PolicyError, RuntimeError):  # the policy's fault; the search reports it
                continue
            prefix = planner.rewrite(node.steps, move.jobs) if move.jobs else node.steps
            if visit(slot, prefix + move.steps, node.header, node, depth + 1):
                last = moves
    chosen = _cover(useful)
    traces = tuple(_trace(table, planner.headers[n.header], n.steps) for n in chosen)
    covered = frozenset(g for n in chosen for g in n.covered)
    why = {
        g: _reason(planner, g, reached, passed, moves >= budget, budget, samples)
        for g in wanted
        if g not in covered
    }
    reasons = {g: text for g, (_, text) in why.items()}
    kinds = {g: kind for g, (kind, _) in why.items()}
    return Plans(traces, tuple(wanted), covered, reasons, moves, kinds)


class _Distances:
    """The planner's heuristic: how far a configuration is from an open goal. For each
    open goal, the fewest rows from the configuration's pair to the goal's pair, plus
    DETOUR when the oracle proves the goal impossible with the configuration's
    predicates (they mostly persist along a path, so such a configuration would first
    have to change them). A pair expanded PATIENCE times without reaching a new
    situation stops attracting the search until it does."""

    def __init__(self, planner: _Planner) -> None:
        self.planner = planner
        forward: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for row in planner.table.rows:
            if row.status == "dead":
                continue
            for target in row.transition.targets:
                forward.setdefault(row.source, set()).add((target.state, target.activity))
        self.steps: dict[tuple[str, str], dict[tuple[str, str], int]] = {}
        for start in {p for p in forward} | {t for v in forward.values() for t in v}:
            self.steps[start] = _spread(start, forward)
        self.source = {row.id: row.source for row in planner.table.rows}
        self.stale: set[tuple[str, str]] = set()
        self._possible: dict[Any, bool] = {}
        self.jobs_seen: set[Any] = set()

    def give_up(self, pair: tuple[str, str]) -> None:
        self.stale.add(pair)

    def revive(self, pair: tuple[str, str]) -> None:
        self.stale.discard(pair)

    def to(self, todo: set[Goal], node: _Node) -> int:
        pair = (node.slot.state, node.slot.activity)
        reach = self.steps.get(pair, {pair: 0})
        best = FAR
        for goal in todo:
            where = self.source[goal.row]
            if where in self.stale or where not in reach:
                continue
            cost = reach[where]
            if cost >= best:
                continue
            expr = self.planner.goal_expr(goal)
            key = (goal, tuple(sorted(self.planner.relevant(expr, node.predicates).items())))
            if key not in self._possible:
                self._possible[key] = self.planner.possible(goal, node.predicates)
            if not self._possible[key] and not self._new_job(node, pair):
                cost += DETOUR
            best = min(best, cost)
        return best

    def _new_job(self, node: _Node, pair: tuple[str, str]) -> bool:
        """The configuration holds a claim job not yet seen at its pair: a predicate
        such as RetirementExpired may read it (the job's own MaxJobRetirementTime), so
        the oracle's verdict for the predicates seen so far does not hold for it."""
        job = tuple(sorted(node.slot.claim_job.items())) if node.slot.claim_job else None
        return job is not None and (pair, job) not in self.jobs_seen

    def saw(self, node: _Node) -> None:
        job = tuple(sorted(node.slot.claim_job.items())) if node.slot.claim_job else None
        self.jobs_seen.add(((node.slot.state, node.slot.activity), job))


def _spread(
    start: tuple[str, str], forward: Mapping[tuple[str, str], set[tuple[str, str]]]
) -> dict[tuple[str, str], int]:
    """Fewest rows from `start` to every pair it leads to."""
    out = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for pair in frontier:
            for target in sorted(forward.get(pair, ())):
                if target not in out:
                    out[target] = out[pair] + 1
                    nxt.append(target)
        frontier = nxt
    return out


def _covered(
    slot: ReferenceSlot, fired_from: int, outcomes_before: set[Any], wanted: frozenset[Goal]
) -> set[Goal]:
    found: set[Goal] = {Goal("fire", f.id) for f in slot.fired[fired_from:]}
    for rid, index, tv in slot.outcomes - outcomes_before:
        found.add(Goal("guard", rid, index, "T" if tv == "T" else "notT"))
    return found & wanted


def _key(slot: ReferenceSlot, header: int, predicates: Mapping[str, Any]) -> Any:
    """The abstract configuration: what the guards of later moves can depend on besides
    sensors and time."""
    job = tuple(sorted(slot.claim_job.items())) if slot.claim_job else None
    pre = tuple(sorted(slot.preempting_job.items())) if slot.preempting_job else None
    return (
        header, slot.state, slot.activity, tuple(sorted(predicates.items())), job, pre,
        slot.peaceful, slot.drain_how, slot.activations > 0, slot.cpu_busy,
    )  # fmt: skip


def _cover(useful: Sequence[_Node]) -> list[_Node]:
    """Greedy set cover: the node covering most goals not yet covered, repeatedly
    (ties: the shorter trace, then the earlier node)."""
    left: set[Goal] = set().union(*(n.covered for n in useful)) if useful else set()
    chosen: list[_Node] = []
    while left:
        best = max(
            range(len(useful)),
            key=lambda i: (len(useful[i].covered & left), -len(useful[i].steps), -i),
        )
        node = useful[best]
        chosen.append(node)
        left -= node.covered
    return chosen


def _trace(table: StateTable, header: _Header, steps: tuple[Step, ...]) -> Trace:
    return Trace(
        file="<planned>", steps=steps, era=table.era, semantics=table.semantics,
        machine=dict(header.machine), job=dict(header.job), polling="explicit",
        slot=header.slot,
    )  # fmt: skip


#: Kinds of reason (`Plans.kinds`). EXPLAINED ones explain a goal by the policy: a
#: proof that it cannot happen ("never"); the slot only passes through the pair; the table blocks every way in; the oracle proves
#: the goal impossible in every situation reached there; the sensor values the oracle
#: asks for also flip a predicate it assumed (the policy ties them together, which the
#: oracle, reading predicates as free booleans, cannot see). The others ("unreached",
#: "no-event", "unrealised", "undecided") are gaps of the planner.
EXPLAINED = frozenset({"never", "transient", "blocked", "impossible", "correlated"})
#: Kinds that are proofs, not observations: the goal cannot happen under the policy in any
#: slot ad the startd can publish ("never": the region oracle with the startd's
#: relations; "blocked": the compiled table). Coverage counts only the other goals.
PROVED = frozenset({"never", "blocked"})


def _reason(
    planner: _Planner,
    goal: Goal,
    reached: Mapping[tuple[str, str], list[dict[str, Any]]],
    passed: set[tuple[str, str]],
    exhausted: bool,
    budget: int,
    samples: Mapping[tuple[str, str], list[_Node]],
) -> tuple[str, str]:
    """(kind, text) of why `goal` was not covered."""
    proof = planner.proof(goal)
    if proof:
        return "never", proof
    row = planner.table.row(goal.row)
    pair = f"{row.source[0]}/{row.source[1]}"
    stopped = f" (the planner stopped after {budget} moves)" if exhausted else ""
    if row.source not in reached and row.source in passed:
        return "transient", (
            f"the slot never stays in {pair} on any planned path: it leaves in the instant it "
            "enters (an immediate trigger or the evaluation on entry always fires)"
        )
    if row.source not in reached:
        blocked = planner.blocked(row.source)
        if blocked:
            return "blocked", f"no row can enter {pair}: {blocked}"
        return "unreached", f"no planned trace reached {pair}{stopped}"
    expr = planner.goal_expr(goal)
    verdicts = set()
    tried: list[dict[str, Any]] = []
    for predicates in reached[row.source]:
        assume = {"State": row.source[0], "Activity": row.source[1], **predicates}
        assume = planner.relevant(expr, assume)
        if assume not in tried:
            tried.append(assume)
            verdicts.add(planner.an.sat(expr, assume).verdict)
    if verdicts == {"unsat"}:
        shown = "; ".join(sorted({_show(planner.relevant(expr, p)) for p in reached[row.source]}))
        return "impossible", (
            f"{pair} was reached, but in every situation reached there ({shown}) the region "
            "oracle proves that the guard cannot take this value or an earlier step of the "
            "evaluation order holds"
        )
    if goal.kind == "fire" and not any(t.kind == "policy" for t in row.transition.triggers):
        return "no-event", (
            f"{pair} was reached but no event or timer fired it ({row.trigger}){stopped}"
        )
    changed = _correlated(planner, goal, expr, samples.get(row.source, []))
    if changed:
        return "correlated", (
            f"{pair} was reached, but the sensor values under which the oracle lets the "
            f"guard have this value also change {changed}, which the policy ties to them "
            "(e.g. MaxJobRetirementTime written with the PREEMPT condition)"
        )
    if "sat" in verdicts:
        return "unrealised", (
            f"{pair} was reached and the region oracle has a witness, but the planner could "
            f"not realise it with sensors, waits, jobs and events{stopped}"
        )
    return "undecided", (
        f"{pair} was reached; the region oracle could not decide this guard there{stopped}"
    )


def _correlated(planner: _Planner, goal: Goal, expr: A.Expr, nodes: Sequence[_Node]) -> str:
    """The predicates that setting the oracle's witness changes, when it changes some in
    every situation reached where the goal could happen ("" otherwise)."""
    changed: set[str] = set()
    tried = False
    for node in nodes:
        if not planner.possible(goal, node.predicates):
            continue
        found = planner.witness(expr, planner.context(node))
        if found is None:
            continue
        slot = node.slot
        setting = planner.setting(slot, found, slot.ad())
        trial = slot.clone()
        try:
            trial.step(Step(slot.t, "set", values=dict(setting.values)))
        except (PolicyError, RuntimeError):  # the policy's fault; the search reports it
            return ""
        if setting.job and trial.claim_job is not None:  # as if the claim carried it
            trial.claim_job = {**trial.claim_job, **dict(setting.job)}
        after = trial.predicates()
        names = planner.relevant(expr, after)
        moved = {k for k in names if after[k] != node.predicates.get(k)}
        if not moved:
            return ""
        tried = True
        changed |= moved
    return ", ".join(sorted(changed)) if tried else ""


def _enters(row: Row, pair: tuple[str, str]) -> bool:
    """Whether `row` can lead into `pair` (a step that keeps the slot there, when `pair`
    is its own source)."""
    return pair in [(t.state, t.activity) for t in row.transition.targets]


def _show(predicates: Mapping[str, Any]) -> str:
    shown = [f"{k}={'TRUE' if v else 'FALSE'}" for k, v in sorted(predicates.items())]
    return ", ".join(shown) if shown else "any"


def _pin(expr: A.Expr, job: Mapping[str, Any], mine: set[str]) -> A.Expr:
    """`expr` with the job's attributes written in: TARGET.x (UNDEFINED when the job
    lacks it) and unscoped names the slot ad does not have but the job does."""
    values = {k.lower(): v for k, v in job.items()}

    def walk(e: A.Expr) -> A.Expr:
        if isinstance(e, A.AttrRef):
            if e.scope == "TARGET":
                return literal(values.get(e.key), A.UndefinedLit())
            if e.scope is None and e.key not in mine and e.key in values:
                return literal(values[e.key], A.UndefinedLit())
            return e
        return A.map_children(e, walk)

    return walk(expr)


def _step_key(step: Step) -> Any:
    job = tuple(sorted(step.job.items())) if step.job is not None else None
    return (step.t, step.kind, step.event, step.how, job, tuple(sorted(step.values.items())))


def _stamp(value: Any) -> bool:
    """A time stamp (seconds since 1970 near the trace epoch), not a duration."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value > EPOCH / 2


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """Witness values a trace file can hold (UNDEFINED and ERROR mean "leave unset")."""
    return {name: value for name, value in values.items() if not isinstance(value, A.Expr)}


def planned(
    table: StateTable,
    policy: PolicyExprs,
    *,
    timer_values: Mapping[str, int] | None = None,
    owners: Sequence[str] = ("alice",),
    budget: int = BUDGET,
    rows: Collection[str] | None = None,
    fixed: Mapping[str, Any] | None = None,
) -> Plans:
    """`plan` with the inputs `condor-policy check` uses: the generator's sensor cut
    points (runtime.check.generate), starting from the lowest value of each sensor or
    from an idle desktop, and a small vanilla job of the first owner."""
    from compiler.classad import unparse
    from runtime.check.generate import FIXED, idle_desktop, sensor_values

    values = sensor_values({name: unparse(e) for name, e in policy.exprs.items()})
    machine = {**{k: v[0] for k, v in values.items()}, **FIXED, **(fixed or {})}
    job = {"Owner": owners[0], "ImageSize": 1000, "JobUniverse": 5}
    return plan(
        table, policy, machine=machine, idle=idle_desktop(values), job=job,
        timer_values=timer_values, budget=budget, rows=rows,
    )  # fmt: skip


def reason_keys(plans: Plans, *, proved: bool = False) -> dict[str, str]:
    """`Plans.reasons` keyed as the coverage report names things: a row id, or
    "<row id>#<trigger> TRUE" / "... not TRUE" for a guard; with `proved`, only the
    goals proved impossible (PROVED kinds)."""
    out: dict[str, str] = {}
    for goal, reason in sorted(plans.reasons.items()):
        if proved and plans.kinds.get(goal) not in PROVED:
            continue
        if goal.kind == "fire":
            out[goal.row] = reason
        else:
            value = "TRUE" if goal.outcome == "T" else "not TRUE"
            out[f"{goal.row}#{goal.trigger} {value}"] = reason
    return out


#: Why a live row no trace fired when the planner did reach it (on the reference).
NOT_ON_COMPILED = (
    "the planned traces fire it on the reference interpreter but the compiled machine did "
    "not (see the reference-crosscheck property)"
)


def coverage_notes(
    table: StateTable,
    reachable: frozenset[tuple[str, str]],
    fired: set[str],
    outcomes: set[tuple[str, int, str]],
    reasons: Mapping[str, str],
    proved: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Coverage keys besides the historic ones: the live policy guards (a guard of a
    live row from a reachable pair whose compiled status is neither dead nor always,
    and that no proof shows constant where it is evaluated), how many were seen both
    TRUE and not TRUE, and a reason for every live row never fired and every live guard
    not seen both ways. `proved` (keys as `reason_keys`) are goals proved impossible:
    such a row is not live, such a guard not live either."""
    proved = proved or {}
    wanted = goals(table, reachable)
    live_rows = [g.row for g in wanted if g.kind == "fire" and g.row not in proved]
    both: dict[tuple[str, int], set[str]] = {}
    for g in wanted:
        if g.kind == "guard":
            label = f"{g.row}#{g.trigger} {'TRUE' if g.outcome == 'T' else 'not TRUE'}"
            if label not in proved and g.row not in proved:
                both.setdefault((g.row, g.trigger), set()).add(g.outcome)
    live_guards = [k for k, v in both.items() if v == {"T", "notT"}]
    seen: dict[tuple[str, int], set[str]] = {}
    for rid, index, tv in outcomes:
        seen.setdefault((rid, index), set()).add("T" if tv == "T" else "notT")
    missing = {k: {"T", "notT"} - seen.get(k, set()) for k in live_guards}
    guard_reasons: dict[str, str] = {}
    for (rid, index), left in missing.items():
        for outcome in sorted(left):
            label = f"{rid}#{index} {'TRUE' if outcome == 'T' else 'not TRUE'}"
            guard_reasons[label] = reasons.get(label, NOT_ON_COMPILED.replace("fire it", "see it"))
    return {
        "guards_live": len(live_guards),
        "guards_live_true_and_not_true": sum(1 for left in missing.values() if not left),
        "never_fired_reasons": {
            rid: reasons.get(rid, NOT_ON_COMPILED) for rid in live_rows if rid not in fired
        },
        "guards_not_seen_both": guard_reasons,
        "never_possible": dict(proved),
    }
