"""A shortest trace under which two policies' slots fire different transitions.

The candidates are the traces runtime.check.plan plans for each side (they drive the
slot into every reachable pair and make every live guard TRUE and not TRUE there, from
the region oracle's witnesses); each is replayed (runtime.trace.replay) with both tables
and the shortest one whose fired sequences differ is returned, cut after the step at
which they first diverge. The replay is the judge: a returned trace always diverges.

Planning is most of the cost (seconds per side for every goal), so the planner first
aims at the goals of the rows that differ, each side, and plans every goal only when
those traces show nothing; the new side is planned only when none of the old side's
traces (and their witness extensions) diverges; and a trace is cut
step by step only when its whole replay already differs under the two tables (fired
transitions are only ever appended, and each carries its time).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler import StateTable
    from compiler.config import Config
    from runtime.trace import Trace


#: A row's witness as diff found it: (source pair, machine attributes, job attributes,
#: the clock the witness was evaluated at).
Witness = tuple[tuple[str, str], Mapping[str, Any], Mapping[str, Any], int]


#: The longest wait and the most waits a witness's ages add to its trace.
MAX_WAIT = 7 * 24 * 3600
MAX_WAITS = 8


def _duration(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not _stamp(value)


def _stamp(value: Any) -> bool:
    """A time stamp (seconds since 1970 on the witness's clock), not a duration."""
    from runtime.check.plan import EPOCH

    return isinstance(value, int | float) and not isinstance(value, bool) and value > EPOCH / 2


@dataclass(frozen=True, slots=True)
class Divergence:
    trace: Trace
    old_fired: tuple[str, ...]
    new_fired: tuple[str, ...]


def fired(trace: Trace, table: StateTable) -> tuple[str, ...]:
    """The transitions `trace` fires under `table`: `number->State/Activity@t` each (the
    target too: an activity choice changes where a transition goes, not whether)."""
    from runtime.trace import replay

    slot: Any = replay(trace, table)
    return tuple(f"{f.number}->{'/'.join(f.target)}@{f.t:g}" for f in slot.fired)


def _candidates(
    table: StateTable, config: Config, rows: Collection[str] | None
) -> tuple[Trace, ...]:
    from runtime.check.machines import config_timers
    from runtime.check.plan import planned
    from runtime.check.reference import PolicyExprs

    policy = PolicyExprs.from_config(table.spec, config)
    timers = config_timers(table.spec, config)
    return planned(table, policy, timer_values=timers, rows=rows).traces


def divergent_trace(
    old: StateTable,
    old_config: Config,
    new: StateTable,
    new_config: Config,
    witnesses: Sequence[Witness] = (),
    rows: Collection[str] = (),
) -> Divergence | None:
    """The shortest trace whose fired sequences differ, or None. `witnesses`: (source
    pair, machine attributes, job attributes, clock) of the rows that differ; the
    shortest planned prefix that reaches the pair is extended by setting the witness's
    job attributes (when the slot runs a job) and sensors, an evaluation pass, and one
    more pass once each time stamp and age of the witness is as old as there. `rows`:
    the ids of the rows that differ; the planner first aims at their goals alone (each
    side), then at every goal."""
    aims: list[Collection[str] | None] = [frozenset(rows)] if rows else []
    for aim, table, config in [
        (aim, table, config)
        for aim in [*aims, None]
        for table, config in ((old, old_config), (new, new_config))
    ]:
        planned = _candidates(table, config, aim)
        found = _shortest([*planned, *_extended(planned, old, witnesses)], old, new)
        if found is not None:
            return found
    return None


def _shortest(traces: Sequence[Trace], old: StateTable, new: StateTable) -> Divergence | None:
    best: Divergence | None = None
    for trace in sorted(traces, key=lambda t: len(t.steps)):
        if best is not None and len(trace.steps) >= len(best.trace.steps):
            break
        whole = replace(trace, era=old.era, semantics=old.semantics)
        if fired(whole, old) == fired(whole, new):
            continue
        cut = _shortest_prefix(trace, old, new)
        if cut is not None and (best is None or len(cut.trace.steps) < len(best.trace.steps)):
            best = cut
    return best


def _extended(
    planned: Sequence[Trace],
    table: StateTable,
    witnesses: Sequence[Witness],
) -> list[Trace]:
    from runtime.trace import Step, replay

    out = []
    for pair, values, job, now in witnesses:
        sensors = {k: v for k, v in values.items() if k not in ("State", "Activity")}
        # A time stamp (JobStart, EnteredCurrentActivity ...) is the slot's own record of
        # when something happened, and an age the startd keeps (CpuBusyTime, idle times)
        # grows with the clock: the trace cannot always set them, so after the witness's
        # pass it also passes once each is as old as in the witness.
        ages = {now - v for v in sensors.values() if _stamp(v)}
        ages |= {v for v in sensors.values() if _duration(v)}
        waits = sorted(a for a in ages if 0 < a <= MAX_WAIT)[:MAX_WAITS]
        sensors = {k: v for k, v in sensors.items() if not _stamp(v)}
        for trace in sorted(planned, key=lambda t: len(t.steps)):
            found = None
            for n in range(len(trace.steps) + 1):
                prefix = replace(trace, steps=trace.steps[:n])
                slot: Any = replay(prefix, table)
                if slot.pair_tuple() == pair:
                    found = prefix
                    break
            if found is None:
                continue
            t = (found.steps[-1].t if found.steps else 0.0) + 1
            # the witness's job attributes go into the running job's ad (a `set_job:`
            # step), where the slot has one
            set_job = (Step(t, "set_job", values=dict(job)),) if job and slot.record.job else ()
            steps = (*set_job, Step(t, "set", values=sensors), Step(t, "tick"))
            steps += tuple(Step(t + wait + 1, "tick") for wait in waits)
            out.append(replace(found, steps=(*found.steps, *steps)))
            break
    return out


def _shortest_prefix(trace: Trace, old: StateTable, new: StateTable) -> Divergence | None:
    for n in range(1, len(trace.steps) + 1):
        prefix = replace(trace, steps=trace.steps[:n], era=old.era, semantics=old.semantics)
        a, b = fired(prefix, old), fired(prefix, new)
        if a != b:
            return Divergence(prefix, a, b)
    return None
