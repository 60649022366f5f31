"""The manuals' stories, replayed from the spec data alone by a tiny generic interpreter.

Expected transition numbers come from the seed text and reference (cited per test); the
interpreter (tests/spec/minislot.py) holds no rule of its own, so these tests fail when a
row, a guard, an order, an immediate edge or an action in spec/eras/ is wrong.
"""

from __future__ import annotations

import pytest

from compiler.spec import load_spec
from tests.spec.minislot import MiniSlot


def claimed_busy(era: str, semantics: str, **policies: str) -> MiniSlot:
    slot = MiniSlot(load_spec(era, semantics), **policies)
    slot.tick()
    for event in ("match", "claim", "activate"):
        slot.send(event)
    assert str(slot.pair) == "Claimed/Busy"
    return slot


@pytest.mark.parametrize("semantics", ["manual", "code"])
def test_owner_to_preemption_and_back_6_8(semantics: str) -> None:
    """Seed 001 3.5.8: 1, 6, 9, 11; PREEMPT -> 13; retirement over -> 18; starter gone -> 22, then 1."""
    slot = claimed_busy("condor-6.8", semantics, IS_OWNER="False")
    slot.tick(PREEMPT="True")
    assert str(slot.pair) in ("Claimed/Retiring", "Preempting/Vacating")
    slot.tick(RetirementExpired=True)
    assert str(slot.pair) == "Preempting/Vacating"
    slot.send("starter_exit")
    assert slot.fired == [1, 6, 9, 11, 13, 18, 22, 1]
    assert str(slot.pair) == "Unclaimed/Idle"


def test_pre_retirement_era_preempts_directly_6_4() -> None:
    """Seed 000: Busy -> Preempting is 12; with WANT_VACATE FALSE it is Killing; then 19 and 1."""
    slot = claimed_busy("condor-6.4", "manual", WANT_VACATE="False")
    slot.tick(PREEMPT="True")
    assert str(slot.pair) == "Preempting/Killing"
    assert "KILLING_TIMEOUT" in slot.timers
    slot.send("starter_exit")
    assert slot.fired == [1, 6, 8, 10, 12, 19, 1]


def test_better_match_always_vacates_6_4() -> None:
    """Reference 1.1 #12: a better match assumes WANT_VACATE TRUE; then 18 accepts the claim."""
    slot = claimed_busy("condor-6.4", "manual", WANT_VACATE="False")
    slot.send("preempting_claim")
    assert str(slot.pair) == "Preempting/Vacating"
    slot.send("starter_exit")
    assert slot.fired[-2:] == [12, 18]
    assert str(slot.pair) == "Claimed/Idle"


def test_vacating_an_idle_claim_cascades_10_22_1_current_code() -> None:
    """Reference D10: vacating an idle claim is #10, #22, #1 in the same instant."""
    slot = MiniSlot(load_spec("htcondor-current", "code"))
    slot.tick()
    slot.send("match")
    slot.send("claim")
    slot.send("vacate", "graceful")
    assert slot.fired == [1, 6, 9, 10, 22, 1]
    assert str(slot.pair) == "Unclaimed/Idle"


@pytest.mark.parametrize("era", ["condor-6.8", "htcondor-current"])
def test_preempting_claim_withdrawn_unretires_manual(era: str) -> None:
    """Seed 001/002: retiring only for a preempting claim that goes away resumes Busy (19)."""
    slot = claimed_busy(era, "manual")
    slot.send("preempting_claim")
    assert str(slot.pair) == "Claimed/Retiring"
    slot.send("preempting_claim_withdrawn")
    assert slot.fired[-2:] == [13, 19]
    assert str(slot.pair) == "Claimed/Busy"


def test_preempt_retirement_is_irreversible_code() -> None:
    """Seed 001 #19: after PREEMPT no unretirement, even when the preempting claim leaves."""
    slot = claimed_busy("condor-6.8", "code")
    slot.send("preempting_claim")
    assert str(slot.pair) == "Claimed/Retiring"
    slot.tick(PREEMPT="True")  # makes the retirement irreversible (unnumbered, no state change)
    slot.send("preempting_claim_withdrawn")
    assert str(slot.pair) == "Claimed/Retiring"
    assert "unnumbered:preempt_in_retirement" in slot.fired


def test_preempting_claim_with_no_retirement_skips_retiring_current_code() -> None:
    """Reference D9: Busy -> Preempting/Vacating directly, then 23 accepts the new claim."""
    slot = claimed_busy("htcondor-current", "code")
    slot.flags["RetirementExpired"] = True
    slot.send("preempting_claim")
    assert str(slot.pair) == "Preempting/Vacating"
    slot.send("job_exit")
    assert slot.fired[-2:] == ["unnumbered:retirement_expired", 23]
    assert str(slot.pair) == "Claimed/Idle"


@pytest.mark.parametrize(("semantics", "activity"), [("manual", "Killing"), ("code", "Vacating")])
def test_want_vacate_only_after_preempt(semantics: str, activity: str) -> None:
    """Reference D5: a graceful condor_vacate ignores WANT_VACATE in the code, not in the manual."""
    slot = claimed_busy("htcondor-current", semantics, WANT_VACATE="False")
    slot.send("vacate", "graceful")
    slot.tick(RetirementExpired=True)
    assert str(slot.pair) == f"Preempting/{activity}"
    assert slot.fired[-2:] == [13, 18]


@pytest.mark.parametrize("semantics", ["manual", "code"])
def test_matched_ignores_start_in_the_code(semantics: str) -> None:
    """Reference D1: START locally FALSE ends Matched in the manual (#8), only the timer in code."""
    slot = MiniSlot(load_spec("condor-6.8", semantics))
    slot.tick()
    slot.send("match")
    slot.tick(START="False")
    if semantics == "manual":
        assert slot.fired[-1] == 8
        assert "MATCH_TIMEOUT" not in slot.timers
    else:
        assert str(slot.pair) == "Matched/Idle"
        slot.expire("MATCH_TIMEOUT")
        assert slot.fired[-1] == 8
    assert str(slot.pair) == "Owner/Idle"  # IsOwner = (START =?= False) holds: no #1


def test_drain_cycle_current() -> None:
    """Seed 002: draining an Unclaimed slot (37), all drained (33), cancelled (34), then 1."""
    for semantics in ("manual", "code"):
        slot = MiniSlot(load_spec("htcondor-current", semantics))
        slot.tick()
        slot.send("drain", "graceful")
        assert str(slot.pair) == "Drained/Retiring"
        slot.tick(AllSlotsDrained=True)
        slot.send("cancel_drain")
        assert slot.fired == [1, 37, 33, 34, 1], semantics


def test_suspend_and_continue_in_retirement_6_8() -> None:
    """Seed 001: 14 suspends, 20 suspends a retiring job, which resumes into Retiring (16)."""
    slot = claimed_busy(
        "condor-6.8", "manual", WANT_SUSPEND="True", SUSPEND="True", CONTINUE="False"
    )
    slot.tick()
    assert slot.fired[-1] == 14
    slot.tick(SUSPEND="False", CONTINUE="True")
    assert slot.fired[-1] == 15
    slot.send("preempting_claim")
    slot.tick(SUSPEND="True", CONTINUE="False")
    slot.tick(SUSPEND="False", CONTINUE="True")
    assert slot.fired[-3:] == [13, 20, 16]
