"""`--slot NAME` on compile, diagram, check, run and watch: the policy as one slot of a
machine with several reads it (`SLOT<N>_` / `SLOT_TYPE_<T>_` knobs win, its SlotID is
known), so each slot type gets its own table and figure (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUSPENDABLE = str(ROOT / "docs" / "examples" / "slots" / "suspendable-slots.config")


def _row(capsys: pytest.CaptureFixture[str], number: int) -> dict[str, object]:
    rows = json.loads(capsys.readouterr().out)["rows"]
    return next(r for r in rows if r["number"] == number)


def test_each_slot_compiles_its_own_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 002's suspendable-slot policy: SUSPEND = IsSuspendableSlot && ... with
    IsSuspendableSlot = SlotID > 1. Slot 1 can never suspend (#14 dead); slot 2 suspends
    on slot1's State alone."""
    assert main(["compile", SUSPENDABLE, "--slot", "slot1", "--format", "json"]) == 0
    assert _row(capsys, 14)["status"] == "dead"
    assert main(["compile", SUSPENDABLE, "--slot", "slot2", "--format", "json"]) == 0
    row = _row(capsys, 14)
    assert row["status"] == "live" and "slot1_State" in str(row["simplified"])
    assert "SlotID" not in str(row["simplified"])


def test_per_slot_knobs_win(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SLOT_TYPE_2_START (SlotType::type_param) applies to the slots of type 2 only."""
    conf = tmp_path / "types.conf"
    conf.write_text(
        "NUM_SLOTS_TYPE_1 = 1\nNUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_1 = cpus=1\n"
        "SLOT_TYPE_2 = cpus=1\nSTART = True\nSLOT_TYPE_2_START = False\nIS_OWNER = False\n"
    )
    dead = []
    for slot in ("slot1", "slot2"):
        assert main(["compile", str(conf), "--slot", slot, "--format", "json"]) == 0
        rows = json.loads(capsys.readouterr().out)["rows"]
        dead.append({r["number"] for r in rows if r["status"] == "dead"})
    assert dead[1] - dead[0]  # START = False kills the rows that need it, in slot2 only


def test_a_diagram_per_slot(tmp_path: Path) -> None:
    figures = []
    for slot in ("slot1", "slot2"):
        out = tmp_path / f"{slot}.dot"
        assert main(["diagram", SUSPENDABLE, "--slot", slot, "-o", str(out)]) == 0
        figures.append(out.read_text())
    assert figures[0] != figures[1]
    assert figures[0].count("dashed") > figures[1].count("dashed")  # more dead in slot1


def test_a_slot_the_configuration_does_not_make_is_bad_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compile", SUSPENDABLE, "--slot", "slot3"]) == 2
    assert "makes 2 slot(s): there is no slot3" in capsys.readouterr().err
    assert main(["compile", SUSPENDABLE, "--slot", "gpu1"]) == 2
    assert "not a slot name" in capsys.readouterr().err
