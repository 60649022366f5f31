"""Every transition of every era recognised in synthetic logs; impossible steps flagged.

The logs are written from the eras' spec rows and from the runtime's own runs of the
scenario traces (tests/scenarios), in the daemon's three line forms (tests/replay/synth.py).
What is expected comes from the spec and the runtime, never from the code under test.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import compile_policy
from compiler.config import Config
from compiler.errors import PolicyError
from compiler.spec import ERAS, SEMANTICS, load_spec
from compiler.spec.ir import Pair
from compiler.table import StateTable
from runtime.replay import parse_log, replay_log
from runtime.replay.check import Replay
from runtime.trace import Trace
from tests.replay.synth import BANNER, log_lines
from tests.runtime.support import compiled as support_compiled
from tests.runtime.support import load, run_trace, scenario_cases

ERA_SEMANTICS = list(itertools.product(ERAS, SEMANTICS))


@cache
def table(era: str, semantics: str) -> StateTable:
    return compile_policy(None, era, semantics)


def other(era: str, semantics: str) -> StateTable:
    return table(era, "code" if semantics == "manual" else "manual")


def replay(text: str, era: str, semantics: str) -> Replay:
    return replay_log(parse_log(text), table(era, semantics), other=other(era, semantics))


@pytest.mark.parametrize(("era", "semantics"), ERA_SEMANTICS)
def test_every_transition_is_recognised(era: str, semantics: str) -> None:
    """Each row and each pair it can enter, as a one-line log with unknown history."""
    compiled = table(era, semantics)
    checked = 0
    for row in compiled.rows:
        t = row.transition
        for target in t.targets:
            moves = [((t.source.state, t.source.activity), (target.state, target.activity))]
            lines = log_lines(moves)
            if not lines:  # source == target: the daemon writes nothing
                continue
            result = replay("\n".join(lines), era, semantics)
            (step,) = result.slots[0].steps
            assert row.id in {c.id for c in step.candidates}, (row.id, lines)
            assert step.flagged is not _live(compiled, t.source, target), (row.id, target)
            checked += 1
    assert checked >= len(compiled.rows) - 2


def _live(compiled: StateTable, source: Pair, target: Pair) -> bool:
    """Whether some row that fits what the daemon's line says (the line names only
    what changed; with no history the rest is open) can make the move."""
    same_state, same_activity = source.state == target.state, source.activity == target.activity
    for r in compiled.rows:
        s = r.transition.source
        for p in r.possible_targets if r.status != "dead" else ():
            if same_state and (
                s.state != p.state or (s.activity, p.activity) != (source.activity, target.activity)
            ):
                continue
            if same_activity and (
                s.activity != p.activity or (s.state, p.state) != (source.state, target.state)
            ):
                continue
            if not same_state and not same_activity and (s, p) != (source, target):
                continue
            return True
    return False


@pytest.mark.parametrize(("era", "semantics"), ERA_SEMANTICS)
@settings(max_examples=25, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=30))
def test_walks_over_live_rows_are_never_flagged(
    era: str, semantics: str, choices: list[int]
) -> None:
    """A random walk from the initial pair over rows that can fire, logged after a
    restart banner: every step maps to its row and nothing is flagged."""
    compiled = table(era, semantics)
    current = compiled.spec.initial
    moves, walked = [], []
    for choice in choices:
        options = [
            (row, target)
            for row in compiled.rows_from(current)
            if row.status != "dead"
            for target in row.possible_targets
            if target != current
        ]
        if not options:
            break
        row, target = options[choice % len(options)]
        moves.append(((current.state, current.activity), (target.state, target.activity)))
        walked.append(row.id)
        current = target
    result = replay(BANNER + "\n".join(log_lines(moves)), era, semantics)
    steps = [s for slot in result.slots for s in slot.steps]
    assert [s.flags for s in steps] == [()] * len(walked)
    for step, row_id in zip(steps, walked, strict=True):
        assert row_id in {c.id for c in step.candidates if c.possible}


@pytest.mark.parametrize(("path", "semantics"), scenario_cases())
def test_runtime_runs_of_the_scenarios_replay_cleanly(path: Path, semantics: str) -> None:
    """The runtime's fired transitions for each scenario, written as the daemon logs
    them: replayed against the same compiled table, each maps to the row that fired."""
    trace = load(path)
    era = trace.era or "htcondor-current"
    config = load_config_for(trace)
    compiled = compile_policy(config, era, semantics)
    fired = [f for f in run_trace(trace, semantics).fired if f.source != f.target]
    lines = log_lines((f.source, f.target) for f in fired)
    # A trace that starts elsewhere than Owner/Idle is a log without its start-up banner.
    banner = BANNER if trace.initial == ("Owner", "Idle") else ""
    result = replay_log(parse_log(banner + "\n".join(lines)), compiled)
    steps = [s for slot in result.slots for s in slot.steps]
    assert [(s.change.line, s.flags) for s in steps] == [(s.change.line, ()) for s in steps]
    for step, f in zip(steps, fired, strict=True):
        assert f.id in {c.id for c in step.candidates if c.possible}, (f.id, step.change.text)


def load_config_for(trace: Trace) -> Config:
    """The scenario's configuration, as the scenario tests build it."""
    config, _ = support_compiled(
        trace.era or "htcondor-current", "manual", tuple(sorted(trace.config.items()))
    )
    return config


# -- injected impossible steps ---------------------------------------------------------


def _spec_pairs(era: str) -> set[tuple[tuple[str, str], tuple[str, str]]]:
    """(source, target) of every row of the era, both semantics."""
    found = set()
    for semantics in SEMANTICS:
        for t in load_spec(era, semantics).transitions:
            for target in t.targets:
                found.add(((t.source.state, t.source.activity), (target.state, target.activity)))
    return found


@pytest.mark.parametrize(("era", "semantics"), ERA_SEMANTICS)
def test_injected_impossible_changes_are_flagged(era: str, semantics: str) -> None:
    """Between two live steps, a full change no row of any era makes: flagged as such,
    and the slot's path after it goes on from the injected target."""
    everywhere = set().union(*(_spec_pairs(e) for e in ERAS))
    spec = load_spec(era, semantics)
    pairs = sorted({(p.state, p.activity) for t in spec.transitions for p in (t.source,)})
    injected = [
        (a, b)
        for a, b in itertools.product(pairs, pairs)
        if a[0] != b[0] and a[1] != b[1] and (a, b) not in everywhere
    ]
    assert injected
    for source, target in injected[:: max(1, len(injected) // 15)]:
        text = f"11/23/26 10:00:00 slot1: Changing state and activity: {source[0]}/{source[1]} -> {target[0]}/{target[1]}"
        (step,) = replay(text, era, semantics).slots[0].steps
        assert [f.kind for f in step.flags] == ["impossible"], (source, target, step.flags)
        assert step.candidates == ()


@pytest.mark.parametrize(
    ("era", "semantics", "line", "kind"),
    [
        # Retiring and Backfill came with 6.8 (shared/reference/transitions.md 1.1).
        ("condor-6.4", "code", "Changing activity: Busy -> Retiring", "era"),
        ("condor-6.4", "manual", "Changing state: Unclaimed -> Backfill", "era"),
        # Drained is current-era only.
        (
            "condor-6.8",
            "code",
            "Changing state and activity: Owner/Idle -> Drained/Retiring",
            "era",
        ),
        # The Delete state exists only in the code (delete_state): manual semantics flag it.
        ("htcondor-current", "manual", "Changing state: Owner -> Delete", "semantics"),
        # The default policy has no backfill: transition 7 is dead.
        ("htcondor-current", "code", "Changing state: Unclaimed -> Backfill", "configuration"),
    ],
)
def test_flag_kinds(era: str, semantics: str, line: str, kind: str) -> None:
    (step,) = replay(f"11/23/26 10:00:00 slot1: {line}", era, semantics).slots[0].steps
    assert [f.kind for f in step.flags] == [kind], step.flags


def test_a_gap_in_the_log_is_flagged_and_the_path_goes_on() -> None:
    log = BANNER + "\n".join(
        [
            "11/23/26 10:00:01 slot1: Changing state: Owner -> Unclaimed",
            # the Matched line is missing
            "11/23/26 10:00:02 slot1: Changing state: Matched -> Claimed",
            "11/23/26 10:00:03 slot1: Changing activity: Idle -> Busy",
        ]
    )
    steps = replay(log, "htcondor-current", "code").slots[0].steps
    assert [[f.kind for f in s.flags] for s in steps] == [[], ["gap"], []]
    assert [s.candidates[0].number for s in steps] == [1, 9, 11]


def test_slots_are_followed_separately() -> None:
    log = BANNER + "\n".join(
        [
            "11/23/26 10:00:01 slot2: Changing state: Owner -> Unclaimed",
            "11/23/26 10:00:01 slot1: Changing state: Owner -> Unclaimed",
            "11/23/26 10:00:02 slot1_1: Changing state: Owner -> Unclaimed",
            "11/23/26 10:00:03 slot2: Changing state: Unclaimed -> Claimed",
            "11/23/26 10:00:04 slot10: Changing state: Owner -> Unclaimed",
        ]
    )
    result = replay(log, "htcondor-current", "code")
    assert [s.slot for s in result.slots] == ["slot1", "slot1_1", "slot2", "slot10"]
    assert [len(s.steps) for s in result.slots] == [1, 1, 2, 1]
    assert [c.number for c in result.slots[2].steps[1].candidates] == [5]
    assert not result.flagged


def test_history_unknown_activity_line_lists_the_candidates() -> None:
    """Without the slot's state, `Idle -> Busy` fits Claimed (transition 11) and
    Backfill (26, dead under the default policy, which has no backfill): both named,
    and the step is not flagged since 11 could make it."""
    result = replay(
        "11/23/26 10:00:00 slot1: Changing activity: Idle -> Busy", "htcondor-current", "code"
    )
    (step,) = result.slots[0].steps
    assert {(c.number, c.source, c.possible) for c in step.candidates} == {
        (11, ("Claimed", "Idle"), True),
        (26, ("Backfill", "Idle"), False),
    }
    assert not step.flagged and step.label() == "11"


def test_a_name_no_era_knows_is_flagged_not_refused() -> None:
    """HEAD's Cleaning activity (shared/reference/transitions.md: HEAD only) is in no
    modelled era: the change is flagged and the replay goes on from where it went."""
    log = BANNER + "\n".join(
        [
            "11/23/26 10:00:01 slot1: Changing state: Owner -> Unclaimed",
            "11/23/26 10:00:02 slot1: Changing state: Unclaimed -> Claimed",
            "11/23/26 10:00:03 slot1: Changing activity: Idle -> Busy",
            "11/23/26 10:00:04 slot1: Changing activity: Busy -> Cleaning",
            "11/23/26 10:00:05 slot1: Changing activity: Cleaning -> Idle",
        ]
    )
    steps = replay(log, "htcondor-current", "code").slots[0].steps
    kinds = [[f.kind for f in s.flags] for s in steps]
    assert kinds == [[], [], [], ["impossible"], ["impossible"]]
    assert "activity 'Cleaning'" in steps[3].flags[0].reason


PIECES = st.sampled_from(
    [
        "11/23/26 10:00:00 ",
        "1763892005.123 ",
        "slot1: ",
        "slot2_1: ",
        "vm1: ",
        "Changing state: ",
        "Changing activity: ",
        "Changing state and activity: ",
        "State change: ",
        "** condor_startd (CONDOR_STARTD) STARTING UP",
        "Owner",
        "Claimed",
        "Preempting",
        "Drained",
        "Delete",
        "Idle",
        "Busy",
        "Vacating",
        "Cleaning",
        "/",
        " -> ",
        " ",
        "\udcff",
    ]
)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.lists(PIECES, max_size=9).map("".join), max_size=12))
def test_any_text_replays_or_is_refused_with_a_position(lines: list[str]) -> None:
    """Whatever the log holds, replay either answers or raises a positioned PolicyError."""
    try:
        entries = parse_log("\n".join(lines), file="L")
    except PolicyError as err:
        assert err.file == "L" and err.line is not None and err.column is not None
        return
    result = replay(
        "\n".join(lines), "htcondor-current", "code"
    )  # same entries, through the helper
    assert sum(len(s.steps) for s in result.slots) == sum(
        1 for e in entries if type(e).__name__ == "Change"
    )
