"""runtime/commands/_policy_args.py: which configuration CONFIG, $CONDOR_CONFIG and
--policy name (shared by every policy command; DESIGN.md "Command line")."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from compiler.errors import PolicyError
from runtime.commands._policy_args import add_policy_arguments, load_policy


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_policy_arguments(parser)
    return parser.parse_args(list(argv))


def test_no_config_no_condor_config_is_the_era_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)
    choice = load_policy(_args("--era", "condor-6.8"))
    # the real startd's behaviour unless --semantics manual (DESIGN.md)
    assert choice.era == "condor-6.8" and choice.semantics == "code"
    assert load_policy(_args("--semantics", "manual")).semantics == "manual"
    assert choice.description == "condor-6.8 default policy"
    assert choice.config.get("START") is not None


def test_condor_config_is_read_like_htcondor_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "condor_config"
    path.write_text("START = KeyboardIdle > 42\n")
    monkeypatch.setenv("CONDOR_CONFIG", str(path))
    choice = load_policy(_args())
    assert choice.config.get("START") == "KeyboardIdle > 42"
    assert choice.description == str(path)
    monkeypatch.setenv("CONDOR_CONFIG", "ONLY_ENV")  # HTCondor: no file at all
    assert load_policy(_args()).config.get("START") != "KeyboardIdle > 42"


def test_template_first_then_config_fragments_in_name_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)
    folder = tmp_path / "config.d"
    folder.mkdir()
    (folder / "20-later").write_text("WANT_SUSPEND = False\n")
    (folder / "10-first").write_text("WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 7\n")
    choice = load_policy(_args(str(folder), "--policy", "desktop"))
    assert choice.config.get("WANT_SUSPEND") == "False"  # later fragment wins
    assert choice.config.get("SUSPEND") == "KeyboardIdle < 7"  # config beats the template
    assert "KeyboardIdle > 15 * 60" in (choice.config.get("START") or "")  # from Desktop
    assert choice.description == f"use POLICY : desktop + {folder}"


def test_template_arguments_are_passed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)
    choice = load_policy(_args("--policy", "Limit_Job_Runtimes(3600)"))
    assert "3600" in (
        choice.config.get("PREEMPT") or choice.config.get("SYSTEM_PERIODIC_REMOVE") or ""
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "Desktp"], "did you mean Desktop"),
        (["--policy", "NoSuchThing"], "known: "),
        (["/nonexistent/condor_config"], "no such configuration"),
    ],
)
def test_bad_choices_are_policy_errors(argv: list[str], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(_args(*argv))
