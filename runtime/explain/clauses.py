"""Why an expression has its value: the clauses that decided it and the attributes behind them.

Stage: runtime (pure functions; nothing here prints). `decide(expr, ...)` evaluates an
expression the way the startd does (MY = the slot ad, TARGET = the job ad or none) and
returns a `Clause` tree that keeps only what decided the value, as an admin reads it:

* `a && b && ...`: FALSE is decided by its FALSE conjuncts (any one suffices), TRUE by all
  of them, UNDEFINED or ERROR by the conjuncts that are UNDEFINED or ERROR;
* `a || b || ...`: the same with TRUE and FALSE exchanged;
* `!a` by `a`; `c ? x : y` by `c` and the branch taken; anything else is a leaf.

A chain of `&&` (or `||`) is read as one list, since admins write `A && B && C`, not
`(A && B) && C`. Every clause is evaluated on its own in the same ads: a clause's value
is its value as a subexpression of the whole, because ClassAd evaluation has no side
effects. The truth of a value is the ClassAd operand test (`compiler.classad.operators.
truth`): a non-zero number counts as TRUE, strings, lists and ads as ERROR.

Each leaf names the attributes it reads (`Reading`) with their values and where they
were found; an attribute found nowhere says why it is UNDEFINED: a job attribute read by
a guard the startd evaluates locally (the slot ad alone), or a name neither ad holds,
with the "did you mean" of `compiler.errors.close_matches` over both ads and the
documented attributes (spec/attributes.yaml).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from compiler import holds
from compiler.classad import ERROR, UNDEFINED, evaluate, format_value, unparse
from compiler.classad import ast as A
from compiler.errors import close_matches

Truth = Literal["TRUE", "FALSE", "UNDEFINED", "ERROR"]
Where = Literal["machine", "job", "assumed", "nowhere"]


_NOT = A.Unary("!", A.AttrRef("v"))


def truth_name(value: Any) -> Truth:
    """TRUE, FALSE, UNDEFINED or ERROR: `value` as an operand of `&&`, `||` and `!`
    (HTCondor's `Value::IsBooleanValueEquiv`: a non-zero number is TRUE, a string, list
    or ad ERROR). Asked of the evaluator itself: TRUE when the startd's test `holds`,
    FALSE when it holds of `!value`."""
    if holds(value):
        return "TRUE"
    if value is UNDEFINED:
        return "UNDEFINED"
    return "FALSE" if holds(evaluate(_NOT, {"v": value})) else "ERROR"


@dataclass(frozen=True, slots=True)
class Reading:
    """An attribute a clause reads: `name` as written (`TARGET.Owner`, `KeyboardIdle`),
    its value in ClassAd syntax, the ad it came from, and why it is UNDEFINED when it
    came from nowhere."""

    name: str
    value: str
    where: Where
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": self.value, "where": self.where}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause: its text, value (ClassAd syntax), truth, the attributes it reads (a
    leaf) and the sub-clauses that decided it (an `&&`, `||`, `!` or `?:`)."""

    text: str
    value: str
    truth: Truth
    reads: tuple[Reading, ...] = ()
    deciding: tuple[Clause, ...] = ()
    op: str = ""

    def leaves(self) -> tuple[Clause, ...]:
        """The deciding leaves, left to right."""
        if not self.deciding:
            return (self,)
        return tuple(leaf for sub in self.deciding for leaf in sub.leaves())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clause": self.text, "value": self.value, "truth": self.truth}
        if self.op:
            out["op"] = self.op
        if self.reads:
            out["reads"] = [r.to_dict() for r in self.reads]
        if self.deciding:
            out["deciding"] = [c.to_dict() for c in self.deciding]
        return out


@dataclass(frozen=True, slots=True)
class Ads:
    """The ads a clause is evaluated in, and what the explanation needs to name a
    missing attribute: `local` (the guard is evaluated with the slot ad alone), the
    documented job attributes and every attribute name known (for "did you mean")."""

    my: Mapping[str, Any]
    target: Mapping[str, Any] | None
    now: float
    local: bool = False
    job_names: frozenset[str] = frozenset()
    known: tuple[str, ...] = ()
    #: Names (lower case) whose MY value was assumed, not read from the given ad.
    assumed: frozenset[str] = frozenset()
    #: What MY and TARGET are: (slot, job), or (job, slot) for a job's Requirements.
    sides: tuple[Where, Where] = ("machine", "job")

    def value(self, expr: A.Expr) -> Any:
        return evaluate(expr, self.my, self.target, now=int(self.now))


def decide(expr: A.Expr, ads: Ads, _inside: frozenset[str] = frozenset()) -> Clause:
    """The clause tree of `expr` in `ads` (module docstring). A MY attribute whose value
    is an expression (a slot ad's `WithinResourceLimits`, a published START) is decided
    by that expression's clauses, evaluated in the same ads (once per name on a path:
    a cycle stays a leaf)."""
    value = ads.value(expr)
    name = truth_name(value)
    text = unparse(expr)
    shown = format_value(value)
    if isinstance(expr, A.Binary) and expr.op in ("&&", "||"):
        items = [decide(e, ads, _inside) for e in _chain(expr, expr.op)]
        return Clause(text, shown, name, (), _deciding(expr.op, name, items), expr.op)
    if isinstance(expr, A.Unary) and expr.op == "!":
        return Clause(text, shown, name, (), (decide(expr.operand, ads, _inside),), "!")
    other = _against_boolean(expr)
    if other is not None:
        return Clause(text, shown, name, (), (decide(other, ads, _inside),), expr.op)  # type: ignore[union-attr]
    if isinstance(expr, A.Conditional):
        cond = decide(expr.cond, ads, _inside)
        if cond.truth in ("TRUE", "FALSE"):
            taken = expr.then if cond.truth == "TRUE" else expr.otherwise
            return Clause(text, shown, name, (), (cond, decide(taken, ads, _inside)), "?:")
        return Clause(text, shown, name, (), (cond,), "?:")
    stored = _stored_expression(expr, ads)
    if stored is not None and expr.key not in _inside:  # type: ignore[union-attr]
        inner = decide(stored, ads, _inside | {expr.key})  # type: ignore[union-attr]
        return Clause(text, shown, name, readings(expr, ads), (inner,), "=")
    return Clause(text, shown, name, readings(expr, ads))


def _stored_expression(expr: A.Expr, ads: Ads) -> A.Expr | None:
    """The expression a MY attribute reference stands for, when its value is one."""
    if not isinstance(expr, A.AttrRef) or expr.scope not in (None, "MY"):
        return None
    stored = ads.my.get(expr.name)
    return stored if isinstance(stored, A.EXPR_TYPES) else None


def _against_boolean(expr: A.Expr) -> A.Expr | None:
    """`e` of `e =?= false`, `e == true` and the like when `e` is itself a clause tree
    (`&&`, `||`, `!`, `?:`) or a comparison: IS_OWNER is `(START =?= false)`, and what decides it is
    what decides START."""
    if not isinstance(expr, A.Binary) or expr.op not in ("==", "!=", "=?=", "=!="):
        return None
    for lit, other in ((expr.right, expr.left), (expr.left, expr.right)):
        if isinstance(lit, A.Boolean) and _is_tree(other):
            return other
    return None


def _is_tree(expr: A.Expr) -> bool:
    """A clause tree or a comparison: an expression whose own clauses say more."""
    if isinstance(expr, A.Binary):
        return expr.op in ("&&", "||", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=")
    return isinstance(expr, A.Conditional) or (isinstance(expr, A.Unary) and expr.op == "!")


def _chain(expr: A.Expr, op: str) -> list[A.Expr]:
    if isinstance(expr, A.Binary) and expr.op == op:
        return [*_chain(expr.left, op), *_chain(expr.right, op)]
    return [expr]


def _deciding(op: str, value: Truth, items: list[Clause]) -> tuple[Clause, ...]:
    """The items that decided `value` (module docstring): those with the value itself,
    except that a TRUE `&&` and a FALSE `||` are decided by all of them; when nothing has
    the value (an ERROR from a string operand, say), all of them."""
    if (op, value) in (("&&", "TRUE"), ("||", "FALSE")):
        return tuple(items)
    same = tuple(c for c in items if c.truth == value)
    return same or tuple(items)


def readings(expr: A.Expr, ads: Ads) -> tuple[Reading, ...]:
    """The attributes `expr` reads, each once, in the order written."""
    seen: dict[str, Reading] = {}
    for node in A.walk(expr, same_scope=False):
        if not isinstance(node, A.AttrRef) or node.scope in ("PARENT", A.ROOT):
            continue
        label = f"{node.scope}.{node.name}" if node.scope else node.name
        if label.lower() not in seen:
            seen[label.lower()] = _reading(node, label, ads)
    return tuple(seen.values())


def _reading(node: A.AttrRef, label: str, ads: Ads) -> Reading:
    mine = node.scope in (None, "MY") and node.name in ads.my
    theirs = node.scope in (None, "TARGET") and ads.target is not None and node.name in ads.target
    value = format_value(ads.value(node))
    if mine:
        return Reading(label, value, "assumed" if node.key in ads.assumed else ads.sides[0])
    if theirs:
        return Reading(label, value, ads.sides[1])
    return Reading(label, value, "nowhere", _why_missing(node, ads))


def _why_missing(node: A.AttrRef, ads: Ads) -> str:
    """Why an attribute found in neither ad is UNDEFINED."""
    key = node.name.lower()
    is_job = key in ads.job_names
    if ads.local and node.scope != "MY" and (is_job or node.scope == "TARGET"):
        return (
            "a job attribute: this guard is evaluated locally (the slot ad alone), "
            "so it is UNDEFINED"
        )
    if node.scope == "TARGET" and ads.target is None:
        return "no job ad: TARGET attributes are UNDEFINED"
    if is_job and ads.target is None:
        return "a job attribute, and no job ad was given"
    pool = _names(ads)
    by_lower: dict[str, str] = {}
    for n in pool:
        by_lower.setdefault(n.lower(), n)
    close = [by_lower[k] for k in close_matches(key, by_lower, n=3, cutoff=0.8) if k != key]
    if node.scope == "TARGET":
        where = "the job ad"
    elif node.scope == "MY" or ads.target is None:
        where = "the slot ad"
    else:
        where = "the slot ad or the job ad"
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"not in {where}{hint}"


def _names(ads: Ads) -> Iterable[str]:
    yield from ads.my
    if ads.target is not None:
        yield from ads.target
    yield from ads.known


def is_special(value: Any) -> bool:
    """UNDEFINED or ERROR."""
    return value is UNDEFINED or value is ERROR
