"""`condor-policy userprio HISTORY [--semantics code|manual] [--format text|json]`: replay
the negotiator's accountant over a usage history (issue 14, DESIGN.md "The pool").

HISTORY (JSON or YAML): `{"half_life": seconds, "steps": [{"dt": seconds, "in_use": {user:
weighted slots}}], "factors": {user: factor}, "initial": {user: RUP}, "config": "negotiator
configuration text"}`. Each step decays every user's real priority towards the slots the
user held during it (seed 003 3.4.4; the code never below 0.5, D1); the effective priority
is RUP x factor, the factor a stored one (`condor_userprio -setfactor`, the code keeps at
least 1.0) or the configuration's (DEFAULT_PRIO_FACTOR 1000 in the code, 1.0 in the seed;
nice users, remote users, GROUP_PRIO_FACTOR_<group>). JSON: `{"rup": {user: [after each
step]}, "eup": {...}, "factor": {user: f}}`; the text looks like `condor_userprio` after
the last step. The rules: docs/pool.md.
"""

from __future__ import annotations

import argparse
import json

from compiler.errors import PolicyError
from runtime.commands._policy_args import add_pool_arguments

NAME = "userprio"
HELP = "Replay the accountant: real and effective user priorities over a usage history."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_pool_arguments(parser, "HISTORY", "usage history")


def run(args: argparse.Namespace) -> int:
    from compiler.slots import read_document
    from runtime.pool import facts, read_history, replay_history

    known = facts(args.semantics)
    history = read_history(read_document(args.history), known, file=args.history)
    result = replay_history(history, known)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
        return 0
    if not history.steps:
        raise PolicyError("the history has no steps", file=args.history)
    last = history.steps[-1]
    print(
        f"condor-policy userprio: {len(history.steps)} step(s), "
        f"{sum(s.dt for s in history.steps):g} s, half-life {history.half_life:g} s "
        f"({args.semantics} semantics)"
    )
    rows = sorted(result.users, key=lambda u: (result.eup[u][-1], u))
    width = max([len("User Name"), *(len(u) for u in rows)])
    print(f"{'':{width}} {'Effective':>14} {'Real':>10} {'Priority':>12} {'In Use':>8}")
    print(f"{'User Name':{width}} {'Priority':>14} {'Priority':>10} {'Factor':>12} {'(last)':>8}")
    print(f"{'-' * width} {'-' * 14} {'-' * 10} {'-' * 12} {'-' * 8}")
    for user in rows:
        print(
            f"{user:{width}} {result.eup[user][-1]:>14.2f} {result.rup[user][-1]:>10.2f} "
            f"{result.factor[user]:>12.2f} {last.in_use.get(user, 0.0):>8g}"
        )
    print(f"{'-' * width} {'-' * 14} {'-' * 10} {'-' * 12} {'-' * 8}")
    print(f"Number of users: {len(rows)}")
    return 0
