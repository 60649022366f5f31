"""The runtime's fast paths agree with the slow ones they replace.

* `Engine`'s per-pair indexes give what scanning the rows gives, for every pair and
  every event/timer name of every era's table (both semantics);
* `AdBuilder.current` (the slot's own ad, refreshed in place between passes) equals a
  slot ad built from scratch by `AdBuilder.build` at every evaluation of every
  scenario, name by name, in the same order, with the same value types; when a guard
  asked and only what it can read was refreshed, in every name the guard's text reaches
  (following the ad's expressions) and in the guard's value, and the whole ad as soon
  as it is asked for without a guard; a guard read through `eval`, `MY[...]`, a stored
  expression calling `eval` or a target expression gets the whole refresh;
* a poll sees a sensor change and the clock moving, and an ad handed out earlier in
  the same instant never changes under its holder;
* a slot asked about a trigger that cannot fire gives the same event log (every
  record, in order) as one that always pulls the transitions machine;
* `AdBuilder.steady` gives the slot's last built ad only while what the asked names and
  CpuBusy read has not moved: the record, the pair, the sensors they read;
* a transition no guard asked about does not build the slot's ad when nothing reads it
  and the CpuBusy latch moves alike in every pair (`AdBuilder.latch_alike`): the same
  event log as a slot that always builds it; `runtime.ads.pair_names` holds every name
  whose value in `ad_layout` a record or a pair can decide.

The two scenario replays cost minutes over every scenario, so the default (README) run
replays a deterministic sample (`SAMPLE`): every 7th scenario of the sorted list from
the 6th on, plus the ones named in `NAMED` for what they exercise (the CpuBusy latch,
retirement, timers). The others are parametrized too, marked `explore`: `pytest -m
explore tests/runtime/test_fast_paths.py` replays them, `-m "explore or not explore"`
every scenario.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import ClassAd, compile_expr, parse, unparse
from compiler.classad.ast import EXPR_TYPES, AttrRef, Expr, Select, walk
from compiler.config import load_config
from compiler.policy import compile_policy
from compiler.spec import Pair, load_spec
from compiler.table import StateTable
from runtime.ads import SlotState, ad_layout, eval_context, pair_names, replaced
from runtime.clock import SimClock
from runtime.engine import Engine
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot
from runtime.slot_ad import AdBuilder
from tests.runtime.support import compiled, load, run_trace, scenario_files

ERAS = ("condor-6.4", "condor-6.8", "htcondor-current")

#: Scenarios the default run always replays, for what they exercise (era/name).
NAMED = {
    "htcondor-current/desktop_escalation": "the CpuBusy latch and its published times",
    "htcondor-current/suspend_in_retirement": "retirement: the limit shrinks, it expires",
    "htcondor-current/lease_expiry": "timers: the job lease runs out",
}


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _sample() -> frozenset[str]:
    """The default run's scenarios (module docstring): every 7th from the 6th, and NAMED."""
    return frozenset(_name(p) for p in scenario_files()[5::7]) | NAMED.keys()


SAMPLE = _sample()


def _scenarios() -> list[Any]:
    """Every scenario; those outside SAMPLE marked `explore` (dropped by default)."""
    return [
        pytest.param(p, id=_name(p), marks=() if _name(p) in SAMPLE else pytest.mark.explore)
        for p in scenario_files()
    ]


def test_the_sample_names_scenarios_that_exist() -> None:
    names = {_name(p) for p in scenario_files()}
    assert NAMED.keys() <= names
    assert 8 <= len(SAMPLE) < len(names)


@pytest.mark.parametrize("semantics", ["manual", "code"])
@pytest.mark.parametrize("era", ERAS)
def test_engine_indexes_equal_the_row_scans(era: str, semantics: str) -> None:
    _, table = compiled(era, semantics)
    engine = Engine.for_table(table)
    events = {t.name for row in table.rows for t in row.transition.triggers}
    events |= {e.name for e in table.spec.events} | {"no-such-event"}
    hows: set[str | None] = {None, "bogus"}
    hows |= {h for e in table.spec.events for h in e.how}
    timers = {t.name for t in table.spec.timers} | {"no-such-timer"}
    checked = 0
    for pair in [p.pair for p in table.spec.pairs]:
        for event in sorted(events):
            for how in sorted(hows, key=str):
                indexed = engine.event_triggers(pair, event, how)
                assert indexed == engine.scan_event_triggers(pair, event, how)
                checked += bool(indexed)
        for timer in sorted(timers):
            assert engine.timer_triggers(pair, timer) == engine.scan_timer_triggers(pair, timer)
        spec = table.spec.pair(pair)
        entry = engine.on_entry(pair)
        assert entry.evaluate == spec.evaluate_on_entry
        assert entry.immediate == tuple(f"{s.transition}#{s.trigger}" for s in spec.immediate)
    assert checked > 0  # the index is not trivially empty
    for event in sorted(events):  # the events by name: each the spec's of that name
        found = [e for e in table.spec.events if e.name == event]
        assert engine.known_events.get(event) == (found[0] if found else None)


def _shown(ad: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """An ad as comparable rows: name, value type, value (expressions as text)."""
    return [
        (name, type(value).__name__, unparse(value) if isinstance(value, EXPR_TYPES) else value)
        for name, value in ad.items()
    ]


def _named(expr: Expr, ad: ClassAd) -> set[str]:
    """Every attribute name `expr` mentions, following the expressions `ad` holds under
    those names (what a guard's value can depend on in MY, when it calls no `eval`)."""
    names: set[str] = set()
    todo = [expr]
    while todo:
        for node in walk(todo.pop()):
            key = getattr(node, "key", None)
            if isinstance(node, AttrRef | Select) and key not in names:
                names.add(key)
                raw = ad.lowered().get(key)
                if isinstance(raw, EXPR_TYPES):
                    todo.append(raw)
    return names


def _checking(monkeypatch: pytest.MonkeyPatch, counts: dict[str, int]) -> None:
    """Check every slot ad `AdBuilder.current` hands out against a fresh build: all of it
    when asked for the whole ad; what the guard can read (and the guard's value) when
    asked for a guard's sake (the rest may be filled in later)."""
    current = AdBuilder.current

    def checking(
        self: AdBuilder,
        record: Any,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        guard: Expr | None = None,
        target: Any = None,
    ) -> ClassAd:
        ad = current(self, record, pair, now, overrides, guard, target)
        fresh = self.build(record, pair, now, overrides)  # the latch is not moved again
        if guard is None:
            assert _shown(ad) == _shown(fresh), f"t={now}: {pair}"
            counts["whole"] += 1
            return ad
        names = _named(guard, fresh)
        assert [r for r in _shown(ad) if r[0].lower() in names] == [
            r for r in _shown(fresh) if r[0].lower() in names
        ], f"t={now}: {pair}: {unparse(guard)}"
        if not self.live or self.live.pending is None:
            assert _shown(ad) == _shown(fresh), f"t={now}: {pair}"
        ctx = eval_context(now)
        fn = compile_expr(guard)
        assert repr(fn(ad, target, ctx=ctx)) == repr(fn(fresh, target, ctx=ctx))
        counts["guard"] += 1
        return ad

    monkeypatch.setattr(AdBuilder, "current", checking)


@pytest.mark.parametrize("path", _scenarios())
def test_refreshed_ad_equals_a_fresh_build(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {"whole": 0, "guard": 0}
    _checking(monkeypatch, counts)
    trace = load(path)
    for semantics in ("manual", "code"):
        if trace.expected(semantics) is not None:
            run_trace(trace, semantics)
    assert counts["whole"] + counts["guard"]


@functools.cache
def _desktop() -> StateTable:
    return _desktop_table("manual")


def _desktop_slot(semantics: str = "manual") -> Slot:
    table = _desktop_table(semantics)
    clock = SimClock()
    sensors = FakeSensors(start=clock.now())
    sensors.set({"KeyboardIdle": 3600, "ConsoleIdle": 3600}, clock.now())
    # The test moves the clock and polls by hand: explicit polling. Entering Unclaimed/Idle
    # evaluates at once (reference 3.1), which starts the Desktop policy's benchmarks.
    slot = Slot(table, sensors, clock, job={"Owner": "tyner", "ImageSize": 100}, polling="explicit")
    slot.start()
    slot.send("benchmarks_done")
    for t, event in ((10, "match"), (11, "claim"), (12, "activate")):
        clock.advance_to(t)
        slot.send(event)
    return slot


def test_poll_sees_the_clock_and_a_sensor_change() -> None:
    slot = _desktop_slot()
    assert slot.pair_tuple() == ("Claimed", "Busy")
    for t in (100, 101, 160):
        slot.clock.advance_to(t)
        assert not slot.poll()
        ad = slot.eval_ad()
        assert ad["MyCurrentTime"] == int(slot.clock.now())
        assert ad["TotalJobRunTime"] == t - 12
        assert ad["KeyboardIdle"] == 3600 + t
    held = slot.eval_ad()
    slot.set_sensors({"KeyboardIdle": 0})  # the owner is back, in the same instant
    assert held["KeyboardIdle"] == 3760  # what was handed out does not change
    assert slot.poll()
    assert slot.pair_tuple() == ("Claimed", "Suspended")
    assert [f.number for f in slot.fired][-1] == 14


def test_a_value_changing_only_its_type_is_set_again() -> None:
    """1, 1.0 and TRUE are equal in Python but differ in a ClassAd (`is_integer`, `==`
    against a string of the type): a refresh must not keep the old type."""
    slot = _desktop_slot()
    slot.clock.advance_to(100)
    assert type(slot.eval_ad()["Memory"]) is int
    for value in (float(slot.eval_ad()["Memory"]), True, 1, 1.0):
        slot.clock.advance_to(slot.clock.elapsed() + 1)
        slot.set_sensors({"Memory": value})
        slot.clock.advance_to(slot.clock.elapsed() + 1)
        slot.poll()
        got = slot.eval_ad()["Memory"]
        assert (type(got), got) == (type(value), value)


def test_public_ad_is_a_snapshot() -> None:
    slot = _desktop_slot()
    slot.clock.advance_to(100)
    slot.poll()
    ad = slot.ad
    slot.clock.advance_to(200)
    slot.poll()
    assert ad["MyCurrentTime"] == int(slot.clock.now()) - 100
    assert slot.ad["MyCurrentTime"] == int(slot.clock.now())


@pytest.mark.parametrize("path", _scenarios())
def test_asking_first_gives_the_same_log_as_always_pulling(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _log(path)
    monkeypatch.setattr(Slot, "_fire", lambda self, name, ctx: self._pull(name, ctx))
    assert fast == _log(path)


def _log(path: Path) -> list[dict[str, Any]]:
    """Every record the scenario's slot logs, in order."""
    trace = load(path)
    semantics = "manual" if trace.expected("manual") is not None else "code"
    log: list[dict[str, Any]] = []
    run_trace(trace, semantics, listener=log.append)
    return log


def _desktop_table(semantics: str, cpu_busy: str | None = None) -> StateTable:
    """The manual's Desktop policy for htcondor-current, `cpu_busy` as its CpuBusy."""
    text = "use POLICY : Desktop\n" + (f"CpuBusy = {cpu_busy}\n" if cpu_busy else "")
    return compile_policy(load_config(text=text), era="htcondor-current", semantics=semantics)


def _checked_polls(slot: Slot, times: tuple[int, ...]) -> None:
    """Poll at `times`, comparing the slot's own ad with a fresh build at each."""
    for t in times:
        slot.clock.advance_to(t)
        slot.poll()
        ad = slot.eval_ad()
        fresh = slot.ads.build(slot.record, slot.pair, slot.clock.now(), slot.overrides)
        assert _shown(ad) == _shown(fresh), t


@pytest.mark.parametrize(
    ("cpu_busy", "shared"),
    [
        ("(LoadAvg - CondorLoadAvg) >= 0.5", True),
        ("JobRunning && (LoadAvg - CondorLoadAvg) >= 0.5", False),  # a predicate
        ("CpuBusyValue =!= 1 && LoadAvg >= 0.5", False),  # its own published value
        ('eval("LoadAvg") >= 0.5', False),  # a name the text does not show
        ('MY["LoadAvg"] >= 0.5', False),
    ],
)
def test_one_ad_only_when_the_expressions_cannot_see_the_difference(
    cpu_busy: str, shared: bool
) -> None:
    table = _desktop_table("manual", cpu_busy)
    clock = SimClock()
    sensors = FakeSensors(start=clock.now())
    sensors.set({"KeyboardIdle": 3600, "ConsoleIdle": 3600, "LoadAvg": 0.2}, clock.now())
    # The test moves the clock and polls by hand: explicit polling. Entering Unclaimed/Idle
    # evaluates at once (reference 3.1), which starts the Desktop policy's benchmarks.
    slot = Slot(table, sensors, clock, job={"Owner": "tyner", "ImageSize": 100}, polling="explicit")
    slot.start()
    slot.send("benchmarks_done")
    for t, event in ((10, "match"), (11, "claim"), (12, "activate")):
        clock.advance_to(t)
        slot.send(event)
    _checked_polls(slot, (20, 21))
    assert slot.ads.live is not None and slot.ads.live.shared is shared
    slot.set_sensors({"LoadAvg": 0.9})
    _checked_polls(slot, (22, 23, 30))
    slot.set_sensors({"LoadAvg": 0.1})
    _checked_polls(slot, (31, 40))


def test_a_poll_refreshes_what_the_guards_read_and_the_rest_when_asked() -> None:
    slot = _desktop_slot()
    slot.clock.advance_to(100)
    slot.poll()  # a new record since the activation: built afresh
    for t in (101, 160, 161):
        slot.clock.advance_to(t)
        assert not slot.poll()
        live = slot.ads.live
        assert live is not None and live.pending is not None  # the partial refresh ran
        fresh = slot.ads.build(slot.record, slot.pair, slot.clock.now(), slot.overrides)
        stale = {n for n, v in live.ad.items() if not _same_value(v, fresh[n])}
        assert "MyCurrentTime" in stale  # the guards do not read it: left for later
        assert not stale & {"KeyboardIdle", "LoadAvg", "CondorLoadAvg", "CpuBusyTime"}
        assert _shown(slot.eval_ad()) == _shown(fresh)  # filled in when asked for
        assert slot.ads.live is not None and slot.ads.live.pending is None


def test_a_partly_refreshed_ad_is_filled_in_for_the_quiet_time_analysis() -> None:
    """`AdBuilder.whole` (what the quiet-time analysis reads): after a poll's partial
    refresh, the ad of that instant filled in, the whole ad `build` gives (not None, as
    `cached` says of a partial one); an ad of another instant is not given. Moving the
    slot to the time it is at (`advance`) keeps its ad; moving it on does not."""
    slot = _desktop_slot()
    slot.clock.advance_to(100)
    slot.poll()
    slot.clock.advance_to(160)
    assert not slot.poll()
    now = slot.clock.now()
    live = slot.ads.live
    assert live is not None and live.pending is not None
    assert slot.ads.cached(slot.record, slot.pair, now) is None
    assert slot.ads.whole(slot.record, slot.pair, now + 1) is None
    whole = slot.ads.whole(slot.record, slot.pair, now)
    fresh = slot.ads.build(slot.record, slot.pair, now, slot.overrides)
    assert whole is not None and _shown(whole) == _shown(fresh)
    assert slot.ads.cached(slot.record, slot.pair, now) is whole
    slot.advance(slot.clock.elapsed())
    assert slot.ads.cached(slot.record, slot.pair, now) is whole
    slot.advance(slot.clock.elapsed() + 1)
    assert slot.ads.cached(slot.record, slot.pair, slot.clock.now()) is None


def test_the_guards_after_the_same_actions_share_one_supposed_ad(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The guards of a choice of activity are tested in the record the choice's actions
    would leave (a retiring slot's three after `set_preempt_latch`): one ad is built for
    them within one evaluation, and each outcome is the one a context of its own gives."""
    from compiler.machine import GuardCondition
    from runtime.slot import _Context

    slot = _desktop_slot()
    slot.clock.advance_to(100)
    guarded = [
        c
        for options in slot._options.values()
        for option in options
        for c in option
        if type(c) is GuardCondition and c.after
    ]
    after = guarded[0].after
    alike = [c for c in guarded if c.after == after]
    assert len(alike) >= 2
    built: list[Any] = []
    build = AdBuilder.build

    def counted(self: AdBuilder, *args: Any, **kwargs: Any) -> Any:
        built.append(args[0])
        return build(self, *args, **kwargs)

    monkeypatch.setattr(AdBuilder, "build", counted)
    ctx = _Context(slot, None)
    shared = [ctx.test(c.guard, c.against, c.after) for c in alike]
    assert len(built) == 1
    alone = [_Context(slot, None).test(c.guard, c.against, c.after) for c in alike]
    assert shared == alone and len(built) == 1 + len(alike)


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a is b or a == b)


@pytest.mark.parametrize(
    ("text", "partial"),
    [
        ("KeyboardIdle < 60 && TARGET.ImageSize > 5", True),
        ("START", True),  # a stored expression the analysis follows
        ('eval("KeyboardIdle") < 60', False),
        ('MY["KeyboardIdle"] < 60', False),
        ("Sneaky < 60", False),  # a stored expression that calls eval
        ("TARGET.Peek > 0", False),  # the job's expression reads MY's MyCurrentTime
    ],
)
def test_a_guard_the_analysis_cannot_read_gets_the_whole_refresh(text: str, partial: bool) -> None:
    slot = _desktop_slot()
    slot.published["Sneaky"] = parse('eval("KeyboardIdle")')
    slot.set_job({"Peek": parse("TARGET.MyCurrentTime")})
    slot.clock.advance_to(20)
    slot.poll()
    guard = parse(text)
    target = slot.classad(slot.record.job or {})
    for t in (30, 31):
        slot.clock.advance_to(t)
        ad = slot.ads.current(
            slot.record, slot.pair, slot.clock.now(), slot.overrides, guard, target
        )
        live = slot.ads.live
        assert live is not None and (live.pending is not None) is partial
        fresh = slot.ads.build(slot.record, slot.pair, slot.clock.now(), slot.overrides)
        if not partial:
            assert _shown(ad) == _shown(fresh)
        fn = compile_expr(guard)
        ctx = eval_context(slot.clock.now())
        assert repr(fn(ad, target, ctx=ctx)) == repr(fn(fresh, target, ctx=ctx))
        names = _named(guard, fresh)
        assert [r for r in _shown(ad) if r[0].lower() in names] == [
            r for r in _shown(fresh) if r[0].lower() in names
        ]


@pytest.mark.parametrize("path", _scenarios())
def test_leaving_out_an_ad_nothing_reads_gives_the_same_log(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _log(path)
    monkeypatch.setattr(AdBuilder, "latch_alike", lambda self: False)
    assert fast == _log(path)


@pytest.mark.parametrize(
    ("cpu_busy", "alike"),
    [
        ("(LoadAvg - CondorLoadAvg) >= 0.5", True),
        ("Mips > 10 && LoadAvg >= BackgroundLoad", True),  # sensors, published knobs
        ('State == "Claimed" && LoadAvg >= 0.5', False),
        ("time() - EnteredCurrentActivity > 60 && LoadAvg >= 0.5", False),
        ("RemoteUser =!= undefined && LoadAvg >= 0.5", False),
        ('eval("LoadAvg") >= 0.5', False),  # a name the text does not show
    ],
)
def test_the_latch_moves_alike_only_when_cpu_busy_reads_no_record_or_pair_name(
    cpu_busy: str, alike: bool
) -> None:
    table = _desktop_table("code", cpu_busy)
    clock = SimClock()
    scripted = Slot(table, FakeSensors(start=clock.now()), clock)
    assert scripted.ads.latch_alike() is alike


def test_measured_sensors_always_build_the_ad() -> None:
    """A measured reading is logged when read: leaving a build out would move the log."""

    class Measured(FakeSensors):
        scripted = False

    table = _desktop_table("code")
    clock = SimClock()
    assert Slot(table, FakeSensors(start=clock.now()), clock).ads.latch_alike()
    assert not Slot(table, Measured(start=clock.now()), clock).ads.latch_alike()


_JOBS = st.none() | st.fixed_dictionaries(
    {"Owner": st.sampled_from(["ann", "bob"])},
    optional={"User": st.just("bob@pool"), "ImageSize": st.integers(1, 10**6)},
)
_RECORDS = st.builds(
    SlotState,
    entered_state=st.integers(0, 10**6).map(float),
    entered_activity=st.integers(0, 10**6).map(float),
    job=_JOBS,
    preempting_job=_JOBS,
    job_running=st.booleans(),
    job_start=st.none() | st.integers(0, 10**6).map(float),
    current_rank=st.integers(-5, 5).map(float),
    last_benchmark=st.integers(0, 10**6).map(float),
    requirements_hidden=st.booleans(),
    pledged_vacate=st.none() | st.integers(0, 600).map(float),
)


@pytest.mark.parametrize("era", ERAS)
@given(one=_RECORDS, other=_RECORDS)
def test_pair_names_hold_every_name_a_record_or_pair_decides(
    era: str, one: SlotState, other: SlotState
) -> None:
    spec = load_spec(era, "code")
    published = {"Start": parse("KeyboardIdle > 900"), "Rank": parse("0")}
    sensors = ("LoadAvg", "KeyboardIdle", "Memory")
    varying = pair_names(spec)
    layouts = [
        ad_layout(record, p.pair, spec, sensors, published_policy=published)
        for record in (one, other)
        for p in spec.pairs
    ]
    first = {n.lower(): v for n, v in layouts[0].items() if n.lower() not in varying}
    for layout in layouts[1:]:
        steady = {n.lower(): v for n, v in layout.items() if n.lower() not in varying}
        assert steady.keys() == first.keys()
        for name, value in steady.items():
            assert value is first[name] or (
                type(value) is type(first[name]) and value == first[name]
            )


def test_the_last_ad_is_steady_while_what_it_reads_stays() -> None:
    """`AdBuilder.steady` (the simulator's held slots): a later instant where only the
    clock and a sensor no asked name reads moved gives the last ad and the values of the
    sensors read; a moved sensor CpuBusy reads, a sensor an asked name reads, or a new
    record gives None."""
    from runtime.pool import SLOT_ALONE

    slot = _desktop_slot()  # claimed and running at 12
    clock = slot.clock
    slot.set_sensors({"LoadAvg": 0.2, "Cpus": 1})
    clock.advance_to(20)
    slot.poll()
    ad = slot.eval_ad()
    builder = slot.ads

    def steady() -> Any:
        return builder.steady(slot.record, slot.pair, clock.now(), SLOT_ALONE)

    clock.advance_to(300)
    slot.set_sensors({"KeyboardIdle": 3900})
    found = steady()
    assert found is not None and found[0] is ad
    # the values of the sensors the names and CpuBusy read: Cpus, LoadAvg, CondorLoadAvg
    assert sorted(found[1], key=repr) == sorted([(float, 0.0), (float, 0.2), (int, 1)], key=repr)
    slot.set_sensors({"LoadAvg": 0.9})  # CpuBusy reads it
    assert steady() is None
    slot.set_sensors({"LoadAvg": 0.2})
    assert steady() is not None
    slot.set_sensors({"Cpus": 2})  # the slot's weight
    assert steady() is None
    slot.set_sensors({"Cpus": 1})
    assert steady() is not None
    clock.advance_to(310)
    slot.send("job_exit")  # a new record and pair: the ad the new pair's pass built
    found = steady()
    assert found is not None and found[0]["Activity"] == "Idle"
    slot.record = replaced(slot.record, current_rank=1.0)  # a record no ad was built for
    assert steady() is None


@pytest.mark.parametrize(
    ("stored", "value"),
    [("0", 0), ("2 * 5 + 1", 11), ('"x"', "x"), ("TARGET.Department =?= \"physics\"", None),
     ("Memory > 10", None), ("time() > 0", None), ("random(3)", None)],
)  # fmt: skip
def test_a_constant_value_is_one_that_reads_nothing(stored: str, value: Any) -> None:
    """`constant_value` (a held slot's RANK): literals and expressions of them give
    their value; anything that reads an attribute, the clock or chance does not."""
    from runtime.slot_ad import NOT_CONSTANT, constant_value

    ad = ClassAd({"Rank": parse(stored), "Memory": 2048, "CurrentRank": 0.0})
    found = constant_value(ad, "Rank")
    assert found == value if value is not None else found is NOT_CONSTANT
    # the same expression in another ad (the finding is kept per expression)
    other = ClassAd({"Rank": ad["Rank"], "Memory": 4096})
    again = constant_value(other, "Rank")
    assert again == value if value is not None else again is NOT_CONSTANT
    assert constant_value(ad, "CurrentRank") == 0.0
    assert constant_value(ad, "PreemptingRank") is None


PLAIN = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)
)  # fmt: skip


@given(value=PLAIN)
def test_a_plain_value_is_logged_and_shown_as_json_and_the_reason_have_it(value: Any) -> None:
    """`jsonable` and `show` (every fired transition's values): a plain value goes into
    the JSONL log as itself (a float that is not finite as its text: JSON has none), and
    into the reason as it prints them: strings quoted, reals to six digits."""
    import json
    import math

    from runtime.fired import jsonable, show

    logged = jsonable(value)
    if isinstance(value, float) and not math.isfinite(value):
        assert logged == str(value)
    else:
        assert json.loads(json.dumps(logged)) == value and type(logged) is type(value)
    assert jsonable([value, {"k": value}]) == [logged, {"k": logged}]
    if value is None:
        return
    if isinstance(value, str):
        assert show(value) == '"' + value + '"'
    elif isinstance(value, float):
        shown = float(show(value))  # six significant digits
        assert math.isclose(shown, value, rel_tol=1e-5) or (math.isnan(value) and math.isnan(shown))
    else:
        assert show(value) == ("True" if value is True else "False" if value is False
                               else str(int(value)))  # fmt: skip


def test_an_expression_is_logged_and_shown_unparsed() -> None:
    """An expression value (a published policy macro) is its ClassAd text in both."""
    from runtime.fired import jsonable, show

    expr = parse("KeyboardIdle > 15 * 60 && LoadAvg < 0.3")
    assert jsonable(expr) == show(expr) == unparse(expr)
    assert jsonable({"Start": expr}) == {"Start": unparse(expr)}


def test_an_ad_renewed_from_another_slots_equals_a_fresh_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slot's ads for a new record are made from the last ones of the same layout
    names built for any slot of the policy (`AdBuilder._fresh`): two desktops of one
    table, their jobs ending and starting in turn while the owner of one comes and goes
    (the latch moves), hand out ads equal to fresh builds, many of them renewed from the
    other slot's."""
    from runtime import slot_ad

    counts = {"whole": 0, "guard": 0}
    _checking(monkeypatch, counts)
    renewed: list[bool] = []  # made from the other slot's ads
    renew = AdBuilder._renew

    def counting(self: AdBuilder, live: Any, *args: Any) -> Any:
        made = renew(self, live, *args)
        if made is not None:
            renewed.append(live.ad.get("Name") != made.ad.get("Name"))
        return made

    monkeypatch.setattr(AdBuilder, "_renew", counting)
    slot_ad._TEMPLATES.by_policy.clear()
    table = _desktop()
    clock = SimClock()
    slots = []
    for n in (1, 2):
        sensors = FakeSensors(start=clock.now())
        sensors.set({"KeyboardIdle": 3600, "ConsoleIdle": 3600, "Name": f"slot1@m{n}"}, 0)
        slot = Slot(table, sensors, clock, job={"Owner": "ann", "ImageSize": 100 * n})
        slot.start()
        slot.send("benchmarks_done")
        slots.append((slot, sensors))
    t = 0.0
    for round_ in range(6):
        for n, (slot, sensors) in enumerate(slots):
            t += 50.0
            clock.advance_to(t)
            if n == 0:  # the owner of the first desktop types and loads it now and then
                busy = round_ % 3 == 1
                sensors.set(
                    {"KeyboardIdle": 0 if busy else 3600, "LoadAvg": 1.0 if busy else 0.0}, t
                )
                slot.poll()
            pair = slot.pair_tuple()
            if pair == ("Unclaimed", "Idle"):
                for event in ("match", "claim", "activate"):
                    slot.send(event)
            elif pair == ("Claimed", "Busy"):
                slot.send("job_exit")
                slot.send("activate")
    assert counts["whole"] + counts["guard"] > 20
    assert len(renewed) > 10 and any(renewed)


def test_the_slots_of_a_policy_analyse_each_ad_shape_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What an ad's shape decides of it (`AdBuilder._shared`: whether one ad serves, what
    CpuBusy and the retirement limit read) is found once per policy and shape
    (`_Templates.shapes`), not once per slot: three desktops of one table going through
    the same pairs. Each slot still memoises with a policy of its own."""
    from runtime import slot_ad

    slot_ad._TEMPLATES.shapes.clear()  # (an earlier test may have analysed the table's)
    found: list[int] = []
    real = AdBuilder._analysed_shape

    def counting(self: AdBuilder, *args: Any) -> Any:
        found.append(1)
        return real(self, *args)

    monkeypatch.setattr(AdBuilder, "_analysed_shape", counting)
    table = _desktop()
    clock = SimClock()
    slots = []
    for n in (1, 2, 3):
        sensors = FakeSensors(start=clock.now())
        sensors.set({"KeyboardIdle": 3600, "ConsoleIdle": 3600, "Name": f"slot1@m{n}"}, 0)
        slot = Slot(table, sensors, clock, job={"Owner": "ann"})
        slot.start()
        slot.send("benchmarks_done")
        slots.append(slot)
    for t in (60.0, 120.0):
        clock.advance_to(t)
        for slot in slots:
            for event in ("match", "claim", "activate", "job_exit", "activate"):
                slot.send(event)
    kept = [set(slot.ads.analysed) for slot in slots]
    assert kept[0] == kept[1] == kept[2] and len(kept[0]) >= 3
    assert 0 < len(found) <= len(kept[0])
    policies = {id(slot.ads.analysed[key][2]) for slot in slots for key in kept[0]}
    memoised = [key for key in kept[0] if slots[0].ads.analysed[key][2] is not slots[0].ads.policy]
    assert memoised and len(policies) >= 3 * len(memoised)


ATOMS = st.sampled_from(
    ["600", "10 * 60", "2.5", '"x"', "true", "undefined", "Memory", "MY.Memory",
     "TARGET.ImageSize", "KeyboardIdle", "time()", "strcat(\"a\", \"b\")", "{1, 2}[0]",
     "[a = 1].a", "ifThenElse(1 > 0, 2, 3)"]
)  # fmt: skip
EXPRESSIONS = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "&&", "||", ">", "=?="]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    ),
    max_leaves=6,
)


@given(text=EXPRESSIONS)
def test_an_action_reads_the_slots_ad_unless_its_expressions_read_nothing(text: str) -> None:
    """`runtime.slot_ad.reads_my`: a slot performs begin_claim (RANK) and start_job (the
    vacate limit) without building its ad only when the expression reads nothing, so
    that it is the same in the slot's ad as in an empty one, against any job."""
    from compiler.spec import Action
    from runtime.ads import NO_AD, PolicyExprs
    from runtime.slot_ad import reads_my

    spec = _desktop().spec
    expr = parse(text)
    policy = PolicyExprs(
        {"RANK": compile_expr(expr), spec.helpers.vacate.limit: compile_expr(expr)},
        {}, _desktop().program.settings, {"RANK": expr, spec.helpers.vacate.limit: expr},
    )  # fmt: skip
    ad = ClassAd({"Memory": 2048, "KeyboardIdle": 30, "Name": "slot1@x"})
    job = ClassAd({"ImageSize": 1000, "Memory": 1})
    for action in (Action("begin_claim"), Action("start_job")):
        if not reads_my(action, spec, policy):
            now = 1_700_000_000
            assert repr(policy.value("RANK", NO_AD, job, now)) == repr(
                policy.value("RANK", ad, job, now)
            )
            assert all(n not in text for n in ("Memory", "Idle", "TARGET", "time", "["))
        else:
            assert any(
                n in text for n in ("Memory", "Idle", "TARGET", "time", "strcat", "[", "ifThenElse")
            )
    assert not reads_my(Action("set_preempt_latch", "always"), spec, policy)
    assert not reads_my(Action("start_timer", "lease"), spec, policy)


def test_each_thread_renews_ads_from_templates_of_its_own() -> None:
    """A template's ads are refreshed in place by their own slot: another thread (a
    threaded dask worker running two simulations) keeps templates of its own."""
    import threading

    from runtime import slot_ad

    slot = _desktop_slot()  # its transitions leave templates in this thread
    assert len(slot_ad._TEMPLATES.by_policy) > 0
    seen: list[int] = []

    def other() -> None:
        seen.append(len(slot_ad._TEMPLATES.by_policy))
        _desktop_slot()
        seen.append(len(slot_ad._TEMPLATES.by_policy))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen[0] == 0 and seen[1] > 0
    assert slot.pair_tuple() == ("Claimed", "Busy")


@given(text=EXPRESSIONS, macro=st.sampled_from(["TARGET.ImageSize > 1", "Memory > 1", "Disk"]))
def test_an_expression_that_reads_no_target_has_one_value_against_any_job(
    text: str, macro: str
) -> None:
    """`runtime.slot_ad.reads_no_target` (what proves a slot unmatchable): when it says
    so, the expression has the same value against two different jobs and none; a name
    the ad lacks (ImageSize: the job's) or scoped to the target makes it say no; the ad's
    own expressions are followed (`Macro`)."""
    from compiler.classad import evaluate
    from runtime.slot_ad import reads_no_target

    expr = parse(text.replace("KeyboardIdle", "Macro"))
    ad = ClassAd({"Memory": 2048, "Macro": parse(macro), "Name": "slot1@x"})
    jobs = [ClassAd({"ImageSize": 1000, "Memory": 1, "Disk": 5}), ClassAd({"ImageSize": 7}), None]
    values = [repr(evaluate(expr, ad, job, now=1_700_000_000)) for job in jobs]
    if reads_no_target(expr, ad.lowered()):
        assert values[0] == values[1] == values[2]
        assert "TARGET" not in text and "ImageSize" not in text
    elif all(n not in text for n in ("TARGET", "ImageSize", "[", "KeyboardIdle")):
        pytest.fail(f"{text} reads only the slot's own names, yet was said to read the job")


def test_a_guard_that_begins_several_transitions_is_evaluated_once_per_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claimed/Busy's retirement choices each begin with `InRetirement &&
    RetirementExpired` (in the code's table): a quiet pass evaluates each distinct
    first guard of its transitions once (counted where the slot evaluates a guard,
    `runtime.slot.holds`), and fires nothing, as when each was evaluated anew."""
    import runtime.slot as slot_module
    from compiler.machine import GuardCondition, pair_name

    slot = _desktop_slot("code")
    slot.clock.advance_to(100)
    slot.poll()
    slot.clock.advance_to(101)
    options = [
        option
        for trigger in slot.engine.evaluation_pass(slot.pair)
        for option in slot._options.get((trigger, pair_name(slot.pair)), ((),))
    ]
    first = [o[0] for o in options if o and type(o[0]) is GuardCondition and o[0].after is None]
    distinct = {(id(c.guard), c.against) for c in first}
    assert len(first) == len(options) and len(distinct) < len(first)  # the table shares
    counted: list[object] = []
    real = slot_module.holds

    def holds(value: object) -> bool:
        counted.append(value)
        return real(value)

    monkeypatch.setattr(slot_module, "holds", holds)
    before = len(slot.fired)
    assert not slot.poll()
    assert len(slot.fired) == before and slot.pair_tuple() == ("Claimed", "Busy")
    assert len(counted) == len(distinct)
