"""The runtime stage: run compiled tables (slots, sensors, clocks, jobs) and the CLI.

Imports `compiler`; `compiler` never imports `runtime`. `runtime.Slot` (DESIGN.md) is
imported lazily so that `condor-policy --help` does not pay for the state machine.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Slot"]


def __getattr__(name: str) -> Any:
    if name == "Slot":
        from runtime.slot import Slot

        return Slot
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")
