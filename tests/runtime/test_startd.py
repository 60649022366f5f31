"""A machine of several slots (runtime.startd.Startd, `run` with a trace's `hardware:`):
dynamic slots carved per claim out of a partitionable slot, each running its own table,
resources given back when one is deleted, and draining that completes only when every
slot of the startd is Drained (issue 13; reference/slots.md section 7, 23.0 command.cpp
`request_claim`, Resource.cpp `create_dslot`/`clear_parent`, IdDispenser.cpp,
ResMgr.cpp `drainingIsComplete`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler import compile_policy
from compiler.config import load_config
from compiler.slots.layout import build_layout, hardware_from
from compiler.slots.partition import NO_FIT
from runtime.cli import main
from runtime.fired import Fired
from runtime.startd import Note, Startd, StartdError
from runtime.trace import read_trace, replay_startd

ROOT = Path(__file__).resolve().parents[2]
DRAIN = ROOT / "docs" / "examples" / "slots" / "pslot-drain-trace.yaml"

POLICY = {
    "START": "True",
    "SUSPEND": "False",
    "PREEMPT": "False",
    "KILL": "False",
    "WANT_SUSPEND": "False",
    "IS_OWNER": "False",
}


def _replay(path: Path) -> Startd:
    trace = read_trace(path)
    config = load_config().with_overrides(dict(trace.config))
    layout = build_layout(config, hardware_from(trace.hardware, str(path)), semantics="code")
    table = compile_policy(config, semantics="code")
    startd: Startd = replay_startd(trace, layout, lambda _record: table, semantics="code")
    return startd


def _fired(startd: Startd, slot: str) -> list[int | str]:
    return [r.number for name, r in startd.log if name == slot and isinstance(r, Fired)]


def _notes(startd: Startd, kind: str) -> list[Note]:
    return [r for _, r in startd.log if isinstance(r, Note) and r.kind == kind]


def test_claims_carve_dynamic_slots_until_the_cores_run_out() -> None:
    """4 cores, 8192 MB: 1 + 2 + 1 cores are carved as slot1_1, slot1_2, slot1_3 (sub-ids
    from 1, reference section 7.8); the fourth 1-core claim finds 0 cores and is refused
    with the startd's message."""
    startd = _replay(DRAIN)
    created = _notes(startd, "created")
    assert [n.dslot for n in created] == ["slot1_1", "slot1_2", "slot1_3"]
    assert [n.resources["Cpus"] for n in created] == [1, 2, 1]
    assert [n.resources["Memory"] for n in created] == [1024, 2048, 1024]
    refused = _notes(startd, "refused")
    assert len(refused) == 1 and refused[0].t == 40 and NO_FIT in refused[0].text


def test_each_dynamic_slot_runs_its_own_machine() -> None:
    """Every dynamic slot starts claimed (no numbered transition: Owner/Idle -> Claimed
    is `accept_request_claim`'s change_state), is activated (#11 Claimed/Idle ->
    Claimed/Busy) and, on a graceful drain, retires (#13 Claimed/Busy ->
    Claimed/Retiring) with no retirement time configured (#18 on to Preempting); the job's
    exit ends it in Owner (#22) and the dynamic slot is deleted."""
    startd = _replay(DRAIN)
    for name in ("slot1_1", "slot1_2", "slot1_3"):
        fired = _fired(startd, name)
        assert fired[:4] == [11, 13, 18, 22], (name, fired)
        assert fired[-1] == "unnumbered:delete"
        assert name not in startd.slots


def test_deleted_dynamic_slots_give_their_resources_back() -> None:
    """`Resource::clear_parent`: after the last deletion the partitionable slot
    publishes its whole size again."""
    startd = _replay(DRAIN)
    back = _notes(startd, "deleted")
    assert [n.dslot for n in back] == ["slot1_1", "slot1_2", "slot1_3"]
    assert back[-1].resources == {"Cpus": 4, "Memory": 8192, "Disk": 4_000_000}
    assert startd.slots["slot1"].ad["Cpus"] == 4


def test_draining_completes_only_when_every_slot_is_drained() -> None:
    """The partitionable slot enters Drained/Retiring at once (#37, code semantics: the
    Draining guard) and leaves for Drained/Idle (#33, AllSlotsDrained) at an evaluation
    after the last dynamic slot is gone, never before."""
    startd = _replay(DRAIN)
    pslot = [
        r
        for name, r in startd.log
        if name == "slot1" and isinstance(r, Fired) and r.number in (33, 37)
    ]
    assert [r.number for r in pslot] == [37, 33]
    last_gone = _notes(startd, "deleted")[-1].t
    assert pslot[1].t >= last_gone
    assert startd.slots["slot1"].pair_tuple() == ("Drained", "Idle")


def test_dynamic_slot_names_reuse_the_lowest_free_number(tmp_path: Path) -> None:
    """IdDispenser: after slot1_1 is deleted the next claim is slot1_1 again."""
    trace = {
        "hardware": {"cpus": 2, "memory_mb": 4096, "disk_kb": 10**6, "swap_kb": 10**5},
        "config": POLICY,
        "machine": {"LastBenchmark": 1, "KeyboardIdle": 10**4},
        "steps": [
            {"t": 1, "slot": "slot1", "event": "claim", "job": _job(1)},
            {"t": 2, "slot": "slot1", "event": "claim", "job": _job(1)},
            {"t": 3, "slot": "slot1_1", "event": "release"},
            {"t": 4, "slot": "slot1", "event": "claim", "job": _job(1)},
        ],
    }
    path = tmp_path / "reuse.yaml"
    path.write_text(json.dumps(trace))
    startd = _replay(path)
    assert [n.dslot for n in _notes(startd, "created")] == ["slot1_1", "slot1_2", "slot1_1"]
    assert [n.dslot for n in _notes(startd, "deleted")] == ["slot1_1"]


def _job(cpus: int) -> dict[str, Any]:
    return {"Owner": "u", "RequestCpus": cpus, "RequestMemory": 100, "RequestDisk": 100}


def test_a_slot_level_event_without_a_slot_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = (
        "hardware: {cpus: 2, memory_mb: 2048, disk_kb: 1000, swap_kb: 1000}\n"
        "config: {NUM_SLOTS_TYPE_1: '2', SLOT_TYPE_1: 'cpus=1'}\n"
        "steps:\n"
        "  - {t: 1, event: activate}\n"
        "  - {t: 2, slot: slot7, event: claim}\n"
    )
    path = tmp_path / "bad.yaml"
    path.write_text(trace)
    assert main(["run", "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4" in err and "needs `slot:`" in err and "Traceback" not in err
    with pytest.raises(StartdError):
        _replay(path)


def test_a_trace_without_hardware_runs_one_slot(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text("steps:\n  - {t: 1, slot: slot2, tick: true}\n")
    with pytest.raises(Exception, match="without `hardware:` runs one slot"):
        read_trace(path)


def test_run_prints_each_report_with_its_slot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--trace", str(DRAIN), "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert all("slot" in r for r in records)
    created = [r for r in records if r.get("startd") == "created"]
    assert [r["dynamic_slot"] for r in created] == ["slot1_1", "slot1_2", "slot1_3"]
    assert {r["slot"] for r in records if "number" in r} == {
        "slot1",
        "slot1_1",
        "slot1_2",
        "slot1_3",
    }


SUSPENDABLE = ROOT / "docs" / "examples" / "slots" / "suspendable-slots.config"
SUSPENDABLE_TRACE = ROOT / "docs" / "examples" / "slots" / "suspendable-slots-trace.yaml"


def _replay_config(config_path: Path, trace_path: Path, **overrides: str) -> Startd:
    from compiler.slots import slot_attrs

    trace = read_trace(trace_path)
    config = load_config(config_path)
    if overrides:
        config = config.with_overrides(overrides)
    layout = build_layout(config, hardware_from(trace.hardware, str(trace_path)), semantics="code")
    tables: dict[int, Any] = {}

    def table_of(record: Any) -> Any:
        if record.slot_id not in tables:
            view = config.slot(record.slot_id, record.type_id)
            tables[record.slot_id] = compile_policy(view, semantics="code")
        return tables[record.slot_id]

    startd: Startd = replay_startd(
        trace, layout, table_of, semantics="code", slot_attrs=slot_attrs(config)
    )
    return startd


def _at(startd: Startd, slot: str, number: int) -> list[float]:
    return [
        r.t
        for name, r in startd.log
        if name == slot and isinstance(r, Fired) and r.number == number
    ]


def test_seed_suspendable_slot_policy_runs_across_slots() -> None:
    """Seed 002's suspendable/nonsuspendable policy: slot2 reads slot1's State through
    `slot1_State` (STARTD_SLOT_ATTRS = State; 23.0 Resource::publish_SlotAttrs), so its
    suspendable job is suspended (#14) once slot1 is Claimed and continued (#15) once
    slot1 has left Claimed; slot1's job is never touched."""
    startd = _replay_config(SUSPENDABLE, SUSPENDABLE_TRACE)
    claimed = _at(startd, "slot1", 9)[0]
    left = _at(startd, "slot1", 10)[0]
    suspended, continued = _at(startd, "slot2", 14), _at(startd, "slot2", 15)
    assert len(suspended) == 1 and claimed <= suspended[0] <= claimed + 5  # next poll
    assert len(continued) == 1 and left <= continued[0] <= left + 5
    assert 14 not in _fired(startd, "slot1")


def test_without_the_cross_slot_attribute_nothing_is_suspended() -> None:
    """Leave State out of STARTD_SLOT_ATTRS: slot1_State is UNDEFINED in slot2's ad,
    `=!= "Claimed"` is then TRUE, and the suspendable job runs on beside slot1's."""
    startd = _replay_config(SUSPENDABLE, SUSPENDABLE_TRACE, STARTD_SLOT_ATTRS="")
    assert _at(startd, "slot2", 14) == []


def test_a_missing_slot_points_at_the_slot_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = (
        "hardware: {cpus: 2, memory_mb: 2048, disk_kb: 1000, swap_kb: 1000}\n"
        "steps:\n"
        "  - {t: 2, slot: slot7, event: claim}\n"
    )
    path = tmp_path / "bad.yaml"
    path.write_text(trace)
    assert main(["run", "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    column = trace.splitlines()[2].index("slot7") + 1
    assert f"{path}:3:{column}: no slot 'slot7'" in err and "Traceback" not in err
