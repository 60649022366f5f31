"""What the runtime reports about a fired transition (`Fired`) and about each event
(`Handled`: which transition it fired, or why it fired none).

Stage: runtime output. `Fired` is the one record of a fired transition: the runtime's
`Slot` and the reference interpreter of `condor-policy check` both report it. `Handled`
is the runtime's answer to one delivered event; an event that fired no transition is
*ignored*, and says why (DESIGN.md: nothing is dropped without a word).
`describe(trigger, tested, activity)` turns the trigger that fired
and the guards the machine found TRUE (the trigger's own guard, and for a "State/*"
target the activity-choice guard) into the human reason, e.g. `policy: KeyboardIdle < 60
[KeyboardIdle=0]`, with the values of the attributes the guards name. `Fired.to_json()`
is DESIGN.md's `--format jsonl` object.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compiler import CompiledGuard
from compiler.classad import unparse
from compiler.classad.ast import Expr
from compiler.spec import Trigger, guard_names

#: (guard, is an activity choice, MY, TARGET) for each guard found TRUE while firing.
Tested = tuple[CompiledGuard, bool, Any, Any]


@dataclass(frozen=True, slots=True)
class Fired:
    """One fired transition: what DESIGN.md's `--format jsonl` prints, plus context.

    `step` is the index of the trace step during which it fired (-1: not known, e.g. a
    live slot; the number of steps: after the last one, while the clock ran on), and
    `advancing` whether it fired while the clock advanced to that step (a timer) rather
    than by the step itself; `runtime.trace.replay` reports both to its observer.
    """

    seq: int
    t: float
    number: int | str
    id: str
    letter: str | None
    source: tuple[str, str]
    target: tuple[str, str]
    trigger: str
    reason: str
    values: Mapping[str, Any] = field(default_factory=dict)
    step: int = -1
    advancing: bool = False

    def to_json(self) -> dict[str, Any]:
        """The DESIGN.md jsonl object."""
        return {
            "t": num(self.t),
            "number": self.number,
            "letter": self.letter,
            "from": list(self.source),
            "to": list(self.target),
            "reason": self.reason,
        }

    def to_text(self) -> str:
        letter = f" {self.letter}" if self.letter else ""
        return (
            f"t={num(self.t):>7} #{self.number}{letter}: {'/'.join(self.source)} -> "
            f"{'/'.join(self.target)}  ({self.reason})"
        )


@dataclass(frozen=True, slots=True)
class Handled:
    """What one delivered event did: `fired` is the number of the first transition it
    fired (None: it fired none, i.e. it was ignored); `reason` says why none could fire,
    or how an evaluation the event asked for fired one ("" when the event's own trigger
    fired: that transition's `Fired.reason` says why). `how` is the `how` it was handled with; `how_default` marks the
    HTCondor tool's default filled in for an omitted one. `after` is the `seq` of the
    last transition fired before the event arrived (0: none), which places it among the
    `Fired` records."""

    after: int
    t: float
    event: str
    how: str | None
    how_default: bool
    source: tuple[str, str]
    fired: int | str | None
    reason: str

    @property
    def ignored(self) -> bool:
        return self.fired is None

    def label(self) -> str:
        """The event as a trace step names it, e.g. `vacate(graceful, the default)`."""
        if self.how is None:
            return self.event
        default = ", the default" if self.how_default else ""
        return f"{self.event}({self.how}{default})"

    def to_json(self) -> dict[str, Any]:
        """The `--format jsonl` object of an ignored event (docs/trace-format.md)."""
        return {
            "t": num(self.t),
            "event": self.event,
            "how": self.how,
            "state": list(self.source),
            "ignored": self.ignored,
            "reason": self.reason,
        }

    def to_text(self) -> str:
        """`t=... event E in S/A: fires #N` (the transition's own line, which follows,
        gives its reason), `... fires #N (why)` when the event's effects and the
        evaluation it asks for fired it, `... ignored (why)` when it fired none."""
        outcome = f"fires #{self.fired}" if self.fired is not None else "ignored"
        why = f" ({self.reason})" if self.reason else ""
        return f"t={num(self.t):>7} event {self.label()} in {'/'.join(self.source)}: {outcome}{why}"


def in_order(fired: Sequence[Fired], handled: Sequence[Handled]) -> list[Fired | Handled]:
    """Transitions and events in the order they happened: an event before the
    transitions it caused, after the ones fired before it arrived."""
    keyed: list[tuple[tuple[int, int, int], Fired | Handled]] = [
        ((f.seq - 1, 1, i), f) for i, f in enumerate(fired)
    ]
    keyed += [((h.after, 0, i), h) for i, h in enumerate(handled)]
    return [item for _, item in sorted(keyed, key=lambda pair: pair[0])]


def num(t: float) -> int | float:
    """Seconds as printed: integral values without a fraction."""
    return int(t) if float(t).is_integer() else round(t, 3)


def describe(
    trig: Trigger, tested_guards: Sequence[Tested], activity: str
) -> tuple[str, dict[str, Any]]:
    """The reason text of a fired trigger and the attribute values its guards saw."""
    last = list(tested_guards)
    values: dict[str, Any] = {}
    parts: list[str] = []
    match trig.kind:
        case "policy" | "immediate":
            parts.append(f"{trig.kind}: ")
        case "timer":
            parts.append(f"timer {trig.name} expired")
        case _:
            how = f"({'|'.join(trig.how)})" if trig.how else ""
            parts.append(f"{trig.kind} {trig.name}{how}")
    tested = [e for e in last if not e[1]][:1] + [e for e in last if e[1]][-1:]
    for guard, is_choice, my, target in tested:
        text = guard.simplified
        if is_choice:
            parts.append(f"; {activity} because {text}")
        elif trig.kind in ("policy", "immediate"):
            parts[0] += text
        else:
            parts.append(f" if {text}")
        values.update(guard_values(text, my, target))
    if values:
        shown = ", ".join(f"{k}={show(v)}" for k, v in values.items())
        parts.append(f" [{shown}]")
    return "".join(parts), values


def guard_values(text: str, my: Any, target: Any) -> dict[str, Any]:
    """Values of the attributes a guard names, from MY (else TARGET)."""
    out: dict[str, Any] = {}
    for name in guard_names(text):
        if name.lower() in ("true", "false", "undefined", "error"):
            continue
        if my is not None and name in my:
            out[name] = my[name]
        elif target is not None and name in target:
            out[name] = target[name]
    return out


def show(value: Any) -> str:
    """A value as the reason prints it (expressions unparsed, strings quoted)."""
    kind = type(value)
    # the plain values first, told by their exact type (`isinstance` against the
    # expression node classes fails through each one's metaclass)
    if kind is int or kind is bool:
        return str(value)
    if kind is float:
        return f"{value:g}"
    if kind is str:
        return f'"{value}"'
    if isinstance(value, Expr):
        return unparse(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value) if not isinstance(value, str) else f'"{value}"'


def jsonable(value: Any) -> Any:
    """A value as the JSONL event log holds it."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:  # (as in `show`)
        return value
    if kind is float:
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Expr):
        return unparse(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
