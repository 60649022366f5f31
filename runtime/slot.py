"""`runtime.Slot`: a compiled state table run live as a `transitions` machine.

Stage: runtime. The machine comes from `StateTable.to_transitions()` (compiler.machine):
its states are the era's pairs, its conditions the table's compiled predicates, its
callbacks the spec's actions. This module only follows the generic algorithm the spec
documents (compiler.spec module docstring) to decide which trigger to pull:

* evaluation pass: walk the state's `evaluation_order`, steps of the current pair only;
  the first trigger whose guard holds fires;
* event E: the era's `event_effects` for E run, the event's own effects first (base.yaml
  `effects`: job_exit/starter_exit reap the starter, ...; `evaluate` deferred); then the
  protocol/command triggers named E from the current pair, in row order (first that
  fires wins); if none fired and an effect asked, evaluate;
* timer T: its `on_expiry` actions, then the first timer trigger named T;
* after every state change, in the same instant: the new pair's `immediate` steps, else
  an evaluation pass when the pair has `evaluate_on_entry`.

Time: `advance(t)` moves the clock to trace time t, firing due timers and the periodic
evaluation (POLLING_INTERVAL while the state is one of the era's fast states or Condor
load is positive, UPDATE_INTERVAL otherwise) in time order. Every fired row is a `Fired`
record (its number, letter, the guard and the values of its attributes) handed to the
listener (the event log) and kept in `fired`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from transitions import Machine

from compiler.classad import ClassAd, parse
from compiler.config import Config, load_config
from compiler.errors import PolicyError
from compiler.machine import pair_name, trigger_index, trigger_name
from compiler.spec.ir import EVENT_KINDS, Action, Pair
from compiler.table import CompiledGuard, StateTable, holds
from runtime.ads import (
    Env,
    SlotState,
    account,
    apply_action,
    cpu_busy_attrs,
    eval_context,
    machine_ad,
    max_vacate_time,
    policy_exprs,
    predicates,
    retirement_remaining,
)
from runtime.clock import SimClock
from runtime.fired import Fired, describe, jsonable, num
from runtime.sensors.fake import FakeSensors

Listener = Callable[[dict[str, Any]], None]
#: Longest chain of transitions one instant may cause before we call it a loop.
MAX_CASCADE = 64


class SlotError(PolicyError):
    """A runtime problem with the input (unknown event, a cascade that never ends)."""


class _Model:
    """The object `transitions` drives (keeps its helpers off the Slot)."""

    pair_name: str


class JobControl(Protocol):
    """What a slot asks of a real job (runtime.jobs.JobProcess implements it)."""

    def start(self, job: Mapping[str, Any]) -> None: ...

    def signal(self, kind: str) -> None: ...


class _Context:
    """The `GuardContext` passed to every trigger of one instant (compiler.machine)."""

    __slots__ = ("job", "last", "slot")

    def __init__(self, slot: Slot, job: Mapping[str, Any] | None) -> None:
        self.slot = slot
        self.job = job
        self.last: list[tuple[CompiledGuard, bool, Any, Any]] = []

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
        slot = self.slot
        state = slot.record if after is None else slot.hypothetical(after, self.job)
        my = slot.eval_ad() if after is None else slot.eval_ad(state)
        target = self.target(against, state)
        ok = guard.test(my, target, ctx=eval_context(slot.clock.now()))
        if ok:
            self.last.append((guard, after is not None, my, target))
        return ok

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
        config: Config | None = None,
        slot_id: int = 1,
        job: Mapping[str, Any] | None = None,
        jobs: JobControl | None = None,
        listener: Listener | None = None,
        dynamic: bool = False,
        keepalive: bool = True,
        polling: str = "auto",
        initial: tuple[str, str] | None = None,
    ) -> None:
        self.table = table
        self.spec = table.spec
        self.clock = clock if clock is not None else SimClock()
        self.sensors = sensors if sensors is not None else FakeSensors(start=self.clock.now())
        self.config = config if config is not None else load_config(era=table.era)
        self.policy = policy_exprs(self.spec, self.config)
        self.slot_id = slot_id
        self.request_job: dict[str, Any] = dict(job or {})
        self.jobs = jobs
        self.listener = listener
        self.keepalive = keepalive
        self.polling = polling
        self.overrides: dict[str, Any] = {"DynamicSlot": dynamic}
        kwargs = table.to_transitions()
        if initial is not None:
            if pair_name(initial) not in kwargs["states"]:
                known = ", ".join(kwargs["states"])
                raise SlotError(
                    f"initial {pair_name(initial)} is not a pair of {table.era}: {known}"
                )
            kwargs["initial"] = pair_name(initial)
        self._model = _Model()
        self.machine = Machine(model=self._model, model_attribute="pair_name", **kwargs)
        self._triggers = trigger_index(table)
        self._eval_steps = self._index_steps()
        now = self.clock.now()
        self.record = SlotState(entered_state=now, entered_activity=now, stint_start=now)
        self.timers: dict[str, float] = {}
        self.fired: list[Fired] = []
        self.seq = 0
        self.evaluations = 0
        self._depth = 0
        self._last_eval: float | None = None
        self._claim_request: Mapping[str, Any] | None = None
        self._ad_cache: tuple[Any, ClassAd] | None = None
        self._job_ads: dict[int, tuple[Mapping[str, Any], ClassAd]] = {}
        self._cpu_busy: tuple[bool, float | None, float] = (False, None, now)
        self._last_sensors: dict[str, Any] = {}
        self.published = {
            name: parse(text)
            for name, text in self.policy.texts.items()
            if name not in ("MaxJobRetirementTime", "MachineMaxVacateTime")
        }

    # ------------------------------------------------------------------ public view
    @property
    def pair(self) -> Pair:
        state, activity = self._model.pair_name.split("/", 1)
        return Pair(state, activity)

    @property
    def state(self) -> str:
        return self.pair.state

    @property
    def activity(self) -> str:
        return self.pair.activity

    @property
    def ad(self) -> ClassAd:
        """The slot ad the guards see now: published attributes plus the predicates."""
        return self.eval_ad()

    @property
    def deleted(self) -> bool:
        return self.record.deleted

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

    def pair_tuple(self) -> tuple[str, str]:
        p = self.pair
        return (p.state, p.activity)

    def poll(self) -> bool:
        """One evaluation pass now (sensors read afresh). True if a transition fired."""
        self._depth = 0
        self._last_eval = self.clock.elapsed()
        self._invalidate()
        return self._evaluate(_Context(self, None))

    def send(self, event: str, **payload: Any) -> bool:
        """Deliver a protocol event or command (DESIGN.md event names). True if one fired."""
        known = {e.name: e for e in self.spec.events}
        if event not in known:
            raise SlotError(
                f"unknown event {event!r} (known: {', '.join(sorted(known))})", file="<event>"
            )
        how = payload.get("how")
        if how is not None and known[event].how and how not in known[event].how:
            raise SlotError(f"event {event}: how must be one of {', '.join(known[event].how)}")
        job = payload.get("job")
        self._depth = 0
        self._log({"kind": "event", "event": event, **({"how": how} if how else {})})
        match event:
            case "claim" | "match":
                job = dict(job) if job is not None else dict(self.request_job)
                self._claim_request = job
            case "preempting_claim":
                job = dict(job) if job is not None else dict(self.request_job)
                if self._refused(job):
                    return False
            case _:
                job = None
        self._invalidate()
        ctx = _Context(self, job)
        pair = self.pair
        evaluate = False
        for effect in self.spec.event_effects:
            if effect.event != event or pair not in effect.sources:
                continue
            if effect.how and how not in effect.how:
                continue
            evaluate = evaluate or any(a.name == "evaluate" for a in effect.actions)
            self.perform(tuple(a for a in effect.actions if a.name != "evaluate"), job)
        for row in self.table.rows_from(pair):
            for index, trig in enumerate(row.transition.triggers):
                if trig.kind not in EVENT_KINDS or trig.name != event:
                    continue
                if trig.how and how not in trig.how:
                    continue
                if self._fire(trigger_name(row.id, index), ctx):
                    return True
        if evaluate:
            return self._evaluate(_Context(self, None))
        self._log({"kind": "note", "note": f"{event} changes nothing in {pair}"})
        return False

    def _refused(self, job: Mapping[str, Any]) -> bool:
        """request_claim: a preempting claim whose RANK is below the current claim's is
        refused (higher = machine-rank preemption, equal = user-priority preemption)."""
        if self.record.job is None:
            return False
        now = self.clock.now()
        rank = self.policy.number("RANK", self.eval_ad(), self.classad(job), now) or 0.0
        if rank >= self.record.current_rank:
            return False
        self._log(
            {
                "kind": "note",
                "note": f"preempting claim refused: RANK {rank:g} < CurrentRank "
                f"{self.record.current_rank:g}",
            }
        )
        return True

    def set_sensors(self, values: Mapping[str, Any]) -> None:
        """A trace's `set:` step (fake sensors only); predicates may be overridden too."""
        names = {p.name.lower(): p.name for p in self.spec.predicates}
        overrides = {names[k.lower()]: v for k, v in values.items() if k.lower() in names}
        self.overrides.update(overrides)
        rest = {k: v for k, v in values.items() if k.lower() not in names}
        changed = self.sensors.set(rest, self.clock.now()) if rest else {}
        for name, value in {**changed, **overrides}.items():
            self._log({"kind": "sensor", "name": name, "value": jsonable(value)})
        self._invalidate()

    def set_job(self, values: Mapping[str, Any]) -> None:
        """A trace's `set_job:` step: change attributes of the running job's ad."""
        if self.record.job is None:
            raise SlotError("set_job: the slot has no job")
        self.record = replace(self.record, job={**self.record.job, **values})
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
            if what == "eval":
                self.poll()
            else:
                self._expire(what)
        self.clock.advance_to(t)
        self._invalidate()

    def next_due(self) -> float | None:
        """Trace time of the next timer or periodic evaluation (None: nothing scheduled)."""
        return self._next_due()[0]

    # ---------------------------------------------------------------- guard support
    def classad(self, job: Mapping[str, Any]) -> ClassAd:
        """A job ad as a (cached) ClassAd, so that scopes are reused across guards."""
        hit = self._job_ads.get(id(job))
        if hit is not None and hit[0] is job:
            return hit[1]
        ad = job if isinstance(job, ClassAd) else ClassAd(job)
        if len(self._job_ads) > 64:
            self._job_ads.clear()
        self._job_ads[id(job)] = (job, ad)
        return ad

    def eval_ad(self, state: SlotState | None = None) -> ClassAd:
        """MY for the guards: the published ad plus the predicates (cached per instant)."""
        record = self.record if state is None else state
        now = self.clock.now()
        key = (now, id(record), self.pair)
        if state is None and self._ad_cache is not None and self._ad_cache[0] == key:
            return self._ad_cache[1]
        pair = self.pair
        sensors = self._read_sensors(now)
        base = machine_ad(
            record,
            pair,
            now,
            self.spec,
            self.policy,
            sensors,
            slot_id=self.slot_id,
            published_policy=self.published,
        )
        if self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            base.update(self._cpu_busy_attrs(base, now, track=state is None))
        base.update(predicates(record, pair, now, self.spec, self.policy, base, self.overrides))
        ad = ClassAd(base)
        if state is None:
            self._ad_cache = (key, ad)
        return ad

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
            env = self._env(job)
            self.record = apply_action(self.record, action, env)
            self._invalidate()
            self._effect(action)

    # ---------------------------------------------------------------- internals
    def _env(self, job: Mapping[str, Any] | None) -> Env:
        payload = job if job is not None else self._claim_request
        if payload is None:
            payload = self.request_job
        return Env(self.clock.now(), self.spec, self.policy, self.eval_ad(), payload)

    def _effect(self, action: Action) -> None:
        now = self.clock.now()
        match action.name:
            case "start_timer":
                name = str(action.arg)
                duration = self._timer_duration(name)
                if duration is None or (name == "lease" and self.keepalive):
                    return
                self.timers[name] = self.clock.elapsed() + duration
                self._log({"kind": "timer", "timer": name, "op": "start", "seconds": duration})
            case "cancel_timer":
                if self.timers.pop(str(action.arg), None) is not None:
                    self._log({"kind": "timer", "timer": action.arg, "op": "cancel"})
            case "signal_job":
                self._log({"kind": "signal", "signal": action.arg})
                if self.jobs is not None and self.record.job_running:
                    self.jobs.signal(str(action.arg))
            case "start_job":
                self._log({"kind": "job", "op": "start", "job": jsonable(self.record.job)})
                if self.jobs is not None:
                    self.jobs.start(dict(self.record.job or {}))
            case "spawn_backfill_client" | "kill_backfill_client" | "delete_slot":
                self._log({"kind": "action", "action": str(action)})
            case _:
                pass
        del now

    def _timer_duration(self, name: str) -> float | None:
        match name:
            case "MachineMaxVacateTime":
                helpers = self.spec.helpers
                remaining = retirement_remaining(
                    self.record,
                    self.pair,
                    self.clock.now(),
                    self.policy,
                    self.eval_ad(),
                    helpers.retirement,
                )
                return max_vacate_time(self.record, helpers.vacate, remaining)
            case "lease":
                job = self.record.job or {}
                lease = job.get("JobLeaseDuration")
                if isinstance(lease, int | float) and not isinstance(lease, bool):
                    return float(lease)
            case _:
                configured = self.policy.ints.get(name)
                if configured is not None:
                    return float(configured)
        try:
            default = self.spec.timer(name).default
        except KeyError:
            return None
        return None if default is None else float(default)

    def _index_steps(self) -> dict[Pair, list[str]]:
        steps: dict[Pair, list[str]] = {}
        for state in self.spec.states:
            for step in state.evaluation_order:
                steps.setdefault(step.source, []).append(
                    trigger_name(step.transition, step.trigger)
                )
        return steps

    def _evaluate(self, ctx: _Context) -> bool:
        self.evaluations += 1
        if self.record.requirements_hidden:
            self.record = replace(self.record, requirements_hidden=False)
            self._invalidate()
        return any(self._fire(name, ctx) for name in self._eval_steps.get(self.pair, ()))

    def _fire(self, name: str, ctx: _Context) -> bool:
        old = self.pair
        ctx.last.clear()
        fired = self._model.trigger(name, ctx)  # type: ignore[attr-defined]
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
                tail = ", ".join(str(f.number) for f in self.fired[-12:])
                raise SlotError(f"transitions do not settle in one instant: ... {tail}")
            self._entered(_Context(self, None))
        return True

    def _entered(self, ctx: _Context) -> None:
        spec = self.spec.pair(self.pair)
        for step in spec.immediate:
            if self._fire(trigger_name(step.transition, step.trigger), ctx):
                return
        if spec.evaluate_on_entry:
            self._evaluate(ctx)

    def _expire(self, name: str) -> None:
        self.timers.pop(name, None)
        self._log({"kind": "timer", "timer": name, "op": "expired"})
        try:
            timer = self.spec.timer(name)
        except KeyError:
            return
        ctx = _Context(self, None)
        self.perform(timer.on_expiry, None)
        for row in self.table.rows_from(self.pair):
            for index, trig in enumerate(row.transition.triggers):
                named = trig.kind == "timer" and trig.name == name
                if named and self._fire(trigger_name(row.id, index), ctx):
                    return

    def _interval(self) -> float:
        polling = self.spec.polling
        fast = float(self.policy.ints.get("POLLING_INTERVAL") or polling.fast_interval)
        slow = float(self.policy.ints.get("UPDATE_INTERVAL") or polling.slow_interval)
        if self.pair.state in polling.fast_states:
            return fast
        load = self._read_sensors(self.clock.now()).get("CondorLoadAvg", 0)
        return fast if isinstance(load, int | float) and load > 0 else slow

    def _next_due(self) -> tuple[float | None, str]:
        best: float | None = None
        what = ""
        for name, due in self.timers.items():
            if best is None or due < best:
                best, what = due, name
        if self.polling == "auto":
            last = self._last_eval if self._last_eval is not None else self.clock.elapsed()
            due = max(last + self._interval(), self.clock.elapsed())
            if best is None or due < best:
                best, what = due, "eval"
        return best, what

    def _read_sensors(self, now: float) -> dict[str, Any]:
        values = dict(self.sensors.read(now))
        if not isinstance(self.sensors, FakeSensors):  # scripted changes are logged by set
            self._log_sensor_changes(values)
        return values

    def _log_sensor_changes(self, values: Mapping[str, Any]) -> None:
        """Log measured changes: idle times when they drop (activity), loads by 0.1."""
        for name, value in values.items():
            old = self._last_sensors.get(name)
            if old == value:
                continue
            if name in ("KeyboardIdle", "ConsoleIdle") and old is not None and value >= old:
                self._last_sensors[name] = value
                continue
            if "Load" in name and old is not None and abs(float(value) - float(old)) < 0.1:
                continue
            self._last_sensors[name] = value
            self._log({"kind": "sensor", "name": name, "value": jsonable(value)})

    def _cpu_busy_attrs(self, base: dict[str, Any], now: float, *, track: bool) -> dict[str, Any]:
        rule = self.spec.helpers.cpu_busy
        busy = holds(self.policy.value(rule.expression, ClassAd(base), None, now))
        was, since, changed = self._cpu_busy
        if busy != was and track:
            since = now if busy else None
            changed = now
            self._cpu_busy = (busy, since, changed)
        return cpu_busy_attrs(rule, busy, since, changed, now)

    def _invalidate(self) -> None:
        self._ad_cache = None

    def _record(self, name: str, old: Pair, new: Pair, ctx: _Context) -> None:
        row, index = self._triggers[name]
        trig = row.transition.triggers[index]
        reason, values = describe(trig, ctx.last, new.activity)
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

    def _log(self, record: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener({"t": num(self.clock.elapsed()), **record})
