"""`condor-policy compile [CONFIG] [--era E] [--semantics manual|code] [--policy NAME]
[--format table|md|json|csv|config] [--assume ATTR=VALUE ...] [--differences]`.

Prints the era's state table joined with the policy: one row per transition with its
simplified guard and status (live | dead | always). The default is a terminal table
(rich; plain and wide enough when stdout is not a terminal); `--format` picks Markdown,
JSON (schema: docs/state-table-json.md) or CSV; `--format config` writes the policy back
as a condor_config fragment that loads to the same table (compiler/roundtrip.py).
Warnings go to stderr.

CONFIG, `--era`, `--policy`, `--semantics`: as for every policy command
(runtime/commands/_policy_args.py; with no CONFIG, $CONDOR_CONFIG, else the era's
default policy). `--assume 'KeyboardIdle=1e9'` fixes an attribute to a ClassAd literal
(number, string, true/false, undefined; `TARGET.ImageSize=100` for a job attribute) and
shows the residual guards. `--differences` lists the rows where the manual and the code
semantics differ for this policy, with the reference's D-number.

Bad input (unknown template, a malformed `--assume`) exits 2 with a message.

A compile that takes longer than `PROGRESS_AFTER` seconds (a START that is an OR of a
hundred clauses on a slow machine) shows a spinner on stderr until it is done, only when
stderr is a terminal and the output is not JSON, so pipes and scripts see nothing.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from compiler import RowDifference, StateTable, compile_policy, load_attributes, policy_differences
from compiler.classad import UNDEFINED, ClassAdSyntaxError, parse
from compiler.classad import ast as A
from compiler.errors import PolicyError, close_matches
from compiler.simplify import STARTD_DOMAINS
from runtime.commands._policy_args import (
    add_policy_arguments,
    add_slot_argument,
    load_policy,
    print_warnings,
    schedd_findings,
    slot_assumptions,
)

NAME = "compile"
HELP = "Compile a policy into the era's state table (simplified guards, dead/always rows)."
FORMATS = ("table", "md", "json", "csv", "config")
#: Seconds a compile runs before the progress spinner appears.
PROGRESS_AFTER = 2.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    add_slot_argument(parser)
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="ATTR=VALUE",
        help="fix an attribute to a ClassAd literal, e.g. KeyboardIdle=1e9 (repeatable)",
    )
    parser.add_argument(
        "--differences",
        action="store_true",
        help="list the rows where the manual and the code semantics differ for this policy",
    )


def parse_assumption(text: str) -> tuple[str, Any]:
    """'ATTR=VALUE' -> (ATTR, Python value); VALUE must be a ClassAd literal."""
    name, sep, value_text = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise PolicyError(f"expected ATTR=VALUE, got {text!r}", file="--assume")
    scope, _, bare = name.rpartition(".")
    if scope.upper() not in ("", "MY", "TARGET") or not bare.replace("_", "").isalnum():
        raise PolicyError(
            f"{name!r} is not an attribute name (NAME, MY.NAME or TARGET.NAME)", file="--assume"
        )
    try:
        expr = parse(value_text.strip())
    except ClassAdSyntaxError as err:
        raise PolicyError(
            f"{name}: {value_text!r} is not a ClassAd literal: {err}", file="--assume"
        ) from None
    return name, _literal(name, value_text, expr)


def _literal(name: str, text: str, expr: A.Expr) -> Any:
    match expr:
        case A.Integer(value=v) | A.Real(value=v) | A.String(value=v) | A.Boolean(value=v):
            return v
        case A.UndefinedLit():
            return UNDEFINED
        case A.Unary(op="-", operand=A.Integer(value=v) | A.Real(value=v)):
            return -v
        case _:
            raise PolicyError(
                f"{name}: {text!r} is not a literal (number, string, true, false, undefined)",
                file="--assume",
            )


def _unknown_hint(name: str) -> str | None:
    """A warning for an attribute name no table knows, with close matches."""
    bare = name.rpartition(".")[2]
    table = load_attributes()
    known = {a.name.lower(): a.name for a in table.entries}
    known.update({k.lower(): k for k in STARTD_DOMAINS})
    if bare.lower() in known:
        return None
    close = close_matches(bare.lower(), list(known), n=3, cutoff=0.75)
    hint = f"; did you mean {', '.join(known[c] for c in close)}?" if close else ""
    return f"--assume {name}: not a documented machine or job attribute{hint}"


def run(args: argparse.Namespace) -> int:
    assume = dict(parse_assumption(text) for text in args.assume)
    for name in assume:
        hint = _unknown_hint(name)
        if hint:
            print(f"condor-policy: warning: {hint}", file=sys.stderr)
    choice = load_policy(args)
    assume = slot_assumptions(choice, assume)
    message = f"compiling {choice.description} ({choice.era})"
    if args.differences and args.format == "config":
        raise PolicyError("--differences lists rows; it has no config format", file="--format")
    if args.differences:
        with progress(message, fmt=args.format):
            diffs = policy_differences(choice.config, choice.era, assume=assume)
        print(render_differences(diffs, args.format, choice.era, choice.description), end="")
        return 0
    with progress(message, fmt=args.format):
        table = compile_policy(
            choice.config, choice.era, choice.semantics, assume=assume, source=choice.description
        )
    print_warnings(table.warnings)
    for finding in schedd_findings(args, choice):
        print(f"condor-policy: schedd policy: {finding.describe()}", file=sys.stderr)
    if args.format == "config":
        from compiler import config_fragment

        print(config_fragment(table, choice.config), end="")
        return 0
    _print_table(table, args.format)
    return 0


@contextmanager
def progress(
    message: str,
    *,
    fmt: str,
    stream: TextIO | None = None,
    after: float | None = None,
) -> Iterator[None]:
    """A rich spinner with `message` on `stream` (stderr) once the body has run for
    `after` seconds (`PROGRESS_AFTER`), removed when it ends; nothing at all when the
    stream is not a terminal or `fmt` is "json" (machine-read output)."""
    out = sys.stderr if stream is None else stream
    if fmt == "json" or not out.isatty():
        yield
        return
    from rich.console import Console

    status = Console(file=out).status(message)
    lock = threading.Lock()
    state = {"done": False, "shown": False}

    def show() -> None:
        with lock:
            if not state["done"]:
                status.start()
                state["shown"] = True

    timer = threading.Timer(PROGRESS_AFTER if after is None else after, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["shown"]:
                status.stop()


def _print_table(table: StateTable, fmt: str) -> None:
    match fmt:
        case "json":
            print(table.to_json())
        case "csv":
            print(table.to_csv(), end="")
        case "md":
            print(table.to_markdown(), end="")
        case "table" if sys.stdout.isatty():
            _console().print(table.to_rich())
        case "table":
            print(table.to_text(), end="")
        case _:
            raise PolicyError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def _console() -> Any:
    """The terminal's console (the table views go through rich on a terminal only; a pipe
    or a file gets plain aligned columns, `StateTable.to_text`, without importing rich)."""
    from rich.console import Console

    return Console()


_DIFF_COLUMNS = ("item", "D", "why", "manual", "code")


def _diff_cells(d: RowDifference) -> list[str]:
    return [d.id, d.d_number or "", d.why, d.manual, d.code]


def render_differences(diffs: Sequence[RowDifference], fmt: str, era: str, description: str) -> str:
    """The `--differences` listing in the chosen format."""
    title = f"{era}: manual vs code semantics for {description}"
    match fmt:
        case "json":
            body = [dict(zip(_DIFF_COLUMNS, _diff_cells(d), strict=True)) for d in diffs]
            return (
                json.dumps({"era": era, "source": description, "differences": body}, indent=2)
                + "\n"
            )
        case "csv":
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(_DIFF_COLUMNS)
            writer.writerows(_diff_cells(d) for d in diffs)
            return out.getvalue()
        case "md":
            lines = [f"# {title}", "", "| " + " | ".join(_DIFF_COLUMNS) + " |"]
            lines.append("|" + "---|" * len(_DIFF_COLUMNS))
            for d in diffs:
                cells = [c.replace("|", "\\|") for c in _diff_cells(d)]
                lines.append("| " + " | ".join(cells) + " |")
            return "\n".join(lines) + "\n"
        case _ if not sys.stdout.isatty():
            # A pipe: a block per item, since the two sides are whole guards and triggers.
            blocks = [
                f"{d.id}  {d.d_number or '-'}  {d.why}\n  manual: {d.manual}\n  code:   {d.code}\n"
                for d in diffs
            ]
            return f"{title}\n" + "".join(blocks)
        case _:
            from rich.table import Table
            from rich.text import Text

            # Text, not str: rich would read `[...]` in an expression as markup.
            table = Table(title=Text(title))
            for column in _DIFF_COLUMNS:
                table.add_column(column, overflow="fold")
            for d in diffs:
                table.add_row(*(Text(cell) for cell in _diff_cells(d)))
            buffer = io.StringIO()
            console = _console()
            console.file = buffer
            console.print(table)
            return buffer.getvalue()
