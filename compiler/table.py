"""The compiled state table: one row per transition of an era's spec, joined with a policy.

Stage: output of `compiler.policy.compile_policy`; input of the diagram renderer, the
runtime and the checks. A row keeps its spec `Transition` (triggers, actions, citation) and
adds, for every guard the row can test, the expanded ClassAd text (configuration
substituted), the simplified text, a status (live | dead | always) and a compiled
predicate. This module only holds and renders tables; it computes nothing about policy.

Status of a row: "dead" when no trigger of the row can ever fire (every policy guard
simplifies to something that is never TRUE, and there is no event or timer trigger whose
guard is satisfiable); "always" when the row's combined policy guard is always TRUE;
"live" otherwise. `policy_status` is the status of the combined policy guard alone.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import msgspec

from compiler.classad import ClassAdSyntaxError, compile_expr, parse
from compiler.classad.ast import Expr
from compiler.classad.operators import truth
from compiler.classad.values import ERROR, UNDEFINED
from compiler.program import Program
from compiler.spec import load_spec
from compiler.spec.ir import EraSpec, Pair, Transition

Status = Literal["live", "dead", "always"]

#: Version of the JSON written by `StateTable.to_json` (docs/state-table-json.md). 2 adds
#: what `StateTable.from_json` needs to run the table (`program`, `assumed`, per-row
#: `compiled`); every key of 1 keeps its meaning.
JSON_SCHEMA_VERSION = 2


def holds(value: Any) -> bool:
    """The startd's boolean test: whether a policy expression's value counts as TRUE.

    HTCondor's startd evaluates START, PREEMPT, ... with `EvalBool`
    (src/condor_utils/compat_classad.cpp), i.e. `ClassAd::EvaluateAttrBoolEquiv`
    (src/classad/classad.cpp), which is `Value::IsBooleanValueEquiv`
    (src/classad/value.cpp): the very test the `?:` operator applies to its selector. So
    this is `truth` (compiler/classad/operators.py) being TRUE: TRUE or a non-zero number,
    NaN included (a C++ `double` NaN converts to `true`); FALSE, zero, UNDEFINED, ERROR,
    strings, lists and ads do not hold.
    """
    return truth(value) is True


def _always(*args: Any, **kw: Any) -> bool:
    return True


class _ByValue:
    """Equality and hash over `_value()`: the fields that make a record's value, for the
    records that carry one more field that is not part of it (a compiled predicate, the
    spec it came from)."""

    __slots__ = ()

    def _value(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._value() == other._value()

    def __hash__(self) -> int:
        return hash(self._value())


def _repr_but(record: msgspec.Struct, hidden: str) -> str:
    """A record's repr as a dataclass makes it, without the field `hidden`."""
    shown = ", ".join(
        f"{n}={getattr(record, n)!r}" for n in record.__struct_fields__ if n != hidden
    )
    return f"{type(record).__qualname__}({shown})"


class CompiledGuard(_ByValue, msgspec.Struct, frozen=True, eq=False):
    """One guard of a row, from spec text to compiled predicate.

    `text` is the spec's guard (over policy names and predicates); `expanded` has the
    configuration's expressions substituted (and, for `against == "local"`, job attributes
    replaced by UNDEFINED); `simplified` is the sound simplification of `expanded`.
    `predicate(my, target, now=...)` evaluates `simplified` and returns a ClassAd value;
    `test(...)` applies the startd's boolean test to it.
    """

    text: str
    against: str
    expanded: str
    simplified: str
    expr: Expr
    status: Status
    minimised: bool = True
    notes: tuple[str, ...] = ()
    predicate: Callable[..., Any] = _always

    # `predicate` is made from `expr`: not part of the value (equality, hash, repr)
    def _value(self) -> tuple[Any, ...]:
        return (self.text, self.against, self.expanded, self.simplified, self.expr,
                self.status, self.minimised, self.notes)  # fmt: skip

    def __repr__(self) -> str:
        return _repr_but(self, "predicate")

    def test(
        self, my: Mapping[str, Any], target: Mapping[str, Any] | None = None, **kw: Any
    ) -> bool:
        return holds(self.predicate(my, target, **kw))

    def to_dict(self) -> dict[str, Any]:
        """Everything but the predicate, which `from_dict` recompiles from `simplified`."""
        return {
            "text": self.text,
            "against": self.against,
            "expanded": self.expanded,
            "simplified": self.simplified,
            "status": self.status,
            "minimised": self.minimised,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CompiledGuard:
        expr = parse(data["simplified"])
        status = data["status"]
        if status not in ("live", "dead", "always"):
            raise ValueError(f"unknown guard status {status!r}")
        return cls(
            text=str(data["text"]),
            against=str(data["against"]),
            expanded=str(data["expanded"]),
            simplified=str(data["simplified"]),
            expr=expr,
            status=status,
            minimised=bool(data.get("minimised", True)),
            notes=tuple(str(n) for n in data.get("notes", ())),
            predicate=compile_expr(expr),
        )


_Node = TypeVar("_Node")


def reach(
    start: Iterable[_Node], successors: Callable[[_Node], Iterable[_Node]]
) -> frozenset[_Node]:
    """Every node `successors` leads to from `start`, `start` included: the one walk
    behind the reachable pairs (`compiler.policy.reachable_pairs`, the analysis's) and
    the pairs a predicate can hold in (`Analysis._preempting_pairs`)."""
    seen = set(start)
    todo = list(seen)
    while todo:
        for nxt in successors(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def _guard_dict(guard: CompiledGuard | None) -> dict[str, Any] | None:
    return None if guard is None else guard.to_dict()


def _guard_from(data: Mapping[str, Any] | None) -> CompiledGuard | None:
    return None if data is None else CompiledGuard.from_dict(data)


class Row(msgspec.Struct, frozen=True):
    """A transition joined with a policy.

    `triggers[i]` is the compiled guard of `transition.triggers[i]` (None for a trigger
    without a guard, e.g. a plain event or a timer); `choices[i]` compiles
    `transition.activity_choice[i]`; `guard` is the combined policy guard (None when the
    row has no policy trigger).
    """

    transition: Transition
    guard: CompiledGuard | None
    triggers: tuple[CompiledGuard | None, ...]
    choices: tuple[CompiledGuard, ...]
    status: Status
    policy_status: Status | None

    @property
    def id(self) -> str:
        return self.transition.id

    @property
    def number(self) -> int | str:
        return self.transition.number

    @property
    def letter(self) -> str | None:
        return self.transition.letter

    @property
    def source(self) -> tuple[str, str]:
        return (self.transition.source.state, self.transition.source.activity)

    @property
    def target(self) -> tuple[str, str]:
        return (self.transition.target.state, self.transition.target.activity)

    @property
    def trigger(self) -> str:
        return self.transition.trigger_text

    @property
    def guard_text(self) -> str:
        return self.guard.expanded if self.guard else ""

    @property
    def simplified(self) -> str:
        return self.guard.simplified if self.guard else ""

    @property
    def citation(self) -> str:
        return str(self.transition.citation)

    @property
    def minimised(self) -> bool:
        return all(g.minimised for g in self._guards())

    def _guards(self) -> list[CompiledGuard]:
        found = [g for g in self.triggers if g is not None]
        if self.guard is not None:
            found.append(self.guard)
        return found

    def to_dict(self) -> dict[str, Any]:
        """The row in the stable JSON schema (README "State table JSON")."""
        t = self.transition
        return {
            "number": t.number,
            "id": t.id,
            "letter": t.letter,
            "from": list(self.source),
            "to": list(self.target),
            "trigger": self.trigger,
            "guard": self.guard_text,
            "simplified": self.simplified,
            "status": self.status,
            "policy_status": self.policy_status,
            "minimised": self.minimised,
            "citation": self.citation,
            "triggers": [
                {
                    "kind": trig.kind,
                    "name": trig.name,
                    "how": list(trig.how),
                    "against": trig.against,
                    "order": trig.order,
                    "guard": compiled.expanded if compiled else trig.guard,
                    "simplified": compiled.simplified if compiled else "",
                    "status": compiled.status if compiled else "live",
                    "actions": [str(a) for a in trig.actions],
                }
                for trig, compiled in zip(t.triggers, self.triggers, strict=True)
            ],
            "activity_choice": [
                {"activity": c.activity, "guard": g.expanded, "simplified": g.simplified}
                for c, g in zip(t.activity_choice, self.choices, strict=True)
            ],
            "compiled": {
                "guard": _guard_dict(self.guard),
                "triggers": [_guard_dict(g) for g in self.triggers],
                "choices": [g.to_dict() for g in self.choices],
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], spec: EraSpec) -> Row:
        """The row of `spec` with id `data["id"]`, its guards read back from `compiled`."""
        transition = spec.transition(str(data["id"]))
        compiled = data["compiled"]
        triggers = tuple(_guard_from(g) for g in compiled["triggers"])
        choices = tuple(CompiledGuard.from_dict(g) for g in compiled["choices"])
        if len(triggers) != len(transition.triggers) or len(choices) != len(
            transition.activity_choice
        ):
            raise ValueError(f"row {transition.id}: the {spec.era} spec has a different shape")
        status = data["status"]
        policy_status = data.get("policy_status")
        if status not in ("live", "dead", "always") or policy_status not in (
            None,
            "live",
            "dead",
            "always",
        ):
            raise ValueError(f"row {transition.id}: unknown status")
        return cls(
            transition=transition,
            guard=_guard_from(compiled["guard"]),
            triggers=triggers,
            choices=choices,
            status=status,
            policy_status=policy_status,
        )

    @property
    def possible_targets(self) -> tuple[Pair, ...]:
        """The targets a live row can enter: every one for a plain target; for a `State/*`
        row, the activities its firing triggers force, and, when a trigger leaves the choice
        to the activity choice, the choices up to the first that always holds, skipping
        those that never do (WANT_VACATE always TRUE: Preempting/Killing is never chosen)."""
        t = self.transition
        if not t.target.is_wildcard or len(self.choices) != len(t.activity_choice):
            return t.targets  # (a table read without its compiled choices: all of them)
        can = [c is None or c.status != "dead" for c in self.triggers]
        wanted = {x.activity for x, ok in zip(t.triggers, can, strict=True) if ok and x.activity}
        if any(ok and not x.activity for x, ok in zip(t.triggers, can, strict=True)):
            for choice, compiled in zip(t.activity_choice, self.choices, strict=True):
                if compiled.status == "dead":
                    continue
                wanted.add(choice.activity)
                if compiled.status == "always":
                    break
            else:
                if not t.activity_choice:
                    return t.targets
        return tuple(p for p in t.targets if p.activity in wanted)


class StateTable(_ByValue, msgspec.Struct, frozen=True, eq=False):
    """The compiled table of one era, semantics and policy.

    `spec` is the era spec the rows come from (timers, polling, actions, evaluation
    order: what the runtime needs besides the rows); `assumptions` are the attribute
    values fixed with `--assume`; `warnings` are problems worth telling the user (for
    example a policy the startd of that era would refuse because it is undefined).
    """

    era: str
    semantics: str
    rows: tuple[Row, ...]
    spec: EraSpec
    source: str = "<default policy>"
    assumptions: tuple[tuple[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    program: Program = msgspec.field(default_factory=Program)

    # `spec` is where the rows come from: not part of the value (equality, hash, repr)
    def _value(self) -> tuple[Any, ...]:
        return (self.era, self.semantics, self.rows, self.source, self.assumptions,
                self.warnings, self.program)  # fmt: skip

    def __repr__(self) -> str:
        return _repr_but(self, "spec")

    @property
    def policy_values(self) -> tuple[tuple[str, str], ...]:
        """(policy name, its text or a note such as "(era default)"), for display only:
        code that needs a knob reads `program.knob(name)`."""
        return self.program.policy_values()

    # -- lookup ---------------------------------------------------------------------
    def row(self, key: int | str) -> Row:
        """By number (14), id ("unnumbered:kill_claim@Claimed/Busy") or str number."""
        for row in self.rows:
            if key in (row.number, row.id) or str(key) == row.id:
                return row
        raise KeyError(key)

    def rows_from(self, pair: Pair | tuple[str, str]) -> tuple[Row, ...]:
        wanted = pair if isinstance(pair, tuple) else (pair.state, pair.activity)
        return tuple(r for r in self.rows if r.source == wanted)

    def numbered(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.transition.numbered)

    # -- outputs --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": JSON_SCHEMA_VERSION,
            "era": self.era,
            "semantics": self.semantics,
            "source": self.source,
            "assumptions": {k: v for k, v in self.assumptions},
            "warnings": list(self.warnings),
            "rows": [r.to_dict() for r in self.rows],
            "assumed": [[k, _value_to_json(v)] for k, v in self.assumptions],
            "program": self.program.to_dict(),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=_json_default)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StateTable:
        """The table `to_dict` wrote: the era spec reloaded by (era, semantics), guards
        reparsed and their predicates recompiled. Raises ValueError on another layout."""
        if data.get("schema") != JSON_SCHEMA_VERSION:
            raise ValueError(
                f"state table JSON schema {data.get('schema')!r}: this version reads "
                f"{JSON_SCHEMA_VERSION} only (compile the policy again)"
            )
        spec = load_spec(str(data["era"]), str(data["semantics"]))
        rows = tuple(Row.from_dict(r, spec) for r in data["rows"])
        return cls(
            era=spec.era,
            semantics=spec.semantics,
            rows=rows,
            spec=spec,
            source=str(data.get("source", "")),
            assumptions=tuple((str(k), _value_from_json(v)) for k, v in data.get("assumed", ())),
            warnings=tuple(str(w) for w in data.get("warnings", ())),
            program=Program.from_dict(data.get("program", {})),
        )

    @classmethod
    def from_json(cls, text: str) -> StateTable:
        """`StateTable.from_json(t.to_json())` runs exactly as `t` does. Raises ValueError
        (json.JSONDecodeError is one) when the text is not a table this version wrote."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a state table is a JSON object")
        try:
            return cls.from_dict(data)
        except (KeyError, TypeError, IndexError) as err:
            raise ValueError(f"not a state table: {type(err).__name__} {err}") from None
        except ClassAdSyntaxError as err:
            raise ValueError(f"not a state table: an expression does not parse: {err}") from None

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(_COLUMNS)
        for row in self.rows:
            writer.writerow(_cells(row))
        return out.getvalue()

    def to_markdown(self) -> str:
        lines = [
            f"# State table: {self.era} ({self.semantics} semantics), {self.source}",
            "",
            "| " + " | ".join(_COLUMNS) + " |",
            "|" + "---|" * len(_COLUMNS),
        ]
        for row in self.rows:
            cells = [_md_escape(c) for c in _cells(row)]
            lines.append("| " + " | ".join(cells) + " |")
        for warning in self.warnings:
            lines.append(f"\n> warning: {_md_escape(warning)}")
        return "\n".join(lines) + "\n"

    def to_text(self) -> str:
        """The `--format table` view for a pipe or a file: the title, then one line per row
        in aligned columns, nothing folded, so that grep, diff and `less -S` see each row
        whole (the terminal gets `to_rich`). The guard comes last: every other cell is
        ASCII from the spec, so the columns stay aligned whatever the guard holds."""
        header = ("#", "L", "from", "to", "status", "trigger", "simplified guard")
        body = [
            (
                str(row.number),
                row.letter or "",
                "/".join(row.source),
                "/".join(row.target),
                row.status + ("" if row.minimised else " (not minimised)"),
                _short_trigger(row),
                row.simplified,
            )
            for row in self.rows
        ]
        title = f"{self.era} ({self.semantics} semantics): {self.source}"
        return f"{title}\n{_aligned_text(header, body)}"

    def to_rich(self) -> Any:
        """A `rich.table.Table` for the terminal (rich imported lazily).

        Every cell is a `rich.text.Text`, never a str: rich reads a str as console
        markup, so a guard such as `regexp("[bold]x", Name)` lost its `[bold]`.
        """
        from rich.table import Table
        from rich.text import Text

        table = Table(
            title=Text(f"{self.era} ({self.semantics} semantics): {self.source}"),
            show_lines=False,
            expand=False,
        )
        for name in ("#", "L", "from", "to", "trigger", "simplified guard", "status"):
            table.add_column(name, overflow="fold")
        styles = {"dead": "dim strike", "always": "bold green", "live": ""}
        for row in self.rows:
            cells = (
                str(row.number),
                row.letter or "",
                "/".join(row.source),
                "/".join(row.target),
                _short_trigger(row),
                row.simplified,
                row.status + ("" if row.minimised else " (not minimised)"),
            )
            table.add_row(*(Text(cell) for cell in cells), style=styles[row.status])
        return table


def _aligned_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """`header` and `rows` as lines of columns padded to their widest cell and parted by
    two spaces, trailing blanks removed."""
    table = [tuple(header), *(tuple(r) for r in rows)]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table)
    return "".join(f"{line}\n" for line in lines)


_COLUMNS = (
    "number",
    "letter",
    "from",
    "to",
    "trigger",
    "guard",
    "simplified",
    "status",
    "citation",
)


def _cells(row: Row) -> list[str]:
    return [
        str(row.number),
        row.letter or "",
        "/".join(row.source),
        "/".join(row.target),
        row.trigger,
        row.guard_text,
        row.simplified,
        row.status,
        row.citation,
    ]


def _short_trigger(row: Row) -> str:
    kinds: list[str] = []
    for trig in row.transition.triggers:
        label: str
        match trig.kind:
            case "policy" | "immediate":
                label = trig.kind
            case _:
                label = f"{trig.kind}: {trig.name}" + (
                    f"({'|'.join(trig.how)})" if trig.how else ""
                )
        if label not in kinds:
            kinds.append(label)
    return "; ".join(kinds)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _value_to_json(value: Any) -> Any:
    """An assumed attribute value, with UNDEFINED and ERROR kept apart from strings."""
    if value is UNDEFINED:
        return {"classad": "undefined"}
    if value is ERROR:
        return {"classad": "error"}
    return value


def _value_from_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {"undefined": UNDEFINED, "error": ERROR}[value["classad"]]
    return value


def _json_default(value: Any) -> Any:
    if value is UNDEFINED:
        return "undefined"
    if value is ERROR:
        return "error"
    raise TypeError(f"not JSON serialisable: {value!r}")
