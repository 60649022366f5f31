"""Sensors: where a slot's measured machine attributes come from.

Stage: runtime. A sensor object has `read(now) -> dict[str, value]` (LoadAvg,
CondorLoadAvg, TotalLoadAvg, KeyboardIdle, ConsoleIdle, Memory, Disk, Cpus, ...) and
`notes` (problems said once, e.g. "no keyboard: using the startd's fallback").
`fake.FakeSensors` is driven by a trace (DESIGN.md trace format); `real.RealSensors`
measures this Linux host with psutil and /proc. A sensor object whose values its driver
sets itself (a trace, a simulated owner) may say so with a true `scripted` attribute:
the slot then does not log the changes it reads (its driver knows them already) and
keeps the dict `read` returns (a new one each time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Sensors(Protocol):
    notes: list[str]

    def read(self, now: float) -> Mapping[str, Any]: ...
