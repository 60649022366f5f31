"""The records a machine's slots are made of (reference/slots.md; 23.0 `slot_builder.cpp`,
`ResAttributes.cpp`, `Resource.cpp`).

One startd divides one machine (`Hardware`) into slots. The configuration says how
(`SlotType`: one `SLOT_TYPE_<N>` with its count and per-type knobs); `compiler.slots.layout`
turns hardware and configuration into a `Layout` (every slot with the resources it owns);
`compiler.slots.partition` carves dynamic slots out of a partitionable one per request and
gives them back; `compiler.slots.consumption` is the negotiator's view of a partitionable
slot under a consumption policy. Every record is frozen: a change is a new record
(`dataclasses.replace`), so a layout can be shared by many runs.

Units follow what the startd publishes: cores (a double inside, an integer `Cpus` in the
ad), memory in MB, disk and swap as a *fraction* of their partition / of the machine's
virtual memory (23.0 keeps them as fractions and publishes KB), custom resources as
doubles with the ids bound to the slot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

#: The kinds of slot the startd publishes as `SlotType` ("Static", "Partitionable", "Dynamic").
SlotKind = Literal["static", "partitionable", "dynamic"]


def _empty() -> Mapping[Any, Any]:
    """A fresh read-only empty mapping (the default of every mapping field)."""
    return MappingProxyType({})


@dataclass(frozen=True)
class Hardware:
    """What the startd detects on the machine (the `slots --hardware` file, DESIGN.md).

    `disk_kb` is the free space of the execute partition after RESERVED_DISK; `resources`
    lists each custom resource's ids in inventory order (`{"GPUs": ("GPU-0", ...)}`) and
    `resource_properties` each id's property ad (`{"GPU-0": {"Capability": 8.0}}`).
    """

    cpus: int
    memory_mb: int
    disk_kb: int
    swap_kb: int
    resources: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    resource_properties: Mapping[str, Mapping[str, object]] = field(default_factory=_empty)


@dataclass(frozen=True)
class Share:
    """How much of one resource a slot type asks for (23.0 `parse_share_value`).

    kind `auto` divides what explicit amounts leave; `fraction` is `value` x the machine
    total (percentages, `1/4`, `min` = 1/128); `absolute` is `value` itself (cores, MB, a
    custom resource's count).
    """

    kind: Literal["auto", "fraction", "absolute"]
    value: float = 0.0
    minimal: bool = False  # `min`/`minimal`: fractional cores allowed (no 1-core floor)


@dataclass(frozen=True)
class SlotType:
    """One slot type: `SLOT_TYPE_<N>` read, with its count and the knobs its slots use.

    `type_id` 0 is the built-in evenly divided type. `shares` maps the canonical resource
    name (`Cpus`, `Memory`, `Swap`, `Disk`, or a custom resource as configured) to its
    share; `constraints` maps a custom resource to the id constraint text after `:`.
    `knobs` holds the per-type value of every knob a slot of this type needs at run time
    (START, MODIFY_REQUEST_EXPR_*, CONSUMPTION_POLICY, CONSUMPTION_<res>, SLOT_WEIGHT,
    NUM_CLAIMS, MUST_MODIFY_REQUEST_EXPRS ...), already resolved `SLOT_TYPE_<N>_<KNOB>`
    before `<KNOB>`, as ClassAd source text (None when undefined), so partitioning needs
    no `Config`.
    """

    type_id: int
    count: int
    partitionable: bool
    shares: Mapping[str, Share]
    constraints: Mapping[str, str] = field(default_factory=_empty)
    knobs: Mapping[str, str | None] = field(default_factory=_empty)
    minimal: bool = False  # a bare `min` item: the type's slots may hold fractional cores


@dataclass(frozen=True)
class Slot:
    """One slot and the resources it owns now.

    `name` is `slot<id>` or, for a dynamic slot, `slot<id>_<sub_id>`. `cpus` is the
    double the startd keeps (a partitionable slot of 2.667 cores publishes `Cpus = 2`);
    `disk` and `swap` are fractions (see the module docstring); `custom` the amount of
    each custom resource and `assigned` the ids bound to it. `total` is the size the slot
    was built with (`TotalSlotCpus`, ...: a partitionable slot keeps its original size
    while it is carved).
    """

    name: str
    slot_id: int
    type_id: int
    kind: SlotKind
    cpus: float
    memory: int
    disk: float
    swap: float
    custom: Mapping[str, float] = field(default_factory=_empty)
    assigned: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    sub_id: int = 0
    total: Slot | None = None
    minimal: bool = False


@dataclass(frozen=True)
class Machine:
    """The machine-wide totals every slot publishes (`TotalCpus`, `TotalMemory`,
    `TotalDisk`, `TotalVirtualMemory`, `Total<name>`, `Detected<name>`)."""

    cpus: float
    memory: int
    disk_kb: int
    swap_kb: int
    custom: Mapping[str, float] = field(default_factory=_empty)
    detected: Mapping[str, float] = field(default_factory=_empty)


@dataclass(frozen=True)
class Layout:
    """A machine divided: its totals, its slot types and its slots in id order."""

    hardware: Hardware
    machine: Machine
    types: Mapping[int, SlotType]
    slots: tuple[Slot, ...]
    #: the era the startd belongs to (its slot naming: compiler.slots.layout.naming)
    era: str = "htcondor-current"

    def slot(self, name: str) -> Slot:
        """The slot called `name` (KeyError when there is none)."""
        for slot in self.slots:
            if slot.name == name:
                return slot
        raise KeyError(name)
