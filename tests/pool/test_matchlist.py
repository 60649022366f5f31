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


@pytest.mark.parametrize("keyed", ["all", "some", "none"])
def test_parsed_jobs_with_or_without_their_keys_give_one_cycle(keyed: str) -> None:
    """A submitter's parsed job entries are taken in one pass when every one brings its
    `_keys`, else one by one (the keys made here): the same cycle either way, the job
    ads each matched job was offered with included, and an entry that is not a job still
    named by its place."""
    from compiler.classad import parse
    from runtime.pool import SnapshotError, job_keys

    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=0.3, seed=5, config=CONFIG
    )
    text = negotiate_snapshot(document, semantics="code")

    def entry(job: dict[str, Any], n: int) -> dict[str, Any]:
        ad = {k: parse(v) if isinstance(v, str) else v for k, v in job["ad"].items()}
        given = {"id": job["id"], "ad": ad, "_parsed": True}
        if keyed == "all" or (keyed == "some" and n % 2):
            given["_keys"] = job_keys(ad)
        return given

    given = {
        **document,
        "submitters": [{**s, "jobs": [entry(j, n) for n, j in enumerate(s["jobs"])]}
                       for s in document["submitters"]],
    }  # fmt: skip
    fast = negotiate_snapshot(given, semantics="code", explain=False)
    assert fast.matches and fast.matches == text.matches
    assert fast.unmatched == text.unmatched and fast.match_count == text.match_count
    assert set(fast.job_ads) == set(text.job_ads)
    for match in fast.matches:  # as offered: with the submitter's attributes
        offered, expected = fast.job_ads[match["job"]], text.job_ads[match["job"]]
        assert offered["SubmitterUserPrio"] == expected["SubmitterUserPrio"]
    broken = {
        **given,
        "submitters": [
            {**given["submitters"][0], "jobs": [*given["submitters"][0]["jobs"], "no job"]}
        ],
    }
    with pytest.raises(SnapshotError, match=r"submitters\[0\]\.jobs\[\d+\] must be a mapping"):
        negotiate_snapshot(broken, semantics="code", explain=False)


#: PREEMPTION_REQUIREMENTS a held slot is ruled out under, or not: the 20 % rule (read
#: apart), never, always, and one the cycle cannot read apart (it must build the ads)
HELD_CONFIGS = (
    CONFIG,
    "PREEMPTION_REQUIREMENTS = False\n",
    "PREEMPTION_REQUIREMENTS = True\n",
    "PREEMPTION_REQUIREMENTS = RemoteUserResourcesInUse > 1\n",
    CONFIG + "NEGOTIATOR_CONSIDER_PREEMPTION = False\n",
    CONFIG + "GROUP_NAMES = group_a\nGROUP_QUOTA_DYNAMIC_group_a = 0.3\n",  # the pool's weight
)


def _held_cycle(document: dict[str, Any], semantics: str) -> tuple[dict[str, Any], int, int]:
    """The cycle of `document` with its claimed slots of a constant Rank held
    (`HeldSlot`), how many were held and how many of them had their ads asked for."""
    machines, asked = _held_machines(document)
    given = {**document, "machines": machines}
    cycle = negotiate_snapshot(given, semantics=semantics, explain=False).to_json()
    return cycle, sum("_held" in m for m in machines), len(asked)


def _held_machines(document: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The machine entries of `document`, its claimed slots of a constant Rank held
    (`HeldSlot`), and the names of those whose ads the cycle asks for (filled in)."""
    from compiler.classad import parse
    from runtime.pool import HeldSlot, claim_facts, remote_user

    asked: list[str] = []
    machines = []
    for m in document["machines"]:
        ad = {k: parse(v) if isinstance(v, str) else v for k, v in m["ad"].items()}
        if "RemoteUser" not in ad or m["ad"]["Rank"] != "0":
            machines.append({"name": m["name"], "ad": ad, "_parsed": True})
            continue

        def built(ad: dict[str, Any] = ad, name: str = m["name"]) -> dict[str, Any]:
            asked.append(name)
            return ad

        held = HeldSlot(claim_facts(ad), remote_user(ad), 0, ad["CurrentRank"], built)
        machines.append({"name": m["name"], "_held": held})
    return machines, asked


@given(
    seed=st.integers(0, 2**32 - 1),
    claimed=st.sampled_from([0.3, 0.9]),
    config=st.sampled_from(HELD_CONFIGS),
)
@settings(max_examples=examples(10), deadline=None)
@example(seed=3, claimed=0.9, config=CONFIG)
@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_held_slots_give_the_cycle_of_their_ads(
    semantics: str, seed: int, claimed: float, config: str
) -> None:
    """Claimed slots handed over by what the cycle reads of them alone (the simulator's
    way, `HeldSlot`) give the cycle of their whole ads: the same matches, reasons and
    unmatched jobs, whichever slots the cycle rules out."""
    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=claimed, seed=seed, config=config
    )
    whole = negotiate_snapshot(document, semantics=semantics, explain=False).to_json()
    cycle, held, _ = _held_cycle(document, semantics)
    assert held > 0
    assert cycle == whole


@pytest.mark.parametrize(
    ("config", "ruled_out"),
    [("PREEMPTION_REQUIREMENTS = False\n", True), ("PREEMPTION_REQUIREMENTS = True\n", False),
     (CONFIG + "NEGOTIATOR_CONSIDER_PREEMPTION = False\n", True)],
)  # fmt: skip
def test_a_held_slot_no_job_can_take_is_not_built(config: str, ruled_out: bool) -> None:
    """Without priority preemption (and with RANK 0 = CurrentRank no RANK preemption) no
    job can take a claimed slot: the cycle asks for none of their ads; with it, every
    slot a better submitter could take is built."""
    document = generated_snapshot(48, 240, submitters=5, autoclusters=12, claimed=0.9, seed=5,
                                  config=config)  # fmt: skip
    _, held, asked = _held_cycle(document, "code")
    assert held > 20
    assert (asked == 0) is ruled_out


@pytest.mark.parametrize("semantics", ["code", "manual"])
@pytest.mark.parametrize(
    "config", [CONFIG, CONFIG + "GROUP_NAMES = group_a\nGROUP_QUOTA_DYNAMIC_group_a = 0.3\n"]
)
def test_unmatchable_slots_give_the_cycle_of_their_ads(semantics: str, config: str) -> None:
    """Unclaimed slots whose Requirements has a conjunct that reads no job attribute and
    is false (a desktop whose owner is there), handed over as `UnmatchableSlot` (the
    simulator's way): the cycle of their whole ads (matches, reasons, unmatched jobs,
    group figures: their weight is in the pie), without building them; with `explain`
    they are built and the analysis is the whole ads' too."""
    from compiler.classad import parse
    from runtime.pool import UnmatchableSlot, claim_facts

    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=0.3, seed=11, config=config
    )
    out = set()
    for n, machine in enumerate(document["machines"]):
        if n % 3 == 0 and "RemoteUser" not in machine["ad"]:
            machine["ad"]["Requirements"] = "KeyboardIdle < 0 && START"
            out.add(machine["name"])
    assert len(out) > 5
    asked: list[str] = []

    def entry(machine: dict[str, Any]) -> dict[str, Any]:
        ad = {k: parse(v) if isinstance(v, str) else v for k, v in machine["ad"].items()}
        if machine["name"] not in out:
            return {"name": machine["name"], "ad": ad, "_parsed": True}

        def built(ad: dict[str, Any] = ad, name: str = machine["name"]) -> dict[str, Any]:
            asked.append(name)
            return ad

        return {"name": machine["name"], "_held": UnmatchableSlot(claim_facts(ad), built)}

    given = {**document, "machines": [entry(m) for m in document["machines"]]}
    whole = negotiate_snapshot(document, semantics=semantics, explain=False).to_json()
    assert whole["matches"]
    assert negotiate_snapshot(given, semantics=semantics, explain=False).to_json() == whole
    assert asked == []
    explained = negotiate_snapshot(given, semantics=semantics).to_json()
    assert explained == negotiate_snapshot(document, semantics=semantics).to_json()
    assert sorted(asked) == sorted(out)


@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_a_cycle_with_no_slot_to_offer_lists_the_given_jobs_in_order(semantics: str) -> None:
    """Every slot claimed and ruled out (no priority preemption, RANK 0), the jobs given
    as parsed entries with their keys in no particular order: the cycle is the text
    snapshot's (the unmatched jobs in the schedd's order, the group figures, their
    demand, the job ads), and a bad entry among them is named by its place."""
    import random

    from compiler.classad import parse
    from runtime.pool import HeldSlot, SnapshotError, claim_facts, job_keys, remote_user

    config = "PREEMPTION_REQUIREMENTS = False\nGROUP_NAMES = group_a\nGROUP_QUOTA_DYNAMIC_group_a = 0.3\n"
    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=1.0, seed=4, config=config
    )
    text = negotiate_snapshot(document, semantics=semantics, explain=False)
    assert not text.matches and text.unmatched

    def parsed(ad: dict[str, Any]) -> dict[str, Any]:
        return {k: parse(v) if isinstance(v, str) else v for k, v in ad.items()}

    machines = []
    for m in document["machines"]:
        ad = parsed(m["ad"])
        held = HeldSlot(claim_facts(ad), remote_user(ad), 0, ad["CurrentRank"], lambda ad=ad: ad)
        machines.append({"name": m["name"], "_held": held})
    shuffled = random.Random(4)
    submitters = []
    for sub in document["submitters"]:
        entries = [{"id": j["id"], "ad": parsed(j["ad"]), "_parsed": True} for j in sub["jobs"]]
        for entry in entries:
            entry["_keys"] = job_keys(entry["ad"])
        shuffled.shuffle(entries)
        submitters.append({**sub, "jobs": entries})
    given = {**document, "machines": machines, "submitters": submitters}
    fast = negotiate_snapshot(given, semantics=semantics, explain=False)
    assert fast.to_json() == text.to_json()
    assert set(fast.job_ads) == set(text.job_ads)
    broken = {
        **given,
        "submitters": [{**submitters[0], "jobs": [*submitters[0]["jobs"], {"id": "x"}]}],
    }
    with pytest.raises(SnapshotError, match=r"submitters\[0\]\.jobs\[\d+\] must be a mapping"):
        negotiate_snapshot(broken, semantics=semantics, explain=False)


class _Queue:
    """A `JobQueue` over a submitter's parsed entries: of each autocluster its first
    `count` in the schedd's order (the rest after them, when `superset`, in a shuffled
    order: the cycle sorts what it is given and never matches them)."""

    def __init__(self, entries: list[dict[str, Any]], superset: bool, seed: int) -> None:
        self.entries = entries
        self.superset = superset
        self.seed = seed
        self.asked: list[int] = []
        self.handed: list[str] = []

    def __len__(self) -> int:
        return len(self.entries)

    def first(self, count: int) -> list[dict[str, Any]]:
        import random

        self.asked.append(count)
        seen: dict[Any, int] = {}
        out = []
        for entry in sorted(self.entries, key=lambda e: e["_keys"][0]):
            cluster = entry["_keys"][1]
            seen[cluster] = seen.get(cluster, 0) + 1
            if seen[cluster] <= count or (self.superset and seen[cluster] == count + 1):
                out.append(entry)
        random.Random(self.seed).shuffle(out)
        self.handed += [e["id"] for e in out]
        return out


@given(
    seed=st.integers(0, 2**32 - 1),
    claimed=st.sampled_from([0.0, 0.3, 0.9]),
    config=st.sampled_from(HELD_CONFIGS),
    superset=st.booleans(),
)
@settings(max_examples=examples(10), deadline=None)
@example(seed=3, claimed=0.3, config=HELD_CONFIGS[-1], superset=False)
@example(seed=5, claimed=0.0, config=CONFIG, superset=True)
@example(seed=7, claimed=0.9, config=HELD_CONFIGS[1], superset=False)
@example(seed=0, claimed=0.9, config=HELD_CONFIGS[1], superset=False)
@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_a_job_queue_asked_for_what_the_cycle_can_match_gives_its_matches(
    semantics: str, seed: int, claimed: float, config: str, superset: bool
) -> None:
    """A submitter's jobs handed over as a `JobQueue` (the simulator's schedd; its
    claimed slots held, `HeldSlot`): the cycle asks for as many of each autocluster as it
    may match slots and makes the matches (jobs, slots, reasons) and match counts of the
    whole list, group quotas too (the demand is the queue's length); its unmatched jobs
    are those it asked for. Generated snapshots have a dozen autoclusters of 20 jobs
    among 48 slots: a cycle that may match fewer (the claimed slots ruled out) leaves
    jobs out."""
    from compiler.classad import parse
    from runtime.pool import job_keys

    document = generated_snapshot(
        48, 240, submitters=5, autoclusters=12, claimed=claimed, seed=seed, config=config
    )
    whole = negotiate_snapshot(document, semantics=semantics, explain=False)

    def entry(job: dict[str, Any]) -> dict[str, Any]:
        ad = {k: parse(v) if isinstance(v, str) else v for k, v in job["ad"].items()}
        return {"id": job["id"], "ad": ad, "_parsed": True, "_keys": job_keys(ad)}

    queues = [_Queue([entry(j) for j in s["jobs"]], superset, seed) for s in document["submitters"]]
    given = {
        **document,
        "machines": _held_machines(document)[0],
        "submitters": [
            {**s, "jobs": q} for s, q in zip(document["submitters"], queues, strict=True)
        ],
    }
    cycle = negotiate_snapshot(given, semantics=semantics, explain=False)
    assert cycle.matches == whole.matches
    assert cycle.match_count == whole.match_count
    assert cycle.groups == whole.groups
    asked = {j for q in queues for j in q.handed}
    assert all(len(q.asked) <= 1 for q in queues)  # once per cycle
    assert [j for j in whole.unmatched if j in asked] == cycle.unmatched
    if claimed == 0.0:  # every slot may be matched: 48 of each autocluster, all of them
        assert cycle.unmatched == whole.unmatched
    if claimed == 0.9 and "= False" in config:  # a few free slots: jobs not asked for
        assert len(asked) < len(whole.unmatched)
