"""The slot engine: the spec's generic algorithm, as pure functions over a compiled table.

Stage: runtime. Which machine trigger to pull, and in which order, is decided here from
the table and the era spec alone (compiler.spec module docstring, "how a slot runs"):

* evaluation pass: the state's `evaluation_order`, steps of the current pair only; the
  first trigger whose guard holds fires (`Engine.evaluation_pass`);
* entering a pair: its `immediate` steps, else an evaluation pass when the pair has
  `evaluate_on_entry` (`Engine.on_entry`);
* event E: the protocol/command triggers named E from the current pair, in row order, a
  trigger whose `how` list does not hold the event's `how` skipped (`Engine.event_triggers`);
* timer T: the timer triggers named T from the current pair (`Engine.timer_triggers`);
* periodic evaluation: every UPDATE_INTERVAL, and every POLLING_INTERVAL while the
  polling timer runs, i.e. while the state is one of the era's fast states or the Condor
  load is positive (`Engine.intervals`, `Engine.needs_polling`; runtime.timers).

Nothing here tests a guard, touches a record or reads a clock: `runtime.slot.Slot` (the
facade) asks, then pulls the triggers through the `transitions` machine of
`compiler.machine.to_transitions`, whose conditions are the table's compiled predicates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from compiler import Settings, StateTable
from compiler.machine import trigger_name
from compiler.spec import EVENT_KINDS, EraSpec, Event, Pair


@dataclass(frozen=True, slots=True)
class Entry:
    """What entering a pair does: try `immediate` in order, else evaluate if `evaluate`."""

    immediate: tuple[str, ...]
    evaluate: bool


@dataclass(frozen=True, slots=True)
class Engine:
    """The trigger order of one compiled table (built once per slot by `for_table`).

    Every answer is looked up in indexes built once from the table and the spec
    (`steps`, `entries`, `events`, `timers`), instead of scanning the rows per question:
    a slot asks on every evaluation pass, event and timer. `scan_event_triggers` and
    `scan_timer_triggers` are the row scans the indexes are built from (and tested
    against).
    """

    table: StateTable
    steps: Mapping[Pair, tuple[str, ...]]
    entries: Mapping[Pair, Entry] = field(default_factory=dict)
    #: (pair, event) -> ((trigger name, the trigger's `how` list), ...) in row order.
    events: Mapping[tuple[Pair, str], tuple[tuple[str, tuple[str, ...]], ...]] = field(
        default_factory=dict
    )
    timers: Mapping[tuple[Pair, str], tuple[str, ...]] = field(default_factory=dict)
    #: the era's events (DESIGN.md event names) by name
    known_events: Mapping[str, Event] = field(default_factory=dict)

    @classmethod
    def for_table(cls, table: StateTable) -> Engine:
        steps: dict[Pair, list[str]] = {}
        for state in table.spec.states:
            for step in state.evaluation_order:
                steps.setdefault(step.source, []).append(
                    trigger_name(step.transition, step.trigger)
                )
        entries = {p.pair: _entry(table.spec, p.pair) for p in table.spec.pairs}
        events: dict[tuple[Pair, str], list[tuple[str, tuple[str, ...]]]] = {}
        timers: dict[tuple[Pair, str], list[str]] = {}
        for row in table.rows:
            source = Pair(*row.source)
            for index, trig in enumerate(row.transition.triggers):
                name = trigger_name(row.id, index)
                if trig.kind in EVENT_KINDS:
                    events.setdefault((source, trig.name), []).append((name, tuple(trig.how)))
                elif trig.kind == "timer":
                    timers.setdefault((source, trig.name), []).append(name)
        return cls(
            table,
            MappingProxyType({k: tuple(v) for k, v in steps.items()}),
            MappingProxyType(entries),
            MappingProxyType({k: tuple(v) for k, v in events.items()}),
            MappingProxyType({k: tuple(v) for k, v in timers.items()}),
            MappingProxyType({event.name: event for event in table.spec.events}),
        )

    @property
    def spec(self) -> EraSpec:
        return self.table.spec

    def evaluation_pass(self, pair: Pair) -> tuple[str, ...]:
        """The policy triggers an evaluation pass tries in `pair`, in order."""
        return self.steps.get(pair, ())

    def on_entry(self, pair: Pair) -> Entry:
        entry = self.entries.get(pair)
        return entry if entry is not None else _entry(self.spec, pair)

    def event_triggers(self, pair: Pair, event: str, how: str | None) -> tuple[str, ...]:
        """The triggers event `event` (with payload `how`) may pull in `pair`, in row order."""
        return tuple(
            name for name, hows in self.events.get((pair, event), ()) if not hows or how in hows
        )

    def timer_triggers(self, pair: Pair, timer: str) -> tuple[str, ...]:
        """The triggers the expiry of `timer` may pull in `pair`, in row order."""
        return self.timers.get((pair, timer), ())

    def scan_event_triggers(self, pair: Pair, event: str, how: str | None) -> tuple[str, ...]:
        """`event_triggers` by scanning the rows leaving `pair` (what the index holds)."""
        out: list[str] = []
        for row in self.table.rows_from(pair):
            for index, trig in enumerate(row.transition.triggers):
                if trig.kind not in EVENT_KINDS or trig.name != event:
                    continue
                if trig.how and how not in trig.how:
                    continue
                out.append(trigger_name(row.id, index))
        return tuple(out)

    def scan_timer_triggers(self, pair: Pair, timer: str) -> tuple[str, ...]:
        """`timer_triggers` by scanning the rows leaving `pair` (what the index holds)."""
        return tuple(
            trigger_name(row.id, index)
            for row in self.table.rows_from(pair)
            for index, trig in enumerate(row.transition.triggers)
            if trig.kind == "timer" and trig.name == timer
        )

    def intervals(self) -> tuple[float, float]:
        """(POLLING_INTERVAL, UPDATE_INTERVAL) in seconds: the compiled settings, else the
        era's defaults."""
        polling = self.spec.polling
        settings: Settings = self.table.program.settings
        fast = float(settings.polling_interval or polling.fast_interval)
        slow = float(settings.update_interval or polling.slow_interval)
        return fast, slow

    def needs_polling(self, pair: Pair, condor_load: Callable[[], Any]) -> bool:
        """`ResMgr::check_polling`: whether the polling timer runs (the state is one of the
        era's fast states, or the Condor load is positive; `condor_load` is read only
        outside the fast states: reading real sensors logs their changes)."""
        if pair.state in self.spec.polling.fast_states:
            return True
        load = condor_load()
        return isinstance(load, int | float) and load > 0


def _entry(spec: EraSpec, pair: Pair) -> Entry:
    """What entering `pair` does, from the era spec."""
    pair_spec = spec.pair(pair)
    immediate = tuple(trigger_name(s.transition, s.trigger) for s in pair_spec.immediate)
    return Entry(immediate, pair_spec.evaluate_on_entry)
