"""The startd's `State change:` reasons narrow a step's candidates (spec/replay_causes.yaml)."""

from __future__ import annotations

import re

import pytest

from compiler import compile_policy
from compiler.spec import ERAS, SEMANTICS, load_spec
from runtime.replay import Step, parse_log, replay_log
from runtime.replay.causes import load_causes
from tests.replay.synth import BANNER

CLAIMED_BUSY = BANNER + "\n".join(
    [
        "11/23/26 10:00:01 slot1: Changing state: Owner -> Unclaimed",
        "11/23/26 10:00:02 slot1: Changing state: Unclaimed -> Claimed",
        "11/23/26 10:00:03 slot1: Changing activity: Idle -> Busy",
    ]
)


def _last_step(extra: list[str]) -> Step:
    table = compile_policy(None, "htcondor-current", "code")
    result = replay_log(parse_log(CLAIMED_BUSY + "\n" + "\n".join(extra)), table)
    return result.slots[0].steps[-1]


def test_without_a_reason_both_rows_are_named() -> None:
    """Claimed/Busy -> Preempting/Vacating: the code's unnumbered rows `release` (the
    schedd's RELEASE_CLAIM) and `retirement_expired` both make it."""
    step = _last_step(
        [
            "11/23/26 10:00:09 slot1: Changing state and activity: Claimed/Busy -> Preempting/Vacating"
        ]
    )
    assert step.label() == "{retirement_expired H|release H}"


@pytest.mark.parametrize(
    ("reason", "label"),
    [
        # Resource::release_claim (23.0 Resource.cpp) logs this before the change.
        ("received RELEASE_CLAIM command", "release H"),
        # ResState::eval_policy (23.0 ResState.cpp), claimed/busy.
        ("claim retirement ended/expired", "retirement_expired H"),
    ],
)
def test_the_startds_reason_picks_the_row(reason: str, label: str) -> None:
    step = _last_step(
        [
            f"11/23/26 10:00:09 slot1: State change: {reason}",
            "11/23/26 10:00:09 slot1: Changing state and activity: Claimed/Busy -> Preempting/Vacating",
        ]
    )
    assert step.cause == reason
    assert step.label() == label
    assert not step.flagged


def test_a_reason_naming_no_candidate_narrows_nothing() -> None:
    step = _last_step(
        [
            "11/23/26 10:00:09 slot1: State change: benchmarks completed",
            "11/23/26 10:00:09 slot1: Changing state and activity: Claimed/Busy -> Preempting/Vacating",
        ]
    )
    assert step.label() == "{retirement_expired H|release H}"


def test_every_name_in_the_causes_file_is_a_name_some_era_uses() -> None:
    """Events and timers as some row's trigger names them; policy names and predicates
    as some policy/immediate guard mentions them: a typo in the data would never match."""
    named: dict[str, set[str]] = {
        k: set() for k in ("policy", "immediate", "protocol", "command", "timer")
    }
    for era in ERAS:
        for semantics in SEMANTICS:
            for t in load_spec(era, semantics).transitions:
                for trigger in t.triggers:
                    if trigger.kind in ("policy", "immediate"):
                        named[trigger.kind] |= set(re.findall(r"[A-Za-z_]\w*", trigger.guard))
                    else:
                        named[trigger.kind].add(trigger.name)
    for cause in load_causes():
        for wanted in cause.triggers:
            missing = set(wanted.names) - named[wanted.kind]
            assert not missing, (cause.text, wanted.kind, missing)
