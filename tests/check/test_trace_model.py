"""One trace model: what `check` writes is what `run` reads.

Every scenario trace written back with `dump_trace` reads as the same trace, and replays
to the same transitions; a generated trace (the checker's input) is the same model and
survives the same round trip.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from compiler.spec import load_spec
from runtime.check.generate import traces
from runtime.trace import Trace, dump_trace, read_trace, replay
from tests.runtime.support import compiled, scenario_files

SCENARIOS = scenario_files()


def again(trace: Trace) -> Trace:
    return read_trace(trace.file, dump_trace(trace))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_written_scenario_reads_back_as_the_same_trace(path: Path) -> None:
    trace = read_trace(path)
    copy = again(trace)
    assert copy.to_dict() == trace.to_dict()
    assert [(s.t, s.kind, s.event, s.how, s.job, dict(s.values)) for s in copy.steps] == [
        (s.t, s.kind, s.event, s.how, s.job, dict(s.values)) for s in trace.steps
    ]


@pytest.mark.parametrize("path", SCENARIOS[::4], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_written_scenario_replays_identically(path: Path) -> None:
    trace = read_trace(path)
    _config, table = compiled(
        trace.era or "htcondor-current", "code", tuple(sorted(trace.config.items()))
    )
    first = replay(trace, table).fired
    second = replay(again(trace), table).fired
    assert [f.to_json() for f in first] == [f.to_json() for f in second]


@settings(max_examples=25, deadline=None)
@given(traces(load_spec("htcondor-current", "code"), {"START": "KeyboardIdle > 900"}))
def test_a_generated_trace_is_a_trace_file(trace: Trace) -> None:
    copy = again(trace)
    assert copy.to_dict() == trace.to_dict()
    assert copy.polling == "explicit" and copy.era == "htcondor-current"
