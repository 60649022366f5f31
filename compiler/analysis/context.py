"""Shared look-ups for the table checks and lints: guards of a row in the context of its
source pair, the firing condition of a trigger (earlier steps of the evaluation order
did not hold), and satisfiability with the table's domains.

Stage: static analysis support; pure functions over a `StateTable`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from compiler.analysis.sat import Satisfiability, Witness, machine_domains, satisfiable
from compiler.classad import ast as A
from compiler.classad import compile_expr, parse
from compiler.program import Knob
from compiler.simplify import Domain, simplify
from compiler.simplify.domains import STARTD_RELATIONS, Relation
from compiler.simplify.threevl import tv_of_value
from compiler.spec.ir import Pair
from compiler.table import CompiledGuard, Row, StateTable, reach

#: Attributes whose value belongs to the state the slot is in (they change when it moves).
STATE_BOUND = ("State", "Activity", "EnteredCurrentState", "EnteredCurrentActivity")
#: Attributes the startd publishes as numbers when it publishes them at all (they may be
#: missing: UNDEFINED), used so that witnesses read like real slot ads.
PUBLISHED_NUMBERS = (
    "JobStart", "CpuBusyTime", "CpuBusyValue", "LastPeriodicCheckpoint", "TotalJobRunTime",
    "TotalJobSuspendTime", "TotalClaimRunTime", "TotalClaimSuspendTime", "ImageSize_RAW",
    "PreemptingRank", "RetirementTimeRemaining", "MachineMaxVacateTime", "Mips", "KFlops",
)  # fmt: skip
#: Most predicates `Analysis.impossible` enumerates (2^n assignments).
MAX_ENUMERATED = 10
#: Suffix given to state-bound attributes of "the other" pair in two-pair questions.
AFTER = "__after"


def holds(e: A.Expr) -> A.Expr:
    """`e` as a conjunct whose truth is TRUE exactly when the startd's test holds."""
    return e


def fails(e: A.Expr) -> A.Expr:
    """TRUE exactly when `e` does not hold (FALSE, UNDEFINED or ERROR), left to right so
    that an ERROR operand cannot poison the disjunction."""
    return A.Binary(
        "||",
        A.Binary("||", A.Call("isError", (e,)), A.Call("isUndefined", (e,))),
        A.Unary("!", e),
    )


def conj(items: Iterable[A.Expr]) -> A.Expr:
    out: A.Expr | None = None
    for item in items:
        out = item if out is None else A.Binary("&&", out, item)
    return out if out is not None else A.Boolean(True)


def rename(e: A.Expr, names: Iterable[str], suffix: str = AFTER) -> A.Expr:
    """`e` with unscoped/MY references to `names` renamed (the other pair's copy)."""
    keys = {n.lower() for n in names}

    def walk(x: A.Expr) -> A.Expr:
        if isinstance(x, A.AttrRef) and x.scope in (None, "MY") and x.key in keys:
            return A.AttrRef(x.name + suffix, x.scope)
        return A.map_children(x, walk)

    return walk(e)


@dataclass(frozen=True)
class Analysis:
    """A table plus the domains and caches the checks share."""

    table: StateTable
    extra_machine: tuple[str, ...] = ()
    _cache: dict[Any, Satisfiability] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def predicates(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.table.spec.predicates)

    @cached_property
    def domains(self) -> dict[str, Domain]:
        doms = machine_domains(self.predicates)
        for name in PUBLISHED_NUMBERS:
            doms.setdefault(name, Domain("integer", False, 0))
        doms["State"] = Domain("string", True)
        doms["Activity"] = Domain("string", True)
        for name in STATE_BOUND:
            if name in doms:
                doms[name + AFTER] = doms[name]
        return doms

    def assume(self, pair: tuple[str, str], suffix: str = "") -> dict[str, Any]:
        return {f"State{suffix}": pair[0], f"Activity{suffix}": pair[1]}

    @cached_property
    def relations(self) -> tuple[tuple[frozenset[str], A.Expr], ...]:
        """(lower-case names of the attributes it is about, condition) of every relation the
        startd guarantees in this table's slot ads: STARTD_RELATIONS, and the CpuBusy
        bookkeeping of the era (`cpu_busy_relations`)."""
        out = [
            (frozenset(a.lower() for a in r.attributes), parse(r.text)) for r in STARTD_RELATIONS
        ]
        rule = self.table.spec.helpers.cpu_busy
        busy = self.table.program.expression(rule.expression)
        if busy is not None:
            out += cpu_busy_relations(rule.expression, busy, rule.publish)
        return tuple(out)

    @cached_property
    def proof_relations(self) -> tuple[tuple[frozenset[str], A.Expr], ...]:
        """`relations`, the predicate relations (PREDICATE_RELATIONS) and those this
        configuration adds (`_configured_relations`): what `impossible` assumes. `sat`
        leaves them out, as the table's statuses (compile) do, so that the two agree; a
        witness search with them conjoined would also ask for a value of every
        predicate."""
        known = {*self.predicates, "State", "Activity"}  # a relation needs all its names
        out = list(self.relations)
        for rel in PREDICATE_RELATIONS:
            if known.issuperset(rel.attributes):
                out.append((frozenset(a.lower() for a in rel.attributes), parse(rel.text)))
        return (*out, *self._configured_relations())

    def _configured_relations(self) -> list[tuple[frozenset[str], A.Expr]]:
        """Relations this configuration adds to PREDICATE_RELATIONS (the runtime's and
        the reference's helpers, base.yaml `helpers`): a MaxJobRetirementTime that is
        never above 0 gives NO_RETIREMENT, and any limit its own relation; a CLAIM_WORKLIFE
        that is UNDEFINED or below 0 never expires a claim (Claim::claimWorklifeExpired);
        no preempting claim without a rule that registers one."""
        out: list[tuple[frozenset[str], A.Expr]] = []
        names = set(self.predicates)
        limit = self.table.program.expression(self.table.spec.helpers.retirement.limit)
        if {"RetirementExpired", "MayUnretire"} <= names and limit is not None:
            # Whatever the limit: a limit that is not above 0 leaves no time, unless a
            # peaceful shutdown (irreversible) made it unlimited, which a limit equal to
            # `peaceful_unlimited_unless` prevents.
            unless = self.table.spec.helpers.retirement.peaceful_unlimited_unless
            positive = A.Binary("=?=", A.Binary(">", limit, A.Integer(0)), A.Boolean(True))
            peaceful = A.Binary(
                "&&",
                parse("!MayUnretire"),
                A.Binary("=!=", limit, parse(str(unless))),
            )
            limited = A.Binary("||", A.Binary("||", parse("RetirementExpired"), positive), peaceful)
            out.append((frozenset({"retirementexpired", "mayunretire"}), limited))
            if _never_positive(limit) or self._plain(positive, None, ("T",)).verdict == "unsat":
                for text in NO_RETIREMENT:
                    fact = parse(text)
                    out.append((frozenset(_names(fact) - {"state", "activity"}), fact))
        if "HasPreemptingClaim" in names:
            where = self._preempting_pairs()
            if where != frozenset(p.pair for p in self.table.spec.pairs):
                pending: A.Expr = A.Unary("!", parse("HasPreemptingClaim"))
                for pair in sorted(where, key=str):
                    at = parse(f'State == "{pair.state}" && Activity == "{pair.activity}"')
                    pending = A.Binary("||", pending, at)
                out.append((frozenset({"haspreemptingclaim"}), pending))
        if "ClaimWorklifeExpired" in names:
            try:
                knob = self.table.program.knob("CLAIM_WORKLIFE")
            except KeyError:  # not a knob of this era
                knob = None
            if knob is None:
                worklife = None
            else:
                worklife = knob.expr if knob.source == "default" else knob_expr(knob)
            if worklife is not None and _never_counts(worklife):
                out.append((frozenset({"claimworklifeexpired"}), parse("!ClaimWorklifeExpired")))
        return out

    def sat(
        self,
        e: A.Expr,
        assume: dict[str, Any] | None = None,
        want: tuple[str, ...] = ("T",),
    ) -> Satisfiability:
        """`satisfiable(e, want=...)` in the table's domains, restricted to the slot ads
        the startd can publish (`relations`): a witness that breaks a relation is no
        witness. Without a relation the answer is the plain one, so every proof it gives
        stays (a relation only removes inputs)."""
        key = (e, tuple(sorted((assume or {}).items())), want)
        found = self._cache.get(key)
        if found is None:
            found = self._plain(e, assume, want)
            rels = self._relevant(e)
            if found.verdict == "sat" and not _respects(found, rels):
                found = _repaired(e, found, rels) or self._related(e, assume, want, rels)
            self._cache[key] = found
        return found

    def same_truth(self, a: A.Expr, b: A.Expr, assume: dict[str, Any] | None = None) -> bool:
        """A proof (the region oracle's, over every region of the policy's domains with
        the values `assume` fixes) that `a` and `b` always have the same truth value;
        False is "unknown or different" (`diff`'s last resort)."""
        from compiler.simplify.domains import Env
        from compiler.simplify.regions import equivalent

        return equivalent(a, b, Env.make(self.domains, dict(assume or {})), as_truth=True)

    def impossible(self, e: A.Expr, assume: dict[str, Any] | None = None) -> bool:
        """A proof that `e` is never TRUE in a slot ad the startd can publish (with the
        values `assume` fixes): for every assignment of the predicates `e` names, and of
        those the relations about them name in turn, that the predicate relations allow,
        the region oracle proves `e` not TRUE. Relations naming other attributes are
        left out, which only adds situations, so the proof stays sound. False when no
        proof is found (the goal may still be impossible)."""
        fixed = dict(assume or {})
        preds = set(self.predicates)
        spelled = {p.lower(): p for p in preds}
        plain = set(spelled) | {"state", "activity"}
        names = {n for n in _names(e) if n in spelled}
        related = _closure(self.proof_relations, names, lambda rel: _names(rel) & set(spelled))
        chosen = [rel for rel in related if _names(rel) <= plain]  # predicates, pair
        sensed = [rel for rel in related if not _names(rel) <= plain]  # conjoined to `e`
        if len(names) > MAX_ENUMERATED:
            return False
        order = sorted(names)
        checks = [compile_expr(rel) for rel in chosen]
        goal = conj([e, *sensed])
        for combo in itertools.product((False, True), repeat=len(order)):
            values = {**fixed, **{spelled[n]: v for n, v in zip(order, combo, strict=True)}}
            if not all(tv_of_value(check(values, None)) == "T" for check in checks):
                continue
            # Simplified with the pair and the predicates first, so that a condition
            # written twice (PREEMPT, and MaxJobRetirementTime in the relation) reads
            # the same in both.
            folded = simplify(goal, domains=self.domains, assume=values).expr if sensed else goal
            if self._plain(_given_conjuncts(folded), values, ("T",)).verdict != "unsat":
                return False
        return True

    def _preempting_pairs(self) -> frozenset[Pair]:
        """The pairs in which a preempting claim can be pending (HasPreemptingClaim TRUE):
        the targets of the live rows, and the pairs of the event effects, that register
        one, then every target of a live row out of such a pair that neither accepts nor
        withdraws it and has a trigger that can fire while it is pending. Sound: only
        `register_preempting_claim` sets the predicate (runtime and reference alike).
        The 6.4 manual registers none in its own rows; its preempting claim always
        vacates, so one is never pending in Preempting/Killing."""
        spec = self.table.spec
        clears = {"accept_preempting_claim", "withdraw_preempting_claim"}
        where: set[Pair] = set()
        for effect in spec.event_effects:
            if any(a.name == "register_preempting_claim" for a in effect.actions):
                where.update(effect.sources or (p.pair for p in spec.pairs))
        live = [r for r in self.table.rows if r.status != "dead"]
        for row in live:
            firing = [
                trig for trig, c in zip(row.transition.triggers, row.triggers, strict=True)
                if c is None or c.status != "dead"
            ]  # fmt: skip
            own = {a.name for a in row.transition.actions}
            if clears & own:
                continue
            for trig in firing:
                names = own | {a.name for a in trig.actions}
                if "register_preempting_claim" not in names or clears & names:
                    continue
                if trig.activity:  # a preempting claim that always vacates
                    where.add(Pair(row.transition.target.state, trig.activity))
                else:
                    where.update(row.possible_targets)
        carrying: dict[Pair, list[Row]] = {}  # live rows a pending claim survives
        for row in live:
            if not clears & {a.name for a in row.transition.actions} and any(
                self._fires_pending(row, i) for i in range(len(row.triggers))
            ):
                carrying.setdefault(row.transition.source, []).append(row)
        return reach(
            where, lambda pair: (t for row in carrying.get(pair, ()) for t in row.possible_targets)
        )

    def _fires_pending(self, row: Row, index: int) -> bool:
        """Trigger `index` of `row` can fire while a preempting claim is pending."""
        trig, compiled = row.transition.triggers[index], row.triggers[index]
        if compiled is not None and compiled.status == "dead":
            return False
        if any(
            a.name in ("accept_preempting_claim", "withdraw_preempting_claim") for a in trig.actions
        ):
            return False
        if compiled is None:
            return True
        assume = {**self.assume(row.source), "HasPreemptingClaim": True}
        return self._plain(compiled.expr, assume, ("T",)).verdict != "unsat"

    def _relevant(self, e: A.Expr) -> tuple[A.Expr, ...]:
        """The relations about the attributes of `e`, and about the attributes those
        relations read in turn (a closure: the 6.x CpuBusyTime relation reads the loads of
        the CpuBusy expression, and the loads have their own relation)."""
        return tuple(_closure(self.relations, _names(e), _names))

    def _plain(
        self, e: A.Expr, assume: dict[str, Any] | None, want: tuple[str, ...]
    ) -> Satisfiability:
        return satisfiable(
            e, want=want, domains=self.domains, assume=assume, machine=self.extra_machine
        )

    def _related(
        self,
        e: A.Expr,
        assume: dict[str, Any] | None,
        want: tuple[str, ...],
        rels: tuple[A.Expr, ...],
    ) -> Satisfiability:
        """The question asked again with the relations conjoined: `e` has a truth value of
        `want` and every relation holds. Its witness satisfies them; "unsat" is a proof
        that only inputs no startd publishes gave `e` such a value."""
        chosen = [_has_truth(e, tv) for tv in want]
        selector = chosen[0]
        for other in chosen[1:]:
            selector = A.Binary("||", selector, other)
        found = self._plain(conj([*rels, selector]), assume, ("T",))
        return replace(found, want=frozenset(want))

    # -- guards of rows ------------------------------------------------------------------

    def policy_guards(self, row: Row) -> list[tuple[int, CompiledGuard]]:
        """(trigger index, compiled guard) of the row's policy and immediate triggers."""
        out = []
        for index, (trig, compiled) in enumerate(
            zip(row.transition.triggers, row.triggers, strict=True)
        ):
            if trig.kind in ("policy", "immediate") and compiled is not None:
                out.append((index, compiled))
        return out

    def firing(self, row: Row, index: int) -> A.Expr:
        """The condition under which policy trigger `index` of `row` fires on an
        evaluation pass: its guard holds and no earlier step of the pair's order holds."""
        trig = row.transition.triggers[index]
        compiled = row.triggers[index]
        assert compiled is not None
        parts: list[A.Expr] = []
        if trig.kind == "policy" and trig.order is not None:
            state = self.table.spec.state(row.source[0])
            for step in state.evaluation_order:
                if (step.source.state, step.source.activity) != row.source:
                    continue
                if step.order >= trig.order or (
                    step.transition == row.id and step.trigger == index
                ):
                    continue
                try:
                    other = self.table.row(step.transition).triggers[step.trigger]
                except (KeyError, IndexError):
                    continue
                if other is not None:
                    parts.append(fails(other.expr))
        return conj([holds(compiled.expr), *parts])

    def policy_expr(self, name: str) -> A.Expr | None:
        """The configuration's expression of a policy name (`knob_expr`), None when the
        configuration leaves it to the era default (callers read the spec's) or it is
        not a knob of the era."""
        try:
            knob = self.table.program.knob(name)
        except KeyError:
            return None
        return knob_expr(knob)


#: Relations between the predicates (base.yaml `predicates`) and the pair the slot is in,
#: true at every evaluation of every era that has the predicates named: what their
#: definitions make them (base.yaml's meanings, Resource::inRetirement and
#: Resource::mayUnretire in src/condor_startd.V6/Resource.cpp), what the retirement
#: helper gives without a job (Resource::evalRetirementRemaining: no starter, nothing
#: left), and what a drain does in the single slot `check` models (its reference
#: interpreter: ResMgr::drainingIsComplete is this slot's Drained state; a machine with
#: other slots may wait in Drained/Retiring, which `run` lets a trace force, so the
#: compiled table itself does not assume these). Only `check`'s proofs use them
#: (`Analysis.impossible`); tests/check/test_relations.py checks each at every
#: evaluation of the reference interpreter on every plan of every shipped template.
PREDICATE_RELATIONS: tuple[Relation, ...] = (
    Relation(
        "InRetirement =?= (HasPreemptingClaim || !MayUnretire)",
        ("InRetirement", "HasPreemptingClaim", "MayUnretire"),
        "Resource::inRetirement: a preempting claim is pending or the retirement may not be undone",
    ),
    Relation(
        "!MayUnretire || !HasPreemptingClaim && !Draining",
        ("MayUnretire", "HasPreemptingClaim", "Draining"),
        "Resource::mayUnretire: never with a preempting claim pending or while draining",
    ),
    Relation(
        "JobRunning || RetirementExpired",
        ("JobRunning", "RetirementExpired"),
        "Resource::evalRetirementRemaining: no starter, no retirement time left",
    ),
    Relation(
        'AllSlotsDrained =?= (State =?= "Drained")',
        ("AllSlotsDrained", "State"),
        "ResMgr::drainingIsComplete: every slot (this one) is in the Drained state",
    ),
    Relation(
        'State =!= "Drained" || Draining',
        ("State", "Draining"),
        "ResMgr::startDraining: Drained is entered only while draining, and the "
        "cancel_drain that ends the drain leaves it in the same instant",
    ),
    Relation(
        'State =!= "Claimed" || Activity =!= "Idle" || !JobRunning',
        ("State", "Activity", "JobRunning"),
        "Claimed/Idle: no starter (the job exited or was never activated)",
    ),
)


#: What a MaxJobRetirementTime never above 0 guarantees (Resource::evalRetirementRemaining:
#: the remaining retirement is 0 unless a peaceful shutdown made it unlimited, and that
#: retirement is irreversible). Claimed/Busy is left at once on a peaceful shutdown and
#: re-entered only by activation or unretirement, neither peaceful, so its job has no
#: time left. Claimed/Retiring is entered only irreversibly: a reversible retirement (a
#: preempting claim while Busy) finds no time left and preempts in the same pass.
NO_RETIREMENT = (
    "RetirementExpired || !MayUnretire",
    'State =!= "Claimed" || Activity =!= "Busy" || RetirementExpired',
    'State =!= "Claimed" || Activity =!= "Retiring" || !MayUnretire',
)


#: Operators whose value is TRUE, FALSE, UNDEFINED or ERROR only: a conjunct of this
#: kind is TRUE whenever the conjunction is.
_BOOLEAN_OPS = frozenset({"<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "!"})


def _given_conjuncts(e: A.Expr) -> A.Expr:
    """`e` with each boolean-valued conjunct of its top-level `&&` chain written TRUE
    inside the other conjuncts (`c && ifThenElse(c, -1, 0) > 0` becomes `c && -1 > 0`).
    Sound for "never TRUE": the conjunction is TRUE only where every such conjunct is
    TRUE, and there the rewritten conjuncts have their old values."""
    parts: list[A.Expr] = []

    def flatten(x: A.Expr) -> None:
        if isinstance(x, A.Binary) and x.op == "&&":
            flatten(x.left)
            flatten(x.right)
        else:
            parts.append(x)

    flatten(e)
    atoms = [
        p for p in parts
        if isinstance(p, A.Binary | A.Unary) and p.op in _BOOLEAN_OPS
    ]  # fmt: skip
    if not atoms:
        return e

    def given(x: A.Expr, skip: A.Expr) -> A.Expr:
        if x != skip and any(x == a for a in atoms if a is not skip):
            return A.Boolean(True)
        return A.map_children(x, lambda y: given(y, skip))

    return conj([given(p, p) for p in parts])


def _never_positive(e: A.Expr) -> bool:
    """Every value `e` can have is a number <= 0, UNDEFINED or ERROR: each branch of its
    conditionals is (`ifThenElse(CpusUsage > Cpus + 0.8, -1, 0)`, Preempt_If_Cpus_Exceeded),
    whatever the conditions."""
    match e:
        case A.Conditional(then=a, otherwise=b):
            return _never_positive(a) and _never_positive(b)
        case A.Call(name=name, args=(_, a, b)) if name.lower() == "ifthenelse":
            return _never_positive(a) and _never_positive(b)
        case _:
            return _never_counts(e) or (isinstance(e, A.Integer | A.Real) and e.value <= 0)


def _never_counts(e: A.Expr) -> bool:
    """A CLAIM_WORKLIFE that never makes a claim expire: UNDEFINED (empty: forever) or
    a negative number (Claim::claimWorklifeExpired tests `>= 0` first)."""
    match e:
        case A.UndefinedLit():
            return True
        case A.Integer(value=v) | A.Real(value=v):
            return v < 0
        case A.Unary(op="-", operand=A.Integer(value=v) | A.Real(value=v)):
            return v > 0
    return False


def _closure(
    relations: Iterable[tuple[frozenset[str], A.Expr]],
    names: set[str],
    reads: Callable[[A.Expr], set[str]],
) -> list[A.Expr]:
    """The relations about `names`, and about the names those relations `reads` in turn;
    `names` grows with what they read."""
    chosen: list[A.Expr] = []
    pending = list(relations)
    grew = True
    while grew:
        grew = False
        for about, rel in list(pending):
            if about & names:
                chosen.append(rel)
                names |= reads(rel)
                pending.remove((about, rel))
                grew = True
    return chosen


def _names(e: A.Expr) -> set[str]:
    return {r.key for r in A.find_all(e, A.AttrRef, same_scope=True)}


def _respects(found: Satisfiability, rels: tuple[A.Expr, ...]) -> bool:
    """The witness satisfies every relation in `rels`, evaluated on its ads as the
    startd's would be (an attribute the witness leaves out is UNDEFINED, so a relation
    about it fails and the question is asked again with the relation in it)."""
    if found.witness is None or not rels:
        return True
    my, target = found.witness.as_dicts()
    return all(
        tv_of_value(compile_expr(rel)(my, target, now=found.witness.now)) == "T" for rel in rels
    )


def _repaired(e: A.Expr, found: Satisfiability, rels: tuple[A.Expr, ...]) -> Satisfiability | None:
    """`found`'s witness with the attributes the relations constrain set to a constant
    of a relation (or the value of the published expression it must equal), when that
    keeps `e`'s truth value wanted and satisfies every relation: the cheap way out of a
    witness the startd cannot publish (CpuBusyTime 10^9 while the CPU is not busy: 0)."""
    assert found.witness is not None
    my, target = found.witness.as_dicts()
    spelled = {k.lower(): k for k in my}
    fn = compile_expr(e)
    checks = [compile_expr(rel) for rel in rels]
    options: dict[str, list[Any]] = {}
    for rel in rels:
        for side in A.walk(rel, same_scope=True):
            if isinstance(side, A.Binary) and side.op in ("=?=", "=="):
                for ref, other in ((side.left, side.right), (side.right, side.left)):
                    if isinstance(ref, A.AttrRef) and isinstance(
                        other, A.Integer | A.Real | A.Boolean
                    ):
                        options.setdefault(ref.key, []).append(other.value)
                    elif isinstance(ref, A.AttrRef):
                        options.setdefault(ref.key, []).extend((0, 1, True, False))
    names = [k for k in options if k in spelled or k not in {n.lower() for n in target}]
    if not names or len(names) > 4:
        return None
    now = found.witness.now
    for combo in itertools.product(*(dict.fromkeys(options[k]) for k in names)):
        trial = dict(my)
        for key, value in zip(names, combo, strict=True):
            trial[spelled.get(key, key)] = value
        if tv_of_value(fn(trial, target, now=now)) not in found.want:
            continue
        if all(tv_of_value(check(trial, target, now=now)) == "T" for check in checks):
            witness = Witness(tuple(trial.items()), found.witness.target, now)
            return replace(found, witness=witness)
    return None


def _has_truth(e: A.Expr, tv: str) -> A.Expr:
    """TRUE exactly when `e` has truth value `tv` (T, F, U or E), never UNDEFINED or ERROR."""
    match tv:
        case "T":
            return A.Binary("=?=", e, A.Boolean(True))
        case "F":
            return A.Binary("=?=", e, A.Boolean(False))
        case "U":
            return A.Call("isUndefined", (e,))
        case _:
            return A.Call("isError", (e,))


def cpu_busy_relations(
    name: str, busy: A.Expr, publish: tuple[tuple[str, str], ...]
) -> list[tuple[frozenset[str], A.Expr]]:
    """(the published attribute, condition) for each CpuBusy attribute the era publishes
    (base.yaml `helpers.cpu_busy`): what it says about the configuration's CpuBusy
    expression `busy`, evaluated on the same ad in the same pass: `busy` (CpuIsBusy) is its value; `seconds_busy` (6.x CpuBusyTime) is 0
    unless it is TRUE (V6_8_7 src/condor_startd.V6/Resource.C Resource::compute_cpu_busy
    and Resource::cpu_busy_time, called from ResMgr::compute after the loads are
    refreshed); `busy_number` is 1 or 0. The latched time of the last change (current
    code) says nothing about the value now and gives no relation."""
    holds = A.Binary("=?=", busy, A.Boolean(True))
    out: list[tuple[frozenset[str], A.Expr]] = []
    for attribute, quantity in publish:
        if attribute.lower() == name.lower():
            continue  # the expression itself, published under its own name
        ref = A.AttrRef(attribute, None)
        match quantity:
            case "busy":
                rel: A.Expr = A.Binary("=?=", ref, holds)
            case "seconds_busy":
                rel = A.Binary("||", holds, A.Binary("=?=", ref, A.Integer(0)))
            case "busy_number":
                rel = A.Binary("=?=", ref, A.Conditional(holds, A.Integer(1), A.Integer(0)))
            case _:
                continue
        out.append((frozenset({attribute.lower()}), rel))  # about the published attribute
    return out


def knob_expr(knob: Knob) -> A.Expr | None:
    """What the analysis reads for a knob: the configuration's (unexpanded) expression;
    UNDEFINED for one defined empty or not at all (as the guards see it); None for an era
    default or an invalid text, which the checks take from the spec or skip."""
    match knob.source:
        case "config":
            return knob.expr
        case "empty" | "undefined":
            return A.UndefinedLit()
        case _:
            return None


def with_machine(analysis: Analysis, names: Iterable[str]) -> Analysis:
    return replace(analysis, extra_machine=tuple(names), _cache={})
