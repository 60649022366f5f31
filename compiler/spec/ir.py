"""The checked, typed IR of one era's startd state machine (see `compiler.spec` for the contract).

Stage: output of `compiler.spec.load`, input of the compiler, the diagram renderer and the
runtime. Every class is a small frozen record (`msgspec.Struct`) holding tuples, so an
`EraSpec` can be shared freely and compared. Nothing here evaluates a guard: guards stay ClassAd text.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Semantics = Literal["manual", "code"]
TriggerKind = Literal["policy", "timer", "protocol", "command", "immediate"]
Against = Literal["local", "job", "preempting_job"]
NameKind = Literal["policy", "predicate", "attribute"]

#: Policy-name suffix -> the job universe (JobUniverse) for which that knob is used instead.
VARIANT_UNIVERSES: dict[str, int] = {"_VANILLA": 5, "_VM": 13}

#: Trigger kinds whose guard is a policy condition tried during an evaluation pass.
POLICY_KINDS: tuple[str, ...] = ("policy", "immediate")
#: Trigger kinds fired by a named event (DESIGN.md trace events).
EVENT_KINDS: tuple[str, ...] = ("protocol", "command")
#: The states in which a slot holds a claim, its job running, suspended or being
#: vacated: a row leaving one reads the job by default (`against`), the accountant
#: charges the claim, a negotiation cycle may preempt it.
CLAIM_STATES: tuple[str, ...] = ("Claimed", "Preempting")


class Pair(msgspec.Struct, frozen=True):
    """A state/activity pair. As a transition target, activity "*" means "chosen by
    `Transition.activity_choice`" (the manual's "Preempting/*")."""

    state: str
    activity: str

    def __str__(self) -> str:
        return f"{self.state}/{self.activity}"

    @property
    def is_wildcard(self) -> bool:
        return self.activity == "*"


class Citation(msgspec.Struct, frozen=True):
    """Where a row is documented.

    `seed` is a file name under shared/seeds (None when only the reference documents it),
    `section` the seed's heading, `anchor` a short text that literally occurs there (after
    removing rST/markdown markup and collapsing white space) in the sentence that mentions
    the number; with `recovered` or no seed, the anchor occurs in shared/reference/
    transitions.md instead. `functions` are startd functions the reference confirms.
    """

    seed: str | None
    section: str
    anchor: str
    functions: tuple[str, ...] = ()
    reference: str = ""
    recovered: bool = False

    def __str__(self) -> str:
        parts = []
        if self.seed is not None:
            parts.append(f"seed {self.seed[:3]} '{self.section}'")
        if self.reference:
            parts.append(f"reference {self.reference}")
        if self.functions:
            parts.append(", ".join(self.functions))
        return "; ".join(parts)


class Action(msgspec.Struct, frozen=True):
    """A named side effect the runtime performs (vocabulary: spec/eras/base.yaml `actions`).

    `arg` is None for actions without an argument; `str(action)` is "name" or "name:arg".
    """

    name: str
    arg: str | None = None

    def __str__(self) -> str:
        return self.name if self.arg is None else f"{self.name}:{self.arg}"


class Trigger(msgspec.Struct, frozen=True):
    """One way a transition fires.

    kind policy: tried on every evaluation pass of the source state, in `order`;
    kind immediate: tried at the instant the source pair is entered, in `order`;
    kind protocol/command: fired by event `name` (restricted to payload `how` when not
    empty) if `guard` (possibly "") holds; kind timer: fired when timer `name` expires.
    `guard` is ClassAd text over policy names, predicates and attributes; it holds when it
    evaluates to TRUE (or a non-zero number); UNDEFINED, ERROR and strings never hold.
    `against` says which ads it is evaluated with. `actions` run before the target pair is
    entered (and before a "*" activity is chosen). `activity` forces the activity of a "*"
    target. `difference` is the reference's D-number when this trigger exists only in one
    semantics or differs between them.
    """

    kind: TriggerKind
    name: str
    guard: str
    against: Against
    how: tuple[str, ...] = ()
    order: int | None = None
    actions: tuple[Action, ...] = ()
    activity: str | None = None
    note: str = ""
    difference: str | None = None

    def describe(self) -> str:
        """Short human text, e.g. "policy: WANT_SUSPEND && SUSPEND", "command: vacate(fast)"."""
        match self.kind:
            case "policy" | "immediate":
                return f"{self.kind}: {self.guard}"
            case "timer":
                return f"timer: {self.name}"
            case "protocol" | "command":
                how = f"({'|'.join(self.how)})" if self.how else ""
                cond = f" if {self.guard}" if self.guard else ""
                return f"{self.kind}: {self.name}{how}{cond}"
            case _:
                raise ValueError(f"unknown trigger kind {self.kind!r}")


class ActivityChoice(msgspec.Struct, frozen=True):
    """One entry of the ordered target-activity choice for a "*" target."""

    guard: str
    activity: str
    against: Against = "job"


class Transition(msgspec.Struct, frozen=True):
    """One row: a numbered transition of the manual, or an unnumbered one of the code.

    `number` is an int or "unnumbered:<name>"; numbered rows are unique per era, an
    unnumbered name may appear on several rows with different sources (`id` is unique).
    """

    number: int | str
    letter: str | None
    source: Pair
    target: Pair
    triggers: tuple[Trigger, ...]
    actions: tuple[Action, ...]
    activity_choice: tuple[ActivityChoice, ...]
    summary: str
    citation: Citation
    difference: str | None = None

    @property
    def numbered(self) -> bool:
        return isinstance(self.number, int)

    @property
    def id(self) -> str:
        """Unique key: "14", or "unnumbered:kill_claim@Claimed/Busy"."""
        return str(self.number) if self.numbered else f"{self.number}@{self.source}"

    @property
    def policy_triggers(self) -> tuple[Trigger, ...]:
        """The triggers tried on evaluation passes (kind policy), in row order."""
        return tuple(t for t in self.triggers if t.kind == "policy")

    @property
    def guard(self) -> str:
        """The combined policy guard: disjunction of the policy triggers' guards ("" if none).

        The disjuncts may be evaluated against different ads (each trigger's `against`);
        a compiler that substitutes per context should walk `policy_triggers` instead."""
        guards: list[str] = []
        for trigger in self.triggers:
            if trigger.kind == "policy" and trigger.guard and trigger.guard not in guards:
                guards.append(trigger.guard)
        if len(guards) == 1:
            return guards[0]
        return " || ".join(f"({g})" for g in guards)

    @property
    def trigger_text(self) -> str:
        """All triggers, human readable, joined by "; "."""
        return "; ".join(t.describe() for t in self.triggers)

    @property
    def targets(self) -> tuple[Pair, ...]:
        """The concrete pairs this row can enter (expands a "*" target)."""
        if not self.target.is_wildcard:
            return (self.target,)
        acts: list[str] = [c.activity for c in self.activity_choice]
        acts += [t.activity for t in self.triggers if t.activity is not None]
        return tuple(Pair(self.target.state, a) for a in dict.fromkeys(acts))


class EvalStep(msgspec.Struct, frozen=True):
    """One step of a state's evaluation order: try `trigger` of `transition` from `source`."""

    order: int
    source: Pair
    transition: str  # Transition.id
    trigger: int  # index into Transition.triggers
    guard: str
    against: Against


class PairSpec(msgspec.Struct, frozen=True):
    """A state/activity pair that exists in the era, with its entry/exit side effects.

    `evaluate_on_entry`: entering this pair runs its state's policy evaluation at once
    (6.8+ code: every Idle and Retiring activity outside Backfill). Immediate triggers of
    rows leaving this pair are tried first.
    """

    pair: Pair
    meaning: str
    on_enter: tuple[Action, ...] = ()
    on_exit: tuple[Action, ...] = ()
    evaluate_on_entry: bool = False
    immediate: tuple[EvalStep, ...] = ()


class StateSpec(msgspec.Struct, frozen=True):
    """A state: its activities, state-level entry/exit actions and evaluation order."""

    name: str
    activities: tuple[str, ...]
    meaning: str
    on_enter: tuple[Action, ...] = ()
    on_exit: tuple[Action, ...] = ()
    evaluation_order: tuple[EvalStep, ...] = ()
    internal: bool = False


class Letter(msgspec.Struct, frozen=True):
    """A transition of the lettered state figure and the numbered rows it stands for."""

    letter: str
    source: str
    target: str
    numbers: tuple[int, ...]
    cause: str
    citation: Citation


class Timer(msgspec.Struct, frozen=True):
    """A startd timer or time limit and its era default in seconds (None: no limit).

    kind timer: a real timer started/cancelled by actions; it fires the rows whose triggers
    name it (`fires`) and runs `on_expiry`. kind limit: a time budget checked through
    `predicate` on evaluation passes (MaxJobRetirementTime, CLAIM_WORKLIFE).
    """

    name: str
    kind: Literal["timer", "limit"]
    default: int | None
    default_text: str
    meaning: str
    on_expiry: tuple[Action, ...] = ()
    predicate: str | None = None
    fires: tuple[str, ...] = ()  # Transition.id
    citation: Citation | None = None
    difference: str | None = None


class Polling(msgspec.Struct, frozen=True):
    """Evaluation cadence (reference section 3.1): every `slow_interval` seconds
    (UPDATE_INTERVAL), and every `fast_interval` (POLLING_INTERVAL) while the polling
    timer runs. After each evaluation the timer is started if a slot is in `fast_states`
    (or the Condor load is positive) and stopped otherwise (`ResMgr::check_polling`);
    entering a pair of `start_on_entry` starts it too (`ResState::enter_action` calls
    `ResMgr::start_poll_timer` on Claimed/Busy and Backfill/Idle)."""

    fast_interval: int
    slow_interval: int
    fast_states: tuple[str, ...]
    difference: str | None = None
    start_on_entry: tuple[Pair, ...] = ()


class Policy(msgspec.Struct, frozen=True):
    """A policy name a guard may use, with the era's default and lookup rules.

    `aliases` are other config names tried in order after `name`; `variants` are suffixes
    (e.g. "_VANILLA") whose knob is used instead when the job's universe matches and it
    evaluates; `default` is the era default ClassAd text (None: none); `if_undefined` is
    "fatal" (the startd refuses) or "not_true" (the test simply fails).
    """

    name: str
    meaning: str
    aliases: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    default: str | None = None
    if_undefined: Literal["fatal", "not_true"] = "not_true"
    difference: str | None = None


class Predicate(msgspec.Struct, frozen=True):
    """A named input the runtime provides (free boolean atom for the compiler)."""

    name: str
    meaning: str


class Event(msgspec.Struct, frozen=True):
    """A trace event (DESIGN.md), its kind and allowed `how` payloads.

    `effects` are the actions the event performs in every era and pair (base.yaml: the
    starter's exit clears JobRunning, ...); the loader also puts them first in the era's
    `event_effects`, so an interpreter runs them with the era's own effects.
    `default_how` is the `how` an event without one means: the HTCondor tool's own
    default (condor_vacate, condor_drain and condor_off are graceful unless told
    otherwise), so a trace step reads like the command line it stands for."""

    name: str
    kind: Literal["protocol", "command"]
    meaning: str
    how: tuple[str, ...] = ()
    effects: tuple[Action, ...] = ()
    citation: Citation | None = None
    default_how: str | None = None

    def with_default(self, how: str | None) -> str | None:
        """`how` as the event means it: the given one, else the tool's default."""
        return how if how is not None else self.default_how


class EventEffect(msgspec.Struct, frozen=True):
    """Actions an event causes in `sources` besides (before) any transition it fires."""

    event: str
    sources: tuple[Pair, ...]
    actions: tuple[Action, ...]
    how: tuple[str, ...] = ()


#: What a CpuBusy attribute publishes (`CpuBusyRule.publish`): the last value as a boolean,
#: as 0/1, seconds since it became TRUE (0 while FALSE), time() of its last change.
CPU_BUSY_QUANTITIES: tuple[str, ...] = ("busy", "busy_number", "seconds_busy", "last_change")


class RetirementRule(msgspec.Struct, frozen=True):
    """Resource::evalRetirementRemaining (base.yaml `helpers.retirement_remaining`).

    With a running job: the policy `limit` evaluated against the job (not a number: 0);
    after a peaceful shutdown infinite unless it equals `peaceful_unlimited_unless`; the
    job ad's `job_limit` replaces it only when smaller; remaining = max(0, limit - job run
    time). No running job, or a drain in `drains_without_retirement`: 0.
    """

    limit: str
    job_limit: str
    peaceful_unlimited_unless: int
    drains_without_retirement: tuple[str, ...]
    meaning: str
    citation: Citation


class VacateRule(msgspec.Struct, frozen=True):
    """Resource::evalMaxVacateTime (base.yaml `helpers.max_vacate_time`).

    The machine value is the policy `limit` evaluated when the job started (pledged; none:
    0); the job value is the first of `job_limits` the job ad has as a number. A job value
    up to the machine value wins; a larger one is granted only out of the remaining
    retirement, never below the machine value.
    """

    limit: str
    job_limits: tuple[str, ...]
    meaning: str
    citation: Citation


class CpuBusyRule(msgspec.Struct, frozen=True):
    """The startd's CpuBusy bookkeeping (base.yaml `helpers.cpu_busy`, reference D17).

    The configuration's `expression` knob is evaluated whenever the slot ad is built; the
    era (option cpu_busy_publish) publishes the attributes of `publish`, each one of
    CPU_BUSY_QUANTITIES. No knob configured: nothing is published.
    """

    expression: str
    publish: tuple[tuple[str, str], ...]
    meaning: str
    citation: Citation


class Helpers(msgspec.Struct, frozen=True):
    """The startd helper computations both interpreters apply (base.yaml `helpers`)."""

    retirement: RetirementRule
    vacate: VacateRule
    cpu_busy: CpuBusyRule


class PublishRule(msgspec.Struct, frozen=True):
    """An attribute the startd publishes in `states`; value is ClassAd text, or "<state>" /
    "<activity>" for the current names."""

    states: tuple[str, ...]
    attribute: str
    value: str
    note: str = ""
    difference: str | None = None


class Difference(msgspec.Struct, frozen=True):
    """One place where the manual and the era's startd differ (reference section 3.6)."""

    era: str
    item: str  # "transition 8", "activity_choice Preempting", "timer MATCH_TIMEOUT", ...
    d_number: str | None
    manual: str
    code: str


class EraSpec(msgspec.Struct, frozen=True):
    """Everything one era documents, resolved for one semantics."""

    era: str
    semantics: Semantics
    title: str
    seed: str
    code: str
    files: tuple[str, ...]
    states: tuple[StateSpec, ...]
    pairs: tuple[PairSpec, ...]
    initial: Pair
    transitions: tuple[Transition, ...]
    letters: tuple[Letter, ...]
    timers: tuple[Timer, ...]
    polling: Polling
    policies: tuple[Policy, ...]
    predicates: tuple[Predicate, ...]
    attributes: tuple[str, ...]
    events: tuple[Event, ...]
    event_effects: tuple[EventEffect, ...]
    publish: tuple[PublishRule, ...]
    options: tuple[tuple[str, bool | int | str], ...]
    numbered_count: int
    helpers: Helpers

    def state(self, name: str) -> StateSpec:
        for state in self.states:
            if state.name == name:
                return state
        raise KeyError(name)

    def pair(self, pair: Pair | str) -> PairSpec:
        wanted = str(pair)
        for spec in self.pairs:
            if str(spec.pair) == wanted:
                return spec
        raise KeyError(wanted)

    def transition(self, key: int | str) -> Transition:
        """By number (14), id ("unnumbered:kill_claim@Claimed/Busy") or str number ("14")."""
        for row in self.transitions:
            if key in (row.number, row.id) or str(key) == row.id:
                return row
        raise KeyError(key)

    def numbered(self) -> tuple[Transition, ...]:
        return tuple(r for r in self.transitions if r.numbered)

    def transitions_from(self, pair: Pair) -> tuple[Transition, ...]:
        return tuple(r for r in self.transitions if r.source == pair)

    def timer(self, name: str) -> Timer:
        for timer in self.timers:
            if timer.name == name:
                return timer
        raise KeyError(name)

    def policy(self, name: str) -> Policy:
        """Case-insensitive, aliases included (config names are case-insensitive)."""
        key = name.lower()
        for policy in self.policies:
            if key in {n.lower() for n in (policy.name, *policy.aliases)}:
                return policy
        raise KeyError(name)

    def name_kind(self, name: str) -> NameKind | None:
        """Whether a guard name is a policy, a predicate or an attribute (None: unknown)."""
        key = name.lower()
        if any(key in {n.lower() for n in (p.name, *p.aliases)} for p in self.policies):
            return "policy"
        if any(key == p.name.lower() for p in self.predicates):
            return "predicate"
        if any(key == a.lower() for a in self.attributes):
            return "attribute"
        return None

    def option(self, name: str) -> bool | int | str:
        return dict(self.options)[name]

    def letter(self, letter: str) -> Letter:
        for entry in self.letters:
            if entry.letter == letter:
                return entry
        raise KeyError(letter)
