"""`runtime.Slot`: a compiled state table run live as a `transitions` machine (the facade).

Stage: runtime. The slot runs from its `StateTable` alone: the machine comes from
`compiler.machine.to_transitions(table)` (its states are the era's pairs, its conditions
the table's compiled predicates, its callbacks the spec's actions), and the knobs,
settings and published expressions from `table.program` (compiler.program); no
configuration is read here. The work is split in parts this facade wires together:

* `runtime.engine.Engine`: the spec's generic algorithm (compiler.spec module docstring),
  i.e. which triggers to pull and in which order: an evaluation pass walks the state's
  `evaluation_order` (steps of the current pair only, the first whose guard holds fires);
  entering a pair tries its `immediate` steps, else evaluates when the pair has
  `evaluate_on_entry`; an event pulls the protocol/command triggers named after it, a
  timer's expiry the timer triggers named after it;
* `runtime.ads`: the slot record (`SlotState`) and the pure effect of each spec action
  on it (`apply_action`);
* `runtime.slot_ad.AdBuilder`: the slot ad the guards see (MY);
* `runtime.timers`: running timers, the periodic evaluation, timer lengths;
* the clock (`runtime.clock`) and the sensors, given by the caller.

What stays here: the event protocol of `send` (JobRunning drops on job_exit/starter_exit;
the era's `event_effects` for E run, `evaluate` deferred; then the event's triggers, first
that fires wins; if none fired and an effect asked, evaluate), the outside effects of
actions (timers, signals, the job), the cascade of one instant (after every state change
the new pair's entry, at most MAX_CASCADE deep) and the `Fired` records.

Time: with `polling="auto"` the slot evaluates when the startd does (runtime.timers):
once at start-up, every UPDATE_INTERVAL from then on, and every POLLING_INTERVAL while
the polling timer runs (started and stopped after each evaluation by the era's fast
states and the Condor load). `advance(t)` moves the clock to trace time t, firing due
timers and evaluations in time order. Every fired row is a `Fired` record (its number,
letter, the guard and the values of its attributes) handed to the listener (the event
log) and kept in `fired`; every event is a `Handled` record in `handled`: the transition
it fired, or why it fired none (an ignored event is never dropped without a word).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from transitions import Machine

from compiler import CompiledGuard, IdentityMemo, StateTable, holds
from compiler.classad import ClassAd
from compiler.errors import PolicyError
from compiler.machine import enter_actions, pair_name, to_transitions, trigger_index
from compiler.spec import Action, Pair
from runtime.ads import (
    NO_AD,
    READS_MY,
    Env,
    SlotState,
    Unbuilt,
    account,
    apply_action,
    eval_context,
    policy_exprs,
    replaced,
    retirement_remaining,
)
from runtime.clock import SimClock
from runtime.engine import Engine
from runtime.fired import Fired, Handled, describe, guard_values, jsonable, num, show
from runtime.sensors.fake import FakeSensors
from runtime.slot_ad import AdBuilder, reads_my
from runtime.timers import POLL, UPDATE, Schedule, timer_seconds

Listener = Callable[[dict[str, Any]], None]
#: Longest chain of transitions one instant may cause before we call it a loop.
MAX_CASCADE = 64


_UNSET = object()

#: job ads a slot keeps as ClassAds (`Slot.classad`)
_JOB_ADS_KEPT = 8


class SlotError(PolicyError):
    """A runtime problem with the input (unknown event, a cascade that never ends);
    `slot`: the slot it happened in (a simulator of many names it by that)."""

    def __init__(self, message: str, *, slot: Slot | None = None, **where: Any) -> None:
        super().__init__(message, **where)
        self.slot = slot


def endless_cascade(fired: list[Fired], t: float) -> str:
    """What a cascade (`fired`: its transitions) that went MAX_CASCADE transitions deep
    without settling repeats:
    the shortest run of transitions its last ones are made of, each with its number and
    trigger (an admin's policy loops so when a guard reads what the transitions change:
    `START = State == "Owner"` in 6.8, where entering Owner re-checks IS_OWNER, which is
    START =?= False, and entering Unclaimed/Idle evaluates again at once)."""
    steps = [(f.source, f.target, f.number, f.trigger) for f in fired]
    cycle = steps[-12:]
    for period in range(1, len(steps) // 2 + 1):
        if steps[-period:] == steps[-2 * period : -period]:
            cycle = steps[-period:]
            break
    # told from the pair the cascade left first, when the run passes through it
    first = next((k for k, step in enumerate(cycle) if step[0] == steps[0][0]), 0)
    cycle = cycle[first:] + cycle[:first]
    shown = ", then ".join(
        f"{'/'.join(source)} -> {'/'.join(target)} (#{number}, {trigger})"
        for source, target, number, trigger in cycle
    )
    return (
        f"transitions do not settle at t={num(t)}: {shown}, again and again (a guard "
        "reads what these transitions change, such as State or Activity)"
    )


class _Model:
    """The object `transitions` drives (keeps its helpers off the Slot)."""

    pair_name: str


class JobControl(Protocol):
    """What a slot asks of a real job (runtime.jobs.JobProcess implements it)."""

    def start(self, job: Mapping[str, Any]) -> None: ...

    def signal(self, kind: str) -> None: ...


class _Context:
    """The `GuardContext` passed to every trigger of one instant (compiler.machine).

    `tested` (while `Slot._fire` asks whether a trigger can fire at all) records each
    guard test's outcome in order; the machine, pulled only when one of its transitions
    will pass, makes the same tests in the same order and is handed the recorded
    outcomes (`replay`), so no guard is evaluated twice.

    Nor twice in one pass: the table's transitions out of a pair often begin with the
    same guard (Claimed/Busy's four retirement choices each test `InRetirement &&
    RetirementExpired` first), and a guard tested before any action, against the same
    record, pair and instant, reads the same ads (`AdBuilder.current`'s of that
    instant, the same target): its outcome is kept (`found`) and told again, as
    the startd evaluates such an expression once per pass.
    """

    __slots__ = ("found", "found_at", "job", "last", "replay", "slot", "supposed", "tested")

    def __init__(self, slot: Slot, job: Mapping[str, Any] | None) -> None:
        self.slot = slot
        self.job = job
        self.last: list[tuple[CompiledGuard, bool, Any, Any]] = []
        self.tested: list[tuple[bool, Any, Any]] | None = None
        self.replay: Iterator[tuple[bool, Any, Any]] | None = None
        #: the last record supposed after actions, with its ad (`supposed`)
        self.supposed: tuple[Any, ...] | None = None
        #: the outcomes of the guards tested before any action (with the ad and target
        #: they were tested in) by guard (its id: the table holds it) and context, for
        #: the record, pair and instant `found_at`
        self.found: dict[tuple[int, str], tuple[bool, Any, Any]] = {}
        self.found_at: tuple[Any, Any, float] | None = None

    def target(self, against: str, state: SlotState) -> Any:
        match against:
            case "local":
                return None
            case "job":
                job = self.job if self.job is not None else state.job
                return None if job is None else self.slot.classad(job)
            case "preempting_job":
                pre = state.preempting_job
                return None if pre is None else self.slot.classad(pre)
            case _:
                raise ValueError(f"unknown guard context {against!r}")

    def test(
        self, guard: CompiledGuard, against: str, after: tuple[Action, ...] | None = None
    ) -> bool:
        if self.replay is not None:
            ok, my, target = next(self.replay)
        else:
            slot = self.slot
            now = slot.clock.now()
            if after is None:
                state, pair = slot.record, slot.pair
                at = self.found_at
                if at is None or at[0] is not state or at[1] is not pair or at[2] != now:
                    self.found = {}
                    self.found_at = (state, pair, now)
                hit = self.found.get((id(guard), against))
                if hit is not None:
                    ok, my, target = hit
                else:
                    if against == "job":  # self.target, inline: the common case of a poll
                        job = self.job if self.job is not None else state.job
                        target = None if job is None else slot.classad(job)
                    else:
                        target = self.target(against, state)
                    my = slot.ads.current(state, pair, now, slot.overrides, guard.expr, target)
                    ok = holds(guard.predicate(my, target, ctx=eval_context(now)))
                    self.found[id(guard), against] = (ok, my, target)
            else:
                state, my = self._supposed(after, now)
                target = self.target(against, state)
                ok = holds(guard.predicate(my, target, ctx=eval_context(now)))  # guard.test
            if self.tested is not None:
                self.tested.append((ok, my, target))
        if ok:
            self.last.append((guard, after is not None, my, target))
        return ok

    def _supposed(self, after: tuple[Action, ...], now: float) -> tuple[SlotState, Any]:
        """The record as `after` would leave it and its ad now: the guards of one choice
        of activity are tested after the same actions, each of which built the same ad
        (a retiring slot's three, at every pass)."""
        slot = self.slot
        record, pair = slot.record, slot.pair
        hit = self.supposed
        if (
            hit is not None
            and hit[0] is record
            and hit[1] == pair
            and hit[2] == now
            and hit[3] == after
        ):
            return hit[4], hit[5]
        state = slot.hypothetical(after, self.job)
        my = slot.eval_ad(state)
        self.supposed = (record, pair, now, after, state, my)
        return state, my

    def perform(self, actions: tuple[Action, ...], phase: str) -> None:
        self.slot.perform(actions, self.job)


class Slot:
    """One startd slot driven by a compiled table (DESIGN.md `runtime.Slot` contract)."""

    def __init__(
        self,
        table: StateTable,
        sensors: Any = None,
        clock: Any = None,
        *,
        slot_id: int = 1,
        job: Mapping[str, Any] | None = None,
        jobs: JobControl | None = None,
        listener: Listener | None = None,
        dynamic: bool = False,
        keepalive: bool = True,
        polling: str = "auto",
        initial: tuple[str, str] | None = None,
        listen: Collection[str] | None = None,
        explain: bool = True,
    ) -> None:
        self.table = table
        self.spec = table.spec
        self.clock = clock if clock is not None else SimClock()
        self.sensors = sensors if sensors is not None else FakeSensors(start=self.clock.now())
        parts = _table_parts(table)
        self.policy = parts.policy
        self.slot_id = slot_id
        self.request_job: dict[str, Any] = dict(job or {})
        self.jobs = jobs
        self.listener = listener
        #: the kinds of event-log records handed to the listener (None: every kind): a
        #: caller that reads some only (the simulator: the transitions) spares the
        #: others' making (a job's ad made JSON at every start, ...)
        self.listen = None if listen is None else frozenset(listen)
        #: whether a fired transition carries its reason text and the values its guards
        #: read (`Fired.reason`, `.values`, and the transition record's); False: "" and
        #: {} (the simulator reads neither: making them was 3 % of a simulation)
        self.explain = explain
        self.keepalive = keepalive
        self.polling = polling
        self.overrides: dict[str, Any] = {"DynamicSlot": dynamic}
        #: The era's predicates by lower-case name: what a `set` or the machine may force.
        self._predicate_names = {p.name.lower(): p.name for p in self.spec.predicates}
        states = parts.kwargs["states"]
        if initial is not None and pair_name(initial) not in states:
            known = ", ".join(states)
            raise SlotError(f"initial {pair_name(initial)} is not a pair of {table.era}: {known}")
        self._model = _Model()
        self._pairs: dict[str, Pair] = {}
        # one machine per table, every slot of it a model of that machine: its states,
        # events and transitions exist once (a pool of thousands of slots runs one
        # policy); the conditions and callbacks take the slot's context as an argument
        # (not `add_model`: that would give the model a method per trigger, hundreds of
        # them, where the slot pulls its triggers by name from the machine's events)
        self.machine = parts.machine()
        self._model.pair_name = (
            pair_name(initial) if initial is not None else parts.kwargs["initial"]
        )
        self._triggers = parts.triggers
        self._options = parts.options
        self.engine = parts.engine
        now = self.clock.now()
        self.record = SlotState(entered_state=now, entered_activity=now, stint_start=now)
        self.schedule = Schedule()
        if polling == "auto":
            self.schedule.update_due = self.clock.elapsed() + self.engine.intervals()[1]
        self.fired: list[Fired] = []
        self.handled: list[Handled] = []
        self.seq = 0
        self.evaluations = 0
        #: (instant, record, pair name) of the last evaluation pass that fired nothing:
        #: another pass then would fire nothing either (runtime.simulate.horizon trusts
        #: it; a pair entered by an event or an immediate step has had no pass yet)
        self.settled: tuple[float, SlotState, str] | None = None
        #: periodic evaluations passed over by `skip_evaluations`
        self.skipped = 0
        self._depth = 0
        self._claim_request: Mapping[str, Any] | None = None
        self._job_ads: IdentityMemo[Mapping[str, Any], ClassAd] = IdentityMemo(_JOB_ADS_KEPT)
        self.published = dict(table.program.published)
        self.ads = AdBuilder(
            self.spec,
            self.policy,
            self.published,
            self.sensors,
            self._log,
            slot_id=slot_id,
            cpu_busy=(False, None, now),
        )

    # ------------------------------------------------------------------ public view
    @property
    def model(self) -> Any:
        """The `transitions` model the slot's machine drives: its `pair_name` is the
        slot's "State/Activity" now (one attribute away, for a simulator counting
        thousands of slots at every negotiation cycle)."""
        return self._model

    @property
    def pair(self) -> Pair:
        name = self._model.pair_name
        pair = self._pairs.get(name)
        if pair is None:
            state, activity = name.split("/", 1)
            pair = self._pairs[name] = Pair(state, activity)
        return pair

    @property
    def state(self) -> str:
        return self.pair.state

    @property
    def activity(self) -> str:
        return self.pair.activity

    @property
    def ad(self) -> ClassAd:
        """The slot ad the guards see now: published attributes plus the predicates (a
        copy: the slot refreshes its own ad in place at later instants)."""
        return self.eval_ad().copy()

    @property
    def deleted(self) -> bool:
        return self.record.deleted

    @property
    def timers(self) -> Mapping[str, float]:
        """Running timers: name -> trace time due."""
        return self.schedule.due

    def start(self) -> None:
        """Enter the initial pair as the startd does at start-up (its immediate steps)."""
        self._log(
            {
                "kind": "start",
                "state": list(self.pair_tuple()),
                "era": self.table.era,
                "semantics": self.table.semantics,
                "policy": self.table.source,
            }
        )
        self._depth = 0
        self._entered(_Context(self, None))
        if self.polling == "auto":
            # ResMgr::start_update_timer: update_all() at once, then every UPDATE_INTERVAL.
            self._periodic(UPDATE)

    def forget_history(self) -> None:
        """Drop what fired and how events were handled so far (`fired`, `handled`): a
        caller that logs them itself as they happen (the listener) and runs for days
        keeps its memory flat. Between events only: an event reads its own entries."""
        self.fired.clear()
        self.handled.clear()

    def pair_tuple(self) -> tuple[str, str]:
        p = self.pair
        return (p.state, p.activity)

    def poll(self) -> bool:
        """One evaluation pass now (sensors read afresh), as the startd's `eval_all`: then,
        with automatic polling, the polling timer is started or stopped
        (`ResMgr::check_polling`). True if a transition fired."""
        self._depth = 0
        self.schedule.last_eval = self.clock.elapsed()
        self._invalidate()
        fired = self._evaluate(_Context(self, None))
        self._check_polling()
        return fired

    def send(self, event: str, **payload: Any) -> bool:
        """Deliver a protocol event or command (DESIGN.md event names). True if one fired.

        An omitted `how` is the HTCondor tool's default (the spec's `default_how`). What
        the event did is appended to `handled`: the transition it fired, or why none."""
        known = self.engine.known_events
        if event not in known:
            raise SlotError(
                f"unknown event {event!r} (known: {', '.join(sorted(known))})", file="<event>"
            )
        given = payload.get("how")
        if given is not None and known[event].how and given not in known[event].how:
            raise SlotError(f"event {event}: how must be one of {', '.join(known[event].how)}")
        how = known[event].with_default(given)
        defaulted = given is None and how is not None
        job = payload.get("job")
        self._depth = 0
        if self._heard("event"):
            record: dict[str, Any] = {"kind": "event", "event": event}
            if how:
                record["how"] = how
            if defaulted:
                record["how_default"] = True
            self._log(record)
        pair = self.pair
        after = self.seq
        base = len(self.fired)  # (a caller may have forgotten the history: not `after`)

        def handled(fired: int | str | None, reason: str) -> None:
            outcome = Handled(
                after,
                self.clock.elapsed(),
                event,
                how,
                defaulted,
                (pair.state, pair.activity),
                fired,
                reason,
            )
            self.handled.append(outcome)
            if fired is None and self._heard("ignored"):
                self._log(
                    {
                        "kind": "ignored",
                        "event": event,
                        **({"how": how} if how else {}),
                        "state": [pair.state, pair.activity],
                        "reason": reason,
                    }
                )

        match event:
            case "claim" | "match":
                job = dict(job) if job is not None else dict(self.request_job)
                self._claim_request = job
            case "preempting_claim":
                job = dict(job) if job is not None else dict(self.request_job)
                refused = self._refused(job)
                if refused:
                    handled(None, refused)
                    return False
            case _:
                job = None
        self._invalidate()
        ctx = _Context(self, job)
        before = self.record
        evaluate = False
        effects: list[str] = []
        for effect in self.spec.event_effects:
            if effect.event != event or pair not in effect.sources:
                continue
            if effect.how and how not in effect.how:
                continue
            evaluate = evaluate or any(a.name == "evaluate" for a in effect.actions)
            actions = tuple(a for a in effect.actions if a.name != "evaluate")
            effects += [str(a) for a in actions]
            self.perform(actions, job)
        candidates = self.engine.event_triggers(pair, event, how)
        for name in candidates:
            if self._fire(name, ctx):
                handled(self.fired[base].number, "")
                return True
        ran = f"its effects ran ({', '.join(effects)})" if self.record != before else ""
        if evaluate:
            first = len(self.fired)
            if self._evaluate(_Context(self, None)):
                number = self.fired[first].number
                asked = f"the evaluation it asks for fires #{number}"
                handled(number, f"{ran}; {asked}" if ran else asked)
                return True
        why = [self._why_not(pair, event, how, candidates, job), ran]
        if evaluate:
            why.append("the evaluation it asks for fires nothing")
        handled(None, "; ".join(w for w in why if w))
        return False

    def _why_not(
        self,
        pair: Pair,
        event: str,
        how: str | None,
        candidates: tuple[str, ...],
        job: Mapping[str, Any] | None,
    ) -> str:
        """Why `event` (with `how`) fired no transition in `pair`: no row takes it, only
        with another `how`, or the guards of the rows that take it are not TRUE."""
        if not candidates:
            others = sorted(
                {h for _, hows in self.engine.events.get((pair, event), ()) for h in hows}
            )
            if others:
                return f"no transition from {pair} takes {event}({how}), only " + ", ".join(
                    f"{event}({h})" for h in others
                )
            return f"no transition from {pair} takes {event}"
        my = self.eval_ad()
        owner = job if job is not None else self.record.job
        target = None if owner is None else self.classad(owner)
        parts = []
        for name in candidates:
            row, index = self._triggers[name]
            guard = row.triggers[index]
            text = "TRUE" if guard is None else guard.simplified
            values = guard_values(text, my, target)
            shown = ", ".join(f"{k}={show(v)}" for k, v in values.items())
            parts.append(f"#{row.number} needs {text}" + (f" [{shown}]" if shown else ""))
        return "not TRUE: " + "; ".join(parts)

    def _refused(self, job: Mapping[str, Any]) -> str:
        """request_claim: a preempting claim whose RANK is below the current claim's is
        refused (higher = machine-rank preemption, equal = user-priority preemption); the
        reason, or "" when it is accepted."""
        if self.record.job is None:
            return ""
        now = self.clock.now()
        rank = self.policy.number("RANK", self.eval_ad(), self.classad(job), now) or 0.0
        if rank >= self.record.current_rank:
            return ""
        reason = (
            f"preempting claim refused: RANK {rank:g} < CurrentRank {self.record.current_rank:g}"
        )
        self._log({"kind": "note", "note": reason})
        return reason

    def set_sensors(self, values: Mapping[str, Any]) -> None:
        """A trace's `set:` step (fake sensors only); predicates may be overridden too."""
        names = self._predicate_names
        overrides = {names[k.lower()]: v for k, v in values.items() if k.lower() in names}
        self.overrides.update(overrides)
        rest = {k: v for k, v in values.items() if k.lower() not in names}
        changed = self.sensors.set(rest, self.clock.now()) if rest else {}
        if self._heard("sensor"):
            for name, value in {**changed, **overrides}.items():
                self._log({"kind": "sensor", "name": name, "value": jsonable(value)})
        self._invalidate()

    def set_from_machine(self, values: Mapping[str, Any]) -> None:
        """What the machine around this slot decides, set by `runtime.startd.Startd`
        before each of this slot's evaluations, silently (unlike a trace's `set:`): the
        predicate `AllSlotsDrained` (`ResMgr::drainingIsComplete`) and the other slots'
        attributes the startd copies into every slot ad (`slot<N>_<attr>` for
        STARTD_SLOT_ATTRS: `Resource::publish_SlotAttrs`); a predicate given as None is
        the slot's own again (RetirementExpired outside a coordinated drain)."""
        names = self._predicate_names
        changed = False
        rest: dict[str, Any] = {}
        for key, value in values.items():
            name = names.get(key.lower())
            if name is None:
                rest[key] = value
            elif value is None:  # the machine no longer decides it: the slot's own value
                changed = self.overrides.pop(name, _UNSET) is not _UNSET or changed
            elif self.overrides.get(name, _UNSET) != value:
                self.overrides[name] = value
                changed = True
        if rest and self.sensors.set(rest, self.clock.now()):
            changed = True
        if changed:
            self._invalidate()

    def created(self, job: Mapping[str, Any], *, draining: str | None = None) -> None:
        """Start a slot that another slot's claim made, already in its initial pair: a
        dynamic slot carved out of a partitionable one for `job` (23.0 command.cpp
        `request_claim` -> Resource.cpp `create_dslot`: the new Resource starts in
        Owner/Idle and `accept_request_claim` moves it to Claimed at once, with no
        policy evaluation between). The entry actions of the initial pair as from
        Owner/Idle (the claim begins, its lease timer starts), then the entry steps.
        `draining`: the machine drains (`ResMgr::isDraining` is the startd's), so the
        slot is draining before its claim begins (the claim then waits for activation)."""
        self.request_job = dict(job)
        if draining is not None:
            self.perform((Action("start_draining", draining),), None)
        self._log(
            {
                "kind": "created",
                "state": list(self.pair_tuple()),
                "era": self.table.era,
                "semantics": self.table.semantics,
                "job": jsonable(job),
            }
        )
        self.perform(enter_actions(self.spec, Pair("Owner", "Idle"), self.pair), job)
        self._depth = 0
        self._entered(_Context(self, None))

    def set_job(self, values: Mapping[str, Any]) -> None:
        """A trace's `set_job:` step: change attributes of the running job's ad."""
        if self.record.job is None:
            raise SlotError("set_job: the slot has no job")
        self.record = replaced(self.record, job={**self.record.job, **values})
        if self._heard("set_job"):
            self._log({"kind": "set_job", "values": {k: jsonable(v) for k, v in values.items()}})
        self._invalidate()

    def advance(self, t: float, *, inclusive: bool = True) -> None:
        """Move the clock to trace time `t`, firing due timers and periodic evaluations."""
        while True:
            due, what = self._next_due()
            if self.deleted or due is None or due > t or (due == t and not inclusive):
                break
            self.clock.advance_to(due)
            self._invalidate()
            self._depth = 0
            if what in (UPDATE, POLL):
                self._periodic(what)
            else:
                self._expire(what)
        if t != self.clock.elapsed():
            self.clock.advance_to(t)
            self._invalidate()

    def skip_evaluations(self, before: float) -> int:
        """Pass over the periodic evaluations (UPDATE_INTERVAL, POLLING_INTERVAL) due
        before trace time `before` without running them, for a caller that knows they
        would fire nothing and that nothing reached the slot since the first of them
        (runtime.simulate.horizon): that first one still starts or stops the polling
        timer as its `ResMgr::check_polling` would (what decides it has not changed),
        and the timers keep their phase, the next one due where the skipped ones would
        have put it. Returns how many evaluations were passed over."""
        plan = self._skipping(before)
        if plan is None:
            return 0
        s = self.schedule
        s.update_due, s.poll_due, s.last_eval, count = plan
        self.skipped += count
        return count

    def next_due_skipping(self, before: float) -> float | None:
        """`next_due()` as it will be once the evaluations before `before` are skipped
        (nothing changes now: the caller skips them when it next touches the slot)."""
        plan = self._skipping(before)
        if plan is None:
            return self.next_due()
        update, poll, _, _ = plan
        dues = [d for d in (update, poll, *self.schedule.due.values()) if d is not None]
        return min(dues) if dues else None

    def _skipping(self, before: float) -> tuple[float | None, float | None, float, int] | None:
        """(update_due, poll_due, last evaluation, count) after skipping the periodic
        evaluations due before `before`; None when there are none to skip."""
        s = self.schedule
        dues = [d for d in (s.update_due, s.poll_due) if d is not None and d < before]
        if not dues or self.polling != "auto":
            return None
        first = min(dues)
        polling, update = self.engine.intervals()
        update_due, poll_due = s.update_due, s.poll_due
        if self.engine.needs_polling(self.pair, self._condor_load):
            if poll_due is None:
                poll_due = first + polling
        else:
            poll_due = None
        count = 0
        last = first
        if update_due is not None and update_due < before:
            n = math.ceil((before - update_due) / update)
            last = max(last, update_due + (n - 1) * update)
            update_due += n * update
            count += n
        if poll_due is not None and poll_due < before:
            n = math.ceil((before - poll_due) / polling)
            last = max(last, poll_due + (n - 1) * polling)
            poll_due += n * polling
            count += n
        return update_due, poll_due, last, count

    def next_due(self) -> float | None:
        """Trace time of the next timer or periodic evaluation (None: nothing scheduled)."""
        return self._next_due()[0]

    # ---------------------------------------------------------------- guard support
    def guard_target(self, against: str) -> Any:
        """The ad a guard of the table's context `against` ("local", "job",
        "preempting_job") is evaluated against at an evaluation pass now (None: none)."""
        return _Context(self, None).target(against, self.record)

    def classad(self, job: Mapping[str, Any]) -> ClassAd:
        """A job ad as a (cached) ClassAd, so that scopes are reused across guards (a few
        kept: a slot holds a job, a preempting one and a request; a pool of 10,000 slots
        must not hold dozens each)."""
        hit = self._job_ads.get(job)
        if hit is not None:
            return hit
        return self._job_ads.put(job, job if isinstance(job, ClassAd) else ClassAd(job))

    def retirement_left(self) -> float:
        """Seconds of retirement the running job has left (`Resource::
        evalRetirementRemaining`; 0 without a running job)."""
        return retirement_remaining(
            self.record, self.pair, self.clock.now(), self.policy, self.eval_ad(),
            self.spec.helpers.retirement,
        )  # fmt: skip

    def eval_ad(self, state: SlotState | None = None) -> ClassAd:
        """MY for the guards: the published ad plus the predicates (runtime.slot_ad); the
        slot's own ad is cached per instant, one for another `state` is built afresh."""
        now = self.clock.now()
        if state is None:
            return self.ads.current(self.record, self.pair, now, self.overrides)
        return self.ads.build(state, self.pair, now, self.overrides)

    def hypothetical(self, actions: tuple[Action, ...], job: Mapping[str, Any] | None) -> SlotState:
        """The record as `actions` would leave it (for the activity choice)."""
        state = self.record
        env = self._env(job)
        for action in actions:
            state = apply_action(state, action, env)
        return state

    def perform(self, actions: tuple[Action, ...], job: Mapping[str, Any] | None) -> None:
        """Run spec actions: the record's change, then the outside effect."""
        for action in actions:
            # the slot's ad only for an action that may read it (`runtime.slot_ad.reads_my`);
            # one of READS_MY whose expressions read nothing gets an empty one
            env = self._env(
                job,
                my=reads_my(action, self.spec, self.policy),
                unread=NO_AD if action.name in READS_MY else None,
            )
            self.record = apply_action(self.record, action, env)
            self._invalidate()
            self._effect(action)

    # ---------------------------------------------------------------- internals
    def _env(
        self,
        job: Mapping[str, Any] | None,
        my: bool = True,
        unread: Mapping[str, Any] | None = None,
    ) -> Env:
        """The action's environment; `my`: with the slot's ad now (else `unread`, or
        `Unbuilt`)."""
        payload = job if job is not None else self._claim_request
        if payload is None:
            payload = self.request_job
        ad = self.eval_ad() if my else (unread if unread is not None else Unbuilt())
        return Env(self.clock.now(), self.spec, self.policy, ad, payload)

    def _effect(self, action: Action) -> None:
        now = self.clock.now()
        match action.name:
            case "start_timer":
                name = str(action.arg)
                duration = timer_seconds(
                    name, self.spec, self.policy, self.record, self.pair, now, self.eval_ad
                )
                if duration is None or (name == "lease" and self.keepalive):
                    return
                self.schedule.start(name, self.clock.elapsed() + duration)
                self._log({"kind": "timer", "timer": name, "op": "start", "seconds": duration})
            case "cancel_timer":
                if self.schedule.cancel(str(action.arg)):
                    self._log({"kind": "timer", "timer": action.arg, "op": "cancel"})
            case "signal_job":
                self._log({"kind": "signal", "signal": action.arg})
                if self.jobs is not None and self.record.job_running:
                    self.jobs.signal(str(action.arg))
            case "start_job":
                if self._heard("job"):
                    self._log({"kind": "job", "op": "start", "job": jsonable(self.record.job)})
                if self.jobs is not None:
                    self.jobs.start(dict(self.record.job or {}))
            case "spawn_backfill_client" | "kill_backfill_client" | "delete_slot":
                self._log({"kind": "action", "action": str(action)})
            case _:
                pass

    def _evaluate(self, ctx: _Context) -> bool:
        self.evaluations += 1
        if self.record.requirements_hidden:
            self.record = replaced(self.record, requirements_hidden=False)
            self._invalidate()
        fired = any(self._fire(name, ctx) for name in self.engine.evaluation_pass(self.pair))
        if not fired:
            self.settled = (self.clock.now(), self.record, self._model.pair_name)
        return fired

    def _fire(self, name: str, ctx: _Context) -> bool:
        ctx.last.clear()
        options = self._options.get((name, self._model.pair_name))
        if options is not None:
            # Ask first (as the machine would: transitions in order, conditions in
            # order, the first whose conditions all hold wins); pull the machine only
            # when one will pass, replaying the recorded outcomes to its tests.
            tested: list[tuple[bool, Any, Any]] = []
            ctx.tested = tested
            try:
                passes = _any_passes(options, ctx)
            finally:
                ctx.tested = None
            if not passes:
                return False
            if tested or not self.ads.latch_alike():
                # the ads the guards saw filled in (for the record and actions); with no
                # guard seen, an ad nothing reads is not built (the actions that read the
                # slot's ad build it), unless the CpuBusy latch could tell
                self.eval_ad()
            ctx.last.clear()
            ctx.replay = iter(tested)
            try:
                return self._pull(name, ctx)
            finally:
                ctx.replay = None
        return self._pull(name, ctx)

    def _pull(self, name: str, ctx: _Context) -> bool:
        """Pull trigger `name` on the machine; a fired transition is recorded and the
        new pair entered."""
        old = self.pair
        event = self.machine.events.get(name)
        if event is None:
            raise AttributeError(f"Do not know event named '{name}'.")
        fired = event.trigger(self._model, ctx)
        if not fired:
            return False
        new = self.pair
        now = self.clock.now()
        if new != old:
            self.record = account(self.record, old, new, now)
        self._invalidate()
        self._record(name, old, new, ctx)
        if new != old:
            self._depth += 1
            if self._depth > MAX_CASCADE:
                cascade = self.fired[-self._depth :]
                raise SlotError(endless_cascade(cascade, self.clock.elapsed()), slot=self)
            self._entered(_Context(self, None))
        return True

    def _entered(self, ctx: _Context) -> None:
        if self.pair in self.spec.polling.start_on_entry:
            self._start_polling()
        entry = self.engine.on_entry(self.pair)
        if any(self._fire(name, ctx) for name in entry.immediate):
            return
        if entry.evaluate:
            self._evaluate(ctx)

    def _expire(self, name: str) -> None:
        self.schedule.cancel(name)
        self._log({"kind": "timer", "timer": name, "op": "expired"})
        try:
            timer = self.spec.timer(name)
        except KeyError:
            return
        ctx = _Context(self, None)
        self.perform(timer.on_expiry, None)
        for trigger in self.engine.timer_triggers(self.pair, name):
            if self._fire(trigger, ctx):
                return

    def _next_due(self) -> tuple[float | None, str]:
        return self.schedule.next_due()

    def _periodic(self, what: str) -> None:
        """The startd's update (`eval_and_update_all`) or polling (`eval_all`) timer
        fires: its next time is set, then one evaluation pass runs (`poll`)."""
        polling, update = self.engine.intervals()
        now = self.clock.elapsed()
        if what == UPDATE:
            self.schedule.update_due = now + update
        else:
            self.schedule.poll_due = now + polling
        self.poll()

    def _check_polling(self) -> None:
        """`ResMgr::check_polling`: start the polling timer (first evaluation one
        POLLING_INTERVAL from now) when the slot needs polling, stop it when not."""
        if self.polling != "auto" or self.deleted:
            return
        if self.engine.needs_polling(self.pair, self._condor_load):
            self._start_polling()
        elif self.schedule.poll_due is not None:
            self.schedule.poll_due = None
            self._log({"kind": "timer", "timer": POLL, "op": "cancel"})

    def _start_polling(self) -> None:
        """`ResMgr::start_poll_timer`: the first polling evaluation one POLLING_INTERVAL
        from now, unless the timer already runs."""
        if self.polling != "auto" or self.schedule.poll_due is not None:
            return
        seconds = self.engine.intervals()[0]
        self.schedule.poll_due = self.clock.elapsed() + seconds
        self._log({"kind": "timer", "timer": POLL, "op": "start", "seconds": seconds})

    def _condor_load(self) -> Any:
        return self.ads.read_sensors(self.clock.now()).get("CondorLoadAvg", 0)

    def _invalidate(self) -> None:
        self.ads.invalidate()

    def _record(self, name: str, old: Pair, new: Pair, ctx: _Context) -> None:
        row, index = self._triggers[name]
        trig = row.transition.triggers[index]
        reason, values = describe(trig, ctx.last, new.activity) if self.explain else ("", {})
        self.seq += 1
        fired = Fired(
            seq=self.seq,
            t=self.clock.elapsed(),
            number=row.number,
            id=row.id,
            letter=row.letter,
            source=(old.state, old.activity),
            target=(new.state, new.activity),
            trigger=trig.describe(),
            reason=reason,
            values=values,
        )
        self.fired.append(fired)
        self._log(
            {
                "kind": "transition",
                "seq": fired.seq,
                "number": fired.number,
                "letter": fired.letter,
                "from": list(fired.source),
                "to": list(fired.target),
                "trigger": fired.trigger,
                "reason": fired.reason,
                "values": {k: jsonable(v) for k, v in values.items()},
            }
        )

    def _heard(self, kind: str) -> bool:
        """Whether the listener is given records of `kind` (`listen`)."""
        return self.listener is not None and (self.listen is None or kind in self.listen)

    def _log(self, record: dict[str, Any]) -> None:
        if self._heard(record["kind"]):
            assert self.listener is not None
            self.listener({"t": num(self.clock.elapsed()), **record})


def _any_passes(options: tuple[tuple[Callable[[Any], bool], ...], ...], ctx: _Context) -> bool:
    """Whether the conditions of one of `options` all hold, tested as the machine tests
    them: option by option, condition by condition, stopping at the first that fails."""
    for conditions in options:
        for condition in conditions:
            if not condition(ctx):
                break
        else:
            return True
    return False


@dataclass(frozen=True, slots=True)
class _TableParts:
    """What every slot of one table shares, made once per table: the machine's keyword
    arguments, the trigger index and options, the engine and the compiled expressions
    (a pool of thousands of slots runs one policy)."""

    kwargs: Mapping[str, Any]
    triggers: Mapping[str, Any]
    options: Mapping[tuple[str, str], tuple[tuple[Callable[[Any], bool], ...], ...]]
    engine: Engine
    policy: Any
    _machine: list[Machine] = field(default_factory=list)

    def machine(self) -> Machine:
        """The table's `transitions.Machine` (made at first use, without a model)."""
        if not self._machine:
            kwargs = dict(self.kwargs)
            # transitions takes its transition dicts apart: fresh ones (the callables in
            # them are the table's)
            kwargs["transitions"] = [dict(t) for t in self.kwargs["transitions"]]
            self._machine.append(Machine(model=[], model_attribute="pair_name", **kwargs))
        return self._machine[0]


_PARTS: IdentityMemo[StateTable, _TableParts] = IdentityMemo(64)


def _table_parts(table: StateTable) -> _TableParts:
    hit = _PARTS.get(table)
    if hit is not None:
        return hit
    kwargs = to_transitions(table)
    parts = _TableParts(
        MappingProxyType(kwargs),
        trigger_index(table),
        _trigger_options(kwargs["transitions"]),
        Engine.for_table(table),
        policy_exprs(table.program),
    )
    return _PARTS.put(table, parts)


def _trigger_options(
    transitions: list[dict[str, Any]],
) -> dict[tuple[str, str], tuple[tuple[Callable[[Any], bool], ...], ...]]:
    """(trigger, source state) -> the condition lists of its machine transitions, in
    the order the machine tries them (`compiler.machine.to_transitions` output)."""
    options: dict[tuple[str, str], list[tuple[Callable[[Any], bool], ...]]] = {}
    for spec in transitions:
        key = (spec["trigger"], spec["source"])
        options.setdefault(key, []).append(tuple(spec["conditions"]))
    return {key: tuple(value) for key, value in options.items()}
