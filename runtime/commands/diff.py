"""`condor-policy diff OLD NEW [--era E] [--semantics manual|code] [--format text|json]`.

A semantic diff of two policies, transition by transition (runtime/diff says how): for
each numbered transition whether its guard's MEANING changed, with a witness assignment
of machine and job attributes under which the two guards disagree; equivalent guards
written differently are reported as equivalent with the proof method (region partition).

OLD and NEW are each a configuration file, a directory of fragments, or `policy:NAME`
for a shipped template (`policy:Desktop`, `policy:Limit_Job_Runtimes(3600)`); both are
read for the same `--era` and compiled for the same `--semantics`. CONDOR_CONFIG is not
read: the two sides are exactly what is named. Exit status: 0 equivalent, 1 they differ
(or a guard could not be decided), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from compiler.errors import PolicyError
from runtime.commands._policy_args import (
    DEFAULT_SEMANTICS,
    add_allow_commands_argument,
    policy_template,
    print_warnings,
)

if TYPE_CHECKING:
    from compiler import StateTable
    from compiler.config import Config
    from runtime.diff import PolicyDiff

NAME = "diff"
HELP = "Semantic diff of two policies: which transitions' guards changed meaning, with witnesses."
FORMATS = ("text", "json")
POLICY_PREFIX = "policy:"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from compiler.spec import DEFAULT_ERA, ERAS, SEMANTICS

    parser.add_argument("old", metavar="OLD", help="file, directory, or policy:NAME")
    parser.add_argument("new", metavar="NEW", help="file, directory, or policy:NAME")
    parser.add_argument("--era", choices=ERAS, default=DEFAULT_ERA, help="manual era")
    parser.add_argument(
        "--semantics",
        choices=SEMANTICS,
        default=DEFAULT_SEMANTICS,
        help="code (default): what the era's real startd does; manual: the manual read literally",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="write a short trace (trace file format) under which the two slots fire "
        "different transitions; `condor-policy run OLD|NEW --trace FILE` replays it "
        "(plans traces through both tables: some seconds)",
    )
    add_allow_commands_argument(parser)


def load_side(side: str, args: argparse.Namespace) -> tuple[StateTable, Config]:
    """The compiled table of one side: a path, or `policy:NAME`."""
    from compiler import compile_policy
    from compiler.config import load_config

    if side.lower().startswith(POLICY_PREFIX):
        template = policy_template(side[len(POLICY_PREFIX) :])
        text = f"use POLICY : {template}\n"
        config = load_config(text=text, era=args.era, allow_commands=args.allow_commands)
        described = f"use POLICY : {template}"
    else:
        path = Path(side)
        if not path.exists():
            raise PolicyError("no such configuration file or directory", file=side)
        config = load_config(path, era=args.era, allow_commands=args.allow_commands)
        described = side
    table = compile_policy(config, args.era, args.semantics, source=described)
    print_warnings(table.warnings, only_loud=True)
    return table, config


def run(args: argparse.Namespace) -> int:
    from runtime.diff import diff_tables

    old, old_config = load_side(args.old, args)
    new, new_config = load_side(args.new, args)
    result = diff_tables(old, new)
    if args.trace and not result.equivalent:
        _write_trace(args.trace, result, old, old_config, new, new_config)
    if args.format == "json":
        print(render_json(result, args.old, args.new), end="")
    else:
        print(render_text(result, args.old, args.new), end="")
    return 0 if result.equivalent else 1


def _write_trace(
    path: str,
    result: PolicyDiff,
    old: StateTable,
    old_config: Config,
    new: StateTable,
    new_config: Config,
) -> None:
    import sys

    from runtime.diff.trace import divergent_trace
    from runtime.trace import dump_trace

    witnesses = [(r.source, *r.witness.as_dicts(), r.witness.now) for r in result.rows if r.witness]
    rows = [r.id for r in result.changed]
    found = divergent_trace(old, old_config, new, new_config, witnesses, rows)
    if found is None:
        print("condor-policy: diff: no divergent trace found", file=sys.stderr)
        return
    try:
        Path(path).write_text(dump_trace(found.trace), encoding="utf-8")
    except OSError as err:
        raise PolicyError(f"cannot write the trace: {err.strerror}", file=path) from err
    print(
        f"condor-policy: diff: trace written to {path}: old fires "
        f"{' '.join(found.old_fired) or '(none)'}; new fires "
        f"{' '.join(found.new_fired) or '(none)'}",
        file=sys.stderr,
    )


def render_json(result: PolicyDiff, old: str, new: str) -> str:
    data = {
        "old": old,
        "new": new,
        "era": result.era,
        "semantics": result.semantics,
        "equivalent": result.equivalent,
        "proof_method": "region partition",
        "transitions": [r.to_dict() for r in result.rows if r.verdict != "same"],
    }
    return json.dumps(data, indent=2) + "\n"


def render_text(result: PolicyDiff, old: str, new: str) -> str:
    lines = [f"diff {old} -> {new} ({result.era}, {result.semantics} semantics)"]
    for r in result.rows:
        if r.verdict == "same":
            continue
        head = f"  {r.label:>4} {'/'.join(r.source)} -> {'/'.join(r.target)}: {r.verdict}"
        lines.append(head)
        lines.append(f"         old: {r.old or '(no policy guard)'}  [{r.old_status}]")
        lines.append(f"         new: {r.new or '(no policy guard)'}  [{r.new_status}]")
        if r.proof:
            lines.append(f"         {r.proof}")
        if r.witness is not None:
            lines.append(f"         witness: {r.witness.describe()} (now={r.witness.now})")
            lines.append(f"         old fires: {_yes(r.old_holds)}, new fires: {_yes(r.new_holds)}")
    if result.equivalent:
        lines.append(
            "equivalent: every transition's guard has the same meaning (proof: region partition)"
        )
    else:
        n = len(result.changed)
        lines.append(f"differ: {n} transition{'s' if n != 1 else ''} changed meaning or undecided")
    return "\n".join(lines) + "\n"


def _yes(v: bool | None) -> str:
    return "yes" if v else "no"
