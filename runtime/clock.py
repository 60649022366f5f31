"""Clocks for the runtime: simulated (trace replay, as fast as the CPU allows) and wall.

Stage: runtime. A slot never reads `time.time()` itself: it asks its clock, so a trace
replays a day in well under a second and a test never sleeps. `now()` is epoch seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(slots=True)
class SimClock:
    """A clock that only moves when told to (`advance_to`); never goes backwards."""

    epoch: float = 1_000_000_000.0
    offset: float = 0.0

    def now(self) -> float:
        return self.epoch + self.offset

    def elapsed(self) -> float:
        """Seconds since the epoch of the trace (the trace's `t`)."""
        return self.offset

    def advance_to(self, t: float) -> None:
        """Move to trace time `t` (seconds after `epoch`); earlier times are ignored."""
        if t > self.offset:
            self.offset = t

    def sleep_until(self, t: float) -> None:
        self.advance_to(t)


@dataclass(slots=True)
class WallClock:
    """The real clock; `t` is seconds since the clock was created."""

    start: float = 0.0

    def __post_init__(self) -> None:
        if not self.start:
            self.start = time.time()

    def now(self) -> float:
        return time.time()

    def elapsed(self) -> float:
        return time.time() - self.start

    def advance_to(self, t: float) -> None:
        """A wall clock cannot be moved; this just waits (see `sleep_until`)."""
        self.sleep_until(t)

    def sleep_until(self, t: float) -> None:
        delay = self.start + t - time.time()
        if delay > 0:
            time.sleep(delay)
