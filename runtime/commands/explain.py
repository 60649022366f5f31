"""`condor-policy explain [CONFIG] --machine AD [--job AD] [--at STATE/ACTIVITY]
[--now EPOCH] [--format text|json]`: why is my slot doing this.

The policy (CONFIG, $CONDOR_CONFIG or the era's default, `--policy` template) is compiled
for the era and semantics; the slot ad (any form `eval --machine` reads) is explained in
its State/Activity (or `--at`) at its MyCurrentTime (or `--now`): every policy
transition the startd's evaluation pass tries there, in order, with its guard's value
and deciding clauses, which one fires, the smallest change that would make the others
fire, when a clock-driven guard flips, and, with `--job`, whether START and the
Requirements accept the job (runtime.explain). Exit 0; 2 on bad input. The JSON is
`Explanation.to_dict` (docs/explain.md).
"""

from __future__ import annotations

import argparse
import json

from runtime.commands._policy_args import add_policy_arguments, load_policy, print_warnings

NAME = "explain"
HELP = "Explain a slot: which transitions could leave its state, their guards, what fires."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_policy_arguments(parser)
    parser.add_argument("--machine", required=True, metavar="AD_FILE", help="slot ad (MY)")
    parser.add_argument("--job", metavar="AD_FILE", help="job ad (TARGET)")
    parser.add_argument(
        "--at", metavar="STATE/ACTIVITY", help="explain this pair (default: the ad's)"
    )
    parser.add_argument(
        "--now",
        type=float,
        metavar="EPOCH",
        help="the instant (default: the ad's MyCurrentTime, else LastHeardFrom, else now)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from compiler import compile_policy
    from runtime.commands.eval import load_ad_file
    from runtime.explain import explain_slot, parse_pair, render_text

    machine = load_ad_file(args.machine)
    job = load_ad_file(args.job) if args.job else None
    choice = load_policy(args)
    table = compile_policy(choice.config, era=choice.era, semantics=choice.semantics)
    print_warnings(table.warnings, only_loud=True)
    pair = parse_pair(args.at, table) if args.at else None
    explanation = explain_slot(table, choice.config, machine, job, pair=pair, now=args.now)
    if args.format == "json":
        print(json.dumps(explanation.to_dict(), indent=2))
    else:
        print(render_text(explanation), end="")
    return 0
