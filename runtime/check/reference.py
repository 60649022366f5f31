"""A reference interpreter of the era spec: the slide rule the compiled machine is checked
against.

Stage: check (runtime side). It reads the *spec* (compiler.spec IR) and the
*configuration* directly and interprets the contract written in the compiler.spec
docstring ("How the runtime drives a slot") in the most literal way: a guard is the
spec's ClassAd text, evaluated by `compiler.classad.evaluate` with the slot ad as MY,
where the policy names are attributes holding the configuration's expressions (exactly
how the startd publishes them) and the predicates are booleans. It never looks at the
compiled table, the simplifier or the code generator, so a fault there (a swapped guard,
an unsound rewrite, a wrong evaluation order) shows up as a different transition.

It shares with the runtime the spec IR, the ClassAd evaluator and the trace and `Fired`
records, nothing else: the startd helpers (retirement remaining, max vacate time, the
CpuBusy attributes) and the events' side effects are spec data (`EraSpec.helpers`,
`Event.effects`) that it applies with its own code, so a slip in the runtime's copy
shows up as a different transition.

It is deliberately plain and slow: one mutable object stepping through a trace (the
simulated slot *is* state; keeping it in one place is clearer than threading it).
Polling is explicit (only `tick` steps evaluate), so no interval arithmetic can blur the
comparison; the clock and timers follow `runtime.trace.replay`: before a step at time t
the timers due before t fire, ones due at t after the step (and after the last step).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from compiler import holds
from compiler.classad import ERROR, UNDEFINED, evaluate, parse
from compiler.classad import ast as A
from compiler.errors import PolicyError
from compiler.slots import naming
from compiler.spec import (
    VARIANT_UNIVERSES,
    Action,
    CpuBusyRule,
    EraSpec,
    Pair,
    Transition,
    Trigger,
)
from runtime.fired import Fired
from runtime.trace import EPOCH, Step, Trace

#: Attributes that count up with the clock when `idle_ages` (DESIGN.md trace files).
AGEING = ("KeyboardIdle", "ConsoleIdle")


@dataclass
class CpuBusyLatch:
    """The startd's CpuBusy bookkeeping as the spec states it (`CpuBusyRule`, reference
    section 5, D17): the configuration's expression evaluated whenever the slot ad is
    built, and the attributes `rule.publish` names."""

    expr: A.Expr | None
    rule: CpuBusyRule
    busy: bool = False
    since: float | None = None
    changed: float = 0

    def attrs(self, base: Mapping[str, Any], t: float) -> dict[str, Any]:
        if self.expr is None:
            return {}
        busy = holds(evaluate(self.expr, base, None, now=EPOCH + t))
        if busy != self.busy:
            self.busy, self.since, self.changed = busy, (t if busy else None), t
        out: dict[str, Any] = {}
        for attribute, quantity in self.rule.publish:
            match quantity:
                case "busy":
                    out[attribute] = busy
                case "busy_number":
                    out[attribute] = 1 if busy else 0
                case "seconds_busy":
                    since = self.since
                    out[attribute] = int(t - since) if busy and since is not None else 0
                case "last_change":
                    out[attribute] = int(EPOCH + self.changed)
                case _:
                    raise ValueError(f"unknown CpuBusy quantity {quantity!r}")
        return out


class PolicyExprs:
    """The configuration's policy expressions by name (variants included), parsed once."""

    def __init__(self, spec: EraSpec, values: Mapping[str, str | None]) -> None:
        self.spec = spec
        self.exprs: dict[str, A.Expr] = {}
        self.exported: dict[str, A.Expr] = {}
        self.backfill = False
        cpu_busy = values.get(spec.helpers.cpu_busy.expression.upper())
        self.cpu_busy: A.Expr | None = parse(cpu_busy) if cpu_busy else None
        for policy in spec.policies:
            for base in (policy.name, *policy.aliases):
                for suffix in ("", *policy.variants):
                    text = values.get((base + suffix).upper())
                    if text is not None:  # "" = defined empty: param() finds nothing
                        expr = parse(text) if text.strip() else A.UndefinedLit()
                        self.exprs.setdefault((policy.name + suffix).upper(), expr)
            if policy.name.upper() not in self.exprs and policy.default is not None:
                self.exprs[policy.name.upper()] = parse(policy.default)

    @staticmethod
    def from_config(spec: EraSpec, config: Any) -> PolicyExprs:
        names: dict[str, str | None] = {}
        for policy in spec.policies:
            for base in (policy.name, *policy.aliases):
                for suffix in ("", *policy.variants):
                    value = config.get(base + suffix)
                    if value is None and config.raw(base + suffix) is not None:
                        value = ""  # defined with an empty value
                    names[(base + suffix).upper()] = value
        cpu_busy = spec.helpers.cpu_busy.expression
        names[cpu_busy.upper()] = config.get(cpu_busy)
        out = PolicyExprs(spec, names)
        out.exported = exported_attributes(config, out.exprs)
        out.backfill = backfill_manager(config)
        return out

    def latch(self) -> CpuBusyLatch:
        return CpuBusyLatch(self.cpu_busy, self.spec.helpers.cpu_busy)

    def ad_entries(self) -> dict[str, Any]:
        """Policy names (and their variants) as slot-ad attributes, as the startd
        publishes them."""
        out: dict[str, Any] = dict(self.exported)
        for policy in self.spec.policies:
            for suffix in ("", *policy.variants):
                expr = self.exprs.get((policy.name + suffix).upper())
                if expr is not None:
                    for alias in (policy.name, *policy.aliases):
                        out[alias + suffix] = expr
        return out

    def guard(
        self, text: str, job: Mapping[str, Any] | None, my: Mapping[str, Any], now: float
    ) -> A.Expr:
        """The spec guard with each policy name written in it replaced by its
        `_VANILLA`/`_VM` variant where the startd would look that up (manual: the job's
        universe matches; code: and the variant evaluates to a boolean or number)."""
        expr = parse_guard(text)
        universe = job.get("JobUniverse") if job else None
        swap: dict[str, str] = {}
        for policy in self.spec.policies:
            for suffix in policy.variants:
                variant = self.exprs.get((policy.name + suffix).upper())
                if variant is None or VARIANT_UNIVERSES.get(suffix) != universe:
                    continue
                if self.spec.semantics == "code":
                    value = evaluate(variant, my, job, now=now)
                    if isinstance(value, str) or value is UNDEFINED or value is ERROR:
                        continue
                    if not isinstance(value, bool | int | float):
                        continue
                for alias in (policy.name, *policy.aliases):
                    swap[alias.lower()] = policy.name + suffix
                break
        return _rename(expr, swap) if swap else expr


def backfill_manager(config: Any) -> bool:
    """Whether the startd has a backfill manager (the `BackfillEnabled` predicate), read
    from the configuration as `ResMgr::backfillMgrConfig` does: `param_boolean
    ("ENABLE_BACKFILL", false)` (condor_config.cpp `string_is_boolean_param`: a leading
    true/1/false/0 with nothing but spaces after it, else the text evaluated as a ClassAd
    expression), and a BACKFILL_SYSTEM `verifyBackfillSystem` knows (only BOINC)."""
    text = (config.get("ENABLE_BACKFILL") or "").strip()
    enabled = False
    for literal, value in (("true", True), ("1", True), ("false", False), ("0", False)):
        if text[: len(literal)].lower() == literal and not text[len(literal) :].strip():
            enabled = value
            break
    else:
        try:
            result = evaluate(parse(text), {}, None) if text else UNDEFINED
        except PolicyError:
            result = UNDEFINED
        if isinstance(result, bool):
            enabled = result
        elif isinstance(result, int | float):
            enabled = result != 0
    return enabled and (config.get("BACKFILL_SYSTEM") or "").strip().lower() == "boinc"


def exported_attributes(config: Any, policies: Mapping[str, A.Expr]) -> dict[str, A.Expr]:
    """Names the configuration puts into the slot ad (STARTD_ATTRS, STARTD_EXPRS, and the
    6.x `NAME : value` syntax), with their expressions (seed 001 3.5.10.4's IsDesktop)."""
    names: list[str] = []
    for knob in ("STARTD_ATTRS", "STARTD_EXPRS"):
        names += [n for n in re.split(r"[\s,]+", config.get(knob) or "") if n]
    names += list(config.exported())
    out: dict[str, A.Expr] = {}
    for name in names:
        if name.upper() in policies:
            continue
        text = config.get(name)
        if text:
            try:
                out[name] = parse(text)
            except PolicyError:  # the startd would not publish an expression it cannot parse
                continue
    return out


_GUARDS: dict[str, A.Expr] = {}


def parse_guard(text: str) -> A.Expr:
    if text not in _GUARDS:
        _GUARDS[text] = parse(text)
    return _GUARDS[text]


def _rename(e: A.Expr, names: Mapping[str, str]) -> A.Expr:
    from compiler.classad.ast import map_children

    if isinstance(e, A.AttrRef) and e.scope in (None, "MY") and e.key in names:
        return A.AttrRef(names[e.key], e.scope)
    return map_children(e, lambda x: _rename(x, names))


@dataclass
class ReferenceSlot:
    """One slot of the startd, stepped by trace steps (see module docstring)."""

    spec: EraSpec
    policy: PolicyExprs
    machine: dict[str, Any]
    job: dict[str, Any]
    idle_ages: bool = True
    dynamic: bool = False
    keepalive: bool = True
    timer_values: dict[str, int] = field(default_factory=dict)
    initial: tuple[str, str] | None = None
    state: str = "Owner"
    activity: str = "Idle"
    t: float = 0
    fired: list[Fired] = field(default_factory=list)
    # runtime inputs behind the predicates
    claim_job: dict[str, Any] | None = None
    preempting_job: dict[str, Any] | None = None
    job_running: bool = False
    has_preempting: bool = False
    reversible: bool = True
    peaceful: bool = False
    latch: bool = False
    draining: bool = False
    waiting_activation: bool = False
    backfill_running: bool = False
    destination: str | None = None
    deleted: bool = False
    claim_start: float | None = None
    activations: int = 0
    run_time: float = 0
    entered_state: float = 0
    entered_activity: float = 0
    timers: dict[str, float] = field(default_factory=dict)
    set_at: dict[str, float] = field(default_factory=dict)
    outcomes: set[tuple[str, int, str]] = field(default_factory=set)
    last_benchmark: float | None = None
    drain_how: str | None = None
    pledged: float | None = None

    def __post_init__(self) -> None:
        self._latch = self.policy.latch()
        self.state, self.activity = self.initial or (
            self.spec.initial.state,
            self.spec.initial.activity,
        )
        for name in self.machine:
            self.set_at[name] = 0

    def clone(self) -> ReferenceSlot:
        """An independent copy, so that a planner can try several next steps from one
        configuration without replaying the trace that led there (runtime.check.plan)."""
        new = copy.copy(self)
        new.machine, new.job = dict(self.machine), dict(self.job)
        new.fired, new.outcomes = list(self.fired), set(self.outcomes)
        new.timers, new.set_at = dict(self.timers), dict(self.set_at)
        new.timer_values = dict(self.timer_values)
        new.claim_job = None if self.claim_job is None else dict(self.claim_job)
        new.preempting_job = None if self.preempting_job is None else dict(self.preempting_job)
        new._latch = replace(self._latch)
        return new

    def start(self) -> None:
        """The startd starting up in the initial pair: its immediate steps, else an
        evaluation pass when the pair evaluates on entry (as on any entry)."""
        self._index, self._advancing = 0, True
        self._entered(None)

    # -- the slot ad ---------------------------------------------------------------------
    def now(self) -> float:
        return EPOCH + self.t

    def _published(self) -> dict[str, Any]:
        """The slot ad without the predicates and the policy names: what the startd's
        helpers evaluate knobs against (the predicates are computed from them)."""
        my: dict[str, Any] = {}
        for name, value in self.machine.items():
            if self.idle_ages and name in AGEING and isinstance(value, int | float):
                value = value + (self.t - self.set_at.get(name, 0))
            my[name] = value
        my.update(
            State=self.state,
            Activity=self.activity,
            EnteredCurrentState=EPOCH + self.entered_state,
            EnteredCurrentActivity=EPOCH + self.entered_activity,
            LastBenchmark=EPOCH + self.last_benchmark if self.last_benchmark is not None else 0,
            CurrentRank=0.0,
        )
        # the slot's id as the runtime publishes it (slot 1 unless the machine says)
        my.setdefault(naming(self.spec.era).id_attribute, 1)
        my.update(self._latch.attrs(my, self.t))
        if self.claim_job is not None and self.job_running:
            my["JobStart"] = EPOCH + self._job_start
        return my

    def ad(self, target: Mapping[str, Any] | None = None) -> dict[str, Any]:
        my = self._published()
        my.update(self.predicates())
        my.update(self.policy.ad_entries())
        return my

    _job_start: float = 0

    def predicates(self) -> dict[str, bool]:
        may_unretire = self.reversible and not self.has_preempting and not self.draining
        return {
            "JobRunning": self.job_running,
            "HasPreemptingClaim": self.has_preempting,
            "MayUnretire": may_unretire,
            "InRetirement": self.has_preempting or not may_unretire,
            "RetirementExpired": self._retirement_expired(),
            "PreemptLatch": self.latch,
            "ClaimWorklifeExpired": self._worklife_expired(),
            "Draining": self.draining,
            "AllSlotsDrained": self.state == "Drained",
            "WaitingForActivation": self.waiting_activation,
            "BackfillEnabled": self.policy.backfill,
            "BackfillClientRunning": self.backfill_running,
            "DestinationOwner": self.destination == "Owner",
            "DestinationMatched": self.destination == "Matched",
            "DestinationClaimed": self.destination == "Claimed",
            "DynamicSlot": self.dynamic,
        }

    @property
    def cpu_busy(self) -> bool:
        """The CpuBusy latch's last value (what the planner keys configurations on)."""
        return self._latch.busy

    def number(self, name: str, target: Mapping[str, Any] | None) -> float | None:
        """A policy knob's value as a number against `target` (None if not a number)."""
        return self._number(name, target)

    def _number(self, name: str, target: Mapping[str, Any] | None) -> float | None:
        expr = self.policy.exprs.get(name.upper())
        if expr is None:
            return None
        # In the slot ad, as Resource::evalRetirementRemaining and evalMaxVacateTime do
        # (r_classad): a knob may name published attributes (CpusUsage, Activity).
        base = {**self._published(), **self.policy.ad_entries()}
        value = evaluate(expr, base, target, now=self.now())
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)

    def _remaining(self) -> float:
        """Remaining retirement as the spec's RetirementRule states it (reference 3.5
        evalRetirementRemaining), minus the run time this interpreter counts itself."""
        rule = self.spec.helpers.retirement
        if not self.job_running or self.claim_job is None:
            return 0.0
        if self.drain_how in rule.drains_without_retirement:
            return 0.0
        limit = self._number(rule.limit, self.claim_job)
        if limit is None:
            limit = 0.0
        if self.peaceful and limit != rule.peaceful_unlimited_unless:
            limit = math.inf
        own = self.claim_job.get(rule.job_limit)
        if isinstance(own, int | float) and not isinstance(own, bool) and own < limit:
            limit = float(own)
        return max(0.0, limit - self.run_time)

    def _max_vacate(self, remaining: float) -> float:
        """Max vacate time as the spec's VacateRule states it (reference 3.5
        evalMaxVacateTime): the pledge, a smaller job value, or a larger one out of the
        remaining retirement."""
        rule = self.spec.helpers.vacate
        pledged = 0.0 if self.pledged is None else self.pledged
        job = self.claim_job or {}
        asked: Any = None
        for name in rule.job_limits:
            if name in job:
                asked = job[name]
                break
        if not isinstance(asked, int | float) or isinstance(asked, bool):
            return pledged
        if asked <= pledged:
            return float(asked)
        granted = min(float(asked), remaining)
        return granted if granted > pledged else pledged

    def _retirement_expired(self) -> bool:
        remaining = self._remaining()
        if remaining <= 0:
            return True
        if dict(self.spec.options).get("retirement_vacate_allowance"):
            return self._max_vacate(remaining) >= remaining
        return False

    def _worklife_expired(self) -> bool:
        if self.claim_start is None:
            return False
        value = self._number("CLAIM_WORKLIFE", self.claim_job)
        if value is None or value < 0:
            return False
        if dict(self.spec.options).get("claim_worklife_needs_activation") and self.activations < 1:
            return False
        return self.t - self.claim_start > value

    def guard_value(self, guard: str, against: str, job: Mapping[str, Any] | None = None) -> Any:
        if not guard.strip():
            return True
        target = (
            job
            if job is not None
            else {
                "local": None,
                "job": self.claim_job,
                "preempting_job": self.preempting_job,
            }[against]
        )
        my = self.ad(target)
        return evaluate(
            self.policy.guard(guard, target, my, self.now()), my, target, now=self.now()
        )

    def guard_holds(self, guard: str, against: str) -> bool:
        return holds(self.guard_value(guard, against))

    # -- clock and steps -----------------------------------------------------------------
    def advance(self, t: float, *, inclusive: bool = False) -> None:
        """Move the clock to `t`, firing every timer that expires before it (at `t` too
        when `inclusive`: the end of the run)."""
        while not self.deleted:
            due = [
                (at, name) for name, at in self.timers.items() if at < t or (inclusive and at == t)
            ]
            if not due:
                break
            at, name = min(due)
            self._tick_clock(at)
            del self.timers[name]
            self._timer(name)
        self._tick_clock(t)

    def _tick_clock(self, t: float) -> None:
        if (
            t > self.t
            and self.job_running
            and (self.state, self.activity)
            in (
                ("Claimed", "Busy"),
                ("Claimed", "Retiring"),
            )
        ):
            self.run_time += t - self.t
        self.t = max(self.t, t)

    def step(self, step: Step, index: int = -1) -> None:
        if self.deleted:
            return
        self._index, self._advancing = index, True
        self.advance(step.t)
        self._advancing = False
        match step.kind:
            case "tick":
                self.evaluate()
            case "set":
                for name, value in step.values.items():
                    self.machine[name] = value
                    self.set_at[name] = self.t
            case "set_job":
                if self.claim_job is not None:
                    self.claim_job.update(step.values)
            case "event":
                self.event(step.event or "", step.how, dict(step.job) if step.job else None)
            case _:
                raise ValueError(f"unknown step kind {step.kind!r}")

    def finish(self, index: int, end: float) -> None:
        """The run ends at `end`: timers due then fire (reported as step `index`)."""
        if not self.deleted:
            self._index, self._advancing = index, True
            self.advance(end, inclusive=True)

    # -- the contract of compiler.spec ---------------------------------------------------
    def evaluate(self) -> bool:
        pair = Pair(self.state, self.activity)
        for eval_step in self.spec.state(self.state).evaluation_order:
            if eval_step.source != pair:
                continue
            value = self.guard_value(eval_step.guard, eval_step.against)
            self.outcomes.add((eval_step.transition, eval_step.trigger, _tv(value)))
            if holds(value):
                row = self.spec.transition(eval_step.transition)
                self.fire(row, row.triggers[eval_step.trigger])
                return True
        return False

    def event(self, name: str, how: str | None, job: dict[str, Any] | None) -> None:
        pair = Pair(self.state, self.activity)
        # An omitted `how` is the HTCondor tool's default (the spec's `default_how`).
        how = next((e.with_default(how) for e in self.spec.events if e.name == name), how)
        if job is None and name in ("claim", "preempting_claim"):
            job = dict(self.job)
        self._pending_job = job
        wants_eval = False
        for effect in self.spec.event_effects:
            if effect.event != name or pair not in effect.sources:
                continue
            if effect.how and how not in effect.how:
                continue
            for action in effect.actions:
                if action.name == "evaluate":
                    wants_eval = True
                else:
                    self.act(action, job)
        for row in self.spec.transitions_from(pair):
            for trig in row.triggers:
                if trig.kind not in ("protocol", "command") or trig.name != name:
                    continue
                if trig.how and how not in trig.how:
                    continue
                if self._event_guard(trig, job):
                    self.fire(row, trig, job)
                    return
        if wants_eval:
            self.evaluate()

    _pending_job: dict[str, Any] | None = None
    _index: int = -1
    _advancing: bool = False

    def _event_guard(self, trig: Trigger, job: dict[str, Any] | None) -> bool:
        """A claim request's guard is tested against the request's own ad."""
        if trig.against == "job" and trig.name == "claim" and job is not None:
            return holds(self.guard_value(trig.guard, "job", job))
        return self.guard_holds(trig.guard, trig.against)

    def _timer(self, name: str) -> None:
        timer = self.spec.timer(name)
        for action in timer.on_expiry:
            self.act(action, None)
        pair = Pair(self.state, self.activity)
        for row in self.spec.transitions_from(pair):
            for trig in row.triggers:
                if trig.kind == "timer" and trig.name == name:
                    self.fire(row, trig)
                    return

    def fire(self, row: Transition, trig: Trigger, job: dict[str, Any] | None = None) -> None:
        source = (self.state, self.activity)
        for action in (*trig.actions, *row.actions):
            self.act(action, job)
        target = row.target
        activity = target.activity
        if target.is_wildcard:
            activity = trig.activity or self._choose(row)
        reason = trig.describe()
        self.fired.append(
            Fired(
                seq=len(self.fired) + 1,
                t=self.t,
                number=row.number,
                id=row.id,
                letter=row.letter,
                source=source,
                target=(target.state, activity),
                trigger=reason,
                reason=reason,
                step=self._index,
                advancing=self._advancing,
            )
        )
        if (target.state, activity) == source and row.source == row.target:
            return
        self._move(target.state, activity, job)

    def _choose(self, row: Transition) -> str:
        for choice in row.activity_choice:
            if holds(self.guard_value(choice.guard, choice.against)):
                return choice.activity
        raise RuntimeError(f"no activity choice holds for {row.id}")

    def _move(self, state: str, activity: str, job: dict[str, Any] | None) -> None:
        old_state = self.state
        pair_spec = self.spec.pair(Pair(self.state, self.activity))
        for action in pair_spec.on_exit:
            self.act(action, job)
        if state != old_state:
            for action in self.spec.state(old_state).on_exit:
                self.act(action, job)
        self.state, self.activity = state, activity
        if state != old_state:
            self.entered_state = self.t
        self.entered_activity = self.t
        if state != old_state:
            for action in self.spec.state(state).on_enter:
                self.act(action, job)
        new_pair = self.spec.pair(Pair(state, activity))
        for action in new_pair.on_enter:
            self.act(action, job)
        if self.deleted:
            return
        self._entered(job)

    def _entered(self, job: dict[str, Any] | None) -> None:
        new_pair = self.spec.pair(Pair(self.state, self.activity))
        for eval_step in new_pair.immediate:
            if self.guard_holds(eval_step.guard, eval_step.against):
                row = self.spec.transition(eval_step.transition)
                self.fire(row, row.triggers[eval_step.trigger])
                return
        if new_pair.evaluate_on_entry:
            self.evaluate()

    def act(self, action: Action, job: dict[str, Any] | None) -> None:
        arg = action.arg
        match action.name:
            case "start_timer":
                assert arg is not None
                if arg == "lease" and self.keepalive:
                    return  # the schedd keeps the claim alive; only lease_expired ends it
                self.timers[arg] = self.t + self._timer_length(arg)
            case "cancel_timer":
                self.timers.pop(arg or "", None)
            case "signal_job":
                pass
            case "start_job":
                pledge = self._number(self.spec.helpers.vacate.limit, self.claim_job)
                self.pledged = pledge
                self.job_running = True
                self._job_start = self.t
                self.run_time = 0
                self.activations += 1
                self.waiting_activation = False
            case "retire":
                if arg in ("irreversible", "peaceful"):
                    self.reversible = False
                if arg == "peaceful":
                    self.peaceful = True
            case "set_preempt_latch":
                if arg == "always" or self.guard_holds("PREEMPT", "job"):
                    self.latch = True
            case "register_preempting_claim":
                self.has_preempting = True
                self.preempting_job = dict(job or self._pending_job or self.job)
            case "withdraw_preempting_claim":
                self.has_preempting = False
                self.preempting_job = None
            case "accept_preempting_claim":
                self.claim_job = self.preempting_job
                self.has_preempting = False
                self.preempting_job = None
            case "begin_claim":
                self.claim_start = self.t
                self.activations = 0
                self.waiting_activation = self.draining
                if self.claim_job is None:
                    self.claim_job = dict(job or self._pending_job or self.job)
            case "clear_claim":
                self.claim_job = None
                self.job_running = False
                self.latch = False
                self.reversible = True
                self.peaceful = False
                self.claim_start = None
            case "reset_claim":
                self.latch = False
                self.reversible = True
                self.peaceful = False
            case "start_benchmarks":
                pass
            case "finish_benchmarks":
                self.last_benchmark = self.t
            case "reap_starter":
                self.job_running = False
            case "note_backfill_client":
                self.backfill_running = arg == "running"
            case "spawn_backfill_client" | "kill_backfill_client":
                pass  # the client's start and exit arrive as trace events
            case "set_destination":
                self.destination = arg
            case "clear_destination":
                self.destination = None
            case "start_draining":
                self.draining = True
                self.drain_how = arg
            case "stop_draining":
                self.draining = False
                self.drain_how = None
            case "delete_slot":
                self.deleted = True
            case "evaluate":
                self.evaluate()
            case _:
                raise ValueError(f"unknown action {action}")

    def _timer_length(self, name: str) -> float:
        if name == self.spec.helpers.vacate.limit:  # evalMaxVacateTime, not the bare knob
            return int(self._max_vacate(self._remaining()))
        if name in self.timer_values:
            return self.timer_values[name]
        if (
            name == "lease"
            and self.claim_job
            and isinstance(self.claim_job.get("JobLeaseDuration"), int)
        ):
            return int(self.claim_job["JobLeaseDuration"])
        default = self.spec.timer(name).default
        return int(default) if default is not None else 10**9


def _tv(value: Any) -> str:
    if value is UNDEFINED:
        return "U"
    if value is ERROR:
        return "E"
    return "T" if holds(value) else "F"


def run_reference(
    spec: EraSpec,
    policy: PolicyExprs,
    trace: Trace,
    *,
    timer_values: Mapping[str, int] | None = None,
) -> ReferenceSlot:
    """The reference slot after running `trace` (an explicit-polling trace: only `tick`
    steps evaluate); its `fired` holds every transition, `outcomes` every guard value."""
    slot = ReferenceSlot(
        spec,
        policy,
        dict(trace.machine),
        dict(trace.job),
        trace.idle_ages,
        dynamic=trace.slot == "dynamic",
        keepalive=trace.keepalive,
        timer_values=dict(timer_values or {}),
        initial=trace.initial,
    )
    slot.start()
    for index, step in enumerate(trace.steps):
        slot.step(step, index)
    if trace.steps:
        slot.finish(len(trace.steps), trace.steps[-1].t)
    return slot
