"""Checks over the compiled state table: dead and always-true transitions, unreachable
pairs, flapping, a Suspended activity that is never left, jobs never evicted, vacating
forever.

Stage: static analysis (pure functions `Analysis -> list[Finding]`). Each check states
its rule in its docstring; "dead"/"never" claims come only from an "unsat" proof, "can
happen" claims only with a witness the evaluator confirmed.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.analysis.context import AFTER, STATE_BOUND, Analysis, conj, rename
from compiler.analysis.findings import Finding
from compiler.analysis.sat import Witness
from compiler.classad import ast as A
from compiler.classad import unparse
from compiler.table import Row, reach

Check = Callable[[Analysis], list[Finding]]


def _pair(p: tuple[str, str]) -> str:
    return f"{p[0]}/{p[1]}"


def _label(row: Row) -> str:
    return f"transition {row.number}" if row.transition.numbered else row.id


def trigger_verdicts(an: Analysis, row: Row) -> dict[int, str]:
    """Verdict (sat/unsat/unknown) of each guarded trigger, in its source pair's context.
    Event and timer triggers without a guard count as "sat" (they can always happen)."""
    out: dict[int, str] = {}
    assume = an.assume(row.source)
    for index, (trig, compiled) in enumerate(
        zip(row.transition.triggers, row.triggers, strict=True)
    ):
        if compiled is None:
            out[index] = "sat" if not trig.guard.strip() else "unknown"
            continue
        out[index] = an.sat(compiled.expr, assume).verdict
    return out


def dead_and_always(an: Analysis) -> list[Finding]:
    """A row is dead when every trigger's guard is unsatisfiable in its source pair; a
    policy trigger of a live row that can never fire is reported too (info); a row whose
    policy guard is TRUE for every input fires at the first evaluation (info)."""
    found: list[Finding] = []
    for row in an.table.rows:
        verdicts = trigger_verdicts(an, row)
        if verdicts and all(v == "unsat" for v in verdicts.values()):
            proofs = {
                an.sat(g.expr, an.assume(row.source)).proof for _, g in an.policy_guards(row)
            } - {""}
            trivial = all(
                _constant_guard(an, g.expanded) or _other_pair(g.expanded, row.source)
                for _, g in an.policy_guards(row)
            )
            found.append(
                Finding(
                    "dead-transition",
                    "info" if trivial else "warning",
                    f"{_label(row)} ({_pair(row.source)} -> {_pair(row.target)}) can never fire: "
                    f"{row.simplified or row.trigger}",
                    rows=(row.id,),
                    pairs=(_pair(row.source),),
                    proof="; ".join(sorted(proofs)),
                )
            )
            continue
        for index, compiled in an.policy_guards(row):
            verdict = verdicts.get(index)
            trig = row.transition.triggers[index]
            if verdict == "unsat" and trig.kind == "policy":
                found.append(
                    Finding(
                        "dead-trigger",
                        "info",
                        f"{_label(row)}: the policy trigger {trig.guard!r} can never fire "
                        f"(guard {compiled.simplified or compiled.expanded})",
                        rows=(row.id,),
                        pairs=(_pair(row.source),),
                        proof=an.sat(compiled.expr, an.assume(row.source)).proof,
                    )
                )
            elif verdict == "unknown":
                found.append(
                    Finding(
                        "undecided-guard",
                        "info",
                        f"{_label(row)}: could not decide whether {trig.guard!r} can be TRUE "
                        f"({compiled.simplified})",
                        rows=(row.id,),
                    )
                )
        if row.guard is not None and row.transition.policy_triggers:
            sure = an.sat(row.guard.expr, an.assume(row.source), want=("F", "U", "E"))
            if sure.verdict == "unsat":
                found.append(_always(an, row, sure.proof))
    return found


def _always(an: Analysis, row: Row, proof: str) -> Finding:
    """An always-TRUE row: information when the policy set a constant (`IS_OWNER =
    False`), a violation when the guard is written as a condition on attributes that
    can never be FALSE (`SUSPEND = KeyboardIdle >= 0`): the admin meant a condition and
    the slot takes the transition at every evaluation."""
    written = list(dict.fromkeys(g.expanded for _, g in an.policy_guards(row)))
    constant = all(_constant_guard(an, text, ignore=STATE_BOUND) for text in written)
    head = f"{_label(row)} ({_pair(row.source)} -> {_pair(row.target)})"
    proof = proof.replace("never FALSE/UNDEFINED/ERROR", "always TRUE")
    if constant:
        return Finding(
            "always-transition",
            "info",
            f"{head} fires at the first evaluation unless an earlier step does: its guard "
            f"{row.simplified} is always TRUE",
            rows=(row.id,),
            pairs=(_pair(row.source),),
            proof=proof,
        )
    return Finding(
        "always-condition",
        "violation",
        f"{head}: its guard {' || '.join(written)} is written as a condition on attributes "
        f"but is TRUE for every input in {_pair(row.source)}, so the slot takes it at the "
        "first evaluation every time",
        rows=(row.id,),
        pairs=(_pair(row.source),),
        proof=proof,
    )


def _constant_guard(an: Analysis, text: str, ignore: tuple[str, ...] = ()) -> bool:
    """The expanded guard names no attribute (only predicates and the names in `ignore`),
    or is a conjunction with a literal FALSE: the policy set it to a constant on purpose
    (`SUSPEND = False`), so a dead or an always-TRUE row is information, not a bug."""
    from compiler.analysis.sat import attribute_refs
    from compiler.classad import parse
    from compiler.classad.errors import ClassAdSyntaxError

    try:
        expr = parse(text)
    except ClassAdSyntaxError:
        return False
    if _false_conjunct(expr):
        return True
    refs = attribute_refs(expr)
    preds = {p.lower() for p in (*an.predicates, *ignore)}
    return all(r.key in preds for r in refs)


def _other_pair(text: str, pair: tuple[str, str]) -> bool:
    """The guard requires, in a top-level conjunct, another State or Activity than the
    pair's (`PREEMPT = (Activity == "Busy") && ...` read in Claimed/Retiring): the policy
    chose where it applies, so the row being dead there is information."""
    from compiler.classad import parse
    from compiler.classad.errors import ClassAdSyntaxError

    try:
        expr = parse(text)
    except ClassAdSyntaxError:
        return False
    here = {"state": pair[0].lower(), "activity": pair[1].lower()}
    for part in A.conjuncts(expr):
        if not (isinstance(part, A.Binary) and part.op in ("==", "=?=")):
            continue
        for ref, lit in ((part.left, part.right), (part.right, part.left)):
            if (
                isinstance(ref, A.AttrRef)
                and ref.scope in (None, "MY")
                and ref.key in here
                and isinstance(lit, A.String)
                and lit.value.lower() != here[ref.key]
            ):
                return True
    return False


def _false_conjunct(e: A.Expr) -> bool:
    """`... && false` (at the top of a conjunction): a constant the configuration wrote,
    as the HOLD_IF_* / PREEMPT_IF_* templates do with `WANT_SUSPEND = (...) =!= true &&
    $(WANT_SUSPEND)` over the default `WANT_SUSPEND = false`."""
    return any(isinstance(c, A.Boolean) and c.value is False for c in A.conjuncts(e))


def live_edges(an: Analysis) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """Source pair -> target pairs of every row with a trigger that is not proved dead."""
    edges: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for row in an.table.rows:
        verdicts = trigger_verdicts(an, row)
        if verdicts and all(v == "unsat" for v in verdicts.values()):
            continue
        for target in row.possible_targets:
            edges.setdefault(row.source, set()).add((target.state, target.activity))
    return edges


def reachable_pairs(an: Analysis) -> set[tuple[str, str]]:
    spec = an.table.spec
    edges = live_edges(an)
    return set(reach([(spec.initial.state, spec.initial.activity)], lambda p: edges.get(p, ())))


def unreachable(an: Analysis) -> list[Finding]:
    """Pairs of the era that no chain of live transitions reaches from the initial pair."""
    seen = reachable_pairs(an)
    found = []
    for spec_pair in an.table.spec.pairs:
        pair = (spec_pair.pair.state, spec_pair.pair.activity)
        if an.table.spec.state(pair[0]).internal or pair in seen:
            continue
        found.append(
            Finding(
                "unreachable-pair",
                "info",
                f"{_pair(pair)} is unreachable with this policy",
                pairs=(_pair(pair),),
                proof="every transition into it, or into the pairs leading to it, is dead",
            )
        )
    return found


#: Predicate values of a slot running a job normally: no preempting claim, no retirement,
#: no draining. Flapping is a question about sensors, so the predicates are fixed here and
#: changed only by the first transition's own actions (see `_after`).
NORMAL: dict[str, bool] = {
    "JobRunning": True, "HasPreemptingClaim": False, "MayUnretire": True,
    "InRetirement": False, "RetirementExpired": False, "PreemptLatch": False,
    "ClaimWorklifeExpired": False, "Draining": False, "AllSlotsDrained": False,
    "WaitingForActivation": False, "BackfillEnabled": False, "BackfillClientRunning": False,
    "DestinationOwner": False, "DestinationMatched": False, "DestinationClaimed": False,
    "DynamicSlot": False,
}  # fmt: skip


def _after(an: Analysis, row: Row, index: int) -> dict[str, bool]:
    """NORMAL changed by the actions of `row` fired by trigger `index`."""
    out = dict(NORMAL)
    for action in (*row.transition.triggers[index].actions, *row.transition.actions):
        match (action.name, action.arg):
            case ("retire", "irreversible" | "peaceful"):
                out.update(MayUnretire=False, InRetirement=True)
            case ("set_preempt_latch", _):
                out["PreemptLatch"] = True
    if out["InRetirement"] and _constant(an, "MaxJobRetirementTime", lambda v: v <= 0):
        out["RetirementExpired"] = True  # no retirement time at all
    return out


def _constant(an: Analysis, name: str, test: Callable[[float], bool]) -> bool:
    from compiler.classad import evaluate

    expr = an.policy_expr(name)
    if expr is None:
        try:
            default = an.table.spec.policy(name).default
        except KeyError:
            return False
        if default is None:
            return True  # missing counts as 0 (reference section 3.5)
        from compiler.classad import parse

        expr = parse(default)
    value = evaluate(expr, {}, {})
    return isinstance(value, int | float) and not isinstance(value, bool) and test(float(value))


def flapping(an: Analysis) -> list[Finding]:
    """Rows A->B and B->A whose policy triggers both depend on a policy expression and
    fire for the same sensor input: the slot would oscillate (SUSPEND/CONTINUE, IS_OWNER
    flipping, PREEMPT/SUSPEND ping-pong). State-bound attributes (State, Activity, the
    Entered* stamps) are separate for the two pairs; the sensors and the job are shared;
    the predicates are those of a normally running job (`NORMAL`), after the first
    transition's own actions for the second pair. Each trigger fires only if no earlier
    step of its pair's evaluation order holds."""
    found: list[Finding] = []
    rows = [r for r in an.table.rows if r.source != r.target]
    preds = list(an.predicates)
    for first in rows:
        for second in rows:
            if first.target != second.source or second.target != first.source:
                continue
            if _key(first) >= _key(second):
                continue
            hit = _flap(an, first, second, preds)
            if hit is not None:
                found.append(hit)
    return found


def _key(row: Row) -> tuple[int, str]:
    return (row.number if isinstance(row.number, int) else 10**6, row.id)


def _flap(an: Analysis, first: Row, second: Row, preds: list[str]) -> Finding | None:
    for i, _ in an.policy_guards(first):
        if first.transition.triggers[i].kind != "policy" or not _policy_named(an, first, i):
            continue
        for j, _ in an.policy_guards(second):
            if second.transition.triggers[j].kind != "policy" or not _policy_named(an, second, j):
                continue
            later = rename(an.firing(second, j), [*STATE_BOUND, *preds])
            both = conj([an.firing(first, i), later])
            assume: dict[str, object] = {
                **an.assume(first.source),
                **an.assume(second.source, AFTER),
            }
            assume.update({k: v for k, v in NORMAL.items() if k in preds})
            assume.update({k + AFTER: v for k, v in _after(an, first, i).items() if k in preds})
            result = an.sat(both, assume)
            if result.verdict == "sat":
                return Finding(
                    "flapping",
                    "violation",
                    f"{_label(first)} ({_pair(first.source)} -> {_pair(first.target)}, "
                    f"{first.transition.triggers[i].guard}) and {_label(second)} (back, "
                    f"{second.transition.triggers[j].guard}) both fire for the same input: "
                    "the slot oscillates between them",
                    rows=(first.id, second.id),
                    pairs=(_pair(first.source), _pair(first.target)),
                    witness=_sensors_only(result.witness, preds),
                )
    return None


def _sensors_only(w: Witness | None, preds: list[str]) -> Witness | None:
    if w is None:
        return None
    hidden = {p.lower() for p in preds} | {(p + AFTER).lower() for p in preds}
    hidden |= {n.lower() for n in ("State", "Activity", "State" + AFTER, "Activity" + AFTER)}
    my = tuple((k, v) for k, v in w.my if k.lower() not in hidden)
    return Witness(my, w.target, w.now)


def _policy_named(an: Analysis, row: Row, index: int) -> bool:
    guard = row.transition.triggers[index].guard
    from compiler.spec import guard_names

    names = guard_names(guard)  # a loaded spec's guards are valid ClassAd (checked on load)
    return any(an.table.spec.name_kind(n) == "policy" for n in names)


def suspended_forever(an: Analysis) -> list[Finding]:
    """Claimed/Suspended can be entered by policy but no trigger that depends on a policy
    expression (CONTINUE, PREEMPT, ...) can ever leave it: only a release, a vacate or
    the end of the claim would."""
    pair = ("Claimed", "Suspended")
    entering = [
        r for r in an.table.rows if pair in [(t.state, t.activity) for t in r.transition.targets]
    ]
    if not entering or pair not in reachable_pairs(an):
        return []
    leaving = [r for r in an.table.rows_from(pair) if r.target != r.source]
    live = []
    for row in leaving:
        verdicts = trigger_verdicts(an, row)
        for index, _ in an.policy_guards(row):
            if _policy_named(an, row, index) and verdicts.get(index) != "unsat":
                live.append(row.id)
    if live:
        return []
    return [
        Finding(
            "suspended-forever",
            "violation",
            "a suspended job is never resumed or preempted by policy: every policy trigger "
            "out of Claimed/Suspended is dead",
            rows=tuple(r.id for r in leaving),
            pairs=(_pair(pair),),
            proof="each guard proved never TRUE",
        )
    ]


def stuck_pairs(an: Analysis) -> list[Finding]:
    """A reachable pair that no live transition leaves, not by policy, timer or event:
    a slot that gets there stays for good (the manuals' machines always have a way out:
    a release, a vacate, a job exit)."""
    edges = live_edges(an)
    found = []
    for here in sorted(reachable_pairs(an)):
        if an.table.spec.state(here[0]).internal:
            continue
        if edges.get(here, set()) - {here}:
            continue
        rows = tuple(r.id for r in an.table.rows_from(here))
        found.append(
            Finding(
                "stuck-pair",
                "violation",
                f"{_pair(here)} is reachable but never left: every transition out of it is dead",
                rows=rows,
                pairs=(_pair(here),),
                proof="each guard out of it proved never TRUE",
            )
        )
    return found


def no_job_starts(an: Analysis) -> list[Finding]:
    """Claimed/Busy (a job running) is unreachable: every chain of transitions towards it
    passes a dead row, so the policy never runs a job. The dead rows on the frontier
    (from a reachable pair into an unreachable one) are named: they are what to fix."""
    busy = ("Claimed", "Busy")
    spec_pairs = {(p.pair.state, p.pair.activity) for p in an.table.spec.pairs}
    seen = reachable_pairs(an)
    if busy not in spec_pairs or busy in seen:
        return []
    frontier = [
        r
        for r in an.table.rows
        if r.source in seen and any((t.state, t.activity) not in seen for t in r.transition.targets)
    ]
    blocking = ", ".join(
        f"{_label(r)} ({_pair(r.source)} -> {_pair(r.target)}: {r.simplified or r.trigger})"
        for r in frontier
    )
    return [
        Finding(
            "no-job-starts",
            "violation",
            "no job can ever start: Claimed/Busy is unreachable with this policy"
            + (f"; the dead transitions in the way are {blocking}" if blocking else ""),
            rows=tuple(r.id for r in frontier),
            pairs=(_pair(busy),),
            proof="every transition into Claimed/Busy, or into the pairs leading to it, is "
            "proved dead",
        )
    ]


def never_evicted(an: Analysis) -> list[Finding]:
    """START can be FALSE for a running job, yet PREEMPT can never be TRUE (and neither
    can WANT_SUSPEND && SUSPEND) while it is: once a job runs, the owner's return never
    gets it off the machine."""
    start = an.policy_expr("START")
    preempt = an.policy_expr("PREEMPT")
    if start is None or preempt is None:
        return []
    assume = an.assume(("Claimed", "Busy"))
    start_false = A.Binary("=?=", start, A.Boolean(False))
    if an.sat(start_false, assume).verdict != "sat":
        return []
    evict = preempt
    want, suspend = an.policy_expr("WANT_SUSPEND"), an.policy_expr("SUSPEND")
    if want is not None and suspend is not None:
        evict = A.Binary("||", preempt, A.Binary("&&", want, suspend))
    result = an.sat(conj([start_false, evict]), assume)
    if result.verdict != "unsat":
        return []
    return [
        Finding(
            "never-evicted",
            "warning",
            "START can be FALSE while a job runs (the machine no longer wants it), but "
            "PREEMPT (or WANT_SUSPEND && SUSPEND) is never TRUE then: a running job is "
            f"never evicted by policy (START = {unparse(start)}, PREEMPT = {unparse(preempt)})",
            pairs=("Claimed/Busy",),
            witness=an.sat(start_false, assume).witness,
            proof=result.proof,
        )
    ]


def vacating_forever(an: Analysis) -> list[Finding]:
    """KILL can never be TRUE and no vacate time limit applies (MachineMaxVacateTime is
    absent in this era, or infinite): a job that ignores the soft kill keeps the slot in
    Preempting/Vacating until it exits on its own."""
    try:
        row = next(
            r
            for r in an.table.rows_from(("Preempting", "Vacating"))
            if r.target == ("Preempting", "Killing")
        )
    except StopIteration:
        return []
    kill = [(i, g) for i, g in an.policy_guards(row) if row.transition.triggers[i].kind == "policy"]
    if not kill:
        return []
    if any(an.sat(g.expr, an.assume(row.source)).verdict != "unsat" for _, g in kill):
        return []
    limit = _vacate_limit(an)
    if limit is not None:
        return []
    return [
        Finding(
            "vacating-forever",
            "warning",
            f"KILL can never be TRUE ({_label(row)} is dead) and there is no vacate time "
            "limit: a job that ignores the soft-kill signal stays in Preempting/Vacating "
            "until it exits by itself",
            rows=(row.id,),
            pairs=("Preempting/Vacating",),
            proof=an.sat(kill[0][1].expr, an.assume(row.source)).proof,
        )
    ]


def _vacate_limit(an: Analysis) -> float | None:
    names = {t.name for t in an.table.spec.timers}
    if "MachineMaxVacateTime" not in names:
        return None
    expr = an.policy_expr("MachineMaxVacateTime")
    if expr is None:
        timer = an.table.spec.timer("MachineMaxVacateTime")
        return float(timer.default) if timer.default is not None else None
    from compiler.classad import evaluate

    value = evaluate(expr, {}, {})
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 600.0  # depends on the job: assume it is finite
    if value >= 2**31 - 1 or value < 0:
        return None
    return float(value)


CHECKS: tuple[Check, ...] = (
    dead_and_always,
    unreachable,
    flapping,
    suspended_forever,
    stuck_pairs,
    no_job_starts,
    never_evicted,
    vacating_forever,
)
