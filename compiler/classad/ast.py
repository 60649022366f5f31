"""The ClassAd abstract syntax tree: one small immutable node type per construct.

Stage: produced by the parser, consumed by the evaluator, the unparser, the code
generator and the simplifier. Nodes never evaluate anything themselves.

Equality is structural and ignores source spans, so `parse(unparse(e)) == e`.
Literal kinds are separate node types because in Python `1 == 1.0 == True`, while in
ClassAd the integer 1, the real 1.0 and the boolean true are different values.

Names keep the spelling of the source (for unparse) but ClassAd names are
case-insensitive: compare with `.key` (lower case) wherever meaning matters.

Each node's hash is computed once, the first time it is asked for, and kept: a frozen
dataclass would otherwise rehash its whole subtree on every dictionary look-up, which
made AST-keyed caches cost O(size) per hit. It is not computed when the node is built:
the parser builds a node per token and operator, and most parsed trees are never
hashed. The first hash of a tree fills in its subtree's hashes bottom-up without
recursion (any depth). Equality compares the hashes first, so unequal trees usually
differ in O(1).

The traversal API at the end of the module (`children`, `walk`, `find_all`,
`map_children`) is the one way to visit or rebuild sub-expressions; passes match on the
node types they give meaning to and leave the recursion to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol, TypeAlias, TypeVar, overload

from compiler.errors import Span

# Operators, as written by `unparse` (`is`/`isnt` parse to `=?=`/`=!=`).
UNARY_OPS = frozenset({"-", "+", "!", "~"})
BINARY_OPS = frozenset(
    {
        "||", "&&", "|", "^", "&",
        "==", "!=", "=?=", "=!=",
        "<", "<=", ">", ">=",
        "<<", ">>", ">>>",
        "+", "-", "*", "/", "%",
    }
)  # fmt: skip

#: Attribute-reference scopes HTCondor gives meaning to.
SCOPES = frozenset({"MY", "TARGET", "PARENT"})
#: `AttrRef.scope` of an absolute reference `.name` (looked up from the outermost ad).
ROOT = "."

#: Functions whose arguments are not (all) values in the calling scope: `unparse(x)` reads
#: x's source text, `evalInEachContext`/`countMatches` evaluate their first argument in
#: other ads. Knowledge about this ad does not apply inside them.
SCOPE_CHANGING_CALLS = frozenset({"unparse", "evalineachcontext", "countmatches"})

_N = TypeVar("_N")


@dataclass(frozen=True, slots=True, eq=False)
class _Node:
    """Base of every node: the cached structural hash (see the module docstring).

    `_hashed` gives each node class its own `__eq__` over the fields that make up its
    value (those with `compare=True`) and `_hash_value`, the hash of those fields. The
    `_hash` slot stays unset until the first `hash()`.
    """

    _hash: int = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            return _fill_hashes(self)

    def _hash_value(self) -> int:
        raise NotImplementedError("node classes are decorated with @_hashed")

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through __init__, so the hash is recomputed (string hashes differ
        # between processes).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self) if f.init))


def _fill_hashes(root: _Node) -> int:
    """Compute and keep the hash of `root` and of every node under it not hashed yet,
    children before parents (so each `hash((cls, fields...))` finds its children's
    hashes kept and does not recurse)."""
    stack: list[Any] = [root]
    while stack:
        node = stack[-1]
        waiting = [c for c in children(node) if getattr(c, "_hash", None) is None]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        if getattr(node, "_hash", None) is None:
            _HASH_SET(node, node._hash_value())
    return root._hash


def _hashed(cls: type[_N]) -> type[_N]:
    """Equality and the once-computed hash for a node dataclass declared `eq=False`.

    Both compare the value fields as one tuple, as dataclasses do (so a NaN literal
    equals itself), with the (cached) hashes compared first.
    """
    names = [f.name for f in fields(cls) if f.compare]  # type: ignore[arg-type]
    mine = "".join(f"self.{n}," for n in names)
    theirs = "".join(f"other.{n}," for n in names)
    # Generated like dataclasses' own methods: one attribute load per field, no calls.
    source = (
        "def _hash_value(self):\n"
        f"    return hash((_cls, {mine}))\n"
        "def __eq__(self, other):\n"
        "    if self is other:\n"
        "        return True\n"
        "    if other.__class__ is not self.__class__:\n"
        "        return NotImplemented\n"
        "    try:\n"
        "        if self._hash != other._hash:\n"
        "            return False\n"
        "    except AttributeError:\n"
        "        if hash(self) != hash(other):\n"
        "            return False\n"
        f"    return ({mine}) == ({theirs})\n"
    )
    # The parser's constructor: every init field positionally, each slot set through its
    # descriptor (a frozen dataclass's __init__ goes through object.__setattr__ per
    # field: twice as slow for the parser's many nodes). Its helpers are bound as
    # defaults: local look-ups, not global ones.
    params = [f.name for f in fields(cls) if f.init]  # type: ignore[arg-type]
    helpers = "".join(f", _set_{n}=_set_{n}" for n in params)
    source += (
        f"def _new({', '.join(params)}, _object_new=_object_new, _cls=_cls{helpers}):\n"
        "    self = _object_new(_cls)\n"
        + "".join(f"    _set_{n}(self, {n})\n" for n in params)
        + "    return self\n"
    )
    space: dict[str, Any] = {"_cls": cls, "_object_new": object.__new__}
    for n in params:
        space[f"_set_{n}"] = getattr(cls, n).__set__
    exec(source, space)

    made: Any = cls
    made._hash_value = space["_hash_value"]
    made.__eq__ = space["__eq__"]
    made.span = _SpanField(made.span)
    _FAST_NEW[cls] = space["_new"]
    return cls


#: The `_hash` slot's own setter (nodes are frozen).
_HASH_SET = _Node.__dict__["_hash"].__set__


class SpanSource(Protocol):
    """What a `RawSpan` refers to: the parsed text, which can make the Span of a node
    from the indices of its first and last token."""

    def span(self, first: int, last: int) -> Span: ...


#: A span as the fast parser stores it: (the text's SpanSource, index of the node's
#: first token, index of its last token).
RawSpan: TypeAlias = tuple[SpanSource, int, int]


class _SpanField:
    """The `span` slot of a node class, read through a descriptor that turns a `RawSpan`
    into a `Span` the first time it is read (and keeps the Span).

    The parser builds a node per token and operator, and few spans are ever read (error
    messages): a reference and two token indices are much cheaper to store than a Span. Readers always get a
    `Span` (or None), so nothing else sees the difference.
    """

    __slots__ = ("_get", "_set")

    def __init__(self, slot: Any) -> None:
        self._get, self._set = slot.__get__, slot.__set__

    def __get__(self, node: Any, owner: Any = None) -> Any:
        if node is None:
            return self
        value = self._get(node)
        if value.__class__ is tuple:
            source, first, last = value
            value = source.span(first, last)
            self._set(node, value)
        return value

    def __set__(self, node: Any, value: Any) -> None:
        self._set(node, value)


_FAST_NEW: dict[type, Callable[..., Any]] = {}


def fast_constructor(cls: type[_N]) -> Callable[..., _N]:
    """A constructor of node class `cls` taking every field positionally (span included,
    as a Span, None or a `RawSpan`), equal in result to `cls(...)` but cheaper: for the
    parser, which builds a node per token and operator."""
    return _FAST_NEW[cls]


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Integer(_Node):
    """A 64-bit signed integer literal."""

    value: int
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Real(_Node):
    """A double literal (may be +inf/-inf from overflowing literals like 1e309)."""

    value: float
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class String(_Node):
    """A string literal, escapes already decoded."""

    value: str
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Boolean(_Node):
    """`true` / `false` (keywords, any case)."""

    value: bool
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class UndefinedLit(_Node):
    """The literal `undefined`."""

    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class ErrorLit(_Node):
    """The literal `error`."""

    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class AttrRef(_Node):
    """An attribute reference: `Memory`, `MY.Memory`, `TARGET.Owner`, `PARENT.x`.

    `scope` is None for an unscoped name, else one of SCOPES (upper case), or ROOT for
    the absolute reference `.name`.
    """

    name: str
    scope: str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Select(_Node):
    """Selection `base.name` where base is any expression other than a scope keyword."""

    base: Expr
    name: str
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Subscript(_Node):
    """`base[index]`: list element or nested-ad attribute."""

    base: Expr
    index: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class ListExpr(_Node):
    """`{a, b, c}`."""

    items: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class RecordExpr(_Node):
    """A nested ClassAd `[a = 1; b = 2]`; attribute order kept as written."""

    attrs: tuple[tuple[str, Expr], ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Call(_Node):
    """A function call; `name` as written (function names are case-insensitive)."""

    name: str
    args: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Unary(_Node):
    """A prefix operator (`!`, `-`, `+`, `~`) applied to `operand`."""

    op: str
    operand: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Binary(_Node):
    """An infix operator; `&&` and `||` evaluate `right` only when `left` leaves the
    result open (ClassAd short-circuit)."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Conditional(_Node):
    """`cond ? then : otherwise`."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@_hashed
@dataclass(frozen=True, slots=True, eq=False)
class Elvis(_Node):
    """`left ?: right`: left unless it is UNDEFINED (or ERROR), then right."""

    left: Expr
    right: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


Literal: TypeAlias = Integer | Real | String | Boolean | UndefinedLit | ErrorLit
Expr: TypeAlias = (
    Integer
    | Real
    | String
    | Boolean
    | UndefinedLit
    | ErrorLit
    | AttrRef
    | Select
    | Subscript
    | ListExpr
    | RecordExpr
    | Call
    | Unary
    | Binary
    | Conditional
    | Elvis
)
LITERAL_TYPES = (Integer, Real, String, Boolean, UndefinedLit, ErrorLit)
#: Every node type, for `isinstance` checks that separate expressions from values.
EXPR_TYPES = (
    *LITERAL_TYPES,
    AttrRef,
    Select,
    Subscript,
    ListExpr,
    RecordExpr,
    Call,
    Unary,
    Binary,
    Conditional,
    Elvis,
)


# ---- traversal --------------------------------------------------------------------------


def children(e: Expr, *, same_scope: bool = False) -> tuple[Expr, ...]:
    """The direct sub-expressions of `e`, in source order.

    With `same_scope`, only those evaluated in `e`'s own scope: the attribute values of a
    nested ad (its own scope) and the arguments of SCOPE_CHANGING_CALLS are left out.
    """
    match e:
        case Unary(operand=x):
            return (x,)
        case Binary(left=a, right=b) | Elvis(left=a, right=b):
            return (a, b)
        case Conditional(cond=c, then=t, otherwise=o):
            return (c, t, o)
        case Call(args=args):
            return () if same_scope and e.key in SCOPE_CHANGING_CALLS else args
        case ListExpr(items=items):
            return items
        case Select(base=b):
            return (b,)
        case Subscript(base=b, index=i):
            return (b, i)
        case RecordExpr(attrs=attrs):
            return () if same_scope else tuple(v for _, v in attrs)
        case _:
            return ()


def walk(e: Expr, *, same_scope: bool = False) -> Iterator[Expr]:
    """`e` and every sub-expression, pre-order, left to right (iterative: any depth)."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node, same_scope=same_scope)))


@overload
def find_all(
    e: Expr, what: tuple[type, ...] | Callable[[Expr], bool], *, same_scope: bool = False
) -> list[Expr]: ...
@overload
def find_all(e: Expr, what: type[_N], *, same_scope: bool = False) -> list[_N]: ...
def find_all(
    e: Expr, what: type | tuple[type, ...] | Callable[[Expr], bool], *, same_scope: bool = False
) -> list[Any]:
    """The sub-expressions of `e` (itself included, pre-order) that are instances of the
    node type(s) `what`, or for which the predicate `what` holds."""
    if isinstance(what, type | tuple):
        return [n for n in walk(e, same_scope=same_scope) if isinstance(n, what)]
    return [n for n in walk(e, same_scope=same_scope) if what(n)]


def map_children(e: Expr, f: Callable[[Expr], Expr], *, same_scope: bool = True) -> Expr:
    """`e` with `f` applied to each direct child (the same node when nothing changed).

    Rewriting defaults to `same_scope`: a rewrite made with what is known about this ad
    would change the meaning of a nested ad or of `unparse(x)`, so those are kept as
    written. `same_scope=False` maps every child.
    """
    match e:
        case Unary(operand=x):
            y = f(x)
            return e if y is x else replace(e, operand=y)
        case Binary(left=a, right=b) | Elvis(left=a, right=b):
            a2, b2 = f(a), f(b)
            return e if (a2 is a and b2 is b) else replace(e, left=a2, right=b2)
        case Conditional(cond=c, then=t, otherwise=o):
            c2, t2, o2 = f(c), f(t), f(o)
            if c2 is c and t2 is t and o2 is o:
                return e
            return replace(e, cond=c2, then=t2, otherwise=o2)
        case Call(args=args):
            if same_scope and e.key in SCOPE_CHANGING_CALLS:
                return e
            new = tuple(f(a) for a in args)
            return e if _same(new, args) else replace(e, args=new)
        case ListExpr(items=items):
            new = tuple(f(a) for a in items)
            return e if _same(new, items) else replace(e, items=new)
        case Select(base=b):
            b2 = f(b)
            return e if b2 is b else replace(e, base=b2)
        case Subscript(base=b, index=i):
            b2, i2 = f(b), f(i)
            return e if (b2 is b and i2 is i) else replace(e, base=b2, index=i2)
        case RecordExpr(attrs=attrs) if not same_scope:
            pairs = tuple((k, f(v)) for k, v in attrs)
            return (
                e
                if _same([v for _, v in pairs], [v for _, v in attrs])
                else replace(e, attrs=pairs)
            )
        case _:
            return e


def _same(new: tuple[Expr, ...] | list[Expr], old: tuple[Expr, ...] | list[Expr]) -> bool:
    return all(a is b for a, b in zip(new, old, strict=True))
