"""The parser of one command reads its command line as the parser of all commands does.

`condor-policy CMD ...` is parsed by `build_parser(CMD)`, which builds only CMD (issue 11,
cold compile). For many command lines of every command -- valid ones, `--help`, unknown
options, bad choices, missing and extra arguments -- the result is compared with
`build_parser()`'s: the parsed values, or the exit status and every byte printed.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from runtime.cli import _command_modules, build_parser

COMMANDS = [m.NAME for m in _command_modules()]

#: Argument tails tried after every command name.
TAILS = [
    [],
    ["--help"],
    ["-h"],
    ["--policy", "desktop"],
    ["--era", "condor-6.8", "--format", "md"],
    ["--era", "condor-9"],
    ["--format", "yaml"],
    ["--no-such-option"],
    ["a.config", "b.config", "c.config"],
    ["--semantics", "code", "--assume", "KeyboardIdle=1"],
    ["--trace", "t.yaml"],
    ["--expr", "1 + 1"],
    ["--allow-commands"],
    ["--"],
]


def _outcome(parser_of: str | None, argv: list[str]) -> tuple[object, ...]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            args = build_parser(parser_of).parse_args(argv)
        except SystemExit as exit_:
            return ("exit", exit_.code, out.getvalue(), err.getvalue())
    values = {k: v for k, v in vars(args).items() if k != "_run"}
    return ("parsed", values, args._run.__module__, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("tail", TAILS, ids=" ".join)
def test_one_command_parses_as_all_do(command: str, tail: list[str]) -> None:
    argv = [command, *tail]
    assert _outcome(command, argv) == _outcome(None, argv)


@pytest.mark.parametrize("argv", [["compil"], ["--help"], [], ["-x", "compile"]])
def test_what_is_not_a_command_gets_the_full_parser(argv: list[str]) -> None:
    name = argv[0] if argv and not argv[0].startswith("-") else None
    assert _outcome(name, argv) == _outcome(None, argv)
    assert _outcome(name, argv)[0] == "exit"


def test_the_single_parser_is_single() -> None:
    """Not vacuous: the one-command parser knows no other command."""
    out = _outcome("compile", ["run", "--help"])
    assert out[0] == "exit" and out[1] == 2 and "invalid choice: 'run'" in str(out[3])
