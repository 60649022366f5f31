"""The reference ClassAd interpreter (stage: evaluation).

`evaluate` walks the AST directly. It is the executable specification that the fast
path (`compile.py`) is property-tested against, so it favours plainness over speed.
Operator semantics come from `operators.py`, look-up rules from `scope.py`; the
built-in functions from `functions.py` (`BUILTINS`), except the special forms that
need unevaluated arguments or the scope, which live here: `ifThenElse` (lazy),
`eval` (parse a string, evaluate it in the current scope) and `unparse`, and in
`functions_context.py`: `evalInEachContext` and `countMatches`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import msgspec

from compiler.classad import ast
from compiler.classad import operators as ops
from compiler.classad.deep import call_deep
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.functions_context import in_each_context
from compiler.classad.parser import parse
from compiler.classad.scope import (
    ABSENT,
    LazyList,
    Raw,
    Scope,
    elements,
    find_raw,
    resolve,
    resolve_absolute,
    select,
    subscript,
    to_python,
    to_runtime,
    top_scopes,
)
from compiler.classad.unparse import format_value, unparse_classad_style
from compiler.classad.values import ERROR, PLAIN_TYPES, UNDEFINED

Value = Any
#: A clock: epoch seconds (a simulated clock may give a float), or a function giving them.
Now = int | float | Callable[[], int | float] | None


class _FallbackContext(msgspec.Struct, frozen=True):
    """Stand-in for functions.FunctionContext while that module is absent."""

    now: Callable[[], int] = msgspec.field(default=lambda: int(time.time()))
    rng: random.Random = msgspec.field(default_factory=random.Random)


@cache
def builtins() -> Mapping[str, Callable[[list[Value], Any], Value]]:
    """The builtin function table (lower-case names), empty if functions.py is absent."""
    try:
        from compiler.classad import functions
    except ImportError:  # pragma: no cover - only while the functions module is missing
        return {}
    return functions.BUILTINS


def function_context(now: Now = None, rng: random.Random | None = None) -> Any:
    """A FunctionContext whose clock is `now` (epoch seconds, or a clock function)."""
    clock: Callable[[], int]
    if now is None:
        clock = _wall_clock
    elif callable(now):
        source = now

        def clock() -> int:
            return int(source())  # HTCondor's time() is an integer

    else:
        fixed = int(now)

        def clock() -> int:
            return fixed

    global _function_context
    if _function_context is None:
        try:
            # From its own module: the function table (`functions`, with its regex
            # engine) is imported by the first builtin call, not by every context made.
            from compiler.classad.functions_context import FunctionContext
        except ImportError:  # pragma: no cover
            return _FallbackContext(clock, rng or _SHARED_RNG)
        _function_context = FunctionContext  # (an import statement per call costs a microsecond)
    return _function_context(now=clock, rng=rng or _SHARED_RNG)


_function_context: Any = None
#: random()'s generator when the caller gives none (seeding one per context from the
#: system's entropy cost more than most evaluations)
_SHARED_RNG = random.Random()


def _wall_clock() -> int:
    return int(time.time())


def parse_cached(text: str) -> ast.Expr:
    """`parse` (which remembers its results: policy text is evaluated again and again)."""
    return parse(text)


#: The special forms: functions that see unevaluated arguments and the scope.
SPECIAL_FORMS = frozenset({"ifthenelse", "eval", "unparse", "evalineachcontext", "countmatches"})


def unparse_attribute(scope: Scope, args: tuple[ast.Expr, ...]) -> Value:
    """`unparse(name)`: the text of an attribute's expression as HTCondor writes it.

    Only a plain unscoped name is accepted (anything else is ERROR); it is looked up in
    the current ad and its enclosing ads, never in the other ad; missing gives `""`.
    """
    if len(args) != 1 or not isinstance(args[0], ast.AttrRef) or args[0].scope is not None:
        return ERROR
    key, name = args[0].key, args[0].name
    current: Scope | None = scope
    while current is not None:
        raw = find_raw(current, key, name)
        if raw is not ABSENT:
            if isinstance(raw, ast.EXPR_TYPES):
                return unparse_classad_style(raw)
            return format_value(raw)
        current = current.parent
    return ""


def eval_text(value: Value, run: Callable[[ast.Expr], Value]) -> Value:
    """`eval(x)`: a string is parsed and evaluated (ERROR if it does not parse)."""
    if type(value) is str:
        try:
            expr = parse_cached(value)
        except ClassAdSyntaxError:
            return ERROR
        return run(expr)
    if value is UNDEFINED or value is ERROR:
        return ERROR
    return value


def choose(cond: Value) -> Value:
    """The truth of a `?:`/ifThenElse condition: True/False, or UNDEFINED/ERROR."""
    t = type(cond)
    if t is bool:
        return cond
    if t is int or t is float:
        return cond != 0
    return UNDEFINED if cond is UNDEFINED else ERROR


def source_text(value: Value) -> Value:
    """A list or nested ad as the text HTCondor's string conversion gives it."""
    if isinstance(value, LazyList):
        return unparse_classad_style(value.source)
    if isinstance(value, Scope) and value.node is not None:
        return unparse_classad_style(value.node)
    return value


def _texts(args: list[Value]) -> list[Value]:
    return [source_text(a) for a in args]


def _join_texts(args: list[Value]) -> list[Value]:
    # join(list) and join(sep, list) convert each element; join(sep, a, b, ...) each
    # argument.
    if len(args) in (1, 2):
        items = elements(args[-1])
        if items is not None:
            return [*_texts(args[:-1]), [source_text(e) for e in items]]
    return _texts(args)


ArgsHook = Callable[[list[Value]], list[Value]]

#: Builtins that read a list or nested-ad argument as its unevaluated text.
TEXT_ARGUMENTS: dict[str, ArgsHook] = {
    "string": _texts,
    "strcat": _texts,
    "strcmp": _texts,
    "stricmp": _texts,
    "tolower": _texts,
    "toupper": _texts,
    "join": _join_texts,
}


def call_builtin(
    impl: Callable[[list[Value], Any], Value] | None,
    args: list[Value],
    ctx: Any,
    scope: Scope,
    evaluate: Callable[[ast.Expr, Scope], Value],
    prepare: ArgsHook | None = None,
) -> Value:
    """Call a builtin with public values, and bring its result back into the evaluator."""
    if impl is None:
        return ERROR
    if prepare is not None:
        args = prepare(args)
    public = [a if type(a) in PLAIN_TYPES else to_python(a, evaluate) for a in args]
    return to_runtime(impl(public, ctx), scope)


class Interpreter:
    """Evaluates AST nodes directly; one instance per top-level evaluation."""

    __slots__ = ("ctx", "now")

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.now: Callable[[], int] = ctx.now

    def eval(self, node: ast.Expr, scope: Scope) -> Value:
        # The commonest nodes first, by exact type (the same results as the cases below):
        # a class pattern that fails against a Struct class goes through its metaclass's
        # __instancecheck__, and Binary comes late in the match.
        if type(node) is ast.Binary:
            op = node.op
            if op == "&&":
                return self._and(node.left, node.right, scope)
            if op == "||":
                return self._or(node.left, node.right, scope)
            return ops.BINARY[op](self.eval(node.left, scope), self.eval(node.right, scope))
        if type(node) is ast.AttrRef and node.scope is None:
            return resolve(scope, node.key, True, self.eval, self.now, node.name)
        if type(node) is ast.Integer or type(node) is ast.Real or type(node) is ast.String:
            return node.value
        match node:
            case ast.Integer(value=v) | ast.Real(value=v) | ast.String(value=v):
                return v
            case ast.Boolean(value=v):
                return v
            case ast.UndefinedLit():
                return UNDEFINED
            case ast.ErrorLit():
                return ERROR
            case ast.AttrRef(scope=None):
                return resolve(scope, node.key, True, self.eval, self.now, node.name)
            case ast.AttrRef(scope=ast.ROOT):
                return resolve_absolute(scope, node.key, self.eval, self.now)
            case ast.AttrRef(scope=scope_word):
                base = resolve(scope, str(scope_word).lower(), True, self.eval, self.now)
                return select(base, node.key, self.eval, self.now, None, node.name)
            case ast.Select(base=base):
                return select(
                    self.eval(base, scope), node.key, self.eval, self.now, scope, node.name
                )
            case ast.Subscript(base=base, index=index):
                return subscript(self.eval(base, scope), self.eval(index, scope), self.eval)
            case ast.ListExpr():
                return LazyList(node, scope, self.eval)
            case ast.RecordExpr(attrs=attrs):
                return scope.record(
                    node, {k.lower(): v for k, v in attrs}, {k.lower(): k for k, _ in attrs}
                )
            case ast.Unary(op=op, operand=operand):
                return ops.UNARY[op](self.eval(operand, scope))
            case ast.Binary(op="&&", left=left, right=right):
                return self._and(left, right, scope)
            case ast.Binary(op="||", left=left, right=right):
                return self._or(left, right, scope)
            case ast.Binary(op=op, left=left, right=right):
                return ops.BINARY[op](self.eval(left, scope), self.eval(right, scope))
            case ast.Conditional(cond=cond, then=then, otherwise=otherwise):
                return self._if(cond, then, otherwise, scope)
            case ast.Elvis(left=left, right=right):
                value = self.eval(left, scope)
                return self.eval(right, scope) if value is UNDEFINED else value
            case ast.Call():
                return self._call(node, scope)
            case _:
                raise TypeError(f"not a ClassAd expression node: {node!r}")

    def _and(self, left: ast.Expr, right: ast.Expr, scope: Scope) -> Value:
        a = ops.truth(self.eval(left, scope))
        if a is ERROR or a is False:
            return a
        b = ops.truth(self.eval(right, scope))
        if a is True or b is False or b is ERROR:
            return b
        return UNDEFINED

    def _or(self, left: ast.Expr, right: ast.Expr, scope: Scope) -> Value:
        a = ops.truth(self.eval(left, scope))
        if a is ERROR or a is True:
            return a
        b = ops.truth(self.eval(right, scope))
        if a is False or b is True or b is ERROR:
            return b
        return UNDEFINED

    def _if(self, cond: ast.Expr, then: ast.Expr, otherwise: ast.Expr, scope: Scope) -> Value:
        c = choose(self.eval(cond, scope))
        if c is True:
            return self.eval(then, scope)
        if c is False:
            return self.eval(otherwise, scope)
        return c

    def _call(self, node: ast.Call, scope: Scope) -> Value:
        key = node.key
        match key:
            case "ifthenelse":
                if len(node.args) != 3:
                    return ERROR
                return self._if(*node.args, scope)
            case "eval":
                if len(node.args) != 1:
                    return ERROR
                value = self.eval(node.args[0], scope)
                return eval_text(value, lambda expr: self.eval(expr, scope))
            case "unparse":
                return unparse_attribute(scope, node.args)
            case "evalineachcontext" | "countmatches":
                return in_each_context(key, node.args, scope, self.eval, self.now)
            case _:
                args = [self.eval(a, scope) for a in node.args]
                impl = builtins().get(key)
                return call_builtin(impl, args, self.ctx, scope, self.eval, TEXT_ARGUMENTS.get(key))


def evaluate(
    expr_or_text: ast.Expr | str,
    my: Mapping[str, Raw] | None = None,
    target: Mapping[str, Raw] | None = None,
    *,
    now: Now = None,
    ctx: Any = None,
) -> Value:
    """Evaluate an expression as HTCondor would, with MY = `my` and TARGET = `target`.

    `my`/`target` map attribute names (any case) to Python values or parsed `Expr`s.
    `now` fixes `time()`/`CurrentTime` (epoch seconds or a clock function); `ctx` (a
    functions.FunctionContext) overrides the clock and the random source together.
    Returns bool, int, float, str, list, dict, AbsTime, RelTime, UNDEFINED or ERROR.
    """
    expr = parse_cached(expr_or_text) if isinstance(expr_or_text, str) else expr_or_text
    context = ctx if ctx is not None else function_context(now)

    def run() -> Value:
        mine, _theirs = top_scopes(my, target)
        interpreter = Interpreter(context)
        return to_python(interpreter.eval(expr, mine), interpreter.eval)

    try:
        return call_deep(run)
    except RecursionError:
        return ERROR
