"""The ClassAd abstract syntax tree: one small immutable node type per construct.

Stage: produced by the parser, consumed by the evaluator, the unparser, the code
generator and the simplifier. Nodes never evaluate anything themselves.

Equality is structural and ignores source spans, so `parse(unparse(e)) == e`.
Literal kinds are separate node types because in Python `1 == 1.0 == True`, while in
ClassAd the integer 1, the real 1.0 and the boolean true are different values.

Names keep the spelling of the source (for unparse) but ClassAd names are
case-insensitive: compare with `.key` (lower case) wherever meaning matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

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


@dataclass(frozen=True, slots=True)
class Integer:
    """A 64-bit signed integer literal."""

    value: int
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Real:
    """A double literal (may be +inf/-inf from overflowing literals like 1e309)."""

    value: float
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class String:
    """A string literal, escapes already decoded."""

    value: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Boolean:
    value: bool
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class UndefinedLit:
    """The literal `undefined`."""

    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ErrorLit:
    """The literal `error`."""

    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class AttrRef:
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


@dataclass(frozen=True, slots=True)
class Select:
    """Selection `base.name` where base is any expression other than a scope keyword."""

    base: Expr
    name: str
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Subscript:
    """`base[index]`: list element or nested-ad attribute."""

    base: Expr
    index: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ListExpr:
    """`{a, b, c}`."""

    items: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RecordExpr:
    """A nested ClassAd `[a = 1; b = 2]`; attribute order kept as written."""

    attrs: tuple[tuple[str, Expr], ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Call:
    """A function call; `name` as written (function names are case-insensitive)."""

    name: str
    args: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    operand: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Expr
    right: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Conditional:
    """`cond ? then : otherwise`."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Elvis:
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
