"""`condor-policy`: a thin command line over the library.

`main(argv) -> int` parses arguments, dispatches to `runtime.commands.<name>.run`, and
turns input problems (`PolicyError`) into `path:line:col: message` on stderr with exit
status 2 and no traceback. The library itself never prints or exits.
"""

from __future__ import annotations

import argparse
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


def _command_modules() -> list[ModuleType]:
    found = []
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="condor-policy",
        description="Compile, draw, run and check HTCondor execute-point (startd) policy.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _command_modules():
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _printable(text: str) -> str:
    """`text` with the bytes an ad file kept undecoded (lone surrogates, see
    compiler.textio) shown as U+FFFD, one column each, so the caret stays under them."""
    return _KEPT_BYTE.sub("\ufffd", text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
