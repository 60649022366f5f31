"""`condor-policy check [CONFIG] [--era E] [--semantics manual|code] [--properties FILE]
[--max-examples N] [--seed S] [--format text|json] [--diagram FILE] [--strict]
[--slot NAME | --hardware HW]`.

Answers an administrator's questions about a policy with a proof or a minimal
counterexample:
1. static analysis of the compiled table (compiler.analysis): dead and always-true
   transitions, unreachable pairs, flapping, Suspended never left, jobs never evicted,
   vacating forever, and the manuals' warnings as lints;
2. dynamic checking (runtime.check): hypothesis-generated traces run on the compiled
   machine, judged by the built-in conformance properties, the admin's properties
   (docs/properties.md) and a cross-check against the reference interpreter; each
   violated property gets a shrunk counterexample, printed as a trace file that
   `condor-policy run` replays, with the numbered path it takes (and, with `--diagram`,
   the figure with that path highlighted);
3. coverage of the generated traces (transitions fired, guard outcomes seen).

Exit status (docs/findings.md): 0 when every property holds and no finding fails; 1 on a
violated property or a finding of severity violation or error (with `--strict`, warning
too); 2 on bad input; 3 when the compiled machine and the reference interpreter disagree
(an internal error of condor-policy, printed with its trace: the result cannot be trusted).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.errors import PolicyError
from runtime.commands._policy_args import (
    PolicyChoice,
    add_policy_arguments,
    add_slot_argument,
    load_policy,
    print_warnings,
    schedd_findings,
)

if TYPE_CHECKING:
    from runtime.check.report import CheckReport

NAME = "check"
HELP = "Static analysis and property-based conformance testing of a compiled policy."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    add_slot_argument(parser)
    parser.add_argument(
        "--properties", metavar="FILE", help="admin properties (docs/properties.md)"
    )
    parser.add_argument("--max-examples", type=int, default=200, metavar="N",
                        help="generated traces per run (default 200)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--diagram", metavar="FILE",
                        help="write the figure with the first counterexample's path highlighted")  # fmt: skip
    parser.add_argument("--counterexamples", metavar="DIR",
                        help="also write each counterexample trace to DIR/<n>.yaml "
                             "(internal errors to DIR/internal-<n>.yaml)")  # fmt: skip
    parser.add_argument("--static-only", action="store_true", help="skip the dynamic check")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit 1) on warnings too, not only on violations and errors")  # fmt: skip
    parser.add_argument("--hardware", metavar="HW",
                        help="check every slot of this machine (the `slots` command's hardware "
                             "file): each slot's own policy, one report per slot")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from runtime.check.properties import read_properties

    if args.max_examples < 1:
        raise PolicyError("--max-examples must be at least 1", file="--max-examples")
    choice = load_policy(args)
    props_text = None
    if args.properties:
        props_text = (args.properties, read_properties(args.properties))
    if args.hardware:
        return _run_machine(args, choice, props_text)
    return _run_one(args, choice, props_text)


def _run_machine(
    args: argparse.Namespace, choice: PolicyChoice, props_text: tuple[str, str] | None
) -> int:
    """`--hardware`: every slot the startd makes of the machine, each checked with its own
    view of the configuration (SLOT<N>_ and SLOT_TYPE_<T>_ knobs first, as `--slot`);
    the exit status is the worst slot's. Dynamic slots run their partitionable slot's
    policy, so the partitionable slot's report covers them."""
    from compiler.slots import build_layout, hardware_from, read_document, slot_view

    for option, given in (("--slot", args.policy_slot), ("--diagram", args.diagram)):
        if given:
            raise PolicyError(f"{option} checks one slot: it does not go with --hardware",
                              file=option)  # fmt: skip
    hardware = hardware_from(read_document(args.hardware), args.hardware)
    layout = build_layout(choice.config, hardware, semantics=choice.semantics)
    reports: dict[str, Any] = {}
    texts: list[str] = []
    status = 0
    for slot in layout.slots:
        view = slot_view(choice.config, slot.name, semantics=choice.semantics)
        one = PolicyChoice(view, choice.era, choice.semantics, f"{choice.description}, {slot.name}")
        report = _check(args, one, props_text, folder_suffix=slot.name)
        reports[slot.name] = report.to_dict()
        texts.append(
            f"== {slot.name} ({slot.kind}, slot type {slot.type_id}) ==\n{report.to_text()}"
        )
        status = max(status, report.exit_status)
    if args.format == "json":
        document = {"hardware": args.hardware, "slots": reports, "exit_status": status}
        print(json.dumps(document, indent=2, default=_json_default))
    else:
        print("\n".join(texts))
        print(f"machine: {len(reports)} slot(s) checked, exit status {status}")
    return status


def _run_one(
    args: argparse.Namespace, choice: PolicyChoice, props_text: tuple[str, str] | None
) -> int:
    report = _check(args, choice, props_text)
    if args.diagram and report.counterexamples:
        report.write_diagram(args.diagram)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2, default=_json_default))
    else:
        print(report.to_text())
    return report.exit_status


def _check(
    args: argparse.Namespace,
    choice: PolicyChoice,
    props_text: tuple[str, str] | None,
    *,
    folder_suffix: str | None = None,
) -> CheckReport:
    """One policy checked as the arguments say; its counterexamples written to
    --counterexamples (under a folder per slot for a whole machine)."""
    from runtime.check.report import check_policy

    progress = (
        _progress(args.max_examples) if sys.stderr.isatty() and not args.static_only else None
    )
    try:
        report: CheckReport = check_policy(
            choice.config,
            era=choice.era,
            semantics=choice.semantics,
            source=choice.description,
            properties=props_text,
            max_examples=args.max_examples,
            seed=args.seed,
            dynamic=not args.static_only,
            progress=progress.advance if progress else None,
            strict=args.strict,
        )
    finally:
        if progress is not None:
            progress.close()
    report.findings = (*report.findings, *schedd_findings(args, choice))
    print_warnings(report.table.warnings, only_loud=True)
    if args.counterexamples:
        folder = Path(args.counterexamples)
        if folder_suffix is not None:
            folder = folder / folder_suffix
        folder.mkdir(parents=True, exist_ok=True)
        # numbered as printed: "Counterexample N" and "Internal error N"
        for index, cx in enumerate(report.violated, start=1):
            (folder / f"{index}.yaml").write_text(cx.trace_yaml, encoding="utf-8")
        for index, cx in enumerate(report.internal_errors, start=1):
            (folder / f"internal-{index}.yaml").write_text(cx.trace_yaml, encoding="utf-8")
    return report


def _json_default(value: Any) -> Any:
    return str(value)


class _Progress:
    """A rich progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import Progress

        self.bar = Progress(console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task("generating traces", total=total)

    def advance(self, count: int) -> None:
        self.bar.update(self.task, completed=count, description=f"traces tried: {count}")

    def close(self) -> None:
        self.bar.stop()


def _progress(total: int) -> _Progress:
    return _Progress(total)
