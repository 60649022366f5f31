"""`condor-policy eval EXPR [--machine AD] [--job AD] [--json]`: evaluate one expression.

MY is the machine ad (empty when `--machine` is not given) and TARGET the job ad, the
environment in which the startd evaluates START, RANK and the other policy
expressions; unscoped names not found in MY are looked up in TARGET, as HTCondor does.
Ad files may be in long form (`condor_status -l`), new ClassAd syntax or JSON
(`condor_status -json`).

Plain output is the value in ClassAd syntax, as `classad_eval` prints it: strings
quoted, `true`/`false`, `undefined`, `error`, reals as `2.500000000000000E+00`, lists
`{ 1,2 }`, ads `[ a = 1; b = 2 ]`.

`--json` prints one JSON value: integers, reals, booleans, strings, lists and ads as
JSON numbers, booleans, strings, arrays and objects; the two special values as
`{"type": "undefined"}` and `{"type": "error"}`; reals JSON cannot hold as
`{"type": "real", "value": "inf" | "-inf" | "nan"}`; absolute and relative times as
HTCondor's JSON writer writes them (src/classad/jsonSink.cpp), an expression string
`"\\/Expr(absTime(\"2004-01-01T00:00:00-06:00\"))\\/"`. A string byte that is not UTF-8
(`"\\377"`) prints as U+FFFD, so the output is always valid UTF-8 JSON; the plain
output keeps the exact bytes (`"\\377"`).

A syntax error in EXPR or in an ad file exits with status 2 and `file:line:col`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from compiler.classad import (
    ERROR,
    UNDEFINED,
    AbsTime,
    ClassAd,
    ClassAdSyntaxError,
    RelTime,
    call_deep,
    evaluate,
    format_value,
    load_ad,
    parse,
    to_bytes,
)
from compiler.errors import PolicyError

NAME = "eval"
HELP = "Evaluate a ClassAd expression against optional machine (MY) and job (TARGET) ads."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expr", metavar="EXPR", help="ClassAd expression")
    parser.add_argument("--machine", metavar="AD_FILE", help="machine ad: MY")
    parser.add_argument("--job", metavar="AD_FILE", help="job ad: TARGET")
    parser.add_argument("--json", action="store_true", help="print the value as JSON")


def to_json(value: Any) -> Any:
    """A ClassAd value as plain JSON data (shape documented in the module docstring)."""
    if value is UNDEFINED:
        return {"type": "undefined"}
    if value is ERROR:
        return {"type": "error"}
    if isinstance(value, float) and not math.isfinite(value):
        return {"type": "real", "value": "nan" if math.isnan(value) else str(value)}
    if isinstance(value, str):
        return _unicode(value)
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {_unicode(k): to_json(v) for k, v in value.items()}
    if isinstance(value, AbsTime | RelTime):
        return f"/Expr({format_value(value)})/"
    return value


def _unicode(text: str) -> str:
    """A ClassAd string (bytes) as Unicode text JSON can hold: bytes that are not UTF-8
    become U+FFFD. HTCondor's JSON writer copies such bytes through raw (src/classad/
    jsonSink.cpp, `ClassAdJsonUnParser::UnparseAuxEscapeString`), so its output is not
    UTF-8; U+FFFD, one per maximal invalid sequence, is what a reader that accepts it
    (jq; Python's `decode("utf-8", "replace")`) makes of those bytes."""
    return to_bytes(text).decode("utf-8", "replace")


def load_ad_file(path: str) -> ClassAd:
    """The ad in file `path` (any form `load_ad` reads); a missing file is a PolicyError."""
    if not Path(path).is_file():
        raise PolicyError(f"no such ad file: {path}", file=path)
    return load_ad(Path(path))


def run(args: argparse.Namespace) -> int:
    try:
        expr = parse(args.expr)
    except ClassAdSyntaxError as err:
        err.file = "<EXPR>"
        raise
    machine = load_ad_file(args.machine) if args.machine else {}
    job = load_ad_file(args.job) if args.job else None
    value = evaluate(expr, machine, job)
    print(call_deep(_json_text, value) if args.json else format_value(value))
    return 0


def _json_text(value: Any) -> str:
    """The `--json` text; run through `call_deep` as values nest like expressions."""
    return json.dumps(to_json(value))
