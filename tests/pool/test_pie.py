"""The pie spins of one negotiation cycle (reference/pool.md 3.4; seed 003 3.4.2, 3.4.6;
D9, D16): slices proportional to 1/EUP, repartitioned when a submitter takes less, and
what happens to a last fractional slot in each reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.pool.negotiate import Submitter, cycle_facts, spin_the_pie

CODE, MANUAL = cycle_facts("code"), cycle_facts("manual")
ABC = [Submitter("A", 5, 0, 100), Submitter("B", 10, 0, 100), Submitter("C", 20, 0, 100)]


@pytest.mark.parametrize("known", [CODE, MANUAL], ids=["code", "manual"])
@pytest.mark.parametrize("slots", [7, 14, 70])
def test_seed_eups_5_10_20_share_a_saturated_pool_4_2_1(known, slots: int) -> None:
    # seed 3.4.2: "user A with EUP=5 will receive twice as many resources as user B with
    # EUP=10 and four times as many resources as user C with EUP=20"
    result = spin_the_pie(ABC, slots, known)
    unit = slots // 7
    assert result.matches == {"A": 4 * unit, "B": 2 * unit, "C": unit}
    assert result.idle_slots == 0


def test_d9_a_fractional_last_slot() -> None:
    """8 slots: slices 4.57, 2.29, 1.14. The code's first spin gives 4, 2, 1 and its
    second skips every slice below one slot: one slot stays idle (reference 3.4). The seed
    spins "until it runs out of machines": the best submitter gets it."""
    code = spin_the_pie(ABC, 8, CODE)
    assert code.matches == {"A": 4, "B": 2, "C": 1} and code.idle_slots == 1
    manual = spin_the_pie(ABC, 8, MANUAL)
    assert manual.matches == {"A": 5, "B": 2, "C": 1} and manual.idle_slots == 0


def test_what_a_submitter_does_not_take_is_repartitioned() -> None:
    # seed 3.4.2: "if A does not use the full number of allocated resources, the available
    # resources are repartitioned and distributed among remaining users according to the
    # inverse ratio rule": A has one job; B and C share the other 6 as 2:1
    few = [Submitter("A", 5, 0, 1), Submitter("B", 10, 0, 100), Submitter("C", 20, 0, 100)]
    for known in (CODE, MANUAL):
        assert spin_the_pie(few, 7, known).matches == {"A": 1, "B": 4, "C": 2}


def test_d16_usage_counts_against_the_code_slice() -> None:
    """The code's pie is every slot (claimed included) and A already uses 4 of 8: its
    slice of 4.57 leaves it 0.57 (one slot, the first spin's round up); the seed slices the
    4 available slots afresh: A 2.29 -> 2, B 1.14 -> 1, C 0.57 -> 1."""
    busy = [Submitter("A", 5, 4, 100), Submitter("B", 10, 0, 100), Submitter("C", 20, 0, 100)]
    code = spin_the_pie(busy, 4, CODE, claimed=4)
    assert code.matches == {"A": 1, "B": 2, "C": 1}
    manual = spin_the_pie(busy, 4, MANUAL, claimed=4)
    assert manual.matches == {"A": 2, "B": 1, "C": 1}


@settings(max_examples=60, deadline=None)
@given(
    eups=st.lists(st.sampled_from([0.5, 1, 2, 5, 10, 20, 1000]), min_size=1, max_size=5),
    jobs=st.lists(st.integers(0, 30), min_size=5, max_size=5),
    slots=st.integers(0, 60),
    semantics=st.sampled_from(["code", "manual"]),
)
def test_never_more_than_the_slots_or_the_jobs(
    eups: list[float], jobs: list[int], slots: int, semantics: str
) -> None:
    subs = [Submitter(f"u{i}", e, 0, jobs[i]) for i, e in enumerate(eups)]
    result = spin_the_pie(subs, slots, cycle_facts(semantics))
    assert sum(result.matches.values()) + result.idle_slots == slots
    for sub in subs:
        assert 0 <= result.matches[sub.name] <= sub.idle_jobs
    if semantics == "manual":  # "until it runs out of machines or ... no more jobs"
        assert result.idle_slots == 0 or all(result.matches[s.name] == s.idle_jobs for s in subs)
    # a better (lower) EUP never gets fewer slots while both still had jobs left
    for a in subs:
        for b in subs:
            if a.eup < b.eup and result.matches[a.name] < a.idle_jobs:
                assert result.matches[a.name] >= result.matches[b.name] or (
                    result.matches[b.name] == b.idle_jobs
                )
