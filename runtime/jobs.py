"""A real job process controlled the way a starter does: start, suspend, continue, vacate, kill.

Stage: runtime effect. `JobProcess(argv)` implements the slot's `JobControl`: `start(ad)`
spawns the command in its own session and process group (so every descendant gets the
signals), `signal(kind)` maps the spec's `signal_job` argument to signals sent to the
whole group: suspend -> SIGSTOP, continue -> SIGCONT, soft_kill -> the job ad's KillSig
(default SIGTERM) preceded by SIGCONT so that a stopped job can act on it, hard_kill ->
SIGKILL. `poll()` reaps the job and returns its exit status once it is gone;
`kill_all()` SIGKILLs the group and reaps it (used on Ctrl-C, on SIGTERM to the watcher
and by test finalizers), so nothing is left running. `tree_cpu_seconds()` gives the CPU
time of the job's process tree for CondorLoadAvg.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from signal import Signals
from typing import Any

import psutil

from compiler.errors import PolicyError

#: The spec's signal_job arguments and the signals a starter sends for them.
SIGNALS: dict[str, signal.Signals] = {
    "suspend": signal.SIGSTOP,
    "continue": signal.SIGCONT,
    "soft_kill": signal.SIGTERM,
    "hard_kill": signal.SIGKILL,
}


def kill_signal(job: Mapping[str, Any]) -> signal.Signals:
    """The job's soft-kill signal: KillSig ("SIGINT", "INT", 2), else SIGTERM."""
    value = next((v for k, v in job.items() if k.lower() == "killsig"), None)
    if value is None:
        return signal.SIGTERM
    try:
        if isinstance(value, int) and not isinstance(value, bool):
            return signal.Signals(value)
        name = str(value).strip().upper()
        if name.isdigit():
            return signal.Signals(int(name))
        if not name.startswith("SIG"):
            name = "SIG" + name
        return signal.Signals[name]
    except (KeyError, ValueError):
        raise PolicyError(f"job ad: unknown KillSig {value!r}") from None


def _check_program(program: str, cwd: str | None) -> None:
    """Refuse, before the slot runs, a job command that could never start: one not on
    PATH, or a path that is missing, not a file or not executable (what execvp needs)."""
    if "/" not in program:
        if shutil.which(program) is None:
            raise PolicyError(
                f"job command {program!r} not found on PATH (or not executable)", file="--job"
            )
        return
    path = Path(program) if cwd is None else Path(cwd) / program
    if not path.exists():
        raise PolicyError(f"job command {program!r}: no such file", file="--job")
    if not path.is_file():
        raise PolicyError(f"job command {program!r} is not a file", file="--job")
    if not os.access(path, os.X_OK):
        raise PolicyError(f"job command {program!r} is not executable", file="--job")


class JobProcess:
    """One job command run in its own process group."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        listener: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        if not argv:
            raise PolicyError("a job needs a command", file="--job")
        self.argv = list(argv)
        self.cwd = cwd
        _check_program(self.argv[0], cwd)
        self.listener = listener
        self.proc: subprocess.Popen[bytes] | None = None
        self.pgid: int | None = None
        self.soft_signal = signal.SIGTERM
        self.returncode: int | None = None
        self.signals: list[str] = []

    # -- JobControl ------------------------------------------------------------------
    def start(self, job: Mapping[str, Any]) -> None:
        if self.running:
            return
        self.soft_signal = kill_signal(job)
        self.returncode = None
        try:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as err:  # removed or made unreadable since the check
            raise PolicyError(
                f"cannot start the job {self.argv[0]!r}: {err.strerror or err}", file="--job"
            ) from None
        self.pgid = self.proc.pid
        self._note("start", pid=self.proc.pid)

    def signal(self, kind: str) -> None:
        if kind not in SIGNALS:
            raise ValueError(f"unknown job signal {kind!r}")
        sig = self.soft_signal if kind == "soft_kill" else SIGNALS[kind]
        if kind == "soft_kill":
            self._send(signal.SIGCONT)
        self._send(sig)
        self.signals.append(kind)
        self._note(kind, signal=sig.name)

    # -- state -------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.poll() is None

    def poll(self) -> int | None:
        """None while the job runs; its exit status (negative: killed by a signal) after."""
        if self.proc is None:
            return self.returncode
        code = self.proc.poll()
        if code is not None and self.returncode is None:
            self.returncode = code
            self._note("exit", status=code)
        return code

    def tree_cpu_seconds(self) -> float:
        """User+system CPU seconds of the job and its live descendants."""
        if self.proc is None or self.poll() is not None:
            return 0.0
        total = 0.0
        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0.0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    def group_members(self) -> list[int]:
        """Pids still in the job's process group (for tests and the final check)."""
        if self.pgid is None:
            return []
        found = []
        for proc in psutil.process_iter(["pid"]):
            with contextlib.suppress(psutil.Error):
                if os.getpgid(proc.info["pid"]) == self.pgid:
                    found.append(proc.info["pid"])
        return found

    def kill_all(self, timeout: float = 5.0) -> None:
        """SIGKILL the whole group (even if the leader is gone) and reap the leader."""
        if self.pgid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=timeout)
            self.poll()

    # -- helpers -------------------------------------------------------------------------
    def _send(self, sig: Signals) -> None:
        if self.pgid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def _note(self, op: str, **extra: Any) -> None:
        if self.listener is not None:
            self.listener({"kind": "job", "op": op, **extra})
