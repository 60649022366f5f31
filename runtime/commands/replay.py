"""`condor-policy replay STARTLOG [CONFIG] [--era E] [--semantics manual|code]
[--policy NAME] [--format text|json] [--diagram FILE] [--slot NAME]`.

Reads a real startd log, maps each `Changing state ...` line to the era's numbered
transition (and letter) and flags every change the compiled policy could not have made
from that pair: the wrong era, the wrong semantics, or a configuration that is not the
one the daemon ran (runtime/replay/check.py says how). Prints, per slot, the numbered
path and the flagged steps with their reason (`STARTLOG:line:col: [kind] reason`), then
a summary; `--format json` gives the same as JSON (docs/replay.md). `--diagram FILE`
draws the era's figure with one slot's observed path highlighted (`--slot`, default the
first slot of the log), as `diagram --highlight` does.

CONFIG, `--era`, `--policy`, `--semantics`: as for every policy command
(runtime/commands/_policy_args.py). Exit status: 0 when every change was possible, 1
when any is flagged, 2 on bad input (no such log, a mangled change line, a log without
any state change).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from compiler.errors import PolicyError
from runtime.commands._policy_args import add_policy_arguments, load_policy, print_warnings

NAME = "replay"
HELP = "Check a real startd log against the policy: numbered path, impossible changes flagged."
FORMATS = ("text", "json")

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compiler import StateTable
    from runtime.replay.check import Replay
    from runtime.replay.logparse import LogEntry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("startlog", metavar="STARTLOG", help="the startd's log (StartLog)")
    add_policy_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "--diagram",
        metavar="FILE",
        help="draw the figure with the observed path highlighted (.svg, .png, .dot, .mmd)",
    )
    parser.add_argument(
        "--slot",
        metavar="NAME",
        help="the slot whose path --diagram highlights (default: the log's first slot)",
    )


def run(args: argparse.Namespace) -> int:
    from compiler import compile_policy
    from compiler.textio import read_text
    from runtime.replay import parse_log, replay_log
    from runtime.replay.report import render_json, render_text

    text = read_text(args.startlog, keep_bytes=True)
    entries = parse_log(text, file=args.startlog)
    choice = load_policy(args)
    table = compile_policy(choice.config, choice.era, choice.semantics, source=choice.description)
    other_semantics = "manual" if choice.semantics == "code" else "code"
    other = compile_policy(choice.config, choice.era, other_semantics, source=choice.description)
    print_warnings(table.warnings, only_loud=True)
    replay = replay_log(entries, table, other=other)
    if not replay.slots:
        raise PolicyError(
            "no state changes in this log (the startd writes 'Changing state ...' lines "
            "at its default debug level): is it a StartLog?",
            file=args.startlog,
        )
    if args.diagram:
        _draw(args, replay, table)
    hints = _possible_with(args, entries) if _era_or_semantics(replay) else []
    if args.format == "json":
        print(render_json(replay, args.startlog, possible_with=hints), end="")
    else:
        print(render_text(replay, args.startlog, possible_with=hints), end="")
    return 1 if replay.flagged else 0


def _era_or_semantics(replay: Replay) -> bool:
    return any(f.kind in ("era", "semantics") for s in replay.flagged for f in s.flags)


def _possible_with(args: argparse.Namespace, entries: Sequence[LogEntry]) -> list[tuple[str, str]]:
    """The other (era, semantics) under which this policy makes every change of the log:
    what to pass instead when a flag says the era or the semantics is wrong."""
    from compiler import compile_policy
    from compiler.spec import ERAS, SEMANTICS
    from runtime.replay import replay_log

    found = []
    for era in ERAS:
        try:
            choice = load_policy(argparse.Namespace(**{**vars(args), "era": era}))
        except PolicyError:  # the configuration does not read in that era
            continue
        for semantics in SEMANTICS:
            if (era, semantics) == (args.era, args.semantics):
                continue
            try:
                table = compile_policy(choice.config, era, semantics)
                if not replay_log(entries, table).flagged:
                    found.append((era, semantics))
            except PolicyError:  # a policy that does not compile in that era
                continue
    return found


def _draw(args: argparse.Namespace, replay: Replay, table: StateTable) -> None:
    from compiler.diagram import extract, write
    from runtime.replay.report import diagram_steps

    slots = {s.slot: s for s in replay.slots}
    name = args.slot or replay.slots[0].slot
    if name not in slots:
        raise PolicyError(
            f"the log has no slot {name!r} (slots: {', '.join(slots)})", file="--slot"
        )
    steps = diagram_steps(slots[name])
    unnumbered = any(not isinstance(table.row(key).number, int) for _, key in steps)
    diagram = extract(
        table.spec,
        table,
        steps,
        unnumbered=unnumbered,
        policy=f"{table.source}; {args.startlog} {name}",
    )
    write(diagram, args.diagram)
