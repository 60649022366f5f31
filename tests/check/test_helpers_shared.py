"""The startd helper rules are spec data that both interpreters read, each with its own
code, so the cross-check sees a slip in either (issue 10: "a bug in the shared logic is
invisible to the cross-check while the copies drift").

The story: a desktop slot runs a job from t=0; `condor_vacate` (graceful) at t=20 puts it
into retirement (Claimed/Retiring, #13); MaxJobRetirementTime = 100 seconds of run time
(seed 001 3.5.9 MAXJOBRETIREMENTTIME; reference 3.5 evalRetirementRemaining), so the first
evaluation at or after run time 100 preempts it (#18). Expected times are worked out here
from those rules, not read from either interpreter.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from msgspec.structs import replace as sreplace  # the spec's records and the table

import runtime.ads
import runtime.slot
from compiler import StateTable, compile_policy
from compiler.config import load_config
from compiler.spec import EraSpec
from runtime.check.machines import compiled_machine, config_timers, reference_machine
from runtime.check.reference import PolicyExprs
from runtime.check.search import crosscheck
from runtime.fired import Fired
from runtime.trace import Step, Trace

POLICY = "use POLICY : Desktop\nMaxJobRetirementTime = 100\nMachineMaxVacateTime = 5\n"
MACHINE = {"KeyboardIdle": 3600, "ConsoleIdle": 3600, "LoadAvg": 0.0, "CondorLoadAvg": 0.0,
           "Memory": 2048, "Disk": 100000, "Cpus": 1}  # fmt: skip
TICKS = (40, 60, 80, 90, 94, 95, 96, 100, 110, 150)


def trace(**job: Any) -> Trace:
    steps = [Step(0, "tick"), Step(0, "event", "benchmarks_done"), Step(0, "event", "match"),
             Step(0, "event", "claim"), Step(0, "event", "activate"),
             Step(20, "event", "vacate", "graceful")]  # fmt: skip
    steps += [Step(t, "tick") for t in TICKS]
    return Trace("<retirement>", tuple(steps), machine=MACHINE,
                 job={"Owner": "alice", "JobUniverse": 5, **job}, polling="explicit")  # fmt: skip


@cache
def compiled(era: str, semantics: str) -> tuple[Any, StateTable]:
    config = load_config(text=POLICY, era=era)
    return config, compile_policy(config, era, semantics)


def both(era: str, semantics: str, spec: EraSpec | None, t: Trace) -> tuple[list[Fired], ...]:
    """(compiled machine, reference) fired on `t`, both reading `spec` (default: the era's)."""
    config, table = compiled(era, semantics)
    if spec is not None:
        table = sreplace(table, spec=spec)
    policy = PolicyExprs.from_config(table.spec, config)
    run, _ = compiled_machine(table)
    ref = reference_machine(table.spec, policy, config_timers(table.spec, config))
    return list(run(t).fired), list(ref(t).fired)


def retired_at(fired: list[Fired]) -> float | None:
    return next((f.t for f in fired if f.number == 18), None)


def test_both_read_the_retirement_rule() -> None:
    """condor-6.8 code: no vacate allowance. The job's own limit is the attribute the rule
    names: changing the rule's `job_limit` changes both interpreters alike."""
    era, semantics = "condor-6.8", "code"
    spec = compiled(era, semantics)[1].spec
    run, ref = both(era, semantics, None, trace(MyRetirement=50))
    assert retired_at(run) == retired_at(ref) == 100  # MyRetirement means nothing yet
    renamed = sreplace(spec.helpers, retirement=sreplace(spec.helpers.retirement,
                                                         job_limit="MyRetirement"))  # fmt: skip
    run, ref = both(era, semantics, sreplace(spec, helpers=renamed), trace(MyRetirement=50))
    assert retired_at(run) == retired_at(ref) == 60  # first evaluation with run time >= 50
    assert crosscheck(run, ref) is None


def test_both_read_the_vacate_rule() -> None:
    """htcondor-current: retirement also expires once the max vacate time covers what is
    left (D-allowance, reference 3.5 retirementExpired): with MachineMaxVacateTime = 5 at
    run time 95. A job value of 1 (smaller: it wins) moves it to run time 99 -> tick 100,
    but only once the rule names the job attribute that carries it."""
    era, semantics = "htcondor-current", "manual"
    spec = compiled(era, semantics)[1].spec
    run, ref = both(era, semantics, None, trace(MyVacate=1))
    assert retired_at(run) == retired_at(ref) == 95
    renamed = sreplace(spec.helpers, vacate=sreplace(spec.helpers.vacate, job_limits=("MyVacate",)))
    run, ref = both(era, semantics, sreplace(spec, helpers=renamed), trace(MyVacate=1))
    assert retired_at(run) == retired_at(ref) == 100
    assert crosscheck(run, ref) is None


def test_both_publish_the_cpu_busy_attributes_the_rule_names() -> None:
    """The CpuBusy attributes come from the rule: a renamed attribute is what a policy
    sees in both interpreters (here SUSPEND reads it)."""
    era, semantics = "condor-6.8", "code"
    text = ("use POLICY : Desktop\nCpuBusy = LoadAvg > 0.5\nWANT_SUSPEND = True\n"
            "SUSPEND = MyBusyTime > 30\nCONTINUE = False\n")  # fmt: skip
    config = load_config(text=text, era=era)
    table = compile_policy(config, era, semantics)
    rule = table.spec.helpers.cpu_busy
    publish = tuple(("MyBusyTime" if a == "CpuBusyTime" else a, q) for a, q in rule.publish)
    spec = sreplace(table.spec, helpers=sreplace(table.spec.helpers,
                                                 cpu_busy=sreplace(rule, publish=publish)))  # fmt: skip
    steps = [Step(0, "tick"), Step(0, "event", "benchmarks_done"), Step(0, "event", "match"),
             Step(0, "event", "claim"), Step(0, "event", "activate"),
             Step(10, "set", values={"LoadAvg": 1.0}), Step(10, "tick"), Step(30, "tick"),
             Step(41, "tick"), Step(50, "tick")]  # fmt: skip
    t = Trace("<cpubusy>", tuple(steps), machine=MACHINE, job={"Owner": "alice"},
              polling="explicit")  # fmt: skip
    for chosen in (table.spec, spec):
        mine = sreplace(table, spec=chosen)
        policy = PolicyExprs.from_config(chosen, config)
        run = compiled_machine(mine)[0](t).fired
        ref = reference_machine(chosen, policy)(t).fired
        suspended = [f.t for f in run if f.target == ("Claimed", "Suspended")]
        # busy since t=10: seconds busy > 30 first at the tick of t=41; without the
        # renamed attribute MyBusyTime is UNDEFINED and the job is never suspended
        assert suspended == ([41] if chosen is spec else [])
        assert crosscheck(run, ref) is None


WRONG = {
    # forgets the job's run time: retirement never runs out
    "retirement_remaining": lambda original: (
        lambda state, pair, now, policy, my, rule: original(
            replace(state, job_run=0.0, stint_start=now), pair, now, policy, my, rule
        )
    ),
    # ignores the job's smaller vacate time: the pledge always wins
    "max_vacate_time": lambda original: (
        lambda state, rule, remaining: original(state, sreplace(rule, job_limits=()), remaining)
    ),
}


@pytest.mark.parametrize(("helper", "job"), [("retirement_remaining", {}),
                                             ("max_vacate_time", {"JobMaxVacateTime": 1})])  # fmt: skip
def test_a_wrong_runtime_helper_is_caught(
    monkeypatch: pytest.MonkeyPatch, helper: str, job: dict[str, Any]
) -> None:
    era, semantics = "htcondor-current", "manual"
    run, ref = both(era, semantics, None, trace(**job))
    assert crosscheck(run, ref) is None
    original = getattr(runtime.ads, helper)
    for module in (runtime.ads, runtime.slot):
        if hasattr(module, helper):
            monkeypatch.setattr(module, helper, WRONG[helper](original))
    run, ref = both(era, semantics, None, trace(**job))
    found = crosscheck(run, ref)
    assert found is not None and found.name == "reference-crosscheck"
    assert "18" in found.message, found.message
