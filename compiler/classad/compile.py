"""AST -> Python closures: the fast path for hot evaluation (stage: code generation).

`compile_expr(expr)` returns a `CompiledExpr`, called like `evaluate` but without
walking the tree: each node becomes one closure `fn(scope, runtime)`, built only from
our AST (no source text is generated, nothing is `eval`ed). Work is moved to compile
time wherever the semantics allow it:

* attribute names are lower-cased once; builtin functions are looked up once;
* constant sub-expressions (no attribute, call or nested ad) are evaluated once by the
  reference interpreter, so `15 * 60` costs nothing per call;
* strict operators get a fast path when both operands are plain ints or reals of the
  same type, falling back to operators.py for everything else;
* attribute expressions stored in ads are compiled on first use and remembered.

The interpreter (evaluator.py) is the specification; a property test checks that both
agree on generated expressions and ads.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, Final

from compiler.classad import ast
from compiler.classad import operators as ops
from compiler.classad.deep import call_deep
from compiler.classad.evaluator import (
    TEXT_ARGUMENTS,
    Now,
    builtins,
    call_builtin,
    choose,
    eval_text,
    function_context,
    parse_cached,
    unparse_attribute,
)
from compiler.classad.functions_context import in_each_context
from compiler.classad.scope import (
    NO_AD,
    LazyList,
    Raw,
    Scope,
    resolve,
    resolve_absolute,
    select,
    subscript,
    to_python,
    to_runtime,
    top_scopes,
)
from compiler.classad.values import ERROR, UNDEFINED

Value = Any
_MISSING: Any = object()


class Runtime:
    """Per-call state: the function context (clock, random source)."""

    __slots__ = ("ctx", "now")

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.now: Callable[[], int] = ctx.now

    def eval_node(self, node: ast.Expr, scope: Scope) -> Value:
        return compiled(node)(scope, self)


Fn = Callable[[Scope, Runtime], Value]

# ---- attribute values -------------------------------------------------------------

_PLAIN: Final = frozenset({bool, int, float, str})
_LITERAL_VALUE: Final = frozenset({ast.Integer, ast.Real, ast.String, ast.Boolean})
_EXPR_TYPES: Final = frozenset(ast.EXPR_TYPES)
_CACHE_LIMIT = 200_000
_cache: dict[int, tuple[ast.Expr, Fn]] = {}


def compiled(node: ast.Expr) -> Fn:
    """The closure for `node`, compiled once per node object."""
    hit = _cache.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    fn = _compile(node)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[id(node)] = (node, fn)  # the node is kept alive, so its id stays unique
    return fn


def attr_value(scope: Scope, key: str, raw: Raw, rt: Runtime) -> Value:
    """Value of an attribute found in `scope` (UNDEFINED when it is part of a cycle)."""
    t = type(raw)
    if t in _PLAIN:
        return raw
    if t in _LITERAL_VALUE:
        return raw.value
    if t not in _EXPR_TYPES:
        return to_runtime(raw, scope)
    busy = scope.busy
    if busy is None:
        scope.busy = busy = set()
    elif key in busy:
        return UNDEFINED
    busy.add(key)
    try:
        return compiled(raw)(scope, rt)
    finally:
        busy.discard(key)


def _lookup(key: str) -> Fn:
    def lookup(scope: Scope, rt: Runtime) -> Value:
        current: Scope | None = scope
        while current is not None:
            raw = current.attrs.get(key, _MISSING)
            if raw is not _MISSING:
                return attr_value(current, key, raw, rt)
            current = current.parent
        # Not in this ad or its enclosing ads: special names, then the other ad.
        return resolve(scope, key, True, rt.eval_node, rt.now)

    return lookup


# ---- constants ----------------------------------------------------------------------

_CONSTANT_ATTR = "classad_constant"


def _constant(value: Value) -> Fn:
    def constant(scope: Scope, rt: Runtime) -> Value:
        return value

    setattr(constant, _CONSTANT_ATTR, value)
    return constant


def constant_value(fn: Fn) -> Value:
    """The value a compiled closure always returns, or a private marker if it varies."""
    return getattr(fn, _CONSTANT_ATTR, _MISSING)


def _fold(fn: Fn, *parts: Fn) -> Fn:
    """`fn` replaced by its value when every part is constant (no attribute, no call)."""
    if all(constant_value(p) is not _MISSING for p in parts):
        value = fn(Scope({}), Runtime(function_context(0)))
        if type(value) in _PLAIN or value is UNDEFINED or value is ERROR:
            return _constant(value)
    return fn


# ---- operators ----------------------------------------------------------------------

_FAST_COMPARE: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def _compare(op: str, left: Fn, right: Fn) -> Fn:
    slow = ops.BINARY[op]
    fast = _FAST_COMPARE[op]
    b = constant_value(right)
    if type(b) is int or type(b) is float:
        return _compare_constant(slow, fast, left, b)
    if type(b) is str and op in ("==", "!="):
        return _string_equality(op == "==", left, b)

    def compare(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        b = right(scope, rt)
        t = type(a)
        if t is type(b) and (t is int or t is float):
            return fast(a, b)
        return slow(a, b)

    return compare


def _compare_constant(
    slow: ops.BinaryFn, fast: Callable[[Any, Any], bool], left: Fn, b: int | float
) -> Fn:
    tb = type(b)

    def compare_constant(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        return fast(a, b) if type(a) is tb else slow(a, b)

    return compare_constant


def _string_equality(equal: bool, left: Fn, b: str) -> Fn:
    """`x == "Suspended"`: a case-insensitive test against a constant string."""
    folded = ops.ascii_lower(b)
    slow = ops.equal if equal else ops.not_equal
    lower = ops.ascii_lower

    def string_equality(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        if type(a) is str:
            return (a == b or lower(a) == folded) is equal
        return slow(a, b)

    return string_equality


def _identity_constant(same: bool, left: Fn, b: Value) -> Fn:
    """`x =?= 1`, `x =!= UNDEFINED`: identity against a constant scalar."""
    tb = type(b)
    slow = ops.identical if same else ops.not_identical

    def identity_constant(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        if type(a) is tb:
            return (a == b) is same
        return slow(a, b)

    return identity_constant


def _strict(op: str, left: Fn, right: Fn) -> Fn:
    slow = ops.BINARY[op]

    def strict(scope: Scope, rt: Runtime) -> Value:
        return slow(left(scope, rt), right(scope, rt))

    return strict


def _and(left: Fn, right: Fn) -> Fn:
    truth = ops.truth

    def and_(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        if a is not True:
            a = truth(a)
            if a is False or a is ERROR:
                return a
        b = right(scope, rt)
        if b is True or b is False:
            return b if a is True or b is False else UNDEFINED
        b = truth(b)
        if a is True or b is False or b is ERROR:
            return b
        return UNDEFINED

    return and_


def _or(left: Fn, right: Fn) -> Fn:
    truth = ops.truth

    def or_(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        if a is not False:
            a = truth(a)
            if a is True or a is ERROR:
                return a
        b = right(scope, rt)
        if b is True or b is False:
            return b if a is False or b is True else UNDEFINED
        b = truth(b)
        if a is False or b is True or b is ERROR:
            return b
        return UNDEFINED

    return or_


def _identity_scalar(value: Value) -> bool:
    return value is UNDEFINED or value is ERROR or type(value) in _PLAIN


def _binary(node: ast.Binary) -> Fn:
    left, right = compiled(node.left), compiled(node.right)
    match node.op:
        case "&&":
            fn = _and(left, right)
        case "||":
            fn = _or(left, right)
        case op if op in _FAST_COMPARE:
            fn = _compare(op, left, right)
        case "=?=" | "=!=" as op if _identity_scalar(constant_value(right)):
            fn = _identity_constant(op == "=?=", left, constant_value(right))
        case op:
            fn = _strict(op, left, right)
    return _fold(fn, left, right)


def _unary(node: ast.Unary) -> Fn:
    op = ops.UNARY[node.op]
    operand = compiled(node.operand)

    def unary(scope: Scope, rt: Runtime) -> Value:
        return op(operand(scope, rt))

    return _fold(unary, operand)


def _conditional(cond: Fn, then: Fn, otherwise: Fn) -> Fn:
    def conditional(scope: Scope, rt: Runtime) -> Value:
        c = cond(scope, rt)
        if c is True:
            return then(scope, rt)
        if c is False:
            return otherwise(scope, rt)
        c = choose(c)
        if c is True:
            return then(scope, rt)
        if c is False:
            return otherwise(scope, rt)
        return c

    return conditional


def _elvis(left: Fn, right: Fn) -> Fn:
    def elvis(scope: Scope, rt: Runtime) -> Value:
        value = left(scope, rt)
        return right(scope, rt) if value is UNDEFINED else value

    return elvis


# ---- references, lists, ads ---------------------------------------------------------


def _absolute(key: str) -> Fn:
    def absolute(scope: Scope, rt: Runtime) -> Value:
        return resolve_absolute(scope, key, rt.eval_node, rt.now)

    return absolute


def _attr(node: ast.AttrRef) -> Fn:
    if node.scope is None:
        return _lookup(node.key)
    if node.scope == ast.ROOT:
        return _absolute(node.key)
    word = node.scope.lower()
    base = _lookup(word)
    key = node.key
    # The scope word is almost never an attribute itself: find MY / TARGET directly
    # unless some ad on the way out defines an attribute of that name.
    special_ad = {"my": _self_ad, "target": _other_ad}.get(word)

    def scoped(scope: Scope, rt: Runtime) -> Value:
        ad: Value = _MISSING
        if special_ad is not None:
            outer: Scope | None = scope
            while outer is not None and word not in outer.attrs:
                outer = outer.parent
            if outer is None:
                ad = special_ad(scope)
        if ad is _MISSING:
            ad = base(scope, rt)
        if type(ad) is Scope and not ad.detached:
            current: Scope | None = ad
            while current is not None:
                raw = current.attrs.get(key, _MISSING)
                if raw is not _MISSING:
                    return attr_value(current, key, raw, rt)
                current = current.parent
        return select(ad, key, rt.eval_node, rt.now)

    return scoped


def _self_ad(scope: Scope) -> Value:
    return scope if scope.attrs is not NO_AD else UNDEFINED


def _other_ad(scope: Scope) -> Value:
    while scope.parent is not None:
        scope = scope.parent
    return scope.other if scope.other is not None else UNDEFINED


def _select(node: ast.Select) -> Fn:
    base, key = compiled(node.base), node.key

    def selection(scope: Scope, rt: Runtime) -> Value:
        return select(base(scope, rt), key, rt.eval_node, rt.now, scope)

    return selection


def _subscript(node: ast.Subscript) -> Fn:
    base, index = compiled(node.base), compiled(node.index)

    def subscription(scope: Scope, rt: Runtime) -> Value:
        return subscript(base(scope, rt), index(scope, rt), rt.eval_node)

    return _fold(subscription, base, index)


def _list(node: ast.ListExpr) -> Fn:
    for item in node.items:
        compiled(item)  # compile the elements now, evaluate them when they are read

    def make_list(scope: Scope, rt: Runtime) -> Value:
        return LazyList(node, scope, rt.eval_node)

    return make_list


def _record(node: ast.RecordExpr) -> Fn:
    attrs = {k.lower(): v for k, v in node.attrs}
    names = {k.lower(): k for k, _ in node.attrs}

    def make_record(scope: Scope, rt: Runtime) -> Value:
        return scope.record(node, attrs, names)

    return make_record


# ---- calls --------------------------------------------------------------------------


def _call(node: ast.Call) -> Fn:
    key, args = node.key, tuple(compiled(a) for a in node.args)
    match key:
        case "ifthenelse":
            if len(args) != 3:
                return _constant(ERROR)
            return _conditional(*args)
        case "eval":
            if len(args) != 1:
                return _constant(ERROR)
            (arg,) = args

            def eval_(scope: Scope, rt: Runtime) -> Value:
                return eval_text(arg(scope, rt), lambda expr: compiled(expr)(scope, rt))

            return eval_
        case "unparse":
            raw_args = node.args

            def unparse_(scope: Scope, rt: Runtime) -> Value:
                return unparse_attribute(scope, raw_args)

            return unparse_
        case "evalineachcontext" | "countmatches":
            raw_args = node.args

            def each_context(scope: Scope, rt: Runtime) -> Value:
                return in_each_context(key, raw_args, scope, rt.eval_node, rt.now)

            return each_context
        case "time" if not args:
            return _time
    impl = builtins().get(key)
    if impl is None:
        return _constant(ERROR)

    prepare = TEXT_ARGUMENTS.get(key)

    def call(scope: Scope, rt: Runtime) -> Value:
        values = [a(scope, rt) for a in args]
        return call_builtin(impl, values, rt.ctx, scope, rt.eval_node, prepare)

    return call


def _time(scope: Scope, rt: Runtime) -> Value:
    """`time()`: the injected clock, without a trip through the builtin table."""
    return rt.now()


def _literal(node: ast.Expr) -> Fn:
    match node:
        case ast.Integer(value=v) | ast.Real(value=v) | ast.String(value=v) | ast.Boolean(value=v):
            return _constant(v)
        case ast.UndefinedLit():
            return _constant(UNDEFINED)
        case _:
            return _constant(ERROR)


_BUILDERS: Final[dict[type, Callable[[Any], Fn]]] = {
    ast.Integer: _literal,
    ast.Real: _literal,
    ast.String: _literal,
    ast.Boolean: _literal,
    ast.UndefinedLit: _literal,
    ast.ErrorLit: _literal,
    ast.AttrRef: _attr,
    ast.Select: _select,
    ast.Subscript: _subscript,
    ast.ListExpr: _list,
    ast.RecordExpr: _record,
    ast.Call: _call,
    ast.Unary: _unary,
    ast.Binary: _binary,
    ast.Conditional: lambda n: _folded_conditional(
        compiled(n.cond), compiled(n.then), compiled(n.otherwise)
    ),
    ast.Elvis: lambda n: _folded_elvis(compiled(n.left), compiled(n.right)),
}


def _folded_conditional(cond: Fn, then: Fn, otherwise: Fn) -> Fn:
    return _fold(_conditional(cond, then, otherwise), cond, then, otherwise)


def _folded_elvis(left: Fn, right: Fn) -> Fn:
    return _fold(_elvis(left, right), left, right)


def _compile(node: ast.Expr) -> Fn:
    builder = _BUILDERS.get(type(node))
    if builder is None:
        raise TypeError(f"not a ClassAd expression node: {node!r}")
    return builder(node)


# ---- the public callable ------------------------------------------------------------

_default_runtime: Runtime | None = None


def _shared_runtime() -> Runtime:
    return _default_runtime if _default_runtime is not None else _runtime(None, None)


def _runtime(now: Now, ctx: Any) -> Runtime:
    """The per-call runtime; the wall-clock one is immutable, so it is shared."""
    global _default_runtime
    if ctx is not None:
        return Runtime(ctx)
    if now is not None:
        return Runtime(function_context(now))
    if _default_runtime is None:
        _default_runtime = Runtime(function_context())
    return _default_runtime


class CompiledExpr:
    """A compiled expression: `compiled(my, target, now=...)` like `evaluate`."""

    __slots__ = ("expr", "fn")

    def __init__(self, expr: ast.Expr) -> None:
        self.expr = expr
        self.fn = compiled(expr)

    def __call__(
        self,
        my: Mapping[str, Raw] | None = None,
        target: Mapping[str, Raw] | None = None,
        *,
        now: Now = None,
        ctx: Any = None,
    ) -> Value:
        mine, _theirs = top_scopes(my, target)
        rt = _runtime(now, ctx) if now is not None or ctx is not None else _shared_runtime()
        try:
            value = self.fn(mine, rt)
            if type(value) in _PLAIN or value is UNDEFINED or value is ERROR:
                return value
            # Converting a deep list or ad recurses as deeply as evaluating it.
            return to_python(value, rt.eval_node)
        except RecursionError:
            return self._deep(my, target, rt)

    def _deep(self, my: Any, target: Any, rt: Runtime) -> Value:
        def run() -> Value:
            mine, _ = top_scopes(my, target)
            return to_python(self.fn(mine, rt), rt.eval_node)

        try:
            return call_deep(run)
        except RecursionError:
            return ERROR

    def __repr__(self) -> str:
        from compiler.classad.unparse import unparse

        return f"CompiledExpr({unparse(self.expr)!r})"


def compile_expr(expr: ast.Expr | str) -> CompiledExpr:
    """Compile an expression (or ClassAd text) for fast repeated evaluation."""
    node = parse_cached(expr) if isinstance(expr, str) else expr
    return call_deep(CompiledExpr, node)
