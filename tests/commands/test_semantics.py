"""Which semantics the commands use: the real startd's (`code`) unless told otherwise,
and under `--semantics manual` a loud warning when a guard the manual evaluates locally
reads job attributes (issue 12; DESIGN.md "Manual vs. real startd").

Every command that compiles a policy is run on a START of the OSPool pattern
(`!isUndefined(TARGET.ProjectName)`): the manual evaluates START "locally" in
Matched/Idle and Claimed/Idle (seed 002), where the job attribute is UNDEFINED.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from runtime.cli import _command_modules, main

#: The commands that compile a policy (they take --semantics), and the extra arguments
#: each needs to run quickly here.
#: Commands that take --semantics for rules other than the compiled table's; they compile
#: no table (slots: the seed-vs-23.0 slot layout differences, spec/slots.yaml; the
#: schedd's submit-check: condor_submit's 23.0 wording or the seed's; userprio: the
#: accountant's HEAD code or seed 003, spec/pool.yaml).
OTHER_SEMANTICS_COMMANDS = ["slots", "submit-check", "userprio", "quotas", "negotiate"]
#: Policy commands whose first argument is not CONFIG (`replay STARTLOG [CONFIG]`;
#: `simulate POOL_FILE` compiles each machine group's startd policy in that semantics and
#: runs the negotiator and accountant in it too).
OTHER_POLICY_COMMANDS = ["replay", "diff", "simulate"]
POLICY_COMMANDS = ["compile", "diagram", "run", "check", "watch", "explain"]


def _extra(name: str, tmp: Path) -> list[str]:
    trace = tmp / "trace.yaml"
    trace.write_text("steps:\n  - {t: 0, tick: true}\n")
    machine = tmp / "slot.ad"
    machine.write_text('State = "Unclaimed"\nActivity = "Idle"\nMyCurrentTime = 0\n')
    return {
        "compile": ["--format", "csv"],
        "diagram": ["-o", str(tmp / "out.dot")],
        "run": ["--trace", str(trace)],
        "check": ["--static-only"],
        "watch": ["--duration", "0.1", "--plain"],
        "explain": ["--machine", str(machine)],
    }[name]


@pytest.fixture(autouse=True)
def _no_condor_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)


def test_the_policy_commands_are_the_ones_taking_semantics() -> None:
    takes = []
    for module in _command_modules():
        parser = argparse.ArgumentParser()
        module.add_arguments(parser)
        if "--semantics" in parser.format_help():
            takes.append(module.NAME)
    assert sorted(takes) == sorted(
        POLICY_COMMANDS + OTHER_SEMANTICS_COMMANDS + OTHER_POLICY_COMMANDS
    )


@pytest.mark.parametrize("name", POLICY_COMMANDS)
def test_default_is_code_and_manual_warns_loudly(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "pilot.config"
    config.write_text("START = !isUndefined(TARGET.ProjectName)\n")
    main([name, str(config), *_extra(name, tmp_path)])
    assert "WARNING" not in capsys.readouterr().err
    main([name, str(config), "--semantics", "manual", *_extra(name, tmp_path)])
    err = capsys.readouterr().err
    loud = [line for line in err.splitlines() if "WARNING" in line]
    assert len(loud) == 1, err
    assert "TARGET.ProjectName" in loud[0] and "--semantics code" in loud[0]


def test_check_reports_code_semantics_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--static-only", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["semantics"] == "code"
