"""A recorded run: the moments a trace produced, rebuilt from the trace and the fired
transitions alone (so the properties judge any machine the same way).

Stage: check. Input: the trace (initial machine ad, job ad, steps) and the list of
`Fired` transitions a machine reported; output: a tuple of `Moment`s, each with the
slot's pair and the machine attributes at that instant. The slot ad is reconstructed
here (sensor values with KeyboardIdle/ConsoleIdle ageing, State, Activity, the Entered*
stamps, JobStart) instead of asking the machine, so that a machine cannot hide a wrong
transition behind a wrong ad.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.check.reference import AGEING, CpuBusyLatch
from runtime.fired import Fired
from runtime.trace import EPOCH, Step


@dataclass(frozen=True, slots=True)
class Moment:
    """The slot at one instant of a run.

    `fired` is set for the moment right after a transition (cascades give several
    moments with the same t); `poll` marks the moment after an evaluation pass (a tick
    step); `step` is the index of the trace step being applied.
    """

    t: float
    step: int
    state: str
    activity: str
    poll: bool
    fired: Fired | None
    machine: tuple[tuple[str, Any], ...]
    job: tuple[tuple[str, Any], ...]
    job_start: float | None
    run_time: float
    entered_state: float
    entered_activity: float
    events: tuple[str, ...]  # events seen so far with their last time: "name@t"

    @property
    def pair(self) -> tuple[str, str]:
        return (self.state, self.activity)

    def ad(self) -> dict[str, Any]:
        out = dict(self.machine)
        out["State"], out["Activity"] = self.state, self.activity
        out["EnteredCurrentState"] = EPOCH + self.entered_state
        out["EnteredCurrentActivity"] = EPOCH + self.entered_activity
        if self.job_start is not None:
            out["JobStart"] = EPOCH + self.job_start
        return out

    def last(self, event: str) -> float | None:
        """Time of the last `event` (or JobStart: the last activation) up to here."""
        if event == "JobStart":
            return self.job_start
        for item in self.events:
            name, _, at = item.rpartition("@")
            if name == event:
                return float(at)
        return None


def record(
    steps: Sequence[Step],
    fired: Sequence[Fired],
    *,
    machine: Mapping[str, Any],
    job: Mapping[str, Any],
    initial: tuple[str, str] = ("Owner", "Idle"),
    idle_ages: bool = True,
    latch: CpuBusyLatch | None = None,
) -> tuple[Moment, ...]:
    """The moments of a run. `fired` must be in order; each transition belongs to the
    step its `step` field names (before the step's own moment), or, when the machine did
    not say (-1), to the first step whose time is >= its own."""
    values = dict(machine)
    set_at: dict[str, float] = {name: 0 for name in values}
    claim_job: dict[str, Any] = {}
    state, activity = initial
    job_start: float | None = None
    run_time: float = 0
    last_t: float = 0
    events: dict[str, float] = {}
    entered: list[float] = [0, 0]
    out: list[Moment] = []
    queue = list(fired)

    def snapshot(t: float) -> tuple[tuple[str, Any], ...]:
        items = {}
        for name, value in values.items():
            if idle_ages and name in AGEING and isinstance(value, int | float):
                value = value + (t - set_at.get(name, 0))
            items[name] = value
        if latch is not None:
            items.update(latch.attrs({**items, "State": state, "Activity": activity}, t))
        return tuple(items.items())

    def advance(t: float) -> None:
        nonlocal run_time, last_t
        if (state, activity) in (
            ("Claimed", "Busy"),
            ("Claimed", "Retiring"),
        ) and job_start is not None:
            run_time += max(0, t - last_t)
        last_t = max(last_t, t)

    def move(fire: Fired) -> None:
        nonlocal state, activity, job_start, run_time
        if fire.target[0] != state:
            entered[0] = fire.t
        if fire.target != (state, activity):
            entered[1] = fire.t
        if fire.source == ("Claimed", "Idle") and fire.target == ("Claimed", "Busy"):
            job_start, run_time = fire.t, 0
        state, activity = fire.target
        if fire.target[0] in ("Owner", "Unclaimed", "Matched") or fire.target == (
            "Claimed",
            "Idle",
        ):
            job_start = None
        if fire.target[0] in ("Owner", "Unclaimed", "Matched"):
            claim_job.clear()

    def moment(t: float, index: int, poll: bool, fire: Fired | None) -> Moment:
        ev = tuple(f"{k}@{v:g}" for k, v in sorted(events.items(), key=lambda kv: -kv[1]))
        return Moment(
            t, index, state, activity, poll, fire, snapshot(t), tuple(claim_job.items()),
            job_start, run_time, entered[0], entered[1], ev,
        )  # fmt: skip

    def mine(fire: Fired, index: int, t: float) -> bool:
        return fire.step == index if fire.step >= 0 else fire.t <= t

    for index, step in enumerate(steps):
        # transitions while the clock advanced (timers), then this step's own
        while (
            queue and mine(queue[0], index, step.t) and (queue[0].advancing or queue[0].t < step.t)
        ):
            fire = queue.pop(0)
            advance(fire.t)
            move(fire)
            out.append(moment(fire.t, index, False, fire))
        advance(step.t)
        match step.kind:
            case "set":
                for name, value in step.values.items():
                    values[name] = value
                    set_at[name] = step.t
            case "set_job":
                claim_job.update(step.values)
            case "event":
                events[step.event or ""] = step.t
                if step.event in ("job_exit", "starter_exit"):
                    job_start = None
                if step.event == "claim" and not claim_job:
                    claim_job.update(dict(step.job) if step.job else dict(job))
        while queue and mine(queue[0], index, step.t):
            fire = queue.pop(0)
            move(fire)
            out.append(moment(fire.t, index, False, fire))
        out.append(moment(step.t, index, step.kind == "tick", None))
    for fire in queue:  # transitions after the last step cannot happen; keep them visible
        move(fire)
        out.append(moment(fire.t, len(steps), False, fire))
    return tuple(out)
