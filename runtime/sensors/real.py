"""This Linux host's load and keyboard, measured the way the startd does (psutil and /proc).

Stage: runtime input. `RealSensors.read(now)` returns the machine attributes a policy
uses: TotalLoadAvg (the 1-minute system load), CondorLoadAvg (the CPU use of the job's
process tree, smoothed like a load average), LoadAvg (per slot, by the seed 002 rule
`assign_loads`; on a one-slot machine the system load), TotalCondorLoadAvg, KeyboardIdle
(the newest access of any tty, pseudo-terminal or input device, and /proc/interrupts
keyboard/mouse counts), ConsoleIdle (the console devices and /proc/interrupts only),
Memory (MiB), Disk (free KiB in the execute directory), Cpus, ClockMin, ClockDay (local
time). A sensor that cannot be read is said once in `notes`, and the startd's fallback
is used: a machine with no keyboard or console reports idle time since the startd (here:
the watcher) started plus DISCONNECTED_KEYBOARD_IDLE_BOOST (1200 s).
"""

from __future__ import annotations

import contextlib
import glob
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psutil

#: Default of DISCONNECTED_KEYBOARD_IDLE_BOOST (seconds).
IDLE_BOOST = 1200
#: Time constant of the smoothed Condor load (a 1-minute load average).
LOAD_WINDOW = 60.0
TTY_GLOBS = ("/dev/tty[0-9]*", "/dev/pts/[0-9]*", "/dev/input/event*", "/dev/input/mice")
CONSOLE_GLOBS = ("/dev/console", "/dev/input/event*", "/dev/input/mice")
#: /proc/interrupts lines that count keyboard or mouse activity.
INPUT_IRQ_WORDS = ("i8042", "keyboard", "mouse", "PS/2")


def assign_loads(total: float, condor: Sequence[float], owner_first: Sequence[bool]) -> list[float]:
    """Per-slot LoadAvg (seed 002, "Load Average for Multi-core Machines").

    Each slot first gets its own Condor load; what is left of the system load is owner
    load, handed out in increments of at most 1.0: first to the slots in the Owner state,
    then to the other slots without Condor load; when every such slot has had its 1.0,
    the rest goes to the slots running Condor jobs, 1.0 at a time and round again, which
    is how a slot ends up above 1.0. Slots reached after the load ran out get none.
    """
    loads = [float(c) for c in condor]
    left = max(0.0, total - sum(loads))
    n = len(loads)
    owners = [i for i in range(n) if owner_first[i]]
    idle = [i for i in range(n) if not owner_first[i] and loads[i] == 0]
    busy = [i for i in range(n) if not owner_first[i] and loads[i] != 0]
    for i in owners + idle:
        share = min(1.0, left)
        loads[i] += share
        left -= share
    again = busy or owners + idle
    while left > 1e-9 and again:
        for i in again:
            share = min(1.0, left)
            loads[i] += share
            left -= share
            if left <= 1e-9:
                break
    return loads


def _idle_since(paths: list[str], now: float) -> float | None:
    newest = None
    for path in paths:
        with contextlib.suppress(OSError):
            atime = os.stat(path).st_atime
            newest = atime if newest is None else max(newest, atime)
    return None if newest is None else max(0.0, now - newest)


def _interrupt_count() -> int | None:
    try:
        with open("/proc/interrupts", encoding="ascii", errors="replace") as stream:
            lines = stream.readlines()
    except OSError:
        return None
    total = 0
    found = False
    for line in lines:
        if any(word in line for word in INPUT_IRQ_WORDS):
            found = True
            for field_ in line.split()[1:]:
                if field_.isdigit():
                    total += int(field_)
    return total if found else None


@dataclass(slots=True)
class RealSensors:
    """Measures this host; `job_cpu` returns the job tree's CPU seconds (0 without a job)."""

    job_cpu: Callable[[], float] = lambda: 0.0
    execute_dir: str = field(default_factory=tempfile.gettempdir)
    started: float = field(default_factory=time.time)
    notes: list[str] = field(default_factory=list)
    owner_state: Callable[[], bool] = lambda: False
    _said: set[str] = field(default_factory=set)
    _irq: int | None = None
    _irq_time: float | None = None
    _cpu: tuple[float, float] | None = None
    _condor_load: float = 0.0

    def read(self, now: float) -> dict[str, Any]:
        total = os.getloadavg()[0]
        condor = self._condor(now)
        local = time.localtime(now)
        values: dict[str, Any] = {
            "TotalLoadAvg": round(total, 3),
            "TotalCondorLoadAvg": round(condor, 3),
            "CondorLoadAvg": round(condor, 3),
            "LoadAvg": round(assign_loads(total, [condor], [self.owner_state()])[0], 3),
            "Cpus": os.cpu_count() or 1,
            "TotalCpus": os.cpu_count() or 1,
            "Memory": psutil.virtual_memory().total // (1024 * 1024),
            "Disk": self._disk(),
            "ClockMin": local.tm_hour * 60 + local.tm_min,
            "ClockDay": (local.tm_wday + 1) % 7,
        }
        values.update(self._idle(now))
        return values

    # -- pieces --------------------------------------------------------------------------
    def _say(self, key: str, text: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self.notes.append(text)

    def _condor(self, now: float) -> float:
        cpu = self.job_cpu()
        if self._cpu is not None:
            last_cpu, last_t = self._cpu
            dt = now - last_t
            if dt > 0:
                busy = max(0.0, cpu - last_cpu) / dt if cpu >= last_cpu else 0.0
                decay = math.exp(-dt / LOAD_WINDOW)
                self._condor_load = self._condor_load * decay + busy * (1 - decay)
        self._cpu = (cpu, now)
        return self._condor_load

    def _disk(self) -> int:
        try:
            return shutil.disk_usage(self.execute_dir).free // 1024
        except OSError:
            self._say("disk", f"Disk: cannot read {self.execute_dir}; reporting 0")
            return 0

    def _idle(self, now: float) -> dict[str, int]:
        irq = _interrupt_count()
        if irq is not None and irq != self._irq:
            if self._irq is not None:
                self._irq_time = now
            self._irq = irq
        irq_idle = None if self._irq_time is None else now - self._irq_time
        fallback = now - self.started + IDLE_BOOST
        ttys = [p for g in TTY_GLOBS for p in glob.glob(g)]
        keyboard = _idle_since(ttys, now)
        console = _idle_since([p for g in CONSOLE_GLOBS for p in glob.glob(g)], now)
        candidates = [v for v in (keyboard, console, irq_idle) if v is not None]
        if not candidates:
            self._say(
                "keyboard",
                "KeyboardIdle: no readable tty, input device or /proc/interrupts keyboard "
                f"line; using idle time since start + {IDLE_BOOST} s (the startd's fallback)",
            )
            kbd = fallback
        else:
            kbd = min(candidates)
        console_candidates = [v for v in (console, irq_idle) if v is not None]
        if not console_candidates:
            self._say(
                "console",
                "ConsoleIdle: no console device; using idle time since start + "
                f"{IDLE_BOOST} s (the startd's fallback)",
            )
            con = fallback
        else:
            con = min(console_candidates)
        return {"KeyboardIdle": int(min(kbd, con)), "ConsoleIdle": int(con)}
