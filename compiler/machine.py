"""A compiled `StateTable` as keyword arguments for a `transitions.Machine`.

Stage: compiler output -> runtime input. `to_transitions(table)` turns every row of the
table into machine transitions whose conditions are the row's compiled predicates; the
runtime (`runtime.slot`) only decides *which* trigger to pull, following the spec's
generic algorithm (evaluation order, immediate steps, events, timers). No transition rule
lives in runtime code, and nothing here evaluates anything or knows about a slot.

Shape (flat machine, `auto_transitions=False`):

* states: every pair of the era, named "State/Activity" (`pair_name`), initial
  `spec.initial`.
* one trigger per (row, trigger index), named `trigger_name(row_id, index)`, e.g. "14#0"
  or "unnumbered:kill_claim@Claimed/Busy#2". A row with a concrete target gives one
  machine transition; a "State/*" target gives one transition per candidate activity, in
  the order of `activity_choice` (or the trigger's forced `activity`), so the machine
  tries them in order and the first whose conditions hold wins. A row whose source equals
  its target is an internal transition (`dest=None`): actions only.
* conditions are `GuardCondition` objects: called with the `GuardContext` the runtime
  passes to the trigger, they test the compiled guard against the ads that context holds
  for the guard's `against` (`local`: MY only; `job`; `preempting_job`). Activity-choice
  conditions are tested *after* the firing trigger's and the row's actions (the spec says
  the choice follows `set_preempt_latch`), so they ask the context for the ad those
  actions would produce (`GuardContext.after`).
* `before` callbacks run the trigger's and the row's actions, then the exit actions of
  the pair (and of the state when it changes); `after` callbacks run the entry actions
  of the state (on a state change) and of the pair. They are `ActionCall`s that hand
  their action tuple to `GuardContext.perform`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from compiler.spec.ir import Action, EraSpec, Pair
from compiler.table import CompiledGuard, Row, StateTable


class GuardContext(Protocol):
    """What the runtime passes as the single positional argument of every trigger."""

    def test(
        self, guard: CompiledGuard, against: str, after: tuple[Action, ...] | None = None
    ) -> bool:
        """The guard's boolean test now (or after `after` actions), with the ads of `against`."""
        ...

    def perform(self, actions: tuple[Action, ...], phase: str) -> None:
        """Run spec actions (`phase`: fire, exit, enter)."""
        ...


def pair_name(pair: Pair | tuple[str, str]) -> str:
    """ "Claimed/Busy": the machine state name of a pair."""
    if isinstance(pair, Pair):
        return str(pair)
    return f"{pair[0]}/{pair[1]}"


def trigger_name(row_id: str, index: int) -> str:
    """The machine trigger of `row.transition.triggers[index]`."""
    return f"{row_id}#{index}"


@dataclass(frozen=True, slots=True)
class GuardCondition:
    """A compiled guard as a `transitions` condition (named by its text for logs)."""

    guard: CompiledGuard
    against: str
    after: tuple[Action, ...] | None = None

    def __call__(self, ctx: GuardContext, *_: Any, **__: Any) -> bool:
        return ctx.test(self.guard, self.against, self.after)

    def __str__(self) -> str:
        return self.guard.simplified


@dataclass(frozen=True, slots=True)
class ActionCall:
    """Spec actions as a `transitions` callback; the runtime performs them."""

    actions: tuple[Action, ...]
    phase: str

    def __call__(self, ctx: GuardContext, *_: Any, **__: Any) -> None:
        if self.actions:
            ctx.perform(self.actions, self.phase)

    def __str__(self) -> str:
        return f"{self.phase}: " + ", ".join(str(a) for a in self.actions)


def _exit_actions(spec: EraSpec, source: Pair, target: Pair) -> tuple[Action, ...]:
    actions = spec.pair(source).on_exit
    if target.state != source.state:
        actions += spec.state(source.state).on_exit
    return actions


def enter_actions(spec: EraSpec, source: Pair, target: Pair) -> tuple[Action, ...]:
    """The actions of entering `target` from `source`: the new state's `on_enter` (when
    the state changes) and then the pair's."""
    actions: tuple[Action, ...] = ()
    if target.state != source.state:
        actions += spec.state(target.state).on_enter
    return actions + spec.pair(target).on_enter


def _candidates(row: Row, index: int) -> list[tuple[Pair, CompiledGuard | None, str]]:
    """Concrete targets of trigger `index` of `row`, in the order the machine tries them."""
    t = row.transition
    trigger = t.triggers[index]
    if not t.target.is_wildcard:
        return [(t.target, None, "local")]
    if trigger.activity is not None:
        return [(Pair(t.target.state, trigger.activity), None, "local")]
    return [
        (Pair(t.target.state, choice.activity), compiled, choice.against)
        for choice, compiled in zip(t.activity_choice, row.choices, strict=True)
    ]


def row_transitions(spec: EraSpec, row: Row) -> list[dict[str, Any]]:
    """The machine transitions of one row (see the module docstring)."""
    t = row.transition
    out: list[dict[str, Any]] = []
    for index, trigger in enumerate(t.triggers):
        name = trigger_name(t.id, index)
        guard = row.triggers[index]
        fire = trigger.actions + t.actions
        conditions: list[GuardCondition] = []
        if guard is not None:
            conditions.append(GuardCondition(guard, trigger.against))
        if t.target == t.source:
            out.append(
                {
                    "trigger": name,
                    "source": pair_name(t.source),
                    "dest": None,
                    "conditions": list(conditions),
                    "before": [ActionCall(fire, "fire")],
                }
            )
            continue
        for target, choice, against in _candidates(row, index):
            conds = list(conditions)
            if choice is not None:
                conds.append(GuardCondition(choice, against, after=fire))
            out.append(
                {
                    "trigger": name,
                    "source": pair_name(t.source),
                    "dest": pair_name(target),
                    "conditions": conds,
                    "before": [
                        ActionCall(fire, "fire"),
                        ActionCall(_exit_actions(spec, t.source, target), "exit"),
                    ],
                    "after": [ActionCall(enter_actions(spec, t.source, target), "enter")],
                }
            )
    return out


def to_transitions(table: StateTable) -> dict[str, Any]:
    """`transitions.Machine(**to_transitions(table), model=...)` keyword arguments."""
    spec = table.spec
    transitions: list[dict[str, Any]] = []
    for row in table.rows:
        transitions.extend(row_transitions(spec, row))
    return {
        "states": [pair_name(p.pair) for p in spec.pairs],
        "initial": pair_name(spec.initial),
        "transitions": transitions,
        "auto_transitions": False,
        "send_event": False,
        "ignore_invalid_triggers": False,
    }


def trigger_index(table: StateTable) -> Mapping[str, tuple[Row, int]]:
    """Machine trigger name -> (row, trigger index), for reports of what fired."""
    return {
        trigger_name(row.id, i): (row, i)
        for row in table.rows
        for i in range(len(row.transition.triggers))
    }
