"""The slot's runtime inputs and the machine ClassAd the guards see, kept like the startd does.

Stage: runtime. `SlotState` is an immutable record of everything a startd keeps about one
slot besides its state/activity: the claim and its job ad, the pending preempting claim,
the PREEMPT latch, retirement reversibility, draining, backfill destination, timestamps and
run/suspend totals. `apply_action(state, action, env)` is the pure effect of one spec action
(compiler.spec vocabulary) on that record; side effects on the outside world (signals,
processes, timers) are the slot's business (`runtime.slot`). `predicates(...)` computes the
spec's named inputs (JobRunning, InRetirement, RetirementExpired, ...) with the startd's
helper semantics (reference section 3.5), and `machine_ad(...)` the published attributes
(reference section 5). No transition rule lives here.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from compiler import IdentityMemo, Program, Settings, holds
from compiler.classad import (
    UNDEFINED,
    ClassAd,
    compile_expr,
    function_context,
    parse,
    unparse,
)
from compiler.classad.ast import Expr
from compiler.slots import naming
from compiler.spec import (
    CLAIM_STATES,
    Action,
    CpuBusyRule,
    EraSpec,
    Pair,
    RetirementRule,
    VacateRule,
)

#: Activities whose time counts as job run time (Claim::getJobTotalRunTime).
RUN_ACTIVITIES = ("Busy", "Retiring")
#: Epoch of the simulated clock when a trace gives none (DESIGN.md trace format).
DEFAULT_EPOCH = 1_000_000_000


@dataclass(frozen=True)
class SlotState:
    """What the startd remembers about one slot (besides the machine's State/Activity)."""

    entered_state: float = 0.0
    entered_activity: float = 0.0
    stint_start: float = 0.0
    job: Mapping[str, Any] | None = None
    preempting_job: Mapping[str, Any] | None = None
    job_running: bool = False
    job_start: float | None = None
    activations: int = 0
    claim_start: float | None = None
    current_rank: float = 0.0
    preempt_latch: bool = False
    reversible: bool = True
    peaceful: bool = False
    draining: str | None = None
    waiting_for_activation: bool = False
    destination: str | None = None
    backfill_running: bool = False
    benchmarking: bool = False
    last_benchmark: float = 0.0
    requirements_hidden: bool = False
    deleted: bool = False
    pledged_vacate: float | None = None
    job_run: float = 0.0
    job_suspend: float = 0.0
    claim_run: float = 0.0
    claim_suspend: float = 0.0


_STATE_FIELDS = frozenset(f.name for f in fields(SlotState))


def replaced(state: SlotState, **changes: Any) -> SlotState:
    """`dataclasses.replace(state, **changes)` in a third of the time: a slot's record is
    replaced several times per transition (a pool runs millions), and `replace` goes
    through the generic keyword `__init__` of the frozen class. SlotState has no
    `__post_init__` and keeps its fields in its `__dict__`, so copying that and setting
    the changes in it makes the same record."""
    if not _STATE_FIELDS.issuperset(changes):
        name = next(name for name in changes if name not in _STATE_FIELDS)
        raise TypeError(f"SlotState has no field {name!r}")
    new = object.__new__(SlotState)
    values = new.__dict__
    values.update(state.__dict__)
    values.update(changes)
    return new


#: The random source of `random()` in runtime evaluations: one, seeded by the system
#: like the fresh one each context would otherwise make (and seed, at some cost).
_RANDOM = random.Random()


@functools.lru_cache(maxsize=8)
def _context(now: int) -> Any:
    return function_context(now, rng=_RANDOM)


#: the contexts of the last few instants (a simulation moves between a few: the event's,
#: a slot's probe some seconds on, the next event's)
_contexts: dict[int, Any] = {}
_CONTEXTS_KEPT = 8


def eval_context(now: float) -> Any:
    """The evaluator's function context (clock fixed at `now`), shared within one instant:
    building one per evaluation would dominate a replay (and one per instant a poll)."""
    second = int(now)
    ctx = _contexts.get(second)
    if ctx is None:
        if len(_contexts) >= _CONTEXTS_KEPT:
            _contexts.clear()
        ctx = _contexts[second] = _context(second)
    return ctx


#: job ads kept: more than the jobs a large pool runs at once (a simulated 10,000-slot
#: pool asks for every running job's ad every cycle: fewer would be a cache that misses
#: on every turn, and the memoised retirement limit with it)
_JOB_ADS: IdentityMemo[Mapping[str, Any], ClassAd] = IdentityMemo(16384)


def job_ad(job: Mapping[str, Any]) -> ClassAd:
    """A slot record's job ad (never changed in place: `SlotState` is replaced) as a
    ClassAd, kept per job, so that evaluations against it reuse their scopes."""
    if type(job) is ClassAd:
        return job
    hit = _JOB_ADS.get(job)
    return _JOB_ADS.put(job, ClassAd(job)) if hit is None else hit


@dataclass(frozen=True, slots=True)
class PolicyExprs:
    """The compiled table's runtime expressions (`StateTable.program`), compiled once.

    `exprs`: the knobs the runtime evaluates besides the guards (PREEMPT, RANK,
    MaxJobRetirementTime, MachineMaxVacateTime, START, CpuBusy), already expanded by the
    compiler (`_VANILLA` variants, aliases, era defaults); a missing one is UNDEFINED.
    `texts`: those and the published knobs as text (for displays); `settings`: the
    table's settings (timeouts, intervals, CLAIM_WORKLIFE, backfill); `sources`: the
    expressions `exprs` were compiled from (what they may read: runtime.slot_ad).
    """

    exprs: Mapping[str, Callable[..., Any]]
    texts: Mapping[str, str]
    settings: Settings
    sources: Mapping[str, Expr] = field(default_factory=dict)

    def value(self, name: str, my: Mapping[str, Any], target: Any, now: float) -> Any:
        fn = self.exprs.get(name)
        return UNDEFINED if fn is None else fn(my, target, ctx=eval_context(now))

    def number(self, name: str, my: Mapping[str, Any], target: Any, now: float) -> float | None:
        value = self.value(name, my, target, now)
        if not isinstance(value, int | float):  # bool is an int: TRUE ranks 1, as in C
            return None
        return float(value)


def policy_exprs(program: Program) -> PolicyExprs:
    """Compile the program's runtime expressions into predicates (nothing re-expanded)."""
    exprs = {name: compile_expr(expr) for name, expr in program.evaluated}
    texts = {name: unparse(expr) for name, expr in (*program.evaluated, *program.published)}
    return PolicyExprs(exprs, texts, program.settings, dict(program.evaluated))


#: The spec actions whose effect reads MY (`Env.my`: the vacate limit, PREEMPT, RANK):
#: a slot builds its ad for these only (an ad is dozens of attributes, rebuilt whenever
#: an action changes the record; most actions only stamp the record).
READS_MY = frozenset({"start_job", "set_preempt_latch", "begin_claim"})


def my_expressions(action: Action, spec: EraSpec) -> tuple[str, ...]:
    """The policy expressions `apply_action` evaluates in MY for `action` (one of
    READS_MY; keep in step with it)."""
    match action.name, action.arg:
        case "start_job", _:
            return (spec.helpers.vacate.limit,)
        case "set_preempt_latch", "if_preempt":
            return ("PREEMPT",)
        case "begin_claim", _:
            return ("RANK",)
        case _:
            return ()


#: MY for an action whose expressions read nothing (`runtime.slot_ad.reads_my`)
NO_AD: Mapping[str, Any] = ClassAd()


class Unbuilt(Mapping[str, Any]):
    """`Env.my` of an action outside READS_MY: its ad was not built, and reading it says
    so (READS_MY is then missing the action) instead of reading an empty ad."""

    def _unbuilt(self) -> Any:
        raise RuntimeError("apply_action read MY for an action outside runtime.ads.READS_MY")

    def __getitem__(self, key: str) -> Any:
        return self._unbuilt()

    def __iter__(self) -> Any:
        return self._unbuilt()

    def __len__(self) -> int:
        return int(self._unbuilt())


@dataclass(frozen=True, slots=True)
class Env:
    """What `apply_action` needs besides the state: the instant and the event payload."""

    now: float
    spec: EraSpec
    policy: PolicyExprs
    my: Mapping[str, Any] = field(default_factory=dict)
    payload_job: Mapping[str, Any] | None = None


def apply_action(state: SlotState, action: Action, env: Env) -> SlotState:
    """The effect of one spec action on the slot's record (pure; see base.yaml `actions`)."""
    now = env.now
    match action.name, action.arg:
        case "start_job", _:
            return replaced(
                state,
                job_running=True,
                job_start=now,
                activations=state.activations + 1,
                waiting_for_activation=False,
                pledged_vacate=env.policy.number(
                    env.spec.helpers.vacate.limit, env.my, state.job, now
                ),
                job_run=0.0,
                job_suspend=0.0,
            )
        case "retire", "reversible":
            return state
        case "retire", "irreversible":
            return replaced(state, reversible=False)
        case "retire", "peaceful":
            return replaced(state, reversible=False, peaceful=True)
        case "set_preempt_latch", "always":
            return replaced(state, preempt_latch=True)
        case "set_preempt_latch", "if_preempt":
            fired = holds(env.policy.value("PREEMPT", env.my, state.job, now))
            return replaced(state, preempt_latch=state.preempt_latch or fired)
        case "register_preempting_claim", _:
            return replaced(state, preempting_job=env.payload_job or {}, requirements_hidden=True)
        case "withdraw_preempting_claim", _:
            return replaced(state, preempting_job=None)
        case "accept_preempting_claim", _:
            return replaced(state, job=state.preempting_job, preempting_job=None)
        case "begin_claim", _:
            job = state.job if state.job is not None else env.payload_job
            rank = env.policy.number("RANK", env.my, job, now)
            return replaced(
                state,
                job=job,
                claim_start=now,
                activations=0,
                current_rank=rank or 0.0,
                waiting_for_activation=state.draining is not None,
                claim_run=0.0,
                claim_suspend=0.0,
            )
        case "clear_claim", _:
            return replaced(
                state,
                job=None,
                job_running=False,
                job_start=None,
                claim_start=None,
                current_rank=0.0,
                preempt_latch=False,
                reversible=True,
                peaceful=False if state.draining is None else state.peaceful,
                pledged_vacate=None,
                stint_start=now,
                job_run=0.0,
                job_suspend=0.0,
                claim_run=0.0,
                claim_suspend=0.0,
            )
        case "reset_claim", _:
            return replaced(
                state,
                job_running=False,
                job_start=None,
                preempt_latch=False,
                reversible=True,
                stint_start=now,
                job_run=0.0,
                job_suspend=0.0,
            )
        case "start_benchmarks", _:
            return replaced(state, benchmarking=True)
        case "finish_benchmarks", _:
            return replaced(state, benchmarking=False, last_benchmark=now)
        case "reap_starter", _:
            return replaced(state, job_running=False)
        case "note_backfill_client", running:
            return replaced(state, backfill_running=running == "running")
        case "spawn_backfill_client" | "kill_backfill_client", _:
            return state
        case "set_destination", where:
            return replaced(state, destination=where)
        case "clear_destination", _:
            return replaced(state, destination=None)
        case "start_draining", how:
            return replaced(state, draining=how, peaceful=state.peaceful)
        case "stop_draining", _:
            return replaced(state, draining=None)
        case "delete_slot", _:
            return replaced(state, deleted=True)
        case "start_timer" | "cancel_timer" | "signal_job" | "evaluate", _:
            return state  # outside effects only (runtime.slot)
        case _:
            raise ValueError(f"unknown spec action {action}")


def account(state: SlotState, old: Pair, new: Pair, now: float) -> SlotState:
    """Close the stint spent in `old` (run/suspend totals) and stamp the entry into `new`."""
    spent = max(0.0, now - state.stint_start)
    job_run, job_suspend = state.job_run, state.job_suspend
    claim_run, claim_suspend = state.claim_run, state.claim_suspend
    if old.state == "Claimed" and old.activity in RUN_ACTIVITIES:
        job_run += spent
        claim_run += spent
    elif old.state == "Claimed" and old.activity == "Suspended":
        job_suspend += spent
        claim_suspend += spent
    return replaced(
        state,
        stint_start=now,
        entered_state=now if new.state != old.state else state.entered_state,
        entered_activity=now,
        job_run=job_run,
        job_suspend=job_suspend,
        claim_run=claim_run,
        claim_suspend=claim_suspend,
    )


_SUSPENDED = Pair("Claimed", "Suspended")


def totals(state: SlotState, pair: Pair, now: float) -> tuple[float, float, float, float]:
    """(job run, job suspend, claim run, claim suspend) seconds including the running stint."""
    spent = max(0.0, now - state.stint_start)
    run = spent if pair.state == "Claimed" and pair.activity in RUN_ACTIVITIES else 0.0
    sus = spent if pair == _SUSPENDED else 0.0
    return (
        state.job_run + run,
        state.job_suspend + sus,
        state.claim_run + run,
        state.claim_suspend + sus,
    )


def retirement_remaining(
    state: SlotState,
    pair: Pair,
    now: float,
    policy: PolicyExprs,
    my: Mapping[str, Any],
    rule: RetirementRule,
) -> float:
    """Resource::evalRetirementRemaining as `rule` (spec helpers) states it: the machine's
    limit against the job, the job's own only when smaller, minus the job's run time."""
    if not state.job_running or state.job is None:
        return 0.0
    if state.draining in rule.drains_without_retirement:
        return 0.0
    limit = policy.number(rule.limit, my, job_ad(state.job), now)
    limit = 0.0 if limit is None else limit
    if state.peaceful and limit != rule.peaceful_unlimited_unless:
        limit = math.inf
    own = state.job.get(rule.job_limit)
    if isinstance(own, int | float) and not isinstance(own, bool) and own < limit:
        limit = float(own)
    run = totals(state, pair, now)[0]
    return max(0.0, limit - run)


def max_vacate_time(state: SlotState, rule: VacateRule, remaining: float) -> float:
    """Resource::evalMaxVacateTime as `rule` (spec helpers) states it: the value pledged
    when the job started; a smaller job value wins, a larger one only out of the
    remaining retirement."""
    machine = state.pledged_vacate if state.pledged_vacate is not None else 0.0
    job = state.job or {}
    wanted = next((job[name] for name in rule.job_limits if name in job), None)
    if not isinstance(wanted, int | float) or isinstance(wanted, bool):
        return machine
    if wanted <= machine:
        return float(wanted)
    return max(machine, min(float(wanted), remaining))


def predicates(
    state: SlotState,
    pair: Pair,
    now: float,
    spec: EraSpec,
    policy: PolicyExprs,
    my: Mapping[str, Any],
    overrides: Mapping[str, Any],
) -> dict[str, Any]:
    """The spec's predicates (base.yaml `predicates`) with the startd's helper semantics:
    `timed_predicates` in the places `steady_predicates` keeps for them, then the
    overrides (a trace's `set:` of a predicate)."""
    values = steady_predicates(state, pair, policy)
    values.update(timed_predicates(state, pair, now, spec, policy, my))
    values.update({k: v for k, v in overrides.items() if k in values})
    return values


#: The predicates that move with the clock (`timed_predicates`); the others stay while
#: the record and the pair do (`steady_predicates`).
TIMED_PREDICATES = ("RetirementExpired", "ClaimWorklifeExpired")


def timed_predicates(
    state: SlotState,
    pair: Pair,
    now: float,
    spec: EraSpec,
    policy: PolicyExprs,
    my: Mapping[str, Any],
) -> dict[str, Any]:
    """RetirementExpired and ClaimWorklifeExpired now (the retirement limit evaluated
    in `my` against the job)."""
    remaining = retirement_remaining(state, pair, now, policy, my, spec.helpers.retirement)
    options = _options(spec)
    expired = remaining <= 0
    if options.get("retirement_vacate_allowance") and state.job_running:
        expired = expired or max_vacate_time(state, spec.helpers.vacate, remaining) >= remaining
    worklife = policy.settings.claim_worklife
    worklife_over = (
        worklife is not None
        and worklife >= 0
        and state.claim_start is not None
        and now - state.claim_start > worklife
        and (not options.get("claim_worklife_needs_activation") or state.activations >= 1)
    )
    return {"RetirementExpired": expired, "ClaimWorklifeExpired": worklife_over}


_OPTIONS: IdentityMemo[EraSpec, dict[str, Any]] = IdentityMemo(16)


def _options(spec: EraSpec) -> Mapping[str, Any]:
    """The era's options as a mapping, made once per spec (read on every pass)."""
    hit = _OPTIONS.get(spec)
    return _OPTIONS.put(spec, dict(spec.options)) if hit is None else hit


def steady_predicates(state: SlotState, pair: Pair, policy: PolicyExprs) -> dict[str, Any]:
    """The predicates that stay while the record and the pair do, in the order the slot
    ad shows them, with None where `timed_predicates` go."""
    preempting = state.preempting_job is not None
    may_unretire = state.reversible and not preempting and state.draining is None
    return {
        "JobRunning": state.job_running,
        "HasPreemptingClaim": preempting,
        "MayUnretire": may_unretire,
        "InRetirement": preempting or not may_unretire,
        "RetirementExpired": None,
        "PreemptLatch": state.preempt_latch,
        "ClaimWorklifeExpired": None,
        "Draining": state.draining is not None,
        "AllSlotsDrained": pair.state == "Drained",
        "WaitingForActivation": state.waiting_for_activation,
        "BackfillEnabled": policy.settings.backfill_enabled,
        "BackfillClientRunning": state.backfill_running,
        "DestinationOwner": state.destination == "Owner",
        "DestinationMatched": state.destination == "Matched",
        "DestinationClaimed": state.destination == "Claimed",
        "DynamicSlot": False,
    }


#: Helper expressions the code's Requirements refer to (reference section 5): a static
#: slot's resource check, and 6.8's checkpoint-platform test for standard-universe jobs.
REQUIREMENT_HELPERS: dict[str, Expr] = {
    "WithinResourceLimits": parse(
        "(TARGET.RequestCpus =?= undefined || TARGET.RequestCpus <= MY.Cpus) && "
        "(TARGET.RequestMemory =?= undefined || TARGET.RequestMemory <= MY.Memory) && "
        "(TARGET.RequestDisk =?= undefined || TARGET.RequestDisk <= MY.Disk)"
    ),
    "IsValidCheckpointPlatform": parse(
        "TARGET.JobUniverse =!= 1 || TARGET.NumCkpts =?= 0 || "
        "TARGET.LastCheckpointPlatform =?= MY.CheckpointPlatform"
    ),
}


def _publish_value(rule_value: str, pair: Pair) -> Any:
    match rule_value:
        case "<state>":
            return pair.state
        case "<activity>":
            return pair.activity
        case text:
            return parse(text)


@dataclass(frozen=True, slots=True)
class Moving:
    """An attribute of the slot ad that moves with the clock or the sensors while the
    slot's record and pair stay (`ad_layout`): `quantity` is "sensor" (the measured
    attribute `sensor`), "now" (time()), "clock_min", "clock_day", or one of the run
    and suspend totals "job_run", "job_suspend", "claim_run", "claim_suspend"."""

    quantity: str
    sensor: str = ""


_NOW = Moving("now")
_CLOCK_MIN = Moving("clock_min")
_CLOCK_DAY = Moving("clock_day")
_JOB_RUN = Moving("job_run")
_JOB_SUSPEND = Moving("job_suspend")
_CLAIM_RUN = Moving("claim_run")
_CLAIM_SUSPEND = Moving("claim_suspend")


def machine_ad(
    state: SlotState,
    pair: Pair,
    now: float,
    spec: EraSpec,
    policy: PolicyExprs,
    sensors: Mapping[str, Any],
    *,
    slot_id: int = 1,
    published_policy: Mapping[str, Expr] | None = None,
) -> dict[str, Any]:
    """The slot ad as the startd publishes it now (reference section 5), without predicates.

    `sensors` holds the measured attributes (LoadAvg, KeyboardIdle, ...). Policy
    expressions (START, RANK, ...) are published as expressions so that `Requirements =
    START` and the like evaluate as in a real slot ad. It is `ad_layout` with its
    moving attributes filled in for `now` and `sensors` (`moving_values`).
    """
    layout = ad_layout(
        state, pair, spec, tuple(sensors), slot_id=slot_id, published_policy=published_policy
    )
    moving = [(name, value) for name, value in layout.items() if type(value) is Moving]
    layout.update(moving_values(moving, state, pair, now, sensors))
    return layout


def ad_layout(
    state: SlotState,
    pair: Pair,
    spec: EraSpec,
    sensor_names: tuple[str, ...],
    *,
    slot_id: int = 1,
    published_policy: Mapping[str, Expr] | None = None,
) -> dict[str, Any]:
    """The slot ad of `machine_ad` for `state` in `pair`, its attributes in publication
    order, with a `Moving` marker for each value that moves with the clock or with the
    sensors named `sensor_names`: everything else stays while the record and the pair
    do, so a slot polled again only refreshes the markers (runtime.slot_ad)."""
    named = naming(spec.era)  # slot1 and SlotID; 6.x vm1 and VirtualMachineID
    ad: dict[str, Any] = {
        "MyType": "Machine",
        "Name": f"{named.prefix}{slot_id}@localhost",
        named.id_attribute: slot_id,
        "EnteredCurrentState": int(state.entered_state),
        "EnteredCurrentActivity": int(state.entered_activity),
        "LastBenchmark": int(state.last_benchmark),
        "CurrentRank": float(state.current_rank),
        "MyCurrentTime": _NOW,
        "ClockMin": _CLOCK_MIN,
        "ClockDay": _CLOCK_DAY,
    }
    ad.update(_sensor_markers(sensor_names))
    if state.last_benchmark:
        ad["LastBenchmark"] = int(state.last_benchmark)
    for name, expr in (published_policy or {}).items():
        ad[name] = expr
    for rule in spec.publish:
        if pair.state in rule.states:
            ad[rule.attribute] = _publish_value(rule.value, pair)
            for helper, expr in REQUIREMENT_HELPERS.items():
                if helper in rule.value:
                    ad[helper] = expr
    if state.requirements_hidden:
        ad["Requirements"] = False
    if state.job is not None and pair.state in CLAIM_STATES:
        owner = state.job.get("Owner", state.job.get("User"))
        if owner is not None:
            ad["RemoteOwner"] = owner
            ad["RemoteUser"] = state.job.get("User", owner)
        ad["TotalClaimRunTime"] = _CLAIM_RUN
        ad["TotalClaimSuspendTime"] = _CLAIM_SUSPEND
    if state.job_running and state.job_start is not None:
        ad["JobStart"] = int(state.job_start)
        ad["TotalJobRunTime"] = _JOB_RUN
        ad["TotalJobSuspendTime"] = _JOB_SUSPEND
        if state.job is not None and "ImageSize" in state.job:
            ad["ImageSize"] = state.job["ImageSize"]
        if state.pledged_vacate is not None:
            ad["MachineMaxVacateTime"] = int(state.pledged_vacate)
    if state.preempting_job is not None:
        ad["PreemptingUser"] = state.preempting_job.get("Owner", UNDEFINED)
    return ad


#: What `ad_layout` sets from the slot's record (besides the era's publish rules and
#: the Requirements helpers, which it sets by pair): keep in step with it.
_RECORD_ATTRIBUTES = frozenset(
    name.lower()
    for name in (
        "EnteredCurrentState", "EnteredCurrentActivity", "LastBenchmark", "CurrentRank",
        "Requirements", "RemoteOwner", "RemoteUser", "TotalClaimRunTime",
        "TotalClaimSuspendTime", "JobStart", "TotalJobRunTime", "TotalJobSuspendTime",
        "ImageSize", "MachineMaxVacateTime", "PreemptingUser",
    )
)  # fmt: skip


@functools.lru_cache(maxsize=16)
def pair_names(spec: EraSpec) -> frozenset[str]:
    """The lower-case names whose value in an `ad_layout` the record or the pair may
    decide. Every other name has one value in every record and pair at one instant: a
    sensor's reading, the clock, the slot's name, a published policy expression, or
    undefined."""
    by_pair = {rule.attribute.lower() for rule in spec.publish}
    return _RECORD_ATTRIBUTES | by_pair | {name.lower() for name in REQUIREMENT_HELPERS}


@functools.lru_cache(maxsize=64)
def _sensor_markers(sensor_names: tuple[str, ...]) -> Mapping[str, Moving]:
    """A `Moving` marker for each sensor, made once per set of names (a slot ad is laid
    out again at every transition; the markers are frozen, so shared; not to be changed)."""
    return {name: Moving("sensor", name) for name in sensor_names}


def moving_values(
    moving: Sequence[tuple[str, Moving]],
    state: SlotState,
    pair: Pair,
    now: float,
    sensors: Mapping[str, Any],
) -> list[tuple[str, Any]]:
    """(attribute, value now) for each `Moving` attribute of an `ad_layout`."""
    clocked: Mapping[str, Any] | None = None
    out: list[tuple[str, Any]] = []
    for name, marker in moving:
        if marker.quantity == "sensor":
            out.append((name, sensors[marker.sensor]))
            continue
        if clocked is None:
            clocked = clock_quantities(state, pair, now)
        out.append((name, clocked[marker.quantity]))
    return out


def clock_quantities(state: SlotState, pair: Pair, now: float) -> dict[str, Any]:
    """The values of the `Moving` quantities that move with the clock, at `now`.

    ClockMin and ClockDay are those `time.gmtime(now)` gives (minutes since midnight,
    UTC; the day of the week, 0 on Sunday), by arithmetic: it counts whole seconds
    down, and 1 January 1970 was a Thursday (a slot ad is made at every transition;
    making the struct_time was a third of this)."""
    days, of_day = divmod(math.floor(now), 86_400)
    job_run, job_suspend, claim_run, claim_suspend = totals(state, pair, now)
    return {
        "now": int(now),
        "clock_min": of_day // 60,
        "clock_day": (days + 4) % 7,
        "job_run": int(job_run),
        "job_suspend": int(job_suspend),
        "claim_run": int(claim_run),
        "claim_suspend": int(claim_suspend),
    }


def cpu_busy_attrs(
    rule: CpuBusyRule, busy: bool, since: float | None, changed: float, now: float
) -> dict[str, Any]:
    """The CpuBusy attributes the era publishes (`rule.publish`, reference D17): the value,
    as 0/1, seconds since it became TRUE (0 while FALSE), or time() of its last change."""
    quantities: dict[str, Any] = {
        "busy": busy,
        "busy_number": int(busy),
        "seconds_busy": int(now - since) if busy and since is not None else 0,
        "last_change": int(changed),
    }
    return {attribute: quantities[quantity] for attribute, quantity in rule.publish}
