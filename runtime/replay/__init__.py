"""`condor-policy replay`: a real startd log checked against the compiled policy.

`logparse` reads the `Changing state ...` lines (with positions), `check` maps each to
the era's transitions and flags those the policy could not have made, `report` renders
the result (text, JSON) and the steps for a highlighted diagram.
"""

from runtime.replay.check import Candidate, Flag, Replay, SlotReplay, Step, replay_log
from runtime.replay.logparse import Cause, Change, LogEntry, Restart, parse_line, parse_log

__all__ = [
    "Candidate",
    "Cause",
    "Change",
    "Flag",
    "LogEntry",
    "Replay",
    "Restart",
    "SlotReplay",
    "Step",
    "parse_line",
    "parse_log",
    "replay_log",
]
