"""The slot's machine, ad and timers against the manuals' statements (not against itself)."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import time
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from transitions import Machine

from compiler.classad import evaluate
from compiler.machine import GuardCondition, to_transitions, trigger_name
from compiler.spec.ir import Action, Pair
from runtime.ads import (
    SlotState,
    account,
    clock_quantities,
    replaced,
    retirement_remaining,
    totals,
)
from runtime.clock import SimClock
from runtime.eventlog import EventLog
from runtime.sensors.fake import FakeSensors
from runtime.sensors.real import RealSensors, assign_loads
from runtime.slot import Slot, SlotError
from runtime.view import guard_values, render
from tests.runtime.support import compiled

SIMPLE = (
    ("RunBenchmarks", "False"),
    ("WANT_VACATE", "True"),
    ("RANK", 'Owner == "garrison"'),
    ("MaxJobRetirementTime", "3600"),
)


def slot(era: str = "htcondor-current", semantics: str = "manual", **kw: object) -> Slot:
    _, table = compiled(era, semantics, SIMPLE)
    clock = SimClock()
    s = Slot(table, FakeSensors(start=clock.now()), clock, job={"Owner": "tyner"})
    s.start()
    return s


@pytest.mark.parametrize("era", ["condor-6.4", "condor-6.8", "htcondor-current"])
def test_machine_kwargs(era: str) -> None:
    _, table = compiled(era, "manual", SIMPLE)
    kwargs = to_transitions(table)
    assert kwargs["auto_transitions"] is False
    assert set(kwargs["states"]) == {str(p.pair) for p in table.spec.pairs}
    machine = Machine(model=None, **kwargs)
    # every numbered row is a trigger, its conditions are the row's compiled guards
    for row in table.numbered():
        for index, guard in enumerate(row.triggers):
            assert trigger_name(row.id, index) in machine.events
            for spec in kwargs["transitions"]:
                if spec["trigger"] == trigger_name(row.id, index) and guard is not None:
                    assert spec["conditions"][0] == GuardCondition(
                        guard, row.transition.triggers[index].against
                    )


def test_wildcard_row_has_one_transition_per_activity_choice() -> None:
    _, table = compiled("htcondor-current", "manual", SIMPLE)
    specs = [s for s in to_transitions(table)["transitions"] if s["trigger"] == "13#0"]
    assert len(specs) == 1 and specs[0]["dest"] == "Claimed/Retiring"
    specs = [s for s in to_transitions(table)["transitions"] if s["trigger"] == "18#0"]
    assert [s["dest"] for s in specs] == ["Preempting/Vacating", "Preempting/Killing"]
    assert specs[0]["conditions"][-1].after == ()


def test_ad_follows_the_claim() -> None:
    s = slot()
    ad = s.ad
    assert (ad["State"], ad["Activity"], ad["CurrentRank"]) == ("Unclaimed", "Idle", 0.0)
    assert "RemoteOwner" not in ad and "JobStart" not in ad
    s.clock.advance_to(10)
    s.send("match")
    assert evaluate("Requirements", s.ad) is False  # Matched lies about START
    s.send("claim", job={"Owner": "garrison"})
    ad = s.ad
    assert (ad["RemoteOwner"], ad["CurrentRank"], ad["EnteredCurrentState"]) == (
        "garrison",
        1.0,
        1_000_000_010,
    )
    s.clock.advance_to(20)
    s.send("activate")
    assert s.ad["JobStart"] == 1_000_000_020
    assert s.ad["EnteredCurrentActivity"] == 1_000_000_020
    assert s.ad["EnteredCurrentState"] == 1_000_000_010
    s.advance(100)
    assert s.ad["TotalJobRunTime"] == 80


def test_run_time_pauses_while_suspended() -> None:
    state = SlotState(job={"Owner": "x"}, job_running=True, job_start=0.0)
    busy, suspended = Pair("Claimed", "Busy"), Pair("Claimed", "Suspended")
    state = account(state, busy, suspended, 100.0)
    state = account(state, suspended, busy, 160.0)
    assert totals(state, busy, 200.0) == (140.0, 60.0, 140.0, 60.0)


def test_job_may_only_lower_max_job_retirement_time() -> None:
    s = slot()
    s.send("claim")
    s.send("activate")
    here = Pair("Claimed", "Busy")
    base = s.record
    rule = s.spec.helpers.retirement
    assert retirement_remaining(base, here, s.clock.now(), s.policy, s.ad, rule) == 3600
    lower = base.__class__(**{**_fields(base), "job": {"MaxJobRetirementTime": 100}})
    higher = base.__class__(**{**_fields(base), "job": {"MaxJobRetirementTime": 9999}})
    assert retirement_remaining(lower, here, s.clock.now(), s.policy, s.ad, rule) == 100
    assert retirement_remaining(higher, here, s.clock.now(), s.policy, s.ad, rule) == 3600
    peaceful = base.__class__(**{**_fields(base), "peaceful": True})
    assert math.isinf(retirement_remaining(peaceful, here, s.clock.now(), s.policy, s.ad, rule))


def _fields(state: SlotState) -> dict[str, object]:
    return {field.name: getattr(state, field.name) for field in dataclasses.fields(state)}


def test_unknown_event_and_bad_how_are_errors() -> None:
    s = slot()
    with pytest.raises(SlotError, match="unknown event 'evict'"):
        s.send("evict")
    with pytest.raises(SlotError, match="how must be one of"):
        s.send("vacate", how="slowly")


def test_worse_preempting_claim_is_refused() -> None:
    s = slot()
    s.send("claim", job={"Owner": "garrison"})
    s.send("activate")
    assert s.send("preempting_claim", job={"Owner": "tyner"}) is False
    assert s.record.preempting_job is None
    assert s.send("preempting_claim", job={"Owner": "garrison"}) is True
    assert s.pair_tuple() == ("Claimed", "Retiring")


def test_polling_intervals_per_state() -> None:
    s = slot()
    assert s.next_due() == 300  # Unclaimed: UPDATE_INTERVAL
    s.send("claim")
    s.poll()
    assert s.next_due() == 5  # Claimed: POLLING_INTERVAL


def test_cpu_busy_time_is_a_duration_in_6x_and_a_timestamp_now() -> None:
    for era, expected in (("condor-6.8", 40), ("htcondor-current", None)):
        _, table = compiled(era, "manual", (*SIMPLE, ("CpuBusy", "LoadAvg > 0.5")))
        clock = SimClock()
        sensors = FakeSensors(start=clock.now())
        s = Slot(table, sensors, clock)
        s.advance(60)
        s.set_sensors({"LoadAvg": 1.0})
        s.poll()
        s.advance(100)
        busy_time = s.ad["CpuBusyTime"]
        if expected is None:
            assert busy_time == 1_000_000_060 and s.ad["CpuBusyValue"] == 1
        else:
            assert busy_time == expected


def test_idle_times_count_up_from_the_last_value_set() -> None:
    sensors = FakeSensors(start=0.0)
    sensors.set({"KeyboardIdle": 34}, 0.0)
    assert sensors.read(900.0)["KeyboardIdle"] == 934
    sensors.set({"KeyboardIdle": 0}, 1000.0)
    assert sensors.read(1010.0)["KeyboardIdle"] == 10
    assert FakeSensors(idle_ages=False, start=0.0).read(50.0)["KeyboardIdle"] == 0


def test_load_assignment_of_seed_002() -> None:
    # 4 slots, Condor load 1.0 on slot 0, system load 3.4: the 2.4 of owner load goes to
    # the Owner slot first, then to the slots without Condor load, 1.0 at a time
    assert assign_loads(3.4, [1.0, 0, 0, 0], [False, False, True, False]) == pytest.approx(
        [1.0, 1.0, 1.0, 0.4]
    )
    # out of slots with owner load left: the Condor slot goes above 1.0
    assert assign_loads(3.5, [1.0, 0.0], [False, False]) == pytest.approx([2.5, 1.0])
    # out of load first: the remaining slots see none
    assert assign_loads(0.5, [0.0, 0.0, 0.0], [False, True, False]) == pytest.approx(
        [0.0, 0.5, 0.0]
    )
    assert assign_loads(0.7, [0.0], [False]) == pytest.approx([0.7])


def test_real_sensors_read_every_attribute() -> None:
    values = RealSensors().read(1_700_000_000.0)
    for name in ("LoadAvg", "CondorLoadAvg", "TotalLoadAvg", "KeyboardIdle", "ConsoleIdle",
                 "Memory", "Disk", "Cpus", "ClockMin", "ClockDay"):  # fmt: skip
        assert name in values
    assert values["KeyboardIdle"] <= values["ConsoleIdle"]
    assert 0 <= values["ClockMin"] < 24 * 60 and 0 <= values["ClockDay"] <= 6


def test_event_log_is_one_flushed_json_line_per_record() -> None:
    stream = io.StringIO()
    _, table = compiled("htcondor-current", "manual", SIMPLE)
    log = EventLog(stream)
    s = Slot(table, listener=log)
    s.start()
    s.send("match")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [r["kind"] for r in records if r["kind"] == "transition"] == ["transition"] * 2
    assert records[-1]["kind"] in ("transition", "timer")
    assert any(r.get("reason") == "protocol match" for r in records)


def test_view_renders_guards_with_values() -> None:
    s = slot()
    rows = guard_values(s)
    assert ("2", "false", False) in rows or all(n != "2" for n, _, _ in rows)
    assert render(s) is not None


def test_actions_of_the_spec_are_all_known() -> None:
    from runtime.ads import Env, apply_action

    _, table = compiled("htcondor-current", "code", SIMPLE)
    s = slot(semantics="code")
    env = Env(0.0, table.spec, s.policy, s.ad)
    seen: set[str] = set()
    for row in table.rows:
        for action in (*row.transition.actions, *(a for t in row.transition.triggers for a in t.actions)):  # fmt: skip
            seen.add(str(action))
            apply_action(SlotState(), action, env)
    for pair in table.spec.pairs:
        for action in (*pair.on_enter, *pair.on_exit):
            apply_action(SlotState(), action, env)
    assert "retire:irreversible" in seen
    with pytest.raises(ValueError):
        apply_action(SlotState(), Action("teleport"), env)


@pytest.mark.parametrize("semantics", ["code", "manual"])
@pytest.mark.parametrize("era", ["condor-6.4", "condor-6.8", "htcondor-current"])
def test_only_the_actions_reading_my_need_the_ad(era: str, semantics: str) -> None:
    """A slot builds its ad for an action only when the action is in READS_MY: every
    other action of every era's table and pairs applies with an ad that cannot be read,
    and each of READS_MY reads it in the current era (the older ones have no vacate limit,
    and this policy no RANK of theirs) when its expression reads the slot's ad (the
    vacate limit and PREEMPT are made to: a constant is evaluated without an ad)."""
    from runtime.ads import READS_MY, Env, Unbuilt, apply_action

    policy = (*SIMPLE, ("MachineMaxVacateTime", "10 * Cpus"), ("PREEMPT", "Cpus > 64"))
    _, table = compiled(era, semantics, policy)
    s = Slot(table, FakeSensors(start=SimClock().now()), SimClock(), job={"Owner": "tyner"})
    blind = Env(0.0, table.spec, s.policy, Unbuilt(), {"Owner": "tyner"})
    actions = [a for row in table.rows for a in row.transition.actions]
    actions += [a for row in table.rows for t in row.transition.triggers for a in t.actions]
    actions += [a for pair in table.spec.pairs for a in (*pair.on_enter, *pair.on_exit)]
    state = SlotState(job={"Owner": "tyner"})
    for action in actions:
        if action.name not in READS_MY:
            apply_action(state, action, blind)
    for name, arg in (("start_job", None), ("set_preempt_latch", "if_preempt"),
                      ("begin_claim", None)):  # fmt: skip
        assert name in READS_MY
        if era != "htcondor-current":
            continue
        with pytest.raises(RuntimeError, match="READS_MY"):
            apply_action(state, Action(name, arg), blind)


@pytest.mark.parametrize(
    ("era", "semantics", "small", "big"),
    [
        ("htcondor-current", "code", True, False),
        ("htcondor-current", "manual", True, True),
        ("condor-6.8", "code", True, True),
    ],
)
def test_requirements_as_published(era: str, semantics: str, small: bool, big: bool) -> None:
    """Reference 5: current code Requirements = START && WithinResourceLimits; manual START."""
    _, table = compiled(era, semantics, (*SIMPLE, ("START", "True")))
    s = Slot(table)
    s.start()
    s.poll()
    assert s.state == "Unclaimed"
    for request, expected in ((1, small), (10**9, big)):
        job = {"RequestMemory": request, "JobUniverse": 5}
        assert evaluate("Requirements", s.ad, job) is expected


def test_view_shows_policy_values_for_the_claims_job() -> None:
    from runtime.view import policy_values

    s = slot()
    s.send("claim", job={"Owner": "garrison"})
    values = {name: value for name, _, value in policy_values(s)}
    assert values["RANK"] == "true" and values["START"] == "true"
    assert values["MaxJobRetirementTime"] == "3600" and values["WANT_VACATE"] == "true"


class _Measured:
    """Sensors the slot only reads (as RealSensors): a load that rises at t=100."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def read(self, now: float) -> dict[str, object]:
        return {"LoadAvg": 2.0 if now >= 100 else 0.0, "KeyboardIdle": 5000}


class _Scripted(_Measured):
    """The same values, set by a driver that says so (runtime.sensors `scripted`)."""

    scripted = True


@pytest.mark.parametrize(("sensors", "logged"), [(_Measured, True), (_Scripted, False)])
def test_measured_sensor_changes_are_logged_scripted_ones_are_not(
    sensors: type[_Measured], logged: bool
) -> None:
    _, table = compiled("htcondor-current", "code", SIMPLE)
    clock = SimClock()
    records: list[dict[str, object]] = []
    s = Slot(table, sensors(), clock, listener=records.append)
    s.start()
    s.advance(200)
    loads = [r for r in records if r.get("kind") == "sensor" and r.get("name") == "LoadAvg"]
    assert (2.0 in [r["value"] for r in loads]) is logged


def _field_values(name: str) -> st.SearchStrategy[object]:
    """Values of the kind a SlotState field holds (by its default)."""
    default = next(f.default for f in dataclasses.fields(SlotState) if f.name == name)
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, float):
        return st.floats(allow_nan=False)
    return st.none() | st.text(max_size=3) | st.dictionaries(st.text(max_size=2), st.integers())


_CHANGES = st.sets(st.sampled_from([f.name for f in dataclasses.fields(SlotState)])).flatmap(
    lambda names: st.fixed_dictionaries({name: _field_values(name) for name in sorted(names)})
)


@given(start=_CHANGES, changes=_CHANGES)
def test_replaced_is_dataclasses_replace(
    start: dict[str, object], changes: dict[str, object]
) -> None:
    state = SlotState(**start)  # type: ignore[arg-type]
    new = replaced(state, **changes)
    assert new == dataclasses.replace(state, **changes)
    assert vars(new) == vars(dataclasses.replace(state, **changes))  # the fields, no more
    assert type(new) is SlotState and new is not state
    assert state == SlotState(**start)  # type: ignore[arg-type]  # the old record stays


@example(now=0.0)
@example(now=-0.5)  # gmtime counts seconds down: 31 December 1969, 23:59, a Wednesday
@example(now=86_399.999)
@example(now=1_000_000_000.0)
@given(now=st.floats(min_value=-3e9, max_value=4e9, allow_nan=False))
def test_clock_min_and_clock_day_are_what_gmtime_says(now: float) -> None:
    """ClockMin and ClockDay (`clock_quantities`, by arithmetic) are the minutes since
    midnight and the day of the week (0 on Sunday) of `time.gmtime(now)`."""
    told = time.gmtime(now)
    found = clock_quantities(SlotState(), Pair("Owner", "Idle"), now)
    assert found["clock_min"] == told.tm_hour * 60 + told.tm_min
    assert found["clock_day"] == (told.tm_wday + 1) % 7


def test_replaced_refuses_a_name_that_is_no_field() -> None:
    with pytest.raises(TypeError, match="no field 'jobs'"):
        replaced(SlotState(), jobs=None)


def _driven(table: Any, events: tuple[tuple[int, str], ...], **kwargs: Any) -> Slot:
    """A slot of `table` started, sent `events` ((time, event), ...), then its owner
    typing (KeyboardIdle 0) and its clock moved on to 400 s."""
    clock = SimClock()
    slot = Slot(table, FakeSensors(start=clock.now()), clock, job={"Owner": "tyner"}, **kwargs)
    slot.start()
    for t, event in events:
        clock.advance_to(t)
        slot.send(event)
    slot.set_sensors({"KeyboardIdle": 0})
    slot.advance(400)
    return slot


def test_a_slot_that_does_not_explain_fires_the_same_transitions() -> None:
    """`explain=False` leaves out each fired transition's reason and the values its
    guards read (in `Slot.fired` and the transition records), and nothing else: the same
    transitions at the same times, the same records otherwise."""
    _, table = compiled("htcondor-current", "code", (*SIMPLE, ("START", "KeyboardIdle > 100")))
    logs: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    events = ((200, "match"), (201, "claim"), (202, "activate"), (290, "job_exit"))
    slots = {
        explain: _driven(table, events, listener=logs[explain].append, explain=explain)
        for explain in (True, False)
    }
    told, untold = slots[True].fired, slots[False].fired
    assert len(told) >= 5 and any(f.values for f in told)
    assert all(f.reason for f in told)
    assert [f.reason for f in untold] == [""] * len(told)
    assert [f.values for f in untold] == [{}] * len(told)
    blank = {"reason": "", "values": {}}
    assert [dataclasses.replace(f, **blank) for f in told] == untold
    assert [{**r, **blank} if r["kind"] == "transition" else r for r in logs[True]] == logs[False]


def test_a_listener_of_some_kinds_is_given_those_records_as_every_listener_is() -> None:
    """`listen=` keeps the listener to the kinds it names: the same records of those
    kinds, in the same order, as a listener of every kind is given (and no other)."""
    _, table = compiled("htcondor-current", "code", SIMPLE)
    logs: dict[str, list[dict[str, Any]]] = {"all": [], "some": []}
    events = ((10, "match"), (11, "claim"), (12, "activate"), (90, "job_exit"))
    for key, listen in (("all", None), ("some", ("transition", "timer"))):
        _driven(table, events, listener=logs[key].append, listen=listen)
    kinds = {r["kind"] for r in logs["all"]}
    assert {"transition", "timer", "event", "job", "sensor"} <= kinds
    wanted = [r for r in logs["all"] if r["kind"] in ("transition", "timer")]
    assert logs["some"] == wanted and len(wanted) < len(logs["all"])
