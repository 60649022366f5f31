"""`include : COMMAND |` and `--allow-commands`: one rule on every command that reads a
configuration (issue 10).

Without the switch the command is never run and the error points at the `include` line
and names the switch (exit 2, no traceback); with it the program runs and its output is
read as configuration. The program here only creates a marker file, so whether it ran
is observed, not assumed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from runtime.cli import build_parser, main

#: Every command that reads a configuration.
READERS = (
    "compile",
    "diagram",
    "run",
    "watch",
    "check",
    "config",
    "slots",
    "submit-check",
    "replay",
    "explain",
    "diff",
)


def _argv(command: str, config: Path, tmp_path: Path) -> list[str]:
    """A minimal successful invocation of `command` on `config`."""
    trace = tmp_path / "trace.yaml"
    trace.write_text("era: htcondor-current\nsteps:\n  - {t: 0, tick: true}\n")
    hardware = tmp_path / "hw.json"
    hardware.write_text('{"cpus": 2, "memory_mb": 1024, "disk_kb": 1000, "swap_kb": 1000}')
    job = tmp_path / "job.ad"
    job.write_text('Owner = "u"\n')
    log = tmp_path / "StartLog"
    log.write_text("11/23/26 10:00:00 slot1: Changing state: Owner -> Unclaimed\n")
    machine = tmp_path / "slot.ad"
    machine.write_text('State = "Owner"\nActivity = "Idle"\nMyCurrentTime = 0\n')
    extra = {
        "compile": [str(config)],
        "diagram": [str(config), "-o", str(tmp_path / "out.dot")],
        "run": [str(config), "--trace", str(trace)],
        "watch": [str(config), "--duration", "0.1", "--plain"],
        "check": [str(config), "--static-only"],
        "config": ["START", "-c", str(config)],
        "slots": [str(config), "--hardware", str(hardware)],
        "submit-check": [str(config), str(job)],
        "replay": [str(log), str(config)],
        "explain": [str(config), "--machine", str(machine)],
        "diff": [str(config), str(config)],
    }
    return [command, *extra[command]]


@pytest.fixture
def command_config(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "ran"
    config = tmp_path / "condor_config"
    config.write_text(f"MINUTE = 60\n  include : touch {marker} |\n")
    return config, marker


@pytest.mark.parametrize("command", READERS)
def test_include_command_is_refused_without_the_switch(
    command: str,
    command_config: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config, marker = command_config
    assert main(_argv(command, config, tmp_path)) == 2
    err = capsys.readouterr().err
    assert f"{config}:2:3: include runs the command 'touch {marker}'" in err
    assert "--allow-commands" in err
    assert "Traceback" not in err
    assert not marker.exists()


@pytest.mark.parametrize("command", READERS)
def test_include_command_runs_with_the_switch(
    command: str,
    command_config: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config, marker = command_config
    assert main([*_argv(command, config, tmp_path), "--allow-commands"]) == 0, (
        capsys.readouterr().err
    )
    assert marker.exists()


def test_the_command_output_is_read_as_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "condor_config"
    config.write_text("include : echo START = KeyboardIdle > 42 |\n")
    assert main(["config", "START", "-c", str(config), "--allow-commands"]) == 0
    assert capsys.readouterr().out == "KeyboardIdle > 42\n"


def test_a_local_config_file_command_is_refused_at_its_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "condor_config"
    config.write_text("MINUTE = 60\nLOCAL_CONFIG_FILE = echo START = False |\n")
    assert main(["compile", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"{config}:2:1: include runs the command 'echo START = False'" in err
    assert "--allow-commands" in err


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no sub-commands")


def test_every_command_that_reads_a_configuration_has_the_same_switch() -> None:
    """A command reads a configuration when it takes CONFIG; each has --allow-commands,
    defined identically (same destination, same help)."""
    found: dict[str, tuple[str, str | None]] = {}
    for name, sub in _subcommands().items():
        dests = {action.dest for action in sub._actions}
        switch = [a for a in sub._actions if "--allow-commands" in a.option_strings]
        if "config" in dests:
            assert switch, f"{name} reads a configuration but has no --allow-commands"
        if switch:
            found[name] = (switch[0].dest, switch[0].help)
    assert set(found) == set(READERS)
    assert len(set(found.values())) == 1, found
