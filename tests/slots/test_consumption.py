"""Consumption policies: the texts a CP p-slot publishes, the consumption arithmetic and
one negotiation cycle (compiler/slots/consumption.py; reference/slots.md §8).

Cases come from HTCondor's own tests (23.0): `src/condor_unit_tests/consumption_policy_tests.cpp`
(the `cpfix` fixture: Cpus 3, Memory 200, Disk 2000, Actuators 10) and
`src/condor_tests/job_consumption_policies_basic_van.run` (four p-slot types, 13 jobs
matched 5/4/3/1 in one cycle), and from seed 002's consumption-policy section. Expected
numbers are those the HTCondor tests assert or the reference derives; ClassAd evaluation
and matching are compared with the wheel's classad2.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ERROR, UNDEFINED, ClassAd, evaluate
from compiler.slots.consumption import (
    FAILED_CONSUMPTION,
    ConsumptionError,
    compute_consumption,
    consumption_texts,
    cp_match,
    deduct_assets,
    dslot_type_items,
    negotiate_cycle,
    negotiator_report,
    num_claims,
    override_requested,
    policy_assets,
    sufficient_assets,
    supports_policy,
    within_resource_limits_text,
)
from tests.classad.oracle_support import ad_text
from tests.oracle import classad2
from tests.slots.basic_van import BASIC_VAN

# ---- helpers ----------------------------------------------------------------------------


def _expr(text: str) -> str:
    """An expression-valued attribute in the `condor_status -json` convention."""
    return f"/Expr({text})/"


#: The WithinResourceLimits clause 23.0 writes for one asset (reference/slots.md §8).
def _clause(a: str) -> str:
    return (
        f"ifThenElse(TARGET._cp_orig_Request{a} isnt UNDEFINED, TARGET.Request{a} <= MY.{a}, "
        f"MY.Consumption{a} <= MY.{a})"
    )


def cp_slot(
    assets: dict[str, float],
    consumption: dict[str, str],
    *,
    weight: str = "Cpus",
    start: str = "true",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A CP p-slot ad as the startd publishes it, built from the reference's rules."""
    custom = [a for a in assets if a not in ("Cpus", "Memory", "Disk")]
    ad: dict[str, Any] = {
        "Name": "slot1@host",
        "PartitionableSlot": True,
        "SlotType": "Partitionable",
        "MachineResources": " ".join(["Cpus", "Memory", "Disk", "Swap", *custom]),
        "Start": _expr(start),
        "WithinResourceLimits": _expr(within_resource_limits_text(custom)),
        "Requirements": _expr("START && (WithinResourceLimits)"),
        "SlotWeight": _expr(weight),
        **assets,
        **{f"TotalSlot{a}": v for a, v in assets.items()},
        **{f"Consumption{a}": _expr(t) for a, t in consumption.items()},
    }
    ad.update(extra or {})
    return ad


#: The resource part of the Requirements condor_submit writes for a vanilla job.
JOB_REQUIREMENTS = _expr(
    "(TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && "
    "(TARGET.Cpus >= RequestCpus)"
)


def job(cpus: float = 1, memory: float = 1, disk: float = 1, **extra: Any) -> dict[str, Any]:
    return {
        "RequestCpus": cpus,
        "RequestMemory": memory,
        "RequestDisk": disk,
        "Requirements": JOB_REQUIREMENTS,
        **extra,
    }


def _oracle(ad: ClassAd) -> Any:
    return classad2.ClassAd(ad_text(dict(ad.items())))


def _parsed(mapping: dict[str, Any]) -> ClassAd:
    from compiler.slots.consumption import as_ad

    return as_ad(mapping)


# ---- 1. the texts a CP p-slot publishes -------------------------------------------------

DEFAULT_TEXTS = {
    # param_info.in 23.0 [CONSUMPTION_CPUS] / [CONSUMPTION_MEMORY] / [CONSUMPTION_DISK],
    # quoted in reference/slots.md §8 and in the seed.
    "ConsumptionCpus": "quantize(target.RequestCpus,{1})",
    "ConsumptionMemory": "quantize(target.RequestMemory,{128})",
    "ConsumptionDisk": "quantize(target.RequestDisk,{1024})",
}


def test_default_texts_are_the_param_table_defaults_and_swap_is_skipped() -> None:
    texts = consumption_texts({}, "Cpus Memory Disk Swap")
    assert texts == DEFAULT_TEXTS


def test_default_texts_agree_with_the_wheel(tmp_path: Path) -> None:
    from tests.config.oracle_config import oracle_param

    config = tmp_path / "condor_config"
    config.write_text("# nothing: built-in defaults only\n", encoding="utf-8")
    names = ["CONSUMPTION_CPUS", "CONSUMPTION_MEMORY", "CONSUMPTION_DISK"]
    answer = oracle_param(config, names)
    assert not answer.refused, answer.message
    ours = consumption_texts({}, ["Cpus", "Memory", "Disk"])
    for name in names:
        asset = name.split("_", 1)[1].capitalize()
        assert ours[f"Consumption{asset}"] == answer.values[name]


def test_type_knob_wins_and_custom_resource_defaults_to_its_request() -> None:
    knobs = {"consumption_cpus": "TARGET.RequestCpus", "CONSUMPTION_GPUs": None}
    texts = consumption_texts(knobs, ["Cpus", "Memory", "Disk", "Swap", "GPUs"])
    assert texts["ConsumptionCpus"] == "TARGET.RequestCpus"
    assert texts["ConsumptionMemory"] == DEFAULT_TEXTS["ConsumptionMemory"]
    # Resource::publish_static: no CONSUMPTION_<name> for a custom resource
    assert texts["ConsumptionGPUs"] == (
        "ifthenelse(target.RequestGPUs =?= undefined, 0, target.RequestGPUs)"
    )
    assert list(texts) == [
        "ConsumptionCpus",
        "ConsumptionMemory",
        "ConsumptionDisk",
        "ConsumptionGPUs",
    ]


def test_an_empty_knob_is_no_knob() -> None:
    # `param()` reports an empty value as unset: the request-based formula applies.
    texts = consumption_texts({"CONSUMPTION_CPUS": "  "}, ["Cpus"])
    assert texts == {
        "ConsumptionCpus": "ifthenelse(target.RequestCpus =?= undefined, 0, target.RequestCpus)"
    }


def test_within_resource_limits_sorts_assets_case_insensitively() -> None:
    text = within_resource_limits_text(["tokens", "GPUs", "actuators", "swap", "a_b"])
    order = ["a_b", "actuators", "Cpus", "Disk", "GPUs", "Memory", "tokens"]
    assert text == "(" + " && ".join(_clause(a) for a in order) + ")"


def test_within_resource_limits_without_custom_resources() -> None:
    assert within_resource_limits_text([]) == (
        "(" + " && ".join(_clause(a) for a in ("Cpus", "Disk", "Memory")) + ")"
    )


def test_within_resource_limits_knob_replaces_the_expression() -> None:
    assert within_resource_limits_text([], {"WITHINRESOURCELIMITS": "Cpus > 0"}) == "Cpus > 0"


def test_within_resource_limits_text_parses_and_evaluates_like_the_wheel() -> None:
    text = within_resource_limits_text(["GPUs"])
    slot = _parsed(
        cp_slot(
            {"Cpus": 4, "Memory": 1024, "Disk": 5000, "GPUs": 1},
            {
                **DEFAULT_TEXTS_BARE,
                "GPUs": "ifthenelse(target.RequestGPUs =?= undefined, 0, target.RequestGPUs)",
            },
        )
    )
    jobs = [
        {"RequestCpus": 2, "RequestMemory": 100, "RequestDisk": 10},
        {"RequestCpus": 5, "RequestMemory": 100, "RequestDisk": 10},
        {"RequestCpus": 2, "RequestMemory": 100, "RequestDisk": 10, "RequestGPUs": 2},
        {"RequestCpus": 2, "_cp_orig_RequestCpus": 9, "RequestMemory": 100, "RequestDisk": 10},
        {"RequestMemory": 100},
    ]
    expr = classad2.ExprTree(text)
    for raw in jobs:
        ours = evaluate(text, slot, ClassAd(raw))
        theirs = expr.eval(_oracle(slot), classad2.ClassAd(ad_text(raw)))
        if isinstance(theirs, classad2.Value):
            assert ours is (ERROR if theirs == classad2.Value.Error else UNDEFINED), raw
        else:
            assert ours == theirs, raw


DEFAULT_TEXTS_BARE = {k.removeprefix("Consumption"): v for k, v in DEFAULT_TEXTS.items()}


def test_num_claims() -> None:
    assert num_claims({}, 2.5) == 3  # cores rounded up
    assert num_claims({"num_claims": "10"}, 5) == 10
    assert num_claims({"NUM_CLAIMS": "many"}, 4) == 4


def test_policy_assets_reads_a_string_list() -> None:
    assert policy_assets("Cpus, Memory Disk Swap tokens") == ("Cpus", "Memory", "Disk", "tokens")


# ---- 2. the arithmetic: consumption_policy_tests.cpp ------------------------------------

#: The unit test's fixture `cpfix` (consumption_policy_tests.cpp).
CPFIX_SLOT = {
    "PartitionableSlot": True,
    "MachineResources": "cpus memory disk actuators",
    "ConsumptionCpus": _expr("quantize(target.RequestCpus, {2})"),
    "ConsumptionMemory": _expr("quantize(target.RequestMemory, {128})"),
    "ConsumptionDisk": _expr("quantize(target.RequestDisk, {1024})"),
    "ConsumptionActuators": _expr(
        "ifthenelse(target.RequestActuators =?= 0, 3, quantize(target.RequestActuators, {7}))"
    ),
    "Cpus": 3,
    "Memory": 200,
    "Disk": 2000,
    "Actuators": 10,
}
CPFIX_JOB = {"RequestCpus": 1, "RequestMemory": 2, "RequestDisk": 3, "RequestActuators": 4}


def test_cp_supports_policy_1() -> None:
    ad: dict[str, Any] = {}
    assert not supports_policy(ad)
    ad.update(PartitionableSlot=True, MachineResources="cpus memory disk")
    assert not supports_policy(ad)
    ad["ConsumptionCpus"] = 0
    assert not supports_policy(ad)
    ad["ConsumptionMemory"] = 0
    assert not supports_policy(ad)
    ad["ConsumptionDisk"] = 0
    assert supports_policy(ad)
    ad["MachineResources"] = "cpus memory disk railgun"
    assert not supports_policy(ad)
    ad["ConsumptionRailgun"] = 0
    assert supports_policy(ad)
    assert not supports_policy({k: v for k, v in ad.items() if k != "PartitionableSlot"})
    assert not supports_policy({k: v for k, v in ad.items() if k != "MachineResources"})


def test_cp_compute_1() -> None:
    amounts = compute_consumption(CPFIX_JOB, CPFIX_SLOT).amounts
    assert {k.lower(): v for k, v in amounts.items()} == {
        "cpus": 2,
        "memory": 128,
        "disk": 1024,
        "actuators": 7,
    }


def test_cp_compute_2_missing_request_counts_as_zero() -> None:
    request = {k: v for k, v in CPFIX_JOB.items() if k != "RequestActuators"}
    result = compute_consumption(request, CPFIX_SLOT)
    assert result.amounts["actuators"] == 3
    assert "RequestActuators" not in request  # the job is left as it was


def test_cp_compute_3_condor_request_overrides() -> None:
    request = {**CPFIX_JOB, "_condor_RequestActuators": 9}
    assert compute_consumption(request, CPFIX_SLOT).amounts["actuators"] == 14
    assert request["RequestActuators"] == 4


def test_cp_override_1_and_restore() -> None:
    consumption = compute_consumption(CPFIX_JOB, CPFIX_SLOT)
    overridden = override_requested(CPFIX_JOB, consumption)
    for name, before, after in (
        ("Cpus", 1, 2),
        ("Memory", 2, 128),
        ("Disk", 3, 1024),
        ("Actuators", 4, 7),
    ):
        assert overridden[f"_cp_orig_Request{name}"] == before
        assert overridden[f"Request{name}"] == after
        assert isinstance(overridden[f"Request{name}"], int)  # assign_preserve_integers
    # cp_restore_requested: here the job was never changed
    assert CPFIX_JOB == {
        "RequestCpus": 1,
        "RequestMemory": 2,
        "RequestDisk": 3,
        "RequestActuators": 4,
    }


def test_override_creates_no_request_the_job_lacks() -> None:
    request = {"RequestCpus": 1}
    overridden = override_requested(request, compute_consumption(request, CPFIX_SLOT))
    assert "RequestMemory" not in overridden and "_cp_orig_RequestMemory" not in overridden


@pytest.mark.parametrize(
    ("change", "sufficient"),
    [
        ({}, True),
        ({"Cpus": 1}, False),
        ({"Memory": 127}, False),
        ({"Disk": 1023}, False),
        ({"Actuators": 6}, False),
        ({"Actuators": 10}, True),
    ],
)
def test_cp_sufficient_1_and_2(change: dict[str, int], sufficient: bool) -> None:
    slot = {**CPFIX_SLOT, **change}
    assert sufficient_assets(slot, compute_consumption(CPFIX_JOB, slot)) is sufficient


@pytest.mark.parametrize(("weight", "cost"), [("Cpus", 2), ("Actuators", 7)])
def test_cp_deduct_1_and_2(weight: str, cost: int) -> None:
    slot = {**CPFIX_SLOT, "SlotWeight": _expr(weight)}
    after, charged = deduct_assets(CPFIX_JOB, slot)
    assert charged == cost
    assert (after["Cpus"], after["Memory"], after["Disk"], after["Actuators"]) == (
        3 - 2,
        200 - 128,
        2000 - 1024,
        10 - 7,
    )
    assert all(isinstance(after[a], int) for a in ("Cpus", "Memory", "Disk", "Actuators"))
    # cp_deduct_3 ("test mode"): the caller's ad is untouched
    assert slot["Actuators"] == 10 and slot["Cpus"] == 3


def test_all_zero_consumption_never_suffices() -> None:
    slot = {**CPFIX_SLOT}
    for a in ("Cpus", "Memory", "Disk", "Actuators"):
        slot[f"Consumption{a}"] = 0
    assert not sufficient_assets(slot, compute_consumption(CPFIX_JOB, slot))


def test_non_number_consumption_is_minus_999_with_a_warning() -> None:
    slot = {**CPFIX_SLOT, "Name": "slot1@h", "ConsumptionDisk": _expr('"lots"')}
    result = compute_consumption(CPFIX_JOB, slot)
    assert result.amounts["disk"] == FAILED_CONSUMPTION == -999
    assert result.warnings == (
        "WARNING: consumption policy for Consumptiondisk on resource slot1@h failed to "
        "evaluate to a non-negative numeric value",
    )
    assert not sufficient_assets(slot, result)


def test_negative_consumption_is_kept_and_refused() -> None:
    slot = {**CPFIX_SLOT, "ConsumptionDisk": -5}
    result = compute_consumption(CPFIX_JOB, slot)
    assert result.amounts["disk"] == -5 and result.warnings
    assert not sufficient_assets(slot, result)


def test_boolean_consumption_counts_as_a_number() -> None:
    slot = {**CPFIX_SLOT, "ConsumptionActuators": True}
    assert compute_consumption(CPFIX_JOB, slot).amounts["actuators"] == 1


def test_actuators_job_without_request_computes_3_but_does_not_match() -> None:
    # reference/slots.md §8: the WithinResourceLimits clause re-evaluates
    # ConsumptionActuators with RequestActuators undefined; quantize(undefined) is ERROR.
    custom = ["Actuators"]
    slot = _parsed(
        {
            **CPFIX_SLOT,
            "Start": True,
            "WithinResourceLimits": _expr(within_resource_limits_text(custom)),
            "Requirements": _expr("START && (WithinResourceLimits)"),
        }
    )
    request = ClassAd({k: v for k, v in CPFIX_JOB.items() if k != "RequestActuators"})
    request["Requirements"] = True
    matched, consumption = cp_match(request, slot)
    assert consumption.amounts["actuators"] == 3
    assert sufficient_assets(slot, consumption)
    assert matched is False
    # the wheel agrees on the match of the overridden job
    overridden = override_requested(request, consumption)
    assert _oracle(overridden).symmetricMatch(_oracle(slot)) is False
    # with the request present the same job matches
    request["RequestActuators"] = 4
    assert cp_match(request, slot)[0] is True


def test_dslot_description_from_consumption() -> None:
    # reference/slots.md §7.4/§8: the seed's JobA (3 cores, 1024 MB, 10240 KB) on a
    # 10,240,000 KB partition asks for 0.1 + 0.1 = 0.2 % of the disk.
    slot = seed_slot()
    consumption = compute_consumption(job(3, 1024, 10240), slot)
    assert dslot_type_items(consumption, 10_240_000) == ("Cpus=3", "Disk=0.2%", "Memory=1024")
    # basic_van slot type 3: nothing but one token; disk 0 gives 0.1 %, not less
    consumption = compute_consumption(job(1, 1, 1), basic_van_slot(3))
    assert dslot_type_items(consumption, TOTAL_DISK) == (
        "Cpus=0",
        "Disk=0.1%",
        "Memory=0",
        "tokens=1",
    )
    # a fractional consumption is truncated
    assert dslot_type_items(compute_consumption(job(2.7, 100, 1), seed_slot()), 1000)[0] == (
        "Cpus=2"
    )


# ---- differential: consumption and matches against classad2 ---------------------------

_POLICIES = [
    "quantize(target.RequestCpus, {1})",
    "quantize(target.RequestCpus, {2})",
    "TARGET.RequestCpus",
    "ifthenelse(target.RequestCpus =?= undefined, 0, target.RequestCpus)",
    "ifthenelse(target.RequestCpus > 2, target.RequestCpus * 2, 1)",
    "0",
]


@settings(max_examples=40)
@given(
    policy=st.sampled_from(_POLICIES),
    cpus=st.integers(0, 6),
    memory=st.sampled_from([0, 64, 128, 200, 1000]),
    request_cpus=st.one_of(st.none(), st.integers(0, 5), st.sampled_from([0.5, 2.5])),
    request_memory=st.one_of(st.none(), st.sampled_from([1, 100, 129, 500])),
    condor_cpus=st.one_of(st.none(), st.integers(1, 3)),
)
def test_consumption_and_match_agree_with_classad2(
    policy: str,
    cpus: int,
    memory: int,
    request_cpus: float | None,
    request_memory: int | None,
    condor_cpus: int | None,
) -> None:
    slot = _parsed(
        cp_slot(
            {"Cpus": cpus, "Memory": memory, "Disk": 4096},
            {"Cpus": policy, "Memory": DEFAULT_TEXTS_BARE["Memory"], "Disk": "1"},
        )
    )
    raw: dict[str, Any] = {"RequestDisk": 1, "Requirements": JOB_REQUIREMENTS}
    if request_cpus is not None:
        raw["RequestCpus"] = request_cpus
    if request_memory is not None:
        raw["RequestMemory"] = request_memory
    if condor_cpus is not None:
        raw["_condor_RequestCpus"] = condor_cpus
    request = _parsed(raw)
    consumption = compute_consumption(request, slot)
    # The oracle evaluates each Consumption<a> with the job as cp_compute_consumption
    # prepares it: _condor_Request<a> in place of Request<a>, a missing one set to 0.
    for asset in ("Cpus", "Memory", "Disk"):
        target = ClassAd(request)
        if f"_condor_Request{asset}" in target:
            target[f"Request{asset}"] = float(target[f"_condor_Request{asset}"])
        target.setdefault(f"Request{asset}", 0)
        value = classad2.ExprTree(f"MY.Consumption{asset}").eval(_oracle(slot), _oracle(target))
        if isinstance(value, bool | int | float) and value >= 0:
            assert consumption.amounts[asset] == value
        elif isinstance(value, bool | int | float):
            assert consumption.amounts[asset] == value < 0
        else:
            assert consumption.amounts[asset] == FAILED_CONSUMPTION
    matched, _ = cp_match(request, slot)
    oracle_match = sufficient_assets(slot, consumption) and bool(
        _oracle(override_requested(request, consumption)).symmetricMatch(_oracle(slot))
    )
    assert matched is oracle_match


# ---- 3. one negotiation cycle ------------------------------------------------------------


def seed_slot(**extra: Any) -> dict[str, Any]:
    """Seed 002: SLOT_TYPE_1 = cpus=8, SLOT_TYPE_1_CONSUMPTION_CPUS = TARGET.RequestCpus,
    SLOT_WEIGHT = Cpus (memory and disk defaults)."""
    return cp_slot(
        {"Cpus": 8, "Memory": 16384, "Disk": 1_000_000},
        {**DEFAULT_TEXTS_BARE, "Cpus": "TARGET.RequestCpus"},
        extra={"NumClaims": 8, **extra},
    )


def test_seed_three_three_core_jobs() -> None:
    report = negotiator_report(
        seed_slot(), {"jobs": [job(3, 1024, 1024)] * 3, "pslot": "slot1"}, semantics="code"
    )
    assert [(m["matched"], m["cost"]) for m in report["matches"]] == [
        (True, 3),
        (True, 3),
        (False, 0),
    ]
    assert report["matches"][0]["consumption"] == {"Cpus": 3, "Disk": 1024, "Memory": 1024}
    assert report["remaining"] == {
        "Cpus": 2,
        "Memory": 16384 - 2048,
        "Disk": 1_000_000 - 2048,
        "SlotWeight": 2,
    }
    assert report["matches"][0].keys() == {"request_index", "matched", "consumption", "cost"}
    assert [m["request_index"] for m in report["matches"]] == [0, 1, 2]


def test_semantics_manual_computes_the_same_cycle() -> None:
    doc = {"jobs": [job(3, 1024, 1024)] * 3}
    assert negotiator_report(seed_slot(), doc, semantics="manual") == negotiator_report(
        seed_slot(), doc, semantics="code"
    )


def test_seed_gpu_variant_never_matches_request_gpus_jobs() -> None:
    # seed 002: SLOT_TYPE_2_CONSUMPTION_gpus = TARGET.RequestGpu; condor_submit's
    # request_gpus writes RequestGPUs, so RequestGpu is undefined -> -999 (§12 item 6).
    slot = cp_slot(
        {"Cpus": 8, "Memory": 16384, "Disk": 1_000_000, "gpus": 4},
        {**DEFAULT_TEXTS_BARE, "gpus": "TARGET.RequestGpu"},
        extra={"NumClaims": 8},
    )
    cycle = negotiate_cycle(slot, [job(1, 128, 1024, RequestGPUs=1)])
    assert cycle.matches[0].matched is False
    assert cycle.matches[0].consumption["gpus"] == -999
    assert any("Consumptiongpus" in w for w in cycle.warnings)
    cycle = negotiate_cycle(slot, [job(1, 128, 1024, RequestGpu=1)] * 5)
    assert [m.matched for m in cycle.matches] == [True] * 4 + [False]


# job_consumption_policies_basic_van.run: NUM_CPUS = 20, MACHINE_RESOURCE_tokens = 3,
# CONSUMPTION_POLICY = True, global CONSUMPTION_* over target.Cpus/Memory/Disk/Tokens,
# SLOT_WEIGHT = Cpus, NUM_CLAIMS = 5, four p-slots of cpus=5,memory=100,disk=25%.
BASIC_VAN_GLOBAL = {
    "Cpus": "ifthenelse(target.Cpus isnt undefined, quantize(target.Cpus, {1}), 1)",
    "Memory": "ifthenelse(target.Memory isnt undefined, quantize(target.Memory, {1}), 1)",
    "Disk": "ifthenelse(target.Disk isnt undefined, quantize(target.Disk, {100}), 100)",
    "tokens": "ifthenelse(target.Tokens isnt undefined, target.Tokens, 0)",
}
BASIC_VAN_START = '(Cpus > 0) || (SlotType is "Dynamic")'
TOTAL_DISK = 1_000_000


def basic_van_slot(type_id: int) -> dict[str, Any]:
    tokens = 3 if type_id == 3 else 0
    consumption = dict(BASIC_VAN_GLOBAL)
    weight, claims = "Cpus", 5
    if type_id == 1:
        claims = 10  # SLOT_TYPE_1_NUM_CLAIMS
    elif type_id == 2:
        consumption["Memory"] = "quantize(target.RequestMemory, {25})"
        weight = "floor(Memory / 25)"
    elif type_id == 3:
        consumption.update(tokens="1", Cpus="0", Memory="0", Disk="0")
        weight = "Tokens"
    else:
        consumption.update(
            Cpus="TotalSlotCpus",
            Memory="TotalSlotMemory",
            Disk="floor(0.9 * Disk)",
            tokens="TotalSlotTokens",
        )
    return cp_slot(
        {"Cpus": 5, "Memory": 100, "Disk": math.ceil(TOTAL_DISK * 0.25), "tokens": tokens},
        consumption,
        weight=weight,
        start=BASIC_VAN_START,
        extra={"NumClaims": claims, "SlotTypeID": type_id},
    )


def test_basic_van_thirteen_jobs_match_five_four_three_one() -> None:
    # The test submits 13 jobs (request_cpus = request_memory = request_disk = 1) and
    # sees slot1 matched 5 times, slot2 4, slot3 3, slot4 once, in one cycle. Each slot
    # here is offered the requests the previous slots left.
    pending = [job(1, 1, 1) for _ in range(13)]
    counts, remaining = [], {}
    for type_id in (1, 2, 3, 4):
        cycle = negotiate_cycle(basic_van_slot(type_id), pending)
        counts.append(sum(m.matched for m in cycle.matches))
        pending = [pending[m.request_index] for m in cycle.matches if not m.matched]
        remaining[type_id] = negotiator_report(
            basic_van_slot(type_id),
            {"jobs": [job(1, 1, 1) for _ in range(counts[-1])]},
            semantics="code",
        )
    assert counts == [5, 4, 3, 1] and pending == []
    costs = {t: [m["cost"] for m in r["matches"]] for t, r in remaining.items()}
    assert costs == {1: [1] * 5, 2: [1] * 4, 3: [1] * 3, 4: [5]}
    left = {t: r["remaining"] for t, r in remaining.items()}
    # condor_status -af SlotTypeID SlotWeight Cpus Memory Tokens of the p-slots: "1 0 0 95 0",
    # "2 0 1 0 0"; slot 3's negotiator copy keeps 5 cores and 100 MB (its consumption is
    # only tokens; the startd then gives each d-slot 1 core, 1 MB: "3 0 2 97 0").
    assert (left[1]["SlotWeight"], left[1]["Cpus"], left[1]["Memory"], left[1]["tokens"]) == (
        0,
        0,
        95,
        0,
    )
    assert (left[2]["SlotWeight"], left[2]["Cpus"], left[2]["Memory"], left[2]["tokens"]) == (
        0,
        1,
        0,
        0,
    )
    assert (left[3]["SlotWeight"], left[3]["Cpus"], left[3]["Memory"], left[3]["tokens"]) == (
        0,
        5,
        100,
        0,
    )
    assert (left[4]["SlotWeight"], left[4]["Cpus"], left[4]["Memory"], left[4]["tokens"]) == (
        0,
        0,
        0,
        0,
    )
    assert left[1]["Disk"] == math.ceil(TOTAL_DISK * 0.25) - 5 * 100


def test_claims_limit_the_matches() -> None:
    cycle = negotiate_cycle(seed_slot(NumClaims=2), [job(1, 128, 1024)] * 4)
    assert [m.matched for m in cycle.matches] == [True, True, False, False]
    # without NumClaims: the startd's default, the slot's cores rounded up
    no_count = {k: v for k, v in seed_slot().items() if k != "NumClaims"}
    cycle = negotiate_cycle(no_count, [job(1, 128, 1024)] * 10)
    assert sum(m.matched for m in cycle.matches) == 8


def test_a_cached_match_list_holds_the_slot_only_while_it_still_matched() -> None:
    # Same AutoClusterId: the request reuses the previous one's match list, where the
    # slot is back only if it still matched that request after the deduction
    # (matchmaker.cpp returnPslotToMatchList). Another autocluster rebuilds the list.
    # (The schedd puts only alike jobs in one autocluster; the two differ here only to
    # show that the cached list, not the slot's assets, decides.)
    slot = cp_slot({"Cpus": 4, "Memory": 4096, "Disk": 100_000}, DEFAULT_TEXTS_BARE)
    jobs = [
        job(3, 128, 1024, AutoClusterId=1),
        job(1, 128, 1024, AutoClusterId=1),  # cache: slot not returned (1 core < 3)
        job(1, 128, 1024, AutoClusterId=2),  # fresh list: 1 core left suffices
        job(1, 128, 1024),
    ]
    assert [m.matched for m in negotiate_cycle(slot, jobs).matches] == [True, False, True, False]
    jobs[1] = job(1, 128, 1024)  # no autocluster: no cache
    assert [m.matched for m in negotiate_cycle(slot, jobs).matches] == [True, True, False, False]


def test_a_slot_without_consumption_policy_takes_one_match() -> None:
    slot = {
        k: v for k, v in seed_slot().items() if not k.startswith("Consumption") and k != "NumClaims"
    }
    slot["WithinResourceLimits"] = _expr(
        "(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
        "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk)"
    )
    report = negotiator_report(slot, {"jobs": [job(1, 128, 1024)] * 2}, semantics="code")
    assert [(m["matched"], m["cost"], m["consumption"]) for m in report["matches"]] == [
        (True, 8, {}),
        (False, 0, {}),
    ]
    assert report["remaining"] == {"Cpus": 8, "Memory": 16384, "Disk": 1_000_000, "SlotWeight": 8}


def test_a_job_without_requirements_never_matches() -> None:
    request = {k: v for k, v in job(1, 128, 1024).items() if k != "Requirements"}
    assert negotiate_cycle(seed_slot(), [request]).matches[0].matched is False
    slot = _parsed(seed_slot())
    assert _oracle(slot).symmetricMatch(classad2.ClassAd(ad_text(request))) is False


def test_jobs_document_requirements_default_to_true_and_may_be_source_text() -> None:
    bare = {"RequestCpus": 3, "RequestMemory": 1024, "RequestDisk": 1024}
    picky = {**bare, "Requirements": "TARGET.Cpus >= 6"}
    report = negotiator_report(seed_slot(), {"jobs": [bare, picky, bare]}, semantics="code")
    # picky sees 5 cores after the first match (its RequestCpus is overridden, not Cpus)
    assert [m["matched"] for m in report["matches"]] == [True, False, True]
    assert report["remaining"]["Cpus"] == 2


def test_slot_weight_that_is_no_number_becomes_cpus() -> None:
    # matchmaker.cpp: the negotiator assigns its SLOT_WEIGHT (default Cpus) when the
    # slot's SlotWeight does not evaluate to a number.
    report = negotiator_report(
        seed_slot(SlotWeight=_expr("Undefined")), {"jobs": [job(2, 128, 1024)]}, semantics="code"
    )
    assert report["matches"][0]["cost"] == 2 and report["remaining"]["SlotWeight"] == 6


def test_fractional_consumption_keeps_reals() -> None:
    slot = cp_slot(
        {"Cpus": 4, "Memory": 4096, "Disk": 100_000},
        {**DEFAULT_TEXTS_BARE, "Cpus": "TARGET.RequestCpus"},
    )
    report = negotiator_report(slot, {"jobs": [job(0.5, 128, 1024)]}, semantics="code")
    assert report["matches"][0]["consumption"]["Cpus"] == 0.5
    assert report["remaining"]["Cpus"] == 3.5 and report["matches"][0]["cost"] == 0.5


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"jobs": [{"release": "slot1_1"}]}, "jobs[0]: a release"),
        ({"jobs": "x"}, "jobs: expected a list"),
        ({"jobs": [3]}, "jobs[0]: expected a job ad"),
        ({"jobs": [{"Requirements": "/Expr(1 +)/"}]}, "jobs[0].Requirements"),
        ({"jobs": [{"Requirements": "1 +"}]}, "jobs[0].Requirements"),
        ("not a mapping", "not a mapping"),
    ],
)
def test_bad_documents_are_positioned_errors(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(ConsumptionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        negotiator_report(seed_slot(), doc, semantics="code")


def test_document_errors_name_the_jobs_file() -> None:
    with pytest.raises(ConsumptionError) as caught:
        negotiator_report(seed_slot(), {"jobs": [3]}, semantics="code", file="jobs.json")
    assert caught.value.format() == "jobs.json: jobs[0]: expected a job ad (a mapping)"


def test_unknown_semantics_is_an_error() -> None:
    with pytest.raises(ConsumptionError, match="unknown semantics"):
        negotiator_report(seed_slot(), {"jobs": []}, semantics="literal")


@settings(max_examples=30)
@given(
    requests=st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from([1, 100, 128, 700]), st.booleans()),
        max_size=8,
    ),
    claims=st.integers(1, 9),
)
def test_cycle_invariants(requests: list[tuple[int, int, bool]], claims: int) -> None:
    """Matched consumption plus what is left is what the slot had; costs add up to the
    drop of SlotWeight; no asset goes negative; at most NumClaims matches."""
    slot = seed_slot(NumClaims=claims)
    # Alike requests may share an autocluster (as the schedd groups them); different
    # ones never do (the negotiator trusts a cached match list without a new check).
    jobs = [
        job(c, m, 1024, **({"AutoClusterId": c * 1000 + m} if cluster else {}))
        for c, m, cluster in requests
    ]
    report = negotiator_report(slot, {"jobs": jobs}, semantics="code")
    matched = [m for m in report["matches"] if m["matched"]]
    assert len(matched) <= claims
    for asset, start in (("Cpus", 8), ("Memory", 16384), ("Disk", 1_000_000)):
        used = sum(m["consumption"][asset] for m in matched)
        assert used + report["remaining"][asset] == start
        assert report["remaining"][asset] >= 0
    assert sum(m["cost"] for m in matched) == 8 - report["remaining"]["SlotWeight"]


def test_basic_van_slots_publish_what_the_wheel_reads_from_the_configuration(
    tmp_path: Path,
) -> None:
    """The Consumption<asset> texts and NumClaims of each basic_van p-slot, built by
    consumption_texts / num_claims from the knobs as HTCondor's reader gives them
    (SLOT_TYPE_<N>_<knob> before <knob>), are those the cycle tests above use."""
    from tests.config.oracle_config import oracle_param

    config = tmp_path / "condor_config"
    config.write_text(BASIC_VAN, encoding="utf-8")
    knob_names = [
        "CONSUMPTION_CPUS",
        "CONSUMPTION_MEMORY",
        "CONSUMPTION_DISK",
        "CONSUMPTION_TOKENS",
        "NUM_CLAIMS",
    ]
    names = knob_names + [f"SLOT_TYPE_{t}_{k}" for t in (1, 2, 3, 4) for k in knob_names]
    answer = oracle_param(config, names)
    assert not answer.refused, answer.message
    for type_id in (1, 2, 3, 4):
        knobs = {
            k: answer.values.get(f"SLOT_TYPE_{type_id}_{k}") or answer.values[k] for k in knob_names
        }
        texts = consumption_texts(knobs, "Cpus Memory Disk Swap tokens")
        slot = basic_van_slot(type_id)
        assert {k: _expr(v) for k, v in texts.items()} == {
            k: v for k, v in slot.items() if k.startswith("Consumption")
        }
        assert num_claims(knobs, 5) == slot["NumClaims"]


# ---- differential: a whole cycle, re-run with classad2 doing every evaluation ----------


def _oracle_number(value: Any) -> float | None:
    return float(value) if isinstance(value, bool | int | float) else None


def _oracle_cycle(slot_map: dict[str, Any], jobs: list[dict[str, Any]]) -> list[tuple[bool, float]]:
    """consumption_policy.cpp / matchmaker.cpp as reference/slots.md §8 states them, with
    classad2 evaluating (no autoclusters: every job re-matched)."""
    slot = _oracle(_parsed(slot_map))
    assets = [a for a in str(slot["MachineResources"]).split() if a.lower() != "swap"]
    claims = int(slot["NumClaims"])
    out: list[tuple[bool, float]] = []
    for raw in jobs:
        request = _oracle(_parsed(raw))
        consumption = {}
        for a in assets:
            probe = classad2.ClassAd(str(request))
            if f"Request{a}" not in probe:
                probe[f"Request{a}"] = 0
            value = _oracle_number(classad2.ExprTree(f"MY.Consumption{a}").eval(slot, probe))
            consumption[a] = FAILED_CONSUMPTION if value is None else value
        have = {a: float(slot.eval(a)) for a in assets}
        enough = all(0 <= consumption[a] <= have[a] for a in assets) and any(
            consumption[a] > 0 for a in assets
        )
        overridden = classad2.ClassAd(str(request))
        for a in assets:
            if f"Request{a}" in request:
                overridden[f"_cp_orig_Request{a}"] = request[f"Request{a}"]
                c = consumption[a]
                overridden[f"Request{a}"] = int(c) if c == int(c) else c
        if claims < 1 or not (enough and overridden.symmetricMatch(slot)):
            out.append((False, 0.0))
            continue
        claims -= 1
        before = float(slot.eval("SlotWeight"))
        for a in assets:
            left = have[a] - consumption[a]
            slot[a] = int(left) if left == int(left) else left
        out.append((True, before - float(slot.eval("SlotWeight"))))
    return out


@settings(max_examples=25)
@given(
    type_id=st.sampled_from([0, 1, 2, 3, 4]),
    requests=st.lists(
        st.tuples(
            st.sampled_from([0, 1, 2, 3, 2.5]),
            st.sampled_from([1, 25, 26, 100, 129]),
            st.sampled_from([1, 100, 1025]),
            st.one_of(st.none(), st.integers(0, 2)),
        ),
        min_size=1,
        max_size=7,
    ),
)
def test_cycle_agrees_with_a_classad2_rerun(
    type_id: int, requests: list[tuple[float, int, int, int | None]]
) -> None:
    slot = seed_slot(NumClaims=4) if type_id == 0 else basic_van_slot(type_id)
    jobs = [
        job(c, m, d, **({} if tokens is None else {"RequestTokens": tokens}))
        for c, m, d, tokens in requests
    ]
    ours = [(m.matched, m.cost) for m in negotiate_cycle(slot, jobs).matches]
    assert ours == _oracle_cycle(slot, jobs)
