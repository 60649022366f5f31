"""Can a guard be TRUE (or anything else)? A decision procedure that never answers wrongly.

Stage: static analysis (compiler.analysis), over simplified ClassAd ASTs. Nothing here
rewrites or prints; it answers "sat" (with a witness that the real evaluator confirms),
"unsat" (with a proof that is sound for ClassAd's four truth values) or "unknown".

Why this and not z3 or plain sympy: policies are comparisons of attributes with
constants, joined by `&&`, `||`, `!` and `?:`, under four-valued, left-to-right logic.
For that fragment the finite region partition of compiler.simplify.regions (each
subject's number line cut at the constants it is compared with, plus UNDEFINED, ERROR,
strings and booleans as its domain allows) is an exact decision procedure, and it is
already the simplifier's soundness oracle. Where it gives up (too many regions,
arithmetic mixing several attributes) we over-approximate compositionally: a truth value
missing from the over-approximation is impossible, so "unsat" stays a proof. "sat" is
only ever claimed for a concrete assignment that `compiler.classad.evaluate` confirms,
so a reported witness (a flapping input, a live transition) is always real. Everything
between the two is "unknown" and is reported as such, never as "dead". sympy keeps the
job it does well in the simplifier (two-valued minimisation); z3 would need an encoding of
four-valued logic, case-insensitive strings and ClassAd's int/real promotion that we
would then have to trust without an oracle, for no policy we have seen.

Witness search: each attribute of the guard gets candidate values from the constants it
is compared with (k-1, k, k+1, midpoints), timestamp attributes used as `time() - X`
get `now - k` around those constants, undefined-able attributes get UNDEFINED and the
strings they are compared with; small candidate spaces are enumerated exhaustively,
larger ones sampled with a fixed seed (deterministic output).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

from compiler.classad import ast as A
from compiler.classad import compile_expr, format_value, unparse
from compiler.classad.unparse import ROUND_TRIP
from compiler.classad.values import ERROR, UNDEFINED
from compiler.simplify import STARTD_DOMAINS, Domain, simplify
from compiler.simplify.abstract import CMP_OPS, abstract, is_literal, lift, literal_value
from compiler.simplify.domains import Env
from compiler.simplify.regions import possible_truths
from compiler.simplify.threevl import AND_TABLE, NOT_TABLE, OR_TABLE, tv_of_value

Verdict = Literal["sat", "unsat", "unknown"]

#: `time()` and `CurrentTime` in witnesses (DESIGN.md trace epoch).
NOW: Final = 1_000_000_000
#: Exhaustive enumeration up to this many candidate combinations, else sampling.
EXHAUSTIVE: Final = 6000
SAMPLES: Final = 4000
ALL_TV: Final = frozenset({"T", "F", "U", "E"})


@dataclass(frozen=True, slots=True)
class Witness:
    """Attribute values under which the guard has the wanted truth value.

    `my` is the slot ad, `target` the job ad (unscoped names that are not machine
    attributes are put there: that is where HTCondor looks when MY lacks them).
    """

    my: tuple[tuple[str, Any], ...]
    target: tuple[tuple[str, Any], ...] = ()
    now: int = NOW

    def describe(self) -> str:
        def fmt(v: Any) -> str:
            if v is UNDEFINED or isinstance(v, A.UndefinedLit):
                return "UNDEFINED"
            if v is ERROR or isinstance(v, A.ErrorLit):
                return "ERROR"
            return unparse(v) if isinstance(v, A.EXPR_TYPES) else format_value(v, ROUND_TRIP)

        parts = [f"{k}={fmt(v)}" for k, v in self.my]
        parts += [f"TARGET.{k}={fmt(v)}" for k, v in self.target]
        return ", ".join(parts) if parts else "(any input)"

    def as_dicts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return dict(self.my), dict(self.target)


@dataclass(frozen=True, slots=True)
class Satisfiability:
    """The answer for one guard and one set of wanted truth values.

    `proof` says how "unsat" was shown (region partition or abstract values);
    `exact` is True when the truth values in `possible` are exactly the reachable ones.
    """

    verdict: Verdict
    want: frozenset[str]
    witness: Witness | None = None
    possible: frozenset[str] = ALL_TV
    proof: str = ""
    exact: bool = False


def machine_domains(predicates: Iterable[str] = ()) -> dict[str, Domain]:
    """The startd's attribute domains plus the spec's predicates as defined booleans."""
    out: dict[str, Domain] = dict(STARTD_DOMAINS)
    for name in predicates:
        out[name] = Domain("boolean", True)
    return out


def satisfiable(
    expr: A.Expr,
    *,
    want: Iterable[str] = ("T",),
    domains: Mapping[str, Domain] | None = None,
    assume: Mapping[str, Any] | None = None,
    machine: Iterable[str] = (),
) -> Satisfiability:
    """Can `expr` take one of the truth values `want` (T, F, U, E)?

    `domains` default to STARTD_DOMAINS; `assume` fixes attribute values (e.g. the
    State and Activity of the pair a guard is evaluated in); `machine` names extra
    attributes that live in the slot ad (so unscoped references go to MY)."""
    doms = dict(STARTD_DOMAINS if domains is None else domains)
    fixed = dict(assume or {})
    return _satisfiable(
        expr,
        frozenset(want),
        tuple(sorted(doms.items())),
        tuple(sorted((k, _freeze(v)) for k, v in fixed.items())),
        frozenset(n.lower() for n in machine),
    )


def always(expr: A.Expr, **kw: Any) -> Satisfiability:
    """Is `expr` TRUE in every situation? verdict "unsat" here means: yes, always."""
    return satisfiable(expr, want=("F", "U", "E"), **kw)


@lru_cache(maxsize=2048)
def _satisfiable(
    expr: A.Expr,
    want: frozenset[str],
    doms: tuple[tuple[str, Domain], ...],
    fixed: tuple[tuple[str, Any], ...],
    machine: frozenset[str],
) -> Satisfiability:
    domains = dict(doms)
    assume = {k: _thaw(v) for k, v in fixed}
    env = Env.make(domains, assume)
    simple = simplify(expr, domains=domains, assume=assume).expr
    possible, exact = _truths(simple, env)
    if not possible & want:
        how = "region partition" if exact else "abstract values (over-approximation)"
        return Satisfiability("unsat", want, None, possible, f"never {_names(want)}: {how}", exact)
    witness = _search(expr, want, domains, assume, machine)
    if witness is not None:
        return Satisfiability("sat", want, witness, possible, "", exact)
    return Satisfiability("unknown", want, None, possible, "no witness found", exact)


def _names(want: frozenset[str]) -> str:
    names = {"T": "TRUE", "F": "FALSE", "U": "UNDEFINED", "E": "ERROR"}
    return "/".join(names[t] for t in sorted(want, key="TFUE".index))


# -- proofs: truth values an expression can take ----------------------------------------


def _truths(e: A.Expr, env: Env) -> tuple[frozenset[str], bool]:
    """(truth values, exact?) — a superset of the reachable ones in any case."""
    found = possible_truths(e, env)
    if found is not None:
        return found, True
    match e:
        case A.Binary(op="&&" | "||", left=lhs, right=rhs):
            lt, _ = _truths(lhs, env)
            rt, _ = _truths(rhs, env)
            return lift(AND_TABLE if e.op == "&&" else OR_TABLE, lt, rt), False
        case A.Unary(op="!", operand=x):
            xt, _ = _truths(x, env)
            return frozenset(NOT_TABLE[t] for t in xt), False
        case A.Conditional(cond=c, then=t, otherwise=o):
            ct, _ = _truths(c, env)
            out: set[str] = {x for x in ct if x in ("U", "E")}
            if "T" in ct:
                out |= _truths(t, env)[0]
            if "F" in ct:
                out |= _truths(o, env)[0]
            return frozenset(out), False
    from compiler.simplify.abstract import truth_values

    return truth_values(e, env), False


# -- witnesses ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Var:
    name: str  # as written (first spelling)
    side: str  # "my" | "target"
    values: list[Any]


def _search(
    expr: A.Expr,
    want: frozenset[str],
    domains: Mapping[str, Domain],
    assume: Mapping[str, Any],
    machine: frozenset[str],
) -> Witness | None:
    folded = simplify(expr, domains=domains, assume=assume).expr
    variables = _variables(folded, domains, assume, machine)
    fn = compile_expr(expr)
    base_my = {k: v for k, v in assume.items() if "." not in k}
    base_target = {
        k.split(".", 1)[1]: v for k, v in assume.items() if k.upper().startswith("TARGET.")
    }

    def test(values: tuple[Any, ...]) -> bool:
        my = dict(base_my)
        target = dict(base_target)
        for var, value in zip(variables, values, strict=True):
            (my if var.side == "my" else target)[var.name] = value
        # No try: the evaluator returns ERROR for bad operands, it does not raise.
        return tv_of_value(fn(my, target, now=NOW)) in want

    def witness(values: tuple[Any, ...]) -> Witness:
        values = polish(values)
        my = sorted(base_my.items())
        tgt = sorted(base_target.items())
        for var, value in zip(variables, values, strict=True):
            (my if var.side == "my" else tgt).append((var.name, value))
        return Witness(tuple(my), tuple(tgt))

    def polish(values: tuple[Any, ...]) -> tuple[Any, ...]:
        """Replace each value by the earliest (nicest) candidate that still works."""
        current = list(values)
        for k, var in enumerate(variables):
            for value in var.values:
                if value is current[k] or (value == current[k] and type(value) is type(current[k])):
                    break
                trial = [*current[:k], value, *current[k + 1 :]]
                if test(tuple(trial)):
                    current = trial
                    break
        return tuple(current)

    total = math.prod(len(v.values) for v in variables)
    if total <= EXHAUSTIVE:
        for combo in itertools.product(*(v.values for v in variables)):
            if test(combo):
                return witness(combo)
        return None
    rng = random.Random(0x5EED)
    found = _climb(folded, variables, test, rng, base_my, base_target)
    if found is not None:
        return witness(found)
    for _ in range(SAMPLES):
        # Biased towards the first (nicest) candidates of each attribute.
        combo = tuple(
            v.values[min(int(rng.expovariate(0.4)), len(v.values) - 1)] for v in variables
        )
        if test(combo):
            return witness(combo)
    return None


def _climb(
    folded: A.Expr,
    variables: list[_Var],
    test: Any,
    rng: random.Random,
    base_my: dict[str, Any],
    base_target: dict[str, Any],
    restarts: int = 4,
) -> tuple[Any, ...] | None:
    """Hill climbing on the number of TRUE conjuncts of a top-level `&&` chain: change
    one attribute at a time to the candidate that makes most conjuncts TRUE. Complete
    for nothing, but finds the correlated corner cases random sampling misses."""
    parts = A.conjuncts(folded)
    if len(parts) < 2:
        return None
    fns = [compile_expr(p) for p in parts]

    def score(values: tuple[Any, ...]) -> int:
        my, target = dict(base_my), dict(base_target)
        for var, value in zip(variables, values, strict=True):
            (my if var.side == "my" else target)[var.name] = value
        total = 0
        for fn in fns:
            with contextlib.suppress(Exception):
                total += tv_of_value(fn(my, target, now=NOW)) == "T"
        return total

    for attempt in range(restarts):
        current = [
            v.values[0]
            if attempt == 0
            else v.values[min(int(rng.expovariate(0.5)), len(v.values) - 1)]
            for v in variables
        ]
        best = score(tuple(current))
        for _ in range(12):
            for k, var in enumerate(variables):
                for value in var.values:
                    trial = list(current)
                    trial[k] = value
                    got = score(tuple(trial))
                    # Sideways moves cross the plateaus where one attribute must change
                    # before another can make a conjunct TRUE.
                    if got > best or (got == best and rng.random() < 0.15):
                        best, current = got, trial
                if best == len(parts) and test(tuple(current)):
                    return tuple(current)
    return None


_TIME_NAMES: Final = frozenset({"currenttime", "mycurrenttime"})
_ERROR_VALUE: Final = A.ErrorLit()
_UNDEFINED_VALUE: Final = A.UndefinedLit()


def _is_clock(e: A.Expr) -> bool:
    return (isinstance(e, A.Call) and e.key == "time" and not e.args) or (
        isinstance(e, A.AttrRef) and e.key in _TIME_NAMES and e.scope in (None, "MY")
    )


def _variables(
    expr: A.Expr,
    domains: Mapping[str, Domain],
    assume: Mapping[str, Any],
    machine: frozenset[str],
) -> list[_Var]:
    """One variable per attribute of `expr` (after folding constants), with candidate
    values from the constants *that attribute* is compared with."""
    consts: dict[tuple[str, str], set[float]] = {}
    strings: dict[tuple[str, str], set[str]] = {}
    stamps: set[tuple[str, str]] = set()  # attributes used as `clock - X`
    refs: dict[tuple[str, str], str] = {}
    dom_keys = {k.lower(): v for k, v in domains.items()}
    fixed = {k.lower() for k in assume}

    def ref_key(ref: A.AttrRef) -> tuple[str, str] | None:
        key = ref.key
        if key in _TIME_NAMES and ref.scope in (None, "MY"):
            return None  # the clock: `now` in every witness
        if ref.scope == "TARGET":
            side = "target"
        elif ref.scope == "MY" or key in dom_keys or key in machine:
            side = "my"
        else:
            side = "target"
        refs.setdefault((side, key), ref.name)
        return side, key

    for e in A.walk(expr, same_scope=True):
        match e:
            case A.AttrRef():
                ref_key(e)
            case A.Binary(op="-", left=lhs, right=A.AttrRef() as r) if _is_clock(lhs):
                found = ref_key(r)
                if found is not None:
                    stamps.add(found)
            case A.Binary(op=op, left=lhs, right=rhs) if op in CMP_OPS:
                lit = rhs if is_literal(rhs) else lhs if is_literal(lhs) else None
                subject = lhs if lit is rhs else rhs
                if lit is not None:
                    value = literal_value(lit)
                    for ref in attribute_refs(subject):
                        found = ref_key(ref)
                        if found is not None:
                            _constant(
                                value,
                                consts.setdefault(found, set()),
                                strings.setdefault(found, set()),
                            )
    out: list[_Var] = []
    for key, name in sorted(refs.items()):
        side, lower = key
        if lower in fixed and side == "my":
            continue
        dom = dom_keys.get(lower) if side == "my" else dom_keys.get(f"target.{lower}")
        ordered = sorted(consts.get(key, set()) | {0.0})
        around = sorted({x + d for x in ordered for d in (-1, 0, 1)} | _midpoints(ordered))
        values = _candidates(dom, around, strings.get(key, set()), stamp=key in stamps)
        out.append(_Var(name, side, values))
    return out


def _constant(v: Any, numbers: set[float], strings: set[str]) -> None:
    if isinstance(v, bool):
        return
    if isinstance(v, int | float) and math.isfinite(v):
        numbers.add(float(v))
    elif isinstance(v, str):
        strings.add(v)


def _midpoints(xs: list[float]) -> set[float]:
    return {(a + b) / 2 for a, b in itertools.pairwise(xs)}


def _candidates(
    dom: Domain | None, around: list[float], strings: set[str], *, stamp: bool
) -> list[Any]:
    # Nice values first: the exhaustive search returns the first witness it meets.
    nums: list[float] = sorted(around, key=lambda x: (x < 0, abs(x)))
    if stamp:
        nums = [NOW] + [NOW - x for x in nums]
    kind = dom.kind if dom is not None else "any"
    values: list[Any] = []
    if kind in ("integer", "number", "any"):
        ints = list(dict.fromkeys(int(x) for x in nums if float(x).is_integer()))
        values += [i for i in ints if _inside(i, dom)]
    if kind in ("number", "any"):
        values += [x for x in nums if not float(x).is_integer() and _inside(x, dom)]
    if kind in ("string", "any"):
        values += [*sorted(strings), "x"]
    if kind in ("boolean", "any"):
        values += [False, True]
    if dom is None or not dom.defined:
        values += [_UNDEFINED_VALUE, _ERROR_VALUE]
    return values or [_UNDEFINED_VALUE]


def _inside(x: float, dom: Domain | None) -> bool:
    if dom is None:
        return True
    return (dom.low is None or x >= dom.low) and (dom.high is None or x <= dom.high)


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def _thaw(v: Any) -> Any:
    return [_thaw(x) for x in v] if isinstance(v, tuple) else v


def show(expr: A.Expr) -> str:
    return unparse(expr)


def attribute_refs(expr: A.Expr) -> list[A.AttrRef]:
    """Every attribute reference evaluated in this ad, in source order (not those in a
    nested ad or in the arguments of `unparse()` and the other scope-changing calls)."""
    return A.find_all(expr, A.AttrRef, same_scope=True)


_ = abstract  # re-exported for lints that ask about value kinds
