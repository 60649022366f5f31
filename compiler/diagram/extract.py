"""Extract a diagram model from an era spec, optionally a compiled table and a trace.

Stage: `EraSpec` (+ `StateTable`, + trace steps) -> `compiler.diagram.model.Diagram`.
This is where every decision about *what* a figure shows is made, so that renderers
stay syntax only: which rows become edges (numbered rows always; code-only rows with
`unnumbered=True` or when a trace took them), where a "State/*" target points (at the
state's box), what an edge's status and guard text are under a policy, and which trace
steps took which edge. It evaluates nothing: statuses and simplified guards come from
the `StateTable` that `compile_policy` built.

Iteration order is fixed (numbered rows by number, then code-only rows by id, states
and activities in spec order) so the same inputs always give the same figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compiler.diagram.errors import DiagramError
from compiler.diagram.model import (
    Cluster,
    Diagram,
    DiagramKind,
    Edge,
    EdgeKind,
    EdgeStatus,
    Node,
)
from compiler.spec.ir import EraSpec, Pair, Transition
from compiler.table import Row, StateTable

#: A trace step: a transition number or id (14, "14", "unnumbered:kill_claim@Claimed/Busy",
#: or "unnumbered:kill_claim", resolved from where the slot is), a `(t, number)` pair, or
#: a mapping with a "number" (or "id") key such as a line of `run --format jsonl`.
TraceStep = int | str | tuple[float, int | str] | Mapping[str, Any]


def extract(
    spec: EraSpec,
    table: StateTable | None = None,
    trace: Sequence[TraceStep] | None = None,
    *,
    kind: DiagramKind = "activities",
    unnumbered: bool = False,
    title: str | None = None,
    policy: str | None = None,
) -> Diagram:
    """The diagram model of `spec`.

    With `table`, edges carry the row status (live | dead | always) and the simplified
    guard, and the figure is titled with `policy` (default `table.source`). With `trace`,
    the rows it fired are highlighted with their step numbers. `kind` "activities" is
    the numbered state/activity figure, "states" the lettered state figure.
    """
    if table is not None and (table.era, table.semantics) != (spec.era, spec.semantics):
        raise DiagramError(
            f"table is for {table.era} ({table.semantics} semantics) but the spec is "
            f"{spec.era} ({spec.semantics} semantics)"
        )
    steps = resolve_trace(spec, trace) if trace is not None else ()
    rows = _selected_rows(spec, unnumbered, steps)
    facts = _Facts(spec, table, steps)
    match kind:
        case "activities":
            nodes, clusters, edges = _activities(spec, rows, facts)
            start = str(spec.initial)
        case "states":
            nodes, edges = _states(spec, rows, facts)
            clusters = ()
            start = spec.initial.state
        case _:
            raise DiagramError(f"unknown diagram kind {kind!r} (known: activities, states)")
    if table is not None and policy is None:
        policy = table.source
    return Diagram(
        kind=kind,
        era=spec.era,
        semantics=spec.semantics,
        title=title if title is not None else _title(spec, kind),
        nodes=nodes,
        edges=edges,
        start=start,
        clusters=clusters,
        policy=policy if table is not None else None,
        traced=trace is not None,
    )


# -- trace ------------------------------------------------------------------------------


def resolve_trace(spec: EraSpec, trace: Sequence[TraceStep]) -> tuple[Transition, ...]:
    """The rows a trace fired, in order.

    An "unnumbered:<name>" without "@source" (as the runtime reports it) names several
    rows; the one leaving the pair the slot is in (the previous row's target, or the
    initial pair, or the step's own "from" when it is a jsonl mapping) is taken.
    Unknown or ambiguous steps raise `DiagramError`.
    """
    found: list[Transition] = []
    current: Pair = spec.initial
    for index, step in enumerate(trace, start=1):
        key = _step_key(step, index)
        current = _step_source(step) or current
        row = _resolve_step(spec, key, current, index)
        found.append(row)
        current = row.target
    return tuple(found)


def _leaves(row: Transition, pair: Pair) -> bool:
    """Whether `row` leaves `pair` ("Preempting/*": any activity of Preempting)."""
    if pair.is_wildcard:
        return row.source.state == pair.state
    return row.source == pair


def _step_source(step: TraceStep) -> Pair | None:
    """The "from" pair a jsonl step reports, if any."""
    if isinstance(step, Mapping):
        match step.get("from"):
            case [str() as state, str() as activity]:
                return Pair(state, activity)
    return None


def _step_key(step: TraceStep, index: int) -> int | str:
    match step:
        case bool():
            raise DiagramError(f"trace step {index}: {step!r} is not a transition")
        case int() | str():
            return step
        case (_, int() | str() as key):
            return key
        case Mapping() if "number" in step or "id" in step:
            key = step.get("id", step.get("number"))
            if isinstance(key, int | str) and not isinstance(key, bool):
                return key
    raise DiagramError(
        f"trace step {index}: {step!r} is not a transition number, id or (t, number) pair"
    )


#: More significant digits than this name no transition (rows are numbered from 1 to a few
#: dozen); such a step is refused before `int`, which raises for 4,300 digits or more.
MAX_STEP_DIGITS = 18


def step_key(text: str) -> int | str:
    """A step's text as a transition number (ASCII digits, leading zeros allowed) or, for
    anything else, as an id. A number too long to name any transition is a
    `DiagramError` (the caller adds where it was)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return text
    if len(text.lstrip("0")) > MAX_STEP_DIGITS:
        raise DiagramError(f"a {len(text)}-digit step number ({text[:12]}...) names no transition")
    return int(text)


def _resolve_step(spec: EraSpec, key: int | str, current: Pair, index: int) -> Transition:
    if isinstance(key, str):
        try:
            key = step_key(key)
        except DiagramError as err:
            raise DiagramError(f"trace step {index}: {err.message}") from None
    if isinstance(key, str) and key.startswith("unnumbered:") and "@" not in key:
        candidates = [r for r in spec.transitions if r.number == key]
        here = [r for r in candidates if _leaves(r, current)]
        if len(here) == 1:
            return here[0]
        where = f" from {current}"
        known = ", ".join(r.id for r in candidates) or "none"
        raise DiagramError(
            f"trace step {index}: {key}{where} names {len(here)} rows (rows named so: {known})"
        )
    try:
        return spec.transition(key)
    except KeyError:
        raise DiagramError(
            f"trace step {index}: {spec.era} has no transition {key!r} "
            f"(numbered 1..{spec.numbered_count})"
        ) from None


# -- shared facts ---------------------------------------------------------------------


@dataclass(slots=True)
class _Facts:
    """Per-row facts both figures need: status, guard text and trace steps."""

    spec: EraSpec
    table: StateTable | None
    steps: tuple[Transition, ...]
    _step_numbers: dict[str, list[int]] = field(default_factory=dict)
    #: Pair ids reachable from the initial pair through rows that are not dead (every
    #: row of the table counts, drawn or not); None without a table.
    reachable: frozenset[str] | None = None

    def __post_init__(self) -> None:
        for number, row in enumerate(self.steps, start=1):
            self._step_numbers.setdefault(row.id, []).append(number)
        if self.table is not None:
            self.reachable = _reachable(self.spec, self.table)

    def pair_reachable(self, pair: str) -> bool:
        return self.reachable is None or pair in self.reachable

    def row(self, t: Transition) -> Row | None:
        return None if self.table is None else self.table.row(t.id)

    def status(self, t: Transition) -> EdgeStatus | None:
        row = self.row(t)
        return None if row is None else row.status

    def guard(self, t: Transition) -> str:
        row = self.row(t)
        return t.guard if row is None else row.simplified

    def events(self, t: Transition) -> tuple[str, ...]:
        """Short names of the row's other triggers: events, commands, timers, and
        on-entry tests that are not the policy guard ("match", "vacate(graceful)",
        "timer MATCH_TIMEOUT", "on entry: DestinationOwner")."""
        row = self.row(t)
        found: list[str] = []
        for index, trig in enumerate(t.triggers):
            match trig.kind:
                case "policy":
                    continue
                case "timer":
                    text = f"timer {trig.name}"
                case "protocol" | "command":
                    text = trig.name + (f"({'|'.join(trig.how)})" if trig.how else "")
                    guard = _trigger_guard(row, index, trig.guard)
                    if guard and len(guard) <= SHORT_GUARD:  # what tells 22 from 23
                        text += f" if {guard}"
                case "immediate":
                    guard = _trigger_guard(row, index, trig.guard)
                    if guard == self.guard(t):
                        continue
                    text = f"on entry: {guard}"
                case _:
                    raise DiagramError(f"unknown trigger kind {trig.kind!r} in row {t.id}")
            if text not in found:
                found.append(text)
        return tuple(found)

    def steps_of(self, t: Transition) -> tuple[int, ...]:
        return tuple(self._step_numbers.get(t.id, ()))

    def describe(self, t: Transition) -> list[str]:
        """Tooltip lines for one row."""
        lines = [f"{_number_text(t)}: {t.source} -> {t.target}", t.summary]
        lines.append(f"trigger: {t.trigger_text}")
        guard = self.guard(t)
        label = "simplified guard" if self.table is not None else "guard"
        if guard:
            lines.append(f"{label}: {guard}")
        status = self.status(t)
        if status is not None:
            lines.append(f"status under this policy: {status}")
        if t.target.is_wildcard:
            lines.append("activity: " + " or ".join(p.activity for p in t.targets))
        if not self.pair_reachable(str(t.source)):
            lines.append(f"{t.source} is unreachable under this policy: never taken")
        steps = self.steps_of(t)
        if steps:
            lines.append("trace steps: " + ", ".join(map(str, steps)))
        return [line for line in lines if line]


#: An event's guard up to this length is named with it ("starter_exit if
#: !HasPreemptingClaim"); longer ones (an expanded START) stay in the tooltip.
SHORT_GUARD = 24


def _trigger_guard(row: Row | None, index: int, spec_guard: str) -> str:
    compiled = row.triggers[index] if row is not None else None
    return compiled.simplified if compiled is not None else spec_guard


def _reachable(spec: EraSpec, table: StateTable) -> frozenset[str]:
    """Pair ids the table's rows can reach (`compiler.policy.reachable_pairs`: the same
    set that makes the rows out of the other pairs "dead" in `compile`)."""
    from compiler.policy import reachable_pairs  # loaded already: a table was compiled

    return frozenset(str(p) for p in reachable_pairs(spec, table.rows))


def _selected_rows(
    spec: EraSpec, unnumbered: bool, steps: tuple[Transition, ...]
) -> tuple[Transition, ...]:
    traced = {t.id for t in steps}
    numbered = sorted((t for t in spec.transitions if t.numbered), key=lambda t: int(t.number))
    others = sorted(
        (t for t in spec.transitions if not t.numbered and (unnumbered or t.id in traced)),
        key=lambda t: t.id,
    )
    return (*numbered, *others)


def _number_text(t: Transition) -> str:
    return str(t.number) if t.numbered else t.id


def _title(spec: EraSpec, kind: DiagramKind) -> str:
    what = "states and activities" if kind == "activities" else "states"
    return f"{spec.era}: {what} ({spec.semantics} semantics)"


# -- the state/activity figure -----------------------------------------------------------


def _activities(
    spec: EraSpec, rows: tuple[Transition, ...], facts: _Facts
) -> tuple[tuple[Node, ...], tuple[Cluster, ...], tuple[Edge, ...]]:
    edges = tuple(_row_edge(t, facts) for t in rows)
    touched = {e.source for e in edges} | {e.target for e in edges}
    entered = _entered_pairs(spec, facts.steps)
    nodes: list[Node] = []
    clusters: list[Cluster] = []
    for state in spec.states:
        pairs = [p for p in spec.pairs if p.pair.state == state.name]
        if state.internal and not any(str(p.pair) in touched for p in pairs):
            continue
        for pair_spec in pairs:
            pid = str(pair_spec.pair)
            nodes.append(
                Node(
                    id=pid,
                    label=pair_spec.pair.activity,
                    cluster=state.name,
                    tooltip=f"{pid}\n{pair_spec.meaning}" + _unreachable_note(facts, [pid]),
                    initial=pair_spec.pair == spec.initial,
                    internal=state.internal,
                    steps=tuple(entered.get(pid, ())),
                    reachable=facts.pair_reachable(pid),
                )
            )
        clusters.append(
            Cluster(
                id=state.name,
                label=state.name,
                nodes=tuple(str(p.pair) for p in pairs),
                tooltip=f"{state.name}: {state.meaning}",
                internal=state.internal,
            )
        )
    return tuple(nodes), tuple(clusters), edges


def _row_edge(t: Transition, facts: _Facts) -> Edge:
    target = t.targets[0] if t.target.is_wildcard else t.target
    return Edge(
        key=t.id,
        source=str(t.source),
        target=str(target),
        target_cluster=t.target.state if t.target.is_wildcard else None,
        label=_number_text(t) if t.numbered else str(t.number).removeprefix("unnumbered:"),
        kind="numbered" if t.numbered else "unnumbered",
        tooltip="\n".join(facts.describe(t)),
        transitions=(t.id,),
        status=facts.status(t),
        guard=facts.guard(t),
        trigger=t.trigger_text,
        events=facts.events(t),
        steps=facts.steps_of(t),
        reachable=facts.pair_reachable(str(t.source)),
    )


def _entered_pairs(spec: EraSpec, steps: tuple[Transition, ...]) -> dict[str, list[int]]:
    """Pair id -> trace steps that entered it (0: the initial pair). A "State/*" target's
    activity is read from the next step's source when that is in the same state."""
    if not steps:
        return {}
    entered: dict[str, list[int]] = {str(spec.initial): [0]}
    for number, row in enumerate(steps, start=1):
        target = row.target
        if target.is_wildcard:
            following = steps[number] if number < len(steps) else None
            if following is None or following.source.state != target.state:
                continue
            target = following.source
        entered.setdefault(str(target), []).append(number)
    return entered


# -- the state figure -----------------------------------------------------------------


def _states(
    spec: EraSpec, rows: tuple[Transition, ...], facts: _Facts
) -> tuple[tuple[Node, ...], tuple[Edge, ...]]:
    groups: dict[str, _Group] = {}
    for letter in spec.letters:
        groups[letter.letter] = _Group(letter.letter, letter.source, letter.target, "letter")
    for t in rows:
        if t.source.state == t.target.state:
            continue
        key = t.letter if t.letter in groups else f"{t.source.state}->{t.target.state}"
        group = groups.get(key)
        if group is None or (group.source, group.target) != (t.source.state, t.target.state):
            key = f"{t.source.state}->{t.target.state}"
            group = groups.setdefault(key, _Group("", t.source.state, t.target.state, "state"))
        group.rows.append(t)
    edges = tuple(g.edge(key, facts) for key, g in groups.items() if g.rows)
    touched = {e.source for e in edges} | {e.target for e in edges}
    entered = _entered_states(spec, facts.steps)
    nodes = tuple(
        Node(
            id=state.name,
            label=state.name,
            cluster=None,
            tooltip=f"{state.name} ({', '.join(state.activities)}): {state.meaning}"
            + _unreachable_note(facts, _pairs_of(spec, state.name)),
            initial=state.name == spec.initial.state,
            internal=state.internal,
            steps=tuple(entered.get(state.name, ())),
            reachable=any(facts.pair_reachable(p) for p in _pairs_of(spec, state.name)),
        )
        for state in spec.states
        if not state.internal or state.name in touched
    )
    return nodes, edges


@dataclass(slots=True)
class _Group:
    """The rows one state-level edge stands for."""

    label: str
    source: str
    target: str
    kind: EdgeKind
    rows: list[Transition] = field(default_factory=list)

    def edge(self, key: str, facts: _Facts) -> Edge:
        numbers = [_number_text(t) for t in self.rows]
        short = [str(t.number).removeprefix("unnumbered:") for t in self.rows]
        kind: EdgeKind = self.kind
        if kind == "state" and not any(t.numbered for t in self.rows):
            kind = "unnumbered"
        lines = [f"{self.label + ': ' if self.label else ''}{self.source} -> {self.target}"]
        lines.append("transitions: " + ", ".join(numbers))
        for t in self.rows:
            status = facts.status(t)
            guard = facts.guard(t)
            detail = f" [{status}]" if status else ""
            lines.append(f"{_number_text(t)}{detail}: {t.summary}")
            if guard:
                lines.append(f"    guard: {guard}")
        steps = sorted(n for t in self.rows for n in facts.steps_of(t))
        if steps:
            lines.append("trace steps: " + ", ".join(map(str, steps)))
        return Edge(
            key=key,
            source=self.source,
            target=self.target,
            label=self.label or f"({', '.join(dict.fromkeys(short))})",
            kind=kind,
            tooltip="\n".join(lines),
            transitions=tuple(t.id for t in self.rows),
            status=_combined_status([facts.status(t) for t in self.rows]),
            guard=_combined_guard(self.rows, facts),
            trigger="; ".join(dict.fromkeys(t.trigger_text for t in self.rows)),
            steps=tuple(steps),
            reachable=any(facts.pair_reachable(str(t.source)) for t in self.rows),
        )


def _pairs_of(spec: EraSpec, state: str) -> list[str]:
    return [str(p.pair) for p in spec.pairs if p.pair.state == state]


def _unreachable_note(facts: _Facts, pairs: list[str]) -> str:
    if any(facts.pair_reachable(p) for p in pairs):
        return ""
    return f"\nunreachable from {facts.spec.initial} under this policy"


def _combined_status(statuses: Iterable[EdgeStatus | None]) -> EdgeStatus | None:
    """A state-level edge is dead when all its rows are, always when all are."""
    found = list(statuses)
    if not found or any(s is None for s in found):
        return None
    if all(s == "dead" for s in found):
        return "dead"
    if all(s == "always" for s in found):
        return "always"
    return "live"


def _combined_guard(rows: Iterable[Transition], facts: _Facts) -> str:
    parts = [f"{_number_text(t)}: {g}" for t in rows if (g := facts.guard(t))]
    return "; ".join(parts)


def _entered_states(spec: EraSpec, steps: tuple[Transition, ...]) -> dict[str, list[int]]:
    if not steps:
        return {}
    entered: dict[str, list[int]] = {spec.initial.state: [0]}
    for number, row in enumerate(steps, start=1):
        if row.source.state != row.target.state:
            entered.setdefault(row.target.state, []).append(number)
    return entered
