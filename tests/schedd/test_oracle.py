"""The schedd policy against the htcondor wheel: the configuration as the schedd reads
it (`htcondor2.param` with subsystem SCHEDD), userMap with the configuration's maps
(the wheel loads SCHEDD_CLASSAD_USER_MAP_NAMES on `reload_config`, classad_usermap.cpp
`reconfig_user_maps`), the AssignGroup EVALSET steps, and the seed's requirement and
reason expressions evaluated with MY = schedd ad, TARGET = job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.classad import UNDEFINED, ClassAd, evaluate, parse
from compiler.classad import ast as A
from compiler.config import load_config
from compiler.schedd import check_submission
from compiler.schedd.usermap import UserMapper, user_maps
from tests.classad.oracle_support import oracle_eval, same
from tests.config.oracle_config import oracle_param
from tests.schedd.support import ad, policy_of, seed_config, wheel_evalsets

SEED_NAMES = [
    "JOB_TRANSFORM_NAMES",
    "JOB_TRANSFORM_AssignGroup",
    "JOB_TRANSFORM_SL6ToDocker",
    "SUBMIT_REQUIREMENT_NAMES",
    "SUBMIT_REQUIREMENT_NotStandardUniverse",
    "SUBMIT_REQUIREMENT_MinimalRequestMemory",
    "SUBMIT_REQUIREMENT_NotChris",
    "SUBMIT_REQUIREMENT_NotStandardUniverse_REASON",
    "SUBMIT_REQUIREMENT_MinimalRequestMemory_REASON",
    "SUBMIT_REQUIREMENT_NotChris_REASON",
    "SUBMIT_REQUIREMENT_OneGig",
    "SUBMIT_REQUIREMENT_OneGig_REASON",
    "SUBMIT_REQUIREMENT_OneGig_IS_WARNING",
    "SCHEDD_CLASSAD_USER_MAP_NAMES",
]


def test_the_seed_configuration_reads_as_the_schedd_reads_it(tmp_path: Path) -> None:
    path = seed_config(tmp_path)
    theirs = oracle_param(path, SEED_NAMES, subsystem="SCHEDD")
    assert not theirs.refused, theirs.message
    ours = load_config(path, subsystem="SCHEDD")
    for name in SEED_NAMES:
        assert ours.get(name) == theirs.values[name], name


def test_schedd_prefixed_settings_win_as_in_the_wheel(tmp_path: Path) -> None:
    path = tmp_path / "c.conf"
    path.write_text(
        "SUBMIT_REQUIREMENT_NAMES = A\nSCHEDD.SUBMIT_REQUIREMENT_NAMES = B\n"
        "SUBMIT_REQUIREMENT_B = true\nJOB_TRANSFORM_NAMES = X\n"
        "JOB_TRANSFORM_X @=end\n  SET A = $(MY.Owner)\n@end\n",
        encoding="utf-8",
    )
    names = ["SUBMIT_REQUIREMENT_NAMES", "JOB_TRANSFORM_X", "JOB_TRANSFORM_NAMES"]
    theirs = oracle_param(path, names, subsystem="SCHEDD")
    ours = load_config(path, subsystem="SCHEDD")
    for name in names:
        assert ours.get(name) == theirs.values[name], name


USERMAP_CASES = [
    'userMap("Groups", "alice")',
    'userMap("Groups", "alice", "cs")',
    'userMap("Groups", "alice", "CS")',
    'userMap("Groups", "alice", "ops")',
    'userMap("Groups", "chris", undefined)',
    'userMap("Groups", "eve")',
    'userMap("Groups", "Eve")',
    'userMap("Groups", "bob")',
    'userMap("Groups", "bob", "x", "fallback")',
    'userMap("Groups", "alice", "x", "fallback")',
    'userMap("Nope", "alice")',
    'userMap("Groups.*", "alice")',
    'userMap("Groups", 3)',
]


@pytest.fixture(scope="module")
def wheel_usermap(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[list[Any]]]:
    path = seed_config(tmp_path_factory.mktemp("usermap"))
    steps = [[("V", text)] for text in USERMAP_CASES]
    return path, wheel_evalsets(path, [(s, "[]") for s in steps])


def _plain(value: Any) -> Any:
    if isinstance(value, dict) and "special" in value:
        return value["special"]
    return value


def _ours_plain(value: Any) -> Any:
    if value is UNDEFINED:
        return "undefined"
    return value


@pytest.mark.parametrize("index", range(len(USERMAP_CASES)), ids=USERMAP_CASES)
def test_usermap_agrees_with_the_wheel(
    wheel_usermap: tuple[Path, list[list[Any]]], index: int
) -> None:
    path, answers = wheel_usermap
    config = load_config(path, subsystem="SCHEDD")
    from compiler.classad.functions_context import FunctionContext

    ctx = FunctionContext(user_map=UserMapper(user_maps(config)))
    ours = evaluate(parse(USERMAP_CASES[index]), {}, None, ctx=ctx)
    assert _ours_plain(ours) == _plain(answers[index][0])


ASSIGN_GROUP = [
    ("AcctGroup", 'userMap("Groups",Owner,AcctGroup)'),
    ("AccountingGroup", 'join(".",AcctGroup,Owner)'),
]
OWNERS = [
    '[Owner = "alice"; AcctGroup = "cs"]',
    '[Owner = "alice"]',
    '[Owner = "alice"; AcctGroup = "nope"]',
    '[Owner = "bob"]',
    '[Owner = "bob"; AcctGroup = "cs"]',
    '[Owner = "dan"]',
    "[AcctGroup = 7]",
]


def test_assign_group_steps_agree_with_the_wheel(tmp_path: Path) -> None:
    path = seed_config(tmp_path)
    theirs = wheel_evalsets(path, [(ASSIGN_GROUP, text) for text in OWNERS])
    policy = policy_of(path)
    for text, answer in zip(OWNERS, theirs, strict=True):
        record = parse(text)
        assert isinstance(record, A.RecordExpr)
        job = ClassAd(dict(record.attrs))
        out = check_submission(policy, [job]).jobs[0].ad
        got = [_ours_plain(out.get(attr)) for attr, _ in ASSIGN_GROUP]
        assert got == [_plain(v) for v in answer], text


SCHEDD_AD = {"Name": "submit.example.org", "MaxJobsRunning": 1000}
JOBS = [
    {"JobUniverse": 1, "RequestMemory": 2048, "Owner": "bob"},
    {"JobUniverse": 5, "RequestMemory": 256, "Owner": "bob"},
    {"JobUniverse": 5, "RequestMemory": 768, "Owner": "chris"},
    {"JobUniverse": 5, "Owner": "bob"},
    {"JobUniverse": 5, "RequestMemory": "lots", "Owner": "bob"},
]


@pytest.mark.parametrize("job", JOBS, ids=[str(j) for j in JOBS])
def test_seed_requirements_and_reasons_evaluate_as_in_the_wheel(
    tmp_path: Path, job: dict[str, Any]
) -> None:
    policy = policy_of(seed_config(tmp_path))
    for entry in policy.requirements:
        for expr in (entry.requirement, entry.reason):
            if expr is None:
                continue
            ours = evaluate(expr, SCHEDD_AD, job)
            assert same(ours, oracle_eval(expr, SCHEDD_AD, job)), (entry.name, job)


def test_a_submission_of_the_seed_uses_those_values(tmp_path: Path) -> None:
    # The verdict follows the values the wheel agrees on: RequestMemory 256 fails
    # MinimalRequestMemory, whose reason the wheel also builds.
    policy = policy_of(seed_config(tmp_path))
    job = ad(JobUniverse="5", RequestMemory="256", Owner='"bob"')
    reason = policy.requirements[2].reason
    assert reason is not None
    expected = oracle_eval(reason, SCHEDD_AD, {"JobUniverse": 5, "RequestMemory": 256})
    assert check_submission(policy, [job], ClassAd(SCHEDD_AD)).message == expected
