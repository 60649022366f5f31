"""The compiled table is the whole program a slot runs (issue 10, "One compiled program").

* regression: `runtime.Slot(table)` used to recompile RANK, PREEMPT, START,
  MaxJobRetirementTime and MachineMaxVacateTime from the era defaults when no `Config` was
  passed, so with `RANK = Owner == "me"` it accepted a preempting claim the configured
  slot refused. The rule (reference transitions.md, "Preempting-claim acceptance
  (`request_claim`)", HTCondor `Resource::request_claim`): a preempting claim whose RANK
  is below the current claim's is refused.
* the table's knobs and settings against an independent reading of the configuration
  (`compiler.config.Config.expr/get`), over generated variations of the knobs the slot
  reads.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import evaluate, parse
from compiler.config import load_config
from compiler.policy import build_program, compile_policy
from compiler.spec import load_spec
from runtime.clock import SimClock
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot

#: A policy where nothing but the claim protocol moves the slot.
QUIET = "RunBenchmarks = False\nWANT_VACATE = True\nMaxJobRetirementTime = 0\nSTART = True\n"


def _claimed_slot(rank: str, owner: str) -> tuple[Slot, list[dict[str, Any]]]:
    config = load_config(era="htcondor-current", text=f"{QUIET}RANK = {rank}\n")
    table = compile_policy(config, era="htcondor-current", semantics="manual")
    log: list[dict[str, Any]] = []
    clock = SimClock()
    slot = Slot(table, FakeSensors(start=clock.now()), clock, listener=log.append)
    slot.start()
    slot.poll()
    for event in ("match", "claim", "activate"):
        slot.send(event, job={"Owner": owner})
    assert (slot.state, slot.activity) == ("Claimed", "Busy")
    return slot, log


def test_slot_from_the_table_alone_refuses_a_lower_ranked_preempting_claim() -> None:
    slot, log = _claimed_slot('Owner == "me"', "me")
    assert slot.ad["CurrentRank"] == 1.0  # RANK of the claim's job, from the table
    fired = slot.send("preempting_claim", job={"Owner": "other"})  # RANK 0 < 1
    assert fired is False
    assert (slot.state, slot.activity) == ("Claimed", "Busy")
    assert any("preempting claim refused" in str(r.get("note", "")) for r in log)


def test_slot_from_the_table_alone_accepts_a_higher_ranked_preempting_claim() -> None:
    slot, _ = _claimed_slot('Owner == "me"', "other")
    assert slot.ad["CurrentRank"] == 0.0
    assert slot.send("preempting_claim", job={"Owner": "me"}) is True  # RANK 1 > 0
    assert slot.state in ("Claimed", "Preempting")
    assert slot.record.preempting_job is not None or slot.state == "Preempting"


def test_published_start_is_the_configured_one() -> None:
    """The slot ad carries the configuration's START (Requirements = START), not the
    era default's TRUE."""
    config = load_config(era="htcondor-current", text="START = KeyboardIdle > 600\n")
    table = compile_policy(config, era="htcondor-current", semantics="manual")
    published = dict(table.program.published)
    assert published["START"] == parse("KeyboardIdle > 600")
    assert Slot(table).ad["START"] == parse("KeyboardIdle > 600")


# -- the table's knobs and settings vs the configuration --------------------------------

RANKS = st.sampled_from(["0", 'Owner == "me"', "TARGET.ImageSize / 1024", "", None])
PREEMPTS = st.sampled_from(["False", "KeyboardIdle < 60", "", None])
MJRTS = st.sampled_from(["0", "3600", "60 * 60 * 2", "", None])
INTS = st.sampled_from(["0", "300", "2 * 60", "-1", "", "abc", None])


def _text(values: dict[str, str | None], spell: str) -> str:
    """Configuration text; names are case-insensitive, so also written lower/upper case."""
    cased = {"lower": str.lower, "upper": str.upper}.get(spell, str)
    return "".join(f"{cased(k)} = {v}\n" for k, v in values.items() if v is not None)


def _number(text: str | None) -> int | None:
    """The integer a setting's text evaluates to alone (None: not a number)."""
    if not text:
        return None
    value = evaluate(parse(text), {}, None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


@settings(max_examples=60)
@given(
    era=st.sampled_from(["condor-6.8", "htcondor-current"]),
    rank=RANKS,
    preempt=PREEMPTS,
    mjrt=MJRTS,
    worklife=INTS,
    match=INTS,
    polling=INTS,
    spell=st.sampled_from(["as-is", "lower", "upper"]),
)
def test_knobs_and_settings_are_the_configurations(
    era: str,
    rank: str | None,
    preempt: str | None,
    mjrt: str | None,
    worklife: str | None,
    match: str | None,
    polling: str | None,
    spell: str,
) -> None:
    values = {
        "RANK": rank,
        "PREEMPT": preempt,
        "MaxJobRetirementTime": mjrt,
        "CLAIM_WORKLIFE": worklife,
        "MATCH_TIMEOUT": match,
        "POLLING_INTERVAL": polling,
    }
    config = load_config(era=era, text=_text(values, spell))
    # build_program is what compile_policy puts in `table.program` (the rows' guards,
    # slow to simplify, do not matter here).
    program = build_program(load_spec(era, "code"), config, [])
    for name in ("RANK", "PREEMPT", "MaxJobRetirementTime", "CLAIM_WORKLIFE"):
        knob = program.knob(name)
        written = config.where(name)
        if written is None:
            assert knob.source in ("default", "undefined")
            continue
        assert knob.spelling == written.name
        expected = config.expr(name)
        if expected is None:
            assert (knob.source, knob.expr) == ("empty", None)
        else:
            assert (knob.source, knob.expr) == ("config", expected)
    settings = program.settings
    assert settings.match_timeout == _number(config.get("MATCH_TIMEOUT"))
    assert settings.polling_interval == _number(config.get("POLLING_INTERVAL"))
    if worklife is not None:  # written (empty: forever, i.e. no limit)
        assert settings.claim_worklife == _number(config.get("CLAIM_WORKLIFE"))
    # RANK as the slot evaluates it: the configuration's expression (or the default 0)
    rank_expr = program.expression("RANK")
    assert rank_expr is not None
    job = {"Owner": "me", "ImageSize": 2048}
    got = evaluate(rank_expr, {}, job)
    want_expr = config.expr("RANK") if config.where("RANK") else parse("0")
    assert got == evaluate(want_expr or A.UndefinedLit(), {}, job)


@pytest.mark.parametrize("era", ["condor-6.4", "condor-6.8", "htcondor-current"])
def test_every_knob_and_variant_of_the_era_is_in_the_table(era: str) -> None:
    table = compile_policy(load_config(era=era), era=era, semantics="manual")
    names = {k.name for k in table.program.knobs}
    for policy in table.spec.policies:
        assert policy.name in names
        assert {policy.name + v for v in policy.variants} <= names
    # the display is a rendering of the knobs: same names, notes only there
    assert [n for n, _ in table.policy_values] == [p.name for p in table.spec.policies]


def test_an_invalid_knob_no_guard_reads_is_a_warning_not_a_stop() -> None:
    """RANK is read by the slot only (no guard names it): its bad text is reported with its
    position, and the slot takes it as UNDEFINED (CurrentRank 0), as it did before RANK
    moved into the table."""
    config = load_config(era="htcondor-current", text=f"{QUIET}RANK = (((\n")
    table = compile_policy(config, era="htcondor-current", semantics="manual")
    assert table.program.knob("RANK").source == "invalid"
    assert [w for w in table.warnings if w.startswith("<input>:5:")]
    assert table.program.expression("RANK") is None
    slot, _ = _claimed_slot("(((", "me")
    assert slot.ad["CurrentRank"] == 0.0
