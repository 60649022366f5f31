"""`condor-policy`: a thin command line over the library.

`main(argv) -> int` parses arguments, dispatches to `runtime.commands.<name>.run`, and
turns input problems (`PolicyError`) into `path:line:col: message` on stderr with exit
status 2 and no traceback. The library itself never prints or exits.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import re
import sys
from collections.abc import Sequence
from types import ModuleType

from compiler.errors import PolicyError
from runtime import commands

_KEPT_BYTE = re.compile("[\udc80-\udcff]")

#: Exit status for usage and input errors (argparse uses it too).
EXIT_USAGE = 2


def _command_modules(only: str | None = None) -> list[ModuleType]:
    """The command modules: all of them, or just the module of command `only` when there
    is one (its file is named after the command)."""
    infos = [m for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")]
    if only is not None and any(m.name == only for m in infos):
        infos = [m for m in infos if m.name == only]
    found = []
    for info in sorted(infos, key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return found


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `command`, of that command only when it is one.

    A run of one command parses with the parser of that command alone: what it accepts,
    prints for `--help` and says about a mistake is the same (a subcommand's usage and
    errors name only itself; the top level's usage says COMMAND, not the list), and a
    cold `compile` neither imports nor builds the other six (issue 11, cold compile).
    """
    parser = argparse.ArgumentParser(
        prog="condor-policy",
        description="Compile, draw, run and check HTCondor execute-point (startd) policy.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = _command_modules(command)
    if command is not None and [m.NAME for m in modules] != [command]:
        modules = _command_modules()  # not a command (argparse lists them all)
    for module in modules:
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _printable(text: str) -> str:
    """`text` with the bytes an ad file kept undecoded (lone surrogates, see
    compiler.textio) shown as U+FFFD, one column each, so the caret stays under them."""
    return _KEPT_BYTE.sub("\ufffd", text)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    first = arguments[0] if arguments else None
    parser = build_parser(first if first is not None and not first.startswith("-") else None)
    args = parser.parse_args(arguments)
    # The modules, tables and parsers imported so far live as long as the command: the
    # collector need not walk them again in an older-generation collection, nor in the
    # one at interpreter exit (about 2% of a cold `compile`'s instructions). Unfrozen on
    # the way out when `main` was called with arguments (a caller in its own process,
    # which collects as before); the command line's own process (argv None) ends next.
    gc.freeze()
    try:
        return int(args._run(args))
    except PolicyError as err:
        print(f"condor-policy: {_printable(err.format())}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except OSError as err:
        # A file named on the command line that the system refuses (`--log` in a missing
        # directory, an unwritable `--counterexamples DIR`) is the user's input problem.
        if err.filename is None:
            raise
        reason = err.strerror or type(err).__name__
        print(f"condor-policy: {_printable(str(err.filename))}: {reason}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("condor-policy: interrupted", file=sys.stderr)
        return 130
    finally:
        if argv is not None:
            gc.unfreeze()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
