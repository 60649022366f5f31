"""One `condor_startd` with several slots: each slot its own `runtime.Slot` over its own
compiled table, on one clock (issue 13, "Every slot its own machine").

Stage: runtime. A `Startd` holds the slots of a `compiler.slots` layout in creation order.
What it adds to the slots is what the 23.0 startd does across them:

* a claim addressed to a partitionable slot carves a dynamic slot out of it
  (`compiler.slots.partition.split`; command.cpp `request_claim` -> Resource.cpp
  `create_dslot`): the new slot runs the partitionable slot's table, starts already
  claimed (`Slot.created`), and the partitionable slot stays where it is and publishes
  what it has left; a refused claim is reported with the startd's reason;
* a dynamic slot deleted by its table (`unnumbered:delete`, Owner or Unclaimed) gives its
  resources back (`partition.release`; `Resource::clear_parent`);
* `AllSlotsDrained` is the machine's: draining and every slot in Drained
  (`ResMgr::drainingIsComplete`), set on every slot before each operation;
* commands that address the startd rather than a slot (drain, cancel_drain, shutdown)
  go to every slot in order when a step names none (`ResMgr::startDraining` walks all
  slots); while the machine drains gracefully, a claimed idle slot and a job accepted
  while draining retire on the longest retirement any other job still has
  (`gracefulDrainingTimeRemaining`), and a claim on a partitionable slot is carved only
  for a job the drain's START accepts (`Reqexp::unavail`; none without one).

`log` keeps every report in the order it happened, each with the name of its slot:
the `Fired` and `Handled` records of the slots and a `Note` for what the startd itself
did (a dynamic slot created, refused, or deleted and its resources returned).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from compiler import StateTable
from compiler.errors import PolicyError
from compiler.slots import Carved, Expression, Layout, release, slot_ad, split
from compiler.slots import Slot as SlotRecord
from runtime.fired import Fired, Handled, num
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot

#: Commands a step may address to the whole startd (no `slot:`).
MACHINE_EVENTS = frozenset({"drain", "cancel_drain", "shutdown"})


class StartdError(PolicyError):
    """A step the startd cannot deliver (no such slot, a slot-level event with no slot)."""


@dataclass(frozen=True, slots=True)
class Note:
    """Something the startd did across slots, in the run's order."""

    t: float
    kind: str  # "created" | "refused" | "deleted"
    slot: str  # the partitionable slot
    dslot: str | None
    text: str
    resources: Mapping[str, Any]

    def to_text(self) -> str:
        return f"t={num(self.t):>7} {self.text}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": num(self.t), "startd": self.kind, "slot": self.slot}
        if self.dslot is not None:
            out["dynamic_slot"] = self.dslot
        if self.resources:
            out["resources"] = dict(self.resources)
        if self.kind == "refused":
            out["reason"] = self.text.split(": refused: ", 1)[-1]
        return out


Report = Fired | Handled | Note


def resource_values(layout: Layout, record: SlotRecord) -> dict[str, Any]:
    """The plain values of what `record` publishes (its resources, totals, ids, names);
    the policy expressions come from the slot's compiled table instead."""
    return {k: v for k, v in slot_ad(layout, record).items() if not isinstance(v, Expression)}


def _tagged(
    listener: Callable[[dict[str, Any]], None], name: str
) -> Callable[[dict[str, Any]], None]:
    """`listener` with every event-log record marked with the slot it came from."""
    return lambda record: listener({**record, "slot": name})


class Startd:
    """The slots of one machine driven together (see the module docstring)."""

    def __init__(
        self,
        layout: Layout,
        table_of: Callable[[SlotRecord], StateTable],
        clock: Any,
        *,
        machine: Mapping[str, Any] | None = None,
        idle_ages: bool = True,
        semantics: str = "code",
        slot_options: Mapping[str, Any] | None = None,
        listener: Callable[[dict[str, Any]], None] | None = None,
        slot_attrs: tuple[str, ...] = (),
    ) -> None:
        self.layout = layout
        self.clock = clock
        self.semantics = semantics
        self._machine = dict(machine or {})
        self._idle_ages = idle_ages
        self._options = dict(slot_options or {})
        self._table_of = table_of
        self._listener = listener
        self._slot_attrs = slot_attrs
        self.slots: dict[str, Slot] = {}
        self.carved: dict[str, Carved] = {}
        #: how the machine drains (graceful, quick, fast; None: it does not), and the
        #: drain's start expression (None: none, or not a graceful drain)
        self.draining: str | None = None
        self.drain_start: str | None = None
        self._accepted_while_draining: set[str] = set()
        self.log: list[tuple[str, Report]] = []
        self._seen: dict[str, tuple[int, int]] = {}
        for record in layout.slots:
            self.slots[record.name] = self._slot(record, table_of(record))
            if record.kind == "partitionable":
                self.carved[record.name] = Carved(record, {})

    # ------------------------------------------------------------------ building
    def _slot(self, record: SlotRecord, table: StateTable, **extra: Any) -> Slot:
        sensors = FakeSensors(idle_ages=self._idle_ages, start=self.clock.now())
        sensors.set({**self._machine, **self._resources(record)}, self.clock.now())
        options = {**self._options, **extra}
        if self._listener is not None:
            options["listener"] = _tagged(self._listener, record.name)
        slot = Slot(
            table,
            sensors,
            self.clock,
            slot_id=record.slot_id,
            dynamic=record.kind == "dynamic",
            **options,
        )
        self._seen[record.name] = (0, 0)
        return slot

    def _resources(self, record: SlotRecord) -> dict[str, Any]:
        values = resource_values(self.layout, record)
        values.pop("DynamicSlot", None)  # a predicate: Slot(dynamic=...) gives it
        return values

    # ------------------------------------------------------------------ driving
    def start(self) -> None:
        """Every slot enters its initial pair, in slot order."""
        for name, slot in list(self.slots.items()):
            self._sync()
            slot.start()
            self._collect(name)

    def advance(self, t: float, *, inclusive: bool = True) -> None:
        """Move the clock to `t`, firing every slot's due timers in time order (slots
        due at the same instant in slot order)."""
        while True:
            due = [(d, n) for n, s in self.slots.items() if (d := s.next_due()) is not None]
            due = [(d, n) for d, n in due if d < t or (d == t and inclusive)]
            if not due:
                break
            when = min(d for d, _ in due)
            for d, name in due:
                if d == when and name in self.slots:
                    self._sync()
                    self.slots[name].advance(when)
                    self._collect(name)
        for name in list(self.slots):
            self.slots[name].advance(t, inclusive=inclusive)
            self._collect(name)

    def next_due(self) -> float | None:
        dues = [d for s in self.slots.values() if (d := s.next_due()) is not None]
        return min(dues) if dues else None

    def targets(self, slot: str | None, event: str | None) -> list[str]:
        """The slots a step goes to: the one it names, every slot for a startd-wide
        command (or a `set`/`tick`), the only slot of a one-slot machine."""
        if slot is not None:
            if slot not in self.slots:
                known = ", ".join(self.slots)
                raise StartdError(f"no slot {slot!r} on this machine (slots now: {known})")
            return [slot]
        if event is None or event in MACHINE_EVENTS or len(self.slots) == 1:
            return list(self.slots)
        raise StartdError(
            f"event {event} needs `slot:` on a machine with several slots ({', '.join(self.slots)})"
        )

    def send(self, name: str, event: str, **payload: Any) -> bool:
        """Deliver `event` to slot `name`; a claim on a partitionable slot carves."""
        if event == "claim" and name in self.carved:
            return self._claim_pslot(name, payload.get("job") or {})
        if event == "drain":
            payload = self._start_draining(payload)
        elif event == "cancel_drain":
            self.draining, self.drain_start = None, None
            self._accepted_while_draining.clear()
        self._sync()
        fired = self.slots[name].send(event, **payload)
        self._collect(name)
        return fired

    def poll(self, name: str) -> bool:
        self._sync()
        fired = self.slots[name].poll()
        self._collect(name)
        return fired

    def set_sensors(self, name: str, values: Mapping[str, Any]) -> None:
        self.slots[name].set_sensors(values)
        self._collect(name)

    def set_job(self, name: str, values: Mapping[str, Any]) -> None:
        self.slots[name].set_job(values)
        self._collect(name)

    # ------------------------------------------------------------------ across slots
    def _knob(self, name: str) -> str | None:
        """A machine-wide knob the layout read (compiler.slots GLOBAL_KNOBS)."""
        for slot_type in self.layout.types.values():
            return slot_type.knobs.get(name)
        return None

    def _start_draining(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The machine starts draining (`ResMgr::startDraining`): what every slot is sent.
        A drain condor_defrag asks for (`defrag: true`) is DEFRAG_DRAINING_SCHEDULE
        (default graceful) unless the step says `how`, with DEFRAG_DRAINING_START_EXPR
        (default FALSE) as its start expression (defrag.cpp `Defrag::drain_this`). Only a graceful drain takes a
        start expression: the step's `start`, else the defrag one, else
        DEFAULT_DRAINING_START_EXPR; while draining, each slot publishes it as START, or
        Requirements = False without one (`Reqexp::unavail`)."""
        how = payload.get("how")
        start = payload.get("start")
        if payload.get("defrag"):
            how = how or (self._knob("DEFRAG_DRAINING_SCHEDULE") or "graceful").strip().lower()
            start = start or self._knob("DEFRAG_DRAINING_START_EXPR") or "FALSE"
        if start is None:
            start = self._knob("DEFAULT_DRAINING_START_EXPR")
        if self.draining is None:
            self.draining = how or "graceful"
            self.drain_start = start if self.draining == "graceful" else None
        forwarded = {k: v for k, v in payload.items() if k not in ("start", "defrag")}
        if how is not None:
            forwarded["how"] = how
        return forwarded

    def _claim_pslot(self, name: str, job: Mapping[str, Any]) -> bool:
        now = self.clock.elapsed()
        start = (self.drain_start or "false") if self.draining is not None else None
        carved, dslot, reason = split(
            self.layout, self.carved[name], job, semantics=self.semantics, start=start
        )
        if dslot is None:
            text = f"{name}: claim refused: {reason}"
            self.log.append(
                (
                    name,
                    Note(
                        now, "refused", name, None, text.replace("claim refused", "refused", 1), {}
                    ),
                )
            )
            return False
        self.carved[name] = carved
        self._refresh(name, carved.pslot)
        table = self._table_of(carved.pslot)
        slot = self._slot(dslot, table, initial=("Claimed", "Idle"), job=dict(job))
        parent = self.slots[name]
        slot.schedule.update_due = parent.schedule.update_due  # one update timer per startd
        self.slots[dslot.name] = slot
        if self.draining is not None:
            self._accepted_while_draining.add(dslot.name)
        shown = {k: v for k, v in self._resources(dslot).items() if k in ("Cpus", "Memory", "Disk")}
        text = f"{name}: claim creates {dslot.name} ({', '.join(f'{k}={v}' for k, v in shown.items())}) in Claimed/Idle"
        self.log.append((name, Note(now, "created", name, dslot.name, text, shown)))
        self._sync()
        slot.created(job, draining=self.draining)
        self._collect(dslot.name)
        return True

    def _refresh(self, name: str, record: SlotRecord) -> None:
        """Publish a partitionable slot's resources after a split or a release."""
        self.slots[name].set_sensors(self._resources(record))

    def _sync(self) -> None:
        """What every slot sees of the others: `AllSlotsDrained` (draining and all slots
        Drained) and the cross-slot attributes `slot<N>_<attr>` of STARTD_SLOT_ATTRS,
        each another slot's published attribute as it stands now (23.0 copies the
        expression, `Resource::publish_SlotAttrs`; here the slot's own value is copied,
        which is the same for the literals State, Activity and the resources)."""
        drained = all(s.state == "Drained" for s in self.slots.values())
        cross = self._cross_slot_values()
        coordinated = self._coordinated_retirement()
        for name, slot in self.slots.items():
            expired = None  # the slot's own RetirementExpired
            if coordinated is not None and (
                slot.pair_tuple() == ("Claimed", "Idle")
                or (name in self._accepted_while_draining and slot.retirement_left() > 0)
            ):
                expired = coordinated <= 0
            slot.set_from_machine(
                {
                    "AllSlotsDrained": drained and slot.record.draining is not None,
                    "RetirementExpired": expired,
                    **cross,
                }
            )

    def _coordinated_retirement(self) -> float | None:
        """During a graceful drain, the retirement every slot may still use
        (`ResMgr::gracefulDrainingTimeRemaining`): the longest any slot's job has left,
        slots accepted while draining not counted; None when not draining gracefully.
        A claimed idle slot, and a job accepted while draining, retire on it
        (`Resource::retirementExpired`; jobs that match the drain's START are not told
        apart here)."""
        if self.draining != "graceful":
            return None
        left = [
            slot.retirement_left()
            for name, slot in self.slots.items()
            if name not in self._accepted_while_draining
        ]
        return max(left, default=0.0)

    def _cross_slot_values(self) -> dict[str, Any]:
        if not self._slot_attrs:
            return {}
        values: dict[str, Any] = {}
        for name, slot in self.slots.items():
            ad = slot.ad
            for attr in self._slot_attrs:
                if attr in ad:
                    values[f"{name}_{attr}"] = ad[attr]
        return values

    def _collect(self, name: str) -> None:
        """Append the reports `name` made since the last look, and delete it (giving its
        resources back) when its table deleted it."""
        slot = self.slots.get(name)
        if slot is None:
            return
        fired_seen, handled_seen = self._seen[name]
        new: list[Fired | Handled] = [*slot.fired[fired_seen:], *slot.handled[handled_seen:]]
        new.sort(key=lambda r: r.seq if isinstance(r, Fired) else r.after + 0.5)
        self.log.extend((name, r) for r in new)
        self._seen[name] = (len(slot.fired), len(slot.handled))
        if slot.deleted:
            self._delete(name)

    def _delete(self, name: str) -> None:
        parent = name.split("_", 1)[0]
        del self.slots[name]
        self._accepted_while_draining.discard(name)
        del self._seen[name]
        carved = self.carved.get(parent)
        if carved is None or name not in carved.dslots:
            return
        self.carved[parent] = release(carved, name)
        self._refresh(parent, self.carved[parent].pslot)
        back = self.carved[parent].pslot
        shown = {k: v for k, v in self._resources(back).items() if k in ("Cpus", "Memory", "Disk")}
        text = f"{name} deleted: its resources return to {parent} ({', '.join(f'{k}={v}' for k, v in shown.items())})"
        self.log.append((parent, Note(self.clock.elapsed(), "deleted", parent, name, text, shown)))
