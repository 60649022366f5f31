"""`condor-policy check`: exit codes, text and JSON output, counterexample traces that
`condor-policy run` replays to the same numbered path, positioned property errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from runtime.cli import main


@pytest.fixture
def desktop(tmp_path: Path) -> Path:
    path = tmp_path / "desktop.config"
    path.write_text("use POLICY : Desktop\n")
    return path


def test_static_only_default_policy_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--static-only"]) == 0
    out = capsys.readouterr().out
    assert "Static analysis: 0 violations, 0 errors" in out
    assert "always-transition" in out  # IS_OWNER = False: Owner is left at once


def test_error_finding_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "bad.config"
    config.write_text("START = TARGET.Owner == UNDEFINED\n")
    assert main(["check", str(config), "--static-only"]) == 1
    assert "undefined-equality" in capsys.readouterr().out


def test_violation_prints_a_replayable_trace(
    desktop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "props.txt"
    props.write_text("# a running job is a violation here\nnever: Claimed/Busy\n")
    out_dir = tmp_path / "cx"
    status = main(["check", str(desktop), "--properties", str(props), "--max-examples", "40",
                   "--format", "json", "--counterexamples", str(out_dir)])  # fmt: skip
    assert status == 1
    report = json.loads(capsys.readouterr().out)
    (violated,) = [v for v in report["dynamic"]["violated"] if v["property"].startswith("line 2")]
    assert violated["path"][-1].split()[1] == "11"  # activate: Claimed/Idle -> Claimed/Busy
    trace_file = out_dir / "1.yaml"
    assert yaml.safe_load(trace_file.read_text()) == violated["trace"]
    # the trace replays to the same numbered path
    assert main(["run", str(desktop), "--trace", str(trace_file), "--format", "jsonl"]) == 0
    replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [str(r["number"]) for r in replayed] == [p.split()[1] for p in violated["path"]]


def test_diagram_highlights_the_counterexample(
    desktop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "props.txt"
    props.write_text("never: Claimed/Busy\n")
    figure = tmp_path / "path.dot"
    assert main(["check", str(desktop), "--properties", str(props), "--max-examples", "30",
                 "--diagram", str(figure)]) == 1  # fmt: skip
    dot = figure.read_text()
    assert "digraph" in dot
    assert "FAIL line 1: never: Claimed/Busy" in capsys.readouterr().out


def test_holding_properties_exit_0(
    desktop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "props.txt"
    props.write_text("never: Backfill\n")  # no backfill system configured
    assert main(["check", str(desktop), "--properties", str(props), "--max-examples", "30"]) == 0
    out = capsys.readouterr().out
    assert "ok   line 1: never: Backfill" in out
    assert "Coverage:" in out


def test_bad_properties_file_exits_2_with_position(
    desktop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "props.txt"
    props.write_text("never: Claimed/Busy\nalways: Claimed/Bsy => leaves Busy within 2 polls\n")
    assert main(["check", str(desktop), "--properties", str(props)]) == 2
    err = capsys.readouterr().err
    assert f"{props}:2:17: unknown activity 'Bsy'" in err
    assert "^" in err


def test_missing_inputs_exit_2(tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "nope.config")]) == 2
    assert main(["check", "--static-only", "--properties", str(tmp_path / "nope.txt")]) == 2
