"""Random attribute assignments for comparing guards (golden checks, soundness).

An assignment is a machine ad (MY) and a job ad (TARGET) as plain dicts. Attributes the
simplifier has a domain for (the startd's published attributes, the era's predicates)
get values inside that domain, because the simplifier may rely on it; every other name
may be missing (UNDEFINED), ERROR, a boolean, an integer, a real, a string or a list, in
either ad. Numbers cluster around the constants the expressions mention (c - 1, c,
c + 1, c +- 0.5, and `now - c` for timers written `time() - X > c`), so that `>` and
`>=` are told apart.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from typing import Any

from compiler.classad import ast as A
from compiler.classad import compile_expr, evaluate
from compiler.classad.evaluator import function_context
from compiler.classad.values import ERROR, UNDEFINED
from compiler.simplify import Domain
from compiler.table import holds

NOW = 1_000_000_000
_ABSENT = object()
STATES = ("Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Backfill", "Drained")
ACTIVITIES = ("Idle", "Benchmarking", "Busy", "Suspended", "Retiring", "Vacating", "Killing")
STRINGS = ("coltrane", "Busy", "busy", "Claimed", "Suspended", "Owner", "x", "")


def walk(e: A.Expr) -> Iterable[A.Expr]:
    yield e
    match e:
        case A.Unary(operand=x):
            yield from walk(x)
        case A.Binary(left=left, right=right) | A.Elvis(left=left, right=right):
            yield from walk(left)
            yield from walk(right)
        case A.Conditional(cond=c, then=t, otherwise=o):
            for x in (c, t, o):
                yield from walk(x)
        case A.Call(args=args) | A.ListExpr(items=args):
            for x in args:
                yield from walk(x)
        case A.Select(base=b):
            yield from walk(b)
        case A.Subscript(base=b, index=i):
            yield from walk(b)
            yield from walk(i)
        case A.RecordExpr(attrs=attrs):
            for _, x in attrs:
                yield from walk(x)
        case _:
            return


def references(exprs: Iterable[A.Expr]) -> set[tuple[str | None, str]]:
    """(scope, name) of every attribute reference; names keep one spelling per key."""
    found: dict[tuple[str | None, str], str] = {}
    for e in exprs:
        for node in walk(e):
            if isinstance(node, A.AttrRef) and node.scope in (None, "MY", "TARGET"):
                found.setdefault((node.scope, node.name.lower()), node.name)
    return {(scope, name) for (scope, _), name in found.items()}


def numbers(exprs: Iterable[A.Expr]) -> list[float]:
    """The constants, and simple products/sums of them (`15 * 60`), in the expressions."""
    out: set[float] = {0.0, 1.0}
    for e in exprs:
        for node in walk(e):
            if isinstance(node, A.Integer | A.Real) and math.isfinite(node.value):
                out.add(float(node.value))
            if isinstance(node, A.Binary) and node.op in ("*", "+", "-"):
                value = evaluate(node)
                numeric = isinstance(value, int | float) and not isinstance(value, bool)
                if numeric and math.isfinite(value):
                    out.add(float(value))
    return sorted(out)


_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "=?=", "=!="})


def targets(exprs: Iterable[A.Expr]) -> dict[tuple[str | None, str], list[float]]:
    """For each attribute, the values at which a comparison it takes part in changes:
    c - 1, c, c + 1 for every constant c it is compared with (and NOW - c +- 1, for
    timers written `time() - X > c`)."""
    found: dict[tuple[str | None, str], set[float]] = {}
    for e in exprs:
        for node in walk(e):
            if not (isinstance(node, A.Binary) and node.op in _COMPARISONS):
                continue
            for side, other in ((node.left, node.right), (node.right, node.left)):
                value = evaluate(other)
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                if not math.isfinite(value):
                    continue
                for ref in walk(side):
                    if isinstance(ref, A.AttrRef):
                        key = (ref.scope if ref.scope != "MY" else None, ref.name.lower())
                        bucket = found.setdefault(key, set())
                        for d in (-1, 0, 1):
                            bucket.update({value + d, NOW - value + d})
    return {k: sorted(v) for k, v in found.items()}


def _number_pool(constants: list[float]) -> list[float]:
    pool: set[float] = set()
    for c in constants:
        for d in (-1.0, -0.5, 0.0, 0.5, 1.0):
            pool.add(c + d)
            pool.add(NOW - c + d)
    return sorted(pool)


def _pick_pool(
    general: list[float], targeted: list[float] | None, rng: random.Random
) -> list[float]:
    return targeted if targeted and rng.random() < 0.7 else general


def _in_domain(
    domain: Domain,
    pool: list[float],
    rng: random.Random,
    memo: dict[tuple[int, Any, Any], list[float]],
) -> Any:
    match domain.kind:
        case "boolean":
            value: Any = rng.choice((True, False))
        case "string":
            value = rng.choice(STRINGS)
        case "integer" | "number":
            # the pool's values inside the domain, worked out once per pool and bounds
            # (`memo` lives for one `assignments` call, which keeps its pools alive)
            key = (id(pool), domain.low, domain.high)
            candidates = memo.get(key) or []
            if not candidates:
                candidates = memo[key] = [
                    x
                    for x in pool
                    if (domain.low is None or x >= domain.low)
                    and (domain.high is None or x <= domain.high)
                ] or [domain.low or 0.0]
            x = rng.choice(candidates)
            value = int(x) if domain.kind == "integer" or rng.random() < 0.5 else float(x)
            if domain.kind == "integer" and float(int(x)) != x:
                value = math.floor(x)
        case _:
            value = _any(pool, rng)
    if not domain.defined and rng.random() < 0.2:
        return rng.choice((_ABSENT, A.ErrorLit()))
    return value


def _any(pool: list[float], rng: random.Random, targeted: bool = False) -> Any:
    roll = rng.random()
    if targeted:  # the attribute is compared with numbers: mostly give it one
        roll = 0.3 + 0.35 * roll / 0.5 if roll < 0.5 else roll
    if roll < 0.15:
        return _ABSENT
    if roll < 0.2:
        return A.ErrorLit()
    if roll < 0.3:
        return rng.choice((True, False))
    if roll < 0.65:
        x = rng.choice(pool)
        return int(x) if float(int(x)) == x and rng.random() < 0.6 else float(x)
    if roll < 0.9:
        return rng.choice(STRINGS)
    return [1, "a"]


def assignments(
    exprs: Iterable[A.Expr],
    domains: Mapping[str, Domain],
    fixed: Mapping[str, Any],
    *,
    count: int,
    seed: int = 0,
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """`count` (MY, TARGET) pairs covering the names the expressions use."""
    items = list(exprs)
    refs = references(items)
    pool = _number_pool(numbers(items))
    aimed = targets(items)
    by_key = {k.lower(): v for k, v in domains.items()}
    fixed_my = {k.lower(): v for k, v in fixed.items() if not k.upper().startswith("TARGET.")}
    fixed_target = {
        k.split(".", 1)[1].lower(): v for k, v in fixed.items() if k.upper().startswith("TARGET.")
    }
    rng = random.Random(seed)
    memo: dict[tuple[int, Any, Any], list[float]] = {}
    out = []
    for _ in range(count):
        my: dict[str, Any] = {}
        target: dict[str, Any] = {}
        for scope, name in sorted(refs, key=lambda r: (r[0] or "", r[1])):
            key = name.lower()
            near = aimed.get((scope, key)) or aimed.get((None, key))
            if scope == "TARGET":
                if key in fixed_target:
                    _put(target, name, fixed_target[key])
                else:
                    _put(target, name, _any(_pick_pool(pool, near, rng), rng, bool(near)))
                continue
            if key in fixed_my:
                my[name] = fixed_my[key]
            elif key in by_key:
                _put(my, name, _in_domain(by_key[key], _pick_pool(pool, near, rng), rng, memo))
            elif name not in my:
                _put(my, name, _any(_pick_pool(pool, near, rng), rng, bool(near)))
                if scope is None and name not in target:
                    _put(target, name, _any(_pick_pool(pool, near, rng), rng, bool(near)))
        out.append((my, target))
    return out


def _put(ad: dict[str, Any], name: str, value: Any) -> None:
    if value is not _ABSENT:
        ad[name] = value


def value_key(value: Any) -> Any:
    """A comparable form of a ClassAd value (1, 1.0 and true differ; NaN equals NaN)."""
    if value is UNDEFINED or value is ERROR:
        return ("special", repr(value))
    if isinstance(value, float) and math.isnan(value):
        return ("real", "nan")
    if isinstance(value, list):
        return ("list", tuple(value_key(v) for v in value))
    if isinstance(value, dict):
        return ("ad", tuple(sorted((k.lower(), value_key(v)) for k, v in value.items())))
    return (type(value).__name__, value)


def same_truth(a: A.Expr, b: A.Expr, my: Mapping[str, Any], target: Mapping[str, Any]) -> bool:
    return holds(evaluate(a, my, target, now=NOW)) == holds(evaluate(b, my, target, now=NOW))


def truth_mismatch(
    a: A.Expr, b: A.Expr, cases: Iterable[tuple[dict[str, Any], dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The first case where `a` and `b` differ in truth (compiled: fast), or None."""
    return truth_mismatches(a, [b], cases)[0]


def truth_mismatches(
    a: A.Expr, others: Iterable[A.Expr], cases: Iterable[tuple[dict[str, Any], dict[str, Any]]]
) -> list[tuple[dict[str, Any], dict[str, Any]] | None]:
    """For each of `others`, `truth_mismatch(a, other, cases)`; `a` is evaluated once
    per case (and every expression of a case sees the same ads, whose scopes the
    evaluator keeps while they are in use)."""
    fa = compile_expr(a)
    fs = [compile_expr(b) for b in others]
    found: list[tuple[dict[str, Any], dict[str, Any]] | None] = [None] * len(fs)
    open_ = list(range(len(fs)))
    ctx = function_context(NOW)  # one clock for all cases (a fresh one per call is slow)
    for my, target in cases:
        want = holds(fa(my, target, ctx=ctx))
        for i in list(open_):
            if holds(fs[i](my, target, ctx=ctx)) != want:
                found[i] = (my, target)
                open_.remove(i)
        if not open_:
            break
    return found
