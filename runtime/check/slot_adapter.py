"""The compiled runtime (`runtime.Slot` over a `StateTable`) as a check machine.

Stage: check (runtime adapter). A generated trace is replayed exactly as `condor-policy
run` replays a trace file with `polling: explicit`: fake sensors set from `machine:`, the
clock at 1000000000 + t, the slot started (its initial pair's immediate steps), then each
step in order (`tick` = one evaluation pass). Besides the fired transitions it reports
the Requirements value the slot publishes after each step (for the built-in
"Requirements FALSE in Matched and Preempting").
"""

from __future__ import annotations

import contextlib
from typing import Any

from compiler.classad import evaluate
from compiler.classad.ast import Expr
from compiler.table import StateTable
from runtime.check.generate import Trace
from runtime.check.reference import EPOCH, Fired
from runtime.check.search import Machine, MachineRun
from runtime.clock import SimClock
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot, SlotError


def slot_machine(table: StateTable) -> tuple[Machine, str]:
    def run(trace: Trace) -> MachineRun:
        clock = SimClock(epoch=float(EPOCH))
        sensors = FakeSensors(start=clock.now())
        sensors.set(dict(trace.machine), clock.now())
        slot = Slot(table, sensors, clock, job=dict(trace.job), polling="explicit")
        slot.start()
        published: dict[int, dict[str, Any]] = {}
        tags: list[tuple[int, bool]] = [(0, True)] * len(slot.fired)  # start-up: before step 0
        for index, step in enumerate(trace.steps):
            if slot.deleted:
                break
            slot.advance(step.t)
            tags += [(index, True)] * (len(slot.fired) - len(tags))
            match step.kind:
                case "tick":
                    slot.poll()
                case "set":
                    slot.set_sensors(dict(step.attrs))
                case "set_job":
                    with contextlib.suppress(SlotError):  # no job: the step changes nothing
                        slot.set_job(dict(step.attrs))
                case "event":
                    payload: dict[str, Any] = {}
                    if step.how:
                        payload["how"] = step.how
                    if step.job:
                        payload["job"] = dict(step.job)
                    slot.send(step.event or "", **payload)
            tags += [(index, False)] * (len(slot.fired) - len(tags))
            published[index] = {"Requirements": _requirements(slot)}
        fired = tuple(
            Fired(int(f.t), f.number, f.id, f.source, f.target, f.reason, *tag)
            for f, tag in zip(slot.fired, tags, strict=True)
        )
        return MachineRun(fired, published)

    return run, "the compiled machine (runtime.Slot), cross-checked with the reference interpreter"


def _requirements(slot: Slot) -> Any:
    # eval_ad with an explicit record does not advance the CpuBusy latch: reading the ad
    # for the check must not change what the slot will do next.
    ad = slot.eval_ad(slot.record)
    if "Requirements" not in ad:
        return True  # nothing published: nothing to check
    value = ad["Requirements"]
    if isinstance(value, Expr):
        return evaluate(value, ad, None, now=slot.clock.now())
    return value
