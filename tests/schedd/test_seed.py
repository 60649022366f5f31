"""Every example of seed 002's "condor_schedd Policy Configuration" section, with the
outcome and the message text the seed prints (sections "Job Transforms", "Submit
Requirements", "Submit Warnings"). Expected values are written by hand from the seed and
from HTCondor 23.0's schedd.cpp `Scheduler::checkSubmitRequirements`, qmgmt.cpp (the
submit transaction's check) and submit.cpp (what condor_submit prints); the parts a wheel
can answer are compared with it (test_oracle.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.classad import UNDEFINED, parse
from compiler.schedd import ScheddPolicy, check_submission, condor_submit_lines
from tests.schedd.support import ad, policy_of, seed_config

STANDARD = "This pool does not accept standard universe jobs."
CHRIS = "Chris, you may only submit jobs to the instructional pool."
ONE_GIG = "As of , the minimum requested memory will be 1024."
FAILED = "ERROR: Failed to commit job submission into the queue."


@pytest.fixture
def policy(tmp_path: Path) -> ScheddPolicy:
    return policy_of(seed_config(tmp_path))


def test_the_seed_lists_its_requirements_in_order(policy: ScheddPolicy) -> None:
    # SUBMIT_REQUIREMENT_NAMES = OneGig $(SUBMIT_REQUIREMENT_NAMES): the warning first.
    assert [r.name for r in policy.requirements] == [
        "OneGig",
        "NotStandardUniverse",
        "MinimalRequestMemory",
        "NotChris",
    ]
    assert [r.is_warning for r in policy.requirements] == [True, False, False, False]
    assert [t.name for t in policy.transforms][:2] == ["AssignGroup", "SL6ToDocker"]


def test_standard_universe_job_is_rejected_with_the_seeds_message(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="1", RequestMemory="2048", Owner='"bob"')
    result = check_submission(policy, [job])
    assert result.status == "rejected"
    assert result.message == STANDARD
    assert condor_submit_lines(result, semantics="manual") == [FAILED, f"ERROR: {STANDARD}"]
    assert condor_submit_lines(result, semantics="code") == [FAILED, f"ERROR: {STANDARD}"]


def test_too_little_memory_is_rejected_with_the_strcat_reason(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="256", Owner='"bob"')
    result = check_submission(policy, [job])
    assert result.status == "rejected"
    assert result.message == (
        "The job only requested 256 Megabytes. If that small amount is really enough, "
        "please contact ..."
    )
    assert result.jobs[0].requirements is not None
    assert result.jobs[0].requirements.rejected_by == "MinimalRequestMemory"


def test_chris_is_rejected(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"chris"')
    result = check_submission(policy, [job])
    assert (result.status, result.message) == ("rejected", CHRIS)


def test_only_the_first_failing_requirement_is_reported(policy: ScheddPolicy) -> None:
    # Fails NotStandardUniverse, MinimalRequestMemory and NotChris (and the warning).
    job = ad(JobUniverse="1", RequestMemory="100", Owner='"chris"')
    result = check_submission(policy, [job])
    assert result.message == STANDARD
    verdict = result.jobs[0].requirements
    assert verdict is not None
    assert [p.requirement for p in verdict.problems] == ["OneGig", "NotStandardUniverse"]


def test_one_gig_warning_commits_with_the_seeds_wording(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="768", Owner='"bob"')
    result = check_submission(policy, [job])
    assert result.status == "warned"
    assert result.message == ONE_GIG
    assert condor_submit_lines(result, semantics="manual") == [
        "WARNING: Committed job submission into the queue with the following warning:",
        f"WARNING: {ONE_GIG}",
    ]
    # condor_submit 23.0 says "warning(s)" (src/condor_submit.V6/submit.cpp).
    assert condor_submit_lines(result, semantics="code")[0].endswith("following warning(s):")


def test_enough_memory_is_accepted_silently(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"bob"')
    result = check_submission(policy, [job])
    assert (result.status, result.message) == ("accepted", None)
    assert condor_submit_lines(result) == []


def test_a_rejected_job_rejects_its_cluster(policy: ScheddPolicy) -> None:
    good = ad(JobUniverse="5", RequestMemory="2048", Owner='"bob"')
    bad = ad(JobUniverse="1", RequestMemory="2048", Owner='"bob"')
    result = check_submission(policy, [good, bad, good])
    assert (result.status, result.rejected_job, result.message) == ("rejected", 1, STANDARD)
    assert len(result.jobs) == 2  # the third job is never looked at


def test_a_warning_of_an_earlier_job_is_kept_when_a_later_one_passes(policy: ScheddPolicy) -> None:
    warned = ad(JobUniverse="5", RequestMemory="768", Owner='"bob"')
    fine = ad(JobUniverse="5", RequestMemory="2048", Owner='"bob"')
    result = check_submission(policy, [warned, fine])
    assert (result.status, result.message) == ("warned", ONE_GIG)


# -- the transforms ------------------------------------------------------------------------


def test_assign_group_keeps_a_requested_group_the_user_is_in(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"alice"', AcctGroup='"cs"')
    out = check_submission(policy, [job]).jobs[0]
    assert "AssignGroup" in out.applied
    assert out.ad["AcctGroup"] == "cs"
    assert out.ad["AccountingGroup"] == "cs.alice"


def test_assign_group_picks_the_first_group_without_a_request(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"alice"')
    out = check_submission(policy, [job]).jobs[0]
    assert out.ad["AcctGroup"] == "physics"
    assert out.ad["AccountingGroup"] == "physics.alice"


def test_assign_group_ignores_a_group_the_user_is_not_in(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"alice"', AcctGroup='"ops"')
    out = check_submission(policy, [job]).jobs[0]
    assert out.ad["AcctGroup"] == "physics"


def test_assign_group_uses_regex_entries_of_the_map(policy: ScheddPolicy) -> None:
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"dan"')
    out = check_submission(policy, [job]).jobs[0]
    assert out.ad["AccountingGroup"] == "ops_dan.dan"


def test_assign_group_for_an_unmapped_user(policy: ScheddPolicy) -> None:
    # userMap gives UNDEFINED; EVALSET stores it; join skips it (checked against the
    # wheel in test_oracle.py).
    job = ad(JobUniverse="5", RequestMemory="2048", Owner='"bob"')
    out = check_submission(policy, [job]).jobs[0]
    assert out.ad["AcctGroup"] is UNDEFINED
    assert out.ad["AccountingGroup"] == "bob"


def test_sl6_to_docker_on_a_matching_job(policy: ScheddPolicy) -> None:
    job = ad(
        JobUniverse="5",
        RequestMemory="2048",
        Owner='"bob"',
        WantSL6="true",
        Requirements='(TARGET.OpSys == "LINUX")',
    )
    out = check_submission(policy, [job]).jobs[0]
    assert "SL6ToDocker" in out.applied
    assert out.ad["WantDocker"] == parse("true")
    assert out.ad["DockerImage"] == parse('"SL6"')
    assert out.ad["Requirements"] == parse('TARGET.HasDocker && (TARGET.OpSys == "LINUX")')
    changed = {c.attr for c in out.changes}
    assert {"WantDocker", "DockerImage", "Requirements"} <= changed


@pytest.mark.parametrize(
    "attrs",
    [
        {"JobUniverse": "5"},  # no WantSL6
        {"JobUniverse": "5", "WantSL6": "false"},
        {"JobUniverse": "5", "WantSL6": "true", "DockerImage": '"centos7"'},
        {"JobUniverse": "7", "WantSL6": "true"},  # not vanilla
    ],
)
def test_sl6_to_docker_leaves_other_jobs_alone(policy: ScheddPolicy, attrs: dict[str, str]) -> None:
    job = ad(RequestMemory="2048", Owner='"bob"', Requirements="true", **attrs)
    out = check_submission(policy, [job]).jobs[0]
    assert "SL6ToDocker" not in out.applied
    assert out.ad["Requirements"] == parse("true")
    assert "WantDocker" not in out.ad
