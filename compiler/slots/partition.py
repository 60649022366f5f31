"""The startd's split of a partitionable slot per claim request, and the return of a
dynamic slot's resources when its claim ends (shared/reference/slots.md section 7).

Stage: compiler (frozen `Layout` + job ads -> new frozen slots). 23.0 sources:
`Resource.cpp` `create_dslot` (MODIFY_REQUEST_EXPR_* with the unmodified fallback, the
p-slot's Requirements = START && WithinResourceLimits, the amounts taken from
`_condor_Request*` / `Request*`, the d-slot built from a generated slot-type description
so the lower bounds of `buildSlot` apply, the disk percentage rule), `ResAttributes.cpp`
`CpuAttributes::operator-=` / `bind_DevIds` (carving and ids), `IdDispenser.cpp` (the
lowest free sub-id), `Resource::clear_parent` (release). Where the seed and 23.0 differ
(the d-slot's disk) the choice is spec data (spec/slots.yaml `dslot_disk`).

Under a consumption policy (CONSUMPTION_POLICY) the d-slot is sized by what the request
consumes (compiler.slots.consumption.compute_consumption over the possibly modified
request), as 23.0's `create_dslot` builds its type description from the consumption:
whole numbers, Disk as the one-decimal percentage, no swap, no Require<name>.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compiler.classad import ClassAdSyntaxError, evaluate, parse
from compiler.errors import PolicyError
from compiler.slots.layout import facts, id_matches, single
from compiler.slots.model import Layout, Slot
from compiler.slots.publish import (
    Expression,
    consumption_policy,
    published_cpus,
    published_disk,
    published_swap,
)
from compiler.slots.publish import slot_ad as _slot_ad

#: The three requests MODIFY_REQUEST_EXPR_* may change, in the startd's order.
MODIFIED = ("RequestCpus", "RequestDisk", "RequestMemory")
NO_FIT = "Partitionable slot can't be split to allocate a dynamic slot large enough for the claim"


class JobsError(PolicyError):
    """A JOBS document the `slots` command cannot apply (the key at fault is named)."""


@dataclass(frozen=True)
class Carved:
    """A partitionable slot with the dynamic slots carved out of it so far."""

    pslot: Slot
    dslots: Mapping[str, Slot]


def _ad(layout: Layout, slot: Slot) -> dict[str, Any]:
    """`slot`'s ad with expressions parsed, as MY/TARGET for the evaluator."""
    return {k: parse(v.text) if isinstance(v, Expression) else v for k, v in slot_ad(layout, slot).items()}  # fmt: skip


def slot_ad(layout: Layout, slot: Slot) -> dict[str, object]:
    """What `slot` publishes (compiler.slots.publish.slot_ad)."""
    return _slot_ad(layout, slot)


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return None


def _evaluate_knob(text: str | None, my: Mapping[str, Any], target: Mapping[str, Any]) -> object:
    if not text:
        return None
    try:
        return evaluate(parse(text), my, target)
    except ClassAdSyntaxError:
        return None


def modify_request(layout: Layout, pslot: Slot, job: Mapping[str, Any]) -> dict[str, Any]:
    """The job ad after MODIFY_REQUEST_EXPR_*: job as MY, p-slot as TARGET; only an
    integer result replaces the request (23.0 `create_dslot`)."""
    knobs = layout.types[pslot.type_id].knobs
    modified = dict(job)
    slot = _ad(layout, pslot)
    for name in MODIFIED:
        value = _evaluate_knob(knobs.get(f"MODIFY_REQUEST_EXPR_{name.upper()}"), modified, slot)
        if isinstance(value, int) and not isinstance(value, bool):
            _assign(modified, name, value)
    return modified


def _assign(ad: dict[str, Any], name: str, value: object) -> None:
    for key in [k for k in ad if k.lower() == name.lower()]:
        del ad[key]
    ad[name] = value


def _lookup(ad: Mapping[str, Any], name: str) -> object:
    for key, value in ad.items():
        if key.lower() == name.lower():
            return value
    return None


def _requirements(
    layout: Layout, slot: Slot, job: Mapping[str, Any], start: str | None = None
) -> bool:
    """The slot's Requirements with MY = slot, TARGET = job (non-boolean counts as false);
    `start` replaces the slot's START (a draining startd: `Reqexp::unavail`)."""
    ad = _ad(layout, slot)
    if start is not None:
        ad["Start"] = parse(start)
    return evaluate(parse("Requirements"), ad, job) is True


def _job_integer(job: Mapping[str, Any], slot: Mapping[str, Any], name: str) -> int | None:
    """`_condor_<name>`, else `<name>`, evaluated to an integer (EvalInteger)."""
    for attr in (f"_condor_{name}", name):
        if _lookup(job, attr) is None:
            continue
        found = _integer(evaluate(parse(f"TARGET.{attr}"), slot, job))
        if found is not None:
            return found
    return None


def _disk_fraction(disk_kb: int, total_kb: int, semantics: str) -> float:
    """The d-slot's share of the partition: 23.0 prints `(0.1 + 100 x disk / total)` with
    one decimal as a percentage (at least 0.001); the seed gives exactly the request."""
    if total_kb <= 0:
        return 0.0
    if facts(semantics).dslot_disk == "exact":
        return disk_kb / total_kb
    percent = max(0.1 + disk_kb / total_kb * 100, 0.001)
    return float(f"{percent:.1f}") / 100


def _ids_to_bind(pslot: Slot, lent: Sequence[Slot]) -> dict[str, list[str]]:
    """The p-slot's ids not lent to a dynamic slot, in the p-slot's own order."""
    used = {i for d in lent for ids in d.assigned.values() for i in ids}
    return {name: [i for i in ids if i not in used] for name, ids in pslot.assigned.items()}


def split(
    layout: Layout,
    carved: Carved,
    job: Mapping[str, Any],
    *,
    semantics: str,
    start: str | None = None,
) -> tuple[Carved, Slot | None, str]:
    """One claim request against the p-slot: (new state, the d-slot or None, reason).
    `start`: the START both slots publish instead of their own while the startd drains
    (the drain's start expression, or `false`: `Reqexp::unavail`)."""
    pslot = carved.pslot
    knobs = layout.types[pslot.type_id].knobs
    request = modify_request(layout, pslot, job)
    if not _requirements(layout, pslot, request, start):
        must = (knobs.get("MUST_MODIFY_REQUEST_EXPRS") or "").strip().lower() in ("true", "1")
        request = dict(job)
        if must or not _requirements(layout, pslot, request, start):
            return carved, None, NO_FIT
    slot = _ad(layout, pslot)
    machine = layout.machine
    consumed = _consumed(layout, pslot, request, slot)
    if consumed is not None:
        cpus, memory, disk = (int(consumed.get(a.lower(), 0.0)) for a in ("Cpus", "Memory", "Disk"))
    else:
        asked = _job_integer(request, slot, "RequestCpus")
        cpus = 1 if asked is None else asked
        asked_memory = _job_integer(request, slot, "RequestMemory")
        if asked_memory is None:
            return carved, None, "No memory request in incoming ad, aborting..."
        asked_disk = _job_integer(request, slot, "RequestDisk")
        if asked_disk is None:
            return carved, None, "No disk request in incoming ad, aborting..."
        memory, disk = asked_memory, asked_disk
    swap_fraction = 1.0  # not requested: an unpaid auto share (the whole swap, 23.0)
    paid_swap = 0.0
    swap_kb = None if consumed is not None else _job_integer(request, slot, "RequestVirtualMemory")
    if swap_kb is not None and machine.swap_kb > 0:
        paid_swap = max(math.ceil(swap_kb / machine.swap_kb * 100), 1) / 100
        swap_fraction = paid_swap
    custom: dict[str, float] = {}
    assigned: dict[str, tuple[str, ...]] = {}
    free = _ids_to_bind(pslot, list(carved.dslots.values()))
    for name in machine.custom:
        if consumed is not None:
            amount = float(int(consumed.get(name.lower(), 0.0)))
        else:
            wanted = _evaluate_knob(f"TARGET.Request{name}", slot, request)
            amount = float(wanted) if isinstance(wanted, int | float) and not isinstance(wanted, bool) else 0.0  # fmt: skip
        custom[name] = amount
        if name in pslot.assigned and amount > 0:
            # under a consumption policy the type description has no Require<name>
            require = None if consumed is not None else _lookup(request, f"Require{name}")
            chosen = [
                i
                for i in free.get(name, [])
                if require is None
                or id_matches(
                    i,
                    layout.hardware.resources.get(name, ()).index(i),
                    str(require),
                    layout.hardware.resource_properties.get(i, {}),
                )
            ][: int(amount)]
            if len(chosen) < int(amount):
                return carved, None, f"Failed to bind local resource '{name}'"
            assigned[name] = tuple(chosen)
    sub_id = next(k for k in range(1, len(carved.dslots) + 2) if not _taken(carved, k))
    dslot = Slot(
        name=f"{pslot.name}_{sub_id}",
        slot_id=pslot.slot_id,
        type_id=pslot.type_id,
        kind="dynamic",
        cpus=float(max(cpus, 1)),
        memory=max(memory, 1),
        disk=_disk_fraction(disk, machine.disk_kb, semantics),
        swap=swap_fraction,
        custom=MappingProxyType(custom),
        assigned=MappingProxyType(assigned),
        sub_id=sub_id,
    )
    remaining = dataclasses.replace(
        pslot,
        cpus=pslot.cpus - dslot.cpus,
        memory=pslot.memory - dslot.memory,
        disk=pslot.disk - dslot.disk,
        swap=single(pslot.swap - paid_swap),
        custom=MappingProxyType({n: pslot.custom.get(n, 0.0) - a for n, a in custom.items()}),
        total=pslot.total or pslot,
    )
    if remaining.cpus < -1e-9 or remaining.memory < 0 or remaining.disk < -1e-9 or any(
        v < -1e-9 for v in remaining.custom.values()
    ):  # fmt: skip
        return carved, None, NO_FIT
    if not _requirements(layout, dslot, request, start):
        return carved, None, "the dynamic slot's own Requirements (START && WithinResourceLimits) refuse the job"  # fmt: skip
    dslots = dict(carved.dslots)
    dslots[dslot.name] = dslot
    return Carved(remaining, MappingProxyType(dslots)), dslot, ""


def _consumed(
    layout: Layout, pslot: Slot, request: Mapping[str, Any], slot: Mapping[str, Any]
) -> dict[str, float] | None:
    """Under a consumption policy, what the request consumes of the p-slot, by lower-cased
    asset (23.0 `create_dslot`: the d-slot's type description is the consumption, whole
    numbers except Disk, instead of the Request* amounts); None without one."""
    if not consumption_policy(layout, pslot):
        return None
    from compiler.slots.consumption import compute_consumption

    found = compute_consumption(request, slot)
    return {asset.lower(): max(amount, 0.0) for asset, amount in found.amounts.items()}


def _taken(carved: Carved, sub_id: int) -> bool:
    return any(d.sub_id == sub_id for d in carved.dslots.values())


def release(carved: Carved, name: str) -> Carved:
    """The claim of d-slot `name` ends: it is deleted and its resources (and ids) go back
    to the p-slot (`Resource::clear_parent`). KeyError when there is no such d-slot."""
    dslot = carved.dslots[name]
    pslot = carved.pslot
    paid_swap = 0.0 if dslot.swap >= 1.0 else dslot.swap
    back = dataclasses.replace(
        pslot,
        cpus=pslot.cpus + dslot.cpus,
        memory=pslot.memory + dslot.memory,
        disk=pslot.disk + dslot.disk,
        swap=single(pslot.swap + paid_swap),
        custom=MappingProxyType({n: a + dslot.custom.get(n, 0.0) for n, a in pslot.custom.items()}),
    )
    dslots = {k: v for k, v in carved.dslots.items() if k != name}
    return Carved(back, MappingProxyType(dslots))


# -- the `slots --jobs` document -------------------------------------------------------------------


def pslot_of(layout: Layout, doc: Any, file: str | None = None) -> Slot:
    """The partitionable slot JOBS names (`"pslot"`, default the first one)."""
    if not isinstance(doc, Mapping):
        raise JobsError("the jobs file must hold a mapping with 'jobs'", file=file)
    name = doc.get("pslot")
    if name is None:
        found = [s for s in layout.slots if s.kind == "partitionable"]
        if not found:
            raise JobsError("the layout has no partitionable slot to split", file=file)
        return found[0]
    try:
        slot = layout.slot(str(name))
    except KeyError:
        known = ", ".join(s.name for s in layout.slots)
        raise JobsError(f"'pslot': no slot '{name}' (slots: {known})", file=file) from None
    if slot.kind != "partitionable":
        raise JobsError(f"'pslot': {name} is not a partitionable slot", file=file)
    return slot


def _weight(layout: Layout, slot: Slot) -> object:
    ad = _ad(layout, slot)
    value = evaluate(parse("SlotWeight"), ad)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _dynamic_record(layout: Layout, dslot: Slot, index: int) -> dict[str, object]:
    record: dict[str, object] = {
        "name": dslot.name,
        "type": dslot.type_id,
        "Cpus": published_cpus(dslot),
        "Memory": dslot.memory,
        "Disk": published_disk(dslot, layout.machine),
        "Swap": published_swap(dslot, layout.machine),
        "SlotWeight": _weight(layout, dslot),
        "request_index": index,
    }
    for name in layout.machine.custom:
        record[name] = int(dslot.custom.get(name, 0.0))
        if dslot.assigned.get(name):
            record[f"Assigned{name}"] = ",".join(dslot.assigned[name])
    return record


def remaining_record(layout: Layout, pslot: Slot) -> dict[str, object]:
    """What the p-slot advertises now: its resources left (custom: ids not lent)."""
    record: dict[str, object] = {
        "Cpus": published_cpus(pslot),
        "Memory": pslot.memory,
        "Disk": published_disk(pslot, layout.machine),
        "Swap": published_swap(pslot, layout.machine),
    }
    for name in layout.machine.custom:
        record[name] = int(pslot.custom.get(name, 0.0) + 1e-9)
    return record


def jobs_report(
    layout: Layout, doc: Any, *, semantics: str, file: str | None = None
) -> dict[str, Any]:
    """DESIGN.md's `slots --jobs` keys: `dynamic`, `refused`, `remaining`,
    `dynamic_slots_at_end` after applying JOBS in order to its partitionable slot."""
    pslot = pslot_of(layout, doc, file)
    jobs = doc.get("jobs")
    if not isinstance(jobs, list):
        raise JobsError("'jobs' must be a list of job ads and releases", file=file)
    carved = Carved(pslot, MappingProxyType({}))
    dynamic: list[dict[str, object]] = []
    refused: list[dict[str, object]] = []
    for index, entry in enumerate(jobs):
        if not isinstance(entry, Mapping):
            raise JobsError(f"'jobs'[{index}] must be a job ad or {{release: NAME}}", file=file)
        if set(entry) == {"release"}:
            try:
                carved = release(carved, str(entry["release"]))
            except KeyError:
                reason = f"no dynamic slot {entry['release']} to release"
                refused.append({"request_index": index, "reason": reason})
            continue
        carved, dslot, reason = split(layout, carved, entry, semantics=semantics)
        if dslot is None:
            refused.append({"request_index": index, "reason": reason})
        else:
            dynamic.append(_dynamic_record(layout, dslot, index))
    return {
        "dynamic": dynamic,
        "refused": refused,
        "remaining": remaining_record(layout, carved.pslot),
        "dynamic_slots_at_end": sorted(carved.dslots, key=lambda n: carved.dslots[n].sub_id),
    }


__all__ = [
    "NO_FIT",
    "Carved",
    "JobsError",
    "jobs_report",
    "modify_request",
    "pslot_of",
    "release",
    "remaining_record",
    "split",
]
