"""The slots a job could get, best first: `matchmakingAlgorithm` steps 1-4 and 7 over a
whole pool at once (shared/reference/pool.md 3.6).

The negotiator asks the same questions of every slot for the first job of an
autocluster; here they are asked of all slots together, column-wise
(compiler.classad.match_columns): both Requirements, the reason a slot could go to the
job (no preemption, RANK, priority with PREEMPTION_REQUIREMENTS), the sort key
(NEGOTIATOR_PRE_JOB_RANK, the job's Rank, NEGOTIATOR_POST_JOB_RANK, the reason,
PREEMPTION_RANK), each answer the scalar evaluator's. The submitter limit (step 5) is
checked by the cycle when an entry is taken.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime.pool.groups import FLT_MAX  # -FLT_MAX: PREEMPTION_RANK of an idle candidate

#: -DBL_MAX: a negotiator rank that is unset or not a number (`EvalNegotiatorMatchRank`).
NO_RANK = -sys.float_info.max
#: The reasons a slot is given to a job (matchmaker.cpp PreemptState), and their place in
#: the sort key (larger is better).
REASON_ORDER = {"no_preemption": 2.0, "rank": 1.0, "priority": 0.0}
#: The attributes naming who holds a slot's claim, first found wins (step 2).
REMOTE_USER_ATTRIBUTES = ("PreemptingAccountingGroup", "PreemptingUser", "AccountingGroup",
                          "RemoteUser")  # fmt: skip


@dataclass(frozen=True)
class MatchRules:
    """What the cycle reads from the configuration and the semantics (spec/pool.yaml
    `negotiation`): the negotiator expressions (None: unset) and the preemption rules."""

    consider_preemption: bool
    preemption_requirements: str
    priority_needs_better_eup: bool
    ranks_as_float32: bool
    pre_job_rank: str | None = None
    post_job_rank: str | None = None
    preemption_rank: str | None = None


def remote_user(ad: Mapping[str, Any], prefix: str = "") -> str | None:
    """Who the slot's claim belongs to as the matchmaker sees it (a string attribute of
    REMOTE_USER_ATTRIBUTES; `prefix`: a sibling slot's claim, `slot<N>_`), None for an
    unclaimed slot."""
    from compiler.classad import evaluate_attribute

    for name in REMOTE_USER_ATTRIBUTES:
        found = evaluate_attribute(ad, prefix + name)
        if isinstance(found, str):
            return found
    return None


class Pool:
    """The slots of one cycle, column-wise, with what does not change during it: each
    slot's remote user (only with preemption considered) and the users' EUPs."""

    def __init__(
        self,
        ads: Sequence[Mapping[str, Any]],
        rules: MatchRules,
        eup_of: Mapping[str, float],
        default_eup: float,
        remote: Sequence[str | None] | None = None,
    ) -> None:
        """`remote`: each slot's `remote_user` when the caller read them already (None
        where a slot is never offered); else read here."""
        from compiler.classad import Columns

        self.ads = list(ads)
        self.rules = rules
        self.columns = Columns.from_ads(self.ads)
        self.remote = self._remote_users(remote)
        self.claimed = np.array([r is not None for r in self.remote], dtype=bool)
        self._eup_of = eup_of
        self._default_eup = default_eup
        self._remote_eup = np.array(
            [eup_of.get(r, default_eup) if r is not None else math.inf for r in self.remote]
        )

    def _remote_users(self, given: Sequence[str | None] | None) -> list[str | None]:
        """Each slot's remote user (None for all without preemption considered)."""
        if not self.rules.consider_preemption:
            return [None] * len(self.ads)
        if given is not None:
            return list(given)
        return [remote_user(ad) for ad in self.ads]

    def _own(self, text: str | None, job: Mapping[str, Any], default: float) -> Any:
        """A negotiator expression (MY = slot, TARGET = job) per slot as a rank."""
        from compiler.classad import own_expression

        if not text:
            return np.full(self.columns.n, default)
        values = own_expression(text)(self.columns, job).numbers(math.nan)
        if self.rules.ranks_as_float32:  # D13: `rank = (float)val`
            with np.errstate(over="ignore"):
                values = values.astype(np.float32).astype(np.float64)
        return np.where(np.isnan(values), default, values)

    def _is_true(self, text: str, job: Mapping[str, Any]) -> Any:
        from compiler.classad import own_expression

        return own_expression(text)(self.columns, job).is_true()

    def job_rank(self, job: Mapping[str, Any]) -> Any:
        """The job's Rank of each slot (`EvalFloat`: 0.0 when not a number; a job with no
        Rank at all gets the slot's own Rank: the quirk of pool.md 3.6 step 7)."""
        from compiler.classad import of_other, own_expression

        raw = next((v for k, v in job.items() if k.lower() == "rank"), None)
        if raw is None:
            return own_expression("MY.Rank")(self.columns, job).numbers(0.0)
        return of_other(raw, job, self.columns, attribute="rank").numbers(0.0)

    def match_list(
        self, job: Mapping[str, Any], submitter: str, free: Any
    ) -> list[tuple[int, str]]:
        """The rows of `free` (a boolean mask) matching `job` both ways that could go to
        it, with their reasons, best first (equal keys in slot order)."""
        from compiler.classad import symmetric_matches

        rules = self.rules
        candidates = free & symmetric_matches(self.columns, job)
        if not candidates.any():
            return []
        claimed = candidates & self.claimed
        reason = np.where(candidates, REASON_ORDER["no_preemption"], -1.0)
        if claimed.any():
            rank = claimed & self._is_true("MY.Rank > MY.CurrentRank", job)
            reason[rank] = REASON_ORDER["rank"]
            others = claimed & ~rank
            others &= np.array([r != submitter for r in self.remote], dtype=bool)
            if rules.priority_needs_better_eup:  # D4, the seed: a better EUP too
                mine = self._eup_of.get(submitter, self._default_eup)
                others &= mine < self._remote_eup
            if others.any():
                others &= self._is_true(rules.preemption_requirements, job)
                others &= self._is_true("MY.Rank >= MY.CurrentRank", job)
            reason[others] = REASON_ORDER["priority"]
            reason[claimed & ~rank & ~others] = -1.0
        rows = np.flatnonzero(reason >= 0)
        if not len(rows):
            return []
        preempting = reason[rows] < REASON_ORDER["no_preemption"]
        prank = np.full(len(rows), -FLT_MAX)
        if preempting.any():
            prank = np.where(
                preempting, self._own(rules.preemption_rank, job, NO_RANK)[rows], prank
            )
        keys = (
            -prank,
            -reason[rows],
            -self._own(rules.post_job_rank, job, NO_RANK)[rows],
            -self.job_rank(job)[rows],
            -self._own(rules.pre_job_rank, job, NO_RANK)[rows],
        )
        order = np.lexsort(keys)  # stable: equal keys keep the slots' order
        names = {v: k for k, v in REASON_ORDER.items()}
        return [(int(rows[i]), names[float(reason[rows[i]])]) for i in order]
