"""Admin properties (`--properties FILE`): grammar, checked IR, and their meaning on a run.

Stage: check input. Text -> lark parse (`properties.lark`, positions kept) -> immutable IR
-> `violation(prop, run)` over a recorded run (a tuple of `Observation`s, see
runtime.check.observe). Grammar and meaning are documented in docs/properties.md;
every error is a `PropertiesError` with file, line, column and the source line, and all
errors of a file are reported together.

Examples:
    never: Preempting/Killing within 600s of JobStart
    always: Claimed/Busy and KeyboardIdle < 60 => leaves Busy within 2 polls
    eventually: Owner/Idle => Unclaimed when KeyboardIdle > 900 and LoadAvg < 0.3
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from compiler.analysis import KnownNames
from compiler.errors import PolicyError, raise_all
from compiler.spec import ERAS, SEMANTICS, EraSpec, load_spec
from compiler.textio import read_text

#: The anchor `within D of JobStart` (= the last activate); the others are trace events.
JOB_START = "JobStart"


@dataclass(frozen=True, slots=True)
class Names:
    """The names a property may use, from the spec: published states (not internal ones
    such as Delete), their activities, and the anchors (JobStart and the trace events)."""

    states: tuple[str, ...]
    activities: tuple[str, ...]
    anchors: tuple[str, ...]


def names(spec: EraSpec | None = None) -> Names:
    """The names of `spec`, or of every era and semantics when None."""
    specs = [spec] if spec is not None else [load_spec(e, s) for e in ERAS for s in SEMANTICS]
    states = [st for sp in specs for st in sp.states if not st.internal]
    return Names(
        tuple(dict.fromkeys(st.name for st in states)),
        tuple(dict.fromkeys(a for st in states for a in st.activities)),
        (JOB_START, *dict.fromkeys(e.name for sp in specs for e in sp.events)),
    )


class PropertiesError(PolicyError):
    """A problem in a properties file, with its position."""


# -- IR ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pattern:
    """A state/activity pattern: `Claimed/Busy`, `Claimed` (any activity), `Busy` (an
    activity alone: any state), `*/Killing`."""

    state: str | None
    activity: str | None

    def matches(self, state: str, activity: str) -> bool:
        return (self.state is None or self.state == state) and (
            self.activity is None or self.activity == activity
        )

    def __str__(self) -> str:
        if self.state is None:
            return f"*/{self.activity}"
        return self.state if self.activity is None else f"{self.state}/{self.activity}"


@dataclass(frozen=True, slots=True)
class Compare:
    """`Name OP literal` on the slot's machine ad (ClassAd comparison semantics)."""

    name: str
    op: str
    value: Any

    def __str__(self) -> str:
        v = self.value
        shown = (
            f'"{v}"'
            if isinstance(v, str)
            else "undefined"
            if v is None
            else str(v).lower()
            if isinstance(v, bool)
            else str(v)
        )
        return f"{self.name} {self.op} {shown}"


@dataclass(frozen=True, slots=True)
class AllOf:
    items: tuple[Condition, ...]

    def __str__(self) -> str:
        return " and ".join(_paren(i) for i in self.items)


@dataclass(frozen=True, slots=True)
class AnyOf:
    items: tuple[Condition, ...]

    def __str__(self) -> str:
        return " or ".join(_paren(i) for i in self.items)


@dataclass(frozen=True, slots=True)
class Not:
    item: Condition

    def __str__(self) -> str:
        return f"not {_paren(self.item)}"


Condition = Pattern | Compare | AllOf | AnyOf | Not


def _paren(c: Condition) -> str:
    return f"({c})" if isinstance(c, AllOf | AnyOf) else str(c)


@dataclass(frozen=True, slots=True)
class Window:
    """`within N s|m|h|polls [of ANCHOR]`; `seconds` is None for a poll count."""

    amount: float
    unit: Literal["s", "polls"]
    anchor: str | None = None

    def __str__(self) -> str:
        text = f"within {self.amount:g}{'s' if self.unit == 's' else ' polls'}"
        return text + (f" of {self.anchor}" if self.anchor else "")


@dataclass(frozen=True, slots=True)
class Consequence:
    """What must follow a condition: leaves / enters / stays / avoids a pattern."""

    kind: Literal["leaves", "enters", "stays", "avoids"]
    pattern: Pattern
    window: Window | None = None

    def __str__(self) -> str:
        return f"{self.kind} {self.pattern}" + (f" {self.window}" if self.window else "")


@dataclass(frozen=True, slots=True)
class Property:
    """One property line. `kind` never | always | eventually; `text` as written."""

    kind: Literal["never", "always", "eventually"]
    line: int
    text: str
    pattern: Pattern | None = None  # never / eventually target
    condition: Condition | None = None  # always / eventually premise
    consequence: Consequence | None = None  # always
    when: Condition | None = None  # eventually
    window: Window | None = None  # never / eventually

    @property
    def name(self) -> str:
        return f"line {self.line}: {self.text}"


# -- parsing -------------------------------------------------------------------------------


@cache
def _parser() -> Lark:
    grammar = resources.files("runtime.check").joinpath("properties.lark").read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60,
          "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600}  # fmt: skip


class _Build(Transformer[Token, Any]):
    """Parse tree -> IR (one method per rule); names checked, problems collected."""

    def __init__(
        self, file: str, lines: Sequence[str], known: Names, attributes: KnownNames | None = None
    ) -> None:
        super().__init__()
        self.file = file
        self.lines = lines
        self.known = known
        self.attributes = attributes
        self.errors: list[PropertiesError] = []

    def _error(self, message: str, token: Token) -> None:
        line = token.line or 1
        self.errors.append(
            PropertiesError(
                message,
                file=self.file,
                line=line,
                column=token.column,
                source_line=self.lines[line - 1] if line - 1 < len(self.lines) else None,
            )
        )

    def _check(self, name: Token, known: Iterable[str], what: str) -> str | None:
        table = {k.lower(): k for k in known}
        found = table.get(str(name).lower())
        if found is None:
            close = difflib.get_close_matches(str(name).lower(), list(table), n=1, cutoff=0.6)
            hint = f"; did you mean {table[close[0]]!r}?" if close else ""
            self._error(f"unknown {what} {str(name)!r}{hint}", name)
        return found

    # patterns and conditions
    def pattern(self, items: list[Token]) -> Pattern:
        first = items[0]
        states, activities = self.known.states, self.known.activities
        if len(items) == 2:
            state = self._check(first, states, "state")
            activity = self._check(items[1], activities, "activity")
            return Pattern(state, activity)
        if str(first).lower() in {a.lower() for a in activities}:
            return Pattern(None, self._check(first, activities, "activity"))
        return Pattern(self._check(first, states, "state or activity"), None)

    def any_state(self, items: list[Token]) -> Pattern:
        return Pattern(None, self._check(items[0], self.known.activities, "activity"))

    def comparison(self, items: list[Any]) -> Compare:
        name, op, value = items
        self._check_attribute(name)
        return Compare(str(name), str(op), value)

    def _check_attribute(self, name: Token) -> None:
        """A name no slot ad can hold is an error: it would always be UNDEFINED, and the
        property would hold (or fail) vacuously (`KeybordIdle < 60`)."""
        if self.attributes is None:
            return
        scope, _, bare = str(name).rpartition(".")
        if scope.upper() not in ("", "MY") or self.attributes.known(bare):
            return
        close = self.attributes.close(bare)
        hint = f"; did you mean {close!r}?" if close else ""
        self._error(
            f"unknown attribute {bare!r}: no slot ad holds it, so the comparison is always "
            f"UNDEFINED{hint}",
            name,
        )

    def number(self, items: list[Token]) -> float | int:
        text = str(items[0])
        return float(text) if re.search(r"[.eE]", text) else int(text)

    def string(self, items: list[Token]) -> str:
        return str(items[0])[1:-1].replace('\\"', '"').replace("\\\\", "\\")

    def true(self, _: list[Any]) -> bool:
        return True

    def false(self, _: list[Any]) -> bool:
        return False

    def undefined(self, _: list[Any]) -> None:
        return None

    def all_of(self, items: list[Condition]) -> Condition:
        return items[0] if len(items) == 1 else AllOf(tuple(items))

    def any_of(self, items: list[Condition]) -> Condition:
        return items[0] if len(items) == 1 else AnyOf(tuple(items))

    def not_(self, items: list[Condition]) -> Condition:
        return Not(items[0])

    def when(self, items: list[Condition]) -> Condition:
        return items[0]

    # windows and consequences
    def anchor(self, items: list[Token]) -> Token:
        return items[0]

    def window(self, items: list[Any]) -> Window:
        token: Token = items[0]
        match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)", str(token))
        assert match is not None
        amount, unit = float(match.group(1)), match.group(2).lower()
        anchor = None
        if len(items) > 1:
            anchor = self._check(
                items[1], self.known.anchors, f"anchor (an event name or {JOB_START})"
            )
        if unit.startswith("poll"):
            if anchor is not None:
                self._error("a window `of` an anchor must be in seconds, minutes or hours", token)
            return Window(amount, "polls", None)
        return Window(amount * _UNITS[unit], "s", anchor)

    def _consequence(self, kind: str, items: list[Any]) -> Consequence:
        return Consequence(kind, items[0], items[1] if len(items) > 1 else None)  # type: ignore[arg-type]

    def leaves(self, items: list[Any]) -> Consequence:
        return self._consequence("leaves", items)

    def enters(self, items: list[Any]) -> Consequence:
        return self._consequence("enters", items)

    def stays(self, items: list[Any]) -> Consequence:
        return self._consequence("stays", items)

    def avoids(self, items: list[Any]) -> Consequence:
        return self._consequence("avoids", items)


def _line_of(tree: Tree[Any]) -> int:
    return getattr(tree.meta, "line", 1) or 1


def read_properties(path: str) -> str:
    """The text of a properties file; a file that is not UTF-8 text is a positioned
    `PropertiesError` (compiler.textio)."""
    return read_text(path, error=PropertiesError)


def parse_properties(
    text: str,
    file: str = "<properties>",
    spec: EraSpec | None = None,
    attributes: KnownNames | None = None,
) -> tuple[Property, ...]:
    """All properties of a file; raises `PropertiesError` (or `PolicyErrors` with all of
    them) pointing at line and column. States, activities and anchors are `spec`'s (every
    era's when None); with `attributes` (the names the policy's slot ads may hold,
    compiler.analysis.lints.known_names), a comparison naming another attribute is an
    error with the closest known name."""
    lines = text.splitlines()
    try:
        tree = _parser().parse(text if text.endswith("\n") else text + "\n")
    except UnexpectedInput as err:
        raise _syntax_error(err, text, file, lines) from None
    builder = _Build(file, lines, names(spec), attributes)
    out: list[Property] = []
    for node in tree.children:
        if not isinstance(node, Tree):
            continue
        line = _line_of(node)
        source = _without_comment(lines[line - 1]) if line - 1 < len(lines) else ""
        try:
            parts = [builder.transform(c) if isinstance(c, Tree) else c for c in node.children]
        except VisitError as err:  # pragma: no cover - builder methods do not raise
            raise err.orig_exc from None
        except RecursionError:  # the tree walk of thousands of nested parentheses
            raise PropertiesError(
                "condition nested too deeply", file=file, line=line, column=1, source_line=source
            ) from None
        out.append(_property(str(node.data), line, source, parts))
    raise_all(builder.errors)
    return tuple(out)


def _without_comment(line: str) -> str:
    """The property as written, without a trailing `# comment` (outside strings)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i].strip()
    return line.strip()


def _property(kind: str, line: int, text: str, parts: list[Any]) -> Property:
    match kind:
        case "never":
            window = parts[1] if len(parts) > 1 else None
            return Property("never", line, text, pattern=parts[0], window=window)
        case "always":
            return Property("always", line, text, condition=parts[0], consequence=parts[1])
        case "eventually":
            when = next((p for p in parts[2:] if not isinstance(p, Window)), None)
            window = next((p for p in parts[2:] if isinstance(p, Window)), None)
            return Property(
                "eventually",
                line,
                text,
                condition=parts[0],
                pattern=parts[1],
                when=when,
                window=window,
            )
        case _:
            raise ValueError(f"unknown property kind {kind!r}")


_NAMES = {
    "NAME": "a name", "OP": "a comparison operator", "DURATION": "a duration such as 600s or 2 polls",
    "SIGNED_NUMBER": "a number", "ESCAPED_STRING": "a string", "_NL": "end of line",
    "COLON": "':'", "SLASH": "'/'", "LPAR": "'('", "RPAR": "')'", "STAR": "'*'",
    "NEVER": "'never'", "ALWAYS": "'always'", "EVENTUALLY": "'eventually'", "AND": "'and'",
    "OR": "'or'", "NOT": "'not'", "WITHIN": "'within'", "WHEN": "'when'", "OF": "'of'",
    "LEAVES": "'leaves'", "ENTERS": "'enters'", "STAYS": "'stays'", "AVOIDS": "'avoids'",
    "__ANON_0": "'=>'", "MORETHAN": "'=>'", "$END": "end of file",
}  # fmt: skip


def _syntax_error(
    err: UnexpectedInput, text: str, file: str, lines: Sequence[str]
) -> PropertiesError:
    line = getattr(err, "line", None) or 1
    column = getattr(err, "column", None) or 1
    if isinstance(err, UnexpectedEOF) or line < 1:
        line = max(1, len(lines))
        column = len(lines[-1]) + 1 if lines else 1
    expected: Iterable[str] = ()
    if isinstance(err, UnexpectedToken):
        expected = err.expected
        got = "end of line" if err.token.type == "_NL" else repr(str(err.token))
        what = f"unexpected {got}"
    elif isinstance(err, UnexpectedCharacters):
        expected = err.allowed or ()
        pos = err.pos_in_stream or 0
        what = f"unexpected character {text[pos]!r}" if pos < len(text) else "unexpected input"
    else:
        what = "unexpected end of input"
        expected = getattr(err, "expected", ()) or ()
    wanted = sorted({_NAMES.get(e, e.lower().strip("_")) for e in expected})
    message = what + (f"; expected {', '.join(wanted)}" if wanted else "")
    return PropertiesError(
        message,
        file=file,
        line=line,
        column=column,
        source_line=lines[line - 1] if 0 < line <= len(lines) else None,
    )
