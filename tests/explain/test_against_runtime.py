"""Differential: what `explain` says fires is what the runtime's evaluation pass fires.

Every scenario under tests/scenarios/ (each era, each semantics it states an expectation
for) is replayed up to each of its steps; the slot's own guard ad there (published
attributes plus predicates, `Slot.eval_ad`) and its job are given to `explain_slot`, and
then the slot runs one evaluation pass (`Slot.poll`). The transition explain names as
firing must be the first one the pass fires, and "none" must mean the pass fires none.
The two share the compiled table, but not the code that walks the evaluation order, picks
the ads of each guard or reads the clock. Right after a step the slot has usually
evaluated already (and the pass fires nothing); the slow variant first changes the
sensors (the owner comes back, the machine goes quiet), so that passes fire.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.explain import explain_slot
from runtime.trace import replay
from tests.runtime.support import compiled, gate_cases, load, scenario_cases

CASES = scenario_cases()

#: Each scenario once in the README run (tests.runtime.support.gate_cases).
GATE_CASES = gate_cases(CASES)


#: Sensor changes made at each checkpoint by the slow variant, so that the pass has
#: something to do: the owner comes back; the machine goes quiet.
PERTURBATIONS: list[dict[str, Any]] = [
    {"KeyboardIdle": 0, "LoadAvg": 2.0},
    {"KeyboardIdle": 10**6, "LoadAvg": 0.0, "CondorLoadAvg": 0.0},
]


@pytest.mark.parametrize(("path", "semantics"), GATE_CASES)
def test_explain_names_what_a_pass_fires(path: Path, semantics: str) -> None:
    assert _check(path, semantics, None)


@pytest.mark.explore  # the same checks as above with other sensor values: outside the gate (time)
@pytest.mark.parametrize("change", range(len(PERTURBATIONS)))
@pytest.mark.parametrize(("path", "semantics"), CASES)
def test_explain_names_what_a_pass_fires_after_a_change(
    path: Path, semantics: str, change: int
) -> None:
    assert _check(path, semantics, PERTURBATIONS[change])


def _check(path: Path, semantics: str, sensors: dict[str, Any] | None) -> int:
    """The number of checkpoints compared (each step's time of the trace)."""
    trace = load(path)
    era = trace.era or "htcondor-current"
    config, table = compiled(era, semantics, tuple(sorted(trace.config.items())))
    checked = 0
    for t in sorted({step.t for step in trace.steps}):
        slot = replay(trace, table, until=t)
        if slot.deleted:
            continue
        if sensors is not None:
            slot.set_sensors(sensors)
        job = slot.record.job
        ex = explain_slot(
            table,
            config,
            slot.eval_ad(),
            None if job is None else slot.classad(job),
            pair=slot.pair,
            now=slot.clock.now(),
        )
        before = len(slot.fired)
        slot.poll()
        fired = slot.fired[before].id if len(slot.fired) > before else None
        said = None if ex.fires is None else ex.fires.row
        assert said == fired, f"t={t} {slot.pair}: explain {said}, the pass {fired}"
        assert not ex.assumed  # the slot's own ad holds every predicate
        checked += 1
    return checked


def test_flip_time_is_when_the_runtime_fires() -> None:
    """Seed 002's Desktop escalation (tests/scenarios/htcondor-current/
    desktop_escalation.yaml): suspended at t=1500, PREEMPT (`Activity == "Suspended" &&
    time() - EnteredCurrentActivity > 10 * 60`) starts to hold 601 s later; the runtime
    fires row 16 at the first evaluation from then on (the polling interval is 5 s)."""
    path = (
        Path(__file__).resolve().parents[1] / "scenarios/htcondor-current/desktop_escalation.yaml"
    )
    trace = load(path)
    config, table = compiled("htcondor-current", "code", tuple(sorted(trace.config.items())))
    slot = replay(trace, table, until=1500)
    assert slot.pair_tuple() == ("Claimed", "Suspended")
    job = slot.classad(slot.record.job)
    ex = explain_slot(table, config, slot.eval_ad(), job, pair=slot.pair, now=slot.clock.now())
    preempt = next(s for s in ex.steps if s.row == "16" and s.spec_guard.endswith("PREEMPT"))
    assert not preempt.holds and preempt.flips_in == 601
    fired = next(f for f in replay(trace, table).fired if f.id == "16")
    assert 1500 + 601 <= fired.t < 1500 + 601 + 5
