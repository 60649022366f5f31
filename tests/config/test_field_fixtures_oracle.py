"""The project's own field-style configurations, read by both readers.

tests/config/fixtures/field/ holds small hand-written files with the features of the
real-world configurations in ../shared/realworld-configs (see its README.md), so that the
differential against the htcondor wheel runs in every clone; test_realworld_oracle.py
covers the real files when ../shared is present. Expected outcomes come from the oracle:
both readers refuse a file, or both load it and every name agrees.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.errors import PolicyError
from tests.config.differential import assert_policy_parses_like_htcondor, compare

pytestmark = pytest.mark.oracle

FIELD = Path(__file__).parent / "fixtures" / "field"
FILES = sorted(p for p in FIELD.iterdir() if p.suffix in (".config", ".conf"))


def test_fixtures_are_present() -> None:
    assert len(FILES) == 7


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_field_fixture_matches_htcondor(path: Path) -> None:
    result = compare(path)
    if result.oracle_refused:
        assert result.our_error is not None, f"HTCondor refuses: {result.oracle_message}"
        return
    if path.name == "include-command.config":
        return  # HTCondor runs the command; we refuse (test below)
    assert result.our_error is None, result.our_error
    assert result.mismatches == {}


def test_the_fixtures_cover_refusal_and_loading() -> None:
    """Guards the guard: some fixtures load in HTCondor and one is refused, so a reader
    that refuses (or loads) everything cannot pass the differential above."""
    refused = {p.name for p in FILES if compare(p).oracle_refused}
    assert refused == {"missing-local-config.config"}


@pytest.mark.parametrize("subsystem", ["SCHEDD", "NEGOTIATOR", "MASTER"])
def test_other_daemons_see_what_htcondor_shows_them(subsystem: str) -> None:
    result = compare(FIELD / "pslot-dedicated.conf", subsystem=subsystem)
    assert result.our_error is None and not result.oracle_refused, result.oracle_message
    assert result.mismatches == {}


def test_command_include_is_refused_with_a_clear_message() -> None:
    with pytest.raises(PolicyError) as info:
        load_config(FIELD / "include-command.config")
    assert "allow_commands=True" in info.value.format()
    assert ":3:" in info.value.format()


def test_command_include_runs_when_allowed_like_htcondor() -> None:
    result = compare(FIELD / "include-command.config", allow_commands=True)
    assert result.our_error is None and not result.oracle_refused, result.oracle_message
    assert result.mismatches == {}


#: `include : COMMAND |` texts whose argument splitting matters: HTCondor's ArgList
#: (condor_arglist.cpp, AppendArgsV1RawOrV2Quoted) reads V1 raw words, where quotes are
#: ordinary characters, or a V2 quoted list inside outer double quotes; never shell quoting.
COMMANDS = [
    '/bin/echo "SUSPEND = False"',
    "/bin/echo 'SUSPEND = False'",
    "\"/bin/echo 'SUSPEND = False'\"",
    "\"/bin/echo SUSPEND = ''x''\"",
    '"/bin/echo \'SUSPEND = ""x""\'"',
    '"/bin/echo \'unterminated"',
    '"/bin/echo" trailing',
    "/bin/echo\tSTART\t=\tTrue",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_command_include_splits_arguments_like_htcondor(tmp_path: Path, command: str) -> None:
    path = tmp_path / "command.config"
    path.write_text(f"include : {command} |\n")
    result = compare(path, allow_commands=True)
    assert result.agrees, (result.oracle_message, result.our_error, result.mismatches)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_policy_expressions_parse_like_htcondor(path: Path) -> None:
    try:
        config = load_config(path)
    except PolicyError:
        pytest.skip("refused (see test_field_fixture_matches_htcondor)")
    assert_policy_parses_like_htcondor(config)
