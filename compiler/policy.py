"""`compile_policy`: join an era's spec with a configuration into a `StateTable`.

Stage: compiler, the join. Input: `compiler.spec` (the documented rows and their guards
over policy names) and `compiler.config` (the administrator's expressions). Output: the
`compiler.table.StateTable`. For every guard: expand (`compiler.expand`: knobs
substituted, era defaults, `_VANILLA` variants, "locally" = job attributes UNDEFINED),
simplify soundly (`compiler.simplify`, with the startd's attribute domains, the
predicates as defined booleans, the row's own State/Activity and the caller's `assume`),
decide the status (`truth`: dead / always / live) and compile a predicate
(`compiler.classad.compile_expr`). A row out of a pair that no chain of firing rows
reaches from the era's initial pair is "dead" too (`reachable_pairs`,
the set `diagram` and `check` use as well), so the three commands agree on what can
happen. It never prints; problems are `PolicyError`s, and
things worth telling (undefined fatal knobs, cycles, names assumed to be job attributes)
are the table's `warnings`.

Why the row's State and Activity are fixed: a row's guards are only ever evaluated while
the slot is in the row's source pair, and the startd publishes that pair in the slot ad,
so `State != "Unclaimed" && State != "Owner"` in the UWCS START is known per row (the
manual explains that clause exactly this way). The compiled predicate is therefore only
valid in the source pair; that is the only place the runtime evaluates it.

`policy_differences` compares the manual and code semantics of one policy (for
`condor-policy compile --differences`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache

import msgspec
from msgspec.structs import replace

from compiler.classad import (
    ClassAdSyntaxError,
    call_deep,
    compile_expr,
    evaluate,
    parse,
    unparse,
)
from compiler.classad import ast as A
from compiler.classad.values import Value
from compiler.config import Config, load_config
from compiler.errors import PolicyError
from compiler.expand import Expander
from compiler.program import Knob, Program, Settings
from compiler.simplify import STARTD_DOMAINS, Domain, simplify, truth
from compiler.spec import ERAS, SEMANTICS, EraSpec, Policy, Transition, load_spec, spec_differences
from compiler.spec.ir import Pair
from compiler.table import CompiledGuard, Row, StateTable, Status, reach

#: Kinds of triggers whose guard is a policy condition (tried on evaluation passes or at
#: the instant the source pair is entered).
_CONDITION_KINDS = ("policy", "immediate")


@cache
def _domains(spec: EraSpec) -> Mapping[str, Domain]:
    """The startd's attribute domains plus the era's predicates as defined booleans."""
    domains = dict(STARTD_DOMAINS)
    for predicate in spec.predicates:
        domains[predicate.name] = Domain("boolean", True)
    return domains


def compile_policy(
    config: Config | None = None,
    era: str = "htcondor-current",
    semantics: str = "manual",
    *,
    assume: Mapping[str, Value] | None = None,
    source: str | None = None,
) -> StateTable:
    """The state table of `era` (`semantics` manual|code) joined with `config`.

    `config` None: the era's shipped default policy (`load_config(era=era)`). `assume`
    fixes attribute values (`{"KeyboardIdle": 10**9}`, `{"TARGET.ImageSize": 100}`) for
    the simplification, so the table shows the residual guards. `source` describes the
    policy in the table's title (default: the files read).
    """
    # Expanding, simplifying and compiling walk the guards recursively; a long
    # allow-list (`Owner == "u1" || ... || Owner == "u400"`) nests one level per
    # operand, so a compile that runs out of recursion is retried with a deep stack.
    return call_deep(lambda: _compile_policy(config, era, semantics, assume, source))


def _compile_policy(
    config: Config | None,
    era: str,
    semantics: str,
    assume: Mapping[str, Value] | None,
    source: str | None,
) -> StateTable:
    if era not in ERAS:
        raise PolicyError(f"unknown era {era!r} (known: {', '.join(ERAS)})")
    if semantics not in SEMANTICS:
        raise PolicyError(f"unknown semantics {semantics!r} (known: {', '.join(SEMANTICS)})")
    spec = load_spec(era, semantics)
    if config is None:
        config = load_config(era=era)
    expander = Expander(spec, config)
    fixed = dict(assume or {})
    domains = _domains(spec)  # one mapping for every guard (the simplifier memoises it)
    rows = _unreachable_are_dead(
        spec, tuple(_row(spec, expander, t, fixed, domains) for t in spec.transitions)
    )
    warnings = _warnings(spec, config, expander)
    if semantics == "manual":
        warnings[:0] = _local_guards_reading_jobs(spec, config)
    program = build_program(spec, config, warnings)
    return StateTable(
        era=era,
        semantics=semantics,
        rows=rows,
        spec=spec,
        source=source or _describe_source(config, era),
        assumptions=tuple(fixed.items()),
        warnings=tuple(warnings),
        program=program,
    )


def _describe_source(config: Config, era: str) -> str:
    if config.files:
        return ", ".join(config.files)
    return "<configuration text>" if config.names() else f"{era} default policy"


def _warnings(spec: EraSpec, config: Config, expander: Expander) -> list[str]:
    out = list(expander.warnings)
    if config.era != spec.era:
        out.insert(0, f"the configuration was read with {config.era} defaults, not {spec.era}")
    # Fatal knobs the guards never name (e.g. MachineMaxVacateTime) matter too.
    for policy in spec.policies:
        if policy.if_undefined == "fatal" and expander.value(policy.name).expr is None:
            expander.report_undefined(expander.value(policy.name))
    out += [w for w in expander.warnings if w not in out]
    if expander.unknown_local:
        names = ", ".join(sorted(expander.unknown_local, key=str.lower))
        out.append(
            f"evaluated locally, these names are taken to be job attributes (UNDEFINED): "
            f"{names}; list them in STARTD_ATTRS if the slot ad holds them"
        )
    if expander.absent_local:
        names = ", ".join(f"MY.{n}" for n in sorted(expander.absent_local, key=str.lower))
        out.append(
            f"evaluated locally, these references name attributes this configuration does "
            f"not publish in the slot ad (UNDEFINED): {names}; list them in STARTD_ATTRS "
            "if the slot ad holds them"
        )
    out += [f"configuration: {w.format()}" for w in config.warnings]
    return out


#: How the warning of `_local_guards_reading_jobs` begins (the CLI shows it loudly).
MANUAL_READS_JOB = "manual semantics misleads here: "


def _local_guards_reading_jobs(spec: EraSpec, config: Config) -> list[str]:
    """One warning per guard the manual evaluates "locally" (machine ad alone) that reads
    job attributes: read literally they are UNDEFINED there, which is rarely what the
    policy's author meant (an OSPool START with `!isUndefined(TARGET.ProjectName)` makes
    `START =?= false` hold in Claimed/Idle: every claim preempted at once), while the real
    startd evaluates them against the claim's job (reference D3). The job attributes are
    what the job expansion names and the local one no longer does (`compiler.expand`
    replaced them by UNDEFINED). A fresh `Expander`, so the table's warnings stay as they
    were."""
    expander = Expander(spec, config)
    where: dict[str, list[str]] = {}
    names: dict[str, set[str]] = {}
    for t in spec.transitions:
        guards = [*(x.guard for x in t.triggers if x.against == "local")]
        guards += [c.guard for c in t.activity_choice if c.against == "local"]
        for text in dict.fromkeys(g for g in guards if g.strip()):
            read = _refs(expander.guard(text, "job")) - _refs(expander.guard(text, "local"))
            if read:
                where.setdefault(text, []).append(f"{t.number} ({t.source})")
                names.setdefault(text, set()).update(read)
    return [
        f"{MANUAL_READS_JOB}{text} is evaluated locally (the slot ad alone) in row"
        f"{'s' if len(rows) > 1 else ''} {', '.join(rows)}, yet it reads job attributes "
        f"({', '.join(sorted(names[text], key=str.lower))}): read literally they are "
        "UNDEFINED there, while the real startd evaluates it against the claim's job; "
        "the code semantics (`--semantics code`, the default of every command) shows "
        "what the daemon does"
        for text, rows in where.items()
    ]


def _refs(e: A.Expr) -> set[str]:
    """Attribute references of `e`, as written (`TARGET.x`, `MY.x` or `x`)."""
    return {
        f"{x.scope}.{x.name}" if x.scope else x.name
        for x in A.walk(e, same_scope=False)
        if isinstance(x, A.AttrRef)
    }


# -- the program: knobs, runtime expressions, settings, published ad ----------------------

#: (knob, context) the runtime evaluates besides the guards: PREEMPT (the PREEMPT latch of
#: `set_preempt_latch: if_preempt`), MaxJobRetirementTime and MachineMaxVacateTime
#: (retirement and vacate time), RANK (CurrentRank, refusing a preempting claim), START.
RUNTIME_KNOBS = (
    ("PREEMPT", "job"),
    ("MaxJobRetirementTime", "job"),
    ("RANK", "job"),
    ("MachineMaxVacateTime", "job"),
    ("START", "job"),
)
#: Runtime knobs the slot ad does not carry as expressions (the startd publishes the
#: evaluated MachineMaxVacateTime of the running job instead; runtime.ads.machine_ad).
_NOT_PUBLISHED = ("MaxJobRetirementTime", "MachineMaxVacateTime")
#: Integer settings read from the configuration (None: the spec's timer or interval).
_INT_SETTINGS = ("MATCH_TIMEOUT", "KILLING_TIMEOUT", "POLLING_INTERVAL", "UPDATE_INTERVAL")


def build_program(spec: EraSpec, config: Config, warnings: list[str]) -> Program:
    """Everything the slot reads besides the guards, decided once (compiler.program).

    A fresh `Expander`, so that expanding the runtime's knobs adds nothing to the table's
    own warnings; a knob no guard names whose text does not parse is kept as "invalid"
    (with a warning) rather than stopping the compilation, as the runtime never needs it.
    """
    expander = Expander(spec, config)
    knobs: list[Knob] = []
    for policy in spec.policies:
        knobs.append(_knob(expander, policy, None, warnings))
        knobs += [_knob(expander, policy, suffix, warnings) for suffix in policy.variants]
    evaluated: list[tuple[str, A.Expr]] = []
    usable = {k.name for k in knobs if k.source != "invalid"}
    for name, against in RUNTIME_KNOBS:
        if name not in usable:  # not a knob of the era, or already reported invalid
            continue
        try:
            evaluated.append((name, expander.guard(name, against)))
        except PolicyError as err:  # no guard names it, so the table itself is fine
            warnings.append(f"{err.format()} ({name} taken as UNDEFINED by the slot)")
    published = [(name, e) for name, e in evaluated if name not in _NOT_PUBLISHED]
    done = {name for name, _ in evaluated}
    # The startd publishes its other policy knobs (and their variants) as the
    # configuration writes them.
    for knob in knobs:
        own = knob.spelling.lower() == knob.name.lower()  # not found under an alias
        if knob.name not in done and knob.source == "config" and knob.expr is not None and own:
            published.append((knob.name, knob.expr))
    cpu_busy = _optional_expr(config, "CpuBusy", warnings)
    if cpu_busy is not None:
        evaluated.append(("CpuBusy", cpu_busy))
        published.append(("CpuBusy", cpu_busy))
    return Program(tuple(knobs), tuple(evaluated), tuple(published), _settings(spec, config))


def _knob(expander: Expander, policy: Policy, suffix: str | None, warnings: list[str]) -> Knob:
    """The knob `policy` (or its variant `suffix`) as the configuration defines it."""
    name = policy.name + (suffix or "")
    try:
        if suffix is None:
            found = expander.value(policy.name)
        else:
            found = expander.variant_value(policy, suffix)
    except PolicyError as err:  # a guard naming it would have stopped the compilation
        warning = f"{err.format()} (no guard reads {name}; the slot takes it as UNDEFINED)"
        if warning not in warnings:
            warnings.append(warning)
        return Knob(name, name, "invalid", None, suffix and policy.name, note=err.message)
    return Knob(name, found.name, found.source, found.expr, suffix and policy.name)


def _optional_expr(config: Config, name: str, warnings: list[str]) -> A.Expr | None:
    try:
        return config.expr(name)
    except PolicyError as err:
        warnings.append(f"{err.format()} ({name} taken as not defined)")
        return None


def _settings(spec: EraSpec, config: Config) -> Settings:
    ints = {name: _int(_text(config, name)) for name in _INT_SETTINGS}
    backfill = _param_boolean(_text(config, "ENABLE_BACKFILL"))
    worklife: int | None = None
    try:
        policy = spec.policy("CLAIM_WORKLIFE")
    except KeyError:
        pass
    else:
        # Empty (POLICY : Desktop) means forever; never written: the era default.
        written = config.raw("CLAIM_WORKLIFE")
        worklife = _int(_text(config, "CLAIM_WORKLIFE") if written is not None else policy.default)
    return Settings(
        match_timeout=ints["MATCH_TIMEOUT"],
        killing_timeout=ints["KILLING_TIMEOUT"],
        polling_interval=ints["POLLING_INTERVAL"],
        update_interval=ints["UPDATE_INTERVAL"],
        claim_worklife=worklife,
        # ResMgr::backfillMgrConfig: verifyBackfillSystem knows only BOINC.
        backfill_enabled=backfill
        and (_text(config, "BACKFILL_SYSTEM") or "").strip().lower() == "boinc",
    )


def _param_boolean(text: str | None) -> bool:
    """`param_boolean(NAME, false)` (condor_config.cpp `string_is_boolean_param`): a
    leading true/1/false/0 followed by nothing but spaces, else the text evaluated as a
    ClassAd expression (a number is TRUE when not 0); anything else is the default."""
    text = (text or "").strip()
    for literal, value in (("true", True), ("1", True), ("false", False), ("0", False)):
        if text[: len(literal)].lower() == literal and not text[len(literal) :].strip():
            return value
    try:
        result = call_deep(evaluate, parse(text), {}, None) if text else None
    except PolicyError:  # text that does not parse is not a boolean: the default
        return False
    if isinstance(result, bool):
        return result
    return isinstance(result, int | float) and result != 0


def _text(config: Config, name: str) -> str | None:
    try:
        return config.get(name)
    except PolicyError:  # a macro problem: the startd falls back to its default
        return None


def _int(text: str | None) -> int | None:
    """An integer setting's value (its expression evaluated alone); None when it is not a
    number, as the startd then keeps its default."""
    if text is None:
        return None
    try:
        value = compile_expr(parse(text))({}, None)
    except ClassAdSyntaxError:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


# -- one row ------------------------------------------------------------------------------


def _row(
    spec: EraSpec,
    expander: Expander,
    transition: Transition,
    assume: dict[str, Value],
    domains: Mapping[str, Domain],
) -> Row:
    fixed = {
        **assume,
        "State": transition.source.state,
        "Activity": transition.source.activity,
    }
    triggers: list[CompiledGuard | None] = []
    combined: list[A.Expr] = []
    simpler: list[A.Expr] = []
    againsts: list[str] = []
    for trigger in transition.triggers:
        if not trigger.guard:
            triggers.append(None)
            continue
        expanded = expander.guard(trigger.guard, trigger.against)
        compiled = _compiled(trigger.guard, trigger.against, expanded, domains, fixed)
        triggers.append(compiled)
        if trigger.kind == "policy" and expanded not in combined:
            combined.append(expanded)
            simpler.append(compiled.expr)
            againsts.append(trigger.against)
    choices = tuple(
        _compiled(c.guard, c.against, expander.guard(c.guard, c.against), domains, fixed)
        for c in transition.activity_choice
    )
    guard = None
    if combined:
        against = "+".join(dict.fromkeys(againsts))
        # Simplified and decided from the triggers' simplified guards: each has the value
        # of its expansion in every situation, so their join has the value of the join of
        # the expansions, and only the join is left to simplify (issue 11, cold compile).
        guard = _compiled(
            transition.guard, against, _joined(combined), domains, fixed, start=_joined(simpler)
        )
    status = _row_status(transition, tuple(triggers), guard)
    return Row(
        transition=transition,
        guard=guard,
        triggers=tuple(triggers),
        choices=choices,
        status=status,
        policy_status=guard.status if guard else None,
    )


def _joined(guards: list[A.Expr]) -> A.Expr:
    """A row's policy guards as one: the last one, after the startd's test of each other."""
    joined = guards[-1]
    for item in reversed(guards[:-1]):
        joined = A.Binary("||", _holds(item), joined)
    return joined


def _holds(e: A.Expr) -> A.Expr:
    """`(e || false) =?= true`: TRUE when the startd's test of `e` passes, else FALSE.

    The startd tries a row's policy triggers one by one, so an ERROR (or a string) from
    one must not hide the next; in a plain `a || b`, an ERROR `a` would make the whole
    disjunction ERROR. `x || false` is TRUE exactly for TRUE and non-zero numbers (ClassAd
    treats numbers as booleans there), and `=?= true` folds every other value to FALSE.
    """
    return A.Binary("=?=", A.Binary("||", e, A.Boolean(False)), A.Boolean(True))


def _compiled(
    text: str,
    against: str,
    expanded: A.Expr,
    domains: Mapping[str, Domain],
    assume: Mapping[str, Value],
    *,
    start: A.Expr | None = None,
) -> CompiledGuard:
    """The guard `text` compiled from its expansion; `start`, when given, is an
    expression with the value of `expanded` in every situation, simpler to work on."""
    work = expanded if start is None else start
    result = simplify(work, domains=domains, assume=assume)
    status: Status = truth(work, domains=domains, assume=assume)
    return CompiledGuard(
        text=text,
        against=against,
        expanded=unparse(expanded),
        simplified=unparse(result.expr),
        expr=result.expr,
        status=status,
        minimised=result.minimised,
        notes=result.notes,
        predicate=compile_expr(result.expr),
    )


def _row_status(
    transition: Transition,
    triggers: tuple[CompiledGuard | None, ...],
    guard: CompiledGuard | None,
) -> Status:
    """dead: no trigger can fire; always: the combined policy guard always holds."""
    # A plain event or timer (no guard) fires whenever it happens.
    can_fire = any(c is None or c.status != "dead" for c in triggers)
    if not transition.triggers or not can_fire:
        return "dead"
    if guard is not None and guard.status == "always":
        return "always"
    return "live"


def reachable_pairs(spec: EraSpec, rows: Iterable[Row]) -> frozenset[Pair]:
    """The pairs some chain of rows that can fire (status not "dead") leads to from
    `spec.initial`, every target of a `State/*` row counted.

    The one definition `compile` (row statuses), `diagram` (grey boxes) and `check`
    (coverage) share. Sound for "never": a dead row never fires, so a pair outside the
    set is never entered under the policy; a pair inside may still never be entered in
    practice (a live guard that no situation makes TRUE after the previous steps).
    """
    by_id = {row.id: row for row in rows}

    def targets(pair: Pair) -> Iterator[Pair]:
        for t in spec.transitions_from(pair):
            row = by_id.get(t.id)
            if row is not None and row.status != "dead":
                yield from row.possible_targets

    return reach((spec.initial,), targets)


def _unreachable_are_dead(spec: EraSpec, rows: tuple[Row, ...]) -> tuple[Row, ...]:
    """Rows out of a pair no chain of firing rows reaches from the initial pair get the
    status "dead": under this policy they never fire, whatever their guards say (a
    row's `policy_status` keeps its guard's own verdict). One pass is enough: such a row
    cannot have made any pair reachable."""
    reached = reachable_pairs(spec, rows)
    return tuple(
        row
        if row.transition.source in reached or row.status == "dead"
        else replace(row, status="dead")
        for row in rows
    )


# -- manual vs code ---------------------------------------------------------------------


class RowDifference(msgspec.Struct, frozen=True):
    """One row where the manual and the code semantics differ for a given policy.

    `manual`/`code` are "<status>: <simplified guard or trigger list>", or "absent";
    `d_number` is the reference's explanation when the spec records one.
    """

    id: str
    d_number: str | None
    manual: str
    code: str
    why: str


def policy_differences(
    config: Config | None = None,
    era: str = "htcondor-current",
    *,
    assume: Mapping[str, Value] | None = None,
) -> tuple[RowDifference, ...]:
    """Rows whose triggers, simplified guards or statuses differ between the two
    semantics for this policy, plus the spec's own differences that touch no row."""
    manual = compile_policy(config, era, "manual", assume=assume)
    code = compile_policy(config, era, "code", assume=assume)
    by_id_m = {r.id: r for r in manual.rows}
    by_id_c = {r.id: r for r in code.rows}
    d_numbers = {d.item: d.d_number for d in spec_differences(era)}
    out: list[RowDifference] = []
    for key in list(dict.fromkeys([*by_id_m, *by_id_c])):
        m, c = by_id_m.get(key), by_id_c.get(key)
        d = d_numbers.get(f"transition {key}") or _row_d(m) or _row_d(c)
        if m is None or c is None:
            present = m or c
            assert present is not None
            text = _describe(present)
            out.append(
                RowDifference(
                    key,
                    d,
                    text if m else "absent",
                    text if c else "absent",
                    "only in the " + ("manual" if m else "code"),
                )
            )
            continue
        why = _why(m, c)
        if why:
            out.append(RowDifference(key, d, _describe(m), _describe(c), why))
    rows = {f"transition {r.id}" for r in (*manual.rows, *code.rows)}
    for diff in spec_differences(era):
        if diff.item not in rows and not diff.item.startswith("transition "):
            out.append(RowDifference(diff.item, diff.d_number, diff.manual, diff.code, "spec"))
    return tuple(out)


def _row_d(row: Row | None) -> str | None:
    if row is None:
        return None
    return row.transition.difference or next(
        (t.difference for t in row.transition.triggers if t.difference), None
    )


def _describe(row: Row) -> str:
    guard = row.simplified or "(no policy guard)"
    return f"{row.status}: {guard} | {row.trigger}"


def _why(m: Row, c: Row) -> str:
    reasons: list[str] = []
    if m.status != c.status:
        reasons.append(f"status {m.status} vs {c.status}")
    if m.simplified != c.simplified:
        reasons.append("policy guard")
    if m.trigger != c.trigger:
        reasons.append("triggers")
    if [g.simplified for g in m.choices] != [g.simplified for g in c.choices]:
        reasons.append("activity choice")
    return ", ".join(reasons)
