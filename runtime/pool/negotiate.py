"""One negotiation cycle (issue 14; shared/reference/pool.md section 3): today the pie
arithmetic alone (`negotiateWithGroup`, `calculateNormalizationFactor`,
`calculatePieLeft`, `calculateSubmitterLimit`, `SubmitterLimitPermits`), over identical
slots that every job matches, without preemption. The matchmaking of each job (both
Requirements, the ranks, the three preemption reasons) comes with `negotiate`.

Per spin: a submitter's share of the pie is (1/EUP) / sum(1/EUP); its limit the share of
the pie minus what it uses (code: the pie is every slot's weight; the seed: the slots
available now, D16); submitters are served in EUP order (best first); a submitter takes
slots while its limit allows, and one slot anyway when it has taken none yet this spin and
its limit is above 0 ("round up once per pie spin"); on later spins the code skips a
submitter whose limit is below one slot weight (D9: slots can stay idle), the seed goes on
until the machines or the jobs run out. Facts per semantics: spec/pool.yaml `negotiation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from compiler import yamlcache


@dataclass(frozen=True)
class CycleFacts:
    pie_of_all_slots: bool
    round_up_later_spins: bool


@cache
def cycle_facts(semantics: str) -> CycleFacts:
    entry = yamlcache.spec_entry("pool.yaml", "negotiation", semantics, "semantics for negotiation")
    return CycleFacts(bool(entry["pie_of_all_slots"]), bool(entry["round_up_later_spins"]))


def _shares(eups: dict[str, float]) -> dict[str, float]:
    """Each submitter's share of the pie (`calculateNormalizationFactor`): max/EUP over
    the sum of max/EUP, i.e. (1/EUP) / sum(1/EUP)."""
    worst = max(eups.values())
    normal = sum(worst / e for e in eups.values())
    return {n: worst / (e * normal) for n, e in eups.items()}


@dataclass(frozen=True)
class Submitter:
    """A submitter as the cycle sees it: name, EUP, weighted slots in use, idle jobs."""

    name: str
    eup: float
    usage: float = 0.0
    idle_jobs: int = 0


@dataclass(frozen=True)
class PieResult:
    """How many slots each submitter got, in the order served, and the slots left idle."""

    matches: dict[str, int]
    idle_slots: int
    spins: int


def spin_the_pie(
    submitters: Sequence[Submitter], free_slots: int, known: CycleFacts, *, claimed: int = 0
) -> PieResult:
    """The cycle's pie spins over `free_slots` unclaimed slots of weight 1 (and `claimed`
    slots already in use, part of the code's pie), every job matching every slot."""
    usage = {s.name: s.usage for s in submitters}
    idle = {s.name: s.idle_jobs for s in submitters}
    eup = {s.name: s.eup for s in submitters}
    matches = dict.fromkeys(usage, 0)
    free = free_slots
    order = sorted(submitters, key=lambda s: s.eup)  # EUP ascending: best first
    spins = 0
    while free > 0:
        asking = [s.name for s in order if idle[s.name] > 0]
        if not asking:
            break
        spins += 1
        shares = _shares({n: eup[n] for n in asking})
        pie = float(free_slots + claimed) if known.pie_of_all_slots else float(free)
        # the code charges what a submitter uses; the seed slices what is available now
        start = {n: 0.0 if known.pie_of_all_slots else usage[n] for n in asking}
        pie_left = sum(max(shares[n] * pie - (usage[n] - start[n]), 0.0) for n in asking)
        if pie_left <= 0:
            break
        progress = False
        for name in asking:
            if free <= 0:
                break
            limit = max(shares[name] * pie - (usage[name] - start[name]), 0.0)
            mine = min(limit, pie_left)
            if spins > 1 and not known.round_up_later_spins and (mine < 1 or pie_left < 1):
                continue
            used = 0.0
            while free > 0 and idle[name] > 0 and (used + 1 <= mine or (used == 0 and mine > 0)):
                used += 1
                usage[name] += 1
                idle[name] -= 1
                matches[name] += 1
                free -= 1
                pie_left -= 1
                progress = True
        if not progress:
            break
    return PieResult(matches, free, spins)
