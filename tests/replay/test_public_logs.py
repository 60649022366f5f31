"""Public StartLog excerpts replayed (provenance: tests/replay/fixtures/PROVENANCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LOG = str(FIXTURES / "bisque-dev-startlog.txt")
CONFIG = str(FIXTURES / "bisque-dev-startd.config")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    import json

    status = main(["replay", LOG, CONFIG, "--format", "json", *argv])
    return status, json.loads(capsys.readouterr().out)


def test_dynamic_slot_log_is_possible_with_the_code_semantics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, data = _json(capsys)
    assert status == 0
    (slot,) = data["slots"]
    assert slot["slot"] == "slot1_1"
    numbers = [{c["number"] for c in step["candidates"] if c["possible"]} for step in slot["steps"]]
    assert numbers == [
        {"unnumbered:claim_in_owner"},
        {11},
        {12},
        {10},
        {22},
        {1},
        {"unnumbered:delete"},
    ]
    assert [step["line"] for step in slot["steps"]] == [4, 10, 17, 19, 21, 23, 24]
    # The startd's own `State change:` reasons (lines 3, 9, 16, 18, 20, 22), each with the
    # change that follows it.
    assert [step["cause"] for step in slot["steps"]] == [
        "claiming protocol successful",
        "claim-activation protocol successful",
        "starter exited",
        "received RELEASE_CLAIM command",
        "No preempting claim, returning to owner",
        "IS_OWNER is false",
        None,
    ]


def test_manual_semantics_flags_exactly_the_code_only_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Owner -> Claimed (line 4) and Unclaimed -> Delete (24) exist only in the code;
    Claimed/Idle -> Preempting/Vacating (19) too under this configuration: the manual
    chooses the Preempting activity by WANT_VACATE (False here: Killing), 23.0's
    `ResState::_preempting_activity` (ResState.cpp) takes Vacating whenever PREEMPT had
    not fired, as for this release."""
    status, data = _json(capsys, "--semantics", "manual")
    assert status == 1
    flagged = [
        (step["line"], [f["kind"] for f in step["flags"]])
        for step in data["slots"][0]["steps"]
        if step["flags"]
    ]
    assert flagged == [(4, ["semantics"]), (19, ["semantics"]), (24, ["semantics"])]
