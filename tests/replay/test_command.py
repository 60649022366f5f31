"""`condor-policy replay`: output, exit status 0/1/2, --format json, --diagram."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main
from tests.replay.synth import BANNER

GOOD = BANNER + (
    "11/23/26 10:00:05 slot1: Changing state: Owner -> Unclaimed\n"
    "11/23/26 10:00:07 slot1: Changing state: Unclaimed -> Matched\n"
    "11/23/26 10:00:08 slot1: Changing state: Matched -> Claimed\n"
    "11/23/26 10:00:09 slot1: Changing activity: Idle -> Busy\n"
    "11/23/26 10:00:19 slot1: Changing activity: Busy -> Idle\n"
)
#: Line 9 (2 banner lines, 5, 2): Unclaimed -> Backfill under the default policy (no backfill): transition 7 dead.
BAD = GOOD + (
    "11/23/26 10:00:29 slot2: Changing state: Owner -> Unclaimed\n"
    "11/23/26 10:00:30 slot2: Changing state: Unclaimed -> Backfill\n"
)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "StartLog"
    path.write_text(text)
    return str(path)


def test_clean_log_exits_0_with_the_numbered_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _write(tmp_path, GOOD)
    assert main(["replay", log]) == 0
    out = capsys.readouterr().out
    # Transitions 1, 6, 9, 11, 12 and their letters: seed 003's current-era figure.
    assert "slot1: 1 A, 6 C, 9 G, 11, 12\n" in out
    assert "every change was possible" in out


def test_flagged_log_exits_1_and_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _write(tmp_path, BAD)
    assert main(["replay", log]) == 1
    out = capsys.readouterr().out
    assert f"{log}:9:19: [configuration]" in out
    assert "slot2: 1 A, 7 E!" in out


def test_the_same_log_is_fine_with_a_backfill_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The flag says the configuration is not the daemon's: give it the right one."""
    log = _write(tmp_path, BAD)
    config = tmp_path / "backfill.conf"
    config.write_text("ENABLE_BACKFILL = True\nBACKFILL_SYSTEM = BOINC\nSTART_BACKFILL = True\n")
    assert main(["replay", log, str(config)]) == 0, capsys.readouterr().out


def test_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path, BAD)
    assert main(["replay", log, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["era"] == "htcondor-current" and data["semantics"] == "code"
    assert [s["slot"] for s in data["slots"]] == ["slot1", "slot2"]
    assert data["slots"][0]["path"] == ["1 A", "6 C", "9 G", "11", "12"]
    step = data["slots"][1]["steps"][1]
    assert (step["line"], step["column"], step["from"], step["to"]) == (
        9,
        19,
        ["Unclaimed", "Idle"],
        ["Backfill", "Idle"],
    )
    assert [f["kind"] for f in step["flags"]] == ["configuration"]
    assert data["summary"] == {"slots": 2, "changes": 7, "flagged": 1}


def test_diagram(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path, GOOD)
    out = tmp_path / "path.dot"
    assert main(["replay", log, "--diagram", str(out)]) == 0
    dot = out.read_text()
    # GOOD's slot1 enters Unclaimed (step 1), Matched (2), Claimed/Idle (3 and 5) and
    # Claimed/Busy (4): each pair highlighted with its step numbers.
    nodes = {
        line.split('"')[1]: line
        for line in dot.splitlines()
        if line.strip().startswith('"') and " -> " not in line
    }
    assert "trace steps: 1" in nodes["Unclaimed/Idle"]
    assert "trace steps: 3,5" in nodes["Claimed/Idle"]
    assert "trace steps: 4" in nodes["Claimed/Busy"]
    assert "trace steps" not in nodes["Preempting/Vacating"]


def test_diagram_of_a_slot_the_log_lacks_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _write(tmp_path, GOOD)
    assert main(["replay", log, "--diagram", str(tmp_path / "x.dot"), "--slot", "slot9"]) == 2
    assert "no slot 'slot9'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nothing here\n", "no state changes"),
        ("11/23/26 10:00:05 slot1: Changing state: Owner\n", ":1:26: a state change line"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    log = _write(tmp_path, text)
    assert main(["replay", log]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_an_older_era_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 6.4 single-slot log (no prefix, 6.x dprintf.c's month/day times) replayed with
    --era condor-6.4."""
    log = _write(
        tmp_path,
        "5/12 13:45:01 Changing state: Owner -> Unclaimed\n"
        "5/12 13:45:02 Changing state: Unclaimed -> Matched\n"
        "5/12 13:45:03 Changing state: Matched -> Claimed\n"
        "5/12 13:45:04 Changing activity: Idle -> Busy\n"
        "5/12 13:46:04 Changing state and activity: Claimed/Busy -> Preempting/Vacating\n",
    )
    assert main(["replay", log, "--era", "condor-6.4"]) == 0, capsys.readouterr().out
    capsys.readouterr()


def test_manual_semantics_warns_loudly_as_the_other_policy_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _write(tmp_path, GOOD)
    config = tmp_path / "pilot.config"
    config.write_text("START = !isUndefined(TARGET.ProjectName)\n")
    main(["replay", log, str(config)])
    assert "WARNING" not in capsys.readouterr().err
    main(["replay", log, str(config), "--semantics", "manual"])
    loud = [line for line in capsys.readouterr().err.splitlines() if "WARNING" in line]
    assert len(loud) == 1 and "TARGET.ProjectName" in loud[0]


def test_a_hint_names_the_era_and_semantics_that_make_every_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retiring came with 6.8: a 6.4 replay of a retirement is flagged, and the hint
    names the eras that have it (transition 13 of the 6.8 and current manuals)."""
    log = _write(tmp_path, "5/12 13:45:04 Changing activity: Busy -> Retiring\n")
    assert main(["replay", log, "--era", "condor-6.4", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {(h["era"], h["semantics"]) for h in data["possible_with"]} >= {
        ("condor-6.8", "code"),
        ("htcondor-current", "code"),
    }
    assert all(h["era"] != "condor-6.4" for h in data["possible_with"])
    assert main(["replay", log, "--era", "condor-6.4"]) == 1
    assert "hint: every change is possible with --era condor-6.8" in capsys.readouterr().out
