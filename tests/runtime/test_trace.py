"""Trace files: every problem reported with file:line:col; the `run` command's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.errors import PolicyError, PolicyErrors
from runtime.cli import main
from runtime.trace import TraceError, read_trace

GOOD = """\
era: condor-6.8
config: {START: "True"}
machine: {KeyboardIdle: 34}
expect: [1, 6]
steps:
  - {t: 0, tick: true}
  - {t: 10, event: match}
"""


def test_good_trace_is_read() -> None:
    trace = read_trace("good.yaml", GOOD)
    assert trace.era == "condor-6.8"
    assert trace.config == {"START": "True"}
    assert [s.kind for s in trace.steps] == ["tick", "event"]
    assert trace.steps[1].line == 7
    assert trace.expected("manual") == (1, 6) == trace.expected("code")


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("steps:\n  - {t: 0, evnt: match}\n", 2, 12, "did you mean 'event'"),
        ("steps:\n  - {t: 5, tick: true}\n  - {t: 1, tick: true}\n", 3, 9, "time order"),
        ("steps:\n  - {t: 0, event: mtach}\n", 2, 19, "did you mean 'match'"),
        ("steps:\n  - {t: 0, event: vacate, how: slow}\n", 2, 32, "allowed: graceful, fast"),
        ("era: condor-6.9\nsteps: []\n", 1, 6, "unknown era"),
        ("stpes: []\n", 1, 1, "did you mean 'steps'"),
        ("steps:\n  - {t: -1, tick: true}\n", 2, 9, "t must be"),
        ("steps:\n  - {t: 0, set: 3}\n", 2, 17, "set must be a mapping"),
        ("steps: [\n", 2, 1, "not valid YAML"),
    ],
)
def test_errors_have_positions(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(PolicyError) as info:
        read_trace("bad.yaml", text)
    err = info.value
    first = err.errors[0] if isinstance(err, PolicyErrors) else err
    assert (first.file, first.line, first.column) == ("bad.yaml", line, column), first.format()
    assert message in first.message


def test_all_problems_of_a_file_at_once() -> None:
    text = "polling: sometimes\nsteps:\n  - {t: 0, tick: false}\n  - {t: 1, event: nope}\n"
    with pytest.raises(PolicyErrors) as info:
        read_trace("bad.yaml", text)
    assert len(info.value.errors) == 3
    assert all(isinstance(e, TraceError) for e in info.value.errors)


def test_json_trace(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"steps": [{"t": 0, "tick": True}, {"t": 3, "event": "match"}]}))
    assert [s.event for s in read_trace(path).steps] == [None, "match"]


def test_run_prints_design_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD.replace('START: "True"', 'START: "True", RunBenchmarks: "False"'))
    log = tmp_path / "log.jsonl"
    assert main(["run", "--trace", str(path), "--format", "jsonl", "--log", str(log)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["number"] for x in lines] == [1, 6]
    assert set(lines[0]) == {"t", "number", "letter", "from", "to", "reason"}
    assert lines[1] == {
        "t": 10,
        "number": 6,
        "letter": "C",
        "from": ["Unclaimed", "Idle"],
        "to": ["Matched", "Idle"],
        "reason": "protocol match",
    }
    kinds = [json.loads(x)["kind"] for x in log.read_text().splitlines()]
    assert kinds.count("transition") == 2 and "event" in kinds and "timer" in kinds


def test_run_era_and_semantics_override_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD)
    assert main(["run", "--trace", str(path), "--era", "condor-6.4", "--semantics", "code"]) == 0
    assert "# condor-6.4 (code)" in capsys.readouterr().out


def test_run_reports_a_bad_trace_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("steps:\n  - {t: 0, event: mtach}\n")
    assert main(["run", "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:19:" in err and "mtach" in err


def test_run_reads_condor_config_and_policy_templates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "t.yaml"
    trace.write_text("machine: {KeyboardIdle: 5000}\nsteps:\n  - {t: 0, tick: true}\n")
    config = tmp_path / "condor_config"
    config.write_text("START = False\n")
    monkeypatch.setenv("CONDOR_CONFIG", str(config))
    assert main(["run", "--trace", str(trace), "--era", "condor-6.8"]) == 0
    assert "#1 " not in capsys.readouterr().out  # IsOwner = (START =?= False) holds
    monkeypatch.delenv("CONDOR_CONFIG")
    assert main(["run", "--trace", str(trace), "--era", "condor-6.8"]) == 0
    assert "#1 A: Owner/Idle -> Unclaimed/Idle" in capsys.readouterr().out
    # a template through --policy, the trace's config on top of it
    trace.write_text(
        "config: {START: 'False'}\nmachine: {KeyboardIdle: 5000}\nsteps:\n  - {t: 0, tick: true}\n"
    )
    assert main(["run", "--trace", str(trace), "--policy", "Desktop"]) == 0
    assert "#1 " not in capsys.readouterr().out  # Desktop: IS_OWNER = (START =?= False)


def test_unknown_initial_pair_names_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("initial: {state: Claimed, activity: Sleeping}\nsteps: []\n")
    with pytest.raises(PolicyError, match="Claimed/Sleeping is not a pair") as info:
        main_run(path)
    assert info.value.file == str(path)


def main_run(path: Path) -> None:
    from runtime.trace import replay
    from tests.runtime.support import compiled

    trace = read_trace(path)
    _, table = compiled("htcondor-current", "manual")
    replay(trace, table)


#: Entering Owner re-checks IS_OWNER, entering Unclaimed/Idle evaluates again at once
#: (ResState::enter_action, ResState::change; reference/transitions.md D10), and in 6.8
#: IS_OWNER is START =?= False: a START true only in Owner sends the slot round
#: Owner -> Unclaimed -> Owner within one instant, without end.
ROUND = (
    "Owner/Idle -> Unclaimed/Idle (#1, immediate: !IS_OWNER), "
    "then Unclaimed/Idle -> Owner/Idle (#2, policy: IS_OWNER), again and again"
)


@pytest.mark.parametrize("start_at", [0, 600])
def test_transitions_that_never_settle_are_told_with_their_round_and_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], start_at: int
) -> None:
    """The round the slot goes without end, from the pair it left first, with the time;
    in the trace's file (the run it happened in), exit 2, no traceback. From t=600 on
    (START false until then: the slot stays Owner): at the startd's update evaluation
    then, while the clock runs to the next step."""
    config = tmp_path / "condor_config"
    config.write_text(f'START = State == "Owner" && time() >= {1_000_000_000 + start_at}\n')
    trace = tmp_path / "t.yaml"
    trace.write_text("steps:\n  - {t: 0, tick: true}\n  - {t: 900, tick: true}\n")
    assert main(["run", str(config), "--trace", str(trace), "--era", "condor-6.8"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{trace}" in err and f"transitions do not settle at t={start_at}" in err
    assert ROUND in err
