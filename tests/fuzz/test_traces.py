"""Fuzzing trace files (`condor-policy run --trace`), mutated from tests/scenarios.

Contract (tests/fuzz/support.py): a checked `Trace` or a `TraceError`, never another
exception, for text and for bytes on disk.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from runtime.cli import main
from runtime.trace import read_trace
from tests.fuzz.support import EXPLORE, FAST, holds, mutated_bytes, texts, traces

FOUND = (
    "steps:\n - {t: !!int abc, tick: true}\n",
    "steps:\n  - {t: 0, tick: \x01true}\n",
    "steps:\n  ? [a]\n  : 1\n",
    "steps: " + "[" * 1000,
    "steps: !!python/object:os.system {}\n",
    "",
    "expect: {? [a] : [1]}\nsteps: []\n",
    "steps:\n - {t: 0, event: match, how: [1]}\n",
    "steps:\n  - {t: 1" + "0" * 400 + ", tick: true}\n",
    "steps:\n  - {t: 0, event: 0x" + "f" * 5000 + "}\n",
    "epoch: .nan\nsteps:\n  - {t: .inf, tick: true}\n",
    "machine: {KeyboardIdle: .nan}\nsteps:\n  - {t: 0, tick: true}\n",
    "steps:\n  - {t: 0, set: {KeyboardIdle: -.inf}}\n",
)


@FAST
@given(texts(traces()))
def test_trace_text_never_raises_anything_else(text: str) -> None:
    holds(read_trace, "fuzz.yaml", text)


for _found in FOUND:
    test_trace_text_never_raises_anything_else = example(_found)(
        test_trace_text_never_raises_anything_else
    )


@FAST
@example(b"steps:\n  - {t: 0, event: m\xffatch}\n")
@given(mutated_bytes(traces()))
def test_trace_file_bytes_never_raise_anything_else(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(data)
        holds(read_trace, path)


@pytest.mark.explore
@EXPLORE
@given(st.one_of(texts(traces()), mutated_bytes(traces()).map(lambda b: b.decode("latin-1"))))
def test_traces_explore(text: str) -> None:
    holds(read_trace, "fuzz.yaml", text)


# ---------------------------------------------- well-formed traces with odd values, run

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["True", "1 +", "$(X)", "KeyboardIdle > 5", "undefined", "[a=1]", "{1,2}"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_ATTRS = st.dictionaries(
    st.sampled_from(
        ["KeyboardIdle", "ConsoleIdle", "LoadAvg", "CondorLoadAvg", "Memory", "Owner",
         "ImageSize", "KillSig", "JobUniverse", "Cpus", "x"]
    ),
    _VALUES,
    max_size=4,
)  # fmt: skip
_CONFIG = st.dictionaries(
    st.sampled_from(
        ["START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "RANK", "WANT_SUSPEND",
         "WANT_VACATE", "MaxJobRetirementTime", "MachineMaxVacateTime", "ENABLE_BACKFILL",
         "POLLING_INTERVAL", "IS_OWNER", "CLAIM_WORKLIFE", "MATCH_TIMEOUT"]
    ),
    _VALUES,
    max_size=4,
)  # fmt: skip
_EVENTS = st.sampled_from(
    ["match", "claim", "activate", "job_exit", "starter_exit", "release", "vacate",
     "preempting_claim", "drain", "cancel_drain", "shutdown", "benchmarks_done"]
)  # fmt: skip


@st.composite
def _traces(draw: st.DrawFn) -> dict:
    steps: list[dict] = []
    t = 0
    for _ in range(draw(st.integers(0, 6))):
        t += draw(st.integers(0, 5000))
        kind = draw(st.sampled_from(["tick", "event", "set", "set_job"]))
        if kind == "tick":
            steps.append({"t": t, "tick": True})
        elif kind == "event":
            step = {"t": t, "event": draw(_EVENTS)}
            if draw(st.booleans()):
                step["how"] = draw(st.sampled_from(["graceful", "fast", "peaceful", "x"]))
            if draw(st.booleans()):
                step["job"] = draw(_ATTRS)
            steps.append(step)
        else:
            steps.append({"t": t, kind: draw(_ATTRS) or {"x": 1}})
    trace = {
        "steps": steps,
        "era": draw(st.sampled_from(["htcondor-current", "condor-6.8", "condor-6.4"])),
        "semantics": draw(st.sampled_from(["manual", "code"])),
    }
    for key, values in (("config", _CONFIG), ("machine", _ATTRS), ("job", _ATTRS)):
        if draw(st.booleans()):
            trace[key] = draw(values)
    for key in ("idle_ages", "keepalive"):
        if draw(st.booleans()):
            trace[key] = draw(st.booleans())
    return trace


def _run(trace: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.json"
        path.write_text(json.dumps(trace))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["run", "--trace", str(path)]) in (0, 1, 2)


@settings(FAST, max_examples=25)
@given(_traces())
def test_run_of_odd_traces_never_raises_anything_else(trace: dict) -> None:
    _run(trace)


@pytest.mark.explore
@EXPLORE
@given(_traces())
def test_run_explore(trace: dict) -> None:
    _run(trace)
