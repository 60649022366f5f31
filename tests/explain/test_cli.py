"""`condor-policy explain`: text and JSON output, positioned errors (exit 2).

The slot ads are written here by hand; what the output must say is worked out from the
shipped Desktop policy (`use POLICY : Desktop`): in Owner/Idle with the keyboard touched
34 s ago nothing fires, and row 1 (Owner -> Unclaimed, `!IS_OWNER`) would fire once
KeyboardIdle exceeds 15 * 60, i.e. at 901, in 901 - 34 = 867 s of clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main

OWNER_IDLE = """MyType = "Machine"
Name = "slot1@example.org"
State = "Owner"
Activity = "Idle"
KeyboardIdle = 34
ConsoleIdle = 34
LoadAvg = 0.05
CondorLoadAvg = 0.0
MyCurrentTime = 1700000000
"""


@pytest.fixture(autouse=True)
def _no_condor_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)


@pytest.fixture
def slot(tmp_path: Path) -> Path:
    path = tmp_path / "slot.ad"
    path.write_text(OWNER_IDLE)
    return path


def test_text(slot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--policy", "Desktop", "--machine", str(slot)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Owner/Idle (htcondor-current, code semantics)")
    assert "fires now: none: the slot stays" in out
    assert "would fire with KeyboardIdle = 901" in out
    assert "now 34" in out
    assert "becomes TRUE in 867 s" in out


def test_json(slot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--policy", "Desktop", "--machine", str(slot), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["state"], data["activity"], data["fires"]) == ("Owner", "Idle", None)
    row1 = next(s for s in data["steps"] if s["row"] == "1")
    assert row1["holds"] is False
    assert [(e["attribute"], e["to"]) for e in row1["smallest_change"]] == [("KeyboardIdle", "901")]
    assert row1["flips_in_seconds"] == 867
    assert row1["flips_at"] == 1700000000 + 867


def test_at_overrides_the_ad(slot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--machine", str(slot), "--at", "claimed/busy"]) == 0
    assert capsys.readouterr().out.startswith("Claimed/Busy")


def test_job_verdicts(slot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "job.ad"
    job.write_text('Owner = "miles"\nRequirements = TARGET.Memory >= 2048\n')
    args = ["explain", "--policy", "Desktop", "--machine", str(slot), "--job", str(job)]
    assert main([*args, "--format", "json"]) == 0
    verdicts = json.loads(capsys.readouterr().out)["job"]
    by = {(v["side"], v["expression"]): v for v in verdicts}
    # Desktop START needs KeyboardIdle > 900: 34 rejects it.
    assert by[("slot", "START")]["accepts"] is False
    # The slot ad holds no Memory: the job's Requirements is UNDEFINED, so it rejects.
    assert by[("job", "Requirements")]["accepts"] is False
    assert by[("job", "Requirements")]["explanation"]["truth"] == "UNDEFINED"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--at", "Claimed/Bsy"], "did you mean Claimed/Busy"),
        (["--at", "Nowhere"], "no state/activity 'Nowhere'"),
    ],
)
def test_bad_pair_exits_2(
    slot: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "--machine", str(slot), *argv]) == 2
    assert message in capsys.readouterr().err


def test_missing_state_needs_at(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ad = tmp_path / "bare.ad"
    ad.write_text("KeyboardIdle = 3\n")
    assert main(["explain", "--machine", str(ad)]) == 2
    assert "--at" in capsys.readouterr().err


def test_bad_ad_is_positioned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ad = tmp_path / "broken.ad"
    ad.write_text('State = "Owner"\nActivity = = 3\n')
    assert main(["explain", "--machine", str(ad)]) == 2
    assert f"{ad}:2:" in capsys.readouterr().err


def test_missing_ad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--machine", str(tmp_path / "none.ad")]) == 2
    assert "no such ad file" in capsys.readouterr().err
