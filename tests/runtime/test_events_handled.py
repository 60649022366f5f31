"""Every event says what it did (issue 12): fired a transition, or ignored, with the reason;
an omitted `how` is the HTCondor tool's default.

* bookkeeping, over every scenario in both semantics: one `Handled` record per event step
  (nothing dropped), `ignored` exactly when the step fired no transition, and the number
  of the first transition it fired otherwise;
* differential: a step whose `how` is the tool's default replays to the same transitions
  with its `how` removed (condor_vacate, condor_drain and condor_off are graceful unless
  told otherwise: HTCondor src/condor_tools/tool.cpp, drain.cpp);
* the reasons: no row takes the event, rows take it only with another `how`, the guards
  of the rows that take it are not TRUE, a refused preempting claim;
* `run` prints a line for every event, and `--format jsonl` one object per ignored event.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from compiler.spec import ERAS, SEMANTICS, Pair, load_spec
from runtime.cli import main
from runtime.trace import Step, Trace
from tests.runtime.support import coltrane_trace, compiled, load, run_trace, scenario_cases

CASES = scenario_cases()


@pytest.mark.parametrize(("path", "semantics"), CASES)
def test_every_event_step_is_handled_and_says_what_it_fired(path: Path, semantics: str) -> None:
    trace = load(path)
    around: dict[int, list[int]] = {}

    def observe(slot: Any, index: int, applied: bool) -> None:
        around.setdefault(index, []).append(len(slot.fired))

    slot = run_trace(trace, semantics, observer=observe)
    events = [i for i, step in enumerate(trace.steps) if step.kind == "event" and i in around]
    assert len(slot.handled) == len(events)
    for index, handled in zip(events, slot.handled, strict=True):
        before, after = around[index][0], around[index][-1]
        step = trace.steps[index]
        assert handled.event == step.event and handled.t == step.t
        assert handled.ignored == (after == before), handled
        if handled.ignored:
            assert handled.reason
        else:
            assert handled.fired == slot.fired[before].number


def _stripped(trace: Trace) -> tuple[Step, ...]:
    """The steps, with every `how` equal to the tool's default removed."""
    spec = load_spec(trace.era or "htcondor-current")
    defaults = {e.name: e.default_how for e in spec.events if e.default_how}
    return tuple(
        replace(s, how=None) if s.kind == "event" and s.how == defaults.get(s.event or "") else s
        for s in trace.steps
    )


DEFAULT_HOW_CASES = [
    case for case in CASES if _stripped(load(case.values[0])) != load(case.values[0]).steps
]


@pytest.mark.parametrize(("path", "semantics"), DEFAULT_HOW_CASES)
def test_an_omitted_how_is_the_tools_default(path: Path, semantics: str) -> None:
    trace = load(path)
    stripped = _stripped(trace)
    given = run_trace(trace, semantics)
    omitted = run_trace(replace(trace, steps=stripped), semantics)
    assert [(f.t, f.number) for f in omitted.fired] == [(f.t, f.number) for f in given.fired]
    assert any(h.how_default for h in omitted.handled)


def test_the_defaults_are_graceful_in_every_era() -> None:
    """tool.cpp usage(): "-graceful ... (the default)" (condor_vacate, condor_off);
    drain.cpp: `how_fast = DRAIN_GRACEFUL`."""
    for era in ERAS:
        for semantics in SEMANTICS:
            events = {e.name: e for e in load_spec(era, semantics).events}
            for name in ("vacate", "drain", "shutdown"):
                assert events[name].default_how == "graceful"
            assert all(e.default_how is None for e in events.values() if not e.how)


def _trace(steps: list[Step], **config: str) -> Trace:
    return coltrane_trace(steps, config, polling="explicit")


def test_no_transition_takes_the_event() -> None:
    slot = run_trace(_trace([Step(10, "event", "release")]), "code")
    (handled,) = slot.handled
    assert handled.ignored and handled.source == ("Unclaimed", "Idle")
    assert handled.reason == "no transition from Unclaimed/Idle takes release"


@pytest.mark.parametrize("semantics", ["manual", "code"])
def test_rows_take_the_event_only_with_another_how(semantics: str) -> None:
    """Found from the spec, not named here: a pair with rows for an event's other `how`
    values but none for the one sent."""
    hows = {e.name: e.how for e in load_spec("htcondor-current", semantics).events}
    effects = {e.event for e in load_spec("htcondor-current", semantics).event_effects}
    _, table = compiled("htcondor-current", semantics)
    seen = 0
    for row in table.rows:
        source = Pair(*row.source)
        for trig in row.transition.triggers:
            if not trig.how or trig.name in effects:
                continue
            takes = {
                h
                for r in table.rows_from(source)
                for t in r.transition.triggers
                if t.name == trig.name
                for h in (t.how or hows[trig.name])
            }
            missing = [h for h in hows[trig.name] if h not in takes]
            if not missing:
                continue
            slot = _at((source.state, source.activity), semantics)
            slot.send(trig.name, how=missing[0])
            handled = slot.handled[-1]
            assert handled.ignored, (source, trig.name, missing)
            assert f"takes {trig.name}({missing[0]}), only " in handled.reason
            seen += 1
    assert seen, "no pair takes an event with only some of its how values"


def _at(pair: tuple[str, str], semantics: str) -> Any:
    from runtime.slot import Slot

    _, table = compiled("htcondor-current", semantics)
    return Slot(table, polling="explicit", initial=pair)


def test_the_guards_that_are_not_true_are_named_with_their_values() -> None:
    trace = _trace(
        [Step(10, "event", "claim", job={"Owner": "tyner"})], START='Owner == "coltrane"'
    )
    slot = run_trace(trace, "manual")  # the code fires claim_failed instead
    (handled,) = slot.handled
    assert handled.ignored and handled.source == ("Unclaimed", "Idle")
    assert handled.reason.startswith("not TRUE: #5 needs ")
    assert 'Owner="tyner"' in handled.reason


def test_a_refused_preempting_claim_is_ignored_with_the_ranks() -> None:
    steps = [Step(10, "event", e) for e in ("match", "claim", "activate")]
    steps.append(Step(20, "event", "preempting_claim", job={"Owner": "tyner"}))
    trace = _trace(steps, RANK='(Owner == "coltrane") * 10')
    slot = run_trace(trace, "code")
    handled = slot.handled[-1]
    assert handled.ignored
    assert handled.reason == "preempting claim refused: RANK 0 < CurrentRank 10"
    assert slot.pair_tuple() == ("Claimed", "Busy")


def test_run_prints_every_event_and_lists_ignored_ones_in_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "era: htcondor-current\nconfig: {RunBenchmarks: 'False'}\nsteps:\n"
        "  - {t: 10, event: release}\n  - {t: 20, event: match}\n"
        "  - {t: 30, event: claim}\n  - {t: 40, event: vacate}\n",
        encoding="utf-8",
    )
    assert main(["run", "--trace", str(path), "--semantics", "code"]) == 0
    text = capsys.readouterr().out.splitlines()
    events = [line for line in text if " event " in line]
    assert len(events) == 4
    assert "event release in Unclaimed/Idle: ignored (no transition" in events[0]
    assert events[1].endswith("event match in Unclaimed/Idle: fires #6")
    assert "event vacate(graceful, the default) in Claimed/Idle: fires #10" in events[3]
    # The event line comes before the transitions it caused.
    assert text.index(events[1]) + 1 == next(i for i, line in enumerate(text) if "#6 C:" in line)
    assert main(["run", "--trace", str(path), "--semantics", "code", "--format", "jsonl"]) == 0
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    ignored = [o for o in objects if "event" in o]
    assert ignored == [
        {
            "t": 10,
            "event": "release",
            "how": None,
            "state": ["Unclaimed", "Idle"],
            "ignored": True,
            "reason": "no transition from Unclaimed/Idle takes release",
        }
    ]
    fired = [o for o in objects if "event" not in o]
    assert all(set(o) == {"t", "number", "letter", "from", "to", "reason"} for o in fired)
    log = tmp_path / "events.jsonl"
    assert main(["run", "--trace", str(path), "--semantics", "code", "--log", str(log)]) == 0
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [r for r in records if r["kind"] == "ignored"] == [
        {
            "t": 10,
            "kind": "ignored",
            "event": "release",
            "state": ["Unclaimed", "Idle"],
            "reason": "no transition from Unclaimed/Idle takes release",
        }
    ]
    vacate = next(r for r in records if r["kind"] == "event" and r["event"] == "vacate")
    assert vacate == {
        "t": 40,
        "kind": "event",
        "event": "vacate",
        "how": "graceful",
        "how_default": True,
    }
