"""The environment a ClassAd builtin function may consult (evaluation stage).

Builtins are pure except for the clock (`time()`) and the random source (`random()`);
both are injected here so simulated clocks and seeded tests stay deterministic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import msgspec

from compiler.classad import ast
from compiler.classad.operators import truth
from compiler.classad.scope import (
    NO_AD,
    ExprEvaluator,
    LazyList,
    Scope,
    detach,
    resolve,
    select,
    special,
    to_runtime,
)
from compiler.classad.values import ERROR, UNDEFINED, Value


class FunctionContext(msgspec.Struct, frozen=True):
    """What a builtin may ask for besides its arguments."""

    now: Callable[[], int] = msgspec.field(default=lambda: int(time.time()))
    rng: random.Random = msgspec.field(default_factory=random.Random)
    #: `userMap`'s maps: (map name, input) -> the map's canonical text, None when the
    #: map or the input is unknown; None: no maps configured (compiler.schedd.usermap).
    user_map: Callable[[str, str], str | None] | None = None


#: A builtin: evaluated arguments in, one value out (never raises for bad input).
FunctionImpl = Callable[[list[Value], FunctionContext], Value]


def default_context(seed: int | None = None) -> FunctionContext:
    """Wall-clock time and a random source (seeded when `seed` is given)."""
    return FunctionContext(now=lambda: int(time.time()), rng=random.Random(seed))


# ---- evalInEachContext / countMatches ------------------------------------------------
#
# Facts from HTCondor 25.14.1 (src/condor_utils/compat_classad.cpp: `evalInEachContext_func`
# and `evaluateInContext`, registered as ClassAd functions by `registerClassadFunctions`;
# src/classad/attrrefs.cpp `AttributeReference::FindExpr`/`Deref`; src/classad/classad.cpp
# `ClassAd::LookupInScope`), each checked against the wheel in
# tests/classad/test_each_context.py.


_ABSENT: Any = object()


class _Found(msgspec.Struct, frozen=True):
    """What `Deref` found for the first argument: a value, or an expression and the ad
    that holds it."""

    raw: Any
    home: Scope | None


def _landing_after_miss(start: Scope) -> Scope:
    """Where a failed look-up leaves the evaluation state (`state.curAd`).

    `LookupInScope` walks up to the outermost ad and leaves `curAd` there. In a match
    the outermost ad is HTCondor's match ad, in which nothing is visible.
    """
    root = start.root()
    return _match_ad() if root.other is not None else root


def _match_ad() -> Scope:
    """HTCondor's match ad as a place to look names up from: an ad (so `MY` is an ad
    and not a list) in which none of the policy's names are found."""
    return Scope({})


def _find(start: Scope, key: str) -> tuple[_Found | None, Scope]:
    current: Scope | None = start
    while current is not None:
        raw = current.attrs.get(key, _ABSENT)
        if raw is not _ABSENT:
            return _Found(raw, current), current
        current = current.parent
    return None, _landing_after_miss(start)


def dereference(
    expr: ast.Expr, scope: Scope, evaluate: ExprEvaluator, now: Callable[[], int]
) -> tuple[_Found | None, Scope]:
    """HTCondor's `AttributeReference::Deref` of the first argument, in the caller's scope.

    Returns what it found (None: evaluate the reference itself in each ad) and the scope
    the look-up left the evaluation in, where the second argument is then evaluated:
    `Deref` does not restore `state.curAd`, so `evalInEachContext(x.b, L)` reads `L`
    from the ad `x` when `b` is found there.
    """
    match expr:
        case ast.AttrRef(scope=None, key="self" | "my"):
            # the ad being evaluated (none when evaluating without an ad)
            if scope.attrs is NO_AD:
                return None, scope
            return _Found(scope, None), scope
        case ast.AttrRef(scope=None, key="parent"):
            parent = special(scope, "parent", now)
            if not isinstance(parent, Scope):
                return None, _landing_after_miss(scope)
            return _Found(parent, None), scope
        case ast.AttrRef(scope=None, key=key):
            found, landing = _find(scope, key)
            if found is None and scope.other is not None:
                found, landing = _find(scope.other, key)
                if found is None:
                    landing = _match_ad()
            return found, landing
        case ast.AttrRef(scope=ast.ROOT, key=key):
            if scope.root().other is not None:
                return None, _match_ad()
            return _find(scope.root(), key)
        case ast.AttrRef(scope=word, key=key):
            base = resolve(scope, str(word).lower(), True, evaluate, now)
        case ast.Select(base=node, key=key):
            base = evaluate(node, scope)
        case _:
            return None, scope
    if isinstance(base, Scope) and not base.detached:
        return _find(base, key)
    if isinstance(base, list | LazyList):
        # "expr.attr" over a list: the list of selections (attrrefs.cpp, FindExpr), made
        # when an ad needs it (a list that selects from itself is cut short by HTCondor)
        return _Found(_Selection(base, key, scope, now), None), scope
    return None, scope


class _Selection(msgspec.Struct, frozen=True):
    """`base.key` over a list `base`, evaluated when first needed."""

    base: Any
    key: str
    scope: Scope
    now: Callable[[], int]

    def value(self, evaluate: ExprEvaluator) -> Value:
        return select(self.base, self.key, evaluate, self.now, self.scope)


def _elements(ads: ast.Expr, landing: Scope, home: Scope, evaluate: ExprEvaluator) -> Any:
    """The list elements of the second argument, unevaluated where HTCondor keeps them:
    a `{...}` written in the call is used as it is; anything else is evaluated (in the
    scope the first argument's look-up left) and must give a list."""
    if isinstance(ads, ast.ListExpr):
        return [_element(item, landing, home, evaluate) for item in ads.items]
    value = evaluate(ads, landing)
    if isinstance(value, LazyList):
        return [_element(item, landing, value.scope, evaluate) for item in value.source.items]
    if isinstance(value, list):
        return [lambda v=v: v for v in value]
    return value


def _element(
    item: ast.Expr, landing: Scope, home: Scope, evaluate: ExprEvaluator
) -> Callable[[], Value]:
    # An element is evaluated in the caller's state (`evaluateInContext`), except that
    # a nested ad or list written there keeps its lexical parent.
    where = home if isinstance(item, ast.RecordExpr | ast.ListExpr) else landing
    return lambda: evaluate(item, where)


def _in_context(expr: ast.Expr, found: _Found | None, ad: Value, evaluate: ExprEvaluator) -> Value:
    """`evaluateInContext`: the first argument's value with the nested ad as MY."""
    if not isinstance(ad, Scope):
        return UNDEFINED if ad is UNDEFINED else ERROR
    if found is not None:
        raw, home = found.raw, found.home
        if home is None:  # an ad or a list of selections, found as such
            return raw.value(evaluate) if isinstance(raw, _Selection) else raw
        if not isinstance(raw, ast.EXPR_TYPES):
            return to_runtime(raw, home)
        if isinstance(raw, ast.RecordExpr | ast.ListExpr):
            return evaluate(raw, home)  # keeps the parent it was written in
        expr = raw
    # An ad inside MY (or TARGET) sees the other ad for names it does not define, as a
    # top-level ad does (`alternateScope` set by hand in `evaluateInContext`).
    saved = ad.other
    ad.other = ad.root().other if ad.parent is not None else saved
    try:
        return evaluate(expr, ad)
    finally:
        ad.other = saved


def in_each_context(
    key: str,
    args: tuple[ast.Expr, ...],
    scope: Scope,
    evaluate: ExprEvaluator,
    now: Callable[[], int],
) -> Value:
    """`evalInEachContext(expr, ads)` (the list of `expr`'s values, each evaluated with
    one ad of the list as MY) and `countMatches(expr, ads)` (how many of them are true).

    `expr`, when it is an attribute reference found from the caller, stands for that
    attribute's expression (so `countMatches(RequireGPUs, AvailableGPUs)` evaluates the
    job's `RequireGPUs` inside each GPU ad); otherwise the reference itself is evaluated
    in each ad. An element that is not an ad gives ERROR (UNDEFINED for UNDEFINED). An
    UNDEFINED list gives UNDEFINED, and 0 matches; any other non-list ERROR.
    countMatches counts values that are true as `&&` sees them, so it never propagates
    UNDEFINED or ERROR.
    """
    if len(args) != 2:
        return ERROR
    found, landing = dereference(args[0], scope, evaluate, now)
    items = _elements(args[1], landing, scope, evaluate)
    counting = key == "countmatches"
    if not isinstance(items, list):
        if items is UNDEFINED:
            return 0 if counting else UNDEFINED
        return ERROR
    values = (_in_context(args[0], found, item(), evaluate) for item in items)
    if counting:
        return sum(1 for v in values if truth(v) is True)
    # The result list holds copies of the ads and lists (`cad->Copy()`), which HTCondor
    # hands out like `ad["name"]` does: selecting from them gives UNDEFINED.
    return [detach(v) for v in values]
