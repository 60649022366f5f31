"""The column-wise match lists give the cycle the slot-by-slot reference's answer: the
same matches with the same reasons, the same unmatched jobs and the same analysis of
why, on generated pools with a real site's negotiator settings (tests/pool/snapshots.py)
in both semantics; and the D13 rank cast."""

from __future__ import annotations

from typing import Any

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


#: PREEMPTION_REQUIREMENTS of the manual's example (no ../shared needed)
CONFIG = "PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n"


@pytest.mark.parametrize("claimed", [0.3, 0.9])
def test_parsed_ads_with_their_keys_give_the_cycle_of_the_text(claimed: float) -> None:
    """The simulator's way in (`_parsed` ads, each job's `_keys`, `explain=False`): the
    matches and unmatched jobs of the same snapshot given as text, no why_unmatched, and
    the caller's job ads not written to (copied only when offered a match)."""
    from compiler.classad import parse
    from runtime.pool import job_keys

    def parsed(ad: dict[str, Any]) -> dict[str, Any]:
        return {k: parse(v) if isinstance(v, str) else v for k, v in ad.items()}

    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=claimed, seed=3, config=CONFIG
    )
    text = negotiate_snapshot(document, semantics="code").to_json()
    given = {
        "config": document["config"],
        "machines": [{"name": m["name"], "ad": parsed(m["ad"]), "_parsed": True}
                     for m in document["machines"]],
        "submitters": [
            {**s, "jobs": [{"id": j["id"], "ad": parsed(j["ad"]), "_parsed": True,
                            "_keys": job_keys(parsed(j["ad"]))} for j in s["jobs"]]}
            for s in document["submitters"]
        ],
    }  # fmt: skip
    before = [sorted(j["ad"]) for s in given["submitters"] for j in s["jobs"]]
    fast = negotiate_snapshot(given, semantics="code", explain=False).to_json()
    assert fast["matches"] and fast["matches"] == text["matches"]
    assert fast["unmatched"] == text["unmatched"] and text["why_unmatched"]
    assert fast["why_unmatched"] == {}
    assert [sorted(j["ad"]) for s in given["submitters"] for j in s["jobs"]] == before
