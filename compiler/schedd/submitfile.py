"""The job ads a simple submit description file makes (what `submit-check` reads besides
ad files): `+Attr = value` / `MY.Attr = value`, the few submit commands the seed's schedd
policy needs, and `queue [N]`.

Stage: text -> job ads, before the schedd's transforms and requirements. The commands and
their attributes are data (spec/schedd.yaml `submit_commands`, from HTCondor 23.0
src/condor_utils/submit_utils.cpp `SubmitHash::SetRequestMem`, `SetRequestDisk`,
`SetRequestCpus`, `SetUniverse`, `SetRequirements`, `SetRank`, `SetExecutable`,
`SetArguments`, `SetAccountingGroup`); sizes go through condor_submit's own unit rule
(`parse_int64_bytes`, metric_units.cpp). Anything else condor_submit would understand
(macros, other commands, `queue ... from`/`in`/`matching`) is refused with its position,
never guessed: write it as `+Attr = value` or give submit-check a job ad instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from compiler import yamlcache
from compiler.classad import ClassAd, ClassAdSyntaxError, parse
from compiler.errors import PolicyError, close_matches
from spec import data_path

_QUEUE = re.compile(r"^queue(?:\s+(\d+))?\s*$", re.IGNORECASE)
_ASSIGN = re.compile(r"^(\+|MY\.)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$", re.IGNORECASE)


class SubmitFileError(PolicyError):
    """A submit description this reader does not take (positioned)."""


@cache
def _commands() -> Mapping[str, Mapping[str, Any]]:
    path = data_path("schedd.yaml")
    data = yamlcache.load(path.read_text(encoding="utf-8"), path)
    return {str(k).lower(): v for k, v in data["submit_commands"].items()}


def looks_like_submit_file(text: str) -> bool:
    """A submit description ends its job with a `queue` statement; an ad file never has
    one."""
    return any(_QUEUE.match(line.strip()) for line in text.splitlines())


def parse_int64_bytes(text: str, base: int) -> int | None:
    """condor_submit's sizes: an integer (fraction to three digits) with an optional
    K/M/G/T suffix (and `b`), rounded up to units of `base` bytes; no suffix means
    `base` itself (metric_units.cpp `parse_int64_bytes`). None: not such a size."""
    found = re.fullmatch(r"\s*(\d+)(?:\.(\d*))?\s*(?:([kKmMgGtT])[bB]?)?\s*", text)
    if found is None:
        return None
    whole = int(found.group(1))
    fraction = sum(int(d) / 10 ** (i + 1) for i, d in enumerate((found.group(2) or "")[:3]))
    mult = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}.get(
        (found.group(3) or "").lower(), base
    )
    return math.floor(((whole + fraction) * mult + base - 1) / base)


def read_submit_file(text: str, file: str) -> list[ClassAd]:
    """The job ads of `text`, one per queued job, in order."""
    attrs: dict[str, Any] = {}
    ads: list[ClassAd] = []
    lines = text.splitlines()
    logical: list[tuple[int, str]] = []
    pending = ""
    start = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append((start, pending + line))
        pending = ""
    for number, line in logical:
        if not line or line.startswith("#"):
            continue
        if "$(" in line:
            raise _error("macros ($(...)) are not expanded here: give a job ad", file, number, line)
        queued = _QUEUE.match(line)
        if queued:
            ads += [ClassAd(dict(attrs)) for _ in range(int(queued.group(1) or 1))]
            continue
        assigned = _ASSIGN.match(line)
        if assigned is None:
            raise _error("not a submit statement (name = value, +Attr = value, queue [N])", file, number, line)  # fmt: skip
        custom, name, value = assigned.groups()
        if custom:
            attrs[name] = _expr(value, file, number, line)
        else:
            attrs.update(_command(name, value.strip(), file, number, line))
    if not ads:
        raise SubmitFileError("the submit description queues no job", file=file)
    return ads


def _command(name: str, value: str, file: str, number: int, line: str) -> dict[str, Any]:
    commands = _commands()
    rule = commands.get(name.lower())
    if rule is None:
        close = close_matches(name.lower(), list(commands))
        hint = f"; did you mean {close[0]}?" if close else ""
        raise _error(
            f"submit command {name!r} is not read by submit-check (it reads "
            f"{', '.join(sorted(commands))}, +Attr = value and queue){hint}",
            file,
            number,
            line,
        )
    match rule["kind"]:
        case "size":
            size = parse_int64_bytes(value, int(rule["base"]))
            if size is not None:
                return {rule["attr"]: size}
            if value.lower() == "undefined":
                return {}
            return {rule["attr"]: _expr(value, file, number, line)}
        case "expr":
            return {rule["attr"]: _expr(value, file, number, line)}
        case "string":
            return {rule["attr"]: value}
        case "boolean":
            return {rule["attr"]: value.lower() in ("true", "yes", "1")}
        case "universe":
            known = rule["values"]
            entry = known.get(value.lower())
            if entry is None:
                raise _error(
                    f"unknown universe {value!r} (known: {', '.join(known)})", file, number, line
                )
            return dict(entry)
        case other:
            raise ValueError(f"spec/schedd.yaml: unknown submit command kind {other!r}")


def _expr(value: str, file: str, number: int, line: str) -> Any:
    try:
        return parse(value)
    except ClassAdSyntaxError as err:
        raise _error(f"not a ClassAd expression: {err.message}", file, number, line) from None


def _error(message: str, file: str, number: int, line: str) -> SubmitFileError:
    return SubmitFileError(message, file=file, line=number, column=1, source_line=line)
