"""The column-wise match lists give the cycle the slot-by-slot reference's answer: the
same matches with the same reasons, the same unmatched jobs and the same analysis of
why, on generated pools with a real site's negotiator settings (tests/pool/snapshots.py)
in both semantics; and the D13 rank cast."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from runtime.pool import negotiate_snapshot
from tests.budget import examples
from tests.pool.naive import NaivePool
from tests.pool.snapshots import generated_snapshot, site_config


@given(seed=st.integers(0, 2**32 - 1), claimed=st.sampled_from([0.0, 0.3, 0.9]))
@settings(max_examples=examples(6), deadline=None)
@example(seed=1, claimed=0.3)
@example(seed=7, claimed=0.9)
@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_column_wise_is_the_slot_by_slot_cycle(semantics: str, seed: int, claimed: float) -> None:
    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=claimed, seed=seed, config=site_config()
    )
    fast = negotiate_snapshot(document, semantics=semantics).to_json()
    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=claimed, seed=seed, config=site_config()
    )
    naive = negotiate_snapshot(document, semantics=semantics, pool_class=NaivePool).to_json()
    assert fast == naive
    assert fast["matches"] or claimed > 0  # the pools are not trivially empty
