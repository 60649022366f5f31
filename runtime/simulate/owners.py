"""The people at the machines: when an owner types and loads the CPU (issue 15).

Stage: runtime effect (a sensor source). A `Sessions` schedule is a sorted list of
keyboard sessions (start, end) in time(); `OwnerSensors` is the slot's sensors object
(the interface of runtime.sensors.fake.FakeSensors): KeyboardIdle and ConsoleIdle are 0
during a session and count up from its end, LoadAvg is the owner's load during a session
plus the Condor load of a running job, CondorLoadAvg that job's (1.0 while it runs, 0
suspended or gone). Nothing here decides a transition: the slot's table does, when it
next evaluates.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from runtime.sensors.fake import DEFAULTS

DAY = 86_400.0
#: An owner who last typed the evening before the simulation starts.
IDLE_BEFORE = 8 * 3600.0


def office_sessions(
    rng: random.Random,
    epoch: float,
    seconds: float,
    *,
    start_hour: float,
    end_hour: float,
    sessions: float,
    session_minutes: float,
) -> list[tuple[float, float]]:
    """Keyboard sessions of one office worker over `seconds` from `epoch` (time()): on
    weekdays (the epoch's clock, UTC) `sessions` of them (rounded) at uniform random times
    of the working day, exponential lengths of mean `session_minutes`, clipped to the
    day's end and merged where they overlap."""
    out: list[tuple[float, float]] = []
    first_day = math.floor(epoch / DAY)
    last_day = math.floor((epoch + seconds) / DAY)
    count = round(sessions)
    for day in range(first_day, last_day + 1):
        midnight = day * DAY
        weekday = (day + 3) % 7  # 1970-01-01 was a Thursday: 0 = Monday
        begin, end = midnight + start_hour * 3600, midnight + end_hour * 3600
        starts = sorted(rng.uniform(begin, end) for _ in range(count))
        lengths = [rng.expovariate(1.0 / (session_minutes * 60)) for _ in range(count)]
        if weekday >= 5:
            continue  # drawn anyway: the streams stay aligned whatever the calendar
        for start, length in zip(starts, lengths, strict=True):
            stop = min(start + max(length, 60.0), end)
            if out and start <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], stop))
            else:
                out.append((start, stop))
    return out


@dataclass
class OwnerSensors:
    """A slot's sensors in a simulation: the machine's attributes, the owner's sessions
    and whether a job runs (`job_load`, set by the simulated starter)."""

    #: the simulator sets every value itself: the slot does not log what it reads back
    #: (runtime.sensors; the record keeps transitions only)
    scripted: ClassVar[bool] = True
    values: dict[str, Any] = field(default_factory=lambda: dict(DEFAULTS))
    sessions: list[tuple[float, float]] = field(default_factory=list)
    owner_load: float = 0.0
    job_load: float = 0.0
    start: float = 0.0
    idle_ages: bool = True
    notes: list[str] = field(default_factory=list)
    _starts: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._starts = [s for s, _ in self.sessions]

    def set(self, values: Mapping[str, Any], now: float) -> dict[str, Any]:
        """Machine attributes (FakeSensors' interface); returns the ones that changed."""
        changed = {k: v for k, v in values.items() if self.values.get(k) != v}
        self.values.update(values)
        return changed

    def session_at(self, now: float) -> tuple[bool, float]:
        """(in a session, time() the keyboard was last touched)."""
        index = bisect.bisect_right(self._starts, now) - 1
        if index < 0:
            return False, self.start - IDLE_BEFORE
        _begin, end = self.sessions[index]
        if now < end:
            return True, now
        return False, end

    def next_change(self, now: float) -> float | None:
        """time() of the next session start or end after `now` (None: no more)."""
        index = bisect.bisect_right(self._starts, now)
        current = index - 1
        if current >= 0 and now < self.sessions[current][1]:
            return self.sessions[current][1]
        if index < len(self.sessions):
            return self.sessions[index][0]
        return None

    def read(self, now: float) -> dict[str, Any]:
        out = dict(self.values)
        busy, touched = self.session_at(now)
        idle = 0 if busy else int(now - touched)
        out["KeyboardIdle"] = idle
        out["ConsoleIdle"] = idle
        load = (self.owner_load if busy else 0.0) + self.job_load
        out["LoadAvg"] = load
        out["CondorLoadAvg"] = self.job_load
        out["TotalLoadAvg"] = load
        out["TotalCondorLoadAvg"] = self.job_load
        return out
