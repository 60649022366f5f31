"""Fuzzing trace files (`condor-policy run --trace`), mutated from tests/scenarios.

Contract (tests/fuzz/support.py): a checked `Trace` or a `TraceError`, never another
exception, for text and for bytes on disk.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

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
