"""Slot layouts: how one startd divides a machine into slots (shared/reference/slots.md).

Stage: configuration + hardware -> frozen `Layout` (`layout`), what each slot publishes
(`publish`), the startd's split of a partitionable slot per claim and the return of a
dynamic slot's resources (`partition`), and the negotiator's view of a partitionable slot
under a consumption policy (`consumption`). Like the rest of the compiler it never prints
or exits; problems are `PolicyError`s (`SlotLayoutError` carries the startd's own log
text).

Public API (the runtime imports these from here)
------------------------------------------------
`build_layout(config, hardware, *, semantics)`, `hardware_from(document, file)`,
`read_document(path)` (a JSON or YAML input file), `slot_attrs(config)` (STARTD_SLOT_ATTRS),
`naming(era)` (slot names, id attribute, knob spellings of an era: 6.x `vm1`),
`slot_view(config, name, *, semantics)` (the configuration as one slot reads it),
`layout_report(layout)`, `slot_ad(layout, slot)`, `json_ad(ad)`, `Expression`;
`split(layout, carved, job, *, semantics)`, `release(carved, name)`, `Carved`, `NO_FIT`,
`jobs_report`, `pslot_of`; `negotiator_report`; the records `Hardware`, `Layout`,
`Machine`, `Share`, `Slot`, `SlotType`; `SlotLayoutError`.
"""

from compiler.slots.consumption import negotiator_report
from compiler.slots.layout import (
    Naming,
    SlotLayoutError,
    build_layout,
    hardware_from,
    naming,
    read_document,
    slot_attrs,
    slot_view,
)
from compiler.slots.model import Hardware, Layout, Machine, Share, Slot, SlotType
from compiler.slots.partition import NO_FIT, Carved, jobs_report, pslot_of, release, split
from compiler.slots.publish import Expression, json_ad, layout_report, slot_ad

__all__ = [
    "NO_FIT",
    "Carved",
    "Expression",
    "Hardware",
    "Layout",
    "Machine",
    "Naming",
    "Share",
    "Slot",
    "SlotLayoutError",
    "SlotType",
    "build_layout",
    "hardware_from",
    "jobs_report",
    "json_ad",
    "layout_report",
    "naming",
    "negotiator_report",
    "pslot_of",
    "read_document",
    "release",
    "slot_ad",
    "slot_attrs",
    "slot_view",
    "split",
]
