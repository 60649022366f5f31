"""`condor-policy quotas QUOTAS [--semantics code|manual] [--format text|json]`: the
negotiator's hierarchical group quotas for one cycle (issue 14, DESIGN.md "The pool").

QUOTAS (JSON or YAML): `{"config": "negotiator configuration text (GROUP_NAMES,
GROUP_QUOTA_<g>, GROUP_QUOTA_DYNAMIC_<g>, GROUP_ACCEPT_SURPLUS ...)", "total_slots": n,
"demand": {group: weighted jobs}, "usage": {group: weighted slots in use}}`, the root group
named `<none>`. Output per group: `quota` (its own node's share), `subtree_quota` (what it
received), `allocation` (this cycle's, demand and surplus considered), `limit` (what it
negotiates with in the first round) and `order` (the place GROUP_SORT_EXPR gives it).
`--semantics manual` reads seed 003: over-committed subgroups scaled, quotas truncated with
the remainders passed up. Rules: docs/pool.md.
"""

from __future__ import annotations

import argparse
import json

from runtime.commands._policy_args import add_pool_arguments

NAME = "quotas"
HELP = "Hierarchical group quotas: each group's quota, allocation, limit and order."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_pool_arguments(parser, "QUOTAS", "groups, pool size, demand")


def run(args: argparse.Namespace) -> int:
    from compiler.slots import read_document
    from runtime.pool import quota_report

    report = quota_report(read_document(args.quotas), semantics=args.semantics, file=args.quotas)
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return 0
    width = max(len("Group"), *(len(name) for name in report))
    print(f"condor-policy quotas ({args.semantics} semantics)")
    head = f"{'Group':{width}} {'Quota':>12} {'Subtree':>12} {'Allocated':>12} {'Limit':>7} {'Order':>5}"
    print(head)
    print("-" * len(head))
    for name, row in sorted(report.items(), key=lambda item: item[1]["order"]):
        print(
            f"{name:{width}} {row['quota']:>12.3f} {row['subtree_quota']:>12.3f} "
            f"{row['allocation']:>12.3f} {row['limit']:>7} {row['order']:>5}"
        )
    return 0
