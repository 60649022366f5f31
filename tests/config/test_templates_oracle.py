"""Every `use CATEGORY : Template` we ship, read by both readers.

Each template is used alone, without and with arguments, and every name it defines
(plus the policy names) must expand as in HTCondor. Also checks the shapes the manual
and the reference rely on: templates compose with earlier and later lines.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from compiler.config import all_templates
from tests.config.differential import compare

pytestmark = pytest.mark.oracle

#: Templates outside the startd policy that need features we do not copy.
KNOWN_DIFFERENT = {
    # HTCondor itself rejects the nested use when SHARED_PORT_PORT is not set up.
    ("EXPERIMENTAL", "HADSHAREDPORT"),
}


def _takes_args(body: str) -> bool:
    """True when the template refers to its arguments ($(0) .. $(9))."""
    return any(f"$({n}" in body for n in range(10))


CASES = [
    (category, key, template.name, args)
    for category, entries in sorted(all_templates().items())
    for key, template in sorted(entries.items())
    for args in (
        (None, "1, 2, 3") if "$(" in template.body and _takes_args(template.body) else (None,)
    )
    if (category, key) not in KNOWN_DIFFERENT
]


def _compare(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.config"
        path.write_text(text)
        result = compare(path)
    if result.oracle_refused:
        assert result.our_error is not None, result.oracle_message
        return
    assert result.our_error is None, result.our_error
    assert result.mismatches == {}


@pytest.mark.parametrize(
    ("category", "key", "name", "args"),
    CASES,
    ids=[f"{c}:{n}{'(args)' if a else ''}" for c, _, n, a in CASES],
)
def test_template_matches_htcondor(category: str, key: str, name: str, args: str | None) -> None:
    line = f"use {category} : {name}" + (f"({args})" if args is not None else "")
    _compare(line + "\n")


def test_at_least_the_startd_templates_are_shipped() -> None:
    policy = {key for key in all_templates()["POLICY"]}
    feature = {key for key in all_templates()["FEATURE"]}
    assert {
        "DESKTOP",
        "UWCS_DESKTOP",
        "ALWAYS_RUN_JOBS",
        "LIMIT_JOB_RUNTIMES",
        "PREEMPT_IF_RUNTIME_EXCEEDS",
        "HOLD_IF_RUNTIME_EXCEEDS",
        "PREEMPT_IF_MEMORY_EXCEEDED",
        "HOLD_IF_MEMORY_EXCEEDED",
        "PREEMPT_IF_CPUS_EXCEEDED",
        "HOLD_IF_CPUS_EXCEEDED",
        "PREEMPT_IF_DISK_EXCEEDED",
        "HOLD_IF_DISK_EXCEEDED",
        "PREEMPT_IF",
        "WANT_HOLD_IF",
        "STARTD_PUBLISH_CPUSUSAGE",
        "DESKTOP_IDLE",
        "DESKTOP_HOURS",
    } <= policy
    assert {
        "UWCS_DESKTOP_POLICY_VALUES",
        "POLICY_EXPR_FRAGMENTS",
        "STATICSLOTS",
        "PARTITIONABLESLOT",
        "GPUS",
    } <= {k.upper() for k in feature}


@pytest.mark.parametrize(
    "text",
    [
        # later lines override, earlier lines are overridden, $(START) extends
        'START = False\nuse POLICY : Desktop\nSTART = ($(START)) || Owner == "coltrane"\n',
        "MINUTE = 30\nuse POLICY : UWCS_Desktop\n",
        "use POLICY : Desktop\nuse POLICY : Preempt_If_Memory_Exceeded\n",
        "use POLICY : Always_Run_Jobs, Limit_Job_Runtimes(4 * 3600)\n",
        "WANT_HOLD = False\nuse POLICY : Hold_If_Memory_Exceeded\nuse POLICY : Hold_If_Cpus_Exceeded\n",
        "use POLICY : Want_Hold_If(MyCond, 7, my reason, with comma)\nMyCond = Memory > 10\n",
        "use POLICY : Desktop_Idle(9, 17, 1, 5)\n",
        "use POLICY : Desktop_Hours\n",
        "use FEATURE : StaticSlots(2, 4, cpus=1)\nuse FEATURE : PartitionableSlot(1, 50%)\n",
        "use @policy : @desktop\n",
        "use POLICY : Limit_Job_Runtimes()\n",
        "AUTO_USE_POLICY_Always_Run_Jobs = true\nSTART = False\n",
        "AUTO_USE_FEATURE_PelicanRetryPolicy = $(NOT_DEFINED)\n",
    ],
)
def test_template_combinations_match_htcondor(text: str) -> None:
    _compare(text)
