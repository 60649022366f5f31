"""Slot layouts (compiler.slots.layout): seed 002's configuration examples, 23.0's refusals,
HTCondor's own tests of slot layouts, and properties of the allocation.

Expected numbers come from the seed's text, shared/reference/slots.md (re-derived from
23.0 `slot_builder.cpp`), or the assertions of HTCondor's tests (cited per test).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.config import load_config
from compiler.errors import PolicyError
from compiler.slots.layout import SlotLayoutError, build_layout, split_items, standard_name
from compiler.slots.model import Hardware
from compiler.slots.publish import published_cpus, published_disk, slot_ad

HW = Hardware(cpus=4, memory_mb=256, disk_kb=1_000_000, swap_kb=2_000_000)


def layout(text: str, hardware: Hardware = HW, semantics: str = "code"):
    return build_layout(load_config(text=text), hardware, semantics=semantics)


def refusal(text: str, hardware: Hardware = HW, semantics: str = "code") -> SlotLayoutError:
    with pytest.raises(SlotLayoutError) as caught:
        layout(text, hardware, semantics)
    return caught.value


# -- how many slots of which kind (seed "Dividing System Resources"; reference section 2) ------


def test_no_configuration_is_one_partitionable_slot_with_everything() -> None:
    # seed: "Beginning with HTCondor 23.0 the condor_startd will create a single
    # partitionable slot by default" (both semantics agree).
    for semantics in ("code", "manual"):
        built = layout("", semantics=semantics)
        assert [s.name for s in built.slots] == ["slot1"]
        (slot,) = built.slots
        assert slot.kind == "partitionable"
        assert (slot.cpus, slot.memory, slot.disk) == (4, 256, 1.0)


def test_num_slots_alone_is_partitionable_in_23_0_static_in_the_seed() -> None:
    # reference section 12 difference 1 (Resource.cpp SlotType::init_types).
    code = layout("NUM_SLOTS = 4\n")
    assert [s.kind for s in code.slots] == ["partitionable"] * 4
    manual = layout("NUM_SLOTS = 4\n", semantics="manual")
    assert [s.kind for s in manual.slots] == ["static"] * 4
    assert [s.cpus for s in manual.slots] == [1.0] * 4
    assert [s.memory for s in manual.slots] == [64] * 4
    static = layout("NUM_SLOTS = 4\nSLOT_TYPE_0_PARTITIONABLE = false\n")
    assert [s.kind for s in static.slots] == ["static"] * 4


def test_num_slots_beyond_the_cores_is_refused() -> None:
    # seed: "NUM_SLOTS may not be used to make HTCondor advertise more slots than there are
    # cores"; 23.0 computeAutoShares: an auto share below one core.
    for text, semantics in (("NUM_SLOTS = 8\n", "manual"), ("NUM_SLOTS = 8\n", "code")):
        err = refusal(text, semantics=semantics)
        assert "during auto allocation of resources" in err.log
        assert "slot id 1 (slot type 0)" in err.log
        assert "Ran out of system resources in auto allocation" in err.outcome


def test_static_slots_template_gives_one_core_slots() -> None:
    # seed: "use FEATURE : StaticSlots ... single core static slots equal to the number of
    # detected cpu cores"; the hardware's cores are the detected ones.
    built = layout("use FEATURE : StaticSlots\n", Hardware(6, 600, 600_000, 0))
    assert [s.kind for s in built.slots] == ["static"] * 6
    assert {(s.cpus, s.memory) for s in built.slots} == {(1.0, 100)}


def test_partitionable_template_and_the_seeds_one_slot_setting() -> None:
    hw = Hardware(10, 10240, 10_240_000, 0)
    seed = "NUM_SLOTS = 1\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\nSLOT_TYPE_1_PARTITIONABLE = TRUE\n"
    for text in (seed, "use FEATURE : PartitionableSlot\n"):
        (slot,) = layout(text, hw).slots
        assert (slot.kind, slot.type_id, slot.cpus, slot.memory) == ("partitionable", 1, 10, 10240)


def test_slots_are_numbered_by_type_not_by_line_order() -> None:
    text = "NUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_2 = 50%\nNUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_1 = 25%\n"
    built = layout(text)
    assert [(s.name, s.type_id) for s in built.slots] == [("slot1", 1), ("slot2", 1), ("slot3", 2)]


def test_slot_type_without_count_is_never_parsed() -> None:
    # reference section 2: an unused SLOT_TYPE_<N> is not reported even when invalid.
    built = layout("SLOT_TYPE_3 = 150%\n")
    assert len(built.slots) == 1


# -- SLOT_TYPE_<N> items (seed's examples on 4 cores and 256 MB) -------------------------------

SEED_TYPES = {
    1: "cpus=2, ram=128, swap=25%, disk=1/2",
    2: "cpus=1/2, memory=128, virt=25%, disk=50%",
    3: "c=1/2, m=50%, v=1/4, disk=1/2",
    4: "c=25%, m=64, v=1/4, d=25%",
    5: "25%",
    6: "1/4",
}


@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_the_seeds_equivalent_slot_types(semantics: str) -> None:
    # seed: "Types 1-3 are all equivalent to each other, as are types 4-6."
    got = {}
    for type_id, value in SEED_TYPES.items():
        text = f"SLOT_TYPE_{type_id} = {value}\nNUM_SLOTS_TYPE_{type_id} = 1\n"
        (slot, _auto) = layout(text + _one_auto(type_id), semantics=semantics).slots[:2]
        got[type_id] = (slot.cpus, slot.memory, round(slot.swap, 6), slot.disk)
    assert got[1] == got[2] == got[3] == (2.0, 128, 0.25, 0.5)
    assert got[4] == got[5] == got[6] == (1.0, 64, 0.25, 0.25)


def _one_auto(type_id: int) -> str:
    """A second slot of another type so that the first is not alone (any shares left)."""
    other = 9 if type_id != 9 else 8
    return f"NUM_SLOTS_TYPE_{other} = 1\n"


def test_the_seeds_128_mb_memory_equivalence_needs_two_auto_slots() -> None:
    # seed: on 128 MB, mem=64, mem=1/2, mem=50% and mem=auto give the same amount;
    # reference section 12 difference 8: auto is half only when another slot shares it.
    hw = Hardware(2, 128, 1000, 1000)
    for value in ("mem=64", "mem=1/2", "mem=50%", "mem=auto"):
        text = f"SLOT_TYPE_1 = {value}\nNUM_SLOTS_TYPE_1 = 1\nNUM_SLOTS_TYPE_2 = 1\n"
        assert layout(text, hw).slots[0].memory == 64, value


def test_blanket_value_and_explicit_auto_disk() -> None:
    # seed: "In both of the following examples, the disk share is set to auto, number of
    # cores is 1, and everything else is 50%".
    hw = Hardware(4, 256, 1000, 1000)
    shapes = set()
    for value in ("cpus=1, ram=1/2, swap=50%", "cpus=1, disk=auto, 50%"):
        built = layout(f"SLOT_TYPE_1 = {value}\nNUM_SLOTS_TYPE_1 = 1\n", hw)
        slot = built.slots[0]
        shapes.add((slot.cpus, slot.memory, round(slot.swap, 6), slot.disk))
    assert shapes == {(1.0, 128, 0.5, 1.0)}


def test_resource_names_are_prefixes_in_23_0_first_letters_in_the_seed() -> None:
    # reference section 3 / section 12 difference 2 (slot_builder.cpp buildSlot).
    for name, resource in (("c", "Cpus"), ("CPU", "Cpus"), ("Mem", "Memory"), ("r", "Memory"),
                           ("virt", "Swap"), ("VirtualMemory", "Swap"), ("d", "Disk")):  # fmt: skip
        assert standard_name(name, "code") == resource
        assert standard_name(name, "manual") == resource
    assert standard_name("Cores", "code") is None
    assert standard_name("Cores", "manual") == "Cpus"
    assert standard_name("dsk", "code") is None
    err = refusal("SLOT_TYPE_1 = Cores=2\nNUM_SLOTS_TYPE_1 = 1\n")
    assert err.log == 'Unknown attribute "Cores" in slot type 1'
    (slot, *_rest) = layout(
        "SLOT_TYPE_1 = Cores=2\nNUM_SLOTS_TYPE_1 = 1\n", semantics="manual"
    ).slots
    assert slot.cpus == 2


def test_item_splitting_at_commas_and_spaces() -> None:
    assert split_items("cpus=2, ram=128") == ["cpus=2", "ram=128"]
    assert split_items("cpus = 2") == ["cpus", "=", "2"]
    assert split_items("GPUs = 2 : Capability >= 8.0\n90%") == [
        "GPUs = 2 : Capability >= 8.0",
        "90%",
    ]


# -- refusals (reference section 4a), each with the startd's log text ---------------------------

REFUSALS = [
    ("SLOT_TYPE_1 = 2\nNUM_SLOTS_TYPE_1 = 1\n",
     'ERROR: Bad description of slot type 1: "2" is invalid.', "exit status 4"),
    ("SLOT_TYPE_1 = 150%\nNUM_SLOTS_TYPE_1 = 1\n",
     'ERROR: Bad description of slot type 1: "150%" is invalid.', "exit status 4"),
    ("SLOT_TYPE_1 = cpus=\nNUM_SLOTS_TYPE_1 = 1\n",
     'Can\'t parse attribute "cpus=" in description of slot type 1', "exit status 4"),
    ("SLOT_TYPE_1 = cpus=1/0\nNUM_SLOTS_TYPE_1 = 1\n",
     'Can\'t parse attribute "1/0" in description of slot type 1', "exit status 4"),
    ("SLOT_TYPE_1 = cpus = 2\nNUM_SLOTS_TYPE_1 = 1\n",
     'Can\'t parse attribute "=" in description of slot type 1', "exit status 4"),
    ("SLOT_TYPE_1 = disk=100\nNUM_SLOTS_TYPE_1 = 1\n",
     "You must specify a percent or fraction for disk in slot type 1", "exit status 4"),
    ("SLOT_TYPE_1 = swap=100\nNUM_SLOTS_TYPE_1 = 1\n",
     "You must specify a percent or fraction for swap in slot type 1", "exit status 4"),
    ("SLOT_TYPE_1 = gizmos=3\nNUM_SLOTS_TYPE_1 = 1\n",
     'Unknown attribute "gizmos" in slot type 1', "exit status 4"),
    ("SLOT_TYPE_0 = 50%\n", "Can't define SLOT_TYPE_0 in the config file",
     "EXCEPT Can't define SLOT_TYPE_0"),
    ("NUM_SLOTS_TYPE_0 = 2\n", "Can't define NUM_SLOTS_TYPE_0 in the config file",
     "EXCEPT Can't define NUM_SLOTS_TYPE_0"),
    ("SLOT_TYPE_1 = cpus=3\nNUM_SLOTS_TYPE_1 = 2\n",
     "ERROR: Can't allocate 2nd slot of type 1", "EXCEPT Ran out of system resources"),
    ("SLOT_TYPE_1 = mem=200\nNUM_SLOTS_TYPE_1 = 2\n",
     "ERROR: Can't allocate 2nd slot of type 1", "EXCEPT Ran out of system resources"),
    ("SLOT_TYPE_1 = 60%\nNUM_SLOTS_TYPE_1 = 2\n",
     "ERROR: Can't allocate 2nd slot of type 1", "EXCEPT Ran out of system resources"),
    ("MACHINE_RESOURCE_Mem = 4\n",
     "fatal error - MACHINE_RESOURCE_Mem is invalid, 'Mem' is a reserved resource name",
     "EXCEPT fatal error"),
    ("MEMORY = 100\nRESERVED_MEMORY = 200\n", "Error computing physical memory",
     "EXCEPT Can't compute physical memory."),
    ("MACHINE_RESOURCE_Gizmos = a b\nSLOT_TYPE_1 = gizmos=1:\"c\"\nNUM_SLOTS_TYPE_1 = 1\n",
     "Failed to bind local resource 'Gizmos'", "EXCEPT Failed to bind local resource"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "log", "outcome"), REFUSALS)
def test_refusals_carry_the_startds_log_text(text: str, log: str, outcome: str) -> None:
    err = refusal(text)
    assert err.log.startswith(log)
    assert outcome in err.outcome
    assert err.log in err.message and err.file in ("<input>", "<config>")


def test_harmless_unknown_names_and_zero_items() -> None:
    # reference section 3: an unknown name with a share, auto or 0 is ignored; bare 0 is "nothing".
    built = layout("SLOT_TYPE_1 = gpus=0, dsk=50%, 0\nNUM_SLOTS_TYPE_1 = 1\n")
    slot = built.slots[0]
    assert (slot.cpus, slot.memory) == (1.0, 1)


def test_fractional_cores_truncate_the_remainder() -> None:
    # reference section 4: 3 auto p-slots on 8 cores get 2.667 cores each, published 2.
    built = layout("NUM_SLOTS = 3\n", Hardware(8, 3000, 3000, 3000))
    assert [round(s.cpus, 3) for s in built.slots] == [2.667] * 3
    assert [published_cpus(s) for s in built.slots] == [2, 2, 2]
    # and on 4 cores explicit 1/3 shares leave int(4-1.333)=2, then 0, then -1 < 0.
    err = refusal("SLOT_TYPE_1 = cpus=1/3\nNUM_SLOTS_TYPE_1 = 4\n", Hardware(4, 3000, 3000, 3000))
    assert err.log == "ERROR: Can't allocate 3rd slot of type 1"


def test_three_auto_slots_round_disk_up() -> None:
    # reference section 5: 3 auto slots on 1,000,000 KB publish 333334 each.
    built = layout(
        "NUM_SLOTS = 3\nSLOT_TYPE_0_PARTITIONABLE = false\n", Hardware(3, 300, 1_000_000, 0)
    )
    assert [published_disk(s, built.machine) for s in built.slots] == [333334] * 3


# -- custom resources (seed's Cogs and GPU examples) ------------------------------------------

COGS = """
MACHINE_RESOURCE_Cogs = 16
MACHINE_RESOURCE_actuator = 8
SLOT_TYPE_1 = cogs=50%,actuator=6,50%
SLOT_TYPE_1_PARTITIONABLE = TRUE
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = cogs=25%,actuator=1,25%
SLOT_TYPE_2_PARTITIONABLE = FALSE
NUM_SLOTS_TYPE_2 = 2
"""


def test_the_seeds_cogs_and_actuators() -> None:
    built = layout(COGS, Hardware(8, 8000, 8000, 8000))
    got = [(s.kind, s.custom["Cogs"], s.custom["actuator"], s.cpus) for s in built.slots]
    assert got == [("partitionable", 8, 6, 4), ("static", 4, 1, 2), ("static", 4, 1, 2)]
    ad = slot_ad(built, built.slots[0])
    assert (ad["TotalCogs"], ad["DetectedCogs"], ad["TotalSlotCogs"], ad["Cogs"]) == (16, 16, 8, 8)
    assert "AssignedCogs" not in ad  # a fungible quantity has no ids


GPU_CONFIG = """
use feature : GPUs
SLOT_TYPE_1 @=slot
    GPUs = 2 : Capability >= 8.0
    90%
@slot
SLOT_TYPE_1_PARTITIONABLE = TRUE
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 @=slot
    GPUs = 1 : "GPU-6a96bd13"
    CPUs = 1
    Memory = 10
@slot
SLOT_TYPE_2_PARTITIONABLE = FALSE
NUM_SLOTS_TYPE_2 = 1
SLOT_TYPE_3 = auto
SLOT_TYPE_3_PARTITIONABLE = FALSE
NUM_SLOTS_TYPE_3 = 2
"""
GPU_IDS = ("GPU-1c2d3e4f", "GPU-6a96bd13", "GPU-8e7f6a5b", "GPU-9f8e7d6c")
GPU_PROPS = {i: {"Capability": c} for i, c in zip(GPU_IDS, (7.5, 7.5, 8.0, 8.0), strict=True)}


def gpu_hardware(cpus: int) -> Hardware:
    return Hardware(cpus, 65536, 1_000_000, 1_000_000, {"GPUs": GPU_IDS}, GPU_PROPS)


def test_the_seeds_gpu_constraints_on_32_cores() -> None:
    # seed "Configuring GPUs"; numbers from reference section 6.
    built = layout(GPU_CONFIG, gpu_hardware(32))
    ads = [slot_ad(built, s) for s in built.slots]
    assert [a["Cpus"] for a in ads] == [28, 1, 1, 1]
    assert [a["Memory"] for a in ads] == [58982, 10, 3272, 3272]
    assert [a["GPUs"] for a in ads] == [2, 1, 1, 0]
    assert [a.get("AssignedGPUs") for a in ads] == [
        "GPU-8e7f6a5b,GPU-9f8e7d6c", "GPU-6a96bd13", "GPU-1c2d3e4f", None,
    ]  # fmt: skip
    assert ads[0]["SlotType"] == "Partitionable" and ads[0]["PartitionableSlot"] is True
    assert (ads[3]["TotalGPUs"], ads[3]["DetectedGPUs"]) == (4, 4)


def test_the_seeds_gpu_example_needs_30_cores() -> None:
    # reference section 12 difference 7: on 16 cores 90% is 14.4, one core is left.
    err = refusal(GPU_CONFIG, gpu_hardware(16))
    assert (
        err.log
        == "ERROR: Can't allocate slot id 3 (slot type 3) during auto allocation of resources"
    )


def test_machine_resource_names_filters_and_offline_ids() -> None:
    text = (
        "MACHINE_RESOURCE_Cogs = 4\nMACHINE_RESOURCE_Gizmos = g0 g1 g2\n"
        "OFFLINE_MACHINE_RESOURCE_Gizmos = g1\nMACHINE_RESOURCE_NAMES = Gizmos\n"
    )
    built = layout(text)
    assert dict(built.machine.custom) == {"Gizmos": 2.0}
    assert built.slots[0].assigned["Gizmos"] == ("g0", "g2")
    err = refusal(text + "SLOT_TYPE_1 = cogs=1\nNUM_SLOTS_TYPE_1 = 1\n")
    assert err.log == 'Unknown attribute "cogs" in slot type 1'


def test_custom_auto_shares_give_the_excess_to_the_first_slots() -> None:
    # reference section 4 phase 2: 5 over 3 -> 2, 2, 1.
    built = layout("MACHINE_RESOURCE_Cogs = 5\nNUM_SLOTS_TYPE_1 = 3\n")
    assert [s.custom["Cogs"] for s in built.slots] == [2, 2, 1]


# -- HTCondor's own tests ---------------------------------------------------------------------


def test_basic_startd_slot_attrs_memory_per_slot() -> None:
    # src/condor_tests/basic_startd_slot_attrs.run: four static types of 25% cores and
    # 500/200/700/300 MB -> condor_status shows those memories on slot1..slot4.
    text = "NUM_CPUS = 4\n" + "".join(
        f"SLOT_TYPE_{n} = cpus=25%,mem={m}\nSLOT_TYPE_{n}_PARTITIONABLE = FALSE\nNUM_SLOTS_TYPE_{n} = 1\n"
        for n, m in ((1, 500), (2, 200), (3, 700), (4, 300))
    )
    built = layout(text, Hardware(8, 4096, 100_000, 100_000))
    assert [(s.name, s.memory, s.cpus) for s in built.slots] == [
        ("slot1", 500, 1), ("slot2", 200, 1), ("slot3", 700, 1), ("slot4", 300, 1),
    ]  # fmt: skip


def test_job_local_resources_static_slot() -> None:
    # src/condor_tests/job_local_resources.run ("staticslots"): 2 of each resource,
    # `cpus=1, beers=1, boats=50%, sails=1/2` -> TotalSlotBeers 1 on the static slot.
    text = (
        "MACHINE_RESOURCE_Beers = 2\nMACHINE_RESOURCE_Boats = 2\nMACHINE_RESOURCE_Sails = 2\n"
        "SLOT_TYPE_1 = cpus=1, beers=1, boats=50%, sails=1/2\nNUM_SLOTS_TYPE_1 = 1\n"
    )
    (slot,) = layout(text).slots
    assert dict(slot.custom) == {"Beers": 1, "Boats": 1, "Sails": 1}
    # "pslots": one p-slot with 100% of everything owns both beers.
    text = (
        "MACHINE_RESOURCE_beers = 2\nNUM_SLOTS=1\nNUM_SLOTS_TYPE_1 = 1\n"
        "SLOT_TYPE_1_PARTITIONABLE = TRUE\nSLOT_TYPE_1 = cpus=100%,disk=100%,swap=100%,beers=100%\n"
    )
    (slot,) = layout(text).slots
    assert slot.custom["beers"] == 2 and slot.kind == "partitionable"


def test_job_partitionable_basic_van_pslot() -> None:
    # src/condor_tests/job_partitionable_basic_van.run: NUM_CPUS = 20, cpus=20, one p-slot.
    text = "NUM_CPUS = 20\nSLOT_TYPE_1 = cpus=20\nSLOT_TYPE_1_PARTITIONABLE = TRUE\nNUM_SLOTS_TYPE_1 = 1\n"
    (slot,) = layout(text, Hardware(2, 2000, 1000, 1000)).slots
    assert (slot.kind, published_cpus(slot)) == ("partitionable", 20)


# -- properties ----------------------------------------------------------------------------------

share = st.sampled_from(["auto", "1", "2", "25%", "50%", "1/4", "1/2", "10%"])


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    cpus=st.lists(share, min_size=3, max_size=3),
    mems=st.lists(share, min_size=3, max_size=3),
    cores=st.integers(1, 16),
)
def test_a_built_layout_never_over_commits(counts, cpus, mems, cores) -> None:
    text = "".join(
        f"NUM_SLOTS_TYPE_{n} = {c}\nSLOT_TYPE_{n} = cpus={cpus[n - 1]} mem={mems[n - 1]}\n"
        for n, c in enumerate(counts, start=1)
    )
    try:
        built = layout(text, Hardware(cores, 1024, 10_000, 10_000))
    except SlotLayoutError:
        return
    assert sum(int(s.cpus + 0.1) for s in built.slots) <= cores
    assert sum(s.memory for s in built.slots) <= 1024
    assert sum(s.disk for s in built.slots) <= 1 + 1e-9


def test_counts_are_read_as_param_integer_reads_them() -> None:
    # an expression that evaluates to a number is a count; anything else is an error.
    built = layout("NUM_SLOTS_TYPE_1 = 2 * 2\nSLOT_TYPE_1 = 25%\n")
    assert len(built.slots) == 4
    with pytest.raises(PolicyError) as caught:
        layout("NUM_SLOTS_TYPE_1 = many\n")
    assert "NUM_SLOTS_TYPE_1 is not an integer" in caught.value.message
    assert caught.value.line == 1
