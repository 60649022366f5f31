"""Machines the dynamic check can drive: the reference interpreter and the compiled
runtime (`runtime.Slot` over a `StateTable`), both as `Trace -> MachineRun`.

Stage: check (runtime adapters). The compiled machine is imported lazily so that the
check package works while the runtime is absent (the reference still runs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compiler.spec.ir import EraSpec
from runtime.check.generate import Trace
from runtime.check.reference import PolicyExprs, ReferenceSlot
from runtime.check.search import Machine, MachineRun


def config_timers(spec: EraSpec, config: Any) -> dict[str, int]:
    """Timer lengths the configuration sets (MATCH_TIMEOUT = 300, KILLING_TIMEOUT, ...)."""
    out: dict[str, int] = {}
    for timer in spec.timers:
        if timer.kind != "timer" or config is None:
            continue
        text = config.get(timer.name)
        if text is not None and text.strip().lstrip("-").isdigit():
            out[timer.name] = int(text.strip())
    return out


def reference_machine(
    spec: EraSpec, policy: PolicyExprs, timer_values: Mapping[str, int] | None = None
) -> Machine:
    """The reference interpreter as a machine (also records guard outcomes)."""

    def run(trace: Trace) -> MachineRun:
        slot = ReferenceSlot(
            spec,
            policy,
            dict(trace.machine),
            dict(trace.job),
            timer_values=dict(timer_values or {}),
        )
        slot.start()
        for index, step in enumerate(trace.steps):
            slot.step(step, index)
        return MachineRun(tuple(slot.fired), None, frozenset(slot.outcomes))

    return run


def compiled_machine(table: Any) -> tuple[Machine | None, str]:
    """The compiled runtime (`runtime.Slot` driven by `runtime.trace`) as a machine, or
    (None, "") while the runtime is not installed."""
    try:
        from runtime.check.slot_adapter import slot_machine
    except ImportError:
        return None, ""
    return slot_machine(table)
