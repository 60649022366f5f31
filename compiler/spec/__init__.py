"""The documented startd state machine of each manual era, as a checked, typed IR.

Stage: spec data (spec/eras/*.yaml) -> IR. This is the contract the compiler
(`compile_policy`), the diagram renderer and the runtime code against; it holds no
transition rule of its own and evaluates nothing.

Public API
----------
`load_spec(era, semantics="manual") -> EraSpec` (cached); `ERAS`; `DEFAULT_ERA` (the
newest); `SEMANTICS`; `CLAIM_STATES` (the states in which a slot holds a claim);
`spec_differences(era) -> list[Difference]` (everything that differs between the manual
and the code semantics, with the reference's D-number); `load_spec_file(path, semantics)`
(any era file, its vocabulary being base.yaml next to it); `SpecError(PolicyError)`: every
problem of a file at once, one per line as `<key path>: <problem>`, e.g.
`spec/eras/condor-6.8.yaml: transitions[13].to: unknown activity of Claimed 'Retireing'
(known: Idle, Busy, Suspended, Retiring); did you mean 'Retiring'?`.

Modules: `ir` (the records), `read` (YAML, vocabulary, `extends` merge, errors),
`resolve` (one era for one semantics), `checks` (whole-table checks), `load` (public API).

Data files
----------
spec/eras/base.yaml is the vocabulary (states, activities, events, predicates, actions,
policy names, attributes, each with a meaning). condor-6.8.yaml is a full era;
htcondor-current.yaml `extends: condor-6.8` and writes only what changed; condor-6.4.yaml
extends it for the shared sections but has its own rows (`inherit_transitions: false`).
spec/eras/README.md lists the YAML keys.
Values written `{manual: x, code: y}` and rows/triggers marked `semantics: manual|code`
are resolved at load time: an `EraSpec` is always for exactly one semantics.

The IR (`compiler.spec.ir`, all frozen `msgspec.Struct` records of tuples)
--------------------------------------------------------------
EraSpec: era, semantics, title, seed (file under shared/seeds), code (startd revision),
  files, states, pairs, initial (Owner/Idle), transitions, letters, timers, polling,
  policies, predicates (only those this era/semantics uses), attributes, events,
  event_effects, publish, options, numbered_count; lookups state(), pair(), transition(),
  numbered(), transitions_from(), timer(), policy() (case-insensitive, aliases),
  name_kind(name) -> "policy" | "predicate" | "attribute" | None, option(), letter().
StateSpec: name, activities, meaning, on_enter/on_exit (state changes only),
  evaluation_order (EvalStep tuple), internal (Delete: never published, no manual).
PairSpec: pair, meaning, on_enter/on_exit (activity changes), evaluate_on_entry,
  immediate (EvalStep tuple of the pair's immediate triggers).
Pair: state, activity ("*" only as a target: "Preempting/*"); str() "Claimed/Busy".
Transition: number (int, or "unnumbered:<name>"), letter, source, target, triggers,
  actions, activity_choice, summary, citation, difference; id (unique: "14" or
  "unnumbered:kill_claim@Claimed/Busy"), numbered, guard (combined: disjunction of the
  policy triggers' guards, "" for pure events), policy_triggers, trigger_text, targets
  (concrete pairs).
Trigger: kind (policy | immediate | protocol | command | timer), name (event or timer
  name), guard, against (local | job | preempting_job), how, order, actions, activity,
  note, difference; describe().
ActivityChoice: guard, activity, against.   Action: name, arg; str() "retire:irreversible".
EvalStep: order, source, transition (id), trigger (index), guard, against.
Letter: letter, source, target (states), numbers, cause, citation.
Timer: name, kind (timer | limit), default (seconds or None = no limit), default_text,
  meaning, on_expiry, predicate (for limits), fires (transition ids), citation, difference.
Polling: fast_interval (POLLING_INTERVAL), slow_interval (UPDATE_INTERVAL), fast_states,
  start_on_entry (pairs whose entry starts the polling timer).
Policy: name, meaning, aliases, variants ("_VANILLA", "_VM": VARIANT_UNIVERSES maps each
  suffix to its JobUniverse), default, if_undefined (fatal | not_true), difference.
Predicate: name, meaning.
Event: name, kind, meaning, how, default_how (the tool's default for an omitted how),
  effects, citation.   EventEffect: event, sources, actions, how.
Helpers: retirement (RetirementRule), vacate (VacateRule), cpu_busy (CpuBusyRule).
PublishRule: states, attribute, value ("<state>"/"<activity>" or ClassAd text), note.
Citation: seed, section, anchor, functions, reference, recovered.
Difference: era, item, d_number, manual, code.

Meaning of a guard
------------------
ClassAd text over three kinds of names (EraSpec.name_kind): policy names, which the
compiler replaces by the configuration's expanded expression (or Policy.default; for a
job whose universe matches a variant, e.g. PREEMPT_VANILLA, that knob when it evaluates);
predicates, named inputs the runtime provides (free boolean atoms for the compiler); and
machine/job attributes. A guard holds when it evaluates to TRUE or a non-zero number;
UNDEFINED, ERROR and strings never hold (HTCondor's EvaluateAttrBoolEquiv test), so
"START locally FALSE" is written `START =?= false` and "not FALSE" `START =!= false`.
`against`: local = the machine ad alone (job attributes UNDEFINED); job = slot ad as MY,
the current claim's job/request ad as TARGET; preempting_job = TARGET is the pending
preempting claim's job.

How the runtime drives a slot (no rule lives in runtime code)
-------------------------------------------------------------
* Evaluation pass (at start-up and every Polling.slow_interval; every
  Polling.fast_interval while the polling timer runs: entering a pair of start_on_entry
  starts it, and after each periodic pass it runs on while the state is in fast_states
  or the Condor load is positive and stops otherwise; also when an `evaluate` action
  asks): walk
  `state.evaluation_order`, skipping steps whose source is not the current pair; the first
  step whose guard holds fires its transition with that trigger.
* Event E (payload `how`, else Event.default_how): run the actions of every EventEffect for E whose sources
  contain the current pair (and whose `how` is empty or contains the payload), except
  `evaluate` -- the event's own `Event.effects` (base.yaml: job_exit/starter_exit reap the
  starter, benchmarks_done finishes the benchmarks, the backfill client's start/exit) come
  first, in every pair; then try, in row order, the triggers of kind protocol/command
  named E from the current pair (`how` empty or matching) whose guard holds; the first
  fires. If none fired and an effect asked for `evaluate`, run an evaluation pass.
* Timer T expires: run `timer.on_expiry`, then fire the first row from the current pair
  with a timer trigger named T. Timers are started and cancelled only by actions.
* Firing row R with trigger G: run G.actions, then R.actions; if R.target is "State/*",
  the activity is G.activity if set, else the first ActivityChoice whose guard holds;
  leaving a pair runs its PairSpec.on_exit (and StateSpec.on_exit if the state changes);
  entering runs StateSpec.on_enter (on a state change) then PairSpec.on_enter. A row whose
  source equals its target (unnumbered:preempt_in_retirement) only runs its actions.
* Cascades, in the same instant: on entering a pair, try its `immediate` steps in order
  (first holding guard fires); if none fired and `evaluate_on_entry`, run an evaluation
  pass of the new pair. Every fired row is reported with its number.
* `options` holds every era switch of base.yaml `options` (the era's value, else the
  default): claim_worklife_needs_activation, retirement_vacate_allowance
  (RetirementExpired also when remaining <= max vacate time), cpu_busy_publish (D17).
* `helpers` (base.yaml, with the reference's citations) are the startd computations behind
  predicates, timers and published attributes: RetirementRule
  (Resource::evalRetirementRemaining), VacateRule (Resource::evalMaxVacateTime) and
  CpuBusyRule (the CpuBusy attributes the era publishes). Each interpreter applies them
  with its own code.
"""

from compiler.spec.ir import (
    CLAIM_STATES,
    CPU_BUSY_QUANTITIES,
    EVENT_KINDS,
    POLICY_KINDS,
    VARIANT_UNIVERSES,
    Action,
    ActivityChoice,
    Citation,
    CpuBusyRule,
    Difference,
    EraSpec,
    EvalStep,
    Event,
    EventEffect,
    Helpers,
    Letter,
    Pair,
    PairSpec,
    Policy,
    Polling,
    Predicate,
    PublishRule,
    RetirementRule,
    StateSpec,
    Timer,
    Transition,
    Trigger,
    VacateRule,
)
from compiler.spec.load import load_spec, load_spec_file, spec_differences
from compiler.spec.read import DEFAULT_ERA, ERAS, SEMANTICS, SpecError, guard_names

__all__ = [
    "CLAIM_STATES",
    "CPU_BUSY_QUANTITIES",
    "DEFAULT_ERA",
    "ERAS",
    "EVENT_KINDS",
    "POLICY_KINDS",
    "SEMANTICS",
    "VARIANT_UNIVERSES",
    "Action",
    "ActivityChoice",
    "Citation",
    "CpuBusyRule",
    "Difference",
    "EraSpec",
    "EvalStep",
    "Event",
    "EventEffect",
    "Helpers",
    "Letter",
    "Pair",
    "PairSpec",
    "Policy",
    "Polling",
    "Predicate",
    "PublishRule",
    "RetirementRule",
    "SpecError",
    "StateSpec",
    "Timer",
    "Transition",
    "Trigger",
    "VacateRule",
    "guard_names",
    "load_spec",
    "load_spec_file",
    "spec_differences",
]
