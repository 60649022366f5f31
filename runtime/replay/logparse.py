"""Read the state changes out of a startd log (StartLog), with their positions.

What the daemon writes: `ResState::change` (src/condor_startd.V6/ResState.cpp in 23.0,
ResState.C in V6_4_0) prints one D_ALWAYS line per change, in one of three forms:

    Changing state and activity: Claimed/Busy -> Preempting/Vacating
    Changing state: Owner -> Unclaimed          (the activity stays)
    Changing activity: Idle -> Busy             (the state stays)

through the slot's own `dprintf` (`Resource::dprintf_va`), which puts the slot's id and
": " in front: `slot1: `, `slot1_2: ` (a dynamic slot) in current releases, `vm1: ` in the
6.x releases, and in 6.x only when the machine has several slots (`resmgr->is_smp()`).

The line header comes from `_condor_dprintf_va` (src/condor_utils/dprintf.cpp): the time,
by default `%m/%d/%y %H:%M:%S` (DEBUG_TIME_FORMAT, any strftime format), with D_TIMESTAMP
the Unix time instead, with D_SUB_SECOND `.mmm` after either; then optional `(fd:N)`,
`(pid:N)`, `(tid:N)`, `(cid:N)`, `(bt:...)` and, with D_CAT, the category such as
`(D_ALWAYS)` or `(D_ALWAYS:2)`. The 6.x dprintf.c wrote `%d/%d %02d:%02d:%02d` (month/day
without the year). The header is recognised for these forms and kept as text otherwise:
the change message itself is what identifies a line.

A daemon restart (`** condor_startd (CONDOR_STARTD) STARTING UP`, the banner every
daemon writes) starts every slot again from its initial pair.

The startd says why before most changes, through the same slot `dprintf`: `State change:
received RELEASE_CLAIM command`, `State change: PREEMPT is TRUE`, `State change: starter
exited` (`ResState::eval_policy`, `Resource::starterExited`, ... in 23.0). Those lines are
kept as `Cause` entries, so a step can show what the log says made it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from compiler.errors import PolicyError

ChangeKind = Literal["state and activity", "state", "activity"]

_NAME = r"[A-Za-z_]\w*"
_MESSAGE = re.compile(
    rf"(?:(?P<slot>(?:slot|vm)\d+(?:_\d+)?): )?Changing (?:"
    rf"state and activity: (?P<fs>{_NAME})/(?P<fa>{_NAME}) -> (?P<ts>{_NAME})/(?P<ta>{_NAME})"
    rf"|state: (?P<s_from>{_NAME}) -> (?P<s_to>{_NAME})"
    rf"|activity: (?P<a_from>{_NAME}) -> (?P<a_to>{_NAME}))\s*$"
)
#: Anything that starts like a change message, to report a mangled one at its place.
_LOOSE = re.compile(r"Changing (?:state and activity|state|activity):")

#: The time formats of the header (dprintf.cpp `formatTimeHeader` and D_TIMESTAMP;
#: ISO 8601 as DEBUG_TIME_FORMAT is commonly set; 6.x dprintf.c's month/day).
_TIMES = (
    ("mm/dd/yy", re.compile(r"\d{2}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3,6})?")),
    (
        "iso",
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
    ),
    ("unix", re.compile(r"\d{9,11}(?:\.\d{3,6})?")),
    ("m/d", re.compile(r"\d{1,2}/\d{1,2} \d{2}:\d{2}:\d{2}")),
)
_HEADER_TAGS = re.compile(r"(?:\((?:fd|pid|tid|cid|bt):[^)]*\) |\(D_[A-Z_|]+(?::\d)?\) )*")
_RESTART = re.compile(r"\*\* condor_startd \(CONDOR_STARTD\) STARTING UP")
_CAUSE = re.compile(r"(?:(?P<slot>(?:slot|vm)\d+(?:_\d+)?): )?State change: (?P<text>.*?)\s*$")


@dataclass(frozen=True, slots=True)
class Change:
    """One `Changing ...` line. `line`/`column` are 1-based (the column of the message,
    or of the slot prefix when there is one); a state-only line leaves the activities
    None, an activity-only line the states (the log does not repeat what stayed)."""

    line: int
    column: int
    text: str
    kind: ChangeKind
    slot: str | None
    time: str | None
    time_format: str | None
    from_state: str | None
    from_activity: str | None
    to_state: str | None
    to_activity: str | None

    def describe(self) -> str:
        """The change as the log wrote it, without header or slot."""
        match self.kind:
            case "state and activity":
                return (
                    f"{self.from_state}/{self.from_activity} -> {self.to_state}/{self.to_activity}"
                )
            case "state":
                return f"state {self.from_state} -> {self.to_state}"
            case _:
                return f"activity {self.from_activity} -> {self.to_activity}"


@dataclass(frozen=True, slots=True)
class Restart:
    """The startd's start-up banner: every slot begins again."""

    line: int
    time: str | None


@dataclass(frozen=True, slots=True)
class Cause:
    """A `State change: <why>` line: the startd's reason for the change that follows."""

    line: int
    slot: str | None
    text: str


LogEntry = Change | Restart | Cause


def _header_time(header: str) -> tuple[str | None, str | None]:
    """(time text, format name) when `header` is a dprintf header of a known form."""
    for name, pattern in _TIMES:
        found = pattern.match(header)
        if found is None:
            continue
        rest = header[found.end() :]
        if not rest.startswith(" "):
            continue
        if _HEADER_TAGS.fullmatch(rest[1:]) is not None:
            return found.group(0), name
    return None, None


def parse_line(text: str, number: int, *, file: str) -> LogEntry | None:
    """The entry on one log line, or None when the line is about something else.

    A line that starts a change message but does not finish it in the daemon's form
    (`Changing state: Owner ->`) is a `PolicyError` at its column: a log cut or edited
    by hand is better reported than silently skipped.
    """
    found = _MESSAGE.search(text)
    if found is None:
        cause = _CAUSE.search(text)
        if cause is not None:
            return Cause(number, cause.group("slot"), cause.group("text"))
        if _RESTART.search(text):
            return Restart(number, _header_time(text[: text.find("**")])[0])
        loose = _LOOSE.search(text)
        if loose is not None:
            raise PolicyError(
                "a state change line not in the startd's form "
                "('Changing state and activity: S/A -> S/A', 'Changing state: S -> S' "
                "or 'Changing activity: A -> A')",
                file=file,
                line=number,
                column=loose.start() + 1,
                source_line=text,
            )
        return None
    time, time_format = _header_time(text[: found.start()])
    groups = found.groupdict()
    if groups["fs"] is not None:
        kind: ChangeKind = "state and activity"
        states = (groups["fs"], groups["ts"])
        activities = (groups["fa"], groups["ta"])
    elif groups["s_from"] is not None:
        kind = "state"
        states = (groups["s_from"], groups["s_to"])
        activities = (None, None)
    else:
        kind = "activity"
        states = (None, None)
        activities = (groups["a_from"], groups["a_to"])
    return Change(
        line=number,
        column=found.start() + 1,
        text=text,
        kind=kind,
        slot=groups["slot"],
        time=time,
        time_format=time_format,
        from_state=states[0],
        from_activity=activities[0],
        to_state=states[1],
        to_activity=activities[1],
    )


def parse_log(text: str, *, file: str = "<log>") -> tuple[LogEntry, ...]:
    """Every state change and restart of a startd log, in order."""
    entries: list[LogEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        entry = parse_line(line, number, file=file)
        if entry is not None:
            entries.append(entry)
    return tuple(entries)
