"""The slot engine (runtime.engine): which triggers the spec's algorithm pulls, in order.

Facts from the reference (shared/reference/transitions.md, condor 6.8 and current tables):
transition 9 is Matched/Idle -> Claimed/Idle on the claim protocol, 8 (letter F) leaves
Matched/Idle for Owner/Idle on a claim-protocol error; 11 Claimed/Idle ->
Claimed/Busy on activation; 8 leaves Matched/Idle when MATCH_TIMEOUT expires; 21 is
Preempting/Vacating -> Preempting/Killing on KILL (policy). The structural rules are the
spec's algorithm (compiler.spec module docstring): an evaluation pass only tries policy
triggers of the current pair; events and timers pull triggers named after them.
"""

from __future__ import annotations

import pytest

from compiler.machine import trigger_index
from compiler.spec.ir import Pair
from runtime.engine import Engine
from tests.runtime.support import compiled

ERAS = ("condor-6.8", "htcondor-current")


def _numbers(engine: Engine, names: tuple[str, ...]) -> list[int | str]:
    index = trigger_index(engine.table)
    return [index[name][0].number for name in names]


@pytest.mark.parametrize("era", ERAS)
def test_protocol_events_pull_the_documented_rows(era: str) -> None:
    engine = Engine.for_table(compiled(era, "manual")[1])
    # 8 first: a claim is refused back to Owner when START is not TRUE (letter F,
    # "claim-protocol error"); its guard decides, the order is the rows'.
    claim = engine.event_triggers(Pair("Matched", "Idle"), "claim", None)
    assert _numbers(engine, claim) == [8, 9]
    activate = engine.event_triggers(Pair("Claimed", "Idle"), "activate", None)
    assert _numbers(engine, activate) == [11]
    assert engine.event_triggers(Pair("Owner", "Idle"), "activate", None) == ()


@pytest.mark.parametrize("era", ERAS)
def test_match_timeout_pulls_transition_8(era: str) -> None:
    engine = Engine.for_table(compiled(era, "manual")[1])
    names = engine.timer_triggers(Pair("Matched", "Idle"), "MATCH_TIMEOUT")
    assert _numbers(engine, names) == [8]
    assert engine.timer_triggers(Pair("Claimed", "Busy"), "MATCH_TIMEOUT") == ()


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("semantics", ["manual", "code"])
def test_an_evaluation_pass_tries_policy_triggers_of_the_pair_only(
    era: str, semantics: str
) -> None:
    table = compiled(era, semantics)[1]
    engine = Engine.for_table(table)
    index = trigger_index(table)
    for pair in table.spec.pairs:
        for name in engine.evaluation_pass(pair.pair):
            row, i = index[name]
            assert row.source == (pair.pair.state, pair.pair.activity)
            assert row.transition.triggers[i].kind == "policy"
    vacating = engine.evaluation_pass(Pair("Preempting", "Vacating"))
    assert 21 in _numbers(engine, vacating)


def test_event_how_filters_triggers() -> None:
    """A `how`-restricted trigger is skipped for another `how` (the spec's trigger `how`)."""
    table = compiled("htcondor-current", "code")[1]
    engine = Engine.for_table(table)
    index = trigger_index(table)
    found = 0
    for row in table.rows:
        for i, trig in enumerate(row.transition.triggers):
            if trig.kind not in ("protocol", "command") or not trig.how:
                continue
            pair = Pair(*row.source)
            name = f"{row.id}#{i}"
            for how in trig.how:
                assert name in engine.event_triggers(pair, trig.name, how)
            assert name not in engine.event_triggers(pair, trig.name, "no-such-how")
            assert index[name] == (row, i)
            found += 1
    assert found  # the era has how-restricted triggers (drain, shutdown, vacate)
