"""The slot's timers and periodic evaluation: what is due next, and how long a timer runs.

Stage: runtime. `Schedule` holds the running timers (name -> trace time due) and the
startd's two evaluation timers (reference transitions.md section 3.1, ResMgr.cpp):

* the update timer (`ResMgr::start_update_timer`): one evaluation of every slot at
  start-up (`update_all` is called at once unless UPDATE_OFFSET delays it), then
  `eval_and_update_all` every UPDATE_INTERVAL, whatever the state;
* the polling timer (`ResMgr::start_poll_timer`, `eval_all`): every POLLING_INTERVAL,
  first one interval after it is started; `ResMgr::check_polling`, run after each of
  those evaluations, starts it when a slot needs polling (`ResMgr::needsPolling`: the
  era's fast states) or the Condor load is positive, and cancels it otherwise.

`Schedule.next_due` picks what comes first: a timer, then the update, then the polling
evaluation. `timer_seconds` is the length a `start_timer` action gives a timer:
MachineMaxVacateTime from the job and the retirement left (Resource::evalMaxVacateTime),
the lease from the job's JobLeaseDuration, the others from the compiled settings
(MATCH_TIMEOUT, KILLING_TIMEOUT), else the spec's default. No clock is read here: times
are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compiler.spec import EraSpec, Pair
from runtime.ads import PolicyExprs, SlotState, max_vacate_time, retirement_remaining

#: `Schedule.next_due`'s names for the two evaluation timers.
UPDATE = "UPDATE_INTERVAL"
POLL = "POLLING_INTERVAL"


@dataclass(slots=True)
class Schedule:
    """Running timers, the evaluation timers and the last evaluation pass, in trace time
    (`clock.elapsed()`); `update_due`/`poll_due` None: that evaluation timer is off."""

    due: dict[str, float] = field(default_factory=dict)
    last_eval: float | None = None
    update_due: float | None = None
    poll_due: float | None = None

    def start(self, name: str, at: float) -> None:
        self.due[name] = at

    def cancel(self, name: str) -> bool:
        """Stop `name`; True when it was running."""
        return self.due.pop(name, None) is not None

    def next_due(self) -> tuple[float | None, str]:
        """(time, what) of the next timer or evaluation (`UPDATE`, `POLL`); at one instant
        the timers come first, then the update, then the polling evaluation; (None, "")
        when nothing is scheduled."""
        best: float | None = None
        what = ""
        for name, due in self.due.items():
            if best is None or due < best:
                best, what = due, name
        for name, periodic in ((UPDATE, self.update_due), (POLL, self.poll_due)):
            if periodic is not None and (best is None or periodic < best):
                best, what = periodic, name
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
