"""`check CONFIG --hardware HW`: every slot of a machine checked with its own view of the
configuration (issue 13: "run, watch, check and diagram accept multi-slot machines").

The flapping finding and the per-slot knobs are the single-slot check's (docs/findings.md,
`--slot`); here the machine is the unit: one report per slot, the worst exit status.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUSPENDABLE = ROOT / "docs" / "examples" / "slots" / "suspendable-slots.config"
HW = "{cpus: 2, memory_mb: 2048, disk_kb: 100000, swap_kb: 10000}\n"


@pytest.fixture
def hardware(tmp_path: Path) -> Path:
    path = tmp_path / "hw.yaml"
    path.write_text(HW)
    return path


def _json(capsys: pytest.CaptureFixture[str]) -> dict:
    data: dict = json.loads(capsys.readouterr().out)
    return data


def test_one_report_per_slot_and_the_worst_exit_status(
    tmp_path: Path, hardware: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # slot2 alone suspends when the keyboard is busy and continues while it is busy
    # for less than two minutes: SUSPEND and CONTINUE overlap, slot2 flaps
    config = tmp_path / "flap.config"
    config.write_text(
        "use feature : StaticSlots\nNUM_CPUS = 2\nSLOT2_WANT_SUSPEND = True\n"
        "SLOT2_SUSPEND = KeyboardIdle < 60\nSLOT2_CONTINUE = KeyboardIdle < 120\n"
    )
    args = ["check", str(config), "--hardware", str(hardware), "--static-only"]
    assert main([*args, "--format", "json"]) == 1
    report = _json(capsys)
    assert set(report["slots"]) == {"slot1", "slot2"}
    codes = {
        name: {f["code"] for f in slot["findings"] if f["severity"] in ("violation", "error")}
        for name, slot in report["slots"].items()
    }
    assert codes == {"slot1": set(), "slot2": {"flapping"}}
    assert report["exit_status"] == 1 == report["slots"]["slot2"]["exit_status"]
    assert main(args) == 1
    text = capsys.readouterr().out
    assert "== slot1 (static, slot type 1) ==" in text and "== slot2" in text
    assert "2 slot(s) checked, exit status 1" in text


def test_the_seed_suspendable_slot_policy_checks_clean_on_both_slots(
    hardware: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The slot's id is fixed in every generated trace (SlotID = 1, 2): the compiled
    machine and the reference interpreter evaluate `SlotID > 1` alike (before, the
    reference had no SlotID and `check --slot` reported an internal error, exit 3)."""
    args = ["check", str(SUSPENDABLE), "--hardware", str(hardware), "--max-examples", "15"]
    assert main([*args, "--format", "json"]) == 0
    report = _json(capsys)
    for slot in report["slots"].values():
        assert not slot["internal_errors"]
    assert main(["check", str(SUSPENDABLE), "--slot", "slot1", "--max-examples", "15"]) == 0


def test_hardware_does_not_go_with_one_slot_options(
    hardware: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra in (["--slot", "slot1"], ["--diagram", "x.svg"]):
        assert main(["check", str(SUSPENDABLE), "--hardware", str(hardware), *extra]) == 2
        err = capsys.readouterr().err
        assert "does not go with --hardware" in err and "Traceback" not in err
