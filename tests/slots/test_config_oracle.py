"""The configuration side of slot layouts, differential against HTCondor's own reader (the
htcondor wheel through tests/config/oracle_config.py): every knob the layout reads
(NUM_SLOTS_TYPE_<N>, SLOT_TYPE_<N>, SLOT_TYPE_<N>_PARTITIONABLE, NUM_SLOTS,
MACHINE_RESOURCE_*, ...) expands as HTCondor expands it, for seed 002's examples and the
FEATURE templates PartitionableSlot / StaticSlots / GPUs with and without arguments.

The layout reads nothing else from the configuration, so equal values mean the startd
and compiler.slots.layout start from the same text (23.0's param_info.in templates are
identical to the wheel's, shared/reference/slots.md section 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.slots.layout import GLOBAL_KNOBS, TYPE_KNOBS, TYPE_ONLY_KNOBS
from tests.config.oracle_config import oracle_param

pytestmark = pytest.mark.oracle

CONFIGS = {
    "static-slots": "NUM_CPUS = 6\nuse FEATURE : StaticSlots\n",
    "static-slots-args": "NUM_CPUS = 8\nuse FEATURE : StaticSlots(2, 3, cpus=2, 25%)\n",
    "pslot": "use FEATURE : PartitionableSlot\n",
    "pslot-args": "use FEATURE : PartitionableSlot(1, Cpus=2, Memory=50%, Disk=50%, GPUs=2)\n",
    "pslot-type-3": "use FEATURE : PartitionableSlot(3)\n",
    "gpus": "use feature : GPUs\nuse FEATURE : PartitionableSlot\n",
    "seed-one-pslot": "NUM_SLOTS = 1\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\n"
    "SLOT_TYPE_1_PARTITIONABLE = TRUE\n",
    "seed-cogs": "MACHINE_RESOURCE_Cogs = 16\nMACHINE_RESOURCE_actuator = 8\n"
    "if defined MACHINE_RESOURCE_NAMES\n  MACHINE_RESOURCE_NAMES = $(MACHINE_RESOURCE_NAMES) Cogs actuator\n"
    "endif\nSLOT_TYPE_1 = cogs=50%,actuator=6,50%\nSLOT_TYPE_1_PARTITIONABLE = TRUE\n"
    "NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = cogs=25%,actuator=1,25%\n"
    "SLOT_TYPE_2_PARTITIONABLE = FALSE\nNUM_SLOTS_TYPE_2 = 2\n",
    "seed-gpu": (
        Path(__file__).resolve().parents[2] / "docs" / "examples" / "slots" / "gpu-slots.config"
    ).read_text(encoding="utf-8"),
    "seed-types": "SLOT_TYPE_1 = cpus=2, ram=128, swap=25%, disk=1/2\n"
    "SLOT_TYPE_2 = cpus=1/2, memory=128, virt=25%, disk=50%\nSLOT_TYPE_3 = c=1/2, m=50%, v=1/4, disk=1/2\n"
    "SLOT_TYPE_4 = c=25%, m=64, v=1/4, d=25%\nSLOT_TYPE_5 = 25%\nSLOT_TYPE_6 = 1/4\n"
    "NUM_SLOTS_TYPE_1 = 1\n",
    "per-type-knobs": 'NUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_2_START = Owner == "amy"\n'
    "SLOT_TYPE_2_CONSUMPTION_POLICY = true\nSLOT_TYPE_2_SLOT_WEIGHT = floor(Memory / 25)\n"
    "SLOT_TYPE_2_NAME_PREFIX = gpu\nMODIFY_REQUEST_EXPR_REQUESTMEMORY = quantize(RequestMemory, {512})\n",
}

NAMES = [
    "NUM_SLOTS",
    "MAX_SLOT_TYPES",
    "MACHINE_RESOURCE_NAMES",
    "MACHINE_RESOURCE_Cogs",
    "MACHINE_RESOURCE_actuator",
    "MACHINE_RESOURCE_INVENTORY_GPUs",
    "SLOT_TYPE_0_PARTITIONABLE",
    *GLOBAL_KNOBS,
    *TYPE_KNOBS,
    *(
        name
        for n in range(1, 7)
        for name in (
            f"NUM_SLOTS_TYPE_{n}",
            f"SLOT_TYPE_{n}",
            f"SLOT_TYPE_{n}_PARTITIONABLE",
            *(f"SLOT_TYPE_{n}_{knob}" for knob in (*TYPE_KNOBS, *TYPE_ONLY_KNOBS)),
        )
    ),
]
#: Differences of the era defaults the reader already documents (not slot facts): the
#: wheel is newer than the era's default table for these.
SKIP = frozenset({"MODIFY_REQUEST_EXPR_REQUESTDISK"})


@pytest.mark.parametrize("key", sorted(CONFIGS))
def test_slot_knobs_expand_as_htcondor_expands_them(key: str, tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text(CONFIGS[key], encoding="utf-8")
    oracle = oracle_param(path, NAMES)
    assert not oracle.refused, oracle.message
    assert any(oracle.values.get(n) for n in NAMES if n.startswith(("NUM_SLOTS", "SLOT_TYPE_1")))
    ours = load_config(path)
    mismatches = {
        name: (ours.get(name), oracle.values.get(name))
        for name in NAMES
        if name not in SKIP and (ours.get(name) or None) != oracle.values.get(name)
    }
    assert not mismatches, mismatches
