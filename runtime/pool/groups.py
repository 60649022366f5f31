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
With unweighted slots (NEGOTIATOR_USE_SLOT_WEIGHTS = False) the code floors allocations and
hands the remainders out by round robin (`hgq_recover_remainders`, `hgq_round_robin`, D7).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    round_robin_remainders: bool
    allocation_rounds: bool


@cache
def group_facts(semantics: str) -> GroupFacts:
    entry = yamlcache.spec_entry("pool.yaml", "groups", semantics, "semantics for group quotas")
    return GroupFacts(
        bool(entry["allow_oversubscription"]),
        bool(entry["truncate_quotas"]),
        bool(entry["round_robin_remainders"]),
        bool(entry["allocation_rounds"]),
    )


@dataclass
class Group:
    """One node of the group tree while a cycle's numbers are computed."""

    name: str
    static: bool = False
    config_quota: float = 0.0
    accept_surplus: bool = False
    autoregroup: bool = False
    children: list[Group] = field(default_factory=list)
    parent: Group | None = None
    quota: float = 0.0
    subtree_quota: float = 0.0
    requested: float = 0.0
    subtree_requested: float = 0.0
    allocated: float = 0.0
    usage: float = 0.0
    #: the last cycle this group was served by round robin (every group starts at 0: a
    #: snapshot has no history); its subtree's oldest, DBL_MAX when it asks for nothing
    rr_time: float = 0.0
    subtree_rr_time: float = 0.0

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
    (clamped to 0..1), else dynamic 0; GROUP_ACCEPT_SURPLUS(_<name>),
    GROUP_AUTOREGROUP(_<name>). The root `<none>` always accepts surplus, and is in
    autoregroup mode when any group is."""
    root = Group(ROOT, accept_surplus=True)
    default_accept = _bool(config.get("GROUP_ACCEPT_SURPLUS"), False)
    default_regroup = _bool(config.get("GROUP_AUTOREGROUP"), False)
    root.autoregroup = default_regroup
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
        group.autoregroup = _bool(config.get(f"GROUP_AUTOREGROUP_{name}"), default_regroup)
        root.autoregroup = root.autoregroup or group.autoregroup  # any group: the root too
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
    requested = float(group.subtree_requested)
    shares = [0.0] * len(members)
    if surplus >= requested:
        shares = list(asks)
        surplus -= requested
        requested = 0.0
    else:
        left = list(asks)
        for by_quota in (True, False):
            surplus, requested = _share_loop(by_quota, weights, left, shares, surplus, requested)
    _hand_down(group, shares, requested, allocate_surplus)
    return surplus


def _hand_down(
    group: Group, shares: list[float], requested: float, give: Callable[[Group, float], float]
) -> None:
    """What a share of surplus ends with: each child's part handed down (`give` it to
    the child's subtree), the group's own last part kept, its subtree's request updated."""
    for child, share in zip(group.children, shares, strict=False):
        if share > 0:
            give(child, share)
    group.allocated += shares[-1]
    group.requested -= shares[-1]
    group.subtree_requested = requested


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


def _round_for_precision(x: float) -> float:
    return math.floor(0.5 + x)


def recover_remainders(group: Group) -> float:
    """`hgq_recover_remainders` (NEGOTIATOR_USE_SLOT_WEIGHTS = False, D7): each group's
    fractional allocation is taken back into its request, both rounded to whole slots,
    top-down; the summed fractions of a subtree are handed out in whole slots by
    `round_robin`; what is left goes up (and is lost at the root)."""
    surplus = group.allocated - math.floor(group.allocated)
    group.allocated = _round_for_precision(group.allocated - surplus)
    group.requested = _round_for_precision(group.requested + surplus)
    group.subtree_requested = group.requested
    group.subtree_rr_time = group.rr_time if group.requested > 0 else math.inf
    if not group.children:
        return surplus
    for child in group.children:
        surplus += recover_remainders(child)
        if child.accept_surplus:
            group.subtree_requested += child.subtree_requested
            if child.subtree_requested > 0:
                group.subtree_rr_time = min(group.subtree_rr_time, child.subtree_rr_time)
    return round_robin(group, surplus)


def round_robin(group: Group, surplus: float) -> float:
    """`hgq_round_robin`: whole slots of `surplus` to the group and its surplus-accepting
    children that still ask (the group on equal footing with them), oldest round-robin
    time first, then larger subtree quota, then larger request (the code's `std::sort`
    leaves equal keys unordered: here they keep tree order, the group last), at most
    max(1, floor(surplus / askers)) each per pass; nothing below one whole slot. The
    children's shares go down their subtrees. Returns what is left."""
    group.subtree_requested = float(math.floor(group.subtree_requested))
    if group.subtree_requested <= 0 or surplus < 1:
        return surplus
    members = [*group.children, group]
    # the group itself takes part like a child that accepts surplus, with its own numbers
    accepts = [c.accept_surplus for c in group.children] + [True]
    quota = [c.subtree_quota for c in group.children] + [group.quota]
    rr_time = [c.subtree_rr_time for c in group.children] + [group.rr_time]
    asks = [c.subtree_requested for c in group.children] + [group.requested]
    requested = float(group.subtree_requested)
    wanted = [a if ok and a > 0 else 0.0 for ok, a in zip(accepts, asks, strict=True)]
    outstanding = float(sum(1 for w in wanted if w > 0))
    order = sorted(range(len(members)), key=lambda j: (rr_time[j], -quota[j], -asks[j]))
    given = [0.0] * len(members)
    while surplus >= 1 and requested > 0:
        most = max(1.0, math.floor(surplus / outstanding)) if outstanding else 1.0
        outstanding = 0.0
        handed = 0.0
        for j in order:
            if wanted[j] <= 0:
                continue
            share = min(wanted[j], most)
            given[j] += share
            wanted[j] -= share
            handed += share
            surplus -= share
            requested -= share
            if wanted[j] > 0:
                outstanding += 1
            if surplus < most:
                break
        if handed < 1:
            break
    _hand_down(group, given, requested, round_robin)
    return surplus


def _subtree_usage(group: Group) -> float:
    return group.usage + sum(_subtree_usage(c) for c in group.children)


def first_round_limit(group: Group, *, whole_slots: bool = False) -> int:
    """The limit `group` negotiates with in the first round (2.7 step 6, one pass with the
    default GROUP_QUOTA_ROUND_ROBIN_RATE): its target max(allocation, quota), then
    NEGOTIATOR_STRICT_ENFORCE_QUOTA caps the new slots for the group and each ancestor that
    does not accept surplus at its configured (static) or received (dynamic) quota minus
    its subtree's usage; truncated toward zero (the callback takes an int)."""
    # one pass: n = maxdelta, so usage + delta x n / maxdelta is the target itself (the
    # code's 0/0 when maxdelta is 0 is not reproduced: the target stands)
    slots = max(group.allocated, group.quota)
    if whole_slots:  # unweighted slots: floored before the caps
        slots = math.floor(slots)
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


class Allocation:
    """The groups of one negotiation cycle through its allocation rounds
    (`hgq_negotiate_with_all_groups`, 2.7): `plan()` starts a round (fair share, the
    unweighted remainders, autoregroup's root, the order and each group's limit),
    `settle(usage)` ends it with the usage the negotiation reached and says whether
    another round is due (some group got less than its allocation and rounds are left)."""

    def __init__(
        self,
        config: Any,
        total: float,
        demand: Mapping[str, float],
        usage: Mapping[str, float],
        *,
        semantics: str,
    ) -> None:
        known = group_facts(semantics)
        knob = "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION"  # its default is the semantics' fact
        oversub = config.get(knob) if config.definition(knob) is not None else None
        self.root = group_tree(config)
        self.groups = self.root.walk()
        self.total = total
        assign_quotas(
            self.root, float(total), oversubscription=_bool(oversub, known.allow_oversubscription)
        )
        if known.truncate_quotas:
            truncate_quotas(self.root)
        for group in self.groups:
            group.requested = demand.get(group.name.lower(), 0.0)
            group.usage = usage.get(group.name.lower(), 0.0)
        self.weighted = _bool(config.get("NEGOTIATOR_USE_SLOT_WEIGHTS"), True)
        self.round_robin = not self.weighted and known.round_robin_remainders
        self.sort_expression = config.get("GROUP_SORT_EXPR") or DEFAULT_SORT
        rounds = config.get("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS")
        if rounds is None or config.definition("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS") is None:
            rounds = config.get("HFS_MAX_ALLOCATION_ROUNDS") or "3"
        try:
            self.max_rounds = max(1, int(float(rounds))) if known.allocation_rounds else 1
        except ValueError:
            raise QuotasError(
                f"config: GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = {rounds!r} is not a number",
                file="config",
            ) from None
        self.rounds = 0
        self.limits: dict[str, int] = {}
        self.order: dict[str, int] = {}

    def plan(self) -> list[Group]:
        """Start a round: the groups in the order they negotiate, `self.limits` set."""
        self.rounds += 1
        for group in self.groups:
            group.allocated = 0.0
            group.subtree_requested = 0.0
        fairshare(self.root)
        if self.round_robin:
            recover_remainders(self.root)
        if self.root.autoregroup:  # the root negotiates for the whole pool, last
            self.root.quota = self.root.allocated = float(self.total)
        order = sorted(self.groups, key=lambda g: sort_key(g, self.sort_expression))
        if self.root.autoregroup:
            order = [g for g in order if g is not self.root] + [self.root]
        self.order = {g.name: i + 1 for i, g in enumerate(order)}
        self.limits = {
            g.name: first_round_limit(g, whole_slots=not self.weighted) for g in self.groups
        }
        return order

    def settle(self, usage: Mapping[str, float]) -> bool:
        """End a round with each group's usage now (by name); True when another is due."""
        used_total = allocated_total = 0.0
        for group in self.groups:
            group.usage = usage.get(group.name, group.usage)
            used_total += min(group.usage, group.allocated)
            allocated_total += group.allocated
            if group.usage < group.allocated:  # give the rest a chance in the next round
                group.requested = group.usage
            else:
                group.requested += group.allocated
        return used_total < allocated_total and self.rounds < self.max_rounds

    def report(self) -> dict[str, dict[str, Any]]:
        """DESIGN.md's `quotas` numbers of the round planned last."""
        return {
            g.name: {
                "quota": g.quota,
                "subtree_quota": g.subtree_quota,
                "allocation": g.allocated,
                "limit": self.limits[g.name],
                "order": self.order[g.name],
            }
            for g in self.groups
        }


def submitters_allocation(
    config: Any,
    submitters: Iterable[tuple[str, float, float]],
    total: float,
    *,
    semantics: str,
) -> tuple[Allocation, dict[str, str], dict[str, float]]:
    """The groups' allocation (`Allocation`) of a pool of `total` slot weight among
    `submitters` (name, slots in use, idle jobs): a group's demand is its submitters'
    usage plus idle jobs, its usage theirs (reference 2.2); with each submitter's group
    (`assigned_group`) and each group's usage, by lower-case name."""
    tree = [g.name for g in group_tree(config).walk()]
    demand: dict[str, float] = {}
    used: dict[str, float] = {}
    members: dict[str, str] = {}
    for name, in_use, idle in submitters:
        members[name] = group = assigned_group(name, tree)
        key = group.lower()
        demand[key] = demand.get(key, 0.0) + in_use + idle
        used[key] = used.get(key, 0.0) + in_use
    return Allocation(config, total, demand, used, semantics=semantics), members, used


def quota_report(document: Any, *, semantics: str, file: str | None = None) -> dict[str, Any]:
    """DESIGN.md's `quotas` output for a QUOTAS document (`{"config", "total_slots",
    "demand": {group: weighted jobs}, "usage": {group: weighted slots in use}}`): per group
    `{"quota", "subtree_quota", "allocation", "limit", "order"}`, as the first allocation
    round plans them."""
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
    names = {g.name.lower() for g in group_tree(config).walk()}
    demand, usage = _amounts(document, "demand", file), _amounts(document, "usage", file)
    for key, amounts in (("demand", demand), ("usage", usage)):
        for name in amounts:
            if name not in names:
                raise QuotasError(f"{key}: no group {name!r} in GROUP_NAMES", file=file)
    allocation = Allocation(config, float(total), demand, usage, semantics=semantics)
    allocation.plan()
    return allocation.report()


def assigned_group(submitter: str, groups: Sequence[str]) -> str:
    """`GroupEntry::GetAssignedGroup`: strip from the last `@`, cut at the last `.` (what
    follows is the user), and walk down the group names as far as they exist
    (case-insensitively); no `.` before the `@`: the root `<none>`."""
    known = {g.lower(): g for g in groups}
    name = submitter.rpartition("@")[0] if "@" in submitter else submitter
    if "@" not in submitter and name.lower() in known:
        return known[name.lower()]  # a group name maps to itself
    path, dot, _user = name.rpartition(".")
    if not dot:
        return "<none>"
    found = "<none>"
    parts = path.split(".")
    for n in range(1, len(parts) + 1):
        candidate = ".".join(parts[:n]).lower()
        if candidate not in known:
            break
        found = known[candidate]
    return found
