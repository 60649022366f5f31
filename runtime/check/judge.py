"""The meaning of an admin property on a recorded run (docs/properties.md, "Meaning on a
run"): `violation(prop, moments) -> Violation | None`.

The premise of `always`/`eventually` is judged at evaluation passes only: the startd sees
its sensors when it evaluates, so a keyboard touched and released between two passes
obliges nothing (`never` is judged at every moment).

Stage: check. Pure functions over `Moment`s; conditions read the reconstructed slot ad
with ClassAd comparison semantics (UNDEFINED/ERROR count as false). A window that has not
ended when the run ends imposes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler import holds
from compiler.classad import ast as A
from compiler.classad import evaluate
from runtime.check.observe import Moment
from runtime.check.properties import (
    AllOf,
    AnyOf,
    Compare,
    Condition,
    Not,
    Pattern,
    Property,
    Window,
)
from runtime.trace import EPOCH

#: `eventually` without a window: the next two evaluation passes.
DEFAULT_EVENTUALLY = Window(2, "polls")


@dataclass(frozen=True, slots=True)
class Violation:
    """Where and why a property failed: `at` indexes the moment that broke it."""

    name: str
    at: int
    message: str


def literal(value: object, otherwise: A.Expr | None = None) -> A.Expr:
    """The ClassAd literal of a sensor or job value (None: UNDEFINED); a value of another
    type gives `otherwise`, or a TypeError without it."""
    match value:
        case None:
            return A.UndefinedLit()
        case bool():
            return A.Boolean(value)
        case int():
            return A.Integer(value)
        case float():
            return A.Real(value)
        case str():
            return A.String(value)
        case _ if otherwise is not None:
            return otherwise
        case _:
            raise TypeError(value)


def holds_at(cond: Condition, m: Moment) -> bool:
    match cond:
        case Pattern():
            return cond.matches(m.state, m.activity)
        case Compare(name=name, op=op, value=value):
            expr = A.Binary(op, A.AttrRef(name), literal(value))
            return holds(evaluate(expr, m.ad(), None, now=EPOCH + m.t))
        case AllOf(items=items):
            return all(holds_at(c, m) for c in items)
        case AnyOf(items=items):
            return any(holds_at(c, m) for c in items)
        case Not(item=item):
            return not holds_at(item, m)
        case _:
            raise TypeError(cond)


def window(moments: Sequence[Moment], i: int, w: Window | None) -> tuple[list[int], bool]:
    """Indices of the moments after `i` inside the window, and whether the window ended
    inside the run (no window: to the end, never "ended")."""
    if w is None:
        return list(range(i + 1, len(moments))), False
    start = moments[i]
    inside: list[int] = []
    if w.unit == "s":
        for j in range(i + 1, len(moments)):
            if moments[j].t > start.t + w.amount:
                return inside, True
            inside.append(j)
        return inside, moments[-1].t >= start.t + w.amount
    polls = 0
    for j in range(i + 1, len(moments)):
        inside.append(j)
        if moments[j].poll:
            polls += 1
            if polls >= w.amount:
                return inside, True
    return inside, False


def violation(prop: Property, moments: Sequence[Moment]) -> Violation | None:
    match prop.kind:
        case "never":
            return _never(prop, moments)
        case "always":
            return _always(prop, moments)
        case "eventually":
            return _eventually(prop, moments)
    raise ValueError(prop.kind)


def _never(prop: Property, moments: Sequence[Moment]) -> Violation | None:
    assert prop.pattern is not None
    for i, m in enumerate(moments):
        if not prop.pattern.matches(m.state, m.activity):
            continue
        w = prop.window
        if w is None:
            return Violation(prop.name, i, f"the slot is in {m.state}/{m.activity} at t={m.t}")
        if w.anchor is not None:
            since = m.last(w.anchor)
            if since is not None and 0 <= m.t - since <= w.amount:
                return Violation(
                    prop.name,
                    i,
                    f"the slot is in {m.state}/{m.activity} at t={m.t}, {m.t - since}s after "
                    f"{w.anchor} (t={since})",
                )
    return None


def _always(prop: Property, moments: Sequence[Moment]) -> Violation | None:
    assert prop.condition is not None and prop.consequence is not None
    cons = prop.consequence
    for i, m in enumerate(moments):
        if not m.poll or not holds_at(prop.condition, m):
            continue
        inside, ended = window(moments, i, cons.window)
        in_pattern = [cons.pattern.matches(moments[j].state, moments[j].activity) for j in inside]
        match cons.kind:
            case "leaves" if (
                ended and cons.pattern.matches(m.state, m.activity) and all(in_pattern)
            ):
                return Violation(
                    prop.name, i, f"at t={m.t} the condition holds and the slot is still in "
                    f"{cons.pattern} at t={moments[inside[-1]].t if inside else m.t}",
                )  # fmt: skip
            case "enters" if ended and not any(in_pattern):
                return Violation(prop.name, i, f"at t={m.t} the condition holds and the slot "
                                 f"does not enter {cons.pattern} {cons.window}")  # fmt: skip
            case "stays" if not all(in_pattern):
                j = inside[in_pattern.index(False)]
                return Violation(prop.name, i, f"at t={m.t} the condition holds but at "
                                 f"t={moments[j].t} the slot is in {moments[j].state}/{moments[j].activity}")  # fmt: skip
            case "avoids" if any(in_pattern):
                j = inside[in_pattern.index(True)]
                return Violation(prop.name, i, f"at t={m.t} the condition holds and at "
                                 f"t={moments[j].t} the slot enters {moments[j].state}/{moments[j].activity}")  # fmt: skip
    return None


def _eventually(prop: Property, moments: Sequence[Moment]) -> Violation | None:
    assert prop.condition is not None and prop.pattern is not None
    w = prop.window or DEFAULT_EVENTUALLY
    for i, m in enumerate(moments):
        if not m.poll or not holds_at(prop.condition, m):
            continue
        if prop.when is not None and not holds_at(prop.when, m):
            continue
        if prop.pattern.matches(m.state, m.activity):
            continue
        inside, ended = window(moments, i, w)
        if not ended:
            continue
        if prop.when is not None and not all(holds_at(prop.when, moments[j]) for j in inside):
            continue
        if not any(prop.pattern.matches(moments[j].state, moments[j].activity) for j in inside):
            return Violation(
                prop.name,
                i,
                f"at t={m.t} the slot is in {m.state}/{m.activity} and the condition holds "
                f"{w}, but it never reaches {prop.pattern}",
            )
    return None
