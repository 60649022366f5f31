"""The pool: the negotiator's accountant (user priorities), and next its group quotas and
negotiation cycle (issue 14; shared/reference/pool.md). Stage: above the ClassAd language
and the slot runtime; the CLI imports only what this face exports.

Public API
----------
`facts(semantics)`, `decay`, `effective_priority`, `priority_factor`, `FactorKnobs`,
`read_history(document, facts, file)`, `replay_history(history, facts)`, `History`,
`Priorities`, `HistoryError` (runtime.pool.accountant); `quota_report(document, *,
semantics, file)`, `group_tree`, `QuotasError` (runtime.pool.groups); `spin_the_pie`,
`Submitter`, `cycle_facts`, `negotiate_snapshot`, `Cycle`, `SnapshotError`, `drive_match`,
`job_keys`, the simulator's lazy slots `HeldSlot` and `UnmatchableSlot` and its queues
`JobQueue` (runtime.pool.negotiate: one negotiation cycle).
"""

from runtime.pool.accountant import (
    FactorKnobs,
    History,
    HistoryError,
    Priorities,
    decay,
    effective_priority,
    facts,
    priority_factor,
    read_history,
    replay_history,
)
from runtime.pool.groups import QuotasError, group_tree, quota_report
from runtime.pool.matchlist import remote_user
from runtime.pool.negotiate import (
    SLOT_ALONE,
    ClaimFacts,
    Cycle,
    HeldSlot,
    JobQueue,
    SnapshotError,
    Submitter,
    UnmatchableSlot,
    claim_facts,
    cycle_facts,
    drive_match,
    job_keys,
    negotiate_snapshot,
    spin_the_pie,
)

__all__ = [
    "SLOT_ALONE",
    "ClaimFacts",
    "Cycle",
    "FactorKnobs",
    "HeldSlot",
    "History",
    "HistoryError",
    "JobQueue",
    "Priorities",
    "QuotasError",
    "SnapshotError",
    "Submitter",
    "UnmatchableSlot",
    "claim_facts",
    "cycle_facts",
    "decay",
    "drive_match",
    "effective_priority",
    "facts",
    "group_tree",
    "job_keys",
    "negotiate_snapshot",
    "priority_factor",
    "quota_report",
    "read_history",
    "remote_user",
    "replay_history",
    "spin_the_pie",
]
