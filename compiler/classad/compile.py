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
* attribute expressions stored in ads are compiled on first use and remembered;
* an expression called a few times (`_WARM_CALLS`) gets one generated Python function
  for its whole tree instead of one closure call per node (see "generated Python
  source" below: how, and why it is safe);
* the two ads are not copied: a ClassAd's or plain dict's scope is kept per pair of ads
  and reads the ad in place (scope.py, `top_scopes`, `PlainAttrs`).

The interpreter (evaluator.py) is the specification; property tests check that the
closures and the generated functions agree with it on generated expressions and ads
(tests/classad/test_compile.py, test_compile_fast.py).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from threading import get_ident
from typing import Any, Final

from compiler.classad import ast
from compiler.classad import operators as ops
from compiler.classad.ast import VALUE_LITERALS
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
    ABSENT,
    NO_AD,
    VIEWED,
    LazyList,
    PlainAttrs,
    Raw,
    Scope,
    find_raw,
    pair_entry,
    resolve,
    resolve_absolute,
    select,
    subscript,
    to_python,
    to_runtime,
    top_scopes,
)
from compiler.classad.values import ERROR, PLAIN_TYPES, UNDEFINED
from compiler.identity import IdentityMemo

Value = Any
_MISSING: Any = ABSENT


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

_EXPR_TYPES: Final = ast.NODE_TYPES
_CACHE_LIMIT = 200_000
_closures: IdentityMemo[ast.Expr, Fn] = IdentityMemo(_CACHE_LIMIT)


def compiled(node: ast.Expr) -> Fn:
    """The closure for `node`, compiled once per node object."""
    fn = _closures.get(node)
    return _closures.put(node, _compile(node)) if fn is None else fn


def attr_value(scope: Scope, key: str, raw: Raw, rt: Runtime) -> Value:
    """Value of an attribute found in `scope` (UNDEFINED when it is part of a cycle)."""
    t = type(raw)
    if t in PLAIN_TYPES:
        return raw
    if t in VALUE_LITERALS:
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
        return hot(raw)(scope, rt)
    finally:
        busy.discard(key)


def _lookup(key: str, name: str | None = None) -> Fn:
    """An unscoped reference: this ad and its enclosing ads, then `resolve`'s rules.

    A plain dict is read under the name as the expression spells it first (see
    scope.find_raw); a plain value found is returned without a further call.
    """

    def lookup(scope: Scope, rt: Runtime) -> Value:
        current: Scope | None = scope
        while current is not None:
            plain = current.plain
            if plain is not None and name is not None:
                raw = plain.get(name, _MISSING)
                if raw is _MISSING:
                    raw = current.attrs.get(key, _MISSING)
            else:
                raw = current.attrs.get(key, _MISSING)
            if raw is not _MISSING:
                if type(raw) in PLAIN_TYPES:
                    return raw
                return attr_value(current, key, raw, rt)
            current = current.parent
        # Not in this ad or its enclosing ads: special names, then the other ad.
        return resolve(scope, key, True, rt.eval_node, rt.now, name)

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
        if type(value) in PLAIN_TYPES or value is UNDEFINED or value is ERROR:
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
    size = len(folded)
    slow = ops.equal if equal else ops.not_equal
    lower = ops.ascii_lower

    def string_equality(scope: Scope, rt: Runtime) -> Value:
        a = left(scope, rt)
        if type(a) is str:
            # ascii_lower keeps the length: a string of another length is not equal
            return (a == b or (len(a) == size and lower(a) == folded)) is equal
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
    return value is UNDEFINED or value is ERROR or type(value) in PLAIN_TYPES


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
        return _lookup(node.key, node.name)
    if node.scope == ast.ROOT:
        return _absolute(node.key)
    word = node.scope.lower()
    base = _lookup(word)
    key, name = node.key, node.name
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
                raw = find_raw(current, key, name)
                if raw is not _MISSING:
                    if type(raw) in PLAIN_TYPES:
                        return raw
                    return attr_value(current, key, raw, rt)
                current = current.parent
        return select(ad, key, rt.eval_node, rt.now, None, name)

    return scoped


def _self_ad(scope: Scope) -> Value:
    return scope if scope.attrs is not NO_AD else UNDEFINED


def _other_ad(scope: Scope) -> Value:
    while scope.parent is not None:
        scope = scope.parent
    return scope.other if scope.other is not None else UNDEFINED


def _select(node: ast.Select) -> Fn:
    base, key, name = compiled(node.base), node.key, node.name

    def selection(scope: Scope, rt: Runtime) -> Value:
        return select(base(scope, rt), key, rt.eval_node, rt.now, scope, name)

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


# ---- generated Python source for whole hot expressions ------------------------------
#
# Calling one closure per node costs a Python call per node. For an expression that is
# evaluated again and again (a policy expression, or an expression stored in an ad and
# reached through a reference), one Python function is generated for the whole tree:
# the common shapes (attribute references, `&&`, `||`, `!`, comparisons, `+ - *`,
# `?:`/ifThenElse, time()) are written out inline with exactly the closures' logic, and
# every other sub-tree is a call of its closure. Why this is safe: the source is built
# only from this module's fixed fragments, generated local names (v1, c1, f1, ...) and
# operator symbols taken from the fixed table `_PY_COMPARE`; every name, string and
# number of the expression reaches the function as an object in its namespace, never as
# source text. The closures stay the semantics the generated code must match (the
# property tests run both against the interpreter).

_PY_COMPARE: Final = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}
_ARITHMETIC: Final = {"+": "+", "-": "-", "*": "*"}
_MAX_INDENT = 30  # nesting depth inlined (CPython refuses about 100 indentation levels)
_MAX_NODES = 400  # nodes inlined per function; the rest are closure calls
_MAX_LEVEL = 60  # depth of the tree inlined (the generator recurses once per level)
_WARM_CALLS = 3  # calls before an expression is worth generating source for


class _Source:
    """The lines, names and namespace of one generated function."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {
            "UNDEFINED": UNDEFINED,
            "ERROR": ERROR,
            "M": _MISSING,
            "PLAIN": PLAIN_TYPES,
            "truth": ops.truth,
            "choose": choose,
            "wrap64": ops.wrap64,
            "INF": float("inf"),
            "attr_value": attr_value,
            "NO_AD": NO_AD,
            "EXPR": _EXPR_TYPES,
            # read inline, as `IdentityMemo.get` does (a call per attribute read costs)
            "GENERATED": _generated.table,
            "hot": hot,
        }
        self.count = 0
        self.nodes = 0
        self.level = 0
        self.reads_attrs = False
        #: Names known to hold TRUE, FALSE, UNDEFINED or ERROR (their truth is themselves).
        self.logic: set[str] = set()

    def name(self, value: Any, prefix: str = "c") -> str:
        self.count += 1
        label = f"{prefix}{self.count}"
        self.namespace[label] = value
        return label

    def tmp(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * (indent + 1) + line)

    def value(self, node: ast.Expr, indent: int) -> str:
        """Emit the code computing `node`; the name holding its value."""
        fn = compiled(node)
        constant = constant_value(fn)
        if constant is not _MISSING:
            label = self.name(constant)
            if type(constant) is bool or constant is UNDEFINED or constant is ERROR:
                self.logic.add(label)
            return label
        self.nodes += 1
        if indent > _MAX_INDENT or self.nodes > _MAX_NODES or self.level > _MAX_LEVEL:
            return self.call(fn, indent)
        self.level += 1
        try:
            return self.inline(node, fn, indent)
        finally:
            self.level -= 1

    def inline(self, node: ast.Expr, fn: Fn, indent: int) -> str:
        match node:
            case ast.AttrRef(scope=None):
                return self.attribute(node, fn, indent)
            case ast.AttrRef(scope="MY" | "TARGET"):
                return self.scoped(node, fn, indent)
            case ast.Binary(op="&&" | "||"):
                return self.logical(node, indent)
            case ast.Binary(op=op) if op in _PY_COMPARE:
                return self.compare(node, indent)
            case ast.Binary(op="=?=" | "=!=") if _identity_scalar(
                constant_value(compiled(node.right))
            ):
                return self.identity(node, indent)
            case ast.Binary(op=op) if op in _ARITHMETIC:
                return self.arithmetic(node, indent)
            case ast.Unary(op="!"):
                return self.negation(node, indent)
            case ast.Conditional():
                return self.conditional(node.cond, node.then, node.otherwise, indent)
            case ast.Call(key="ifthenelse", args=(cond, then, otherwise)):
                return self.conditional(cond, then, otherwise, indent)
            case ast.Call(key="time", args=()):
                out = self.tmp()
                self.emit(indent, f"{out} = rt.now()")
                return out
        return self.call(fn, indent)

    def call(self, fn: Fn, indent: int) -> str:
        out = self.tmp()
        self.emit(indent, f"{out} = {self.name(fn, 'f')}(scope, rt)")
        return out

    def attribute(self, node: ast.AttrRef, fn: Fn, indent: int) -> str:
        # This ad's own plain value inline; anything else (an expression, a miss, an
        # enclosing ad, the other ad) through the reference's closure, which finds the
        # same entry first.
        self.reads_attrs = True
        out = self.tmp()
        key, name, full = self.name(node.key), self.name(node.name), self.name(fn, "f")
        self.emit(indent, f"{out} = get({key}, M) if plain is None else plain({name}, M)")
        self.emit(indent, f"if type({out}) not in PLAIN:")
        self.emit(indent + 1, f"if {out} is M:")
        self.emit(indent + 2, f"{out} = {full}(scope, rt)")
        self.found(out, "scope", key, indent + 1)
        return out

    def found(self, out: str, ad: str, key: str, indent: int) -> None:
        """`out` holds what `ad` stores for `key` (not a plain value, not M): its value,
        as `attr_value` gives it, with the expression case written out."""
        busy, fn = self.tmp(), self.tmp()
        self.emit(indent, f"elif type({out}) in EXPR:")
        self.emit(indent + 1, f"{busy} = {ad}.busy")
        self.emit(indent + 1, f"if {busy} is None:")
        self.emit(indent + 2, f"{ad}.busy = {busy} = set()")
        self.emit(indent + 1, f"if {key} in {busy}:")
        self.emit(indent + 2, f"{out} = UNDEFINED  # a cycle")
        self.emit(indent + 1, "else:")
        self.emit(indent + 2, f"{fn} = GENERATED.get(id({out}))")
        self.emit(
            indent + 2, f"{fn} = {fn}[1] if {fn} is not None and {fn}[0] is {out} else hot({out})"
        )
        self.emit(indent + 2, f"{busy}.add({key})")
        self.emit(indent + 2, "try:")
        self.emit(indent + 3, f"{out} = {fn}({ad}, rt)")
        self.emit(indent + 2, "finally:")
        self.emit(indent + 3, f"{busy}.discard({key})")
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{out} = attr_value({ad}, {key}, {out}, rt)")

    def scoped(self, node: ast.AttrRef, fn: Fn, indent: int) -> str:
        # `MY.x` / `TARGET.x` from a top-level ad that holds no attribute named like the
        # scope word: this ad or the other one directly; anything else by the closure.
        assert node.scope is not None
        word, key, name = self.name(node.scope.lower()), self.name(node.key), self.name(node.name)
        full = self.name(fn, "f")
        ad, out = self.tmp(), self.tmp()
        self.emit(indent, f"{ad} = scope.attrs")
        # A plain dict's view: its name index read in place (`PlainAttrs.__contains__`
        # written out: the index of this evaluation, checked against the dict if none).
        self.emit(indent, "if scope.plain is not None:")
        self.emit(indent + 1, f"{ad} = {ad}._names if {ad}._names is not None else {ad}.names()")
        self.emit(indent, f"if scope.parent is None and {word} not in {ad}:")
        if node.scope == "MY":
            self.emit(indent + 1, f"{ad} = scope if scope.attrs is not NO_AD else None")
        else:
            self.emit(indent + 1, f"{ad} = scope.other")
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{ad} = None")
        self.emit(indent, f"if {ad} is not None and not {ad}.detached:")
        self.emit(
            indent + 1,
            f"{out} = {ad}.attrs.get({key}, M) if {ad}.plain is None "
            f"else {ad}.plain.get({name}, M)",
        )
        self.emit(indent + 1, f"if type({out}) not in PLAIN:")
        self.emit(indent + 2, f"if {out} is M:")
        self.emit(indent + 3, f"{out} = {full}(scope, rt)")
        self.found(out, ad, key, indent + 2)
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{out} = {full}(scope, rt)")
        return out

    def logical(self, node: ast.Binary, indent: int) -> str:
        conjunction = node.op == "&&"
        decided, open_ = ("False", "True") if conjunction else ("True", "False")
        a = self.value(node.left, indent)
        out = self.tmp()
        self.emit(indent, f"{out} = {self.truth(a)}")
        self.emit(indent, f"if {out} is {open_} or {out} is UNDEFINED:")
        b = self.value(node.right, indent + 1)
        t = self.truth(b)
        self.emit(indent + 1, f"if {out} is {open_} or {t} is {decided} or {t} is ERROR:")
        self.emit(indent + 2, f"{out} = {t}")
        self.emit(indent + 1, "else:")
        self.emit(indent + 2, f"{out} = UNDEFINED")
        self.logic.add(out)
        return out

    def truth(self, a: str) -> str:
        """An expression for `ops.truth` of the value named `a` (`a` itself when it is
        known to be TRUE, FALSE, UNDEFINED or ERROR already)."""
        if a in self.logic:
            return a
        return f"({a} if {a} is True or {a} is False else truth({a}))"

    def compare(self, node: ast.Binary, indent: int) -> str:
        op, slow = _PY_COMPARE[node.op], self.name(ops.BINARY[node.op], "f")
        a = self.value(node.left, indent)
        right = constant_value(compiled(node.right))
        b = self.value(node.right, indent)
        out = self.tmp()
        tb = type(right)
        if tb is int or tb is float or tb is bool:
            # same-type numbers (or two booleans, compared as 0/1) compare as in C
            kind = self.name(tb)
            self.emit(
                indent, f"{out} = ({a} {op} {b}) if type({a}) is {kind} else {slow}({a}, {b})"
            )
        elif tb is str and node.op in ("==", "!="):
            folded, lower = self.name(ops.ascii_lower(right)), self.name(ops.ascii_lower, "f")
            same = self.name(node.op == "==")
            self.emit(indent, f"if type({a}) is str:")
            size = self.name(len(right))
            self.emit(
                indent + 1,
                f"{out} = ({a} == {b} or (len({a}) == {size} and {lower}({a}) == {folded}))"
                f" is {same}",
            )
            self.emit(indent, "else:")
            self.emit(indent + 1, f"{out} = {slow}({a}, {b})")
        else:
            self.emit(
                indent,
                f"{out} = ({a} {op} {b}) if type({a}) is type({b}) and "
                f"(type({a}) is int or type({a}) is float) else {slow}({a}, {b})",
            )
        self.logic.add(out)
        return out

    def identity(self, node: ast.Binary, indent: int) -> str:
        right = constant_value(compiled(node.right))
        slow = self.name(ops.identical if node.op == "=?=" else ops.not_identical, "f")
        same, kind = self.name(node.op == "=?="), self.name(type(right))
        a = self.value(node.left, indent)
        b = self.name(right)
        out = self.tmp()
        self.emit(
            indent, f"{out} = ({a} == {b}) is {same} if type({a}) is {kind} else {slow}({a}, {b})"
        )
        self.logic.add(out)
        return out

    def arithmetic(self, node: ast.Binary, indent: int) -> str:
        op, slow = _ARITHMETIC[node.op], self.name(ops.BINARY[node.op], "f")
        a = self.value(node.left, indent)
        b = self.value(node.right, indent)
        out = self.tmp()
        self.emit(indent, f"if type({a}) is int and type({b}) is int:")
        self.emit(indent + 1, f"{out} = {a} {op} {b}")
        self.emit(indent + 1, f"if not {ops.INT64_MIN} <= {out} <= {ops.INT64_MAX}:")
        self.emit(indent + 2, f"{out} = wrap64({out})")
        self.emit(indent, f"elif type({a}) is float and type({b}) is float:")
        self.emit(indent + 1, f"{out} = {a} {op} {b}")
        self.emit(indent + 1, f"if {out} == INF:  # +inf from an operation is an error")
        self.emit(indent + 2, f"{out} = ERROR")
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{out} = {slow}({a}, {b})")
        return out

    def negation(self, node: ast.Unary, indent: int) -> str:
        a = self.value(node.operand, indent)
        out = self.tmp()
        self.emit(indent, f"{out} = {self.truth(a)}")
        self.emit(indent, f"if {out} is True or {out} is False:")
        self.emit(indent + 1, f"{out} = not {out}")
        self.logic.add(out)
        return out

    def conditional(self, cond: ast.Expr, then: ast.Expr, otherwise: ast.Expr, indent: int) -> str:
        c = self.value(cond, indent)
        out = self.tmp()
        if c in self.logic:  # choose() of these is themselves
            self.emit(indent, f"{out} = {c}")
        else:
            self.emit(indent, f"{out} = {c} if {c} is True or {c} is False else choose({c})")
        self.emit(indent, f"if {out} is True:")
        t = self.value(then, indent + 1)
        self.emit(indent + 1, f"{out} = {t}")
        self.emit(indent, f"elif {out} is False:")
        o = self.value(otherwise, indent + 1)
        self.emit(indent + 1, f"{out} = {o}")
        return out

    def function(self, node: ast.Expr) -> Fn:
        result = self.value(node, 0)
        head = ["def generated(scope, rt):"]
        if self.reads_attrs:
            head += ["    plain = scope.plain", "    get = scope.attrs.get"]
            head += ["    if plain is not None:", "        plain = plain.get"]
        source = "\n".join([*head, *self.lines, f"    return {result}", ""])
        code = compile(source, "<classad generated>", "exec")
        exec(code, self.namespace)  # the source is built only from fixed fragments (above)
        fn: Fn = self.namespace["generated"]
        return fn


_generated: IdentityMemo[ast.Expr, Fn] = IdentityMemo(_CACHE_LIMIT)


def generated(node: ast.Expr) -> Fn:
    """One generated function for the whole of `node` (see above), made once per node."""
    hit = _generated.get(node)
    if hit is not None:
        return hit
    fn = compiled(node)
    if constant_value(fn) is _MISSING and type(node) in _GENERATED_ROOTS:
        fn = _Source().function(node)
    return _generated.put(node, fn)


#: Nodes worth a generated function (a lone reference or literal is its closure).
_GENERATED_ROOTS: Final = frozenset({ast.Binary, ast.Unary, ast.Conditional, ast.Call})

#: Calls so far of attribute expressions not generated yet (see `hot`).
_calls: IdentityMemo[ast.Expr, int] = IdentityMemo(_CACHE_LIMIT)


def hot(node: ast.Expr) -> Fn:
    """The function to evaluate `node` with: its closure for its first few calls, then
    its generated function (so expressions evaluated once never pay for generation)."""
    hit = _generated.get(node)
    if hit is not None:
        return hit
    count = _calls.get(node, 0) + 1
    if count >= _WARM_CALLS:
        _calls.forget(node)
        return generated(node)
    _calls.put(node, count)
    return compiled(node)


# ---- the public callable ------------------------------------------------------------

_default_runtime: Runtime | None = None


def _shared_runtime() -> Runtime:
    return _default_runtime if _default_runtime is not None else _runtime(None, None)


def _runtime(now: Now, ctx: Any) -> Runtime:
    """The per-call runtime. A runtime only holds a clock and a random source, so the
    last one made for the same context object, the same fixed time or the same clock
    function is used again (making a context seeds a new random source: the cost of
    a whole evaluation)."""
    global _default_runtime, _last_runtime
    if ctx is not None:
        last = _last_runtime
        if last is not None and last[0] is ctx:
            return last[1]
        runtime = Runtime(ctx)
        _last_runtime = (ctx, runtime)
        return runtime
    if now is not None:
        key = now if callable(now) else (int(now),)
        last = _last_runtime
        if last is not None and (last[0] is key or last[0] == key):
            return last[1]
        runtime = Runtime(function_context(now))
        _last_runtime = (key, runtime)
        return runtime
    if _default_runtime is None:
        _default_runtime = Runtime(function_context())
    return _default_runtime


#: (context object, fixed time as a 1-tuple, or clock function; its runtime).
_last_runtime: tuple[Any, Runtime] | None = None


class CompiledExpr:
    """A compiled expression: `compiled(my, target, now=...)` like `evaluate`."""

    __slots__ = ("calls", "constant", "expr", "fn", "last")

    def __init__(self, expr: ast.Expr) -> None:
        self.expr = expr
        self.fn = compiled(expr)
        constant = constant_value(self.fn)
        self.calls = 0 if constant is _MISSING else -1
        #: the value of an expression that reads nothing (a literal, folded operators),
        #: returned without making the scopes of the ads it is called with: a slot's
        #: MaxJobRetirementTime or RANK is often a number, evaluated in every new ad
        self.constant = (
            constant
            if type(constant) in PLAIN_TYPES or constant is UNDEFINED or constant is ERROR
            else _MISSING
        )
        #: (thread, my, target, MY scope, plain-dict views): see `_scopes`.
        self.last: tuple[int, Any, Any, Scope, tuple[PlainAttrs, ...]] | None = None

    def _scopes(self, my: Any, target: Any) -> Scope:
        entry = pair_entry(my, target)
        if type(my) in VIEWED and (target is None or type(target) in VIEWED):
            self.last = (get_ident(), my, target, entry[2], entry[4])
        return entry[2]

    def __call__(
        self,
        my: Mapping[str, Raw] | None = None,
        target: Mapping[str, Raw] | None = None,
        *,
        now: Now = None,
        ctx: Any = None,
    ) -> Value:
        if self.constant is not _MISSING:
            return self.constant
        # The scopes of the last pair of ads this expression saw in this thread; else
        # top_scopes (whose per-thread cache serves every expression).
        last = self.last
        if (
            last is not None
            and last[1] is my
            and last[2] is target
            and last[0] == get_ident()
            # (scopes `release_retired` unlinked are not used again)
            and (target is None or last[3].other is not None)
        ):
            for view in last[4]:
                view._names = None  # a new evaluation: index a plain dict again if needed
            mine = last[3]
        else:
            mine = self._scopes(my, target)
        if now is None and ctx is None and _default_runtime is not None:
            rt = _default_runtime
        else:
            rt = _runtime(now, ctx)
        if self.calls >= 0:
            self._warm()
        try:
            value = self.fn(mine, rt)
            if value is True or value is False or type(value) in PLAIN_TYPES:
                return value
            if value is UNDEFINED or value is ERROR:
                return value
            # Converting a deep list or ad recurses as deeply as evaluating it.
            return to_python(value, rt.eval_node)
        except RecursionError:
            return self._deep(my, target, rt)

    def _warm(self) -> None:
        """Count the first calls; at the last of them switch to the generated function."""
        self.calls += 1
        if self.calls >= _WARM_CALLS:
            self.calls = -1
            self.fn = call_deep(generated, self.expr)

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
