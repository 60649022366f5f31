"""`condor-policy run [CONFIG] --trace FILE [--era E] [--semantics manual|code]
[--policy NAME] [--format text|jsonl] [--until T] [--log FILE]`: replay a trace.

The policy (CONFIG, $CONDOR_CONFIG or the era's default, `--policy` template) is compiled
for the era and semantics, the trace's `config:` mapping applied on top of it, and the
trace replayed on simulated time (runtime.trace.replay). `--era`/`--semantics` override
the trace's own `era:`/`semantics:`. Output (`text`): one line per event saying what it
fired or why it fired nothing, and one per fired transition, in the order they happened;
(`jsonl`) DESIGN.md's objects `{"t", "number", "letter", "from", "to", "reason"}` per
fired transition, cascade steps included, and `{"t", "event", "how", "state", "ignored":
true, "reason"}` per event that fired none (docs/trace-format.md). `--log FILE` also
writes the full JSONL event log (events, timers, signals, sensor changes). A trace's
`expect:` key is ignored here (tests use it).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from runtime.commands._policy_args import (
    DEFAULT_ERA,
    DEFAULT_SEMANTICS,
    add_policy_arguments,
    add_slot_argument,
    load_policy,
    print_warnings,
)

NAME = "run"
HELP = "Replay a scripted trace (fake sensors, simulated clock) through the compiled policy."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    add_slot_argument(parser)
    parser.set_defaults(era=None, semantics=None)
    parser.add_argument("--trace", required=True, metavar="FILE", help="trace file (YAML/JSON)")
    parser.add_argument("--format", choices=("text", "jsonl"), default="text")
    parser.add_argument("--until", type=float, metavar="T", help="stop at trace time T")
    parser.add_argument("--log", metavar="FILE", help="append the full JSONL event log here")


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: the CLI imports every command module to list the
    # commands, and `condor-policy compile` must not pay for the replayer (issue 11).
    from compiler import compile_policy
    from runtime.eventlog import EventLog
    from runtime.fired import Fired, in_order
    from runtime.trace import read_trace, replay

    trace = read_trace(args.trace)
    args.era = args.era or trace.era or DEFAULT_ERA
    args.semantics = args.semantics or trace.semantics or DEFAULT_SEMANTICS
    if trace.hardware is not None and args.policy_slot:
        from compiler.errors import PolicyError

        raise PolicyError(
            "--slot picks one slot's policy; a trace with `hardware:` runs every slot",
            file="--slot",
        )
    choice = load_policy(args)
    config = choice.config
    if trace.config:
        config = config.with_overrides(trace.config, source=f"{args.trace} config")
    if trace.hardware is not None:
        return _run_startd(args, trace, config, choice)
    table = compile_policy(config, era=choice.era, semantics=choice.semantics)
    print_warnings(table.warnings, only_loud=True)
    log = EventLog(args.log) if args.log else None
    try:
        slot = replay(trace, table, until=args.until, listener=log)
    finally:
        if log is not None:
            log.close()
    for item in in_order(slot.fired, slot.handled):
        if args.format == "text":
            print(item.to_text())
        elif isinstance(item, Fired) or item.ignored:
            print(json.dumps(item.to_json()))
    if args.format == "text":
        print(f"# {choice.era} ({choice.semantics}): ends {slot.state}/{slot.activity}")
    return 0


def _run_startd(args: argparse.Namespace, trace: Any, config: Any, choice: Any) -> int:
    """A trace with `hardware:`: the configuration's slot layout on that hardware, each
    slot running the table compiled from its own view of the configuration (SLOT<N>_ and
    SLOT_TYPE_<T>_ knobs win), every report tagged with its slot."""
    from compiler import compile_policy
    from compiler.slots import build_layout, hardware_from, slot_attrs
    from runtime.eventlog import EventLog
    from runtime.fired import Fired, Handled
    from runtime.trace import replay_startd

    layout = build_layout(
        config, hardware_from(trace.hardware, args.trace), semantics=choice.semantics
    )
    tables: dict[tuple[int, int], Any] = {}
    own = {n.upper() for n in config.names()}

    def table_of(record: Any) -> Any:
        slot_id = record.slot_id
        if not any(n.startswith(f"SLOT{slot_id}_") for n in own):
            slot_id = 0  # no SLOT<N>_ knob: every slot of the type runs the same table
        key = (slot_id, record.type_id)
        if key not in tables:
            view = config.slot(record.slot_id, record.type_id)
            tables[key] = compile_policy(view, era=choice.era, semantics=choice.semantics)
            print_warnings(tables[key].warnings, only_loud=True)
        return tables[key]

    log = EventLog(args.log) if args.log else None
    try:
        startd = replay_startd(
            trace,
            layout,
            table_of,
            semantics=choice.semantics,
            until=args.until,
            listener=log,
            slot_attrs=slot_attrs(config),
        )
    finally:
        if log is not None:
            log.close()
    for name, item in startd.log:
        if args.format == "text":
            print(f"{name:<9} {item.to_text()}")
        elif not isinstance(item, Handled) or item.ignored:
            record = item.to_json()
            print(
                json.dumps(
                    record if not isinstance(item, Fired | Handled) else {"slot": name, **record}
                )
            )
    if args.format == "text":
        ends = ", ".join(f"{n} {s.state}/{s.activity}" for n, s in startd.slots.items())
        print(f"# {choice.era} ({choice.semantics}): ends {ends}")
    return 0
