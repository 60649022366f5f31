"""Map a startd log's state changes to the era's transitions and check each was possible.

Stage: runtime, after `runtime.replay.logparse` (the changes, with positions) and
`compiler.compile_policy` (the table the daemon should have run). Pure functions over
frozen records; rendering is `runtime.replay.report`'s.

Mapping. Each slot (the log's `slotN:` prefix; lines without one are the machine's only
slot) is followed through its changes. A change names its source and target pair; a
state-only line keeps the activity the slot had, an activity-only line the state, so the
pair the slot is in fills in what the line leaves out. Before the slot's first full line
that pair may be unknown (a log that starts mid-way): the candidates are then every row
that fits, and the step lists them all. After a restart banner every slot is in the
era's initial pair. The candidates of a change are the table's rows from its source pair
whose target (a `State/*` row: any of the activities it can choose) is the change's
target; several rows may fit (transitions 10 and its unnumbered siblings both leave
Claimed/Idle for Preempting), and then the step names them all.

Checking: a change is possible when one of its candidates is not dead in the compiled
table and can enter that target (`Row.possible_targets`). Otherwise it is flagged, with
the first reason that explains it:
- "semantics": the other semantics of the era (same configuration) could make it;
- "era": no row of this era leaves that pair for that pair, another era's has one;
- "configuration": the era has the row, but this configuration makes it dead (its guard
  never holds, or its source pair is unreachable) or never chooses that activity;
- "impossible": no era has such a transition;
- "gap": the line's source is not the pair the slot was in (lines missing from the log,
  or two daemons writing one file); the change is then checked from the line's source.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Literal

from compiler import Row, StateTable, reachable_pairs
from compiler.spec import ERAS, Pair, Transition, Trigger, load_spec
from runtime.replay.causes import fired_by, wanted_for
from runtime.replay.logparse import Cause, Change, LogEntry, Restart

FlagKind = Literal["semantics", "era", "configuration", "impossible", "gap"]
PairKnown = tuple[str | None, str | None]

#: The slot name used for lines without a `slotN:` prefix (a one-slot machine).
NO_PREFIX = "slot"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A row of the table that fits a change, and whether it could have made it."""

    id: str
    number: int | str
    letter: str | None
    source: tuple[str, str]
    target: tuple[str, str]
    possible: bool
    why_not: str
    triggers: str
    #: The startd's `State change:` reason names a trigger of this row, and not of
    #: every possible candidate (runtime/replay/causes.py).
    by_cause: bool = False
    row_triggers: tuple[Trigger, ...] = field(default=(), compare=False, repr=False)

    def label(self) -> str:
        """`10 H`, `12`, `kill_claim H` (an unnumbered row by its name)."""
        name = str(self.number).removeprefix("unnumbered:")
        return f"{name} {self.letter}" if self.letter else name

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "number": self.number,
            "letter": self.letter,
            "from": list(self.source),
            "to": list(self.target),
            "possible": self.possible,
            "why_not": self.why_not or None,
            "triggers": self.triggers,
            "by_cause": self.by_cause,
        }


@dataclass(frozen=True, slots=True)
class Flag:
    kind: FlagKind
    reason: str


@dataclass(frozen=True, slots=True)
class Step:
    """One change of one slot: the pairs it went between (None where neither the line
    nor the slot's history says), the rows that fit, and the flags it earned."""

    change: Change
    slot: str
    source: PairKnown
    target: PairKnown
    candidates: tuple[Candidate, ...]
    flags: tuple[Flag, ...]
    cause: str | None = None

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    def label(self) -> str:
        """The step in a path: the possible rows' labels (`{10 H|kill_claim H}` when the
        log cannot tell them apart), or `?` when none fits."""
        shown = (
            [c for c in self.candidates if c.by_cause]
            or [c for c in self.candidates if c.possible]
            or list(self.candidates)
        )
        labels = list(dict.fromkeys(c.label() for c in shown))
        if not labels:
            return "?"
        return labels[0] if len(labels) == 1 else "{" + "|".join(labels) + "}"

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.change.line,
            "column": self.change.column,
            "time": self.change.time,
            "log": self.change.describe(),
            "from": list(self.source),
            "to": list(self.target),
            "cause": self.cause,
            "candidates": [c.to_json() for c in self.candidates],
            "flags": [{"kind": f.kind, "reason": f.reason} for f in self.flags],
        }


@dataclass(frozen=True, slots=True)
class SlotReplay:
    slot: str
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Replay:
    era: str
    semantics: str
    source: str
    slots: tuple[SlotReplay, ...]

    @property
    def flagged(self) -> tuple[Step, ...]:
        return tuple(s for slot in self.slots for s in slot.steps if s.flagged)

    @property
    def changes(self) -> int:
        return sum(len(slot.steps) for slot in self.slots)


# -- vocabulary ---------------------------------------------------------------------------


@cache
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    """Every state and activity name some era's spec knows (in either semantics)."""
    states: set[str] = set()
    activities: set[str] = set()
    for era in ERAS:
        for semantics in ("manual", "code"):
            for t in load_spec(era, semantics).transitions:
                for pair in (t.source, *t.targets):
                    states.add(pair.state)
                    activities.add(pair.activity)
    return frozenset(states), frozenset(activities)


def _unknown_names(change: Change) -> list[str]:
    """The names of the line no era knows (a newer HTCondor's, such as HEAD's Cleaning
    activity, or a line that is not the startd's)."""
    states, activities = _vocabulary()
    named = [
        (change.from_state, states, "state"),
        (change.to_state, states, "state"),
        (change.from_activity, activities, "activity"),
        (change.to_activity, activities, "activity"),
    ]
    unknown = [f"{what} {name!r}" for name, known, what in named if name and name not in known]
    return list(dict.fromkeys(unknown))


# -- matching -----------------------------------------------------------------------------


def _fits(pattern: PairKnown, pair: Pair) -> bool:
    state, activity = pattern
    return (state is None or state == pair.state) and (
        activity is None or activity == pair.activity
    )


def _endpoints(change: Change, current: PairKnown) -> tuple[PairKnown, PairKnown, bool]:
    """(source, target, gap) of a change given the pair the slot was in."""
    match change.kind:
        case "state and activity":
            source: PairKnown = (change.from_state, change.from_activity)
            target: PairKnown = (change.to_state, change.to_activity)
        case "state":
            activity = current[1] if current[0] == change.from_state else None
            source, target = (change.from_state, activity), (change.to_state, activity)
        case _:
            state = current[0] if current[1] == change.from_activity else None
            source, target = (state, change.from_activity), (state, change.to_activity)
    gap = any(
        c is not None and s is not None and c != s for c, s in zip(current, source, strict=True)
    )
    return source, target, gap


def _stays(change: Change, t: Transition, target: Pair) -> bool:
    """What the line says stayed the same did stay the same in the row."""
    match change.kind:
        case "state":
            return t.source.activity == target.activity
        case "activity":
            return t.source.state == target.state
        case _:
            return True


def _row_targets(
    transitions: Iterable[Transition], change: Change, source: PairKnown, target: PairKnown
) -> list[tuple[Transition, Pair]]:
    """(row, concrete target) for each row that fits the change."""
    found = []
    for t in transitions:
        if not _fits(source, t.source):
            continue
        for pair in t.targets:
            if _fits(target, pair) and _stays(change, t, pair):
                found.append((t, pair))
    return found


def _why_not(row: Row, pair: Pair, reachable: frozenset[Pair]) -> str:
    if row.status == "dead":
        source = row.transition.source
        if source not in reachable:
            return f"dead under this configuration: no live path reaches {source}"
        guard = f" (guard: {row.simplified})" if row.simplified else ""
        return f"dead under this configuration: no trigger of it can fire{guard}"
    if pair not in row.possible_targets:
        return f"this configuration never chooses {pair.activity} for it"
    return ""


def _candidates(
    table: StateTable,
    change: Change,
    source: PairKnown,
    target: PairKnown,
    reachable: frozenset[Pair] | None = None,
) -> list[Candidate]:
    rows = {r.id: r for r in table.rows}
    if reachable is None:
        reachable = reachable_pairs(table.spec, table.rows)
    out = []
    for t, pair in _row_targets((r.transition for r in table.rows), change, source, target):
        row = rows[t.id]
        why = _why_not(row, pair, reachable)
        out.append(
            Candidate(
                id=row.id,
                number=row.number,
                letter=row.letter,
                source=row.source,
                target=(pair.state, pair.activity),
                possible=not why,
                why_not=why,
                triggers=row.trigger,
                row_triggers=row.transition.triggers,
            )
        )
    return out


def _describe_pairs(source: PairKnown, target: PairKnown) -> str:
    """`Claimed/Busy -> Preempting/Vacating`; what the line and the history leave open
    is said so: `Owner -> Claimed (activity unchanged)`."""
    if source[1] is None and target[1] is None:
        return f"{source[0]} -> {target[0]} (activity unchanged)"
    if source[0] is None and target[0] is None:
        return f"{source[1]} -> {target[1]} (state unchanged)"
    return f"{source[0]}/{source[1]} -> {target[0]}/{target[1]}"


def _elsewhere(
    table: StateTable,
    other: StateTable | None,
    change: Change,
    source: PairKnown,
    target: PairKnown,
    found: Sequence[Candidate],
) -> Flag:
    """Why no candidate of `table` could make the change."""
    pairs = _describe_pairs(source, target)
    if other is not None:
        there = [c for c in _candidates(other, change, source, target) if c.possible]
        if there:
            labels = ", ".join(dict.fromkeys(c.label() for c in there))
            return Flag(
                "semantics",
                f"{pairs}: not possible with {table.semantics} semantics, but the "
                f"{other.semantics} semantics of {table.era} makes it ({labels})",
            )
    if found:
        reasons = "; ".join(f"{c.label()}: {c.why_not}" for c in found)
        return Flag("configuration", f"{pairs}: {reasons}")
    eras = []
    for era in ERAS:
        if era == table.era:
            continue
        for semantics in ("manual", "code"):
            rows = _row_targets(load_spec(era, semantics).transitions, change, source, target)
            if rows:
                numbers = ", ".join(dict.fromkeys(str(t.number) for t, _ in rows))
                eras.append(f"{era} has {numbers}")
                break
    if eras:
        return Flag("era", f"{pairs}: {table.era} has no such transition ({'; '.join(eras)})")
    return Flag("impossible", f"{pairs}: no era has such a transition")


def _settled(target: PairKnown, candidates: Sequence[Candidate]) -> PairKnown:
    """The pair the slot is in after a step: the line's target, completed from the rows
    when they all agree."""
    state, activity = target
    if candidates:
        states = {c.target[0] for c in candidates}
        activities = {c.target[1] for c in candidates}
        state = state or (states.pop() if len(states) == 1 else None)
        activity = activity or (activities.pop() if len(activities) == 1 else None)
    return (state, activity)


def replay_log(
    entries: Sequence[LogEntry],
    table: StateTable,
    *,
    other: StateTable | None = None,
) -> Replay:
    """Map and check every change of `entries` against `table`; `other` is the same
    policy compiled with the era's other semantics (to say "wrong semantics")."""
    initial = table.spec.initial
    reachable = reachable_pairs(table.spec, table.rows)
    start: PairKnown = (None, None)
    current: dict[str, PairKnown] = {}
    steps: dict[str, list[Step]] = {}
    causes: dict[str, list[str]] = {}
    known: dict[tuple[str, PairKnown, PairKnown], tuple[tuple[Candidate, ...], Flag | None]] = {}
    for entry in entries:
        if isinstance(entry, Restart):
            start = (initial.state, initial.activity)
            current = {slot: start for slot in current}
            causes.clear()
            continue
        if isinstance(entry, Cause):
            causes.setdefault(entry.slot or NO_PREFIX, []).append(entry.text)
            continue
        slot = entry.slot or NO_PREFIX
        here = current.get(slot, start)
        source, target, gap = _endpoints(entry, here)
        # What a change fits depends on its kind and pairs only: worked out once each
        # (a long log repeats the same few dozen changes).
        key = (entry.kind, source, target)
        if key not in known:
            fits = tuple(_candidates(table, entry, source, target, reachable))
            why = None
            unknown = _unknown_names(entry)
            if unknown:
                why = Flag(
                    "impossible",
                    f"{_describe_pairs(source, target)}: no era modelled here knows "
                    f"{' or '.join(unknown)} (a newer HTCondor's, or not a startd's line)",
                )
            elif not any(c.possible for c in fits):
                why = _elsewhere(table, other, entry, source, target, fits)
            known[key] = (fits, why)
        found, why = known[key]
        said = causes.pop(slot, [])
        flags: list[Flag] = []
        if gap:
            flags.append(
                Flag(
                    "gap",
                    f"the slot was in {here[0] or '?'}/{here[1] or '?'}, "
                    f"the line starts from {source[0] or '?'}/{source[1] or '?'}",
                )
            )
        if why is not None:
            flags.append(why)
        steps.setdefault(slot, []).append(
            Step(entry, slot, source, target, _narrowed(found, said), tuple(flags), _said(said))
        )
        current[slot] = _settled(target, [c for c in found if c.possible] or found)
    return Replay(
        era=table.era,
        semantics=table.semantics,
        source=table.source,
        slots=tuple(
            SlotReplay(slot, tuple(s)) for slot, s in sorted(steps.items(), key=_slot_order)
        ),
    )


def _narrowed(found: tuple[Candidate, ...], said: Sequence[str]) -> tuple[Candidate, ...]:
    """The candidates with `by_cause` set on those the startd's reasons point at, when
    they single out some but not all of the possible ones."""
    possible = [c for c in found if c.possible]
    wanted = wanted_for(said) if len(possible) > 1 else ()
    if not wanted:
        return found
    hits = {c.id for c in possible if fired_by(c.row_triggers, wanted)}
    if not hits or hits == {c.id for c in possible}:
        return found
    return tuple(replace(c, by_cause=c.id in hits) for c in found)


def _said(texts: Sequence[str]) -> str | None:
    """The startd's `State change:` reasons since the slot's previous change."""
    return "; ".join(texts) if texts else None


def _slot_order(item: tuple[str, Any]) -> tuple[Any, ...]:
    """slot2 before slot10, slot1 before slot1_1."""
    name = item[0]
    digits = "".join(c if c.isdigit() else " " for c in name).split()
    return (name.rstrip("0123456789_"), *(int(d) for d in digits))


def summary(replay: Replay) -> Mapping[str, int]:
    """Counts for the report: changes, flagged, slots."""
    return {
        "slots": len(replay.slots),
        "changes": replay.changes,
        "flagged": len(replay.flagged),
    }
