"""Machines the dynamic check drives, both as `Trace -> MachineRun`: the reference
interpreter (runtime.check.reference) and the compiled runtime (`runtime.Slot` over a
`StateTable`, replayed by `runtime.trace.replay` exactly as `condor-policy run` does).

Stage: check (adapters). Besides the fired transitions, each tagged with the trace step
it belongs to, the compiled machine reports the Requirements value its slot publishes
after each step (for the built-in "Requirements FALSE in Matched and Preempting").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from compiler import StateTable
from compiler.classad import evaluate
from compiler.classad.ast import Expr
from compiler.spec import EraSpec
from runtime.check.reference import PolicyExprs, run_reference
from runtime.check.search import Machine, MachineRun
from runtime.fired import Fired
from runtime.slot import Slot
from runtime.trace import Trace, replay


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
        slot = run_reference(spec, policy, trace, timer_values=timer_values)
        return MachineRun(tuple(slot.fired), None, frozenset(slot.outcomes))

    return run


def compiled_machine(table: StateTable) -> tuple[Machine, str]:
    """The compiled runtime as a machine, and how the report names it."""

    def run(trace: Trace) -> MachineRun:
        tagged: list[Fired] = []
        published: dict[int, dict[str, Any]] = {}

        def observe(slot: Slot, index: int, applied: bool) -> None:
            tagged.extend(
                replace(f, step=index, advancing=not applied) for f in slot.fired[len(tagged) :]
            )
            if applied:
                published[index] = {"Requirements": _requirements(slot)}

        replay(trace, table, observer=observe)
        return MachineRun(tuple(tagged), published)

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
