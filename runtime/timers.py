"""The slot's timers and periodic evaluation: what is due next, and how long a timer runs.

Stage: runtime. `Schedule` holds the running timers (name -> trace time due) and the time
of the last evaluation pass; `Schedule.next_due` picks what comes first, a timer or the
periodic evaluation (`runtime.engine.Engine.interval`). `timer_seconds` is the length a
`start_timer` action gives a timer: MachineMaxVacateTime from the job and the retirement
left (Resource::evalMaxVacateTime), the lease from the job's JobLeaseDuration, the others
from the compiled settings (MATCH_TIMEOUT, KILLING_TIMEOUT), else the spec's default.
No clock is read here: times are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compiler.spec import EraSpec, Pair
from runtime.ads import PolicyExprs, SlotState, max_vacate_time, retirement_remaining


@dataclass(slots=True)
class Schedule:
    """Running timers and the last evaluation pass, in trace time (`clock.elapsed()`)."""

    due: dict[str, float] = field(default_factory=dict)
    last_eval: float | None = None

    def start(self, name: str, at: float) -> None:
        self.due[name] = at

    def cancel(self, name: str) -> bool:
        """Stop `name`; True when it was running."""
        return self.due.pop(name, None) is not None

    def next_due(self, now: float, interval: float | None) -> tuple[float | None, str]:
        """(time, what) of the next timer or, with `interval` (automatic polling), the next
        evaluation pass ("eval"); (None, "") when nothing is scheduled."""
        best: float | None = None
        what = ""
        for name, due in self.due.items():
            if best is None or due < best:
                best, what = due, name
        if interval is not None:
            last = self.last_eval if self.last_eval is not None else now
            due = max(last + interval, now)
            if best is None or due < best:
                best, what = due, "eval"
        return best, what


def timer_seconds(
    name: str,
    spec: EraSpec,
    policy: PolicyExprs,
    record: SlotState,
    pair: Pair,
    now: float,
    my: Callable[[], Mapping[str, Any]],
) -> float | None:
    """How long timer `name` runs when started now (None: it does not run); `my` gives
    the slot ad, built only when the length depends on it."""
    match name:
        case "MachineMaxVacateTime":
            helpers = spec.helpers
            remaining = retirement_remaining(record, pair, now, policy, my(), helpers.retirement)
            return max_vacate_time(record, helpers.vacate, remaining)
        case "lease":
            lease = (record.job or {}).get("JobLeaseDuration")
            if isinstance(lease, int | float) and not isinstance(lease, bool):
                return float(lease)
        case _:
            configured = policy.settings.get(name)
            if configured is not None:
                return float(configured)
    try:
        default = spec.timer(name).default
    except KeyError:
        return None
    return None if default is None else float(default)
