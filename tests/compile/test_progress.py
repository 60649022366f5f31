"""`condor-policy compile`'s progress spinner: shown on a terminal once a compile runs past
its delay, never on a pipe or for JSON output, never for a compile that ends in time."""

from __future__ import annotations

import io
import threading
import time

import pytest

from runtime.cli import main
from runtime.commands import compile as compile_command
from runtime.commands.compile import progress


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal and records what rich writes to it."""

    def isatty(self) -> bool:
        return True


def _wait_for_output(stream: io.StringIO, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_slow_compile_on_a_terminal_shows_the_message() -> None:
    stream = _Terminal()
    with progress("compiling the test policy", fmt="table", stream=stream, after=0.0):
        _wait_for_output(stream)
    assert "compiling the test policy" in stream.getvalue()


def test_a_compile_that_ends_in_time_shows_nothing() -> None:
    stream = _Terminal()
    with progress("compiling", fmt="table", stream=stream, after=60.0):
        pass
    time.sleep(0.05)
    assert stream.getvalue() == ""
    assert not any(isinstance(t, threading.Timer) and t.is_alive() for t in threading.enumerate())


@pytest.mark.parametrize(("stream", "fmt"), [(io.StringIO(), "table"), (_Terminal(), "json")])
def test_nothing_on_a_pipe_or_for_json(stream: io.StringIO, fmt: str) -> None:
    with progress("compiling", fmt=fmt, stream=stream, after=0.0):
        time.sleep(0.3)
    assert stream.getvalue() == ""


def test_the_command_is_silent_on_stderr_when_it_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)
    monkeypatch.setattr(compile_command, "PROGRESS_AFTER", 0.0)
    assert main(["compile", "--era", "condor-6.8", "--format", "csv"]) == 0
    _, err = capsys.readouterr()
    assert err == ""
