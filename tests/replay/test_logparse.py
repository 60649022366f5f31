"""The startd log's state-change lines, in every header and prefix form the daemon writes.

Forms from the HTCondor source (cited, not copied): the message is `ResState::change`'s
(src/condor_startd.V6/ResState.cpp, 23.0; ResState.C in V6_4_0, same three texts); the
slot prefix is `Resource::dprintf_va`'s (`r_id_str` + ": ", `slot1`, `slot1_1`; `vm1` in
6.x, only on multi-slot machines); the header is `_condor_dprintf_va`'s
(src/condor_utils/dprintf.cpp: DEBUG_TIME_FORMAT default `%m/%d/%y %H:%M:%S`,
D_TIMESTAMP Unix time, D_SUB_SECOND `.mmm`, `(pid:N)`, D_CAT `(D_ALWAYS)`) and 6.x
dprintf.c's `%d/%d %02d:%02d:%02d`.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.errors import PolicyError
from runtime.replay import Cause, Change, Restart, parse_line, parse_log

#: (header as written, the time text in it, format name); "" is a line without header.
HEADERS = [
    ("11/23/26 10:00:05 ", "11/23/26 10:00:05", "mm/dd/yy"),
    ("11/23/26 10:00:05.123 ", "11/23/26 10:00:05.123", "mm/dd/yy"),
    ("1763892005 ", "1763892005", "unix"),
    ("1763892005.123 ", "1763892005.123", "unix"),
    ("2026-11-23 10:00:05 ", "2026-11-23 10:00:05", "iso"),
    ("2026-11-23T10:00:05.123Z ", "2026-11-23T10:00:05.123Z", "iso"),
    ("5/12 13:45:01 ", "5/12 13:45:01", "m/d"),
    ("11/23/26 10:00:05 (pid:4711) ", "11/23/26 10:00:05", "mm/dd/yy"),
    ("11/23/26 10:00:05 (pid:4711) (tid:3) (D_ALWAYS) ", "11/23/26 10:00:05", "mm/dd/yy"),
    ("1763892005 (D_ALWAYS:2) ", "1763892005", "unix"),
    ("", None, None),
]
PREFIXES = [("", None), ("slot1: ", "slot1"), ("slot12_3: ", "slot12_3"), ("vm2: ", "vm2")]
#: (message, kind, from state, from activity, to state, to activity)
MESSAGES = [
    (
        "Changing state and activity: Claimed/Busy -> Preempting/Vacating",
        "state and activity",
        "Claimed",
        "Busy",
        "Preempting",
        "Vacating",
    ),
    ("Changing state: Owner -> Unclaimed", "state", "Owner", None, "Unclaimed", None),
    ("Changing activity: Idle -> Busy", "activity", None, "Idle", None, "Busy"),
]


@pytest.mark.parametrize(("header", "time", "fmt"), HEADERS)
@pytest.mark.parametrize(("prefix", "slot"), PREFIXES)
@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m[1])
def test_every_header_prefix_and_message(
    header: str, time: str | None, fmt: str | None, prefix: str, slot: str | None, message: tuple
) -> None:
    text, kind, fs, fa, ts, ta = message
    line = header + prefix + text
    entry = parse_line(line, 7, file="StartLog")
    assert isinstance(entry, Change)
    assert (entry.kind, entry.slot, entry.time, entry.time_format) == (kind, slot, time, fmt)
    assert (entry.from_state, entry.from_activity, entry.to_state, entry.to_activity) == (
        fs,
        fa,
        ts,
        ta,
    )
    assert (entry.line, entry.column) == (7, len(header) + 1)
    assert entry.text == line


def test_windows_line_ends_and_trailing_blanks() -> None:
    entries = parse_log("11/23/26 10:00:05 slot1: Changing activity: Idle -> Busy \r\n")
    assert len(entries) == 1 and isinstance(entries[0], Change)
    assert entries[0].to_activity == "Busy"


def test_other_lines_are_ignored_and_positions_kept() -> None:
    log = (
        "11/23/26 10:00:00 slot1: State change: IS_OWNER is false\n"
        "11/23/26 10:00:00 slot1: Changing state: Owner -> Unclaimed\n"
        "11/23/26 10:00:01 Got activate_claim request from shadow (10.0.0.1)\n"
        "11/23/26 10:00:01 slot1: Changing activity: Idle -> Busy\n"
    )
    entries = parse_log(log)
    assert [(type(e).__name__, e.line) for e in entries] == [
        ("Cause", 1),
        ("Change", 2),
        ("Change", 4),
    ]


def test_cause_lines() -> None:
    """`State change: <why>` (ResState::eval_policy, Resource::starterExited in 23.0)."""
    entries = parse_log(
        "11/23/26 10:00:00 slot1_2: State change: received RELEASE_CLAIM command\n"
        "11/23/26 10:00:00 State change: PREEMPT is TRUE\n"
    )
    assert entries == (
        Cause(1, "slot1_2", "received RELEASE_CLAIM command"),
        Cause(2, None, "PREEMPT is TRUE"),
    )


def test_restart_banner() -> None:
    log = (
        "11/23/26 10:00:00 ******************************************************\n"
        "11/23/26 10:00:00 ** condor_startd (CONDOR_STARTD) STARTING UP\n"
        "11/23/26 10:00:05 slot1: Changing state: Owner -> Unclaimed\n"
    )
    entries = parse_log(log)
    assert isinstance(entries[0], Restart) and entries[0].line == 2
    assert entries[0].time == "11/23/26 10:00:00"


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("11/23/26 10:00:05 slot1: Changing state: Owner ->", 26),
        ("11/23/26 10:00:05 Changing state and activity: Claimed -> Owner/Idle", 19),
        ("Changing activity: Idle => Busy", 1),
    ],
)
def test_a_mangled_change_line_is_a_positioned_error(line: str, column: int) -> None:
    with pytest.raises(PolicyError) as info:
        parse_log("first line\n" + line + "\n", file="StartLog")
    err = info.value
    assert (err.file, err.line, err.column) == ("StartLog", 2, column)
    assert err.format().startswith(f"StartLog:2:{column}:")


NAMES = st.sampled_from(
    ["Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Backfill", "Drained", "Delete"]
)
ACTS = st.sampled_from(
    ["Idle", "Benchmarking", "Busy", "Suspended", "Retiring", "Vacating", "Killing"]
)


@given(
    header=st.sampled_from([h for h, _, _ in HEADERS]),
    prefix=st.sampled_from([p for p, _ in PREFIXES]),
    fs=NAMES,
    fa=ACTS,
    ts=NAMES,
    ta=ACTS,
)
def test_full_lines_round_trip(
    header: str, prefix: str, fs: str, fa: str, ts: str, ta: str
) -> None:
    line = f"{header}{prefix}Changing state and activity: {fs}/{fa} -> {ts}/{ta}"
    (entry,) = parse_log(line)
    assert isinstance(entry, Change)
    assert (entry.from_state, entry.from_activity, entry.to_state, entry.to_activity) == (
        fs,
        fa,
        ts,
        ta,
    )
