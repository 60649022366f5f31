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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np

from compiler import yamlcache
from compiler.classad import UNDEFINED, ClassAd, evaluate, parse
from compiler.classad import ast as A
from compiler.errors import PolicyError
from compiler.spec import CLAIM_STATES
from runtime.pool.groups import assigned_group
from runtime.pool.matchlist import REMOTE_USER_ATTRIBUTES, MatchRules, Pool, remote_user


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
    ranks_as_float32: bool
    remote_prio_float32: bool
    resources_in_use_weighted: bool
    group_quota_real: bool
    cross_slot_prios: str


#: The negotiator's expression knobs it parses when it (re)reads its configuration: one
#: that does not parse stops it (matchmaker.cpp `Matchmaker::reinitialize`: EXCEPT
#: "Error parsing PREEMPTION_REQUIREMENTS expression")
EXPRESSION_KNOBS: Final = (
    "PREEMPTION_REQUIREMENTS",
    "PREEMPTION_RANK",
    "NEGOTIATOR_PRE_JOB_RANK",
    "NEGOTIATOR_POST_JOB_RANK",
)


def check_expressions(config: Any) -> None:
    """A PolicyError at the definition of the first of `EXPRESSION_KNOBS` set in the
    negotiator's `config` (a `compiler.config.Config`) that is not a ClassAd expression,
    as the negotiator refuses it when it starts, not at the cycle that first reads it.
    An empty value is no value (`param` gives none)."""
    for name in EXPRESSION_KNOBS:
        definition = config.definition(name)
        text = config.get(name) if definition is not None else None
        if not text or not text.strip():
            continue
        try:
            parse(text)
        except PolicyError as err:
            origin = definition.origin
            raise PolicyError(
                f"{name} is not a valid ClassAd expression: {err.message} (the real "
                f"condor_negotiator refuses to start: 'Error parsing {name} expression')",
                file=origin.file,
                line=origin.line or None,
                column=(origin.value_column or origin.column) if origin.line else None,
            ) from None


@cache
def rules_facts(semantics: str) -> RulesFacts:
    entry = yamlcache.spec_entry("pool.yaml", "negotiation", semantics, "semantics for negotiation")
    return RulesFacts(
        str(entry["preemption_requirements"]),
        bool(entry["priority_needs_better_eup"]),
        bool(entry["keep_retiring_slots"]),
        bool(entry["skip_claimed_idle"]),
        bool(entry["ranks_as_float32"]),
        bool(entry["remote_prio_float32"]),
        bool(entry["resources_in_use_weighted"]),
        bool(entry["group_quota_real"]),
        str(entry["cross_slot_prios"]),
    )


@dataclass
class _Slot:
    name: str
    ad: dict[str, Any] | ClassAd
    weight: float
    user: str | None  # who holds the claim (charged), None when unclaimed
    state: Any = UNDEFINED
    activity: Any = UNDEFINED
    #: the claim's holder as the matchmaker sees it (`matchlist.remote_user`)
    remote: str | None = None


class _Job:
    """A job of the cycle: its id, submitter and ad, the schedd's order (JobPrio higher
    first, ClusterId, ProcId) and its autocluster. A plain class with slots: a cycle of
    the simulator's week makes one for each of tens of thousands of offered jobs."""

    __slots__ = ("ad", "cluster", "id", "order", "own", "submitter")

    def __init__(
        self,
        id: str,
        submitter: str,
        ad: dict[str, Any],
        keys: tuple[tuple[float, float, float], tuple[Any, ...]] | None = None,
        own: bool = True,
    ) -> None:
        self.id = id
        self.submitter = submitter
        self.ad = ad
        #: `ad` is the cycle's own (else the caller's: copied before the cycle writes to it)
        self.own = own
        self.order, self.cluster = job_keys(ad) if keys is None else keys


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
    if isinstance(raw, bool | int | float):
        return raw
    if not isinstance(raw, str):
        raise SnapshotError(f"{where} must be ClassAd source text", file=file)
    try:
        return parse(raw)
    except PolicyError as err:
        raise SnapshotError(f"{where}: {err.message}", file=file) from None


def _ad(raw: Any, where: str, file: str | None, memo: dict[str, Any]) -> dict[str, Any]:
    """An inline ad, its texts parsed once per snapshot (`memo`: text -> expression; the
    ads then share their expressions, which the columns and autoclusters group by)."""
    if not isinstance(raw, Mapping):
        raise SnapshotError(f"{where} must map attribute names to ClassAd text", file=file)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        t = type(value)
        if t is str:
            found = memo.get(value)
            if found is None:
                found = memo[value] = _value(value, f"{where}.{key}", file)
            out[str(key)] = found
        elif t is int or t is float or t is bool:
            out[str(key)] = value
        else:
            out[str(key)] = _value(value, f"{where}.{key}", file)
    return out


def _eval(text_or_expr: Any, my: Mapping[str, Any], target: Mapping[str, Any] | None) -> Any:
    expr = parse(text_or_expr) if isinstance(text_or_expr, str) else text_or_expr
    return evaluate(expr, my, target)


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and not math.isnan(value):
        return float(value)
    return default


def _attr(ad: Mapping[str, Any], name: str) -> Any:
    """The value of attribute `name` of `ad` alone (a stored plain value as it is)."""
    if type(ad) is ClassAd:
        raw = ad.lowered().get(name.lower())
        if raw is None:
            return UNDEFINED
        t = type(raw)
        if t is str or t is int or t is float or t is bool:  # `_stored_value`'s first case
            return raw
        return _stored_value(ad, name, raw)
    raw = ad.get(name)
    if raw is not None:  # spelled as asked (the usual case): no scan
        return _stored_value(ad, name, raw)
    lowered = name.lower()
    size = len(name)
    for key, raw in ad.items():
        if len(key) == size and key.lower() == lowered:
            return _stored_value(ad, key, raw)
    return UNDEFINED


def _stored_value(ad: Mapping[str, Any], key: str, raw: Any) -> Any:
    """The value of `ad`'s attribute `key`, stored as `raw`."""
    if type(raw) in (int, float, str, bool):
        return raw
    if isinstance(raw, A.Integer | A.Real | A.String | A.Boolean):
        return raw.value
    return _eval(key, ad, None)


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    """What a cycle reads of a slot alone to count it (`claim_facts`)."""

    state: Any
    #: the activity of a Claimed slot (UNDEFINED in any other state)
    activity: Any
    #: who is charged for the claim (AccountingGroup, else RemoteUser; None: unclaimed)
    user: str | None
    weight: float


def claim_facts(ad: Mapping[str, Any]) -> ClaimFacts:
    """The slot's state, claim holder and weight (SlotWeight, else Cpus), each read once."""
    state = _attr(ad, "State")
    user = None
    if state in CLAIM_STATES:
        for name in ("AccountingGroup", "RemoteUser"):
            found = _attr(ad, name)
            if isinstance(found, str):
                user = found
                break
    weight = _number(_attr(ad, "SlotWeight"), math.nan)
    if math.isnan(weight):
        weight = _number(_attr(ad, "Cpus"), 1.0)
    activity = _attr(ad, "Activity") if state == "Claimed" else UNDEFINED
    return ClaimFacts(state, activity, user, max(weight, 0.0))


#: What a cycle reads of a claimed slot alone, besides matching it against jobs: its
#: `claim_facts`, `remote_user`, the ranks of `HeldSlot`, and two names that must be
#: missing for `HeldSlot` (a PreemptingRank replaces CurrentRank; a SubmitterUserPrio
#: of the slot would shadow the job's in PREEMPTION_REQUIREMENTS).
SLOT_ALONE = (
    "State", "Activity", "AccountingGroup", "RemoteUser", "SlotWeight", "Cpus",
    *REMOTE_USER_ATTRIBUTES[:2], "Rank", "CurrentRank", "PreemptingRank", "SubmitterUserPrio",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class HeldSlot:
    """A claimed slot handed to `negotiate_snapshot` by what the cycle reads of it alone
    (SLOT_ALONE), so that a cycle that proves no job can take it this time does without
    its ad: the simulator's slots that only the clock moved since their ad was last built
    (runtime.simulate). The caller vouches that these are the values the ad `ad()` gives
    now, that `rank` (MY.Rank) reads nothing, and that the ad has no PreemptingRank and
    no SubmitterUserPrio.

    Ruled out (`_Reach`): preemption not considered; or no RANK preemption (MY.Rank
    > MY.CurrentRank is not TRUE) and, for every submitter of the cycle, no priority
    preemption (it holds the claim; or, where the semantics asks it, its EUP is not the
    better; or MY.Rank >= MY.CurrentRank is not TRUE; or PREEMPTION_REQUIREMENTS, when it
    reads RemoteUserPrio and SubmitterUserPrio only, is not TRUE for the two). A slot
    ruled out is counted (its claim's usage, its weight in the pie and the group
    allocations) and is no row of the match lists: the `Cycle`'s machine ads are the
    others'. With `explain` every held slot gets its ad (the analysis reads them all)."""

    facts: ClaimFacts
    holder: str | None
    rank: Any
    current_rank: Any
    ad: Callable[[], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class UnmatchableSlot:
    """A slot handed to `negotiate_snapshot` as one no job can match this cycle: its
    Requirements reads nothing of a job (`runtime.slot_ad.reads_no_target`) and is not
    TRUE now, so it is in no match list whatever the jobs (the simulator's Owner slots,
    whose START is false while their owner is there: building their ads for every cycle
    was a fifth of a cycle in office hours). The caller vouches for that and that
    `facts` are the values the ad `ad()` gives now. The slot is counted (its weight in
    the pie and the group allocations, unclaimed or claimed as `facts` say) and is no
    row of the match lists; with `explain` its ad is built (the analysis reads them
    all)."""

    facts: ClaimFacts
    ad: Callable[[], Mapping[str, Any]]


@runtime_checkable
class JobQueue(Protocol):
    """A submitter's idle jobs handed to `negotiate_snapshot` (the `jobs` of a submitter
    entry) by a caller that keeps them in a queue (the simulator's schedd: late in a
    simulated week tens of thousands per submitter, asked for by every cycle).

    `len` is how many there are (the submitter's demand in the group allocations).
    `first(count)` gives parsed job entries (`"_parsed": True` with their `_keys`, in any
    order: the cycle sorts them) holding at least the first `count` jobs of each
    autocluster in the schedd's order. A cycle that may match F slots asks for F: it
    matches at most F jobs, and of one autocluster it takes the first ones, in order,
    until one is refused, then skips the others (`negotiate_with_group`), so no job after
    the F-th of its autocluster is ever matched. The jobs it did not ask for are in no
    list of the `Cycle` (its unmatched jobs and job ads are those it asked for); with
    `explain` it asks for all."""

    def __len__(self) -> int: ...

    def first(self, count: int) -> Sequence[Mapping[str, Any]]: ...


#: `Pool.match_list`'s two rank tests of a claimed slot (RANK preemption; priority
#: preemption's condition), asked of a held slot's two ranks alone
_RANK_PREEMPTS = parse("MY.Rank > MY.CurrentRank")
_RANK_ALLOWS = parse("MY.Rank >= MY.CurrentRank")

#: Builtins of PREEMPTION_REQUIREMENTS that `_priority_test` may evaluate apart (no
#: clock, no chance, no attribute named by a value).
_STEADY_CALLS = frozenset(
    ["ifthenelse", "isundefined", "iserror", "isreal", "isinteger", "isboolean", "isstring",
     "int", "real", "floor", "ceiling", "round", "abs", "min", "max", "pow"]
)  # fmt: skip


@lru_cache(maxsize=32)
def _priority_test(text: str) -> Callable[[float, float], bool] | None:
    """PREEMPTION_REQUIREMENTS as a test of (the slot's RemoteUserPrio, the job's
    SubmitterUserPrio) when it reads these two and nothing else (MY.RemoteUserPrio or
    unscoped; TARGET.SubmitterUserPrio or unscoped: the slot has none, `HeldSlot`), else
    None (also when it does not parse: the match lists say so, as before)."""
    try:
        expr = parse(text)
    except PolicyError:
        return None
    for node in A.walk(expr):
        if isinstance(node, A.AttrRef):
            if node.key == "remoteuserprio" and node.scope in (None, "MY"):
                continue
            if node.key == "submitteruserprio" and node.scope in (None, "TARGET"):
                continue
            return None
        if isinstance(node, A.Call) and node.key not in _STEADY_CALLS:
            return None
        if isinstance(node, A.Select | A.Subscript | A.ListExpr | A.RecordExpr):
            return None

    def test(remote: float, submitter: float) -> bool:
        my = ClassAd({"RemoteUserPrio": remote})
        return evaluate(expr, my, ClassAd({"SubmitterUserPrio": submitter})) is True

    return test


def _remote_prio(eup: float, rules: RulesFacts) -> float:
    """RemoteUserPrio as the negotiator publishes it (`(float) GetPriority` in the code)."""
    return float(np.float32(eup)) if rules.remote_prio_float32 else eup


def negotiate_snapshot(
    document: Any,
    *,
    semantics: str,
    file: str | None = None,
    pool_class: type[Pool] = Pool,
    explain: bool = True,
) -> Cycle:
    """One negotiation cycle over a SNAPSHOT (reference/pool.md section 3; with
    GROUP_NAMES group by group, 2.7). `pool_class`: what builds the match lists (tests
    pass a slot-by-slot reference); `explain=False`: `why_unmatched` left empty (the
    simulator reads only the matches, a cycle of every few minutes).

    Callers in this process may hand over ads already parsed: a machine or job entry
    with `"_parsed": True` holds a ClassAd or a mapping of values and expressions (not
    ClassAd text), copied before the cycle writes into it (a job's only when it is
    offered a match); such a job entry may also carry `"_keys"`, its `job_keys` (the
    simulator keeps them while the job lives: a job is offered to hundreds of cycles).
    A submitter's `jobs` may also be a `JobQueue`, asked only for those a cycle can
    match (the simulator's queues). A machine entry may be `{"name": ..., "_held": ...}` with a `HeldSlot` or an
    `UnmatchableSlot` instead of the ad. `"_config"` may hold the `Config` that `config`'s
    text loads to (`load_config(text=..., subsystem="NEGOTIATOR")`), loaded once by the
    caller: the simulator's negotiator reads the same text every cycle."""
    from compiler.config import load_config
    from runtime.pool.accountant import FactorKnobs, effective_priority, facts, priority_factor

    if not isinstance(document, Mapping):
        raise SnapshotError("a SNAPSHOT must be a mapping with machines and submitters", file=file)
    document = _with_dumps(document, file)
    unknown = sorted(set(document) - {"config", "machines", "submitters", "_userprio", "_config"})
    if unknown:
        raise SnapshotError(f"unknown key {unknown[0]!r}", file=file)
    config = document.get("_config")
    if config is None:  # (one handed over was checked by the caller)
        config = load_config(text=str(document.get("config") or ""), subsystem="NEGOTIATOR")
        check_expressions(config)
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

    memo: dict[str, Any] = {}
    # the slots in order; a held one (`HeldSlot`) is ruled out or given its ad below, an
    # unmatchable one (`UnmatchableSlot`) counted
    entries: list[_Slot | tuple[str, HeldSlot | UnmatchableSlot]] = []
    for index, raw in enumerate(document.get("machines") or []):
        if (type(raw) is not dict and not isinstance(raw, Mapping)) or "name" not in raw:
            raise SnapshotError(
                f"machines[{index}] must be a mapping with 'name' and 'ad'", file=file
            )
        lazy = raw.get("_held")
        if type(lazy) is HeldSlot or type(lazy) is UnmatchableSlot:
            entries.append((str(raw["name"]), lazy))
            continue
        ad = (
            _own(raw["ad"])
            if raw.get("_parsed")
            else _ad(raw.get("ad") or {}, f"machines[{index}].ad", file, memo)
        )
        entries.append(_counted(str(raw["name"]), ad))

    submitters: list[Submitter] = []
    jobs: dict[str, list[_Job]] = {}
    queued: dict[str, tuple[int, JobQueue]] = {}
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
        listed = raw.get("jobs") or []
        if isinstance(listed, JobQueue):
            # asked below for as many of each autocluster as the cycle can match
            queued[name] = (index, listed)
            submitters.append(Submitter(name, eup, 0.0, len(listed)))
            continue
        jobs[name] = _made_jobs(index, name, listed, file, memo)
        submitters.append(Submitter(name, eup, 0.0, len(jobs[name])))
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

    # the slots a job may get, in order (the match lists' rows), and the held slots the
    # cycle proves no job can take: counted (their claims, their weight), in no row
    slots: list[_Slot] = []
    counted: list[ClaimFacts] = []
    reach = None
    for entry in entries:
        if isinstance(entry, _Slot):
            slots.append(entry)
            continue
        name, lazy = entry
        if isinstance(lazy, UnmatchableSlot):
            if explain:
                slots.append(_counted(name, _own(lazy.ad())))
            else:
                counted.append(lazy.facts)
            continue
        if reach is None:
            test = _priority_test(preemption_req) if consider else None
            reach = _Reach(consider, rules, eup_of, default_eup, submitters, test)
        if explain or reach(lazy):
            slots.append(_counted(name, _own(lazy.ad())))
        else:
            counted.append(lazy.facts)

    # every slot's claim holder and weight, the counted ones too, summed in slot order:
    # the whole pool, the unclaimed slots, each holder's weight and claims
    whole = unclaimed = 0.0
    held_by: dict[str, list[float]] = {}
    for user, weight in chain(map(_HOLDER_WEIGHT, slots), map(_HOLDER_WEIGHT, counted)):
        whole += weight
        if user is None:
            unclaimed += weight
        elif user in held_by:
            held_by[user][0] += weight
            held_by[user][1] += 1
        else:
            held_by[user] = [weight, 1]
    usage = dict.fromkeys(eup_of, 0.0)
    for user, (weight, _) in held_by.items():
        if user in usage:
            usage[user] += weight
    pool = whole if pie_facts.pie_of_all_slots else unclaimed

    def eligible(slot: _Slot) -> bool:
        state = slot.state
        if state in CLAIM_STATES and not consider:
            return False
        if not early and not rules.keep_retiring_slots:
            retire = _number(_attr(slot.ad, "RetirementTimeRemaining"), 0.0)
            if retire > 0:
                return False
        idle_claim = state == "Claimed" and slot.activity == "Idle"
        return not (rules.skip_claimed_idle and idle_claim)  # D8

    free = {s.name: s for s in slots if eligible(s)}  # in slot order
    for name, (index, queue) in queued.items():
        asked = len(queue) if explain else len(free)
        jobs[name] = _made_jobs(index, name, queue.first(asked), file, memo) if asked else []
    order = sorted(submitters, key=lambda s: (s.eup, s.name))
    remaining = {s.name: list(jobs[s.name]) for s in submitters}
    groups: dict[str, dict[str, Any]] = {}
    members_of: dict[str, list[Submitter]] = {}
    allocation = None
    if group_names:
        allocation = _allocation(config, order, usage, whole, semantics)
        first_round = allocation.plan()
        groups = allocation.report()
        members_of = {g: [] for g in groups}
        for sub in order:
            members_of[assigned_group(sub.name, list(groups))].append(sub)
    # what a claim holder uses now: weighted (D14, the code) and in slots (the seed)
    in_use = {user: weight for user, (weight, _) in held_by.items()}
    claims = {user: int(count) for user, (_, count) in held_by.items()}

    def resources_in_use(user: str) -> float | int:
        """`...ResourcesInUse` of `user` (D14): weighted in the code, slots in the seed."""
        if rules.resources_in_use_weighted:
            return in_use.get(user, 0.0)
        return claims.get(user, 0)

    def group_info(user: str) -> tuple[str, float | int, float | int] | None:
        """`getGroupInfoFromUserId`: (group, its usage, its quota) under HGQ, else None."""
        if not groups:
            return None
        group = assigned_group(user, list(groups))
        used: float | int = sum(resources_in_use(m.name) for m in members_of.get(group, []))
        quota = groups[group]["quota"]
        return group, used, quota if rules.group_quota_real else int(quota)

    cross_slot = rules.cross_slot_prios == "always" or (
        (knob("NEGOTIATOR_CROSS_SLOT_PRIOS", "False") or "").strip().lower() == "true"
    )
    prefix = knob("STARTD_RESOURCE_PREFIX", "slot") or "slot"
    if consider:  # addRemoteUserPrios, on the slots left after trimming
        for slot in free.values():
            slot.remote = _add_remote_user_prios(
                slot.ad, "", eup_of, default_eup, rules, resources_in_use, group_info
            )
            preempting = _attr(slot.ad, "PreemptingRank")
            if preempting is not UNDEFINED:
                slot.ad["CurrentRank"] = preempting
            if not cross_slot:
                continue
            total = _attr(slot.ad, "TotalSlots")
            for n in range(1, int(total) + 1 if type(total) is int else 1):
                _add_remote_user_prios(
                    slot.ad, f"{prefix}{n}_", eup_of, default_eup, rules, resources_in_use,
                    group_info,
                )  # fmt: skip
    match_rules = MatchRules(
        consider, preemption_req, rules.priority_needs_better_eup, rules.ranks_as_float32,
        pre_rank, post_rank, preemption_rank,
    )  # fmt: skip
    pool_ads = pool_class(
        [s.ad for s in slots], match_rules, eup_of, default_eup,
        # the remote users read above (of the slots left; the others are never offered)
        [s.remote for s in slots] if consider else None,
    )  # fmt: skip
    row_of = {s.name: row for row, s in enumerate(slots)}
    free_rows = np.zeros(len(slots), dtype=bool)
    free_rows[[row_of[name] for name in free]] = True
    matches: list[dict[str, str]] = []
    #: the matched jobs by id
    matched_jobs: dict[str, _Job] = {}
    why: dict[str, dict[str, Any]] = {}

    at_start = dict(usage)

    def charged(name: str) -> float:
        """What a submitter's slice is reduced by (D16): everything it uses in the code
        (the pie is every slot), what it got this cycle in the seed (the pie is what is
        available now)."""
        return usage[name] - (0.0 if pie_facts.pie_of_all_slots else at_start[name])

    def negotiate_with_group(
        members: list[Submitter], group: str, group_quota: float, autoregroup: bool = False
    ) -> None:
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
                n: min(max(shares[n] * total - charged(n), 0.0), max(group_left, 0.0))
                for n in asking
            }
            pie_left = sum(slices.values())
            if pie_left <= 0 and not consider:
                break
            progress = False
            for name in asking:
                group_left = group_quota - sum(usage[s.name] for s in members)
                limit = min(
                    max(shares[name] * total - charged(name), 0.0),
                    max(group_left, 0.0),
                    max(pie_left, 0.0),
                )
                if spins > 1 and not pie_facts.round_up_later_spins and limit < 1:
                    continue
                used = used_unclaimed = 0.0
                rejected: set[tuple[Any, ...]] = set()
                # the same by identity: jobs of one autocluster often share its key
                # object, and a key is a long tuple to hash again for every job
                rejected_ids: set[int] = set()
                list_key: tuple[Any, ...] | None = None
                match_list: list[tuple[int, str]] = []
                position = 0
                taken: set[str] = set()
                for job in remaining[name]:
                    if not free:
                        break
                    cluster = job.cluster
                    if id(cluster) in rejected_ids:
                        continue
                    if cluster in rejected:
                        rejected_ids.add(id(cluster))  # (alive: its job holds it)
                        continue
                    if not job.own:
                        job.ad, job.own = dict(job.ad), True
                    _submitter_attributes(
                        job.ad, name, eup_of[name], resources_in_use(name), group,
                        autoregroup, group_info(name),
                    )  # fmt: skip
                    if cluster != list_key:
                        # the match list (`MatchListType`): built once for the first job
                        # of an autocluster, sorted; the next jobs of it take the next entry
                        list_key = cluster
                        match_list = pool_ads.match_list(job.ad, name, free_rows)
                        position = 0
                    best = None
                    while position < len(match_list):
                        row, reason = match_list[position]
                        position += 1
                        if not free_rows[row]:
                            continue
                        cost = slots[row].weight
                        if reason == "priority" and not (
                            used + cost <= limit or (used == 0 and limit > 0)
                        ):
                            continue
                        if reason == "no_preemption" and not (
                            used_unclaimed + cost <= limit or (used_unclaimed == 0 and limit > 0)
                        ):
                            continue
                        best = (row, reason)
                        break
                    if best is None:
                        rejected.add(cluster)
                        rejected_ids.add(id(cluster))
                        continue
                    row, reason = best
                    slot = slots[row]
                    del free[slot.name]
                    free_rows[row] = False
                    taken.add(job.id)
                    matched_jobs[job.id] = job
                    matches.append({"job": job.id, "slot": slot.name, "reason": reason})
                    usage[name] += slot.weight
                    in_use[name] = in_use.get(name, 0.0) + slot.weight
                    claims[name] = claims.get(name, 0) + 1
                    used += slot.weight
                    if reason == "no_preemption":
                        used_unclaimed += slot.weight
                    pie_left -= slot.weight
                    progress = True
                    if used >= limit and used_unclaimed >= limit:
                        break
                if taken:
                    remaining[name] = [j for j in remaining[name] if j.id not in taken]
            if not progress:
                break

    def negotiate_group_by_group(allocation: Any, in_order: list[Any]) -> None:
        """`hgq_negotiate_with_all_groups` (2.7): each round the groups in order, each
        with its limit, skipping a group with nothing allocated, nothing to ask for, or
        (without preemption) already at its allocation; the rounds go on while a group
        got less than its allocation. In autoregroup mode the root negotiates last for
        the whole pool, with the autoregrouped groups' submitters after its own."""
        root = allocation.root
        while True:
            for group in in_order:
                members = list(members_of[group.name])
                regroup = root.autoregroup and group is root
                if regroup:
                    members += [m for g in allocation.groups if g is not root and g.autoregroup
                                for m in members_of[g.name]]  # fmt: skip
                if group.allocated <= 0 or not members:
                    continue
                if group.usage >= group.allocated and not consider:
                    continue
                limit = allocation.limits[group.name]
                groups[group.name].setdefault("limits", []).append(limit)
                negotiate_with_group(members, group.name, float(limit), regroup)
            used = {g: sum(usage[m.name] for m in members_of[g]) for g in members_of}
            if not allocation.settle(used):
                break
            in_order = allocation.plan()

    if allocation is not None:
        negotiate_group_by_group(allocation, first_round)
        for group in groups:
            ids = {j.id for sub in members_of[group] for j in jobs[sub.name]}
            groups[group]["matches"] = sum(1 for m in matches if m["job"] in ids)
            groups[group].setdefault("limits", [])
    else:
        negotiate_with_group(order, "<none>", math.inf)
    unmatched = [j.id for s in order for j in jobs[s.name] if j.id not in matched_jobs]
    all_jobs = {j.id: j for s in order for j in jobs[s.name]} if explain else {}
    taken = np.zeros(len(slots), dtype=bool)
    taken[[row_of[m["slot"]] for m in matches]] = True
    holders = np.array([s.user is not None for s in slots], dtype=bool)
    analysed: dict[tuple[Any, ...], dict[str, Any]] = {}  # one analysis per autocluster
    for job_id in unmatched if explain else ():
        cluster = all_jobs[job_id].cluster
        if cluster not in analysed:
            analysed[cluster] = why_unmatched(all_jobs[job_id].ad, pool_ads, holders, taken)
        why[job_id] = dict(analysed[cluster])
    count = dict.fromkeys((s.name for s in order), 0)
    for m in matches:
        count[matched_jobs[m["job"]].submitter] += 1
    return Cycle(
        [s.name for s in order], matches, unmatched, count, why, groups,
        {s.name: s.ad for s in slots},
        {j.id: j.ad for s in order for j in jobs[s.name]},
    )  # fmt: skip


#: A slot's claim holder and weight (`_Slot` and `ClaimFacts` alike)
_HOLDER_WEIGHT = attrgetter("user", "weight")


def _own(ad: Mapping[str, Any]) -> dict[str, Any] | ClassAd:
    """The cycle's own copy of a caller's parsed ad (the cycle writes into it)."""
    return ad.copy() if type(ad) is ClassAd else dict(ad)


def _counted(name: str, ad: dict[str, Any] | ClassAd) -> _Slot:
    facts = claim_facts(ad)
    return _Slot(name, ad, facts.weight, facts.user, facts.state, facts.activity)


@dataclass
class _Reach:
    """Whether a job of this cycle might take a held slot (`HeldSlot`; the reasons of
    `Pool.match_list`, asked without the slot's ad): False only when proved. The answers
    are kept for the cycle, by the slot's two ranks and by the claim's holder (a pool's
    slots share a few of each)."""

    consider: bool
    rules: RulesFacts
    eup_of: Mapping[str, float]
    default_eup: float
    submitters: Sequence[Submitter]
    priority_test: Callable[[float, float], bool] | None
    ranks: dict[tuple[Any, Any], tuple[bool, bool]] = field(default_factory=dict)
    holders: dict[str, bool] = field(default_factory=dict)

    def __call__(self, held: HeldSlot) -> bool:
        if held.facts.state not in CLAIM_STATES:
            return True
        if not self.consider:
            return False  # `eligible` keeps no claimed slot
        if held.holder is None:
            return True  # the matchmaker would see it unclaimed
        key = (held.rank, held.current_rank)
        if key not in self.ranks:
            self.ranks[key] = self._rank_tests(held)
        preempts, allows = self.ranks[key]
        if preempts:
            return True
        if not allows:
            return False
        if held.holder not in self.holders:
            self.holders[held.holder] = self._priority_preempts(held.holder)
        return self.holders[held.holder]

    @staticmethod
    def _rank_tests(held: HeldSlot) -> tuple[bool, bool]:
        """(RANK preemption, priority preemption's rank condition) of the two ranks."""
        given = (("Rank", held.rank), ("CurrentRank", held.current_rank))
        ranks = ClassAd({name: value for name, value in given if value is not None})
        return (
            evaluate(_RANK_PREEMPTS, ranks, None) is True,
            evaluate(_RANK_ALLOWS, ranks, None) is True,
        )

    def _priority_preempts(self, holder: str) -> bool:
        """Whether a submitter of the cycle may preempt `holder`'s claim by priority."""
        remote_eup = self.eup_of.get(holder, self.default_eup)
        for sub in self.submitters:
            if sub.name == holder:
                continue
            if self.rules.priority_needs_better_eup and not sub.eup < remote_eup:
                continue
            test = self.priority_test
            if test is None or test(_remote_prio(remote_eup, self.rules), sub.eup):
                return True
        return False


def _add_remote_user_prios(
    ad: dict[str, Any] | ClassAd,
    prefix: str,
    eup_of: Mapping[str, float],
    default_eup: float,
    rules: RulesFacts,
    resources_in_use: Any,
    group_info: Any,
) -> str | None:
    """`Matchmaker::addRemoteUserPrios` for the claim `prefix` names (`""`: the slot's own,
    `slot<N>_`: a sibling's the startd publishes): the claim holder's EUP (rounded to
    single precision in the code: `(float) GetPriority`), its usage, and under HGQ its
    group, the group's usage and quota (pool.md 3.8, 2.8). The usage figures are those
    at the start of the cycle (the daemon's `ResourcesInUseByUser(...)` is re-evaluated
    when read). Returns the claim's holder (None: unclaimed)."""
    user = remote_user(ad, prefix)
    if user is None:
        return None
    ad[prefix + "RemoteUserPrio"] = _remote_prio(eup_of.get(user, default_eup), rules)
    ad[prefix + "RemoteUserResourcesInUse"] = resources_in_use(user)
    info = group_info(user)
    if info is not None:
        ad[prefix + "RemoteGroup"], ad[prefix + "RemoteGroupResourcesInUse"] = info[0], info[1]
        ad[prefix + "RemoteGroupQuota"] = info[2]
    return user


def _submitter_attributes(
    ad: dict[str, Any],
    name: str,
    eup: float,
    in_use: float | int,
    group: str,
    autoregroup: bool,
    info: tuple[str, float | int, float | int] | None,
) -> None:
    """The request's ephemeral attributes before each matchmaking (pool.md 3.8, 2.8)."""
    ad["SubmitterUserPrio"] = ad["SubmittorPrio"] = eup
    ad["SubmitterUserResourcesInUse"] = in_use
    ad["SubmitterNegotiatingGroup"] = group
    ad["SubmitterAutoregroup"] = autoregroup
    if info is not None:
        ad["SubmitterGroup"], ad["SubmitterGroupResourcesInUse"] = info[0], info[1]
        ad["SubmitterGroupQuota"] = info[2]


def _allocation(
    config: Any,
    order: Sequence[Submitter],
    usage: Mapping[str, float],
    total: float,
    semantics: str,
) -> Any:
    """The groups' allocation rounds for this cycle (runtime.pool.groups.Allocation): the
    pool is every slot's weight (`total`), a group's demand its submitters' usage plus
    idle jobs (`Submitter.idle_jobs`: also those a `JobQueue` was not asked for), its
    usage theirs (reference 2.2)."""
    from runtime.pool.groups import submitters_allocation

    submitters = [(sub.name, usage[sub.name], sub.idle_jobs) for sub in order]
    return submitters_allocation(config, submitters, total, semantics=semantics)[0]


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


_JOB_ORDER = {"jobprio": 0, "clusterid": 1, "procid": 2}


_ORDER: Final = attrgetter("order")


def _made_jobs(
    index: int, name: str, listed: Sequence[Any], file: str | None, memo: dict[str, Any]
) -> list[_Job]:
    """The jobs of submitter `name` (the `index`th) in the schedd's order: its entries
    each checked (a position named when one is not a job), parsed and keyed, or in one
    pass when all are parsed with their keys (`_given_jobs`)."""
    where = f"submitters[{index}]"
    mine = _given_jobs(listed, name)
    if mine is None:  # not all parsed with their keys: each checked, parsed, keyed
        mine = []
        for j, job in enumerate(listed):
            if (type(job) is not dict and not isinstance(job, Mapping)) or "ad" not in job:
                raise SnapshotError(f"{where}.jobs[{j}] must be a mapping with 'ad'", file=file)
            parsed = job.get("_parsed")
            mine.append(
                _Job(
                    str(job["id"]) if "id" in job else f"{index}.{j}",
                    name,
                    job["ad"] if parsed else _ad(job["ad"], f"{where}.jobs[{j}].ad", file, memo),
                    job.get("_keys") if parsed else None,
                    not parsed,
                )
            )
    mine.sort(key=_ORDER)
    return mine


def _given_jobs(listed: Sequence[Any], submitter: str) -> list[_Job] | None:
    """The jobs of a submitter's entries when every one is a dict of a parsed ad with its
    id and `_keys` (the simulator's: thousands a cycle, so one pass without the checks
    and names each entry of a text snapshot needs); None otherwise (each is then checked
    on its own, its errors named)."""
    try:
        mine = []
        for job in listed:
            keys = job["_keys"]
            if type(job) is not dict or type(keys) is not tuple or job["_parsed"] is not True:
                return None
            mine.append(_Job(str(job["id"]), submitter, job["ad"], keys, False))
    except (KeyError, TypeError, ValueError):
        return None  # (a tuple of another length: ValueError when unpacked)
    return mine


def job_keys(ad: Mapping[str, Any]) -> tuple[tuple[float, float, float], tuple[Any, ...]]:
    """The schedd's order of a job (JobPrio, higher first, then ClusterId, ProcId: D12)
    and its autocluster: its significant attributes (every one but its ids and the
    ephemeral ones), jobs alike here being skipped together after a failed match. A
    stored expression is its own key (AST equality ignores where it was written); a
    plain value is keyed with its type (1, 1.0 and true are different values)."""
    order = [0.0, 0.0, 0.0]
    significant: list[tuple[str, Any]] = []
    for key, raw in ad.items():
        low = key.lower()
        place = _JOB_ORDER.get(low)
        if place is not None:
            order[place] = _number(_stored_value(ad, key, raw), 0.0)
        if low in NOT_SIGNIFICANT or key.startswith("Submitter"):
            continue
        t = type(raw)
        plain = t is int or t is float or t is str or t is bool
        if plain:
            significant.append((low, (t, raw)))
        else:  # an expression is hashable; a list or an ad read from a dump by its text
            significant.append((low, raw if isinstance(raw, A.EXPR_TYPES) else repr(raw)))
    significant.sort(key=lambda pair: pair[0])
    return (-order[0], order[1], order[2]), tuple(significant)


def why_unmatched(
    job: Mapping[str, Any], pool_ads: Pool, claimed: Any, taken: Any
) -> dict[str, Any]:
    """Like `condor_q -better-analyze`, from the snapshot: for each top-level clause of
    the job's Requirements how many slots it rejects, how many slots refuse the job by
    their own Requirements, how many match both ways but were busy or taken this cycle
    (`claimed`, `taken`: per slot)."""
    from compiler.classad import of_other, requirements_accept, rows_accept, unparse

    columns = pool_ads.columns
    accept = requirements_accept(job, columns)
    refuse = ~rows_accept(columns, job)
    both = accept & ~refuse
    per_clause = {
        unparse(clause): int(columns.n - of_other(clause, job, columns).is_true().sum())
        for clause in _conjuncts(job)
    }
    return {
        "slots": columns.n,
        "rejected_by_job_requirements": int(columns.n - accept.sum()),
        "clauses": per_clause,
        "rejected_by_slot_requirements": int(refuse.sum()),
        "matching_both_ways": int(both.sum()),
        "matched_to_others_this_cycle": int((both & taken).sum()),
        "busy_not_preemptable": int((both & ~taken & claimed).sum()),
    }


def _conjuncts(job: Mapping[str, Any]) -> list[Any]:
    """The top-level `&&` clauses of the job's Requirements."""
    from compiler.classad import ast as A

    expr = next((v for k, v in job.items() if k.lower() == "requirements"), None)
    if expr is None or not isinstance(expr, A.Expr):
        return []
    return A.conjuncts(expr)


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
