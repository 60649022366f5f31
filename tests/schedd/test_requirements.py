"""Submit requirements beyond the seed's examples: default messages, non-boolean values,
reasons that are not strings, the configuration's problems as positioned errors.
Expected texts are HTCondor 23.0's (src/condor_schedd.V6/schedd.cpp
`Scheduler::checkSubmitRequirements` and `Scheduler::reconfig`), written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.errors import PolicyError
from compiler.schedd import ScheddPolicy, check_submission, load_schedd_policy
from compiler.schedd.requirements import param_boolean, submit_requirements
from tests.schedd.support import ad


def _policy(tmp_path: Path, text: str) -> ScheddPolicy:
    path = tmp_path / "schedd.conf"
    path.write_text(text, encoding="utf-8")
    return load_schedd_policy(load_config(path, subsystem="SCHEDD"))


def test_default_message_names_the_requirement(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X > 1\n")
    result = check_submission(policy, [ad(X="0")])
    assert (result.status, result.message) == ("rejected", "Submit requirement Big not met.")


def test_undefined_is_non_boolean_and_rejects(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X > 1\n")
    result = check_submission(policy, [ad()])
    assert result.message == "Submit requirement Big evaluated to non-boolean."


def test_a_number_counts_as_a_boolean(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "SUBMIT_REQUIREMENT_NAMES = N\nSUBMIT_REQUIREMENT_N = X\n")
    assert check_submission(policy, [ad(X="2.5")]).status == "accepted"
    assert check_submission(policy, [ad(X="0")]).message == "Submit requirement N not met."


def test_schedd_ad_is_my_and_job_is_target(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "SUBMIT_REQUIREMENT_NAMES = Quota\n"
        "SUBMIT_REQUIREMENT_Quota = TARGET.RequestCpus <= MY.MaxCpus\n",
    )
    schedd = ad(MaxCpus="4")
    assert check_submission(policy, [ad(RequestCpus="4")], schedd).status == "accepted"
    assert check_submission(policy, [ad(RequestCpus="8")], schedd).status == "rejected"


def test_a_reason_expression_that_is_not_a_string_uses_the_default(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X > 1\n"
        "SUBMIT_REQUIREMENT_Big_REASON = X + 1\n",
    )
    result = check_submission(policy, [ad(X="0")])
    assert result.message == "Submit requirement Big not met."
    assert any("did not evaluate to a string" in n for n in result.jobs[0].notes)


def test_a_literal_reason_that_is_not_a_string_is_a_positioned_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as info:
        _policy(
            tmp_path,
            "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X > 1\n"
            "SUBMIT_REQUIREMENT_Big_REASON = 42\n",
        )
    assert info.value.line == 3 and "must be a ClassAd expression that gives a string" in str(
        info.value
    )


def test_an_unquoted_reason_is_a_positioned_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as info:
        _policy(
            tmp_path,
            "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X > 1\n"
            "SUBMIT_REQUIREMENT_Big_REASON = Jobs need more memory.\n",
        )
    assert info.value.line == 3 and "not a valid ClassAd expression" in info.value.message


def test_an_unparsable_requirement_is_a_positioned_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as info:
        _policy(tmp_path, "SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = X >\n")
    assert (info.value.line, info.value.column) == (2, 26)


def test_undefined_requirements_and_the_name_names_are_skipped(tmp_path: Path) -> None:
    config = load_config(
        text="SUBMIT_REQUIREMENT_NAMES = NAMES, Ghost A\nSUBMIT_REQUIREMENT_A = true\n",
        subsystem="SCHEDD",
    )
    assert [r.name for r in submit_requirements(config)] == ["A"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("TRUE", True), ("true  ", True), ("1", True), ("False", False), ("0", False),
     ("2 > 1", True), ("3", True), ("0.0", False), ("yes", False), ("", False)],
)  # fmt: skip
def test_is_warning_is_read_as_param_boolean(text: str, value: bool) -> None:
    assert param_boolean(text) is value


def test_a_warning_does_not_stop_evaluation_and_the_last_one_is_reported(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "SUBMIT_REQUIREMENT_NAMES = W1 W2 R\n"
        'SUBMIT_REQUIREMENT_W1 = false\nSUBMIT_REQUIREMENT_W1_REASON = "first"\n'
        "SUBMIT_REQUIREMENT_W1_IS_WARNING = true\n"
        'SUBMIT_REQUIREMENT_W2 = false\nSUBMIT_REQUIREMENT_W2_REASON = "second"\n'
        "SUBMIT_REQUIREMENT_W2_IS_WARNING = true\n"
        "SUBMIT_REQUIREMENT_R = Ok\n",
    )
    assert check_submission(policy, [ad(Ok="true")]).message == "second"
    rejected = check_submission(policy, [ad(Ok="false")])
    assert (rejected.status, rejected.message) == ("rejected", "Submit requirement R not met.")


def test_the_ads_are_also_named_schedd_and_job(tmp_path: Path) -> None:
    # checkSubmitRequirements evaluates with the aliases "SCHEDD" and "JOB".
    policy = _policy(
        tmp_path,
        "SUBMIT_REQUIREMENT_NAMES = Quota\n"
        "SUBMIT_REQUIREMENT_Quota = JOB.RequestCpus <= SCHEDD.MaxCpus\n"
        'SUBMIT_REQUIREMENT_Quota_REASON = strcat("at most ", SCHEDD.MaxCpus, " cpus")\n',
    )
    schedd = ad(MaxCpus="4")
    assert check_submission(policy, [ad(RequestCpus="4")], schedd).status == "accepted"
    rejected = check_submission(policy, [ad(RequestCpus="8")], schedd)
    assert (rejected.status, rejected.message) == ("rejected", "at most 4 cpus")
