"""The ClassAd abstract syntax tree: one small immutable node type per construct.

Stage: produced by the parser, consumed by the evaluator, the unparser, the code
generator and the simplifier. Nodes never evaluate anything themselves.

Equality is structural and ignores source spans, so `parse(unparse(e)) == e`.
Literal kinds are separate node types because in Python `1 == 1.0 == True`, while in
ClassAd the integer 1, the real 1.0 and the boolean true are different values.

Names keep the spelling of the source (for unparse) but ClassAd names are
case-insensitive: compare with `.key` (lower case) wherever meaning matters.

Each node's hash is computed once, the first time it is asked for, and kept: a frozen
record would otherwise rehash its whole subtree on every dictionary look-up, which
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
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias, TypeVar, overload

import msgspec
from msgspec.structs import replace

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


class _Node(msgspec.Struct, frozen=True, eq=False, dict=True):
    """Base of every node: structural equality without the span, and the cached hash
    (see the module docstring).

    A node is a frozen `msgspec.Struct` (its class is made in C: a frozen dataclass execs
    six generated methods per class, which was a tenth of a cold `condor-policy compile`).
    Its fields are the value fields then `span`; `span` is left out of equality, hash and
    repr by `_hashed`, which gives each node class `_value`, an `operator.attrgetter`
    of its value fields (made in C: the value itself for one field, a tuple for more). The hash, once computed, is kept in the instance's `__dict__` under `_hash`
    (a Struct has no other room for a slot outside its fields): a node never hashed has
    no dict at all, and `msgspec.structs.replace` builds a new node without it.
    """

    if TYPE_CHECKING:
        # in the instance __dict__, once hashed (ClassVar: not a field for type checkers)
        _hash: ClassVar[int]

        @staticmethod
        def _value(node: Any) -> Any: ...

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            return _fill_hashes(self)

    def __eq__(self, other: object) -> bool:
        # the value fields compared as dataclasses compare their tuples (identical or
        # equal: a NaN literal equals itself), with the (cached) hashes compared first
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        try:
            if self._hash != other._hash:
                return False
        except AttributeError:
            if hash(self) != hash(other):
                return False
        value = self._value
        mine, theirs = value(self), value(other)
        return mine is theirs or mine == theirs

    def __repr__(self) -> str:
        # as a dataclass with `span` declared repr=False: `Integer(value=1)`
        values = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__struct_fields__[:-1])
        return f"{self.__class__.__qualname__}({values})"

    def _hash_value(self) -> int:
        return hash((self.__class__, self._value(self)))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through __init__, so the hash is recomputed (string hashes differ
        # between processes).
        return (type(self), tuple(getattr(self, n) for n in self.__struct_fields__))


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
            node.__dict__["_hash"] = node._hash_value()
    return root._hash


def _hashed(cls: type[_N]) -> type[_N]:
    """Give node class `cls` its `_value` (the value fields, every field but the last,
    `span`) and its lazily converted `span` (see `_SpanField`)."""
    made: Any = cls
    names = made.__struct_fields__
    assert names[-1] == "span", names
    # an attrgetter is no descriptor: `node._value` is the getter itself. A class without
    # value fields (UndefinedLit, ErrorLit) compares its class, the same for both.
    made._value = attrgetter(*names[:-1]) if len(names) > 1 else attrgetter("__class__")
    made.span = _SpanField(made.span)
    return cls


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


def fast_constructor(cls: type[_N]) -> Callable[..., _N]:
    """A constructor of node class `cls` taking every field positionally (span included,
    as a Span, None or a `RawSpan`), for the parser, which builds a node per token and
    operator: the class itself (a Struct's `__init__` is made in C and stores the
    fields as given)."""
    return cls


@_hashed
class Integer(_Node, frozen=True, eq=False):
    """A 64-bit signed integer literal."""

    value: int
    span: Span | None = None


@_hashed
class Real(_Node, frozen=True, eq=False):
    """A double literal (may be +inf/-inf from overflowing literals like 1e309)."""

    value: float
    span: Span | None = None


@_hashed
class String(_Node, frozen=True, eq=False):
    """A string literal, escapes already decoded."""

    value: str
    span: Span | None = None


@_hashed
class Boolean(_Node, frozen=True, eq=False):
    """`true` / `false` (keywords, any case)."""

    value: bool
    span: Span | None = None


@_hashed
class UndefinedLit(_Node, frozen=True, eq=False):
    """The literal `undefined`."""

    span: Span | None = None


@_hashed
class ErrorLit(_Node, frozen=True, eq=False):
    """The literal `error`."""

    span: Span | None = None


@_hashed
class AttrRef(_Node, frozen=True, eq=False):
    """An attribute reference: `Memory`, `MY.Memory`, `TARGET.Owner`, `PARENT.x`.

    `scope` is None for an unscoped name, else one of SCOPES (upper case), or ROOT for
    the absolute reference `.name`.
    """

    name: str
    scope: str | None = None
    span: Span | None = None

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
class Select(_Node, frozen=True, eq=False):
    """Selection `base.name` where base is any expression other than a scope keyword."""

    base: Expr
    name: str
    span: Span | None = None

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
class Subscript(_Node, frozen=True, eq=False):
    """`base[index]`: list element or nested-ad attribute."""

    base: Expr
    index: Expr
    span: Span | None = None


@_hashed
class ListExpr(_Node, frozen=True, eq=False):
    """`{a, b, c}`."""

    items: tuple[Expr, ...]
    span: Span | None = None


@_hashed
class RecordExpr(_Node, frozen=True, eq=False):
    """A nested ClassAd `[a = 1; b = 2]`; attribute order kept as written."""

    attrs: tuple[tuple[str, Expr], ...]
    span: Span | None = None


@_hashed
class Call(_Node, frozen=True, eq=False):
    """A function call; `name` as written (function names are case-insensitive)."""

    name: str
    args: tuple[Expr, ...]
    span: Span | None = None

    @property
    def key(self) -> str:
        return self.name.lower()


@_hashed
class Unary(_Node, frozen=True, eq=False):
    """A prefix operator (`!`, `-`, `+`, `~`) applied to `operand`."""

    op: str
    operand: Expr
    span: Span | None = None


@_hashed
class Binary(_Node, frozen=True, eq=False):
    """An infix operator; `&&` and `||` evaluate `right` only when `left` leaves the
    result open (ClassAd short-circuit)."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = None


@_hashed
class Conditional(_Node, frozen=True, eq=False):
    """`cond ? then : otherwise`."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span | None = None


@_hashed
class Elvis(_Node, frozen=True, eq=False):
    """`left ?: right`: left unless it is UNDEFINED (or ERROR), then right."""

    left: Expr
    right: Expr
    span: Span | None = None


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
#: The literals whose `value` is what evaluating them gives (the others are UNDEFINED
#: and ERROR).
VALUE_LITERALS: frozenset[type] = frozenset({Integer, Real, String, Boolean})
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
#: The node types as a set, for exact type tests in hot code (`type(x) in NODE_TYPES`):
#: no node class is subclassed, and an `isinstance` against `EXPR_TYPES` that fails goes
#: through each class's metaclass (a msgspec Struct's): ~1 us against ~20 ns.
NODE_TYPES: frozenset[type] = frozenset(EXPR_TYPES)


# ---- traversal --------------------------------------------------------------------------


def children(e: Expr, *, same_scope: bool = False) -> tuple[Expr, ...]:
    """The direct sub-expressions of `e`, in source order.

    With `same_scope`, only those evaluated in `e`'s own scope: the attribute values of a
    nested ad (its own scope) and the arguments of SCOPE_CHANGING_CALLS are left out.
    """
    # Exact class tests, not a `match` on class patterns: a failed isinstance check
    # against a Struct class (metaclass StructMeta) goes through __instancecheck__.
    if type(e) is Binary or type(e) is Elvis:
        return (e.left, e.right)
    if type(e) is Unary:
        return (e.operand,)
    if type(e) is Call:
        return () if same_scope and e.key in SCOPE_CHANGING_CALLS else e.args
    if type(e) is Conditional:
        return (e.cond, e.then, e.otherwise)
    if type(e) is ListExpr:
        return e.items
    if type(e) is Select:
        return (e.base,)
    if type(e) is Subscript:
        return (e.base, e.index)
    if type(e) is RecordExpr:
        return () if same_scope else tuple(v for _, v in e.attrs)
    return ()


def walk(e: Expr, *, same_scope: bool = False) -> Iterator[Expr]:
    """`e` and every sub-expression, pre-order, left to right (iterative: any depth)."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node, same_scope=same_scope)))


def conjuncts(e: Expr, expand: Callable[[Expr], Expr | None] | None = None) -> list[Expr]:
    """The operands of `e`'s top-level `&&` chain, left to right (`e` itself when it is
    no `&&`). `expand`: a leaf it maps to an expression (a name an ad defines, say) is
    taken apart in turn, each expression at most once (a definition may refer to itself)."""
    out: list[Expr] = []
    todo, seen = [e], set()
    while todo:
        node = todo.pop()
        if type(node) is Binary and node.op == "&&":
            todo += (node.right, node.left)
            continue
        inner = expand(node) if expand is not None else None
        if inner is not None and id(inner) not in seen:
            seen.add(id(inner))
            todo.append(inner)
        else:
            out.append(node)
    return out


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
