"""`condor-policy slots [CONFIG] --hardware HW [--jobs JOBS [--negotiator]] [--load LOAD]
[--format table|json]`: the slots one startd makes of one machine (DESIGN.md "Machines with
many slots").

HW (JSON or YAML) is what the startd detects: `cpus`, `memory_mb`, `disk_kb` (free on the
execute partition after RESERVED_DISK), `swap_kb`, optional `resources: {GPUs: [ids]}` and
`resource_properties: {id: {attr: value}}`. The output lists every slot with what it
publishes (`Cpus`, `Memory` in MB, `Disk` and `Swap` in KB, `TotalSlot*`, custom amounts
and `Assigned<name>`) and the machine totals. A configuration the startd refuses at
start-up exits 2 with the startd's log text and how it stops.

`--jobs JOBS` applies `{"jobs": [job ad | {"release": "slot1_1"}], "pslot": "slot1"}` in
order to the partitionable slot (compiler.slots.partition); `--negotiator` matches the
jobs as the negotiator does in one cycle instead (compiler.slots.consumption);
`--load LOAD` hands out the machine's load (runtime.slots.load). `--semantics`
(default code: the 23.0 startd) chooses where the seed and 23.0 differ (docs/slots.md).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from compiler.errors import PolicyError
from compiler.slots import Layout, build_layout, hardware_from, layout_report, read_document
from runtime.commands._policy_args import add_policy_arguments, load_policy

NAME = "slots"
HELP = "Show the slots a startd makes of a machine (--hardware), split by jobs (--jobs)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    parser.add_argument(
        "--hardware", metavar="HW", required=True, help="detected hardware (JSON or YAML)"
    )
    parser.add_argument(
        "--jobs", metavar="JOBS", help="job ads (and releases) applied to the partitionable slot"
    )
    parser.add_argument(
        "--negotiator",
        action="store_true",
        help="with --jobs: match as the negotiator does in one cycle (consumption policies)",
    )
    parser.add_argument("--load", metavar="LOAD", help="system and per-slot load to hand out")
    parser.add_argument("--format", choices=("table", "json"), default="table")


def report(args: argparse.Namespace) -> tuple[Layout, dict[str, Any]]:
    """The layout and the JSON document the arguments ask for."""
    choice = load_policy(args)
    hardware = hardware_from(read_document(args.hardware), args.hardware)
    layout = build_layout(choice.config, hardware, semantics=choice.semantics)
    result: dict[str, Any] = layout_report(layout)
    if args.negotiator and not args.jobs:
        raise PolicyError("--negotiator needs --jobs", file="--negotiator")
    if args.jobs:
        jobs = read_document(args.jobs)
        if args.negotiator:
            result.update(_negotiator(layout, jobs, args.jobs, choice.semantics))
        else:
            from compiler.slots import jobs_report

            result.update(jobs_report(layout, jobs, semantics=choice.semantics, file=args.jobs))
    if args.load:
        _merge_load(result, _load(layout, choice, args.load))
    return layout, result


def _negotiator(layout: Layout, jobs: Any, path: str, semantics: str) -> dict[str, Any]:
    """`--negotiator`: compiler.slots.consumption's one-cycle match against the p-slot ad."""
    from compiler.slots import json_ad, negotiator_report, pslot_of, slot_ad

    pslot = pslot_of(layout, jobs, path)
    result: dict[str, Any] = negotiator_report(
        json_ad(slot_ad(layout, pslot)), jobs, semantics=semantics, file=path
    )
    return result


def _load(layout: Layout, choice: Any, path: str) -> dict[str, Any]:
    """`--load`: runtime.slots.load's hand-out of owner load, keyboard and console (the
    document read with positions, so a bad key is reported at its line)."""
    from runtime.slots.load import load_report, read_load_document

    document = read_load_document(path)
    names = [slot.name for slot in layout.slots]
    result: dict[str, Any] = load_report(names, document, choice.config, semantics=choice.semantics)
    return result


def _merge_load(result: dict[str, Any], load: Mapping[str, Any]) -> None:
    """DESIGN.md's LOAD output, `"slots": {name: {...}}` and `"machine": {...}`, merged
    into the layout's own `slots` records and `machine` totals (same keys, one document)."""
    per_slot = load.get("slots", {})
    for record in result["slots"]:
        record.update(per_slot.get(record["name"], {}))
    result["machine"].update(load.get("machine", {}))


def run(args: argparse.Namespace) -> int:
    _layout, result = report(args)
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        print(render_table(result))
    return 0


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    cells = [header] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]


#: The per-slot keys `--load` adds (DESIGN.md), shown as extra columns.
LOAD_KEYS = ("OwnerLoad", "LoadAvg", "CondorLoadAvg", "KeyboardIdle", "ConsoleIdle")


def render_table(result: Mapping[str, Any]) -> str:
    """The `--format table` text: slots, the machine, and whatever the options added."""
    slots = result["slots"]
    customs = [k for k in result["machine"] if k.startswith("Detected")]
    names = [k[len("Detected") :] for k in customs]
    load = [k for k in LOAD_KEYS if any(k in slot for slot in slots)]
    header = ["slot", "type", "kind", "Cpus", "Memory", "Disk", "Swap", *names, *load]
    rows: list[list[object]] = []
    for slot in slots:
        kind = "partitionable" if slot["partitionable"] else "static"
        row: list[object] = [slot["name"], slot["type"], kind]
        row += [slot["Cpus"], slot["Memory"], slot["Disk"], slot["Swap"]]
        for name in names:
            ids = slot.get(f"Assigned{name}")
            row.append(f"{slot[name]} ({ids})" if ids else slot[name])
        row += [slot.get(key) for key in load]
        rows.append(row)
    lines = _table(header, rows)
    machine = result["machine"]
    lines.append("")
    lines.append("machine: " + ", ".join(f"{k} = {_cell(v)}" for k, v in machine.items()))
    if "dynamic" in result:
        lines.append("")
        lines.append("dynamic slots created:")
        head = ["request", "slot", "Cpus", "Memory", "Disk", "Swap", "SlotWeight"]
        lines += _table(
            head,
            [
                [
                    d["request_index"],
                    d["name"],
                    d["Cpus"],
                    d["Memory"],
                    d["Disk"],
                    d["Swap"],
                    d["SlotWeight"],
                ]
                for d in result["dynamic"]
            ],
        )
        for refused in result.get("refused", []):
            lines.append(f"request {refused['request_index']} refused: {refused['reason']}")
        remaining = result.get("remaining", {})
        lines.append("remaining: " + ", ".join(f"{k} = {_cell(v)}" for k, v in remaining.items()))
        at_end = result.get("dynamic_slots_at_end", [])
        lines.append("dynamic slots at the end: " + (", ".join(at_end) or "none"))
    if "matches" in result:
        lines.append("")
        for match in result["matches"]:
            used = ", ".join(f"{k} {_cell(v)}" for k, v in match.get("consumption", {}).items())
            verdict = "matched" if match["matched"] else "not matched"
            lines.append(
                f"request {match['request_index']}: {verdict}; consumption {used or '-'};"
                f" cost {_cell(match.get('cost'))}"
            )
        remaining = result.get("remaining", {})
        lines.append("remaining: " + ", ".join(f"{k} = {_cell(v)}" for k, v in remaining.items()))
    return "\n".join(lines)
