"""What slots publish (compiler.slots.publish): the WithinResourceLimits text 23.0 builds
(`Reqexp::config`) evaluated by HTCondor's own ClassAd library (the wheel) and by ours on
the same slot and job ads; published Cpus/Disk/VirtualMemory rounding."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import evaluate, parse
from compiler.config import load_config
from compiler.slots.layout import build_layout
from compiler.slots.model import Hardware, Slot
from compiler.slots.publish import published_cpus, published_swap, slot_ad, within_resource_limits
from tests.classad.oracle_support import oracle_eval, same

HW = Hardware(8, 8000, 1_000_000, 1_000_000, {"GPUs": ("g0", "g1")})
LAYOUT = build_layout(load_config(text="use feature : GPUs\n"), HW)


def test_pslot_publishes_the_partitionable_attributes() -> None:
    ad = slot_ad(LAYOUT, LAYOUT.slots[0])
    assert ad["SlotType"] == "Partitionable" and ad["PartitionableSlot"] is True
    assert (ad["Cpus"], ad["Memory"], ad["Disk"], ad["VirtualMemory"]) == (
        8,
        8000,
        1_000_000,
        1_000_000,
    )
    assert ad["AssignedGPUs"] == "g0,g1" and ad["GPUs"] == 2 and ad["TotalSlotGPUs"] == 2
    assert ad["MachineResources"] == "Cpus Memory Disk Swap GPUs"
    assert ad["Requirements"].text == "START && (WithinResourceLimits)"


def test_within_resource_limits_orders_custom_names_case_insensitively() -> None:
    text = within_resource_limits(("beta", "Alpha"))
    assert text.index("RequestAlpha") < text.index("Requestbeta")


def test_cpus_rounding() -> None:
    def slot(cpus: float, minimal: bool = False) -> Slot:
        return Slot("slot1", 1, 1, "static", cpus, 1, 0.0, 0.0, minimal=minimal)

    assert [published_cpus(slot(c)) for c in (2.667, 0.95, 1.9, 2.5)] == [2, 1, 2, 2]
    assert published_cpus(slot(0.5, minimal=True)) == 0.5
    quarter = Slot("slot1", 1, 1, "static", 1.0, 1, 0.0, 0.25)
    assert published_swap(quarter, LAYOUT.machine) == 250_000


request = st.one_of(st.none(), st.integers(-1, 10_000))


@settings(max_examples=80, deadline=None)
@given(cpus=request, memory=request, disk=request, gpus=request, slot_cpus=st.integers(0, 8))
@pytest.mark.oracle
def test_within_resource_limits_agrees_with_htcondors_classads(
    cpus, memory, disk, gpus, slot_cpus
) -> None:
    text = within_resource_limits(("GPUs",))
    slot = {"Cpus": slot_cpus, "Memory": 4000, "Disk": 500_000, "GPUs": 1}
    job = {k: v for k, v in (("RequestCpus", cpus), ("RequestMemory", memory),
                             ("RequestDisk", disk), ("RequestGPUs", gpus)) if v is not None}  # fmt: skip
    ours = evaluate(parse(text), slot, job)
    theirs = oracle_eval(text, slot, job)
    assert same(ours, theirs), (ours, theirs)
