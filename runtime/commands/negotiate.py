"""`condor-policy negotiate SNAPSHOT [--semantics code|manual] [--format text|json]`: what
the negotiator's next cycle does with a pool snapshot (issue 14, DESIGN.md "The pool").

SNAPSHOT (JSON or YAML): `{"config": "negotiator configuration text", "machines": [{"name":
"slot1@m1", "ad": {attr: ClassAd source text}}], "submitters": [{"name": "u@domain", "rup":
x, "factor": f, "jobs": [{"id": "1.0", "ad": {...}}]}]}`, or `machines_file` / `jobs_file` /
`userprio_file` naming condor_status / condor_q (-l or -json) and condor_userprio -l dumps.
With GROUP_NAMES the groups negotiate in order, each within its first-round limit. The cycle: submitters by EUP, pie slices, the schedd's job order and
autoclusters, both Requirements, NEGOTIATOR_PRE_JOB_RANK / job Rank / NEGOTIATOR_POST_JOB_RANK,
the three reasons (no preemption, RANK, priority with PREEMPTION_REQUIREMENTS) and
PREEMPTION_RANK; every match says why, every unmatched job why not. Rules: docs/pool.md.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from runtime.commands._policy_args import add_pool_arguments

NAME = "negotiate"
HELP = "One negotiation cycle over a pool snapshot: who gets which slot, and why not."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_pool_arguments(parser, "SNAPSHOT", "machines, submitters and their jobs")
    parser.add_argument(
        "--startd",
        metavar="CONFIG",
        help="the startd configuration of the matched slots: each match then drives the "
        "slot's own compiled table (an idle slot is claimed; a RANK or priority match "
        "is a preempting claim) and the transitions it fires are shown",
    )


def run(args: argparse.Namespace) -> int:
    from compiler.slots import read_document
    from runtime.pool import negotiate_snapshot

    cycle = negotiate_snapshot(
        read_document(args.snapshot), semantics=args.semantics, file=args.snapshot
    )
    document = cycle.to_json()
    if args.startd:
        from compiler import compile_policy
        from compiler.config import load_config
        from runtime.pool import drive_match

        table = compile_policy(load_config(args.startd), semantics=args.semantics)
        for match in document["matches"]:
            fired = drive_match(
                table, cycle.slot_ads[match["slot"]], cycle.job_ads[match["job"]], match["reason"]
            )
            match["startd"] = [f.to_json() for f in fired]
    if args.format == "json":
        print(json.dumps(document, indent=2))
        return 0
    print(f"condor-policy negotiate ({args.semantics} semantics)")
    print("Submitters in order: " + ", ".join(cycle.submitter_order))
    for match in document["matches"]:
        print(f"  {match['job']:>10} -> {match['slot']}  ({match['reason'].replace('_', ' ')})")
        for fired in match.get("startd", []):
            path = f"{'/'.join(fired['from'])} -> {'/'.join(fired['to'])}"
            print(f"{'':14}slot: #{fired['number']}: {path}")
    for name, count in cycle.match_count.items():
        print(f"{name}: {count} match(es)")
    for jobs, why in _alike(cycle.why_unmatched):
        who = f"Job {jobs[0]}" if len(jobs) == 1 else f"Jobs {jobs[0]} .. {jobs[-1]} ({len(jobs)})"
        print(f"{who} not matched: {why['slots']} slots;")
        for clause, rejects in why["clauses"].items():
            print(f"  {rejects:>6} rejected by its Requirements clause  {clause}")
        print(f"  {why['rejected_by_slot_requirements']:>6} refuse it by their own Requirements")
        print(f"  {why['matching_both_ways']:>6} match both ways: "
              f"{why['matched_to_others_this_cycle']} went to other jobs this cycle, "
              f"{why['busy_not_preemptable']} are busy and may not be preempted")  # fmt: skip
    return 0


def _alike(why_unmatched: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """Consecutive unmatched jobs with the same analysis (an autocluster's jobs), together:
    the text form says it once for them (the JSON form keeps one entry per job)."""
    runs: list[tuple[list[str], dict[str, Any]]] = []
    for job, why in why_unmatched.items():
        if runs and runs[-1][1] == why:
            runs[-1][0].append(job)
        else:
            runs.append(([job], why))
    return runs
