"""`condor-policy compile`: formats, CONFIG/CONDOR_CONFIG, --policy, --assume, --differences."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from runtime.cli import main
from runtime.commands.compile import parse_assumption

FIXTURES = Path(__file__).parent / "fixtures"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["compile", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _no_condor_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)


def test_default_rich_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["--era", "condor-6.8"], capsys)
    assert code == 0
    assert "Owner/Idle" in out and "Claimed/Suspended" in out and "dead" in out


def test_json_csv_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    # The manual's table of 6.4: its 20 rows (the code semantics adds the code-only ones).
    argv = ["--format", "json", "--era", "condor-6.4", "--semantics", "manual"]
    code, out, _ = _run(argv, capsys)
    data = json.loads(out)
    assert code == 0 and data["era"] == "condor-6.4" and len(data["rows"]) == 20
    code, out, _ = _run(["--format", "csv"], capsys)
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:2] == ["number", "letter"] and len(rows) > 37
    code, out, _ = _run(["--format", "md", "--policy", "Desktop"], capsys)
    assert out.startswith("# State table") and "| 13 |" in out


def test_condor_config_is_honoured(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONDOR_CONFIG", str(FIXTURES / "cur-time-of-day.config"))
    code, out, _ = _run(["--format", "json", "--semantics", "manual"], capsys)
    data = json.loads(out)
    assert code == 0 and "ClockMin" in data["rows"][7]["simplified"]


def test_config_directory_of_fragments(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "00-policy").write_text("use POLICY : Desktop\n")
    (tmp_path / "10-local").write_text("KILL = True\n")
    code, out, _ = _run([str(tmp_path), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert next(r for r in data["rows"] if r["number"] == 21)["status"] == "always"


def test_policy_typo_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["--policy", "desktp"], capsys)
    assert code == 2 and "Desktop" in err


@pytest.mark.parametrize("bad", ["KeyboardIdle", "KeyboardIdle=", "Keyboard Idle=1", "X=1+2"])
def test_bad_assume_exits_2(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    code, _, err = _run(["--assume", bad], capsys)
    assert code == 2 and "--assume" in err


def test_assume_literals() -> None:
    assert parse_assumption("KeyboardIdle=1e9") == ("KeyboardIdle", 1e9)
    assert parse_assumption('TARGET.Owner="coltrane"') == ("TARGET.Owner", "coltrane")
    assert parse_assumption("x = -3") == ("x", -3)
    assert parse_assumption("IsDesktop=true") == ("IsDesktop", True)


def test_assume_unknown_attribute_warns_with_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _run(["--assume", "KeybordIdle=5", "--format", "csv"], capsys)
    assert code == 0 and "KeyboardIdle" in err


def test_assume_changes_the_residual(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(["--policy", "Desktop", "--format", "json"], capsys)
    before = json.loads(out)["rows"][1]["simplified"]
    _, out, _ = _run(
        ["--policy", "Desktop", "--format", "json", "--assume", "KeyboardIdle=1e9"], capsys
    )
    after = json.loads(out)["rows"][1]["simplified"]
    assert "KeyboardIdle" in before and "KeyboardIdle" not in after


def test_differences(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["--differences", "--format", "json", "--policy", "Desktop"], capsys)
    data = json.loads(out)
    items = {d["item"]: d for d in data["differences"]}
    assert code == 0 and items["8"]["D"] == "D1" and "16" in items
    code, out, _ = _run(["--differences"], capsys)
    assert code == 0 and "D3" in out


def test_warnings_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # Manual reading: SUSPEND is evaluated locally, so IsSuspendableJob (a job
    # attribute the slot ad does not hold) is UNDEFINED there, with a warning.
    argv = [str(FIXTURES / "cur-suspension.config"), "--format", "json", "--semantics", "manual"]
    code, out, err = _run(argv, capsys)
    assert code == 0 and "IsSuspendableJob" in err and "warning" in err
    json.loads(out)


def test_code_semantics_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    """Admins ask what their startd does (DESIGN.md): no --semantics means the code."""
    _, out, _ = _run(["--format", "json"], capsys)
    assert json.loads(out)["semantics"] == "code"
    _, out, _ = _run(["--format", "json", "--semantics", "manual"], capsys)
    assert json.loads(out)["semantics"] == "manual"


def test_manual_warns_loudly_when_a_local_guard_reads_the_job(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The OSPool pattern: read literally, START is evaluated locally in Matched/Idle (8)
    and Claimed/Idle (10), where TARGET.ProjectName is UNDEFINED (seed 002)."""
    config = tmp_path / "pilot.config"
    config.write_text("START = !isUndefined(TARGET.ProjectName) && KeyboardIdle > 60\n")
    code, _, err = _run([str(config), "--format", "csv", "--semantics", "manual"], capsys)
    loud = [line for line in err.splitlines() if "WARNING" in line]
    assert code == 0 and len(loud) == 1, err
    assert "TARGET.ProjectName" in loud[0] and "KeyboardIdle" not in loud[0]
    assert "8 (Matched/Idle)" in loud[0] and "10 (Claimed/Idle)" in loud[0]
    assert "--semantics code" in loud[0]
    code, _, err = _run([str(config), "--format", "csv"], capsys)
    assert code == 0 and "WARNING" not in err
    # a START that reads only the slot ad: nothing to warn about
    config.write_text("START = KeyboardIdle > 60\n")
    code, _, err = _run([str(config), "--format", "csv", "--semantics", "manual"], capsys)
    assert code == 0 and "WARNING" not in err
