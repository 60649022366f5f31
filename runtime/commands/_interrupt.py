"""Ctrl-C held back while a command writes what it already has.

`simulate` and `sweep` stop at Ctrl-C and write what they simulated so far. A Ctrl-C
that comes once the work is over, while the files are being written, would leave them
cut short: what was simulated lost after all. `held_back()` defers SIGINT for its block;
the caller learns whether one came (`Held.interrupted`) and says so after the files
are whole.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType


@dataclass
class Held:
    """Whether a SIGINT came while held back."""

    interrupted: bool = False


@contextmanager
def held_back() -> Iterator[Held]:
    """SIGINT deferred for the block (only the main thread can take signals; elsewhere
    the block runs as it is)."""
    held = Held()
    if threading.current_thread() is not threading.main_thread():
        yield held
        return

    def note(signum: int, frame: FrameType | None) -> None:
        held.interrupted = True

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)
