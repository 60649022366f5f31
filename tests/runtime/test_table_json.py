"""A compiled table written as JSON and read back runs identically (issue 10: what the
simulator ships to its workers).

For every scenario under tests/scenarios (every era; one semantics per scenario in the
README run, turned by its place, both under `-m explore`), the table is
compiled exactly as `condor-policy run` compiles it (the era's configuration, the
trace's `config:` on top), then the trace is replayed through `Slot(table)` and through
`Slot(StateTable.from_json(table.to_json()))`: the fired records (`run --format jsonl`)
and the whole event log must be equal. Fired records are compared with the scenario's
hand-written `expect:` elsewhere (test_scenarios.py); here the original table is the
reference, so a field lost on the way (a guard, a knob, a setting) shows as a difference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.classad import UNDEFINED
from compiler.config import load_config
from compiler.policy import compile_policy
from compiler.table import JSON_SCHEMA_VERSION, StateTable
from runtime.trace import replay
from tests.runtime.support import compiled, gate_cases, load, scenario_files

#: Each scenario once in the README run, both semantics under `-m explore`.
CASES = gate_cases(
    [
        pytest.param(path, semantics, id=f"{path.parent.name}/{path.stem}/{semantics}")
        for path in scenario_files()
        for semantics in ("manual", "code")
    ]
)


def _run(trace: Any, table: StateTable) -> tuple[list[str], list[dict[str, Any]]]:
    log: list[dict[str, Any]] = []
    slot = replay(trace, table, listener=log.append)
    return [json.dumps(f.to_json()) for f in slot.fired], log


@pytest.mark.parametrize(("path", "semantics"), CASES)
def test_a_table_read_back_from_json_runs_identically(path: Path, semantics: str) -> None:
    trace = load(path)
    _, table = compiled(
        trace.era or "htcondor-current", semantics, tuple(sorted(trace.config.items()))
    )
    text = table.to_json()
    again = StateTable.from_json(text)
    assert again.to_json() == text  # nothing is lost or added on the way
    assert again.program == table.program
    fired, log = _run(trace, table)
    fired_again, log_again = _run(trace, again)
    assert fired_again == fired
    assert log_again == log
    assert log  # the scenario does something (some fire nothing, on purpose)


def test_round_trip_keeps_statuses_warnings_assumptions_and_source() -> None:
    config = load_config(
        era="htcondor-current",
        text="START = KeyboardIdle > 600 && TARGET.ImageSize < 100\nIS_OWNER =\n"
        "CLAIM_WORKLIFE =\nPREEMPT_VANILLA = LoadAvg > 2\n",
    )
    table = compile_policy(
        config,
        era="htcondor-current",
        semantics="code",
        assume={"KeyboardIdle": 10**9, "Memory": UNDEFINED, "Arch": "X86_64", "Cpus": 2.5},
        source="a policy for the test",
    )
    again = StateTable.from_json(table.to_json())
    assert again.source == "a policy for the test"
    assert again.warnings == table.warnings and table.warnings  # IS_OWNER empty is fatal
    assert again.assumptions == table.assumptions
    assert dict(again.assumptions)["Memory"] is UNDEFINED
    assert again.policy_values == table.policy_values
    assert again.program.knob("IS_OWNER").source == "empty"
    assert again.program.knob("PREEMPT_VANILLA").source == "config"
    assert again.program.settings.claim_worklife is None
    for a, b in zip(table.rows, again.rows, strict=True):
        assert (a.id, a.status, a.policy_status, a.minimised) == (
            b.id,
            b.status,
            b.policy_status,
            b.minimised,
        )
        assert a.guard == b.guard and a.triggers == b.triggers and a.choices == b.choices


def test_the_documented_keys_stay() -> None:
    """DESIGN.md / docs/state-table-json.md: the schema only grows."""
    _, table = compiled("condor-6.8", "manual")
    data = json.loads(table.to_json())
    assert data["schema"] == JSON_SCHEMA_VERSION
    assert {"era", "semantics", "source", "assumptions", "warnings", "rows"} <= set(data)
    keys = {"number", "letter", "from", "to", "trigger", "guard", "simplified", "status"}
    assert all(keys | {"citation"} <= set(row) for row in data["rows"])


def test_another_schema_is_refused() -> None:
    _, table = compiled("condor-6.4", "manual")
    data = json.loads(table.to_json())
    data["schema"] = 1
    with pytest.raises(ValueError, match="schema"):
        StateTable.from_json(json.dumps(data))


@pytest.mark.parametrize(
    "text",
    ["[]", '{"schema": 2}', '{"schema": 2, "era": "condor-6.4", "semantics": "manual"}'],
)
def test_what_is_not_a_table_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        StateTable.from_json(text)


def test_an_unparsable_guard_is_a_value_error() -> None:
    _, table = compiled("condor-6.4", "manual")
    data = json.loads(table.to_json())
    guard = next(g for g in data["rows"][0]["compiled"]["triggers"] if g is not None)
    guard["simplified"] = "((("
    with pytest.raises(ValueError, match="does not parse"):
        StateTable.from_json(json.dumps(data))
