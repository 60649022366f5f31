"""The runtime evaluates the policy when the startd does (issue 12), on simulated time.

The moments come from the shared reference, transitions.md section 3.1 (HTCondor
`ResMgr::start_update_timer`, `ResMgr::check_polling`, `ResState::enter_action`,
`ResState::change`, `Resource::request_claim`), never from the code under test:

* at start-up and every UPDATE_INTERVAL from then on, whatever the state;
* every POLLING_INTERVAL once entering Claimed/Busy started the polling timer (its first
  evaluation one interval later), while the state stays one of the fast states;
* at once after entering an Idle or Retiring activity and after a preempting claim, in
  both semantics (6.8 and current), so a cascade happens in one instant.

The expected instant is computed from those rules for random intervals and times
(hypothesis, derandomized), and a trace with no `tick` must end where it should even
when its steps are closer together than POLLING_INTERVAL. The wall-clock counterpart is
tests/runtime/test_wallclock.py.
"""

from __future__ import annotations

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from runtime.trace import Step, Trace
from tests.runtime.support import SCENARIOS, coltrane_trace, load, run_trace

SECONDS = st.integers(min_value=1, max_value=40)


def _first(instants: list[float], at_least: float) -> float:
    return min(x for x in instants if x >= at_least)


def _trace(config: dict[str, str], steps: list[Step], **kw: object) -> Trace:
    return coltrane_trace(steps, config, **kw)


@settings(max_examples=40, deadline=None)
@given(
    polling=SECONDS,
    update=st.integers(min_value=1, max_value=400),
    activate=st.integers(min_value=1, max_value=300),
    delay=st.integers(min_value=1, max_value=500),
    semantics=st.sampled_from(["manual", "code"]),
)
@example(polling=5, update=300, activate=30, delay=72, semantics="code")
def test_a_running_job_is_suspended_at_the_first_evaluation_that_sees_the_owner(
    polling: int, update: int, activate: int, delay: int, semantics: str
) -> None:
    config = {
        "POLLING_INTERVAL": str(polling),
        "UPDATE_INTERVAL": str(update),
        "WANT_SUSPEND": "True",
        "SUSPEND": "KeyboardIdle < 60",
        "CONTINUE": "False",
    }
    owner_back = activate + delay
    steps = [
        Step(activate, "event", "match"),
        Step(activate, "event", "claim"),
        Step(activate, "event", "activate"),
        Step(owner_back, "set", values={"KeyboardIdle": 0}),
    ]
    trace = _trace(config, steps, machine={"KeyboardIdle": 5000}, idle_ages=False)
    end = owner_back + polling + update
    slot = run_trace(trace, semantics, until=end)
    # Polling from Claimed/Busy on (first one interval later), updates on the start's
    # phase; something due at the step's instant comes after the step.
    polls = [activate + k * polling for k in range(1, math.ceil((end - activate) / polling) + 1)]
    updates = [k * update for k in range(0, end // update + 1)]
    expected = _first(polls + updates, owner_back)
    suspended = [f.t for f in slot.fired if f.number == 14]
    assert suspended == [expected], [f.to_text() for f in slot.fired]


@settings(max_examples=40, deadline=None)
@given(
    update=st.integers(min_value=1, max_value=400),
    owner_leaves=st.integers(min_value=1, max_value=900),
)
@example(update=300, owner_leaves=1000 - 1)
def test_owner_is_left_at_the_first_update_after_is_owner_turns_false(
    update: int, owner_leaves: int
) -> None:
    # Owner is not a fast state: only the update timer evaluates it (reference 3.1).
    config = {"UPDATE_INTERVAL": str(update), "IS_OWNER": f"KeyboardIdle < {owner_leaves}"}
    steps = [Step(owner_leaves + update, "set", values={"LoadAvg": 0.0})]
    trace = _trace(config, steps, machine={"KeyboardIdle": 0}, idle_ages=True)
    slot = run_trace(trace, "code")
    left = [f.t for f in slot.fired if f.number == 1]
    assert left == [math.ceil(owner_leaves / update) * update]


def test_steps_closer_than_the_polling_interval_do_not_hide_the_evaluation() -> None:
    """A trace with no `tick` whose steps come every second: the polling evaluation still
    runs every POLLING_INTERVAL from the activation (the end state used to be Busy)."""
    config = {"WANT_SUSPEND": "True", "SUSPEND": "True", "CONTINUE": "False"}
    steps = [Step(10, "event", e) for e in ("match", "claim", "activate")]
    steps += [Step(10 + s, "set", values={"LoadAvg": 0.01 * s}) for s in range(1, 20)]
    slot = run_trace(_trace(config, steps), "code")
    assert slot.pair_tuple() == ("Claimed", "Suspended")
    assert [f.t for f in slot.fired if f.number == 14] == [15]  # POLLING_INTERVAL 5


def test_manual_semantics_cascades_in_one_instant() -> None:
    """MaxJobRetirementTime 0: PREEMPT's retirement (13) is over at once (18); a drained
    unclaimed slot (37) is Drained/Idle at once (33): entering a Retiring activity
    evaluates at once in the manual semantics too."""
    cases = (("preempt_no_retirement", 13, 18), ("drain_default_how", 37, 33))
    for name, first, then in cases:
        trace = load(SCENARIOS / "htcondor-current" / f"{name}.yaml")
        for semantics in ("manual", "code"):
            fired = run_trace(trace, semantics).fired
            at = {f.number: f.t for f in fired}
            assert at[then] == at[first], (name, semantics, [f.to_text() for f in fired])


def test_a_preempting_claim_is_evaluated_at_once_in_the_manual_semantics() -> None:
    """Resource::request_claim evaluates after registering the claim: with no
    retirement time the running job's eviction starts in the claim's instant."""
    config = {"MaxJobRetirementTime": "0", "RANK": 'Owner == "garrison"'}
    steps = [Step(10, "event", e) for e in ("match", "claim", "activate")]
    steps.append(Step(50, "event", "preempting_claim", job={"Owner": "garrison"}))
    slot = run_trace(_trace(config, steps, polling="explicit"), "manual")
    assert slot.pair_tuple() == ("Preempting", "Vacating")
    assert {f.t for f in slot.fired if f.t >= 50} == {50}
