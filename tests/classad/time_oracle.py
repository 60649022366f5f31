"""The HTCondor oracle in a chosen time zone, for the time-value tests.

Absolute times depend on the local zone (`absTime(0)` is shown at the local offset,
`absTime("2004-01-01")` is read as local time), so each zone gets its own oracle
process started with `TZ` set, and our evaluator runs with the same `TZ` (`in_zone`).

An expression is compared through four views, because the binding hands values over
lossily (an absolute time as a `datetime`, a relative time as a float, like a real):
its value, `isAbsTime(e)`, `isRelTime(e)` and `string(e)` (which prints times the way
HTCondor does). Each view is normalised into JSON-able tags, the same way for both
sides (`view`).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from compiler.classad import ClassAdSyntaxError, evaluate, parse
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime

REPO: Final = Path(__file__).resolve().parents[2]
ZONES: Final = ("UTC", "America/Chicago", "Asia/Kolkata")
WRAPS: Final = ("{}", "isAbsTime({})", "isRelTime({})", "string({})")

# The child: one expression per line in, its four views per line out. `view` below is
# duplicated there (the child must not import the product).
_CHILD: Final = r"""
import datetime, json, math, sys
import htcondor2
import classad2

WRAPS = json.loads(sys.argv[1])

def view(v):
    if isinstance(v, classad2.Value):
        return ["E"] if v == classad2.Value.Error else ["U"]
    if isinstance(v, datetime.datetime):
        return ["abs", v.timestamp()]
    if isinstance(v, classad2.ClassAd):
        return ["ad", {k.lower(): view(v.eval(k)) for k in v}]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["real", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [view(x) for x in v]]
    return ["other", repr(v)]

for line in sys.stdin:
    text = json.loads(line)
    try:
        classad2.ExprTree(text)
    except classad2.ClassAdException:
        out = ["syntax"]
    else:
        out = []
        for wrap in WRAPS:
            try:
                out.append(view(classad2.ExprTree(wrap.format(text)).eval()))
            except (classad2.ClassAdException, ValueError, OverflowError, UnicodeDecodeError):
                out.append(["fail"])
    print(json.dumps(out), flush=True)
"""


class ZoneOracle:
    """A long-lived oracle process with `TZ=zone`."""

    def __init__(self, zone: str) -> None:
        env = dict(os.environ, TZ=zone)
        self.process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, json.dumps(WRAPS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )

    def views(self, text: str) -> list[Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(text) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"time oracle died on {text!r}")
        return json.loads(answer)  # type: ignore[no-any-return]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


_oracles: dict[str, ZoneOracle] = {}


def oracle_views(zone: str, text: str) -> list[Any]:
    if zone not in _oracles:
        _oracles[zone] = ZoneOracle(zone)
    return _oracles[zone].views(text)


@contextmanager
def in_zone(zone: str) -> Iterator[None]:
    """Our process's local time zone set to `zone` for the duration."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()


def view(v: Any) -> list[Any]:
    """Our value in the child's tags (what the binding would hand over)."""
    if v is ERROR:
        return ["E"]
    if v is UNDEFINED:
        return ["U"]
    if isinstance(v, AbsTime):
        try:
            stamp = datetime.datetime.fromtimestamp(v.seconds, datetime.UTC).timestamp()
        except (OverflowError, OSError, ValueError):
            return ["fail"]
        return ["abs", stamp]
    if isinstance(v, RelTime):
        return ["real", repr(v.seconds)]
    if isinstance(v, dict):
        return ["ad", {k.lower(): view(x) for k, x in v.items()}]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["real", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [view(x) for x in v]]
    return ["other", repr(v)]


def our_views(text: str) -> list[Any]:
    try:
        parse(text)
    except ClassAdSyntaxError:
        return ["syntax"]
    return [view(evaluate(wrap.format(text))) for wrap in WRAPS]


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, list) and isinstance(theirs, list):
        if ours[:1] == ["real"] and theirs[:1] == ["real"]:
            a, b = float(ours[1]), float(theirs[1])
            return (math.isnan(a) and math.isnan(b)) or a == b
        return len(ours) == len(theirs) and all(map(_same, ours, theirs))
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(_same(ours[k], theirs[k]) for k in ours)
    return bool(ours == theirs) and type(ours) is type(theirs)


def check_in_zone(zone: str, text: str) -> None:
    """Our four views of `text` equal the oracle's in `zone`.

    Two answers of the oracle are not values: `syntax` (HTCondor reads `absTime("...")`
    and `relTime("...")` while parsing and rejects a bad string there; so must our
    parser) and `fail` (the evaluation itself failed, e.g. `absTime(0, -1)`, where we
    answer ERROR, or the binding could not convert the time to a `datetime`; then the
    other views are still compared).
    """
    theirs = oracle_views(zone, text)
    with in_zone(zone):
        ours = our_views(text)
    if theirs == ["syntax"] or ours == ["syntax"]:
        assert ours == theirs, f"{text!r} in {zone}: ours {ours}, oracle {theirs}"
        return
    if all(v == ["fail"] for v in theirs):  # the evaluation itself failed
        assert ours[0] == ["E"], f"{text!r} in {zone}: ours {ours[0]}, oracle failed"
        return
    if theirs[0] == ["fail"]:  # a time the binding cannot make a `datetime` of
        ours, theirs = ours[1:], theirs[1:]
    assert _same(ours, theirs), f"{text!r} in {zone}: ours {ours}, oracle {theirs}"
