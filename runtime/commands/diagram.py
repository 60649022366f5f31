"""`condor-policy diagram [CONFIG] [--era E] [--policy P] [--states-only] [--show-guards]
[--semantics manual|code] [--unnumbered] [--no-policy] [--assume A=V]
[--trace FILE | --highlight STEPS] -o FILE`.

Draws the era's numbered state/activity figure (or, with `--states-only`, the lettered
state figure) for a compiled policy: transitions the policy makes impossible dashed and
grey, always-true ones green, each edge's simplified guard as its SVG tooltip (and under
its number with `--show-guards`). `--no-policy` draws the spec alone. `--trace FILE`
replays a trace (DESIGN.md trace files, as `condor-policy run`) and lays the path the
slot took over the figure, step numbers on the edges; `--highlight` does the same for a
given list: transition numbers/ids ("1,6,9,11"), a file of them, or `run --format
jsonl` output. The output format is the file's extension: .svg, .png, .pdf (need
Graphviz's `dot` program), .dot/.gv or .mmd (Mermaid flowchart) text.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.errors import PolicyError
from compiler.textio import read_text
from runtime.commands._policy_args import (
    DEFAULT_ERA,
    DEFAULT_SEMANTICS,
    PolicyChoice,
    add_policy_arguments,
    add_slot_argument,
    load_policy,
    print_warnings,
    slot_assumptions,
)

if TYPE_CHECKING:
    from compiler import StateTable
    from compiler.diagram import TraceStep
    from runtime.trace import Trace

# The figure's modules (graphviz, the trace replayer, the compiler's join) are imported by
# the functions that draw: the CLI imports every command module to list the commands, and
# `condor-policy compile` must not pay for drawing (issue 11, cold compile).

NAME = "diagram"
HELP = "Draw the state/activity (or state) figure of a policy as SVG, PNG, PDF, DOT or Mermaid."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    add_slot_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        required=True,
        help="output file; its extension picks the format: .svg .png .pdf .dot .mmd (Mermaid)",
    )
    parser.add_argument(
        "--states-only",
        action="store_true",
        help="the state figure (lettered state transitions) instead of states and activities",
    )
    parser.add_argument(
        "--show-guards",
        action="store_true",
        help="print each edge's simplified guard under its number (long ones shortened; "
        "the full text is the SVG tooltip)",
    )
    parser.add_argument(
        "--unnumbered",
        action="store_true",
        help="also draw the transitions only the startd code has (thin, dotted)",
    )
    parser.add_argument(
        "--no-policy",
        action="store_true",
        help="draw the era's spec alone (no policy compiled, no dead/always styling)",
    )
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="ATTR=VALUE",
        help="fix an attribute to a ClassAd literal before simplifying, as for compile "
        "(e.g. KeyboardIdle=0: what is dead while the owner types); repeatable",
    )
    parser.set_defaults(era=None, semantics=None)  # a --trace file may name them
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument(
        "--trace",
        metavar="FILE",
        help="replay this trace (as `condor-policy run` does) and highlight its path",
    )
    paths.add_argument(
        "--highlight",
        metavar="STEPS",
        help="highlight a run: '1,6,9,11', or a file of numbers/ids or of "
        "'run --format jsonl' lines",
    )


def run(args: argparse.Namespace) -> int:
    from compiler.diagram import DiagramError, extract, write
    from compiler.spec import load_spec
    from runtime.commands.compile import parse_assumption
    from runtime.trace import read_trace

    trace_file = read_trace(args.trace) if args.trace else None
    if trace_file is not None:  # like `run`: the trace's era/semantics unless given
        args.era = args.era or trace_file.era
        args.semantics = args.semantics or trace_file.semantics
    args.era = args.era or DEFAULT_ERA
    args.semantics = args.semantics or DEFAULT_SEMANTICS
    choice = load_policy(args)
    spec = load_spec(choice.era, choice.semantics)
    assume = slot_assumptions(choice, dict(parse_assumption(text) for text in args.assume))
    described = choice.description
    steps: Sequence[TraceStep] | None = None
    table: StateTable | None
    if trace_file is not None:
        table, steps = _replay(choice, trace_file, assume)
        source = args.trace
        if trace_file.config:
            described = f"{described} + {args.trace} config"
    else:
        table = None if args.no_policy else _compile(choice, assume)
        steps = read_steps(args.highlight) if args.highlight else None
        source = args.highlight
    if table is not None:
        print_warnings(table.warnings)
    try:
        diagram = extract(
            spec,
            table,
            steps,
            kind="states" if args.states_only else "activities",
            unnumbered=args.unnumbered,
            policy=described,
        )
    except DiagramError as err:  # only the steps can be wrong here
        err.file = err.file or source
        raise
    write(diagram, args.output, show_guards=args.show_guards)
    return 0


def _replay(
    choice: PolicyChoice, trace: Trace, assume: Mapping[str, Any]
) -> tuple[StateTable, list[TraceStep]]:
    """Compile (with the trace's `config:` on top, as `run` does) and replay the trace;
    the fired rows by id, so code-only rows resolve exactly."""
    from compiler import compile_policy
    from runtime.trace import replay

    config = choice.config
    if trace.config:
        config = config.with_overrides(trace.config, source=f"{trace.file} config")
    table = compile_policy(config, choice.era, choice.semantics)
    slot = replay(trace, table)
    if assume:  # the figure shows the policy under the assumptions; the run is real
        table = compile_policy(config, choice.era, choice.semantics, assume=assume)
    return table, [(fired.t, fired.id) for fired in slot.fired]


def _compile(choice: PolicyChoice, assume: Mapping[str, Any]) -> StateTable:
    from compiler import compile_policy

    return compile_policy(choice.config, choice.era, choice.semantics, assume=assume)


def read_steps(text: str) -> list[TraceStep]:
    """Transition steps from a comma list or a file (numbers/ids, or JSON lines with
    "number")."""
    path = Path(text)
    try:
        is_file = path.is_file()
    except (OSError, ValueError):  # a list too long to be a file name, or with a NUL
        is_file = False
    if not is_file:
        return _tokens(text, file="--highlight", line=None)
    steps: list[TraceStep] = []
    for number, line in enumerate(read_text(path, file=text).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.lstrip().startswith("{"):
            try:
                step = json.loads(line)
            except json.JSONDecodeError as err:
                raise PolicyError(
                    f"not a JSON line: {err.msg}", file=text, line=number, source_line=line
                ) from None
            except (ValueError, RecursionError) as err:  # a 5,000-digit number; deep nesting
                raise PolicyError(
                    f"not a usable JSON line: {type(err).__name__}",
                    file=text,
                    line=number,
                    source_line=line,
                ) from None
            _check_json_step(step, file=text, line=number, source_line=line)
            steps.append(step)
        else:
            steps.extend(_tokens(line, file=text, line=number))
    return steps


def _check_json_step(step: Any, *, file: str, line: int, source_line: str) -> None:
    """A JSON line's "id"/"number" text must be a usable step (`step_key`); the error
    points at it."""
    from compiler.diagram import DiagramError, step_key

    if not isinstance(step, dict):
        return
    for name in ("id", "number"):
        value = step.get(name)
        if isinstance(value, str):
            try:
                step_key(value)
            except DiagramError as err:
                column = source_line.find(value[:12])
                err.file, err.line, err.source_line = file, line, source_line
                err.column = column + 1 if column >= 0 else None
                raise


def _tokens(text: str, *, file: str, line: int | None) -> list[TraceStep]:
    """The comma/space separated steps of `text` (one line of a file, or the command-line
    list), each a number or an id (`step_key`); a bad one is an error at its column."""
    from compiler.diagram import DiagramError, step_key

    steps: list[TraceStep] = []
    for token in re.finditer(r"[^,\s]+", text):
        try:
            steps.append(step_key(token.group()))
        except DiagramError as err:
            err.file, err.line, err.column = file, line, token.start() + 1
            if line is not None:
                err.source_line = text
            raise
    return steps
