"""One negotiation cycle over a snapshot (issue 14; reference/pool.md section 3, seed 003
3.4.5-3.4.6): the pie, the three reasons with their exact conditions, the D-table items
of the cycle in both semantics (D4, D8, D10), and why a job is not matched. Every
expected value is reasoned from the reference or the seed, not read off the code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.errors import PolicyError
from runtime.cli import main
from runtime.pool import SnapshotError, negotiate_snapshot

ROOT = Path(__file__).resolve().parents[2]


def _slot(name: str, **attrs: str) -> dict[str, Any]:
    ad = {"Requirements": "START", "START": "true", "State": '"Unclaimed"', "Activity": '"Idle"',
          "Cpus": "1", "Memory": "2048", "Rank": "0", "CurrentRank": "0"}  # fmt: skip
    ad.update(attrs)
    return {"name": name, "ad": ad}


def _claimed(name: str, user: str, activity: str = "Busy", **attrs: str) -> dict[str, Any]:
    return _slot(name, State='"Claimed"', Activity=f'"{activity}"', RemoteUser=f'"{user}"', **attrs)


def _jobs(owner: str, n: int, cluster: int = 1, **attrs: str) -> list[dict[str, Any]]:
    ad = {"Requirements": "true", "Owner": f'"{owner}"', "ClusterId": str(cluster)}
    ad.update(attrs)
    return [{"id": f"{cluster}.{p}", "ad": {**ad, "ProcId": str(p)}} for p in range(n)]


def _submitter(name: str, rup: float, jobs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "rup": rup, "factor": 1, "jobs": jobs}


def _cycle(machines, submitters, config: str = "", semantics: str = "code"):  # type: ignore[no-untyped-def]
    doc = {"config": config, "machines": machines, "submitters": submitters}
    return negotiate_snapshot(doc, semantics=semantics)


@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_eups_5_10_20_share_seven_slots_4_2_1(semantics: str) -> None:
    machines = [_slot(f"slot{i}@m") for i in range(7)]
    subs = [
        _submitter("a@x", 5, _jobs("a", 10, 1)),
        _submitter("b@x", 10, _jobs("b", 10, 2)),
        _submitter("c@x", 20, _jobs("c", 10, 3)),
    ]
    cycle = _cycle(machines, subs, semantics=semantics)
    assert cycle.submitter_order == ["a@x", "b@x", "c@x"]
    assert cycle.match_count == {"a@x": 4, "b@x": 2, "c@x": 1}
    assert {m["reason"] for m in cycle.matches} == {"no_preemption"}
    assert len(cycle.unmatched) == 30 - 7


def test_a_slot_whose_rank_prefers_the_job_is_preempted_by_rank() -> None:
    # the slot's RANK prefers jobs of owner "a" (1 > CurrentRank 0): reason Rank, whoever
    # the users and whatever PREEMPTION_REQUIREMENTS (reference 3.6 step 4)
    machines = [_claimed("slot1@m", "b@x", Rank='TARGET.Owner == "a"')]
    subs = [_submitter("a@x", 50, _jobs("a", 1)), _submitter("b@x", 5, [])]
    cycle = _cycle(machines, subs)
    assert cycle.matches == [{"job": "1.0", "slot": "slot1@m", "reason": "rank"}]


def test_d10_priority_preemption_needs_preemption_requirements() -> None:
    """a (EUP 5) wants b's (EUP 100) slot: the code's default PREEMPTION_REQUIREMENTS is
    False: no match; set to True: reason priority. The seed's default is "20% better":
    RemoteUserPrio (100) > SubmitterUserPrio (5) x 1.2. (A small free slot the job does not
    want makes the seed's pie, the slots available now, one slot: D16.)"""
    machines = [_claimed("slot1@m", "b@x", Memory="4096"), _slot("tiny@m", Memory="512")]
    job = _jobs("a", 1, Requirements="TARGET.Memory > 1000")
    subs = [_submitter("a@x", 5, job), _submitter("b@x", 100, [])]
    assert _cycle(machines, subs).matches == []
    allowed = _cycle(machines, subs, "PREEMPTION_REQUIREMENTS = True\n")
    assert allowed.matches == [{"job": "1.0", "slot": "slot1@m", "reason": "priority"}]
    seed = _cycle(machines, subs, semantics="manual")
    assert [m["reason"] for m in seed.matches] == ["priority"]


def test_a_configuration_loaded_by_the_caller_is_the_one_read() -> None:
    """`_config` (the simulator loads its negotiator's configuration once) stands for the
    text: the same cycle as the text loaded, and it is what the cycle reads (a text that
    says otherwise is not loaded again)."""
    from compiler.config import load_config

    machines = [_claimed("slot1@m", "b@x", Memory="4096"), _slot("tiny@m", Memory="512")]
    job = _jobs("a", 1, Requirements="TARGET.Memory > 1000")
    subs = [_submitter("a@x", 5, job), _submitter("b@x", 100, [])]
    allow = "PREEMPTION_REQUIREMENTS = True\n"
    loaded = load_config(text=allow, subsystem="NEGOTIATOR")
    by_text = _cycle(machines, subs, allow)
    doc = {"config": allow, "_config": loaded, "machines": machines, "submitters": subs}
    assert negotiate_snapshot(doc, semantics="code").matches == by_text.matches
    assert by_text.matches == [{"job": "1.0", "slot": "slot1@m", "reason": "priority"}]
    doc = {"config": "", "_config": loaded, "machines": machines, "submitters": subs}
    assert negotiate_snapshot(doc, semantics="code").matches == by_text.matches


def test_d4_the_seed_also_needs_a_better_eup() -> None:
    """a (EUP 50) wants b's (EUP 10) slot with PREEMPTION_REQUIREMENTS = True: the code has
    no EUP test since 8.7.9 (priority); the seed needs the job's EUP to be better (none)."""
    machines = [_claimed("slot1@m", "b@x")]
    subs = [_submitter("a@x", 50, _jobs("a", 1)), _submitter("b@x", 10, [])]
    config = "PREEMPTION_REQUIREMENTS = True\n"
    assert [m["reason"] for m in _cycle(machines, subs, config).matches] == ["priority"]
    assert _cycle(machines, subs, config, semantics="manual").matches == []


def test_d8_a_claimed_idle_slot() -> None:
    """The code's negotiator has no state test: a Claimed/Idle slot is a candidate like a
    busy one; the seed skips it (3.4.5 step 2)."""
    machines = [_claimed("slot1@m", "b@x", activity="Idle", Rank='TARGET.Owner == "a"')]
    subs = [_submitter("a@x", 5, _jobs("a", 1)), _submitter("b@x", 100, [])]
    assert [m["reason"] for m in _cycle(machines, subs).matches] == ["rank"]
    assert _cycle(machines, subs, semantics="manual").matches == []


def test_the_same_submitter_is_not_preempted_by_priority() -> None:
    machines = [_claimed("slot1@m", "a@x")]
    subs = [_submitter("a@x", 5, _jobs("a", 1))]
    assert _cycle(machines, subs, "PREEMPTION_REQUIREMENTS = True\n").matches == []


def test_an_idle_slot_is_preferred_to_preemption_and_the_job_rank_first() -> None:
    """Sort key (3.6 step 7): job Rank before the reason; at equal job Rank, no preemption
    beats priority."""
    machines = [_claimed("busy@m", "b@x", Memory="8192"), _slot("idle@m", Memory="2048")]
    subs = [_submitter("a@x", 5, _jobs("a", 1)), _submitter("b@x", 100, [])]
    config = "PREEMPTION_REQUIREMENTS = True\n"
    assert _cycle(machines, subs, config).matches[0]["slot"] == "idle@m"
    ranked = [_submitter("a@x", 5, _jobs("a", 1, Rank="TARGET.Memory")), subs[1]]
    assert _cycle(machines, ranked, config).matches == [
        {"job": "1.0", "slot": "busy@m", "reason": "priority"}
    ]


def test_why_a_job_is_not_running() -> None:
    machines = [
        _slot("small@m", Memory="1024"),
        _slot("arm@m", Memory="8192", Arch='"ARM"'),
        _slot("owner@m", Memory="8192", Arch='"X86_64"', START="false"),
        _claimed("taken@m", "b@x", Memory="8192", Arch='"X86_64"'),
    ]
    job = _jobs("a", 1, Requirements='TARGET.Memory >= 4096 && TARGET.Arch == "X86_64"')
    subs = [_submitter("a@x", 5, job), _submitter("b@x", 1, [])]
    cycle = _cycle(machines, subs)
    assert cycle.unmatched == ["1.0"]
    why = cycle.why_unmatched["1.0"]
    assert why["slots"] == 4
    assert why["clauses"] == {"TARGET.Memory >= 4096": 1, 'TARGET.Arch == "X86_64"': 2}
    assert why["rejected_by_job_requirements"] == 2  # small (memory), arm (and small's arch)
    assert why["rejected_by_slot_requirements"] == 1  # owner@m: START is false
    assert why["matching_both_ways"] == 1 and why["busy_not_preemptable"] == 1


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {
        "config": "",
        "machines": [_slot("slot1@m"), _slot("slot2@m", Memory="512")],
        "submitters": [_submitter("a@x", 5, _jobs("a", 2, Requirements="TARGET.Memory > 1000"))],
    }
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    assert main(["negotiate", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"submitter_order", "matches", "unmatched", "match_count",
                        "why_unmatched", "groups"}  # fmt: skip
    assert out["matches"] == [{"job": "1.0", "slot": "slot1@m", "reason": "no_preemption"}]
    assert out["unmatched"] == ["1.1"]
    assert main(["negotiate", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Job 1.1 not matched" in text and "TARGET.Memory > 1000" in text


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"machines": [{"name": "s", "ad": {"Memory": "1 +"}}]}, "machines[0].ad.Memory"),
        ({"machines": [], "submitters": [{"rup": 1}]}, "submitters[0]"),
        ({"machines": [{"name": "s", "ad": {}}, "slot2"]}, "machines[1] must be a mapping"),
        ({"machines": [{"name": "s", "ad": {}}, {"ad": {}}]}, "machines[1] must be a mapping"),
        # the entries in order: the first one's ad is named before the second's form
        ({"machines": [{"name": "s", "ad": {"Memory": "1 +"}}, 7]}, "machines[0].ad.Memory"),
    ],
)
def test_bad_snapshots(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(SnapshotError, match=message.replace("[", r"\[").replace("]", r"\]")):
        negotiate_snapshot(doc, semantics="code")


def test_machine_entries_may_be_any_mappings() -> None:
    """A machine entry that is a mapping but not a dict (read-only views, say) is read
    like a dict; the cycle is the same."""
    from types import MappingProxyType

    document = {
        "config": "",
        "machines": [_slot("slot1@m"), _slot("slot2@m", Memory="512")],
        "submitters": [_submitter("a@x", 5, _jobs("a", 2))],
    }
    viewed = {**document, "machines": [MappingProxyType(m) for m in document["machines"]]}
    whole = negotiate_snapshot(document, semantics="code").to_json()
    assert [m["slot"] for m in whole["matches"]] == ["slot1@m", "slot2@m"]
    assert negotiate_snapshot(viewed, semantics="code").to_json() == whole


def test_a_snapshot_from_dumps(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/examples/pool/dumps: a `condor_status -l` dump (two slots, one claimed by bob with a
    RANK that prefers ann's jobs), a `condor_q -json` dump (ann's two idle jobs and one
    running, cy's idle job that no slot fits) and an old-form `condor_userprio -l` dump.
    cy (RUP 0.5) negotiates first; ann's jobs have no Rank, so the slot's own RANK counts
    as the job's (EvalFloat's quirk, reference 3.6 step 7): 7.0 takes bob's slot by
    rank, 7.1 the idle one; the running 7.2 does not negotiate."""
    path = ROOT / "docs" / "examples" / "pool" / "dumps" / "snapshot.yaml"
    assert main(["negotiate", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["submitter_order"] == ["cy@example.com", "ann@example.com"]
    assert out["matches"] == [
        {"job": "7.0", "slot": "slot2@c1.example.com", "reason": "rank"},
        {"job": "7.1", "slot": "slot1@c1.example.com", "reason": "no_preemption"},
    ]
    assert out["unmatched"] == ["9.0"]
    assert out["why_unmatched"]["9.0"]["clauses"] == {"TARGET.Memory >= 100000": 2}


def test_a_missing_dump_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "snap.yaml"
    path.write_text("machines_file: nowhere.txt\n")
    assert main(["negotiate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "machines_file: no such file" in err and "Traceback" not in err


GROUPS = """GROUP_NAMES = group_a, group_b
GROUP_QUOTA_group_a = 2
GROUP_QUOTA_group_b = 2
"""


def test_groups_negotiate_within_their_limits() -> None:
    """Two groups of quota 2 on 4 free slots: ann (EUP 5) alone would take most slots by
    the pie; under the quotas each group negotiates with its limit 2 (reference 2.7), in
    GROUP_SORT_EXPR order (both unused: tree order), the root last."""
    machines = [_slot(f"slot{i}@m") for i in range(4)]
    subs = [
        _submitter("group_a.ann@x", 5, _jobs("ann", 10, 1)),
        _submitter("group_b.bob@x", 50, _jobs("bob", 10, 2)),
    ]
    cycle = _cycle(machines, subs, GROUPS)
    assert cycle.match_count == {"group_a.ann@x": 2, "group_b.bob@x": 2}
    assert {g: (row["limit"], row["order"]) for g, row in cycle.groups.items()} == {
        "group_a": (2, 1), "group_b": (2, 2), "<none>": (0, 3)
    }  # fmt: skip
    assert cycle.to_json()["groups"]["group_a"]["matches"] == 2


def test_surplus_goes_where_it_is_accepted() -> None:
    """bob's group has no jobs: with GROUP_ACCEPT_SURPLUS its unused quota is allocated
    to ann's group (limit 4); without it ann's group stays at 2."""
    machines = [_slot(f"slot{i}@m") for i in range(4)]
    subs = [_submitter("group_a.ann@x", 5, _jobs("ann", 10, 1))]
    assert _cycle(machines, subs, GROUPS).match_count == {"group_a.ann@x": 2}
    surplus = _cycle(machines, subs, GROUPS + "GROUP_ACCEPT_SURPLUS = True\n")
    assert surplus.match_count == {"group_a.ann@x": 4}


def test_assigned_group() -> None:
    from runtime.pool.groups import assigned_group

    groups = ["<none>", "group_physics", "group_physics.lab1"]
    assert assigned_group("group_physics.lab1.newton@x", groups) == "group_physics.lab1"
    assert assigned_group("group_physics.curie@x", groups) == "group_physics"
    assert assigned_group("GROUP_PHYSICS.curie@x", groups) == "group_physics"
    assert assigned_group("group_chem.curie@x", groups) == "<none>"
    assert assigned_group("ann@x", groups) == "<none>"
    assert assigned_group("group_physics", groups) == "group_physics"


@pytest.mark.parametrize(
    ("semantics", "preempted"),
    [
        # the same paths as tests/scenarios/htcondor-current/rank_preemption.yaml (seed
        # 002's RANK example): the code goes Busy -> Preempting when no retirement time is
        # left (D9 of the startd reference), the manual retires first (13, 18)
        ("code", ["unnumbered:retirement_expired", 23, 11]),
        ("manual", [13, 18, 23, 11]),
    ],
)
def test_a_match_drives_the_slots_own_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], semantics: str, preempted: list[Any]
) -> None:
    config = tmp_path / "startd.config"
    config.write_text('RANK = (Owner == "ann") * 10\nMaxJobRetirementTime = 0\n')
    path = ROOT / "docs" / "examples" / "pool" / "dumps" / "snapshot.yaml"
    args = ["negotiate", str(path), "--startd", str(config), "--format", "json"]
    assert main([*args, "--semantics", semantics]) == 0
    out = json.loads(capsys.readouterr().out)
    by_reason = {m["reason"]: [f["number"] for f in m["startd"]] for m in out["matches"]}
    assert by_reason["no_preemption"] == [6, 9, 11]  # matched, claimed, activated
    assert by_reason["rank"] == preempted


def test_d11_slots_with_retirement_time_left() -> None:
    """A claimed slot whose job has retirement time left: the code drops it from the
    cycle unless NEGOTIATOR_CONSIDER_EARLY_PREEMPTION; the seed considers every slot
    "regardless of the state" (the RANK match then happens)."""
    machines = [
        _claimed("slot1@m", "b@x", Rank='TARGET.Owner == "a"', RetirementTimeRemaining="600")
    ]
    subs = [_submitter("a@x", 5, _jobs("a", 1)), _submitter("b@x", 100, [])]
    assert _cycle(machines, subs).matches == []
    early = _cycle(machines, subs, "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True\n")
    assert [m["reason"] for m in early.matches] == ["rank"]
    assert [m["reason"] for m in _cycle(machines, subs, semantics="manual").matches] == ["rank"]


def test_d12_the_schedd_offers_jobs_by_jobprio_then_cluster_then_proc() -> None:
    """One free slot and three jobs of one submitter: JobPrio first (higher first), then
    ClusterId, then ProcId (qmgmt.cpp prio_compar; the seed: priority, then submission
    time, which cluster ids follow)."""
    jobs = [
        {"id": "5.0", "ad": {"Requirements": "true", "ClusterId": "5", "ProcId": "0"}},
        {"id": "3.1", "ad": {"Requirements": "true", "ClusterId": "3", "ProcId": "1"}},
        {
            "id": "9.0",
            "ad": {"Requirements": "true", "ClusterId": "9", "ProcId": "0", "JobPrio": "5"},
        },
        {"id": "3.0", "ad": {"Requirements": "true", "ClusterId": "3", "ProcId": "0"}},
    ]
    for semantics in ("code", "manual"):
        one = _cycle([_slot("slot1@m")], [_submitter("a@x", 5, jobs)], semantics=semantics)
        assert [m["job"] for m in one.matches] == ["9.0"]
        two = _cycle(
            [_slot("s1@m"), _slot("s2@m")], [_submitter("a@x", 5, jobs)], semantics=semantics
        )
        assert [m["job"] for m in two.matches] == ["9.0", "3.0"]


def test_allocation_rounds_give_an_unused_allocation_to_others() -> None:
    """reference 2.7: bob's group cannot use its allocation (no slot has the memory his jobs
    need). In round 1 each group negotiates with its limit 2; after it bob's group asks only
    for what it got (0), and the code's round 2 shares its quota again as surplus: ann's
    group (accepting surplus) negotiates with limit 4 and takes the two idle slots. The seed
    negotiates once: ann's group stays at 2. Without surplus accepted, rounds change nothing."""
    machines = [_slot(f"slot{i}@m") for i in range(4)]
    subs = [
        _submitter("group_a.ann@x", 5, _jobs("ann", 10, 1)),
        _submitter("group_b.bob@x", 5, _jobs("bob", 10, 2, Requirements="TARGET.Memory > 4096")),
    ]
    config = GROUPS + "GROUP_ACCEPT_SURPLUS = True\n"
    code = _cycle(machines, subs, config)
    assert code.match_count == {"group_a.ann@x": 4, "group_b.bob@x": 0}
    assert code.groups["group_a"]["limits"] == [2, 4]
    manual = _cycle(machines, subs, config, semantics="manual")
    assert manual.match_count == {"group_a.ann@x": 2, "group_b.bob@x": 0}
    assert manual.groups["group_a"]["limits"] == [2]
    strict = _cycle(machines, subs, GROUPS)
    assert strict.match_count == {"group_a.ann@x": 2, "group_b.bob@x": 0}
    one_round = _cycle(machines, subs, config + "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = 1\n")
    assert one_round.match_count == {"group_a.ann@x": 2, "group_b.bob@x": 0}


def test_autoregroup_lets_a_group_negotiate_again_in_the_root() -> None:
    """GROUP_AUTOREGROUP_group_a: after its own limit of 2, ann's submitter also negotiates
    in the root group, which goes last with the whole pool as its quota: ann takes the
    other slots, her request then carrying SubmitterAutoregroup = True and
    SubmitterNegotiatingGroup = "<none>" (reference 2.7, 2.8)."""
    machines = [_slot(f"slot{i}@m") for i in range(6)]
    subs = [_submitter("group_a.ann@x", 5, _jobs("ann", 10, 1))]
    plain = _cycle(machines, subs, GROUPS)
    assert plain.match_count == {"group_a.ann@x": 2}
    cycle = _cycle(machines, subs, GROUPS + "GROUP_AUTOREGROUP_group_a = True\n")
    assert cycle.match_count == {"group_a.ann@x": 6}
    # ann's matches are charged to group_a (AddMatch charges GetAssignedGroup(ann)), so
    # the root never reaches its allocation: it negotiates in each of the three rounds
    assert cycle.groups["<none>"]["order"] == 3 and cycle.groups["<none>"]["limits"] == [6] * 3
    last = cycle.job_ads[cycle.matches[-1]["job"]]
    assert last["SubmitterAutoregroup"] is True
    assert last["SubmitterNegotiatingGroup"] == "<none>"
    first = cycle.job_ads[cycle.matches[0]["job"]]
    assert first["SubmitterNegotiatingGroup"] == "group_a"


def test_d13_negotiator_ranks_are_single_precision_in_the_code() -> None:
    """D13: NEGOTIATOR_POST_JOB_RANK = KFlops; 16777217 and 16777216 are one float: the
    code sees a tie and keeps the slots' order (the first slot), the seed takes the larger."""
    machines = [_slot("slotA@m", KFlops="16777216"), _slot("slotB@m", KFlops="16777217")]
    subs = [_submitter("a@x", 5, _jobs("a", 1))]
    config = "NEGOTIATOR_POST_JOB_RANK = KFlops\n"
    assert _cycle(machines, subs, config).matches[0]["slot"] == "slotA@m"
    assert _cycle(machines, subs, config, "manual").matches[0]["slot"] == "slotB@m"
    # the job's own Rank is a double in both
    ranked = [_submitter("a@x", 5, _jobs("a", 1, Rank="TARGET.KFlops"))]
    for semantics in ("code", "manual"):
        assert _cycle(machines, ranked, semantics=semantics).matches[0]["slot"] == "slotB@m"


def test_d14_resources_in_use_are_weighted_in_the_code() -> None:
    """D14: ann holds one claimed slot of 4 cores (slot weight 4). The code's
    SubmitterUserResourcesInUse is her weighted usage, the real 4.0; the seed's "the
    integer number of slots", 1. Her job asks for `SubmitterUserResourcesInUse < 2`."""
    machines = [_claimed("big@m", "ann@x", Cpus="4"), _slot("slot1@m")]
    subs = [_submitter("ann@x", 5, _jobs("ann", 1, Requirements="SubmitterUserResourcesInUse < 2"))]
    code = _cycle(machines, subs)
    assert code.matches == [] and code.job_ads["1.0"]["SubmitterUserResourcesInUse"] == 4.0
    manual = _cycle(machines, subs, semantics="manual")
    assert [m["slot"] for m in manual.matches] == ["slot1@m"]
    assert manual.job_ads["1.0"]["SubmitterUserResourcesInUse"] == 1
    assert type(manual.job_ads["1.0"]["SubmitterUserResourcesInUse"]) is int
    # and the group quota: 1/3 of 10 slots is 3.33... in the code, the seed's 3 machines
    config = "GROUP_NAMES = group_a\nGROUP_QUOTA_DYNAMIC_group_a = 0.3333333333\n"
    machines = [_slot(f"slot{i}@m") for i in range(10)]
    subs = [_submitter("group_a.ann@x", 5, _jobs("ann", 1))]
    code_quota = _cycle(machines, subs, config).job_ads["1.0"]["SubmitterGroupQuota"]
    assert abs(code_quota - 3.333333333) < 1e-6
    assert _cycle(machines, subs, config, "manual").job_ads["1.0"]["SubmitterGroupQuota"] == 3
    assert _cycle(machines, subs, config).job_ads["1.0"]["SubmitterGroup"] == "group_a"


def test_d15_cross_slot_priorities_need_the_knob_in_the_code() -> None:
    """D15: the startd publishes slot2_RemoteUser on its slot1; the negotiator adds
    slot2_RemoteUserPrio only with NEGOTIATOR_CROSS_SLOT_PRIOS = True in the code, always in
    the seed's list of ephemeral attributes. A START reading it shows the difference."""
    start = "Slot2_RemoteUserPrio =!= undefined"
    machines = [_slot("slot1@m", START=start, TotalSlots="2", slot2_RemoteUser='"bob@x"')]
    subs = [_submitter("ann@x", 5, _jobs("ann", 1)), _submitter("bob@x", 50, [])]
    assert _cycle(machines, subs).matches == []
    with_knob = _cycle(machines, subs, "NEGOTIATOR_CROSS_SLOT_PRIOS = True\n")
    assert [m["job"] for m in with_knob.matches] == ["1.0"]
    prio = with_knob.slot_ads["slot1@m"]["slot2_RemoteUserPrio"]
    assert prio == 50.0  # bob's EUP, RUP 50 x factor 1 (a single-precision value)
    manual = _cycle(machines, subs, semantics="manual")
    assert [m["job"] for m in manual.matches] == ["1.0"]


def test_remote_user_prio_is_single_precision_in_the_code() -> None:
    """addRemoteUserPrios: `RemoteUserPrio = (float) GetPriority(user)` in the code."""
    machines = [_claimed("slot1@m", "bob@x")]
    subs = [_submitter("ann@x", 5, _jobs("ann", 1)), _submitter("bob@x", 3.3, [])]
    code = _cycle(machines, subs).slot_ads["slot1@m"]["RemoteUserPrio"]
    manual = _cycle(machines, subs, semantics="manual").slot_ads["slot1@m"]["RemoteUserPrio"]
    assert code != manual and abs(code - manual) < 1e-6


@pytest.mark.parametrize(
    "knob",
    [
        "PREEMPTION_REQUIREMENTS",
        "PREEMPTION_RANK",
        "NEGOTIATOR_PRE_JOB_RANK",
        "NEGOTIATOR_POST_JOB_RANK",
    ],
)
def test_an_expression_knob_that_does_not_parse_stops_the_negotiator_at_its_definition(
    knob: str,
) -> None:
    """The negotiator parses these four when it reads its configuration and refuses to
    start when one does not parse (matchmaker.cpp `Matchmaker::reinitialize`: EXCEPT
    "Error parsing ... expression"): an error at the definition before any match, even
    in a cycle that would never read it (no claimed slot: nothing to preempt). It was
    a bare syntax error in the middle of a cycle (`<input>:1:16: unexpected end of
    expression`), or none at all."""
    snapshot = {
        "config": f"NEGOTIATOR_INTERVAL = 60\n{knob} =  RemoteUserPrio *\n",
        "machines": [_slot("slot1@a")],
        "submitters": [_submitter("ann@x", 0.5, _jobs("ann", 1))],
    }
    with pytest.raises(PolicyError) as raised:
        negotiate_snapshot(snapshot, semantics="code")
    assert raised.value.format().startswith(
        f"<input>:2:{len(knob) + 5}: {knob} is not a valid ClassAd expression: "
    )
    assert f"'Error parsing {knob} expression'" in raised.value.message
    snapshot["config"] = f"{knob} =\n"  # (empty: no value, as `param` gives none)
    assert negotiate_snapshot(snapshot, semantics="code").matches
