"""The match list built slot by slot with the scalar evaluator: the reference the
column-wise `runtime.pool.matchlist.Pool` is checked against (tests/pool/test_matchlist.py)
and the naive loop the benchmark measures it against (tests/bench_negotiate.py).

Written from shared/reference/pool.md 3.6 directly, one slot at a time, as
`matchmakingAlgorithm` reads: both Requirements (`symmetric_match`), the remote user,
the reason (RANK: `MY.Rank > MY.CurrentRank`; priority: another submitter,
PREEMPTION_REQUIREMENTS and `MY.Rank >= MY.CurrentRank` all boolean TRUE, the seed also
a better EUP), then the five-place sort key, larger first, ties in slot order.
"""

from __future__ import annotations

import math
import struct
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from compiler.classad import evaluate, parse, symmetric_match
from runtime.pool.matchlist import Pool

DBL_MAX = sys.float_info.max
FLT_MAX = 3.4028234663852886e38


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


def _float32(x: float) -> float:
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


class NaivePool(Pool):
    def _remote_users(self, given: Sequence[str | None] | None) -> list[str | None]:
        # each slot's remote user read here, slot by slot, not taken from the cycle
        return super()._remote_users(None)

    def _negotiator_rank(self, text: str | None, slot: Mapping[str, Any], job: Any) -> float:
        if not text:
            return -DBL_MAX
        value = _number(evaluate(parse(text), slot, job))
        if value is None:
            return -DBL_MAX
        return _float32(value) if self.rules.ranks_as_float32 else value

    def _job_rank(self, job: Mapping[str, Any], slot: Mapping[str, Any]) -> float:
        if not any(k.lower() == "rank" for k in job):  # EvalFloat's quirk: the slot's Rank
            value = _number(evaluate(parse("MY.Rank"), slot, job))
        else:
            value = _number(evaluate(parse("MY.Rank"), job, slot))
        return 0.0 if value is None else value

    def match_list(
        self, job: Mapping[str, Any], submitter: str, free: Any
    ) -> list[tuple[int, str]]:
        rules = self.rules
        entries: list[tuple[tuple[float, ...], int, str]] = []
        for row, slot in enumerate(self.ads):
            if not free[row] or not symmetric_match(slot, job):
                continue
            remote = self.remote[row]
            if remote is None:
                reason = "no_preemption"
            elif evaluate(parse("MY.Rank > MY.CurrentRank"), slot, job) is True:
                reason = "rank"
            elif (
                remote == submitter
                or (
                    rules.priority_needs_better_eup
                    and not (
                        self._eup_of.get(submitter, self._default_eup)
                        < self._eup_of.get(remote, self._default_eup)
                    )
                )
                or evaluate(parse(rules.preemption_requirements), slot, job) is not True
                or evaluate(parse("MY.Rank >= MY.CurrentRank"), slot, job) is not True
            ):
                continue
            else:
                reason = "priority"
            key = (
                self._negotiator_rank(rules.pre_job_rank, slot, job),
                self._job_rank(job, slot),
                self._negotiator_rank(rules.post_job_rank, slot, job),
                {"no_preemption": 2.0, "rank": 1.0, "priority": 0.0}[reason],
                -FLT_MAX
                if reason == "no_preemption"
                else self._negotiator_rank(rules.preemption_rank, slot, job),
            )
            entries.append((key, row, reason))
        entries.sort(key=lambda e: e[0], reverse=True)  # stable: ties keep the slot order
        return [(row, reason) for _, row, reason in entries]
