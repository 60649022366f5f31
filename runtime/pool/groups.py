"""Accounting groups with hierarchical group quotas (issue 14, shared/reference/pool.md
section 2; HEAD `GroupEntry.cpp`: `hgq_construct_tree`, `hgq_assign_quotas`,
`hgq_fairshare`, `hgq_allocate_surplus(_loop)`, `hgq_negotiate_with_all_groups`).

Stage: pool; pure computations over the group tree a negotiator configuration defines. Per
group: its quota (the node's own share), its subtree quota (what it received), its
allocation for this cycle (the quota capped by demand, plus surplus where accepted) and the
limit it negotiates with in the first allocation round (truncated to an integer, after
NEGOTIATOR_STRICT_ENFORCE_QUOTA), and the order groups negotiate in (GROUP_SORT_EXPR).
Where seed 003 reads differently (D5, D6, D19: quota oversubscription and the truncation of
quotas with remainders passed up) spec/pool.yaml `groups` says which semantics does what.
Not modelled here: unweighted slots' round robin of remainders (`hgq_recover_remainders`,
NEGOTIATOR_USE_SLOT_WEIGHTS = False), later allocation rounds, autoregroup's second pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from compiler import yamlcache
from compiler.errors import PolicyError

ROOT = "<none>"
#: GROUP_SORT_EXPR's default (param_info.in).
DEFAULT_SORT = (
    'ifThenElse(AccountingGroup=?="<none>",3.4e+38,'
    "ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"
)
FLT_MAX = 3.4028234663852886e38


class QuotasError(PolicyError):
    """A QUOTAS document `quotas` cannot use (the key at fault is named)."""


@dataclass(frozen=True)
class GroupFacts:
    """What one semantics says about group quotas (spec/pool.yaml `groups`)."""

    allow_oversubscription: bool
    truncate_quotas: bool


@cache
def group_facts(semantics: str) -> GroupFacts:
    entry = yamlcache.spec_entry("pool.yaml", "groups", semantics, "semantics for group quotas")
    return GroupFacts(bool(entry["allow_oversubscription"]), bool(entry["truncate_quotas"]))


@dataclass
class Group:
    """One node of the group tree while a cycle's numbers are computed."""

    name: str
    static: bool = False
    config_quota: float = 0.0
    accept_surplus: bool = False
    children: list[Group] = field(default_factory=list)
    parent: Group | None = None
    quota: float = 0.0
    subtree_quota: float = 0.0
    requested: float = 0.0
    subtree_requested: float = 0.0
    allocated: float = 0.0
    usage: float = 0.0

    def walk(self) -> list[Group]:
        """This group and its subtree, parents before children, in tree order."""
        out = [self]
        for child in self.children:
            out += child.walk()
        return out


def _bool(text: str | None, default: bool) -> bool:
    if text is None:
        return default
    return text.strip().lower() in ("true", "1", "yes")


def _number(config: Any, name: str) -> float | None:
    raw = config.get(name)
    if raw is None or not raw.strip():
        return None
    try:
        return float(raw)
    except ValueError:
        raise QuotasError(f"config: {name} = {raw!r} is not a number", file="config") from None


def group_tree(config: Any) -> Group:
    """The tree GROUP_NAMES defines (`hgq_construct_tree`): names sorted
    case-insensitively, a group whose parent is not defined ignored, duplicates ignored;
    static quota GROUP_QUOTA_<name> (clamped at 0) before dynamic GROUP_QUOTA_DYNAMIC_<name>
    (clamped to 0..1), else dynamic 0; GROUP_ACCEPT_SURPLUS(_<name>). The root `<none>`
    always accepts surplus."""
    root = Group(ROOT, accept_surplus=True)
    default_accept = _bool(config.get("GROUP_ACCEPT_SURPLUS"), False)
    names = [n for n in re.split(r"[\s,]+", config.get("GROUP_NAMES") or "") if n]
    by_name = {ROOT.lower(): root}
    for name in sorted(set(names), key=str.lower):
        if name.lower() == ROOT.lower() or name.lower() in by_name:
            continue
        parent_name, _, _ = name.rpartition(".")
        parent = by_name.get(parent_name.lower()) if parent_name else root
        if parent is None:  # "missing parent": the startd ignores the group
            continue
        group = Group(name, parent=parent)
        static = _number(config, f"GROUP_QUOTA_{name}")
        if static is not None:
            group.static, group.config_quota = True, max(0.0, static)
        else:
            dynamic = _number(config, f"GROUP_QUOTA_DYNAMIC_{name}")
            group.config_quota = min(max(0.0, dynamic or 0.0), 1.0)
        group.accept_surplus = _bool(config.get(f"GROUP_ACCEPT_SURPLUS_{name}"), default_accept)
        parent.children.append(group)
        by_name[name.lower()] = group
    return root


def assign_quotas(group: Group, quota: float, *, oversubscription: bool) -> None:
    """`hgq_assign_quotas`: static children first (scaled only when they over-commit and
    oversubscription is off), dynamic children share what is left (scaled when their
    fractions sum over 1); a non-root parent keeps its whole quota with oversubscription,
    else what its children did not take (the root always the latter)."""
    if quota <= 0:
        return
    group.subtree_quota = quota
    static = sum(c.config_quota for c in group.children if c.static)
    dynamic = sum(c.config_quota for c in group.children if not c.static)
    static_share = static if oversubscription else min(static, quota)
    dynamic_share = max(0.0, quota - static_share)
    static_norm = static or 1.0
    dynamic_norm = max(dynamic, 1.0)
    given = 0.0
    for child in group.children:
        if child.static:
            share = child.config_quota * (static_share / static_norm)
        else:
            share = child.config_quota * (dynamic_share / dynamic_norm)
        share = max(share, 0.0)
        assign_quotas(child, share, oversubscription=oversubscription)
        given += share
    own = quota if (oversubscription and group.parent is not None) else quota - given
    group.quota = max(own, 0.0)


def truncate_quotas(group: Group) -> float:
    """Seed 003 3.4.8 read literally: "the floating point values are truncated for quota
    allocation. Fractional remainders resulting from the truncation are summed and
    assigned to the next higher level": bottom up, each group's own quota plus its
    children's remainders is floored, the rest goes up; the root keeps its own plus what
    reaches it. Returns the remainder `group` passes up."""
    passed = sum(truncate_quotas(c) for c in group.children)
    total = group.quota + passed
    if group.parent is None:
        group.quota = total
        return 0.0
    whole = math.floor(total + 1e-9)  # 0.1818 + 0.6364 + 0.1818 is 1 machine, not 0.99999
    group.quota = float(whole)
    rest = total - whole
    return rest if rest > 1e-9 else 0.0  # floating-point dust is no machine


def fairshare(group: Group) -> float:
    """`hgq_fairshare`: each group gets min(demand, quota); what its quota leaves and what
    its subtree leaves is shared in the subtree (`allocate_surplus`); returns the surplus
    passed up."""
    group.allocated = min(group.requested, group.quota)
    group.requested -= group.allocated
    group.subtree_requested = group.requested
    surplus = group.quota - group.allocated
    if not group.children:
        return surplus
    for child in group.children:
        surplus += fairshare(child)
        if child.accept_surplus:
            group.subtree_requested += child.subtree_requested
    return allocate_surplus(group, surplus)


def allocate_surplus(group: Group, surplus: float) -> float:
    """`hgq_allocate_surplus`: the group shares `surplus` with its surplus-accepting
    children, on equal footing whatever its own GROUP_ACCEPT_SURPLUS: everybody gets its
    request when there is enough, else shares by subtree quota, then equally (zero-quota
    groups); children's shares go down their subtrees. Returns what is left."""
    if surplus <= 0:
        return 0.0
    if group.subtree_requested <= 0:
        return surplus
    members = [*group.children, group]
    weights = [c.subtree_quota for c in group.children] + [group.quota]
    asks = [
        c.subtree_requested if c.accept_surplus and c.subtree_requested > 0 else 0.0
        for c in group.children
    ] + [group.requested if group.requested > 0 else 0.0]
    requested = group.subtree_requested
    shares = [0.0] * len(members)
    if surplus >= requested:
        shares = list(asks)
        surplus -= requested
        requested = 0.0
    else:
        left = list(asks)
        for by_quota in (True, False):
            surplus, requested = _share_loop(by_quota, weights, left, shares, surplus, requested)
    for child, share in zip(group.children, shares, strict=False):
        if share > 0:
            allocate_surplus(child, share)
    group.allocated += shares[-1]
    group.requested -= shares[-1]
    group.subtree_requested = requested
    return surplus


def _share_loop(
    by_quota: bool,
    weights: list[float],
    left: list[float],
    shares: list[float],
    surplus: float,
    requested: float,
) -> tuple[float, float]:
    """`hgq_allocate_surplus_loop`: proportional shares capped at what each still asks,
    repeated until the surplus is gone or nobody asks."""
    while surplus > 0:
        norm = sum(
            (w if by_quota else 1.0) for w, ask in zip(weights, left, strict=True) if ask > 0
        )
        if norm <= 0:
            break
        capped = False
        given = 0.0
        for j, ask in enumerate(left):
            if ask <= 0:
                continue
            share = surplus * ((weights[j] if by_quota else 1.0) / norm)
            if share > ask:
                share, capped = ask, True
            shares[j] += share
            left[j] -= share
            given += share
        surplus -= given
        requested -= given
        if not capped or surplus < 0:
            surplus = 0.0
    return surplus, requested


def _subtree_usage(group: Group) -> float:
    return group.usage + sum(_subtree_usage(c) for c in group.children)


def first_round_limit(group: Group) -> int:
    """The limit `group` negotiates with in the first round (2.7 step 6, one pass with the
    default GROUP_QUOTA_ROUND_ROBIN_RATE): its target max(allocation, quota), then
    NEGOTIATOR_STRICT_ENFORCE_QUOTA caps the new slots for the group and each ancestor that
    does not accept surplus at its configured (static) or received (dynamic) quota minus
    its subtree's usage; truncated toward zero (the callback takes an int)."""
    # one pass: n = maxdelta, so usage + delta x n / maxdelta is the target itself (the
    # code's 0/0 when maxdelta is 0 is not reproduced: the target stands)
    slots = max(group.allocated, group.quota)
    new = slots - group.usage
    node: Group | None = group
    while node is not None:
        if not node.accept_surplus:
            cap = node.config_quota if node.static else node.subtree_quota
            new = max(min(new, cap - _subtree_usage(node)), 0.0)
        node = node.parent
    return math.trunc(new + group.usage)


def sort_key(group: Group, expression: str) -> float:
    """GROUP_SORT_EXPR in an ad with AccountingGroup, GroupQuota, GroupResourcesAllocated,
    GroupResourcesInUse; anything but a number sorts as FLT_MAX."""
    from compiler.classad import evaluate, parse

    ad = {
        "AccountingGroup": group.name,
        "GroupQuota": group.quota,
        "GroupResourcesAllocated": group.allocated,
        "GroupResourcesInUse": group.usage,
    }
    value = evaluate(parse(expression), ad)
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return FLT_MAX
    return float(value)


def _amounts(document: Mapping[str, Any], key: str, file: str | None) -> dict[str, float]:
    value = document.get(key) or {}
    if not isinstance(value, Mapping):
        raise QuotasError(f"'{key}' must map group names to numbers", file=file)
    out = {}
    for name, amount in value.items():
        if isinstance(amount, bool) or not isinstance(amount, int | float):
            raise QuotasError(f"{key}.{name} must be a number, not {amount!r}", file=file)
        out[str(name).lower()] = float(amount)
    return out


def quota_report(document: Any, *, semantics: str, file: str | None = None) -> dict[str, Any]:
    """DESIGN.md's `quotas` output for a QUOTAS document (`{"config", "total_slots",
    "demand": {group: weighted jobs}, "usage": {group: weighted slots in use}}`): per group
    `{"quota", "subtree_quota", "allocation", "limit", "order"}`."""
    from compiler.config import load_config

    if not isinstance(document, Mapping):
        raise QuotasError("QUOTAS must be a mapping with 'total_slots'", file=file)
    unknown = sorted(set(document) - {"config", "total_slots", "demand", "usage"})
    if unknown:
        raise QuotasError(f"unknown key {unknown[0]!r}", file=file)
    total = document.get("total_slots")
    if isinstance(total, bool) or not isinstance(total, int | float) or total < 0:
        raise QuotasError("'total_slots' must be a number >= 0", file=file)
    config = load_config(text=str(document.get("config") or ""), subsystem="NEGOTIATOR")
    known = group_facts(semantics)
    knob = "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION"  # its default is the semantics' fact
    oversub = config.get(knob) if config.definition(knob) is not None else None
    root = group_tree(config)
    groups = root.walk()
    names = {g.name.lower() for g in groups}
    demand, usage = _amounts(document, "demand", file), _amounts(document, "usage", file)
    for key, amounts in (("demand", demand), ("usage", usage)):
        for name in amounts:
            if name not in names:
                raise QuotasError(f"{key}: no group {name!r} in GROUP_NAMES", file=file)
    assign_quotas(root, float(total), oversubscription=_bool(oversub, known.allow_oversubscription))
    if known.truncate_quotas:
        truncate_quotas(root)
    for group in groups:
        group.requested = demand.get(group.name.lower(), 0.0)
        group.usage = usage.get(group.name.lower(), 0.0)
    fairshare(root)
    expression = config.get("GROUP_SORT_EXPR") or DEFAULT_SORT
    order = sorted(groups, key=lambda g: sort_key(g, expression))  # stable: tree order on ties
    place = {g.name: i + 1 for i, g in enumerate(order)}
    return {
        g.name: {
            "quota": g.quota,
            "subtree_quota": g.subtree_quota,
            "allocation": g.allocated,
            "limit": first_round_limit(g),
            "order": place[g.name],
        }
        for g in groups
    }
