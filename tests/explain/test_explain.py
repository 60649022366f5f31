"""`runtime.explain`: the deciding clauses, the transition that fires, the smallest change
and the flip time, checked against hand-made ads for the seeds' policies.

Expected values are worked out by hand from the policies below and the manual's tables,
never taken from a run:

* seed 000's manual example (`START : KeyboardIdle > 15 * $(MINUTE) && Owner ==
  "coltrane"`, with the IS_OWNER of that era, `(START =?= False)`; today's default is
  False), "if KeyboardIdle was only 34 seconds, then the machine would still be in
  the Owner state, even though it references Owner, which is undefined"): evaluated
  locally in Unclaimed/Idle, START is FALSE at KeyboardIdle 34 (decided by the keyboard
  clause alone), so IS_OWNER (`START =?= false`) holds and row 2 takes the slot to Owner;
  at KeyboardIdle 1000 START is UNDEFINED (Owner is a job attribute evaluated locally).
* the shipped Desktop policy in Claimed/Busy with the keyboard touched 5 s ago and a
  small vanilla job: WANT_SUSPEND and SUSPEND hold, PREEMPT does not, so row 14
  (suspend) fires, the first holding guard of the Claimed evaluation order.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import compile_policy
from compiler.classad import ClassAd, load_ad
from compiler.config import load_config
from compiler.spec import Pair
from runtime.explain import Clause, explain_slot

SEED000 = (
    "MINUTE = 60\n"
    'START = KeyboardIdle > 15 * $(MINUTE) && Owner == "coltrane"\n'
    "IS_OWNER = (START =?= False)\n"
)
NOW = 1_700_000_000


def _policy(text: str) -> tuple[Any, Any]:
    config = load_config(text=text, era="htcondor-current")
    return compile_policy(config, era="htcondor-current", semantics="code"), config


@pytest.fixture(scope="module")
def seed000() -> tuple[Any, Any]:
    return _policy(SEED000)


@pytest.fixture(scope="module")
def desktop() -> tuple[Any, Any]:
    return _policy("use POLICY : Desktop\n")


def _machine(state: str, activity: str, **attrs: Any) -> ClassAd:
    ad = ClassAd({"State": state, "Activity": activity, "MyCurrentTime": NOW})
    ad.update(attrs)
    return ad


def _step(ex: Any, row: str) -> Any:
    return next(s for s in ex.steps if s.row == row)


def _leaves(clause: Clause) -> list[tuple[str, str]]:
    return [(leaf.text, leaf.truth) for leaf in clause.leaves()]


def test_seed000_keyboard_decides_owner(seed000: tuple[Any, Any]) -> None:
    table, config = seed000
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", KeyboardIdle=34))
    assert ex.pair == Pair("Unclaimed", "Idle")
    assert ex.fires is not None and ex.fires.row == "2"
    assert ex.fires.target == "Owner/Idle"
    step = _step(ex, "2")
    assert step.clause.truth == "TRUE"
    assert _leaves(step.clause) == [("KeyboardIdle > 15 * 60", "FALSE")]
    (reading,) = step.clause.leaves()[0].reads
    assert (reading.name, reading.value, reading.where) == ("KeyboardIdle", "34", "machine")
    # IS_OWNER holds until KeyboardIdle passes 900: 901 - 34 seconds of clock.
    assert step.flips_in == 867


def test_seed000_owner_undefined_locally(seed000: tuple[Any, Any]) -> None:
    table, config = seed000
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", KeyboardIdle=1000))
    step = _step(ex, "2")
    assert not step.holds
    assert step.clause.truth == "FALSE"
    assert _leaves(step.clause) == [('Owner == "coltrane"', "UNDEFINED")]
    (reading,) = step.clause.leaves()[0].reads
    assert reading.where == "nowhere" and "locally" in reading.note
    # The nearest KeyboardIdle that makes START FALSE again (IS_OWNER TRUE) is 900.
    assert step.change is not None
    (edit,) = step.change.edits
    assert (edit.attribute, edit.now, edit.to) == ("KeyboardIdle", "1000", "900")


def test_steps_follow_the_evaluation_order(seed000: tuple[Any, Any]) -> None:
    table, config = seed000
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", KeyboardIdle=34))
    orders = [s.order for s in ex.steps]
    assert orders == sorted(orders)
    # The dynamic-slot deletion and draining are tried before IS_OWNER.
    assert [s.row for s in ex.steps][:3] == ["unnumbered:delete@Unclaimed/Idle", "37", "2"]
    first = next(s for s in ex.steps if s.holds)
    assert ex.fires is first


@pytest.mark.parametrize(("owner", "accepts"), [("coltrane", True), ("miles", False)])
def test_seed000_start_against_a_job(seed000: tuple[Any, Any], owner: str, accepts: bool) -> None:
    table, config = seed000
    job = ClassAd({"Owner": owner, "RequestCpus": 1})
    machine = _machine("Unclaimed", "Idle", KeyboardIdle=1000, Cpus=1, Memory=512, Disk=10)
    ex = explain_slot(table, config, machine, job)
    start = next(v for v in ex.job if v.name == "START")
    assert start.accepts is accepts
    if not accepts:
        assert _leaves(start.clause) == [('Owner == "coltrane"', "FALSE")]
        (reading,) = start.clause.leaves()[0].reads
        assert (reading.value, reading.where) == ('"miles"', "job")


def test_requirements_helpers_and_the_job_side(desktop: tuple[Any, Any]) -> None:
    """The slot's Requirements (`START && WithinResourceLimits`, reference section 5) is
    decided inside WithinResourceLimits: the job asks for more memory than the slot has;
    the job's own Requirements reads the slot as TARGET."""
    table, config = desktop
    machine = _machine("Unclaimed", "Idle", KeyboardIdle=1000, LoadAvg=0.0, CondorLoadAvg=0.0)
    machine.update({"Cpus": 4, "Memory": 8192, "Disk": 10**6})
    job = load_ad("RequestMemory = 16384\nRequirements = TARGET.Memory >= RequestMemory\n")
    ex = explain_slot(table, config, machine, job)
    by = {(v.side, v.name): v for v in ex.job}
    assert by[("slot", "START")].accepts
    requirements = by[("slot", "Requirements")]
    assert not requirements.accepts
    assert _leaves(requirements.clause)[-1] == ("TARGET.RequestMemory <= MY.Memory", "FALSE")
    theirs = by[("job", "Requirements")]
    assert not theirs.accepts
    (leaf,) = theirs.clause.leaves()
    assert [(r.name, r.value, r.where) for r in leaf.reads] == [
        ("TARGET.Memory", "8192", "machine"),
        ("RequestMemory", "16384", "job"),
    ]


def test_misspelled_attribute_did_you_mean() -> None:
    table, config = _policy("START = KeyboardIdel > 900\nIS_OWNER = (START =?= False)\n")
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", KeyboardIdle=1000))
    step = _step(ex, "2")
    (leaf,) = step.clause.leaves()
    assert leaf.truth == "UNDEFINED"
    (reading,) = leaf.reads
    assert reading.name == "KeyboardIdel" and "did you mean KeyboardIdle" in reading.note


def test_desktop_suspends_a_busy_slot(desktop: tuple[Any, Any]) -> None:
    table, config = desktop
    machine = _machine(
        "Claimed",
        "Busy",
        KeyboardIdle=5,
        LoadAvg=1.0,
        CondorLoadAvg=1.0,
        EnteredCurrentActivity=NOW - 1000,
        JobStart=NOW - 1000,
    )
    job = ClassAd({"ImageSize": 100, "JobUniverse": 5})
    ex = explain_slot(table, config, machine, job)
    assert ex.fires is not None and ex.fires.row == "14"
    assert ex.fires.target == "Claimed/Suspended"
    preempt = next(s for s in ex.steps if s.row == "13" and s.order < ex.fires.order)
    assert not preempt.holds
    # WANT_SUSPEND holds, so `WANT_SUSPEND =!= true` is what stops PREEMPT's row.
    assert preempt.clause.truth == "FALSE"
    assert preempt.clause.deciding[0].text.endswith("=!= true")


def test_no_transition_means_the_slot_stays(desktop: tuple[Any, Any]) -> None:
    table, config = desktop
    machine = _machine("Owner", "Idle", KeyboardIdle=5, LoadAvg=0.0, CondorLoadAvg=0.0)
    ex = explain_slot(table, config, machine)
    assert ex.fires is None
    step = _step(ex, "1")
    # !IS_OWNER needs START: the keyboard must be idle for more than 15 minutes.
    assert step.change is not None
    assert [(e.attribute, e.to) for e in step.change.edits] == [("KeyboardIdle", "901")]
    assert step.flips_in == 901 - 5


def test_two_attributes_when_one_is_not_enough(desktop: tuple[Any, Any]) -> None:
    """Desktop's START needs an idle keyboard and a low non-Condor load: with both wrong
    no single attribute makes !IS_OWNER hold, and the two-attribute change found does."""
    table, config = desktop
    machine = _machine("Owner", "Idle", KeyboardIdle=5, LoadAvg=2.0, CondorLoadAvg=0.0)
    step = _step(explain_slot(table, config, machine), "1")
    assert step.change is not None and len(step.change.edits) == 2
    names = {e.attribute for e in step.change.edits}
    assert "KeyboardIdle" in names and names & {"LoadAvg", "CondorLoadAvg"}
    changed = ClassAd(dict(machine))
    for edit in step.change.edits:
        changed[edit.attribute] = float(edit.to) if "." in edit.to else int(edit.to)
    assert _step(explain_slot(table, config, changed), "1").holds


def test_at_publishes_the_pair(desktop: tuple[Any, Any]) -> None:
    """With --at the slot ad says the pair asked for (Desktop's START reads State)."""
    table, config = desktop
    machine = _machine("Claimed", "Busy", KeyboardIdle=1000, LoadAvg=2.0, CondorLoadAvg=0.0)
    ex = explain_slot(table, config, machine, pair=Pair("Owner", "Idle"))
    # In Owner the load clause counts: 2.0 > 0.3, so START is FALSE and !IS_OWNER too.
    assert not _step(ex, "1").holds


@settings(max_examples=40, deadline=None)
@given(idle=st.integers(min_value=0, max_value=5000))
def test_seed000_law_and_change_soundness(idle: int) -> None:
    """IS_OWNER holds in Unclaimed/Idle exactly when KeyboardIdle <= 900 (Owner is
    UNDEFINED locally, so START is never TRUE); the proposed change, applied, fires the
    row; the flip time is the first second at which the guard changes."""
    table, config = _cached_seed000()
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", KeyboardIdle=idle))
    step = _step(ex, "2")
    assert step.holds is (idle <= 900)
    assert step.holds is (step.clause.truth == "TRUE")
    if not step.holds:
        assert step.change is not None
        (edit,) = step.change.edits
        changed = _machine("Unclaimed", "Idle", KeyboardIdle=int(edit.to))
        assert _step(explain_slot(table, config, changed), "2").holds
        assert step.flips_in is None  # KeyboardIdle only grows
    else:
        assert step.flips_in == 901 - idle


_CACHE: dict[str, tuple[Any, Any]] = {}


def _cached_seed000() -> tuple[Any, Any]:
    if "t" not in _CACHE:
        _CACHE["t"] = _policy(SEED000)
    return _CACHE["t"]


def test_condor_status_long_form_ad(seed000: tuple[Any, Any]) -> None:
    """An ad as `condor_status -l` prints it (State and Activity from the ad)."""
    table, config = seed000
    ad = load_ad('State = "Unclaimed"\nActivity = "Idle"\nKeyboardIdle = 34\nMyCurrentTime = 5\n')
    ex = explain_slot(table, config, ad)
    assert ex.pair == Pair("Unclaimed", "Idle") and ex.now == 5
    assert ex.fires is not None and ex.fires.row == "2"


def test_undocumented_attribute_read_locally_is_flagged() -> None:
    """A local guard reading an attribute spec/attributes.yaml does not document: the
    compiled table takes it for a job attribute (UNDEFINED locally, compiler.expand), so
    START =?= true is FALSE there and IS_OWNER holds, while the clauses, reading the
    ad, find it TRUE; the step says so."""
    table, config = _policy("START = MyCustomFlag =?= true\nIS_OWNER = (START =?= False)\n")
    ex = explain_slot(table, config, _machine("Unclaimed", "Idle", MyCustomFlag=True))
    step = _step(ex, "2")
    assert step.holds and step.clause.truth == "FALSE"
    assert "STARTD_ATTRS" in step.note
