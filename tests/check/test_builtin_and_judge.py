"""Built-in properties and admin-property semantics on recorded runs.

A misbehaving machine is simulated by a hand-written list of fired transitions (what a
faulty runtime would report); the same trace on the reference interpreter must pass."""

from __future__ import annotations

from functools import cache

import pytest

from compiler.config import load_config
from compiler.spec import load_spec
from runtime.check.builtin import BUILTINS, Context
from runtime.check.judge import violation
from runtime.check.machines import reference_machine
from runtime.check.observe import record
from runtime.check.properties import parse_properties
from runtime.check.reference import PolicyExprs
from runtime.check.search import MachineRun, judge
from runtime.fired import Fired
from runtime.trace import Step
from runtime.trace import Trace as TraceFile

MACHINE = (("KeyboardIdle", 1000), ("LoadAvg", 0.0), ("CondorLoadAvg", 0.0), ("ClockMin", 600),
           ("ClockDay", 2), ("Memory", 2048), ("Disk", 10**5), ("Cpus", 1))  # fmt: skip
JOB = (("Owner", "alice"), ("ImageSize", 1000), ("JobUniverse", 5))


def Trace(machine: tuple, job: tuple, steps: tuple[Step, ...]) -> TraceFile:  # type: ignore[type-arg]
    return TraceFile("<test>", steps, machine=dict(machine), job=dict(job), polling="explicit")


def Set(t: int, **values: object) -> Step:
    return Step(t, "set", values=values)


DESKTOP = "use POLICY : Desktop\n"


@cache
def setup(text: str = DESKTOP, era: str = "htcondor-current", semantics: str = "manual"):  # type: ignore[no-untyped-def]
    spec = load_spec(era, semantics)
    policy = PolicyExprs.from_config(spec, load_config(text=text, era=era))
    return spec, policy


def F(t: int, number: int | str, src: str, dst: str, reason: str = "policy") -> Fired:
    s, d = tuple(src.split("/")), tuple(dst.split("/"))
    return Fired(0, t, number, str(number), None, (s[0], s[1]), (d[0], d[1]), reason, reason)


START = [F(0, 1, "Owner/Idle", "Unclaimed/Idle"), F(10, 6, "Unclaimed/Idle", "Matched/Idle"),
         F(12, 9, "Matched/Idle", "Claimed/Idle"), F(15, 11, "Claimed/Idle", "Claimed/Busy")]  # fmt: skip
STEPS = (Step(0, "tick"), Step(10, "event", "match"), Step(12, "event", "claim"),
         Step(15, "event", "activate"))  # fmt: skip


def violated(steps: tuple[Step, ...], fired: list[Fired], name: str, **kw: str) -> bool:
    spec, policy = setup(**kw)
    trace = Trace(MACHINE, JOB, steps)
    found, _ = judge(spec, policy, trace, MachineRun(tuple(fired)), (), None)
    return any(v.name.endswith(name) for v in found)


def reference_passes(steps: tuple[Step, ...], **kw: str) -> bool:
    spec, policy = setup(**kw)
    trace = Trace(MACHINE, JOB, steps)
    run = reference_machine(spec, policy)(trace)
    found, _ = judge(spec, policy, trace, run, (), None)
    return not found


# (name, extra steps, faulty fired tail) — the faulty machine does what the rule forbids
FAULTS = [
    ("suspend-needs-want-suspend-and-suspend", (Step(20, "tick"),),
     [F(20, 14, "Claimed/Busy", "Claimed/Suspended")]),  # keyboard idle: SUSPEND false
    ("continue-needs-continue",
     (Set(20, KeyboardIdle=0), Step(25, "tick"), Step(30, "tick")),
     [F(25, 14, "Claimed/Busy", "Claimed/Suspended"), F(30, 15, "Claimed/Suspended", "Claimed/Busy")]),
    ("kill-only-when-kill",
     (Step(20, "event", "vacate", "graceful"), Step(25, "tick")),
     [F(20, 13, "Claimed/Busy", "Claimed/Retiring"), F(20, 18, "Claimed/Retiring", "Preempting/Vacating"),
      F(25, 21, "Preempting/Vacating", "Preempting/Killing")]),
    ("preempting-ends-in-owner-or-claimed-idle",
     (Step(20, "event", "vacate", "fast"), Step(30, "event", "job_exit")),
     [F(20, 21, "Claimed/Busy", "Preempting/Killing"), F(30, 25, "Preempting/Killing", "Unclaimed/Idle")]),
    ("retirement-honoured", (Step(20, "tick"),),
     [F(20, 13, "Claimed/Busy", "Preempting/Vacating")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "extra", "tail"), FAULTS, ids=[f[0] for f in FAULTS])
def test_builtin_catches_a_faulty_machine(
    name: str, extra: tuple[Step, ...], tail: list[Fired]
) -> None:
    steps = STEPS + extra
    text = (
        "use POLICY : Desktop\nMaxJobRetirementTime = 3600\n"
        if name == "retirement-honoured"
        else DESKTOP
    )
    assert violated(steps, START + tail, name, text=text)
    assert reference_passes(steps, text=text)


def test_owner_leaves_only_when_is_owner_false() -> None:
    steps = (Step(0, "tick"),)
    busy = (("KeyboardIdle", 0), *MACHINE[1:])
    spec, policy = setup()
    trace = Trace(busy, JOB, steps)
    bad = MachineRun((F(0, 1, "Owner/Idle", "Unclaimed/Idle"),))
    found, _ = judge(spec, policy, trace, bad, (), None)
    assert any(v.name.endswith("owner-leaves-only-when-is-owner-false") for v in found)
    good = reference_machine(spec, policy)(trace)
    assert good.fired == ()  # the owner is typing: the slot stays Owner
    assert not judge(spec, policy, trace, good, (), None)[0]


def test_requirements_false_when_unavailable_reads_the_published_ad() -> None:
    spec, policy = setup()
    trace = Trace(MACHINE, JOB, STEPS[:2])
    fired = tuple(START[:2])
    bad = MachineRun(fired, published={1: {"Requirements": True}})
    good = MachineRun(fired, published={1: {"Requirements": False}})
    name = "requirements-false-when-unavailable"
    assert any(v.name.endswith(name) for v in judge(spec, policy, trace, bad, (), None)[0])
    assert not any(v.name.endswith(name) for v in judge(spec, policy, trace, good, (), None)[0])


def test_every_builtin_is_tested() -> None:
    tested = {f[0] for f in FAULTS} | {"owner-leaves-only-when-is-owner-false",
                                       "requirements-false-when-unavailable"}  # fmt: skip
    assert tested == {name for name, _ in BUILTINS}


# -- admin properties -------------------------------------------------------------------

PROPS = parse_properties(
    "never: Preempting/Killing within 600s of JobStart\n"
    "always: Claimed/Busy and KeyboardIdle < 60 => leaves Busy within 2 polls\n"
    "eventually: Owner/Idle => Unclaimed when KeyboardIdle > 900 and LoadAvg < 0.3\n"
)


def moments(steps: tuple[Step, ...], fired: list[Fired], machine=MACHINE):  # type: ignore[no-untyped-def]
    return record(steps, fired, machine=dict(machine), job=dict(JOB))


def test_never_within_of_jobstart() -> None:
    fast_kill = moments((*STEPS, Step(20, "event", "vacate", "fast")),
                        [*START, F(20, 21, "Claimed/Busy", "Preempting/Killing")])  # fmt: skip
    late_kill = moments((*STEPS, Step(700, "event", "vacate", "fast")),
                        [*START, F(700, 21, "Claimed/Busy", "Preempting/Killing")])  # fmt: skip
    assert violation(PROPS[0], fast_kill) is not None
    assert violation(PROPS[0], late_kill) is None


def test_always_leaves_within_polls() -> None:
    typing = (
        *STEPS,
        Set(20, KeyboardIdle=0),
        Step(25, "tick"),
        Step(30, "tick"),
        Step(35, "tick"),
    )
    stays = moments(typing, START)
    leaves = moments(typing, [*START, F(25, 14, "Claimed/Busy", "Claimed/Suspended")])
    too_short = moments(typing[:-1], START)  # one poll after the premise: window still open
    assert violation(PROPS[1], stays) is not None
    assert violation(PROPS[1], leaves) is None
    assert violation(PROPS[1], too_short) is None


def test_eventually_when_condition_keeps_holding() -> None:
    busy_owner = (("KeyboardIdle", 1000), *MACHINE[1:])
    ticks = (Step(0, "tick"), Step(300, "tick"), Step(600, "tick"))
    stuck = moments(ticks, [], busy_owner)
    moved = moments(ticks, [F(0, 1, "Owner/Idle", "Unclaimed/Idle")], busy_owner)
    assert violation(PROPS[2], stuck) is not None
    assert violation(PROPS[2], moved) is None
    loaded = (("LoadAvg", 2.0), *tuple(kv for kv in busy_owner if kv[0] != "LoadAvg"))
    assert violation(PROPS[2], moments(ticks, [], loaded)) is None  # `when` does not hold


def test_context_reads_policy_before_the_transition() -> None:
    spec, policy = setup()
    steps = (*STEPS, Set(20, KeyboardIdle=0), Step(25, "tick"))
    ms = moments(steps, [*START, F(25, 14, "Claimed/Busy", "Claimed/Suspended")])
    ctx = Context(spec, policy, steps)
    k = next(i for i, m in enumerate(ms) if m.fired is not None and m.fired.number == 14)
    assert ctx.value("SUSPEND", ms, k) is True
    assert ms[k - 1].activity == "Busy"
