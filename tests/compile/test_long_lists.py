"""A START that is a long allow-list compiles: the compile is retried with a deep stack.

`Owner == "u0" || ... || Owner == "u399"` nests one level per operand; expanding,
simplifying and compiling it walk the tree recursively and ran out of Python's recursion
limit (a RecursionError traceback from `condor-policy compile`).
"""

from __future__ import annotations

from compiler.config import load_config
from compiler.policy import compile_policy

USERS = 400


def test_a_400_user_allow_list_compiles_and_keeps_every_user() -> None:
    text = "START = " + " || ".join(f'Owner == "u{i}"' for i in range(USERS)) + "\n"
    table = compile_policy(load_config(text=text), "htcondor-current")
    guards = [
        guard
        for row in table.rows
        for guard in (*row.triggers, *row.choices, row.guard)
        if guard is not None and guard.against == "job" and '"u399"' in guard.simplified
    ]
    assert guards, "the allow-list disappeared from the table"
    # The compiled predicates still tell listed owners from the others (the slot ad has
    # no Owner, so START reads the job's).
    machine = {"KeyboardIdle": 0, "LoadAvg": 0.0, "State": "Unclaimed", "Activity": "Idle"}
    for guard in guards:
        outcomes = {
            owner: guard.predicate(machine, {"Owner": owner}) for owner in ("u0", "u399", "u400")
        }
        assert outcomes["u0"] == outcomes["u399"] != outcomes["u400"], (guard.simplified, outcomes)
