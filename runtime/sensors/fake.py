"""Scripted sensors: machine attributes set by a trace, idle times counting up with the clock.

Stage: runtime. `set(values, now)` records new values (a trace's `machine:` and `set:`
steps); `read(now)` returns them, with KeyboardIdle and ConsoleIdle grown by the seconds
elapsed since they were last set when `idle_ages` (the trace default): the owner who
stops typing at t=0 with KeyboardIdle 34 has KeyboardIdle 934 at t=900.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

#: Attributes that count up with the clock (seconds of idleness).
IDLE_ATTRIBUTES = ("KeyboardIdle", "ConsoleIdle")

#: What an idle one-core desktop reports when the trace says nothing.
DEFAULTS: dict[str, Any] = {
    "LoadAvg": 0.0,
    "CondorLoadAvg": 0.0,
    "TotalLoadAvg": 0.0,
    "TotalCondorLoadAvg": 0.0,
    "KeyboardIdle": 0,
    "ConsoleIdle": 0,
    "Cpus": 1,
    "TotalCpus": 1,
    "Memory": 2048,
    "Disk": 10_000_000,
    "VirtualMemory": 4_000_000,
    "Arch": "X86_64",
    "OpSys": "LINUX",
    "Mips": 1000,
    "KFlops": 100000,
}


@dataclass(slots=True)
class FakeSensors:
    """Trace-driven machine attributes."""

    #: the trace sets every value (`set` returns the changes, the trace step logs them)
    scripted: ClassVar[bool] = True
    values: dict[str, Any] = field(default_factory=lambda: dict(DEFAULTS))
    idle_ages: bool = True
    set_at: dict[str, float] = field(default_factory=dict)
    start: float = 1_000_000_000.0
    notes: list[str] = field(default_factory=list)

    def set(self, values: Mapping[str, Any], now: float) -> dict[str, Any]:
        """Record new values at `now`; returns the ones that changed."""
        changed: dict[str, Any] = {}
        for name, value in values.items():
            key = next((k for k in self.values if k.lower() == name.lower()), name)
            if self.values.get(key) != value or key in IDLE_ATTRIBUTES:
                changed[key] = value
            self.values[key] = value
            self.set_at[key] = now
        return changed

    def read(self, now: float) -> dict[str, Any]:
        out = dict(self.values)
        if self.idle_ages:
            for name in IDLE_ATTRIBUTES:
                value = out.get(name)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    out[name] = int(value + max(0.0, now - self.set_at.get(name, self.start)))
        return out
