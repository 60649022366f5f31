"""A deliberately tiny interpreter of the spec contract (compiler.spec docstring), for tests.

Test support only: it proves that the spec data alone, driven by the documented generic
algorithm, reproduces the manuals' scenarios. Policies are ClassAd texts, predicates are
booleans derived from a few flags; everything is evaluated with MY = one mapping.
"""

from __future__ import annotations

from typing import Any

from compiler.classad import parse
from compiler.classad.evaluator import evaluate
from compiler.spec import Action, EraSpec, Pair, Transition, Trigger

DEFAULT_POLICIES = {
    "START": "True", "IS_OWNER": "False", "RunBenchmarks": "False", "WANT_SUSPEND": "False",
    "SUSPEND": "False", "CONTINUE": "True", "PREEMPT": "False", "WANT_VACATE": "True",
    "KILL": "False", "START_BACKFILL": "False", "EVICT_BACKFILL": "False",
}  # fmt: skip


class MiniSlot:
    def __init__(self, spec: EraSpec, **policies: str) -> None:
        self.spec = spec
        self.pair = spec.initial
        era_defaults = {p.name: p.default for p in spec.policies if p.default is not None}
        self.policies = {**DEFAULT_POLICIES, **era_defaults, **policies}
        self.fired: list[int | str] = []
        self.flags: dict[str, bool] = {
            "JobRunning": False, "HasPreemptingClaim": False, "Reversible": True,
            "PreemptLatch": False, "Draining": False, "RetirementExpired": False,
            "ClaimWorklifeExpired": False, "BackfillEnabled": False, "AllSlotsDrained": False,
            "WaitingForActivation": False, "BackfillClientRunning": False, "DynamicSlot": False,
            "DestinationOwner": False, "DestinationMatched": False, "DestinationClaimed": False,
        }  # fmt: skip
        self.timers: set[str] = set()
        self.depth = 0

    # ---- guards

    def ad(self) -> dict[str, Any]:
        f = self.flags
        may_unretire = f["Reversible"] and not f["HasPreemptingClaim"] and not f["Draining"]
        values: dict[str, Any] = {k: parse(v) for k, v in self.policies.items()}
        values.update(f, MayUnretire=may_unretire,
                      InRetirement=f["HasPreemptingClaim"] or not may_unretire,
                      State=self.pair.state, Activity=self.pair.activity)  # fmt: skip
        return values

    def holds(self, guard: str) -> bool:
        if not guard:
            return True
        value = evaluate(guard, self.ad())
        return value is True or (type(value) in (int, float) and value != 0)

    # ---- firing

    def act(self, action: Action) -> None:
        f = self.flags
        match action.name, action.arg:
            case "start_job", _:
                f["JobRunning"] = True
            case "reap_starter", _:
                f["JobRunning"] = False
            case "retire", ("irreversible" | "peaceful"):
                f["Reversible"] = False
            case "set_preempt_latch", "always":
                f["PreemptLatch"] = True
            case "set_preempt_latch", "if_preempt":
                f["PreemptLatch"] = f["PreemptLatch"] or self.holds("PREEMPT")
            case "register_preempting_claim", _:
                f["HasPreemptingClaim"] = True
            case "withdraw_preempting_claim" | "accept_preempting_claim", _:
                f["HasPreemptingClaim"] = False
            case "reset_claim" | "clear_claim", _:
                f["PreemptLatch"], f["Reversible"] = False, True
            case "start_timer", name:
                self.timers.add(str(name))
            case "cancel_timer", name:
                self.timers.discard(str(name))
            case "start_draining", _:
                f["Draining"] = True
            case "stop_draining", _:
                f["Draining"] = False
            case _:
                pass

    def fire(self, row: Transition, trigger: Trigger) -> None:
        self.depth += 1
        assert self.depth < 30, f"cascade does not end: {self.fired[-10:]}"
        for action in (*trigger.actions, *row.actions):
            self.act(action)
        self.fired.append(row.number)
        if row.target == row.source:
            return
        target = row.target
        if target.is_wildcard:
            activity = trigger.activity or next(
                c.activity for c in row.activity_choice if self.holds(c.guard)
            )
            target = Pair(target.state, activity)
        old, state_change = self.spec.pair(self.pair), target.state != self.pair.state
        for action in old.on_exit + (
            self.spec.state(self.pair.state).on_exit if state_change else ()
        ):
            self.act(action)
        self.pair = target
        new = self.spec.pair(target)
        for action in (
            self.spec.state(target.state).on_enter if state_change else ()
        ) + new.on_enter:
            self.act(action)
        for step in new.immediate:
            if self.holds(step.guard):
                row = self.spec.transition(step.transition)
                self.fire(row, row.triggers[step.trigger])
                return
        if new.evaluate_on_entry:
            self.poll()

    def poll(self) -> bool:
        for step in self.spec.state(self.pair.state).evaluation_order:
            if step.source == self.pair and self.holds(step.guard):
                row = self.spec.transition(step.transition)
                self.fire(row, row.triggers[step.trigger])
                return True
        return False

    # ---- inputs

    def send(self, event: str, how: str | None = None) -> None:
        self.depth = 0
        evaluate_after = False
        for effect in self.spec.event_effects:
            if (
                effect.event == event
                and self.pair in effect.sources
                and (not effect.how or how in effect.how)
            ):
                for action in effect.actions:
                    evaluate_after = evaluate_after or action.name == "evaluate"
                    self.act(action)
        for row in self.spec.transitions_from(self.pair):
            for trigger in row.triggers:
                if (trigger.kind in ("protocol", "command") and trigger.name == event
                        and (not trigger.how or how in trigger.how) and self.holds(trigger.guard)):  # fmt: skip
                    self.fire(row, trigger)
                    return
        if evaluate_after:
            self.poll()

    def tick(self, **changes: Any) -> None:
        """Change policies (str) or flags (bool), then run one evaluation pass."""
        self.depth = 0
        for name, value in changes.items():
            (self.flags if isinstance(value, bool) else self.policies)[name] = value
        self.poll()

    def expire(self, timer: str) -> None:
        self.depth = 0
        assert timer in self.timers, f"{timer} is not running"
        self.timers.discard(timer)
        for action in self.spec.timer(timer).on_expiry:
            self.act(action)
        for row in self.spec.transitions_from(self.pair):
            for trigger in row.triggers:
                if trigger.kind == "timer" and trigger.name == timer:
                    self.fire(row, trigger)
                    return
