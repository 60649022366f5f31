"""Shared command-line handling of "which policy": CONFIG, --era, --policy, --semantics.

Used by every command that compiles a policy (compile, diagram, run, watch, check); the
`--allow-commands` switch is defined here once, for them and for `config`, the other
command that reads a configuration. The rules (DESIGN.md "Command line"): CONFIG is a
file or a directory of fragments
read in order; without CONFIG the file named by CONDOR_CONFIG is read if that is set
(as HTCondor's own tools do), else only the era's shipped defaults (its default
policy). `--policy NAME` applies the shipped `use POLICY : NAME` template first, so that
settings in CONFIG still win, exactly as if CONFIG began with that `use` line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from compiler.config import Config, all_templates, directory_files, find_template, load_config
from compiler.errors import PolicyError, close_matches
from compiler.spec import DEFAULT_ERA, ERAS, SEMANTICS

#: The semantics every command uses unless told otherwise: what the era's startd does
#: (DESIGN.md "Manual vs. real startd": admins ask what their daemon will do). The Python
#: API (`compile_policy`) keeps its documented default, "manual".
DEFAULT_SEMANTICS = "code"


class PolicyChoice(msgspec.Struct, frozen=True):
    """What the arguments asked for, and a short human description of it."""

    config: Config
    era: str
    semantics: str
    description: str


#: The one switch that lets `include : command |` (and `include command`) run programs.
ALLOW_COMMANDS = "--allow-commands"


def add_allow_commands_argument(parser: argparse.ArgumentParser) -> None:
    """`--allow-commands`: the same switch on every command that reads a configuration.

    Reading a configuration never runs programs unless it is given; without it an
    `include` command is a positioned error that names the switch.
    """
    parser.add_argument(
        ALLOW_COMMANDS,
        dest="allow_commands",
        action="store_true",
        help="let `include : COMMAND |` in the configuration run COMMAND (refused by default)",
    )


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config",
        metavar="CONFIG",
        nargs="?",
        help="configuration file or directory of fragments "
        "(default: $CONDOR_CONFIG, else the era's default policy)",
    )
    parser.add_argument("--era", choices=ERAS, default=DEFAULT_ERA, help="manual era")
    parser.add_argument(
        "--policy",
        metavar="NAME",
        help="apply the shipped template 'use POLICY : NAME' first "
        "(e.g. Desktop, or with arguments: 'Limit_Job_Runtimes(3600)')",
    )
    parser.add_argument(
        "--semantics",
        choices=SEMANTICS,
        default=DEFAULT_SEMANTICS,
        help="code (default): what the era's real startd does; "
        "manual: the era's manual read literally",
    )
    add_allow_commands_argument(parser)


def add_slot_argument(parser: argparse.ArgumentParser) -> None:
    """`--slot NAME`: the policy as one slot of a machine with several reads it."""
    parser.add_argument(
        "--slot",
        dest="policy_slot",
        metavar="NAME",
        help="the policy of one slot (slot2, or a dynamic slot slot1_3 of slot1): its "
        "SLOT<N>_ and SLOT_TYPE_<T>_ knobs win, as the startd reads them",
    )


def slot_assumptions(choice: PolicyChoice, assume: dict[str, object]) -> dict[str, object]:
    """`assume` plus, under `--slot`, that slot's SlotID (6.x: VirtualMachineID; its ad
    says so: a guard such as `SlotID > 1` is decided for it); an explicit `--assume
    SlotID=...` wins."""
    from compiler.slots import naming

    slot_id = choice.config.slot_id
    attribute = naming(choice.config.era).id_attribute
    if slot_id is not None and attribute.lower() not in {n.lower() for n in assume}:
        return {**assume, attribute: slot_id}
    return assume


def print_warnings(warnings: Iterable[str], *, only_loud: bool = False) -> None:
    """A compiled table's warnings on stderr, one a line; the ones that say the manual
    reading misleads for this policy (`compiler.MANUAL_READS_JOB`) in capitals,
    first, so that nobody reading the manual's table mistakes it for the daemon's.
    `only_loud`: those alone (run, watch and check, whose output is not the table)."""
    from compiler import MANUAL_READS_JOB  # the join: only once a table exists

    items = list(warnings)
    loud = [w for w in items if w.startswith(MANUAL_READS_JOB)]
    for warning in loud:
        print(f"condor-policy: WARNING: {warning}", file=sys.stderr)
    if only_loud:
        return
    for warning in items:
        if warning not in loud:
            print(f"condor-policy: warning: {warning}", file=sys.stderr)


def config_path(args: argparse.Namespace) -> Path | None:
    """CONFIG, else $CONDOR_CONFIG (unless empty or ONLY_ENV), else None."""
    if args.config:
        return Path(args.config)
    named = os.environ.get("CONDOR_CONFIG", "").strip()
    if named and named.upper() != "ONLY_ENV":
        return Path(named)
    return None


def load_policy(args: argparse.Namespace) -> PolicyChoice:
    """The configuration the arguments name, read for their era (as slot `--slot` reads
    it, when given)."""
    choice = _load_policy(args)
    slot = getattr(args, "policy_slot", None)
    if not slot:
        return choice
    from compiler.slots import slot_view  # only when asked: not on a cold compile's path

    view = slot_view(choice.config, slot, semantics=choice.semantics)
    return PolicyChoice(view, choice.era, choice.semantics, f"{choice.description}, {slot}")


def _load_policy(args: argparse.Namespace) -> PolicyChoice:
    path = config_path(args)
    era: str = args.era
    if path is not None and not path.exists():
        raise PolicyError("no such configuration file or directory", file=str(path))
    if not args.policy:
        config = load_config(path, era=era, allow_commands=args.allow_commands)
        described = str(path) if path is not None else f"{era} default policy"
        return PolicyChoice(config, era, args.semantics, described)
    template = policy_template(args.policy)
    lines = [f"use POLICY : {template}"]
    lines += [f"include : {file.resolve()}" for file in _files(path)]
    text = "\n".join(lines) + "\n"
    config = load_config(text=text, era=era, allow_commands=args.allow_commands)
    described = f"use POLICY : {template}" + (f" + {path}" if path is not None else "")
    return PolicyChoice(config, era, args.semantics, described)


def policy_template(text: str) -> str:
    """`Desktop` -> "Desktop"; arguments are kept: `Limit_Job_Runtimes(3600)`."""
    name, paren, args = text.strip().partition("(")
    found = find_template("POLICY", name.strip())
    if found is not None:  # names are case-insensitive; keep the user's spelling
        return name.strip() + paren + args
    known = sorted(t.name for t in all_templates().get("POLICY", {}).values())
    by_lower = {k.lower(): k for k in known}
    close = [by_lower[k] for k in close_matches(name.lower(), by_lower, n=3, cutoff=0.6)]
    hint = f"; did you mean {', '.join(close)}?" if close else f" (known: {', '.join(known)})"
    raise PolicyError(f"unknown policy template '{name}'{hint}", file="--policy")


def _files(path: Path | None) -> list[Path]:
    if path is None:
        return []
    if path.is_dir():
        files = directory_files(path, None)
        if not files:
            raise PolicyError("directory holds no configuration files", file=str(path))
        return files
    return [path]


#: The knobs that make a configuration a schedd policy as well (issue 17).
SCHEDD_POLICY_KNOBS = ("SUBMIT_REQUIREMENT_NAMES", "JOB_TRANSFORM_NAMES")


def schedd_findings(args: argparse.Namespace, choice: PolicyChoice) -> tuple[Any, ...]:
    """The schedd policy's lints (compiler.schedd.lint; `check` reports them with its
    findings, `compile` prints them as warnings) when the configuration's own
    files define one; the default JOB_TRANSFORM_NAMES (23.0's built-in transform) does
    not count. The files are read again as the schedd reads them (SCHEDD.* settings)."""
    if not any(choice.config.definition(k) is not None for k in SCHEDD_POLICY_KNOBS):
        return ()
    from compiler.config import load_config
    from compiler.schedd import lint

    path = config_path(args)
    schedd = (
        load_config(path, era=choice.era, subsystem="SCHEDD", allow_commands=args.allow_commands)
        if path is not None and not args.policy
        else choice.config
    )
    return tuple(lint(schedd))


def add_pool_arguments(parser: argparse.ArgumentParser, document: str, what: str) -> None:
    """The arguments of the pool commands (`userprio`, `quotas`): one input document (JSON
    or YAML), `--semantics` (HEAD's negotiator, or seed 003 read literally) and `--format`."""
    parser.add_argument(document.lower(), metavar=document, help=f"{what} (JSON or YAML)")
    parser.add_argument(
        "--semantics",
        choices=("code", "manual"),
        default="code",
        help="code (default): what HEAD's negotiator does; manual: seed 003 read literally",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
