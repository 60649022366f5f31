"""Consumption policies: the negotiator's view of a partitionable slot (reference/slots.md §8).

Stage: slot ads -> one negotiation cycle. A partitionable slot whose type sets
CONSUMPTION_POLICY publishes, besides its resources, one `Consumption<asset>` expression
per asset and a WithinResourceLimits written in terms of them (23.0
`Resource::publish_static`, `Reqexp::config`). The negotiator then matches several jobs
against that one ad in a single cycle, charging each the consumption its policy computes
and the drop in `SlotWeight` as the match's cost (23.0 `consumption_policy.cpp`,
`matchmaker.cpp`).

Three layers, each pure:

* the texts a CP p-slot publishes, from its type's knobs and its asset names
  (`consumption_texts`, `within_resource_limits_text`, `num_claims`);
* the consumption arithmetic over two ads (`supports_policy`, `compute_consumption`,
  `sufficient_assets`, `override_requested`, `deduct_assets`), as
  `cp_supports_policy`, `cp_compute_consumption`, `cp_sufficient_assets`,
  `cp_override_requested` and `cp_deduct_assets` do it;
* one negotiation cycle of a list of requests against one p-slot ad
  (`negotiate_cycle`) and its JSON form for `slots --negotiator` (`negotiator_report`).

Ads are plain attribute mappings (names in any case; values are Python values, parsed
ClassAd expressions, or, as `condor_status -json` writes expressions, strings
`/Expr(text)/`); nothing here reads a configuration or a layout record. Nothing is
mutated: every step returns new ads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.classad import UNDEFINED, ClassAd, parse
from compiler.classad.match import evaluate_attribute, symmetric_match
from compiler.errors import PolicyError

#: The assets a startd always has; custom resources come after them (`Reqexp::config`).
STANDARD_ASSETS: tuple[str, ...] = ("Cpus", "Memory", "Disk")
#: The machine resource no consumption policy covers (skipped by every `cp_*` function).
SKIPPED_ASSET = "swap"
#: What a failed consumption is recorded as (`cp_compute_consumption`).
FAILED_CONSUMPTION = -999.0
#: The negotiator's SLOT_WEIGHT default, used when a slot ad's SlotWeight is no number.
NEGOTIATOR_SLOT_WEIGHT = "Cpus"

_JSON_EXPR = re.compile(r"/Expr\((.*)\)/\Z", re.DOTALL)


class ConsumptionError(PolicyError):
    """A slot ad or a JOBS document the negotiator's consumption logic cannot use."""


# ---- the texts a consumption-policy p-slot publishes ---------------------------------


def policy_assets(machine_resources: str | Iterable[str]) -> tuple[str, ...]:
    """The assets a consumption policy covers: `MachineResources` without Swap.

    `MachineResources` is a list separated by blanks or commas (23.0 reads it with a
    `StringList`); the spelling of each name is kept, as the startd keeps it.
    """
    names = (
        machine_resources.replace(",", " ").split()
        if isinstance(machine_resources, str)
        else list(machine_resources)
    )
    return tuple(n for n in names if n.lower() != SKIPPED_ASSET)


def _knob(knobs: Mapping[str, str | None], name: str) -> tuple[bool, str | None]:
    """(present, value) of `name` in `knobs`, names compared case-insensitively."""
    lowered = name.lower()
    for key, value in knobs.items():
        if key.lower() == lowered:
            return True, value
    return False, None


def custom_consumption_default(asset: str) -> str:
    """The consumption of an asset with no CONSUMPTION_<asset> knob: what the job requests,
    0 if it requests nothing (23.0 `Resource::publish_static`)."""
    request = f"target.Request{asset}"
    return f"ifthenelse({request} =?= undefined, 0, {request})"


def consumption_texts(
    knobs: Mapping[str, str | None], assets: str | Iterable[str], *, era: str | None = None
) -> dict[str, str]:
    """`Consumption<asset>` -> expression text, for every asset of a CP p-slot.

    `knobs` are the slot type's knobs resolved as the startd's `SlotType::param` resolves
    them (`SLOT_TYPE_<N>_CONSUMPTION_<asset>`, else `CONSUMPTION_<asset>`, else the
    era's built-in default); a knob missing from `knobs` falls back to the era's default
    table (spec/config/defaults: quantize over RequestCpus/Memory/Disk), a knob that is
    undefined or empty to `custom_consumption_default`, exactly as `param()` returning
    nothing does in 23.0. Swap is skipped.
    """
    texts: dict[str, str] = {}
    for asset in policy_assets(assets):
        name = f"CONSUMPTION_{asset}"
        present, value = _knob(knobs, name)
        if not present:
            value = _era_default(name, era)
        if value is None or not value.strip():
            value = custom_consumption_default(asset)
        texts[f"Consumption{asset}"] = value
    return texts


def _era_default(name: str, era: str | None) -> str | None:
    # Imported here: only a caller that left a knob out needs the era's default table.
    from compiler.config.defaults import era_defaults
    from compiler.spec import DEFAULT_ERA

    return era_defaults(era or DEFAULT_ERA).raw(name)


def _asset_key(name: str) -> str:
    # 23.0 keeps the assets in a std::set ordered by classad::CaseIgnLTStr (strcasecmp).
    return name.lower()


def within_resource_limits_text(
    custom: str | Iterable[str], knobs: Mapping[str, str | None] | None = None
) -> str:
    """WithinResourceLimits of a CP p-slot (or of a d-slot carved from one).

    One clause per asset (Cpus, Memory, Disk and each custom resource except Swap,
    sorted case-insensitively, a name appearing twice in different case kept once):
    a job whose Request<a> the negotiator has overridden (so `_cp_orig_Request<a>`
    exists) is compared by Request<a>, any other by the slot's Consumption<a>
    (23.0 `Reqexp::config`). A WithinResourceLimits knob (per type, then global)
    replaces the whole expression, as in 23.0.
    """
    if knobs is not None:
        _present, configured = _knob(knobs, "WithinResourceLimits")
        if configured is not None and configured.strip():
            return configured
    assets: dict[str, str] = {}
    for name in (*STANDARD_ASSETS, *policy_assets(custom)):
        assets.setdefault(_asset_key(name), name)
    clauses = [
        f"ifThenElse(TARGET._cp_orig_Request{a} isnt UNDEFINED, TARGET.Request{a} <= MY.{a}, "
        f"MY.Consumption{a} <= MY.{a})"
        for a in (assets[k] for k in sorted(assets))
    ]
    return "(" + " && ".join(clauses) + ")"


def num_claims(knobs: Mapping[str, str | None], cpus: float) -> int:
    """How many claims a CP p-slot holds, hence at most how many matches it takes per
    cycle: NUM_CLAIMS (per type, then global) when it is an integer, else the slot's
    cores rounded up (23.0 `Resource` constructor)."""
    _present, value = _knob(knobs, "NUM_CLAIMS")
    if value is not None:
        try:
            return int(value.strip())
        except ValueError:
            pass  # `string_is_long_param` fails: the default stands, as in 23.0
    return math.ceil(cpus)


# ---- the consumption arithmetic over two ads -------------------------------------------


def as_ad(mapping: Mapping[str, Any], *, where: str = "ad") -> ClassAd:
    """A ClassAd from an attribute mapping; `/Expr(text)/` strings are parsed, JSON null
    is UNDEFINED (the conventions of `condor_status -json`)."""
    ad = ClassAd()
    for name, value in mapping.items():
        if not isinstance(name, str):
            raise ConsumptionError(f"{where}: attribute name {name!r} is not a string")
        ad[name] = _value(value, f"{where}.{name}")
    return ad


def _value(value: Any, where: str) -> Any:
    if value is None:
        return UNDEFINED
    if isinstance(value, str):
        match = _JSON_EXPR.match(value)
        if match is None:
            return value
        try:
            return parse(match.group(1))
        except PolicyError as err:
            raise ConsumptionError(f"{where}: {err.message}") from err
    return value


def _number(value: Any) -> float | None:
    """The value as a real if ClassAd counts it a number (booleans do), else None."""
    if isinstance(value, bool | int | float):
        return float(value)
    return None


def preserve_integers(value: float) -> int | float:
    """A real with no fractional part as an integer (23.0 `assign_preserve_integers`)."""
    return int(value) if value - math.floor(value) <= 0.0 else value


def _spelling(ad: ClassAd, name: str) -> str:
    lowered = name.lower()
    return next((k for k in ad if k.lower() == lowered), name)


def supports_policy(slot: Mapping[str, Any]) -> bool:
    """Does the negotiator treat this slot ad as a consumption-policy p-slot?

    It must be partitionable, publish MachineResources as a string and define
    Consumption<asset> for every asset of it but Swap (23.0 `cp_supports_policy`).
    """
    ad = slot if isinstance(slot, ClassAd) else as_ad(slot)
    partitionable = _number(evaluate_attribute(ad, "PartitionableSlot"))
    if not partitionable:  # LookupBool: a boolean, or a number other than 0
        return False
    resources = evaluate_attribute(ad, "MachineResources")
    if not isinstance(resources, str):
        return False
    return all(f"Consumption{a}" in ad for a in policy_assets(resources))


def _assets(slot: ClassAd) -> tuple[str, ...]:
    resources = evaluate_attribute(slot, "MachineResources")
    if not isinstance(resources, str):
        raise ConsumptionError("the slot ad has no MachineResources string")
    names = policy_assets(resources)
    # The C++ consumption map is ordered by strcasecmp; one entry per name in any case.
    unique: dict[str, str] = {}
    for name in names:
        unique.setdefault(_asset_key(name), name)
    return tuple(unique[k] for k in sorted(unique))


@dataclass(frozen=True)
class Consumption:
    """What one request consumes of one slot: asset -> amount (−999 for a policy that
    gave no non-negative number), and the negotiator's warnings about it."""

    amounts: Mapping[str, float]
    warnings: tuple[str, ...] = ()


def compute_consumption(job: Mapping[str, Any], slot: Mapping[str, Any]) -> Consumption:
    """Evaluate each Consumption<asset> with the slot as MY and the job as TARGET.

    While evaluating, `_condor_Request<a>` (a number) stands in for Request<a>, and a
    missing Request<a> is 0; a result that is not a non-negative number is recorded as
    −999 with a warning (a negative number is kept as it is) (23.0
    `cp_compute_consumption`).
    """
    job_ad = job if isinstance(job, ClassAd) else as_ad(job, where="job")
    slot_ad = slot if isinstance(slot, ClassAd) else as_ad(slot, where="slot")
    amounts: dict[str, float] = {}
    warnings: list[str] = []
    for asset in _assets(slot_ad):
        request = f"Request{asset}"
        target = job_ad.copy()
        override = _number(evaluate_attribute(job_ad, f"_condor_{request}"))
        if override is not None:
            target[_spelling(target, request)] = override
        elif request not in target:
            target[request] = 0
        value = _number(evaluate_attribute(slot_ad, f"Consumption{asset}", target))
        if value is None or value < 0:
            name = evaluate_attribute(slot_ad, "Name")
            warnings.append(
                f"WARNING: consumption policy for Consumption{asset} on resource "
                f"{name if isinstance(name, str) else ''} failed to evaluate to a "
                "non-negative numeric value"
            )
            value = FAILED_CONSUMPTION if value is None else value
        amounts[asset] = value
    return Consumption(amounts, tuple(warnings))


def _asset_amount(slot: ClassAd, asset: str) -> float:
    value = _number(evaluate_attribute(slot, asset))
    if value is None:
        # The negotiator EXCEPTs here ("Missing <asset> resource asset").
        raise ConsumptionError(f"Missing {asset} resource asset in the slot ad")
    return value


def sufficient_assets(slot: Mapping[str, Any], consumption: Consumption) -> bool:
    """Has the slot enough of every asset, is no consumption negative and at least one
    positive? (23.0 `cp_sufficient_assets`: an all-zero consumption never matches.)"""
    slot_ad = slot if isinstance(slot, ClassAd) else as_ad(slot, where="slot")
    positive = 0
    for asset, amount in consumption.amounts.items():
        if _asset_amount(slot_ad, asset) < amount or amount < 0:
            return False
        positive += amount > 0
    return positive > 0


def override_requested(job: Mapping[str, Any], consumption: Consumption) -> ClassAd:
    """The job as the negotiator matches it against a CP slot: each Request<a> the job
    has is replaced by the consumption and the original kept as `_cp_orig_Request<a>`
    (23.0 `cp_override_requested`); a Request<a> the job lacks is not created."""
    ad = job.copy() if isinstance(job, ClassAd) else as_ad(job, where="job")
    for asset, amount in consumption.amounts.items():
        request = f"Request{asset}"
        if request not in ad:
            continue
        spelled = _spelling(ad, request)
        ad[f"_cp_orig_{spelled}"] = ad[spelled]
        ad[spelled] = preserve_integers(amount)
    return ad


def slot_weight(slot: Mapping[str, Any]) -> float:
    """The slot's SlotWeight as a real (the negotiator EXCEPTs when it is no number)."""
    slot_ad = slot if isinstance(slot, ClassAd) else as_ad(slot, where="slot")
    value = _number(evaluate_attribute(slot_ad, "SlotWeight"))
    if value is None:
        raise ConsumptionError("Failed to evaluate SlotWeight of the slot ad")
    return value


def deduct_assets(job: Mapping[str, Any], slot: Mapping[str, Any]) -> tuple[ClassAd, float]:
    """The slot after the job's consumption is taken from it, and the match's cost:
    SlotWeight before minus SlotWeight after (23.0 `cp_deduct_assets`)."""
    slot_ad = slot.copy() if isinstance(slot, ClassAd) else as_ad(slot, where="slot")
    consumption = compute_consumption(job, slot_ad)
    before = slot_weight(slot_ad)
    for asset, amount in consumption.amounts.items():
        left = _asset_amount(slot_ad, asset) - amount
        slot_ad[_spelling(slot_ad, asset)] = preserve_integers(left)
    return slot_ad, before - slot_weight(slot_ad)


def cp_match(job: ClassAd, slot: ClassAd) -> tuple[bool, Consumption]:
    """Would the negotiator match `job` with the CP slot `slot` as it stands?

    The job's requests are overridden by the consumption, the slot must have sufficient
    assets and both ads' Requirements must accept each other (23.0
    `matchmakingAlgorithm`).
    """
    consumption = compute_consumption(job, slot)
    if not sufficient_assets(slot, consumption):
        return False, consumption
    return symmetric_match(override_requested(job, consumption), slot), consumption


def dslot_type_items(consumption: Consumption, total_disk_kb: float) -> tuple[str, ...]:
    """The slot-type description the startd builds a d-slot from when it splits a CP
    p-slot: one `name=value` item per asset, the value being the consumption truncated
    to an integer, except Disk: a percentage of the partition printed with one decimal,
    `max(0, 0.1 + 100 × disk / TotalDisk)` (23.0 `Resource::create_dslot`). The items go
    through the SLOT_TYPE_<N> reader, so its lower bounds (1 core, 1 MB) apply; no
    Require<name> constraint is used on this path.
    """
    items: list[str] = []
    for asset, amount in consumption.amounts.items():
        if asset.lower() == "disk":
            share = max(0.0, 0.1 + 100 * amount / float(total_disk_kb))
            items.append(f"{asset}={share:.1f}%")
        else:
            items.append(f"{asset}={int(amount)}")
    return tuple(items)


# ---- one negotiation cycle against one p-slot ------------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """One request's outcome: matched or not, its consumption (empty when the slot has
    no consumption policy) and the cost charged to the submitter (0 when unmatched)."""

    request_index: int
    matched: bool
    consumption: Mapping[str, float]
    cost: float


@dataclass(frozen=True)
class Cycle:
    """A negotiation cycle against one slot: each request's result, the negotiator's copy
    of the slot ad afterwards, and the warnings the negotiator would log."""

    matches: tuple[MatchResult, ...]
    slot: ClassAd
    policy: bool
    warnings: tuple[str, ...]


def _claims(slot: ClassAd, policy: bool) -> int:
    if not policy:
        return 1
    value = evaluate_attribute(slot, "NumClaims")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    size = _number(evaluate_attribute(slot, "TotalSlotCpus"))
    return math.ceil(size if size is not None else _asset_amount(slot, "Cpus"))


def _autocluster(job: ClassAd) -> int | None:
    value = evaluate_attribute(job, "AutoClusterId")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def negotiate_cycle(pslot_ad: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]) -> Cycle:
    """Offer `jobs`, in order, to one partitionable slot in one negotiation cycle.

    With a consumption policy the slot stays among the negotiator's offers after a
    match: the consumption is deducted from the negotiator's copy and the cost is the
    drop of SlotWeight. A request that continues the previous request's autocluster
    (same `AutoClusterId`) reuses its cached match list, where the slot is only while
    it still matched that request after the deduction; any other request sees the slot
    as it stands. Each match uses one of the slot's claims (NumClaims; when none is
    left the slot leaves the cycle). Without a policy the slot takes one match, costing
    its SlotWeight (23.0 `matchmakingAlgorithm`, `matchmakingProtocol`, `negotiate`,
    `returnPslotToMatchList`). Submitter limits and preemption are not modelled.
    """
    slot = as_ad(pslot_ad, where="pslot")
    if _number(evaluate_attribute(slot, "SlotWeight")) is None:
        slot["SlotWeight"] = parse(NEGOTIATOR_SLOT_WEIGHT)
    policy = supports_policy(slot)
    claims = _claims(slot, policy)
    offered = True  # the slot is among the cycle's startd ads
    cache: tuple[int, bool] | None = None  # (autocluster, slot still in the match list)
    results: list[MatchResult] = []
    warnings: list[str] = []
    for index, raw in enumerate(jobs):
        job = raw if isinstance(raw, ClassAd) else as_ad(raw, where=f"jobs[{index}]")
        cluster = _autocluster(job)
        consumption = compute_consumption(job, slot) if policy else Consumption({})
        warnings.extend(f"request {index}: {w}" for w in consumption.warnings)
        if cache is not None and cluster is not None and cache[0] == cluster:
            candidate = cache[1]
        else:
            candidate = offered and (
                cp_match(job, slot)[0] if policy else symmetric_match(job, slot)
            )
        cache = (cluster, False) if cluster is not None and offered else None
        if candidate and claims < 1:
            offered, candidate, cache = False, False, None  # "has no claim id"
        if not candidate:
            results.append(MatchResult(index, False, consumption.amounts, 0.0))
            continue
        claims -= 1
        if policy:
            slot, cost = deduct_assets(job, slot)
            if cache is not None:
                cache = (cache[0], cp_match(job, slot)[0])
        else:
            cost = slot_weight(slot)
            offered = False
        results.append(MatchResult(index, True, consumption.amounts, cost))
    return Cycle(tuple(results), slot, policy, tuple(warnings))


def _report_number(value: float) -> int | float:
    return preserve_integers(value) if math.isfinite(value) else value


def remaining(cycle: Cycle) -> dict[str, int | float]:
    """What the negotiator's copy of the slot holds after the cycle: each asset of its
    MachineResources but Swap (Cpus, Memory, Disk when it has none) and SlotWeight."""
    slot = cycle.slot
    resources = evaluate_attribute(slot, "MachineResources")
    names = policy_assets(resources) if isinstance(resources, str) else STANDARD_ASSETS
    out: dict[str, int | float] = {}
    for name in names:
        value = _number(evaluate_attribute(slot, name))
        if value is not None:
            out[_spelling(slot, name)] = _report_number(value)
    out["SlotWeight"] = _report_number(slot_weight(slot))
    return out


def _jobs(doc: Mapping[str, object]) -> list[ClassAd]:
    """The JOBS document's job ads as request ads (DESIGN.md `slots --jobs`).

    JOBS values are ClassAd literals; `Requirements`, the one expression the negotiator
    needs from a job, may be written as its source text (a plain string) or as
    `/Expr(text)/`. condor_submit always writes a Requirements; a JOBS entry without
    one places no requirement on the slot (`true`), so one JOBS file serves both the
    startd's split and the negotiator's view.
    """
    if not isinstance(doc, Mapping):
        raise ConsumptionError("the JOBS document is not a mapping")
    jobs = doc.get("jobs")
    if not isinstance(jobs, list):
        raise ConsumptionError("jobs: expected a list of job ads")
    ads: list[ClassAd] = []
    for index, job in enumerate(jobs):
        where = f"jobs[{index}]"
        if not isinstance(job, Mapping):
            raise ConsumptionError(f"{where}: expected a job ad (a mapping)")
        if "release" in job:
            raise ConsumptionError(
                f"{where}: a release has no meaning in one negotiation cycle "
                "(the negotiator sees the slot ad, not the startd's claims)"
            )
        ad = as_ad(job, where=where)
        requirements = ad.get("Requirements")
        if "Requirements" not in ad:
            ad["Requirements"] = True
        elif isinstance(requirements, str):
            try:
                ad[_spelling(ad, "Requirements")] = parse(requirements)
            except PolicyError as err:
                raise ConsumptionError(f"{where}.Requirements: {err.message}") from err
        ads.append(ad)
    return ads


def negotiator_report(
    pslot_ad: Mapping[str, object],
    doc: Mapping[str, object],
    *,
    semantics: str,
    file: str | None = None,
) -> dict[str, Any]:
    """The `slots --negotiator` result (DESIGN.md): `matches` (one entry per job of
    `doc["jobs"]`: request_index, matched, consumption {asset: amount}, cost) and
    `remaining` (the p-slot's assets and SlotWeight after the cycle).

    `pslot_ad` is the p-slot's ad with expressions as `/Expr(text)/` strings
    (compiler.slots.publish.json_ad); job ads are read as `_jobs` says.

    `semantics` ("code" or "manual") changes nothing here: the seed and 23.0 compute
    the same matches; their differences (reference/slots.md §12 items 6 and 11) are in
    the seed's example configuration and a usage rule, see docs/consumption-policies.md.
    A problem with the document or the ads is a ConsumptionError naming the key at
    fault, located in `file` (the JOBS path) when given.
    """
    from compiler.spec import SEMANTICS

    if semantics not in SEMANTICS:
        raise ConsumptionError(f"unknown semantics '{semantics}' (known: {', '.join(SEMANTICS)})")
    try:
        cycle = negotiate_cycle(pslot_ad, _jobs(doc))
    except ConsumptionError as err:
        err.file = err.file or file
        raise
    return {
        "matches": [
            {
                "request_index": m.request_index,
                "matched": m.matched,
                "consumption": {a: _report_number(v) for a, v in m.consumption.items()},
                "cost": _report_number(m.cost),
            }
            for m in cycle.matches
        ],
        "remaining": remaining(cycle),
    }


__all__ = [
    "STANDARD_ASSETS",
    "Consumption",
    "ConsumptionError",
    "Cycle",
    "MatchResult",
    "as_ad",
    "compute_consumption",
    "consumption_texts",
    "cp_match",
    "custom_consumption_default",
    "deduct_assets",
    "dslot_type_items",
    "negotiate_cycle",
    "negotiator_report",
    "num_claims",
    "override_requested",
    "policy_assets",
    "preserve_integers",
    "remaining",
    "slot_weight",
    "sufficient_assets",
    "supports_policy",
    "within_resource_limits_text",
]
