"""Configuration + hardware -> slot layout, as the startd builds it at start-up.

Stage: compiler (configuration -> frozen `Layout`). Rules and their 23.0 sources are in
shared/reference/slots.md sections 1-6 and docs/slots.md: machine totals (`MachAttributes`
constructor), slot counts per type (`slot_builder.cpp` `countTypes`), `SLOT_TYPE_<N>`
items (`buildSlot`, `parse_share_value`), the three allocation phases (`buildCpuAttrs`,
`AvailAttributes::decrement`, `computeAutoShares`, `CpuAttributes::bind_DevIds`) and
custom resources (`init_machine_resources`, `DevIdMatches`). A configuration the startd
refuses raises `SlotLayoutError` carrying the text the startd logs and how it then exits.

Where the seed and 23.0 disagree the choice is data (spec/slots.yaml, per semantics).
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from compiler import yamlcache
from compiler.config import Config
from compiler.errors import PolicyError
from compiler.slots.model import Hardware, Layout, Machine, Share, Slot, SlotKind, SlotType

#: The four standard resources, in the order the startd publishes them (`MachineResources`).
STANDARD = ("Cpus", "Memory", "Disk", "Swap")
#: Names a custom resource may not take (`init_machine_resources`).
RESERVED = frozenset({"CPU", "CPUS", "DISK", "SWAP", "MEM", "MEMORY", "RAM"})
#: The words each standard resource may be abbreviated from (`buildSlot`).
_WORDS = {"Cpus": ("cpus",), "Memory": ("ram", "memory"), "Swap": ("swap", "virtualmemory"),
          "Disk": ("disk",)}  # fmt: skip
#: Knobs a slot type resolves `SLOT_TYPE_<N>_<KNOB>` before `<KNOB>` (`SlotType::type_param`).
TYPE_KNOBS = ("START", "CONSUMPTION_POLICY", "SLOT_WEIGHT", "NUM_CLAIMS")
#: Knobs only a slot type has (no global fallback).
TYPE_ONLY_KNOBS = ("NAME_PREFIX",)
#: Global knobs partitioning needs (per type only in HEAD, reference section 11).
GLOBAL_KNOBS = (
    "MODIFY_REQUEST_EXPR_REQUESTCPUS",
    "MODIFY_REQUEST_EXPR_REQUESTMEMORY",
    "MODIFY_REQUEST_EXPR_REQUESTDISK",
    "MUST_MODIFY_REQUEST_EXPRS",
    "STARTD_RESOURCE_PREFIX",
    # draining (ResMgr::startDraining, condor_defrag's Defrag::drain_this)
    "DEFAULT_DRAINING_START_EXPR",
    "DEFRAG_DRAINING_START_EXPR",
    "DEFRAG_DRAINING_SCHEDULE",
)
_EPSILON = 0.000001
#: The share `min` / `minimal` stands for (`MINIMAL_SHARE`).
MINIMAL = 1.0 / 128


class SlotLayoutError(PolicyError):
    """A configuration the startd refuses at start-up.

    `log` is what the startd writes to its log; `outcome` how it then stops (an EXCEPT
    message, or an exit status). Both are part of the message, the log text first.
    """

    def __init__(self, log: str, outcome: str, *, file: str | None = None,
                 line: int | None = None) -> None:  # fmt: skip
        super().__init__(f"{log}\n  then the startd exits: {outcome}", file=file, line=line)
        self.log = log
        self.outcome = outcome


EXIT_4 = "exit status 4 (DC_Exit(4))"


@dataclass(frozen=True)
class Facts:
    """What one semantics says where the seed and 23.0 differ (spec/slots.yaml)."""

    type0_partitionable: bool
    num_slots_static: bool
    resource_names: str
    dslot_disk: str
    knob_defaults: Mapping[str, str]


@cache
def facts(semantics: str) -> Facts:
    """The slot facts of `semantics` ("code" or "manual") from spec/slots.yaml."""
    entry = yamlcache.spec_entry("slots.yaml", "semantics", semantics, "semantics for slots")
    return Facts(
        bool(entry["type0_partitionable"]),
        bool(entry["num_slots_static"]),
        str(entry["resource_names"]),
        str(entry["dslot_disk"]),
        MappingProxyType(dict(entry.get("knob_defaults") or {})),
    )


@dataclass(frozen=True)
class Naming:
    """How one era's startd names its slots (spec/slots.yaml `eras`): `vm1` and
    VirtualMachineID in 6.x, `slot1` and SlotID since 6.9; the 6.x knob spellings read as
    today's (`spelling`: old name or prefix -> new); whether partitionable slots exist;
    the knobs listing the attributes each slot publishes of the others."""

    prefix: str
    id_attribute: str
    partitionable: bool
    spelling: Mapping[str, str]
    cross_slot_knobs: tuple[str, ...]


@cache
def naming(era: str) -> Naming:
    """The slot naming of `era` (spec/slots.yaml `eras`)."""
    entry = yamlcache.spec_entry("slots.yaml", "eras", era, "era for slots")
    return Naming(
        str(entry["prefix"]),
        str(entry["id_attribute"]),
        bool(entry["partitionable"]),
        MappingProxyType({str(k): str(v) for k, v in (entry.get("spelling") or {}).items()}),
        tuple(str(k) for k in entry.get("cross_slot_knobs") or ()),
    )


def spelled(config: Config) -> Config:
    """`config` with its era's old knob spellings (NUM_VIRTUAL_MACHINES,
    VIRTUAL_MACHINE_TYPE_<N> ...) also defined under today's names, at the same place
    (so an error about them points at the line that wrote them)."""
    spelling = naming(config.era).spelling
    if not spelling:
        return config
    table = config.table.copy()
    for key, definitions in list(config.table.definitions.items()):
        for old, new in sorted(spelling.items(), key=lambda kv: -len(kv[0])):
            if key.startswith(old) and (old.endswith("_") or key == old or key[len(old)] == "_"):
                modern = new + key[len(old) :]
                for d in definitions:
                    table.define(msgspec.structs.replace(d, name=modern))
                break
    return Config(config.era, config.subsystem, table, config.env, config.files, config.warnings)


# -- small C-like helpers -------------------------------------------------------------------

_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")


def atof(text: str) -> float:
    """C `atof`: the leading number of `text`, 0.0 when there is none (`2G` is 2)."""
    found = _NUMBER.match(text)
    return float(found.group(0)) if found else 0.0


def single(value: float) -> float:
    """`value` rounded to a C `float` (23.0 keeps the swap remainder in one)."""
    rounded: float = struct.unpack("f", struct.pack("f", value))[0]
    return rounded


def ordinal(n: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th` ... as the startd's log names a slot's place in its type."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


# -- machine totals and custom resources -------------------------------------------------------


def with_hardware(config: Config, hardware: Hardware) -> Config:
    """`config` as the startd on `hardware` reads it: DETECTED_* are the hardware's."""
    table = config.table.copy()
    cpus = str(hardware.cpus)
    table.detected.update(
        DETECTED_CPUS=cpus,
        DETECTED_CORES=cpus,
        DETECTED_PHYSICAL_CPUS=cpus,
        DETECTED_CPUS_LIMIT=cpus,
        DETECTED_MEMORY=str(hardware.memory_mb),
    )
    return Config(config.era, config.subsystem, table, config.env, config.files, config.warnings)


def _where(config: Config, name: str) -> dict[str, Any]:
    """file/line of the definition of `name`, for an error's position."""
    found = config.definition(name)
    if found is None:
        return {"file": "<config>"}
    return {"file": found.origin.file, "line": found.origin.line or None}


def _type_where(config: Config, type_id: int) -> dict[str, Any]:
    """The position of a slot type: its SLOT_TYPE_<N>, else its count, else NUM_SLOTS."""
    for key in (f"SLOT_TYPE_{type_id}", f"NUM_SLOTS_TYPE_{type_id}", "NUM_SLOTS", "NUM_CPUS"):
        if config.definition(key) is not None:
            return _where(config, key)
    return {"file": "<config>"}


def _int_knob(config: Config, name: str, default: int) -> int:
    """An integer knob as `param_integer` reads it: a number or an expression that
    evaluates to one (a real is truncated); anything else is a positioned error."""
    value = config.get(name)
    if value is None:
        return default
    try:
        return int(value.strip())
    except ValueError:
        number = _number(value)
        if number is None:
            message = f"{name} is not an integer: '{value}'"
            raise PolicyError(message, **_where(config, name)) from None
        return int(number)


def _bool_knob(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    text = value.strip().lower()
    if text in ("true", "1", "yes", "t"):
        return True
    if text in ("false", "0", "no", "f"):
        return False
    return default


def _custom_resources(
    config: Config, hardware: Hardware
) -> tuple[dict[str, float], dict[str, tuple[str, ...]]]:
    """Each custom resource's quantity and its ids (inventory order), by configured name."""
    quantity: dict[str, float] = {}
    ids: dict[str, tuple[str, ...]] = {}
    for name, listed in hardware.resources.items():
        ids[name] = tuple(listed)
        quantity[name] = float(len(listed))
    prefix = "MACHINE_RESOURCE_"
    for key in config.names():
        upper = key.upper()
        if not upper.startswith(prefix) or upper == "MACHINE_RESOURCE_NAMES":
            continue
        if upper.startswith(prefix + "INVENTORY_"):
            name = key[len(prefix + "INVENTORY_") :]
            if name.upper() in RESERVED:
                _reserved(config, key, name)
            continue  # the program's ids are the hardware file's `resources`
        name = key[len(prefix) :]
        if name.upper() in RESERVED:
            _reserved(config, key, name)
        value = config.get(key)
        if value is None:
            continue
        for old in [k for k in quantity if k.upper() == name.upper()]:
            del quantity[old]
            ids.pop(old, None)
        number = _number(value)
        if number is not None:
            quantity[name] = number
            continue
        listed = tuple(t for t in re.split(r"[\s,]+", value.strip()) if t)
        ids[name] = listed
        quantity[name] = float(len(listed))
    for name in list(quantity):
        offline = config.get(f"OFFLINE_MACHINE_RESOURCE_{name}")
        if offline and name in ids:
            gone = {t.upper() for t in re.split(r"[\s,]+", offline.strip()) if t}
            ids[name] = tuple(i for i in ids[name] if i.upper() not in gone)
            quantity[name] = float(len(ids[name]))
    names = config.get("MACHINE_RESOURCE_NAMES")
    if names is not None:
        kept = {t.upper() for t in re.split(r"[\s,]+", names.strip()) if t}
        for name in [n for n in quantity if n.upper() not in kept]:
            del quantity[name]
            ids.pop(name, None)
    return quantity, ids


def _reserved(config: Config, key: str, name: str) -> None:
    raise SlotLayoutError(
        f"fatal error - {key} is invalid, '{name}' is a reserved resource name",
        f"EXCEPT fatal error - {key} is invalid, '{name}' is a reserved resource name",
        **_where(config, key),
    )


def _number(text: str) -> float | None:
    """The value of a MACHINE_RESOURCE_<name> that is a number or a numeric expression."""
    from compiler.classad import ClassAdSyntaxError, evaluate, parse

    try:
        value = evaluate(parse(text))
    except ClassAdSyntaxError:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def machine_totals(config: Config, hardware: Hardware) -> Machine:
    """What is divided (reference section 1): cores, MB, KB of disk and swap, customs."""
    cpus = float(_int_knob(config, "NUM_CPUS", hardware.cpus))
    memory = _int_knob(config, "MEMORY", 0) or hardware.memory_mb
    memory -= _int_knob(config, "RESERVED_MEMORY", 0)
    if memory <= 0:
        raise SlotLayoutError(
            "Error computing physical memory with calc_phys_mem().",
            "EXCEPT Can't compute physical memory.",
            **_where(config, "RESERVED_MEMORY"),
        )
    disk = hardware.disk_kb
    if config.get("DISK") is not None:
        disk = _int_knob(config, "DISK", disk)
    quantity, _ids = _custom_resources(config, hardware)
    custom = MappingProxyType(dict(quantity))
    return Machine(cpus, memory, disk, hardware.swap_kb, custom, custom)


# -- slot types --------------------------------------------------------------------------------


def split_items(value: str) -> list[str]:
    """A SLOT_TYPE value's items: lines when it has several, else split at commas and
    spaces (23.0 `StringList(" ,")`), blanks dropped."""
    parts = [p.strip() for p in value.split("\n")] if "\n" in value else re.split(r"[ ,]", value)
    return [p for p in parts if p.strip()]


def _share(text: str, type_id: int, config: Config, key: str) -> Share:
    """`parse_share_value`: auto, min, a percentage, a fraction, or an absolute amount."""
    lowered = text.strip().lower()
    if lowered in ("auto", "automatic"):
        return Share("auto")
    if lowered in ("min", "minimal"):
        return Share("fraction", MINIMAL, minimal=True)
    if "%" in text:
        return Share("fraction", atof(text) / 100.0)
    if "/" in text:
        after = text[text.index("/") + 1 :]
        denominator = atof(after) if after else 0.0
        if denominator <= 0:
            raise SlotLayoutError(
                f'Can\'t parse attribute "{text}" in description of slot type {type_id}',
                EXIT_4,
                **_where(config, key),
            )
        return Share("fraction", atof(text) / denominator)
    return Share("absolute", atof(text))


def standard_name(name: str, semantics: str) -> str | None:
    """The standard resource `name` stands for, or None (prefix rule in 23.0, first
    letter in the seed)."""
    lowered = name.lower()
    for resource, words in _WORDS.items():
        for word in words:
            if facts(semantics).resource_names == "prefix":
                if lowered and word.startswith(lowered):
                    return resource
            elif lowered[:1] == word[:1]:
                return resource
    return None


def parse_slot_type(
    type_id: int,
    value: str | None,
    customs: Mapping[str, float],
    config: Config,
    *,
    semantics: str,
) -> tuple[dict[str, Share], dict[str, str], bool]:
    """SLOT_TYPE_<N> -> (shares by resource, constraints by custom name, minimal)."""
    key = f"SLOT_TYPE_{type_id}"
    shares: dict[str, Share] = {}
    constraints: dict[str, str] = {}
    default = Share("auto")
    minimal = False
    by_upper = {name.upper(): name for name in customs}
    for item in split_items(value or ""):
        if "=" not in item:
            share = _share(item, type_id, config, key)
            if not share.minimal and share.kind != "auto" and (
                share.kind == "absolute" or not 0 <= share.value <= 1
            ):  # fmt: skip
                if not (share.kind == "absolute" and share.value == 0):
                    raise SlotLayoutError(
                        f'ERROR: Bad description of slot type {type_id}: "{item}" is invalid.\n'
                        '\tYou must specify a percentage (like "25%"), a fraction (like "1/4"),\n'
                        '\tor list all attributes (like "c=1, r=25%, s=25%, d=25%").\n'
                        "\tSee the manual for details.",
                        EXIT_4,
                        **_where(config, key),
                    )
                share = Share("fraction", 0.0)
            default = share
            minimal = minimal or share.minimal
            continue
        name, _, text = item.partition("=")
        name = name.strip()
        text = text.strip()
        if not text:
            raise SlotLayoutError(
                f'Can\'t parse attribute "{item}" in description of slot type {type_id}',
                EXIT_4,
                **_where(config, key),
            )
        constraint = ""
        if ":" in text:
            text, _, constraint = text.partition(":")
            text, constraint = text.strip(), constraint.strip()
        share = _share(text, type_id, config, key)
        resource = by_upper.get(name.upper()) or standard_name(name, semantics)
        if resource is None:
            if share.kind == "absolute" and share.value > 0:
                raise SlotLayoutError(
                    f'Unknown attribute "{name}" in slot type {type_id}', EXIT_4,
                    **_where(config, key),
                )  # fmt: skip
            continue
        if resource in ("Swap", "Disk") and share.kind == "absolute" and share.value != 0:
            word = "swap" if resource == "Swap" else "disk"
            raise SlotLayoutError(
                f"You must specify a percent or fraction for {word} in slot type {type_id}",
                EXIT_4,
                **_where(config, key),
            )
        if resource in ("Swap", "Disk") and share.kind == "absolute":
            share = Share("fraction", 0.0)
        shares[resource] = share
        if constraint and resource in customs:
            constraints[resource] = constraint
    for resource in (*STANDARD, *customs):
        shares.setdefault(resource, default)
    return shares, constraints, minimal


def _type_knobs(config: Config, type_id: int, customs: Mapping[str, float],
                semantics: str) -> dict[str, str | None]:  # fmt: skip
    """Every knob a slot of type `type_id` needs at run time, resolved per type first."""
    knobs: dict[str, str | None] = {}
    assets = ("Cpus", "Memory", "Disk", *customs)
    for knob in (*TYPE_KNOBS, *(f"CONSUMPTION_{a}" for a in assets)):
        own = config.get(f"SLOT_TYPE_{type_id}_{knob}")
        knobs[knob] = own if own is not None else config.get(knob)
    for knob in TYPE_ONLY_KNOBS:
        knobs[knob] = config.get(f"SLOT_TYPE_{type_id}_{knob}")
    defaults = facts(semantics).knob_defaults
    for knob in GLOBAL_KNOBS:
        if config.definition(knob) is None and knob in defaults:
            knobs[knob] = defaults[knob]
        else:
            knobs[knob] = config.get(knob)
    return knobs


def _type0_partitionable(config: Config, semantics: str) -> bool:
    """Whether the evenly divided type 0 is partitionable: SLOT_TYPE_0_PARTITIONABLE
    when configured, else the semantics' default (spec/slots.yaml)."""
    if not naming(config.era).partitionable:
        return False
    known = facts(semantics)
    default = known.type0_partitionable
    if known.num_slots_static and config.get("NUM_SLOTS") is not None:
        default = False
    return _bool_knob(config.get("SLOT_TYPE_0_PARTITIONABLE"), default)


def type_counts(config: Config, cpus: float, *, semantics: str) -> dict[int, int]:
    """How many slots of each type, by type number (`ResMgr::countTypes`): the non-zero
    NUM_SLOTS_TYPE_<N> of types 1..MAX_SLOT_TYPES, or else NUM_SLOTS slots of type 0
    (default 1 when type 0 is partitionable, else the machine's cores)."""
    top = _int_knob(config, "MAX_SLOT_TYPES", 10)
    counts = {n: _int_knob(config, f"NUM_SLOTS_TYPE_{n}", 0) for n in range(1, top + 1)}
    counts = {n: c for n, c in counts.items() if c > 0}
    if not counts:
        zero_p = _type0_partitionable(config, semantics)
        counts = {0: _int_knob(config, "NUM_SLOTS", 1 if zero_p else int(cpus))}
    return counts


def slot_view(config: Config, name: str, *, semantics: str) -> Config:
    """The configuration as slot `name` reads it (`SLOT<N>_` then `SLOT_TYPE_<T>_`
    knobs before the plain ones): slot `slot<N>` or a dynamic slot `slot<N>_<k>` of it,
    numbered as the startd numbers its slots (types in ascending order), with the cores
    the configuration gives (NUM_CPUS, by default this host's DETECTED_CPUS)."""
    config = spelled(config)
    prefix = naming(config.era).prefix
    found = re.fullmatch(rf"{prefix}(\d+)(?:_(\d+))?", name, re.IGNORECASE)
    if found is None:
        raise PolicyError(
            f"{name!r} is not a slot name in {config.era} ({prefix}1, {prefix}2, {prefix}1_3, ...)",
            file="--slot",
        )
    slot_id = int(found.group(1))
    cpus = float(_int_knob(config, "NUM_CPUS", _int_knob(config, "DETECTED_CPUS", 1)))
    order = [
        t
        for t, n in sorted(type_counts(config, cpus, semantics=semantics).items())
        for _ in range(n)
    ]
    if not 1 <= slot_id <= len(order):
        raise PolicyError(
            f"this configuration makes {len(order)} slot(s): there is no slot{slot_id}",
            file="--slot",
        )
    return config.slot(slot_id, order[slot_id - 1])


def slot_types(
    config: Config, machine: Machine, *, semantics: str
) -> tuple[dict[int, SlotType], list[int]]:
    """The slot types that have slots, and the type of each slot in creation order."""
    for key in ("SLOT_TYPE_0", "NUM_SLOTS_TYPE_0"):
        if config.get(key) is not None:
            raise SlotLayoutError(
                f"Can't define {key} in the config file",
                f"EXCEPT Can't define {key} in the config file",
                **_where(config, key),
            )
    counts = type_counts(config, machine.cpus, semantics=semantics)
    zero_p = _type0_partitionable(config, semantics)
    types: dict[int, SlotType] = {}
    order: list[int] = []
    for type_id in sorted(counts):
        if counts[type_id] <= 0:
            continue
        value = None if type_id == 0 else config.get(f"SLOT_TYPE_{type_id}")
        shares, constraints, minimal = parse_slot_type(
            type_id, value, machine.custom, config, semantics=semantics
        )
        if type_id == 0:
            partitionable = zero_p
        else:
            partitionable = _bool_knob(config.get(f"SLOT_TYPE_{type_id}_PARTITIONABLE"), False)
        knobs = _type_knobs(config, type_id, machine.custom, semantics)
        types[type_id] = SlotType(
            type_id,
            counts[type_id],
            partitionable,
            MappingProxyType(shares),
            MappingProxyType(constraints),
            MappingProxyType(knobs),
            minimal,
        )
        order += [type_id] * counts[type_id]
    return types, order


# -- allocation --------------------------------------------------------------------------------


@dataclass
class _Draft:
    """One slot while its amounts are being decided (None = an auto share not yet known)."""

    slot_id: int
    type_id: int
    place: int
    minimal: bool
    amounts: dict[str, float | None]


def _explicit(share: Share, resource: str, machine: Machine, minimal: bool) -> float | None:
    """`compute_local_resource`: the amount of an explicit share (None for auto)."""
    if share.kind == "auto":
        return None
    if resource in ("Swap", "Disk"):
        return share.value  # a fraction of the partition / of the virtual memory
    total = {"Cpus": machine.cpus, "Memory": float(machine.memory)}.get(
        resource, machine.custom.get(resource, 0.0)
    )
    amount = share.value * total if share.kind == "fraction" else share.value
    if resource == "Cpus" and not minimal:
        amount = max(amount, 1.0)
    if resource == "Memory":
        amount = float(max(int(amount), 1))
    return amount


def _phase_one(drafts: list[_Draft], machine: Machine, config: Config) -> dict[str, float]:
    """Explicit amounts against a running remainder (`AvailAttributes::decrement`)."""
    left: dict[str, float] = {
        "Cpus": float(int(machine.cpus)),
        "Memory": float(machine.memory),
        "Swap": single(1.0),
        "Disk": 1.0,
        **machine.custom,
    }
    for draft in drafts:
        after = dict(left)
        for resource, amount in draft.amounts.items():
            if amount is None:
                continue
            if resource == "Cpus":
                if not (draft.minimal and amount < 0.5):
                    after["Cpus"] = float(math.trunc(left["Cpus"] - amount))
            elif resource == "Swap":
                after["Swap"] = single(left["Swap"] - amount)
            else:
                after[resource] = left[resource] - amount
        if any(after[r] < -_EPSILON for r in after):
            raise SlotLayoutError(
                f"ERROR: Can't allocate {ordinal(draft.place)} slot of type {draft.type_id}",
                "EXCEPT Ran out of system resources",
                **_type_where(config, draft.type_id),
            )
        left = after
    return left


def _phase_two(drafts: list[_Draft], left: Mapping[str, float], config: Config) -> None:
    """Auto shares divide what phase one left (`AvailAttributes::computeAutoShares`)."""
    count = {r: sum(1 for d in drafts if d.amounts.get(r, 0) is None) for r in left}
    served = dict.fromkeys(left, 0)
    given = dict.fromkeys(left, 0.0)
    for draft in drafts:
        for resource in list(draft.amounts):
            if draft.amounts[resource] is not None:
                continue
            n = count[resource]
            if resource == "Cpus":
                amount = left["Cpus"] / n
                bad = amount < 1 and not draft.minimal
            elif resource == "Memory":
                amount = float(int(left["Memory"]) // n)
                bad = amount < 1
            elif resource == "Swap":
                amount = single(left["Swap"] / n)
                bad = amount <= 0
            elif resource == "Disk":
                amount = left["Disk"] / n
                bad = amount <= 0
            else:
                if left[resource] < 1:
                    amount = 0.0
                else:
                    amount = float(
                        math.ceil((left[resource] - given[resource]) / (n - served[resource]))
                    )
                served[resource] += 1
                given[resource] += amount
                bad = False
            if bad:
                raise SlotLayoutError(
                    f"ERROR: Can't allocate slot id {draft.slot_id} (slot type "
                    f"{draft.type_id}) during auto allocation of resources",
                    "EXCEPT Ran out of system resources in auto allocation",
                    **_type_where(config, draft.type_id),
                )
            draft.amounts[resource] = amount


def id_matches(device: str, index: int, constraint: str,
               properties: Mapping[str, object]) -> bool:  # fmt: skip
    """`DevIdMatches`: an integer is the id's index, a string literal the id itself
    (case-insensitive), anything else an expression over the id's property ad."""
    from compiler.classad import ClassAdSyntaxError, evaluate, parse

    text = constraint.strip()
    if re.fullmatch(r"\d+", text):
        return int(text) == index
    try:
        expr = parse(text)
    except ClassAdSyntaxError:
        return False
    literal = evaluate(expr)
    if isinstance(literal, str) and text.startswith('"'):
        return literal.lower() == device.lower()
    value = evaluate(expr, dict(properties))
    return value is True


def _bind(drafts: list[_Draft], types: Mapping[int, SlotType], ids: Mapping[str, tuple[str, ...]],
          hardware: Hardware, config: Config) -> dict[int, dict[str, tuple[str, ...]]]:  # fmt: skip
    """Phase three: each slot takes the first free ids that satisfy its constraint."""
    free = {name: list(devices) for name, devices in ids.items()}
    bound: dict[int, dict[str, tuple[str, ...]]] = {}
    for draft in drafts:
        mine: dict[str, tuple[str, ...]] = {}
        for name, devices in ids.items():
            want = int(draft.amounts.get(name) or 0)
            if want <= 0:
                continue
            constraint = types[draft.type_id].constraints.get(name, "")
            chosen = [
                d
                for d in free[name]
                if not constraint
                or id_matches(
                    d, devices.index(d), constraint, hardware.resource_properties.get(d, {})
                )
            ][:want]
            if len(chosen) < want:
                raise SlotLayoutError(
                    f"Failed to bind local resource '{name}'",
                    f"EXCEPT Failed to bind local resource '{name}'",
                    **_type_where(config, draft.type_id),
                )
            for d in chosen:
                free[name].remove(d)
            mine[name] = tuple(chosen)
        bound[draft.slot_id] = mine
    return bound


def slot_name(
    slot_type: SlotType, slot_id: int, prefix: str | None, era_prefix: str = "slot"
) -> str:
    """`SLOT_TYPE_<N>_NAME_PREFIX`, else STARTD_RESOURCE_PREFIX, else the era's (`slot`,
    6.x `vm`), + the id."""
    own = slot_type.knobs.get("NAME_PREFIX") or prefix or era_prefix
    return f"{own}{slot_id}"


def build_layout(config: Config, hardware: Hardware, *, semantics: str = "code") -> Layout:
    """The slots the startd on `hardware` builds from `config` (or a `SlotLayoutError`)."""
    config = with_hardware(spelled(config), hardware)
    machine = machine_totals(config, hardware)
    types, order = slot_types(config, machine, semantics=semantics)
    _quantity, ids = _custom_resources(config, hardware)
    drafts: list[_Draft] = []
    places: dict[int, int] = {}
    for slot_id, type_id in enumerate(order, start=1):
        places[type_id] = places.get(type_id, 0) + 1
        slot_type = types[type_id]
        minimal = slot_type.minimal
        amounts = {
            r: _explicit(share, r, machine, minimal) for r, share in slot_type.shares.items()
        }
        drafts.append(_Draft(slot_id, type_id, places[type_id], minimal, amounts))
    left = _phase_one(drafts, machine, config)
    _phase_two(drafts, left, config)
    bound = _bind(drafts, types, ids, hardware, config)
    prefix = config.get("STARTD_RESOURCE_PREFIX")
    slots = []
    for draft in drafts:
        slot_type = types[draft.type_id]
        kind: SlotKind = "partitionable" if slot_type.partitionable else "static"
        a = draft.amounts
        slot = Slot(
            name=slot_name(slot_type, draft.slot_id, prefix, naming(config.era).prefix),
            slot_id=draft.slot_id,
            type_id=draft.type_id,
            kind=kind,
            cpus=float(a["Cpus"] or 0.0),
            memory=int(a["Memory"] or 0),
            disk=float(a["Disk"] or 0.0),
            swap=float(a["Swap"] or 0.0),
            custom=MappingProxyType({n: float(a.get(n) or 0.0) for n in machine.custom}),
            assigned=MappingProxyType(bound.get(draft.slot_id, {})),
            minimal=draft.minimal,
        )
        slots.append(slot)
    return Layout(hardware, machine, MappingProxyType(types), tuple(slots), config.era)


_HW_KEYS = ("cpus", "memory_mb", "disk_kb", "swap_kb")


def hardware_from(document: Any, path: str) -> Hardware:
    """The HW document as a `Hardware` record; a wrong key or value names it."""
    if not isinstance(document, Mapping):
        raise PolicyError("the hardware file must hold a mapping", file=path)
    unknown = sorted(set(document) - {*_HW_KEYS, "resources", "resource_properties"})
    if unknown:
        raise PolicyError(f"unknown key '{unknown[0]}' in the hardware file", file=path)
    numbers: dict[str, int] = {}
    for key in _HW_KEYS:
        value = document.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PolicyError(
                f"hardware key '{key}' must be a non-negative integer (got {value!r})", file=path
            )
        numbers[key] = value
    resources = document.get("resources") or {}
    properties = document.get("resource_properties") or {}
    if not isinstance(resources, Mapping) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in resources.values()
    ):
        raise PolicyError("hardware key 'resources' must map names to lists of ids", file=path)
    if not isinstance(properties, Mapping) or not all(
        isinstance(p, Mapping) for p in properties.values()
    ):
        raise PolicyError(
            "hardware key 'resource_properties' must map ids to attribute mappings", file=path
        )
    return Hardware(
        numbers["cpus"],
        numbers["memory_mb"],
        numbers["disk_kb"],
        numbers["swap_kb"],
        {str(k): tuple(v) for k, v in resources.items()},
        {str(k): dict(v) for k, v in properties.items()},
    )


def read_document(path: str) -> Any:
    """A JSON or YAML input file (DESIGN.md); a problem is a PolicyError naming it (one
    that is missing, a directory or not UTF-8 text: `compiler.textio.read_text`)."""
    from compiler.textio import read_text

    file = Path(path)
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as json_error:
        from compiler.yamlcache import YAMLError
        from compiler.yamlio import safe_load

        if file.suffix.lower() == ".json":
            raise PolicyError(
                f"not valid JSON: {json_error.msg}",
                file=path,
                line=json_error.lineno,
                column=json_error.colno,
            ) from None
        try:
            return safe_load(text)
        except YAMLError as yaml_error:
            mark = getattr(yaml_error, "problem_mark", None)
            raise PolicyError(
                f"not valid YAML: {getattr(yaml_error, 'problem', None) or yaml_error}",
                file=path,
                line=mark.line + 1 if mark is not None else None,
                column=mark.column + 1 if mark is not None else None,
            ) from None


#: The knobs whose attributes the startd copies from every slot into every slot ad as
#: `slot<N>_<attr>` (23.0 startd_main.cpp `init_params`: param_and_insert_unique_items).
def slot_attrs(config: Config) -> tuple[str, ...]:
    """The cross-slot attributes a configuration asks for, in order, each once
    (case-insensitively), from the lists of the era's cross-slot knobs (`naming`:
    STARTD_SLOT_ATTRS ..., 6.8 STARTD_VM_EXPRS; commas or blanks)."""
    seen: dict[str, str] = {}
    for knob in naming(config.era).cross_slot_knobs:
        for item in re.split(r"[\s,]+", config.get(knob) or ""):
            if item and item.lower() not in seen:
                seen[item.lower()] = item
    return tuple(seen.values())
