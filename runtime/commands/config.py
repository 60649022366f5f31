"""`condor-policy config NAME... [-c CONFIG] [-v] [--era E]`: like `condor_config_val`.

Prints each NAME's fully expanded value, one per line, exactly as `condor_config_val NAME`
would (the reader follows HTCondor's own). `-v` prints `NAME = value` and where it was
defined (file:line, the `use` template, the definitions it overrides). `--dump` prints
every name the configuration files define. Without `-c` the file named by CONDOR_CONFIG
is read, as HTCondor's tools do; without either, the era's built-in defaults answer.

Exit status: 0 when every NAME is defined, 1 when one is not ("Not defined: NAME" on
stderr, as condor_config_val does), 2 for configuration errors (with file:line:col).
"""

from __future__ import annotations

import argparse
import sys

from compiler.config import Config, ConfigError, load_config
from compiler.spec import DEFAULT_ERA, ERAS
from runtime.commands._policy_args import add_allow_commands_argument, config_path

NAME = "config"
HELP = "Print configuration values expanded as condor_config_val does (-v: where defined)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", metavar="NAME", nargs="*", help="configuration variables")
    parser.add_argument(
        "-c",
        "--config",
        metavar="CONFIG",
        help="configuration file or directory of fragments (default: $CONDOR_CONFIG)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show where each is defined")
    parser.add_argument("--dump", action="store_true", help="print every name the files define")
    parser.add_argument("--era", choices=ERAS, default=DEFAULT_ERA, help="manual era")
    parser.add_argument(
        "--subsystem", default="STARTD", help="daemon whose view to show (default STARTD)"
    )
    parser.add_argument("--slot", type=int, metavar="N", help="the view of slot N (SLOT<N>_NAME)")
    add_allow_commands_argument(parser)


def _load(args: argparse.Namespace) -> Config:
    path = config_path(args)
    if path is not None and not path.exists():
        raise ConfigError("no such configuration file or directory", file=str(path))
    config = load_config(
        path, era=args.era, subsystem=args.subsystem, allow_commands=args.allow_commands
    )
    if args.slot is not None:
        config = config.slot(args.slot)
    return config


def _describe(config: Config, name: str) -> list[str]:
    provenance = config.where(name)
    if provenance is None:
        return []
    lines = [f"  # at: {provenance.winner.describe()}"]
    raw = config.raw(name)
    if raw is not None and raw != config.get(name):
        lines.append(f"  # raw: {raw}")
    lines += [f"  # overrides: {origin.describe()}" for origin in provenance.overridden]
    return lines


def run(args: argparse.Namespace) -> int:
    if not args.names and not args.dump:
        raise ConfigError("give one or more NAMEs, or --dump", file="condor-policy config")
    config = _load(args)
    for warning in config.warnings:
        print(f"condor-policy: warning: {warning.format()}", file=sys.stderr)
    names = list(config.names()) if args.dump else args.names
    status = 0
    for name in names:
        value = config.get(name)
        if value is None and not args.dump:
            print(f"Not defined: {name}", file=sys.stderr)
            status = 1
            continue
        if args.verbose or args.dump:
            print(f"{name} = {value or ''}")
            if args.verbose:
                print("\n".join(_describe(config, name)))
        else:
            print(value)
    return status
