"""The 6.x eras' virtual machines (issue 13, "Cross-slot policy": seed 001's VM1/VM2 policy).

Facts from the 6.x startd (V6_4_0 and V6_8_7 `Resource.C`: slots are named `vm%d` and
publish `VirtualMachineID`; `ResMgr.C`: NUM_VIRTUAL_MACHINES, VIRTUAL_MACHINE_TYPE_<N>,
NUM_VIRTUAL_MACHINES_TYPE_<N>, one static VM per CPU by default; V6_8_7 `startd_main.C` and
`Resource::publishVmAttrs`: STARTD_VM_EXPRS, no default, published as `vm<N>_<attr>`).
The expected transition numbers of the example come from the 6.8 table of
shared/reference/transitions.md (section 1.2), not from a run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.slots import Hardware, build_layout, naming, slot_ad, slot_attrs, slot_view
from runtime.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples" / "slots"
HW = Hardware(cpus=4, memory_mb=4096, disk_kb=1_000_000, swap_kb=100_000)


def _layout(text: str, era: str) -> list[tuple[str, str, float]]:
    layout = build_layout(load_config(text=text, era=era), HW)
    return [(s.name, s.kind, s.cpus) for s in layout.slots]


@pytest.mark.parametrize("era", ["condor-6.4", "condor-6.8"])
def test_a_6x_machine_has_one_static_vm_per_cpu(era: str) -> None:
    assert _layout("", era) == [(f"vm{n}", "static", 1.0) for n in range(1, 5)]
    layout = build_layout(load_config(text="", era=era), HW)
    ad = slot_ad(layout, layout.slots[2])
    assert ad["VirtualMachineID"] == 3 and "SlotID" not in ad


def test_the_current_era_keeps_one_partitionable_slot_named_slot1() -> None:
    assert _layout("", "htcondor-current") == [("slot1", "partitionable", 4.0)]
    assert naming("htcondor-current").id_attribute == "SlotID"


@pytest.mark.parametrize("era", ["condor-6.4", "condor-6.8"])
def test_6x_knob_spellings(era: str) -> None:
    # NUM_VIRTUAL_MACHINES: the evenly divided count (ResMgr::countTypes)
    assert [n for n, _, _ in _layout("NUM_VIRTUAL_MACHINES = 2\n", era)] == ["vm1", "vm2"]
    text = (
        "VIRTUAL_MACHINE_TYPE_1 = cpus=3\nNUM_VIRTUAL_MACHINES_TYPE_1 = 1\n"
        "VIRTUAL_MACHINE_TYPE_2 = cpus=1\nNUM_VIRTUAL_MACHINES_TYPE_2 = 1\n"
    )
    assert _layout(text, era) == [("vm1", "static", 3.0), ("vm2", "static", 1.0)]


def test_the_current_era_ignores_the_6x_spellings() -> None:
    assert _layout("NUM_VIRTUAL_MACHINES = 2\n", "htcondor-current") == [
        ("slot1", "partitionable", 4.0)
    ]


def test_cross_slot_knobs_per_era() -> None:
    text = "STARTD_VM_EXPRS = Activity\nSTARTD_SLOT_ATTRS = State\n"
    assert slot_attrs(load_config(text=text, era="condor-6.8")) == ("Activity",)
    assert slot_attrs(load_config(text=text, era="condor-6.4")) == ()  # 6.4 has none
    assert slot_attrs(load_config(text=text, era="htcondor-current")) == ("State",)


def test_slot_view_names_vms_in_6x() -> None:
    config = load_config(text="NUM_CPUS = 2\n", era="condor-6.8")
    assert slot_view(config, "vm2", semantics="code").slot_id == 2
    with pytest.raises(Exception, match="vm1"):
        slot_view(config, "slot2", semantics="code")


def test_seed_001_vm_suspension_runs_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """vm2's background job is suspended while vm1 runs a high-priority job (#14) and
    continues after it (#15); vm1 stays in Owner until matched: its START is locally
    FALSE without a high-priority job (6.8 IsOwner default `START =?= False`)."""
    config = EXAMPLES / "vm-suspension.config"
    trace = EXAMPLES / "vm-suspension-trace.yaml"
    status = main(["run", str(config), "--trace", str(trace), "--era", "condor-6.8",
                   "--format", "jsonl"])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    records = [json.loads(line) for line in out.splitlines() if line]
    assert records, out
    fired = [
        (r["slot"], r["number"], "/".join(r["from"]), "/".join(r["to"]))
        for r in records
        if "number" in r
    ]
    by_slot = {slot: [(n, f, t) for s, n, f, t in fired if s == slot] for slot in ("vm1", "vm2")}
    assert [n for n, _, _ in by_slot["vm2"]] == [1, 6, 9, 11, 14, 15]
    assert by_slot["vm2"][4][1:] == ("Claimed/Busy", "Claimed/Suspended")
    assert by_slot["vm2"][5][1:] == ("Claimed/Suspended", "Claimed/Busy")
    assert [n for n, _, _ in by_slot["vm1"]] == ["unnumbered:match_in_owner", 9, 11, 12, 10, 22]
    # vm2 is suspended exactly while vm1 is Busy
    times = {(r["slot"], r["number"]): r["t"] for r in records if "number" in r}
    assert times[("vm2", 14)] == times[("vm1", 11)]
    assert times[("vm1", 12)] < times[("vm2", 15)]
