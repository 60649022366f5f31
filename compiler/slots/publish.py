"""What each slot and the machine publish for their resources (reference/slots.md section 5).

Stage: compiler (frozen `Layout` -> attribute mappings). 23.0 sources:
`CpuAttributes::publish_static` / `publish_dynamic` (Cpus, Memory, Disk, VirtualMemory,
TotalSlot*, custom amounts and `Assigned<name>`), `MachAttributes::publish_static`
(Total*, Detected*), `Resource::publish_static` (SlotType, SlotTypeID, SlotID, Name,
PartitionableSlot / DynamicSlot), `Reqexp::config` (WithinResourceLimits, Requirements).

A slot ad here is a plain mapping of attribute name to a Python value (numbers, strings,
booleans) or, for expressions, a ClassAd source text wrapped in `Expression` so that the
negotiator's view (compiler.slots.consumption) and the runtime can parse it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from compiler.slots.layout import naming
from compiler.slots.model import Layout, Machine, Slot


@dataclass(frozen=True)
class Expression:
    """An attribute published as an expression (its ClassAd source text)."""

    text: str


_KIND_NAME = {"static": "Static", "partitionable": "Partitionable", "dynamic": "Dynamic"}


def published_cpus(slot: Slot) -> int | float:
    """`Cpus`: int(cores + 0.1), a real only for a fractional-capable slot below 0.9."""
    if slot.minimal and 0 < slot.cpus < 0.9:
        return slot.cpus
    return int(slot.cpus + 0.1)


def published_disk(slot: Slot, machine: Machine) -> int:
    """`Disk` in KB: the slot's fraction of the partition, rounded up (`compute_disk`)."""
    # rounded to a millionth of a KB first, so that a share computed as disk / total
    # (the seed's exact d-slot disk) gives back the very number of KB
    return math.ceil(round(machine.disk_kb * slot.disk, 6))


def published_swap(slot: Slot, machine: Machine) -> int:
    """`VirtualMemory` in KB: the slot's fraction of the swap, rounded down."""
    return math.floor(machine.swap_kb * slot.swap)


def within_resource_limits(custom_names: tuple[str, ...]) -> str:
    """The WithinResourceLimits text 23.0 publishes without a consumption policy
    (`Reqexp::config`, STARTD_JOB_HAS_REQUEST_ATTRS false); custom resources in
    case-insensitive name order."""
    parts = [
        "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && "
        "MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && "
        "MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk"
    ]
    for name in sorted(custom_names, key=str.lower):
        parts.append(f"(TARGET.Request{name} is UNDEFINED ||MY.{name} >= TARGET.Request{name})")
    return "(" + " && ".join(parts) + ")"


def consumption_policy(layout: Layout, slot: Slot) -> bool:
    """True when `slot` is a partitionable slot under a consumption policy."""
    knob = layout.types[slot.type_id].knobs.get("CONSUMPTION_POLICY")
    return slot.kind == "partitionable" and (knob or "").strip().lower() in ("true", "1")


def _under_consumption_policy(layout: Layout, slot: Slot) -> bool:
    """A consumption-policy p-slot, or a dynamic slot carved from one: both publish the
    Consumption<asset> texts and the consumption variant of WithinResourceLimits (23.0
    `Reqexp::config` and `Resource::publish_static`: `r_has_cp || parent's r_has_cp`)."""
    knob = layout.types[slot.type_id].knobs.get("CONSUMPTION_POLICY")
    return slot.kind != "static" and (knob or "").strip().lower() in ("true", "1")


def machine_ad(layout: Layout) -> dict[str, object]:
    """The machine-wide totals every slot publishes (`MachAttributes::publish_static`)."""
    machine = layout.machine
    ad: dict[str, object] = {
        "TotalCpus": float(machine.cpus),
        "TotalMemory": machine.memory,
        "TotalVirtualMemory": machine.swap_kb,
        "TotalDisk": machine.disk_kb,
    }
    for name, amount in machine.custom.items():
        ad[f"Total{name}"] = int(amount)
    for name, amount in machine.detected.items():
        ad[f"Detected{name}"] = int(amount)
    return ad


def slot_ad(layout: Layout, slot: Slot, host: str | None = None) -> dict[str, object]:
    """Every resource attribute `slot` publishes, the machine totals included.

    For a partitionable slot under a consumption policy, the Consumption<asset> texts,
    WithinResourceLimits and NumClaims come from compiler.slots.consumption (helper N's
    module; until it is merged such a slot publishes no WithinResourceLimits).
    """
    machine = layout.machine
    total = slot.total or slot
    ad: dict[str, object] = {
        "Name": f"{slot.name}@{host}" if host else slot.name,
        naming(layout.era).id_attribute: slot.slot_id,  # SlotID; 6.x VirtualMachineID
        "SlotTypeID": slot.type_id,
        "SlotType": _KIND_NAME[slot.kind],
        "Cpus": published_cpus(slot),
        "Memory": slot.memory,
        "Disk": published_disk(slot, machine),
        "VirtualMemory": published_swap(slot, machine),
        "TotalSlotCpus": published_cpus(total),
        "TotalSlotMemory": total.memory,
        "TotalSlotDisk": published_disk(total, machine),
        "MachineResources": " ".join(("Cpus", "Memory", "Disk", "Swap", *machine.custom)),
    }
    for name in machine.custom:
        ad[name] = int(slot.custom.get(name, 0.0))
        ad[f"TotalSlot{name}"] = int(total.custom.get(name, 0.0))
        ids = (total if slot.kind == "partitionable" else slot).assigned.get(name, ())
        if ids:
            ad[f"Assigned{name}"] = ",".join(ids)
    if slot.kind == "partitionable":
        ad["PartitionableSlot"] = True
    if slot.kind == "dynamic":
        ad["DynamicSlot"] = True
        ad["ParentSlotId"] = slot.slot_id
        ad["DSlotId"] = slot.sub_id
    knobs = layout.types[slot.type_id].knobs
    ad["SlotWeight"] = Expression(knobs.get("SLOT_WEIGHT") or "Cpus")
    start = knobs.get("START") or "true"
    ad["Start"] = Expression(start)
    if slot.kind == "static":
        ad["Requirements"] = Expression("START")
    elif not _under_consumption_policy(layout, slot):
        ad["WithinResourceLimits"] = Expression(within_resource_limits(tuple(machine.custom)))
        ad["Requirements"] = Expression("START && (WithinResourceLimits)")
    else:
        ad.update(_consumption_attributes(layout, slot))
    ad.update(machine_ad(layout))
    return ad


def _consumption_attributes(layout: Layout, slot: Slot) -> dict[str, object]:
    """What a consumption-policy p-slot adds (23.0 `Resource::publish_static`,
    `Reqexp::config`), built by compiler.slots.consumption."""
    try:
        from compiler.slots import consumption
    except ImportError:  # merged separately (plan 21, helper N)
        return {}
    knobs = layout.types[slot.type_id].knobs
    assets = ("Cpus", "Memory", "Disk", *layout.machine.custom)
    ad: dict[str, object] = {
        name: Expression(text)
        for name, text in consumption.consumption_texts(knobs, assets).items()
    }
    limits = consumption.within_resource_limits_text(tuple(layout.machine.custom), knobs)
    ad["WithinResourceLimits"] = Expression(limits)
    ad["Requirements"] = Expression("START && (WithinResourceLimits)")
    if slot.kind == "partitionable":  # `if (r_has_cp)`: the p-slot's claim objects
        ad["NumClaims"] = consumption.num_claims(knobs, (slot.total or slot).cpus)
    return ad


def slot_record(layout: Layout, slot: Slot) -> dict[str, object]:
    """One slot as the `slots` command reports it (DESIGN.md: Memory MB, Disk/Swap KB)."""
    ad = slot_ad(layout, slot)
    record: dict[str, object] = {
        "name": slot.name,
        "type": slot.type_id,
        "partitionable": slot.kind == "partitionable",
        "Cpus": ad["Cpus"],
        "Memory": ad["Memory"],
        "Disk": ad["Disk"],
        "Swap": ad["VirtualMemory"],
        "TotalSlotCpus": ad["TotalSlotCpus"],
        "TotalSlotMemory": ad["TotalSlotMemory"],
        "TotalSlotDisk": ad["TotalSlotDisk"],
    }
    for name in layout.machine.custom:
        record[name] = ad[name]
        record[f"TotalSlot{name}"] = ad[f"TotalSlot{name}"]
        if f"Assigned{name}" in ad:
            record[f"Assigned{name}"] = ad[f"Assigned{name}"]
    return record


def layout_report(layout: Layout) -> dict[str, object]:
    """DESIGN.md's `slots --hardware` JSON: every slot and the machine totals."""
    return {
        "slots": [slot_record(layout, slot) for slot in layout.slots],
        "machine": machine_ad(layout),
    }


def json_ad(ad: Mapping[str, object]) -> dict[str, object]:
    """`ad` as `condor_status -json` writes it: expressions as `/Expr(text)/` strings
    (the form compiler.slots.consumption reads the negotiator's copy of a slot in)."""
    return {k: (f"/Expr({v.text})/" if isinstance(v, Expression) else v) for k, v in ad.items()}
