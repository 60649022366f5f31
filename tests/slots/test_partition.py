"""Splitting a partitionable slot (compiler.slots.partition): the seed's JobA example,
MODIFY_REQUEST_EXPR_* rounding, refusals, ids, release, and properties of any sequence of
splits and releases. Numbers from the seed, shared/reference/slots.md section 7 (23.0
`Resource.cpp` `create_dslot`) and HTCondor's tests (cited per test).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.config import load_config
from compiler.slots.layout import build_layout
from compiler.slots.model import Hardware
from compiler.slots.partition import NO_FIT, Carved, jobs_report, release, split
from tests.slots.basic_van import BASIC_VAN

SEED_HW = Hardware(cpus=10, memory_mb=10240, disk_kb=10_240_000, swap_kb=4_000_000)
JOB_A = {"RequestCpus": 3, "RequestMemory": 1024, "RequestDisk": 10240}


def report(jobs, text: str = "", hw: Hardware = SEED_HW, semantics: str = "code", pslot=None):
    layout = build_layout(load_config(text=text), hw, semantics=semantics)
    doc = {"jobs": jobs} | ({"pslot": pslot} if pslot else {})
    return jobs_report(layout, doc, semantics=semantics)


def test_the_seeds_job_a() -> None:
    # seed "Dynamic Provisioning": slot with cpu 10, memory 10240; JobA (3, 1024, 10240)
    # -> Slot1_1; the p-slot advertises cpu 7, memory 9216 and (seed) disk BIG-10240.
    for semantics, disk_left, dslot_disk in (("manual", 10_240_000 - 10240, 10240),
                                             ("code", 10_219_520, 20480)):  # fmt: skip
        got = report([JOB_A], semantics=semantics)
        (dslot,) = got["dynamic"]
        assert (dslot["name"], dslot["Cpus"], dslot["Memory"]) == ("slot1_1", 3, 1024)
        assert dslot["Disk"] == dslot_disk
        assert got["remaining"]["Cpus"] == 7 and got["remaining"]["Memory"] == 9216
        assert got["remaining"]["Disk"] == disk_left
        assert got["refused"] == [] and got["dynamic_slots_at_end"] == ["slot1_1"]


def test_next_jobs_become_slot1_2_and_slot1_3() -> None:
    got = report([JOB_A, JOB_A, JOB_A, JOB_A])
    assert [d["name"] for d in got["dynamic"]] == ["slot1_1", "slot1_2", "slot1_3"]
    assert got["refused"] == [{"request_index": 3, "reason": NO_FIT}]
    assert got["remaining"]["Cpus"] == 1


def test_modify_request_rounding() -> None:
    # reference section 7.1: quantize memory 1000->1024, 100->128, 1025->1152;
    # disk 1->1024 KB (one-decimal percentage of the partition in 23.0); cpus 0->1.
    jobs = [{"RequestCpus": c, "RequestMemory": m, "RequestDisk": 1} for c, m in
            ((1, 1000), (1, 100), (1, 1025), (0, 128))]  # fmt: skip
    got = report(jobs, hw=Hardware(10, 10240, 1_024_000, 0), semantics="manual")
    assert [d["Memory"] for d in got["dynamic"]] == [1024, 128, 1152, 128]
    assert [d["Disk"] for d in got["dynamic"]] == [1024] * 4
    assert [d["Cpus"] for d in got["dynamic"]] == [1, 1, 1, 1]
    text = "MODIFY_REQUEST_EXPR_REQUESTMEMORY = quantize(RequestMemory, {512, 1024, 2048})\n"
    got = report(
        [{"RequestCpus": 1, "RequestMemory": m, "RequestDisk": 1} for m in (600, 2500)], text
    )
    assert [d["Memory"] for d in got["dynamic"]] == [1024, 4096]


def test_unmodified_request_is_tried_unless_must_modify() -> None:
    # 1000 MB rounds to 1024 which does not fit 1000 MB; the unmodified request does.
    hw = Hardware(2, 1000, 100_000, 0)
    job = {"RequestCpus": 1, "RequestMemory": 1000, "RequestDisk": 1}
    assert report([job], hw=hw)["dynamic"][0]["Memory"] == 1000
    got = report([job], "MUST_MODIFY_REQUEST_EXPRS = true\n", hw=hw)
    assert got["refused"] == [{"request_index": 0, "reason": NO_FIT}]


def test_requests_missing() -> None:
    # reference section 7.2: a job without RequestCpus/Memory/Disk never satisfies
    # WithinResourceLimits.
    got = report([{"RequestCpus": 1, "RequestDisk": 1}, {"RequestMemory": 1, "RequestDisk": 1}])
    assert got["refused"][0] == {"request_index": 0, "reason": NO_FIT}
    assert got["refused"][1]["request_index"] == 1


def test_fractional_pslot_cores_refuse_further_claims() -> None:
    # reference section 7: NUM_SLOTS = 3 on 8 cores -> 2.667 cores; after a 2-core d-slot
    # 0.667 is left, published Cpus = 0, and MY.Cpus > 0 refuses a 1-core job.
    job = {"RequestCpus": 2, "RequestMemory": 10, "RequestDisk": 1}
    got = report([job, dict(job, RequestCpus=1)], "NUM_SLOTS = 3\n", Hardware(8, 3000, 3000, 0))
    assert got["remaining"]["Cpus"] == 0
    assert [r["request_index"] for r in got["refused"]] == [1]


def test_start_is_part_of_the_pslots_requirements() -> None:
    got = report([dict(JOB_A, Owner="bob"), dict(JOB_A, Owner="amy")], 'START = Owner == "amy"\n')
    assert [d["request_index"] for d in got["dynamic"]] == [1]


def test_job_partitionable_basic_van_ten_dynamic_slots() -> None:
    # src/condor_tests/job_partitionable_basic_van.run: 20 cores in one p-slot, ten
    # one-core jobs with request_memory 1 -> 1 partitionable and 10 dynamic slots.
    text = "NUM_CPUS = 20\nSLOT_TYPE_1 = cpus=20\nSLOT_TYPE_1_PARTITIONABLE = TRUE\nNUM_SLOTS_TYPE_1 = 1\n"
    job = {"RequestCpus": 1, "RequestMemory": 1, "RequestDisk": 1}
    got = report([job] * 10, text, Hardware(2, 4096, 1_000_000, 0))
    assert len(got["dynamic_slots_at_end"]) == 10 and got["remaining"]["Cpus"] == 10


GPU_TEXT = "use feature : GPUs\nuse FEATURE : PartitionableSlot\n"
GPU_HW = Hardware(8, 8000, 1_000_000, 0, {"GPUs": ("g0", "g1", "g2")},
                  {"g0": {"Capability": 7.0}, "g1": {"Capability": 8.0}, "g2": {"Capability": 8.5}})  # fmt: skip


def test_custom_resource_ids_bound_and_given_back() -> None:
    job = {"RequestCpus": 1, "RequestMemory": 10, "RequestDisk": 1, "RequestGPUs": 1}
    picky = dict(job, RequireGPUs="Capability >= 8.0")
    got = report([picky, job, {"release": "slot1_1"}, dict(job, RequestGPUs=2)], GPU_TEXT, GPU_HW)
    assert [d.get("AssignedGPUs") for d in got["dynamic"]] == ["g1", "g0", "g1,g2"]
    assert [d["name"] for d in got["dynamic"]] == ["slot1_1", "slot1_2", "slot1_1"]
    assert got["remaining"]["GPUs"] == 0
    too_many = report([dict(job, RequestGPUs=4)], GPU_TEXT, GPU_HW)
    assert too_many["refused"][0]["request_index"] == 0


def test_release_of_an_unknown_slot_is_reported() -> None:
    got = report([{"release": "slot1_7"}])
    assert got["refused"] == [{"request_index": 0, "reason": "no dynamic slot slot1_7 to release"}]


# -- properties: never over-commit, release gives everything back, lowest free names --------

step = st.one_of(
    st.tuples(st.just("job"), st.integers(0, 4), st.integers(0, 3000), st.integers(0, 300_000)),
    st.tuples(st.just("release"), st.integers(1, 6), st.just(0), st.just(0)),
)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(step, max_size=12), semantics=st.sampled_from(["code", "manual"]))
def test_any_sequence_of_splits_and_releases(steps, semantics) -> None:
    hw = Hardware(6, 8000, 1_000_000, 1000, {"GPUs": ("g0", "g1")})
    layout = build_layout(load_config(text="use feature : GPUs\n"), hw, semantics=semantics)
    original = layout.slots[0]
    carved = Carved(original, {})
    for kind, a, b, c in steps:
        if kind == "release":
            name = f"slot1_{a}"
            if name in carved.dslots:
                carved = release(carved, name)
            continue
        job = {"RequestCpus": a, "RequestMemory": b, "RequestDisk": c, "RequestGPUs": a % 2}
        before = set(carved.dslots)
        carved, dslot, _reason = split(layout, carved, job, semantics=semantics)
        if dslot is not None:
            used = {d.sub_id for d in carved.dslots.values() if d.name in before}
            assert dslot.sub_id == min(set(range(1, len(before) + 2)) - used)
        lent = list(carved.dslots.values())
        assert carved.pslot.cpus >= -1e-9 and carved.pslot.memory >= 0
        assert carved.pslot.disk >= -1e-9 and carved.pslot.custom["GPUs"] >= 0
        assert sum(d.cpus for d in lent) + carved.pslot.cpus == original.cpus
        assert sum(d.memory for d in lent) + carved.pslot.memory == original.memory
        ids = [i for d in lent for i in d.assigned.get("GPUs", ())]
        assert len(ids) == len(set(ids)) == sum(d.custom["GPUs"] for d in lent)
    for name in list(carved.dslots):
        carved = release(carved, name)
    back = carved.pslot
    assert (back.cpus, back.memory, back.custom["GPUs"]) == (original.cpus, original.memory, 2)
    assert abs(back.disk - original.disk) < 1e-9


BASIC_VAN_JOB = {"RequestCpus": 1, "RequestMemory": 1, "RequestDisk": 1}


@pytest.mark.parametrize(
    ("pslot", "claims", "dslot", "left"),
    [
        # (SlotWeight, Cpus, Memory, Tokens) as the test's `condor_status -af` checks them
        ("slot1", 5, (1, 1, 1, 0), (0, 0, 95, 0)),
        ("slot2", 4, (1, 1, 25, 0), (0, 1, 0, 0)),
        ("slot3", 3, (1, 1, 1, 1), (0, 2, 97, 0)),
        ("slot4", 1, (5, 5, 100, 0), (0, 0, 0, 0)),
    ],
)
def test_consumption_policy_pslots_split_as_htcondors_basic_van_test_sees(
    pslot: str, claims: int, dslot: tuple[int, ...], left: tuple[int, ...]
) -> None:
    """The startd sizes each dynamic slot from the consumption (23.0 `create_dslot`):
    the d-slots and what each p-slot keeps after the test's 13 jobs (the p-slot's
    SlotWeight and resources after its last claim; one claim more is refused)."""
    hw = Hardware(cpus=20, memory_mb=1024, disk_kb=1_000_000, swap_kb=100_000)
    jobs = [BASIC_VAN_JOB] * (claims + 1)
    out = report(jobs, BASIC_VAN, hw=hw, pslot=pslot)
    made = out["dynamic"]
    assert len(made) == claims and [r["request_index"] for r in out["refused"]] == [claims]
    for record in made:
        assert (record["SlotWeight"], record["Cpus"], record["Memory"], record["tokens"]) == dslot
    remaining = out["remaining"]
    assert (remaining["Cpus"], remaining["Memory"], remaining["tokens"]) == left[1:]


def test_a_consumption_policy_sizes_the_dynamic_slot_not_the_request() -> None:
    text = "CONSUMPTION_POLICY = true\nCONSUMPTION_CPUS = 2\nCONSUMPTION_MEMORY = 512\n"
    out = report([JOB_A], text)
    (made,) = out["dynamic"]
    assert (made["Cpus"], made["Memory"]) == (2, 512)  # JOB_A asked for 3 and 1024
