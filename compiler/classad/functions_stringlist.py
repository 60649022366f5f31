"""HTCondor's "string list" builtins: a string such as `"a, b,c"` read as a list.

Stage: evaluation. These exist only in HTCondor mode (the daemons register them). Two
tokenisers are in play, as in HTCondor:

* `tokens`: split at any delimiter byte, trim C whitespace from each piece, drop empty
  pieces — `stringListSize/Sum/Avg/Min/Max/Member/IMember/SubsetMatch/ISubsetMatch`,
  `stringList_regexpMember`;
* `raw_tokens`: split at delimiters without trimming — `stringListsIntersect`.

Default delimiters differ per function (", " for sizes and sums, ", \\t\\r\\n" for
membership, " ," for intersection); an empty delimiter string means "no delimiter"
for the first tokeniser and "the default" for the second.
"""

from __future__ import annotations

import re
from typing import Final

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import C_SPACE, real_to_int64, strtod_prefix
from compiler.classad.functions_regex import compiled, options_from
from compiler.classad.values import ERROR, UNDEFINED, Value, to_bytes

_FLT_MAX: Final = 3.4028234663852886e38
_FLT_MIN: Final = 1.1754943508222875e-38
_C_SPACE_BYTES: Final = C_SPACE.encode()


def tokens(text: str, delimiters: str) -> list[bytes]:
    """Trimmed, non-empty pieces of `text` split at any byte of `delimiters`."""
    data, delims = to_bytes(text), set(to_bytes(delimiters))
    pieces: list[bytes] = []
    start = 0
    for i, byte in enumerate([*data, None]):
        if byte is None or byte in delims:
            piece = data[start:i].strip(_C_SPACE_BYTES)
            if piece:
                pieces.append(piece)
            start = i + 1
    return pieces


def raw_tokens(text: str, delimiters: str) -> list[bytes]:
    """Non-empty pieces split at delimiter bytes, untrimmed (`strcspn` walking)."""
    delims = re.escape(to_bytes(delimiters or " ,"))
    return [p for p in re.split(b"[" + delims + b"]", to_bytes(text)) if p]


# --- stringListSize and the numeric summaries -----------------------------------------


def _list_and_delims(args: list[Value], default: str) -> tuple[str, str] | None:
    """(list, delimiters) when the 1-2 arguments are strings, else None (ERROR)."""
    if len(args) not in (1, 2):
        return None
    text = args[0]
    delims = args[1] if len(args) == 2 else default
    if not (isinstance(text, str) and isinstance(delims, str)):
        return None
    return text, delims


def string_list_size(args: list[Value], _ctx: FunctionContext) -> Value:
    parsed = _list_and_delims(args, ", ")
    return ERROR if parsed is None else len(tokens(*parsed))


_SIGN: Final = re.compile(r"[ \t\n\v\f\r]*[+-]?")


def _scan_double(token: bytes) -> float | None:
    """C `sscanf("%lf")` on a token: strtod, except that glibc's scanf commits early —
    `0x` must be followed by a hex digit or '.', and `infi...` must spell `infinity`."""
    text = token.decode("latin-1")
    sign = _SIGN.match(text)
    rest = text[sign.end() if sign else 0 :]
    lowered = rest.lower()
    if lowered.startswith("0x") and not re.match(r"0x[0-9a-f.]", lowered):
        return None
    if lowered.startswith("infi") and not lowered.startswith("infinity"):
        return None
    return strtod_prefix(text)


def _summary(name: str) -> FunctionImpl:
    """stringListSum/Avg/Min/Max: numbers parsed with `%lf`; the result is an integer
    unless some item has a character other than `+-0123456789`. Quirks kept: an empty
    list sums to 0.0 and has UNDEFINED min/max; min starts from FLT_MAX and max from
    FLT_MIN (a tiny positive number), so `stringListMax("-3,-1")` is 0."""

    def fold(item: float, acc: float) -> float:
        match name:
            case "min":
                return item if item < acc else acc
            case "max":
                return item if item > acc else acc
            case _:
                return item + acc

    start = {"min": _FLT_MAX, "max": _FLT_MIN}.get(name, 0.0)

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        parsed = _list_and_delims(args, ", ")
        if parsed is None:
            return ERROR
        items = tokens(*parsed)
        acc, is_real = start, False
        for token in items:
            value = _scan_double(token)
            if value is None:
                return ERROR
            is_real = is_real or token.strip(b"+-0123456789") != b""
            acc = fold(value, acc)
        if not items:
            return 0.0 if name in ("sum", "avg") else UNDEFINED
        if name == "avg":
            acc /= len(items)
        return acc if is_real else real_to_int64(acc)

    return impl


# --- membership -----------------------------------------------------------------------


def _member_args(args: list[Value]) -> tuple[str, str, str] | Value:
    """(item, list, delimiters) for the Member/SubsetMatch family.

    Each argument must be a string or UNDEFINED (else ERROR); both first arguments
    UNDEFINED -> UNDEFINED; otherwise UNDEFINED reads as "" (delimiters: the default).
    """
    if len(args) not in (2, 3):
        return ERROR
    if any(a is not UNDEFINED and not isinstance(a, str) for a in args):
        return ERROR
    if args[0] is UNDEFINED and args[1] is UNDEFINED:
        return UNDEFINED
    item = args[0] if isinstance(args[0], str) else ""
    text = args[1] if isinstance(args[1], str) else ""
    delims = args[2] if len(args) == 3 and isinstance(args[2], str) else ", \t\r\n"
    return item, text, delims


def _member(fold: bool) -> FunctionImpl:
    """stringListMember / stringListIMember: is the (untrimmed) item one of the list's
    items (case-sensitive, or ASCII case-insensitive)?"""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        parsed = _member_args(args)
        if not isinstance(parsed, tuple):
            return parsed
        item, text, delims = parsed
        needle = to_bytes(item)
        pieces = tokens(text, delims)
        if fold:
            return needle.lower() in {p.lower() for p in pieces}
        return needle in pieces

    return impl


def _subset(fold: bool) -> FunctionImpl:
    """stringListSubsetMatch / stringListISubsetMatch: is every item of the first list
    in the second? An empty first string is always a subset; a first string with no
    items (",") is not."""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        parsed = _member_args(args)
        if not isinstance(parsed, tuple):
            return parsed
        item, text, delims = parsed
        if item == "":
            return True
        norm = (lambda b: b.lower()) if fold else (lambda b: b)
        universe = {norm(p) for p in tokens(text, delims)}
        wanted = [norm(p) for p in tokens(item, delims)]
        return bool(wanted) and all(w in universe for w in wanted)

    return impl


def string_lists_intersect(args: list[Value], _ctx: FunctionContext) -> Value:
    """`stringListsIntersect(a, b [, delims])`: do the lists share an item?"""
    if len(args) not in (2, 3):
        return ERROR
    if any(a is ERROR for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if not all(isinstance(a, str) for a in args):
        return ERROR
    delims = args[2] if len(args) == 3 else ""
    first, second = raw_tokens(args[0], delims), set(raw_tokens(args[1], delims))
    return any(p in second for p in first)


def string_list_regexp_member(args: list[Value], _ctx: FunctionContext) -> Value:
    """`stringList_regexpMember(pattern, list [, delims [, options]])`: TRUE if some
    item matches; an empty list is UNDEFINED; any non-string argument is ERROR."""
    if len(args) not in (2, 3, 4) or not all(isinstance(a, str) for a in args):
        return ERROR
    pattern, text = args[0], args[1]
    delims = args[2] if len(args) >= 3 else ", "
    regex = compiled(pattern, options_from(args[3] if len(args) == 4 else "", upper_too=True))
    if regex is None:
        return ERROR
    pieces = tokens(text, delims)
    if not pieces:
        return UNDEFINED
    return any(regex.regex.search(p) for p in pieces)


BUILTINS: dict[str, FunctionImpl] = {
    "stringlistsize": string_list_size,
    "stringlistsum": _summary("sum"),
    "stringlistavg": _summary("avg"),
    "stringlistmin": _summary("min"),
    "stringlistmax": _summary("max"),
    "stringlistmember": _member(fold=False),
    "stringlistimember": _member(fold=True),
    "stringlistsubsetmatch": _subset(fold=False),
    "stringlistisubsetmatch": _subset(fold=True),
    "stringlistsintersect": string_lists_intersect,
    "stringlist_regexpmember": string_list_regexp_member,
}
