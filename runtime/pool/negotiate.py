"""One negotiation cycle (issue 14; shared/reference/pool.md section 3): today the pie
arithmetic alone (`negotiateWithGroup`, `calculateNormalizationFactor`,
`calculatePieLeft`, `calculateSubmitterLimit`, `SubmitterLimitPermits`), over identical
slots that every job matches, without preemption. The matchmaking of each job (both
Requirements, the ranks, the three preemption reasons) comes with `negotiate`.

Per spin: a submitter's share of the pie is (1/EUP) / sum(1/EUP); its limit the share of
the pie minus what it uses (code: the pie is every slot's weight; the seed: the slots
available now, D16); submitters are served in EUP order (best first); a submitter takes
slots while its limit allows, and one slot anyway when it has taken none yet this spin and
its limit is above 0 ("round up once per pie spin"); on later spins the code skips a
submitter whose limit is below one slot weight (D9: slots can stay idle), the seed goes on
until the machines or the jobs run out. Facts per semantics: spec/pool.yaml `negotiation`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from compiler import yamlcache
from compiler.errors import PolicyError


@dataclass(frozen=True)
class CycleFacts:
    pie_of_all_slots: bool
    round_up_later_spins: bool


@cache
def cycle_facts(semantics: str) -> CycleFacts:
    entry = yamlcache.spec_entry("pool.yaml", "negotiation", semantics, "semantics for negotiation")
    return CycleFacts(bool(entry["pie_of_all_slots"]), bool(entry["round_up_later_spins"]))


def _shares(eups: dict[str, float]) -> dict[str, float]:
    """Each submitter's share of the pie (`calculateNormalizationFactor`): max/EUP over
    the sum of max/EUP, i.e. (1/EUP) / sum(1/EUP)."""
    worst = max(eups.values())
    normal = sum(worst / e for e in eups.values())
    return {n: worst / (e * normal) for n, e in eups.items()}


@dataclass(frozen=True)
class Submitter:
    """A submitter as the cycle sees it: name, EUP, weighted slots in use, idle jobs."""

    name: str
    eup: float
    usage: float = 0.0
    idle_jobs: int = 0


@dataclass(frozen=True)
class PieResult:
    """How many slots each submitter got, in the order served, and the slots left idle."""

    matches: dict[str, int]
    idle_slots: int
    spins: int


def spin_the_pie(
    submitters: Sequence[Submitter], free_slots: int, known: CycleFacts, *, claimed: int = 0
) -> PieResult:
    """The cycle's pie spins over `free_slots` unclaimed slots of weight 1 (and `claimed`
    slots already in use, part of the code's pie), every job matching every slot."""
    usage = {s.name: s.usage for s in submitters}
    idle = {s.name: s.idle_jobs for s in submitters}
    eup = {s.name: s.eup for s in submitters}
    matches = dict.fromkeys(usage, 0)
    free = free_slots
    order = sorted(submitters, key=lambda s: s.eup)  # EUP ascending: best first
    spins = 0
    while free > 0:
        asking = [s.name for s in order if idle[s.name] > 0]
        if not asking:
            break
        spins += 1
        shares = _shares({n: eup[n] for n in asking})
        pie = float(free_slots + claimed) if known.pie_of_all_slots else float(free)
        # the code charges what a submitter uses; the seed slices what is available now
        start = {n: 0.0 if known.pie_of_all_slots else usage[n] for n in asking}
        pie_left = sum(max(shares[n] * pie - (usage[n] - start[n]), 0.0) for n in asking)
        if pie_left <= 0:
            break
        progress = False
        for name in asking:
            if free <= 0:
                break
            limit = max(shares[name] * pie - (usage[name] - start[name]), 0.0)
            mine = min(limit, pie_left)
            if spins > 1 and not known.round_up_later_spins and (mine < 1 or pie_left < 1):
                continue
            used = 0.0
            while free > 0 and idle[name] > 0 and (used + 1 <= mine or (used == 0 and mine > 0)):
                used += 1
                usage[name] += 1
                idle[name] -= 1
                matches[name] += 1
                free -= 1
                pie_left -= 1
                progress = True
        if not progress:
            break
    return PieResult(matches, free, spins)


# ---- one cycle over a pool snapshot (the traditional path: no group quotas) -------------

#: The reasons a slot is given to a job (matchmaker.cpp PreemptState), best first.
REASONS = ("no_preemption", "rank", "priority")
_REASON_ORDER = {"no_preemption": 2, "rank": 1, "priority": 0}
FLT_MAX = 3.4028234663852886e38
#: Job attributes that do not make an autocluster (the schedd's significant attributes are
#: every other attribute here).
NOT_SIGNIFICANT = frozenset({"clusterid", "procid", "qdate", "globaljobid", "jobprio"})


class SnapshotError(PolicyError):
    """A SNAPSHOT `negotiate` cannot use (the key at fault is named)."""


@dataclass(frozen=True)
class RulesFacts:
    """The negotiation rules one semantics states (spec/pool.yaml `negotiation`)."""

    preemption_requirements: str
    priority_needs_better_eup: bool
    keep_retiring_slots: bool
    skip_claimed_idle: bool


@cache
def rules_facts(semantics: str) -> RulesFacts:
    entry = yamlcache.spec_entry("pool.yaml", "negotiation", semantics, "semantics for negotiation")
    return RulesFacts(
        str(entry["preemption_requirements"]),
        bool(entry["priority_needs_better_eup"]),
        bool(entry["keep_retiring_slots"]),
        bool(entry["skip_claimed_idle"]),
    )


@dataclass
class _Slot:
    name: str
    ad: dict[str, Any]
    weight: float
    user: str | None  # who holds the claim (charged), None when unclaimed


@dataclass
class _Job:
    id: str
    submitter: str
    ad: dict[str, Any]


@dataclass
class Cycle:
    """What one negotiation cycle did (DESIGN.md's `negotiate` keys)."""

    submitter_order: list[str]
    matches: list[dict[str, str]]
    unmatched: list[str]
    match_count: dict[str, int]
    why_unmatched: dict[str, dict[str, Any]]
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the ads of the snapshot by slot name and job id (for `drive_match`; not printed)
    slot_ads: dict[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    job_ads: dict[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "submitter_order": self.submitter_order,
            "matches": self.matches,
            "unmatched": self.unmatched,
            "match_count": self.match_count,
            "why_unmatched": self.why_unmatched,
            "groups": self.groups,
        }


def _value(raw: Any, where: str, file: str | None) -> Any:
    """A snapshot ad value: ClassAd source text, or a JSON number/boolean as itself."""
    from compiler.classad import parse

    if isinstance(raw, bool | int | float):
        return raw
    if not isinstance(raw, str):
        raise SnapshotError(f"{where} must be ClassAd source text", file=file)
    try:
        return parse(raw)
    except PolicyError as err:
        raise SnapshotError(f"{where}: {err.message}", file=file) from None


def _ad(raw: Any, where: str, file: str | None) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise SnapshotError(f"{where} must map attribute names to ClassAd text", file=file)
    return {str(k): _value(v, f"{where}.{k}", file) for k, v in raw.items()}


def _eval(text_or_expr: Any, my: Mapping[str, Any], target: Mapping[str, Any] | None) -> Any:
    from compiler.classad import evaluate, parse

    expr = parse(text_or_expr) if isinstance(text_or_expr, str) else text_or_expr
    return evaluate(expr, my, target)


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and not math.isnan(value):
        return float(value)
    return default


def _true(value: Any) -> bool:
    return value is True


def _attr(ad: Mapping[str, Any], name: str) -> Any:
    from compiler.classad import UNDEFINED

    lowered = name.lower()
    for key in ad:
        if key.lower() == lowered:
            return _eval(key, ad, None)
    return UNDEFINED


def negotiate_snapshot(document: Any, *, semantics: str, file: str | None = None) -> Cycle:
    """One negotiation cycle over an inline SNAPSHOT (reference/pool.md section 3, the
    traditional path: no GROUP_NAMES)."""
    from compiler.classad import symmetric_match
    from compiler.config import load_config
    from runtime.pool.accountant import FactorKnobs, effective_priority, facts, priority_factor

    if not isinstance(document, Mapping):
        raise SnapshotError("a SNAPSHOT must be a mapping with machines and submitters", file=file)
    document = _with_dumps(document, file)
    unknown = sorted(set(document) - {"config", "machines", "submitters", "_userprio"})
    if unknown:
        raise SnapshotError(f"unknown key {unknown[0]!r}", file=file)
    config_text = str(document.get("config") or "")
    config = load_config(text=config_text, subsystem="NEGOTIATOR")
    group_names = (config.get("GROUP_NAMES") or "").strip()
    rules, pie_facts, accountant = rules_facts(semantics), cycle_facts(semantics), facts(semantics)

    def knob(name: str, default: str | None) -> str | None:
        return config.get(name) if config.definition(name) is not None else default

    consider = (knob("NEGOTIATOR_CONSIDER_PREEMPTION", "True") or "").strip().lower() == "true"
    early = (knob("NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", "False") or "").lower() == "true"
    preemption_req = knob("PREEMPTION_REQUIREMENTS", rules.preemption_requirements) or "False"
    pre_rank = knob("NEGOTIATOR_PRE_JOB_RANK", None)
    post_rank = knob("NEGOTIATOR_POST_JOB_RANK", None)
    preemption_rank = knob("PREEMPTION_RANK", None)

    slots: list[_Slot] = []
    for index, raw in enumerate(document.get("machines") or []):
        where = f"machines[{index}]"
        if not isinstance(raw, Mapping) or "name" not in raw:
            raise SnapshotError(f"{where} must be a mapping with 'name' and 'ad'", file=file)
        ad = (
            dict(raw["ad"]) if raw.get("_parsed") else _ad(raw.get("ad") or {}, f"{where}.ad", file)
        )
        state = _attr(ad, "State")
        user = None
        if state in ("Claimed", "Preempting"):
            for name in ("AccountingGroup", "RemoteUser"):
                found = _attr(ad, name)
                if isinstance(found, str):
                    user = found
                    break
        weight = _number(_attr(ad, "SlotWeight"), _number(_attr(ad, "Cpus"), 1.0))
        slots.append(_Slot(str(raw["name"]), ad, max(weight, 0.0), user))

    submitters: list[Submitter] = []
    jobs: dict[str, list[_Job]] = {}
    knobs = FactorKnobs()
    for index, raw in enumerate(document.get("submitters") or []):
        where = f"submitters[{index}]"
        if not isinstance(raw, Mapping) or "name" not in raw:
            raise SnapshotError(f"{where} must be a mapping with 'name'", file=file)
        name = str(raw["name"])
        rup = _number(raw.get("rup"), accountant.initial_rup)
        stored = raw.get("factor")
        factor = priority_factor(name, None if stored is None else float(stored), knobs, accountant)
        eup = effective_priority(rup, factor, accountant)
        mine = []
        for j, job in enumerate(raw.get("jobs") or []):
            if not isinstance(job, Mapping) or "ad" not in job:
                raise SnapshotError(f"{where}.jobs[{j}] must be a mapping with 'ad'", file=file)
            mine.append(
                _Job(
                    str(job.get("id", f"{index}.{j}")),
                    name,
                    dict(job["ad"])
                    if job.get("_parsed")
                    else _ad(job["ad"], f"{where}.jobs[{j}].ad", file),
                )
            )
        mine.sort(key=lambda jb: (-_number(_attr(jb.ad, "JobPrio"), 0.0),
                                  _number(_attr(jb.ad, "ClusterId"), 0.0),
                                  _number(_attr(jb.ad, "ProcId"), 0.0)))  # fmt: skip
        jobs[name] = mine
        submitters.append(Submitter(name, eup, 0.0, len(mine)))
    eup_of = {
        name: effective_priority(
            values["rup"],
            priority_factor(name, values["factor"], knobs, accountant),
            accountant,
        )
        for name, values in (document.get("_userprio") or {}).items()
    }
    eup_of.update({s.name: s.eup for s in submitters})
    default_eup = effective_priority(
        accountant.initial_rup, accountant.default_prio_factor, accountant
    )

    usage = dict.fromkeys(eup_of, 0.0)
    for slot in slots:
        if slot.user is not None and slot.user in usage:
            usage[slot.user] += slot.weight
    pool = (
        sum(s.weight for s in slots)
        if pie_facts.pie_of_all_slots
        else sum(s.weight for s in slots if s.user is None)
    )

    def eligible(slot: _Slot) -> bool:
        state = _attr(slot.ad, "State")
        if state in ("Claimed", "Preempting") and not consider:
            return False
        retire = _number(_attr(slot.ad, "RetirementTimeRemaining"), 0.0)
        if retire > 0 and not early and not rules.keep_retiring_slots:
            return False
        idle_claim = state == "Claimed" and _attr(slot.ad, "Activity") == "Idle"
        return not (rules.skip_claimed_idle and idle_claim)  # D8

    free = {s.name: s for s in slots if eligible(s)}  # in slot order
    for slot in free.values():  # addRemoteUserPrios: the claim holder's EUP on the slot
        if consider and slot.user is not None:
            slot.ad["RemoteUserPrio"] = eup_of.get(slot.user, default_eup)
    order = sorted(submitters, key=lambda s: (s.eup, s.name))
    matches: list[dict[str, str]] = []
    matched_jobs: set[str] = set()
    why: dict[str, dict[str, Any]] = {}
    remaining = {s.name: list(jobs[s.name]) for s in submitters}

    def _match_list(
        job: _Job, name: str, candidates: Any
    ) -> list[tuple[tuple[float, ...], _Slot, str]]:
        """`matchmakingAlgorithm` steps 1-4 and 7 for `job` over the free slots: every slot
        matching both ways with a reason, best first (ties in slot order); the submitter
        limit is checked when an entry is taken."""
        out: list[tuple[tuple[float, ...], _Slot, str]] = []
        for slot in candidates:
            if not symmetric_match(slot.ad, job.ad):
                continue
            reason = _reason(slot, job, name, consider, preemption_req, rules, eup_of, default_eup)
            if reason is None:
                continue
            ranks = (
                _rank(pre_rank, slot.ad, job.ad),
                _job_rank(job.ad, slot.ad),
                _rank(post_rank, slot.ad, job.ad),
                float(_REASON_ORDER[reason]),
                _rank(preemption_rank, slot.ad, job.ad) if reason != "no_preemption" else -FLT_MAX,
            )
            out.append((ranks, slot, reason))
        out.sort(key=lambda entry: entry[0], reverse=True)  # stable: equal keys keep order
        return out

    def negotiate_with_group(members: list[Submitter], group: str, group_quota: float) -> None:
        """`negotiateWithGroup`: pie spins over `members` with the group's limit (the
        pie is at most the limit; each slice at most what the group has left)."""
        spins = 0
        total = min(pool, group_quota)
        while free:
            asking = [s.name for s in members if remaining[s.name]]
            if not asking:
                break
            spins += 1
            group_left = group_quota - sum(usage[s.name] for s in members)
            shares = _shares({n: eup_of[n] for n in asking})

            slices = {
                n: min(max(shares[n] * total - usage[n], 0.0), max(group_left, 0.0)) for n in asking
            }
            pie_left = sum(slices.values())
            if pie_left <= 0 and not consider:
                break
            progress = False
            for name in asking:
                group_left = group_quota - sum(usage[s.name] for s in members)
                limit = min(
                    max(shares[name] * total - usage[name], 0.0),
                    max(group_left, 0.0),
                    max(pie_left, 0.0),
                )
                if spins > 1 and not pie_facts.round_up_later_spins and limit < 1:
                    continue
                used = used_unclaimed = 0.0
                rejected: set[tuple[Any, ...]] = set()
                list_key: tuple[str, tuple[Any, ...]] | None = None
                match_list: list[tuple[tuple[float, ...], _Slot, str]] = []
                for job in list(remaining[name]):
                    if not free:
                        break
                    cluster = _autocluster(job)
                    if cluster in rejected:
                        continue
                    job.ad["SubmitterUserPrio"] = eup_of[name]
                    job.ad["SubmitterUserResourcesInUse"] = usage[name]
                    job.ad["SubmitterNegotiatingGroup"] = group
                    if (name, cluster) != list_key:
                        # the match list (`MatchListType`): built once for the first job
                        # of an autocluster, sorted; the next jobs of it take the next entry
                        list_key = (name, cluster)
                        match_list = _match_list(job, name, free.values())
                    best = None
                    for entry in match_list:
                        _, slot, reason = entry
                        if slot.name not in free:
                            continue
                        cost = slot.weight
                        if reason == "priority" and not (
                            used + cost <= limit or (used == 0 and limit > 0)
                        ):
                            continue
                        if reason == "no_preemption" and not (
                            used_unclaimed + cost <= limit or (used_unclaimed == 0 and limit > 0)
                        ):
                            continue
                        best = entry
                        break
                    if best is None:
                        rejected.add(cluster)
                        continue
                    _, slot, reason = best
                    del free[slot.name]
                    remaining[name].remove(job)
                    matched_jobs.add(job.id)
                    matches.append({"job": job.id, "slot": slot.name, "reason": reason})
                    usage[name] += slot.weight
                    used += slot.weight
                    if reason == "no_preemption":
                        used_unclaimed += slot.weight
                    pie_left -= slot.weight
                    progress = True
                    if used >= limit and used_unclaimed >= limit:
                        break
            if not progress:
                break

    groups: dict[str, dict[str, Any]] = {}
    if group_names:
        groups = _group_plan(config_text, group_names, order, remaining, usage, slots, semantics)
        members_of: dict[str, list[Submitter]] = {g: [] for g in groups}
        for sub in order:
            members_of[assigned_group(sub.name, list(groups))].append(sub)
        for group in sorted(groups, key=lambda g: groups[g]["order"]):
            negotiate_with_group(members_of[group], group, float(groups[group]["limit"]))
            groups[group]["matches"] = sum(
                1 for m in matches for sub in members_of[group] if m["job"] in _ids(jobs[sub.name])
            )
    else:
        negotiate_with_group(order, "<none>", math.inf)
    unmatched = [j.id for s in order for j in jobs[s.name] if j.id not in matched_jobs]
    all_jobs = {j.id: j for s in order for j in jobs[s.name]}
    taken = {m["slot"] for m in matches}
    analysed: dict[tuple[Any, ...], dict[str, Any]] = {}  # one analysis per autocluster
    for job_id in unmatched:
        job = all_jobs[job_id]
        cluster = _autocluster(job)
        if cluster not in analysed:
            analysed[cluster] = why_unmatched(job.ad, slots, taken)
        why[job_id] = dict(analysed[cluster])
    count = {
        s.name: sum(1 for m in matches if all_jobs[m["job"]].submitter == s.name) for s in order
    }
    return Cycle(
        [s.name for s in order], matches, unmatched, count, why, groups,
        {s.name: s.ad for s in slots}, {j: job.ad for j, job in all_jobs.items()},
    )  # fmt: skip


def _ids(jobs: Sequence[_Job]) -> set[str]:
    return {j.id for j in jobs}


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


def _group_plan(
    config_text: str,
    group_names: str,
    order: Sequence[Submitter],
    remaining: Mapping[str, Sequence[_Job]],
    usage: Mapping[str, float],
    slots: Sequence[_Slot],
    semantics: str,
) -> dict[str, dict[str, Any]]:
    """The groups' quotas, allocations, first-round limits and order for this cycle
    (runtime.pool.groups): the pool is every slot's weight, a group's demand its
    submitters' usage plus idle jobs, its usage theirs (reference 2.2)."""
    from compiler.config import load_config
    from runtime.pool.groups import group_tree, quota_report

    del group_names  # the tree is read from the configuration
    tree = [
        g.name for g in group_tree(load_config(text=config_text, subsystem="NEGOTIATOR")).walk()
    ]
    demand: dict[str, float] = {}
    used: dict[str, float] = {}
    for sub in order:
        group = assigned_group(sub.name, tree)
        demand[group] = demand.get(group, 0.0) + usage[sub.name] + len(remaining[sub.name])
        used[group] = used.get(group, 0.0) + usage[sub.name]
    document = {
        "config": config_text,
        "total_slots": sum(s.weight for s in slots),
        "demand": demand,
        "usage": used,
    }
    return quota_report(document, semantics=semantics)


def _dump_path(name: Any, key: str, file: str | None) -> Path:
    if not isinstance(name, str) or not name:
        raise SnapshotError(f"{key} must name a file", file=file)
    path = Path(name)
    if not path.is_absolute() and file is not None:
        path = Path(file).parent / path
    if not path.is_file():
        raise SnapshotError(f"{key}: no such file {str(path)!r}", file=file)
    return path


def _with_dumps(document: Mapping[str, Any], file: str | None) -> dict[str, Any]:
    """`document` with its dump files read: `machines_file` (`condor_status -l` or
    `-json`: one machine per ad, named by its Name), `jobs_file` (`condor_q -l` or `-json`:
    idle jobs, JobStatus 1, grouped into submitters by AccountingGroup, else User, else
    Owner; id ClusterId.ProcId) and `userprio_file` (`condor_userprio -l`: Name,
    Priority (the RUP) and PriorityFactor, one ad per user or the old one-ad form with
    Name1, Priority1 ...). Inline `machines` and `submitters` are kept; a submitter named
    inline keeps its rup and factor."""
    from compiler.classad import load_ads

    out = {k: v for k, v in document.items() if not k.endswith("_file")}
    for key in document:
        if key.endswith("_file") and key not in ("machines_file", "jobs_file", "userprio_file"):
            raise SnapshotError(f"unknown key {key!r}", file=file)
    if "machines_file" in document:
        ads = load_ads(_dump_path(document["machines_file"], "machines_file", file))
        machines = list(out.get("machines") or [])
        for ad in ads:
            name = ad.get("Name")
            machines.append({"name": str(name), "ad": dict(ad.items()), "_parsed": True})
        out["machines"] = machines
    prio: dict[str, dict[str, float]] = {}
    if "userprio_file" in document:
        for ad in load_ads(_dump_path(document["userprio_file"], "userprio_file", file)):
            for suffix in _prio_suffixes(ad):
                name = ad.get(f"Name{suffix}")
                if isinstance(name, str):
                    prio[name] = {
                        "rup": _number(ad.get(f"Priority{suffix}"), 0.5),
                        "factor": _number(ad.get(f"PriorityFactor{suffix}"), 1.0),
                    }
    submitters = {str(s.get("name")): dict(s) for s in out.get("submitters") or []
                  if isinstance(s, Mapping)}  # fmt: skip
    for name, values in prio.items():
        if name in submitters:
            for key, value in values.items():
                submitters[name].setdefault(key, value)
    if "jobs_file" in document:
        for ad in load_ads(_dump_path(document["jobs_file"], "jobs_file", file)):
            if _number(ad.get("JobStatus"), 1.0) != 1.0:
                continue  # only idle jobs negotiate
            owner = ad.get("AccountingGroup") or ad.get("User") or ad.get("Owner")
            name = str(owner)
            entry = submitters.setdefault(name, {"name": name, **prio.get(name, {})})
            jobs = entry.setdefault("jobs", [])
            job_id = f"{ad.get('ClusterId')}.{ad.get('ProcId')}"
            jobs.append({"id": job_id, "ad": dict(ad.items()), "_parsed": True})
    if submitters or "submitters" in out:
        out["submitters"] = list(submitters.values())
    if prio:
        out["_userprio"] = prio  # every user's priority, submitting or not (RemoteUserPrio)
    return out


def _prio_suffixes(ad: Mapping[str, Any]) -> list[str]:
    """ "" for the one-ad-per-user form, "1", "2" ... for the old one big ad."""
    if "Name" in ad:
        return [""]
    return [k[4:] for k in ad if k.startswith("Name") and k[4:].isdigit()]


def _autocluster(job: _Job) -> tuple[Any, ...]:
    """The job's significant attributes (every one but its ids and the ephemeral ones):
    jobs alike here are one autocluster, skipped together after a failed match."""
    from compiler.classad import ast as A
    from compiler.classad import unparse

    return tuple(sorted(
        (k.lower(), unparse(v) if isinstance(v, A.Expr) else repr(v))
        for k, v in job.ad.items()
        if k.lower() not in NOT_SIGNIFICANT and not k.startswith("Submitter")
    ))  # fmt: skip


def _reason(
    slot: _Slot,
    job: _Job,
    submitter: str,
    consider: bool,
    preemption_req: str,
    rules: RulesFacts,
    eup_of: Mapping[str, float],
    default_eup: float,
) -> str | None:
    """matchmakingAlgorithm step 2-4: why this slot could go to this job, or None."""
    remote = None
    if consider:
        for name in (
            "PreemptingAccountingGroup",
            "PreemptingUser",
            "AccountingGroup",
            "RemoteUser",
        ):
            found = _attr(slot.ad, name)
            if isinstance(found, str):
                remote = found
                break
    if remote is None:
        return "no_preemption"
    if _true(_eval("MY.Rank > MY.CurrentRank", slot.ad, job.ad)):
        return "rank"
    if remote == submitter:
        return None
    if rules.priority_needs_better_eup and not eup_of.get(submitter, default_eup) < eup_of.get(
        remote, default_eup
    ):
        return None
    if not _true(_eval(preemption_req, slot.ad, job.ad)):
        return None
    if not _true(_eval("MY.Rank >= MY.CurrentRank", slot.ad, job.ad)):
        return None
    return "priority"


def _rank(expression: str | None, slot: Mapping[str, Any], job: Mapping[str, Any]) -> float:
    """A negotiator rank expression (MY = slot, TARGET = job); -DBL_MAX when unset or not a
    number, booleans as 1/0."""
    if not expression:
        return -math.inf
    return _number(_eval(expression, slot, job), -math.inf)


def _job_rank(job: Mapping[str, Any], slot: Mapping[str, Any]) -> float:
    """The job's Rank of the slot (0.0 when not a number; with no Rank at all, the slot's
    own Rank: EvalFloat's quirk)."""
    from compiler.classad import UNDEFINED

    if _attr(job, "Rank") is UNDEFINED and not any(k.lower() == "rank" for k in job):
        return _number(_eval("MY.Rank", slot, job), 0.0)
    return _number(_eval("MY.Rank", job, slot), 0.0)


def why_unmatched(
    job: Mapping[str, Any], slots: Sequence[_Slot], taken: set[str]
) -> dict[str, Any]:
    """Like `condor_q -better-analyze`, from the snapshot: for each top-level clause of
    the job's Requirements how many slots it rejects, how many slots refuse the job by
    their own Requirements, how many match both ways but were busy or taken this cycle."""
    from compiler.classad import requirements_met, unparse

    clauses = _conjuncts(job)
    rejected_by_job = sum(1 for s in slots if not requirements_met(job, s.ad))
    refused_by_slot = sum(1 for s in slots if not requirements_met(s.ad, job))
    both = [s for s in slots if requirements_met(job, s.ad) and requirements_met(s.ad, job)]
    per_clause = {}
    for clause in clauses:
        per_clause[unparse(clause)] = sum(1 for s in slots if not _true(_eval(clause, job, s.ad)))
    return {
        "slots": len(slots),
        "rejected_by_job_requirements": rejected_by_job,
        "clauses": per_clause,
        "rejected_by_slot_requirements": refused_by_slot,
        "matching_both_ways": len(both),
        "matched_to_others_this_cycle": sum(1 for s in both if s.name in taken),
        "busy_not_preemptable": sum(1 for s in both if s.name not in taken and s.user is not None),
    }


def _conjuncts(job: Mapping[str, Any]) -> list[Any]:
    """The top-level `&&` clauses of the job's Requirements."""
    from compiler.classad import ast as A

    expr = next((v for k, v in job.items() if k.lower() == "requirements"), None)
    if expr is None or not isinstance(expr, A.Expr):
        return []
    out: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, A.Binary) and node.op == "&&":
            walk(node.left)
            walk(node.right)
        else:
            out.append(node)

    walk(expr)
    return out


# ---- the matched slots' own compiled tables --------------------------------------------


def _literal(ad: Mapping[str, Any], name: str, other: Mapping[str, Any] | None) -> Any:
    """The value of `name` in `ad` when it is a plain value (UNDEFINED, ERROR, lists and
    ads are left out: a trace holds plain values)."""
    value = _eval(name, ad, other)
    return value if isinstance(value, bool | int | float | str) else None


def drive_match(
    table: Any, slot_ad: Mapping[str, Any], job_ad: Mapping[str, Any], reason: str
) -> list[Any]:
    """What the matched slot's own compiled table does with the match (issue 14: the
    startd side still comes from the slot runtime): an idle slot is matched, claimed and
    activated; a RANK or priority match reaches a claimed slot running its user's job as a
    preempting claim (the old job then exits when the startd vacates it). Returns the
    transitions the slot fires from the match on (runtime `Fired` records)."""
    from runtime.trace import Step, Trace, replay

    machine = {
        name: value
        for name in slot_ad
        if name not in ("State", "Activity", "Requirements", "START", "Rank", "CurrentRank")
        and (value := _literal(slot_ad, name, None)) is not None
    }  # fmt: skip
    job = {
        name: value
        for name in job_ad
        if not name.startswith("Submitter")
        and (value := _literal(job_ad, name, slot_ad)) is not None
    }
    steps: list[Step] = [Step(0, "tick"), Step(0, "event", "benchmarks_done")]
    if reason == "no_preemption":
        steps += [Step(10, "event", "match", job=job), Step(10, "event", "claim", job=job),
                  Step(11, "event", "activate")]  # fmt: skip
        start = 10.0
    else:
        user = _literal(slot_ad, "RemoteUser", None) or "someone@example.com"
        running = {"Owner": str(user).partition("@")[0], "JobUniverse": 5}
        steps += [Step(1, "event", "match", job=running), Step(1, "event", "claim", job=running),
                  Step(2, "event", "activate"),
                  Step(10, "event", "preempting_claim", job=job),
                  Step(20, "event", "starter_exit"), Step(21, "event", "activate")]  # fmt: skip
        start = 10.0
    trace = Trace(
        file="<negotiate>",
        steps=tuple(steps),
        era=table.era,
        semantics=table.semantics,
        machine=machine,
        config={"RunBenchmarks": "False"},
        polling="explicit",
    )
    slot: Any = replay(trace, table, until=60)
    return [f for f in slot.fired if f.t >= start]
