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

from runtime.commands._policy_args import add_pool_arguments

NAME = "negotiate"
HELP = "One negotiation cycle over a pool snapshot: who gets which slot, and why not."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_pool_arguments(parser, "SNAPSHOT", "machines, submitters and their jobs")


def run(args: argparse.Namespace) -> int:
    from compiler.slots import read_document
    from runtime.pool import negotiate_snapshot

    cycle = negotiate_snapshot(
        read_document(args.snapshot), semantics=args.semantics, file=args.snapshot
    )
    if args.format == "json":
        print(json.dumps(cycle.to_json(), indent=2))
        return 0
    print(f"condor-policy negotiate ({args.semantics} semantics)")
    print("Submitters in order: " + ", ".join(cycle.submitter_order))
    for match in cycle.matches:
        print(f"  {match['job']:>10} -> {match['slot']}  ({match['reason'].replace('_', ' ')})")
    for name, count in cycle.match_count.items():
        print(f"{name}: {count} match(es)")
    for job, why in cycle.why_unmatched.items():
        print(f"Job {job} not matched: {why['slots']} slots;")
        for clause, rejects in why["clauses"].items():
            print(f"  {rejects:>6} rejected by its Requirements clause  {clause}")
        print(f"  {why['rejected_by_slot_requirements']:>6} refuse it by their own Requirements")
        print(f"  {why['matching_both_ways']:>6} match both ways: "
              f"{why['matched_to_others_this_cycle']} went to other jobs this cycle, "
              f"{why['busy_not_preemptable']} are busy and may not be preempted")  # fmt: skip
    return 0
