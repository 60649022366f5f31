"""ClassAd builtins on strings: concatenation, substrings, case, comparisons,
version ordering, `split`, `splitUserName`, `splitSlotName`.

Stage: evaluation; arguments are already evaluated. Strings are treated as the byte
strings HTCondor stores (see `functions_convert.to_bytes`): lengths, offsets and case
mapping are per byte and ASCII-only, exactly as the C library does them.
"""

from __future__ import annotations

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import C_SPACE, is_exact_int, to_string, wrap32
from compiler.classad.values import ERROR, UNDEFINED, Value, from_bytes, to_bytes

# --- strcat and join ------------------------------------------------------------------


def strcat(args: list[Value], _ctx: FunctionContext) -> Value:
    """Concatenate `string()` of every argument; the first UNDEFINED or ERROR wins."""
    parts: list[str] = []
    for arg in args:
        s = to_string(arg)
        if not isinstance(s, str):
            return s
        parts.append(s)
    return "".join(parts)


def join(args: list[Value], _ctx: FunctionContext) -> Value:
    """`join(sep, a, b, ...)`, `join(sep, list)`, `join(list)`.

    UNDEFINED items are skipped (an UNDEFINED separator counts as ""); if something was
    UNDEFINED and nothing was joined the result is UNDEFINED; any ERROR gives ERROR.
    The separator is only written after non-empty output.
    """
    if 1 <= len(args) <= 2 and isinstance(args[-1], list | tuple):
        separator: Value = args[0] if len(args) == 2 else ""
        items: list[Value] = list(args[-1])
    elif args:
        separator, items = args[0], list(args[1:])
    else:
        return ""
    saw_undefined = separator is UNDEFINED
    sep = to_string(separator) if separator is not UNDEFINED else ""
    if not isinstance(sep, str):
        return ERROR
    out, count = "", 0
    for item in items:
        s = to_string(item)
        if s is UNDEFINED:
            saw_undefined = True
            continue
        if not isinstance(s, str):
            return ERROR
        # The separator goes in only once the output is non-empty: join(",", "", "b")
        # is "b" but join(",", "a", "") is "a,".
        out = out + sep + s if out else s
        count += 1
    if saw_undefined and count == 0:
        return UNDEFINED
    return out


# --- substr, case, comparisons --------------------------------------------------------


def substr(args: list[Value], _ctx: FunctionContext) -> Value:
    """Perl-like `substr(s, offset [, length])` on bytes.

    A negative offset counts from the end (clipped at the start); a non-positive length
    leaves that many bytes off the end. Offsets and lengths are narrowed to 32 bits.
    Any UNDEFINED argument -> UNDEFINED (before type checks); wrong types -> ERROR.
    """
    if len(args) not in (2, 3):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    text, offset_arg = args[0], args[1]
    length_arg = args[2] if len(args) == 3 else 0
    if not (isinstance(text, str) and is_exact_int(offset_arg) and is_exact_int(length_arg)):
        return ERROR
    data = to_bytes(text)
    size = len(data)
    offset, length = wrap32(offset_arg), wrap32(length_arg)
    if offset < 0:
        offset = max(size + offset, 0)
    offset = min(offset, size)
    if length <= 0:
        length = max(size - offset + length, 0)
    length = min(length, size - offset)
    if len(args) == 3 and wrap32(length_arg) == 0:
        length = 0
    return from_bytes(data[offset : offset + length])


def _change_case(upper: bool) -> FunctionImpl:
    """toUpper/toLower: `string()` of the argument, ASCII letters mapped."""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        if len(args) != 1:
            return ERROR
        s = to_string(args[0])
        if not isinstance(s, str):
            return s
        data = to_bytes(s)
        return from_bytes(data.upper() if upper else data.lower())

    return impl


def _string_pair(args: list[Value]) -> tuple[bytes, bytes] | Value:
    """Both arguments as bytes after `string()`; UNDEFINED first, then ERROR."""
    if len(args) != 2:
        return ERROR
    if args[0] is UNDEFINED or args[1] is UNDEFINED:
        return UNDEFINED
    a, b = to_string(args[0]), to_string(args[1])
    if not (isinstance(a, str) and isinstance(b, str)):
        return ERROR
    return to_bytes(a), to_bytes(b)


def _compare_strings(fold: bool) -> FunctionImpl:
    """strcmp/stricmp: -1, 0 or 1 (stricmp folds ASCII case)."""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        pair = _string_pair(args)
        if not isinstance(pair, tuple):
            return pair
        a, b = (pair[0].lower(), pair[1].lower()) if fold else pair
        return (a > b) - (a < b)

    return impl


# --- version comparison ---------------------------------------------------------------


def _signed(byte: int) -> int:
    """A byte as x86 `char` (signed)."""
    return byte - 256 if byte >= 128 else byte


def _isdigit(byte: int) -> bool:
    return 0x30 <= byte <= 0x39


def natural_cmp(s1: bytes, s2: bytes) -> int:
    """HTCondor's `natural_cmp` (strverscmp-like): digit runs compare as numbers,
    more leading zeros sort first. Returns the library's raw difference, not just -1/0/1
    (`versioncmp("", "a")` is -97)."""

    def at(s: bytes, i: int) -> int:
        return s[i] if i < len(s) else 0

    i = 0
    while at(s1, i) and at(s1, i) == at(s2, i):
        i += 1
    c1, c2 = at(s1, i), at(s2, i)
    if c1 == c2:
        return 0
    begin = i
    while begin > 0 and _isdigit(s1[begin - 1]):
        begin -= 1
    if begin == i and not (_isdigit(c1) and _isdigit(c2)):
        return _signed(c1) - _signed(c2)

    def zeros_end(s: bytes) -> int:
        end = begin
        while at(s, end) == 0x30:
            end += 1
        if end > begin and not _isdigit(at(s, end)):
            end -= 1  # a final lone zero is the number, not a leading zero
        return end

    z1, z2 = zeros_end(s1), zeros_end(s2)
    if z1 != z2:
        return z2 - z1
    if z1 > begin:
        return _signed(c1) - _signed(c2)

    def digits_end(s: bytes, start: int) -> int:
        end = start
        while _isdigit(at(s, end)):
            end += 1
        return end

    n1, n2 = digits_end(s1, z1), digits_end(s2, z2)
    if n1 != n2:
        return n1 - n2
    return _signed(c1) - _signed(c2)


_VERSION_TESTS = {
    "versioncmp": None,
    "versionlt": lambda r: r < 0,
    "versionle": lambda r: r <= 0,
    "versiongt": lambda r: r > 0,
    "versionge": lambda r: r >= 0,
    "versioneq": lambda r: r == 0,
}


def _version(name: str) -> FunctionImpl:
    test = _VERSION_TESTS[name]

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        pair = _string_pair(args)
        if not isinstance(pair, tuple):
            return pair
        r = natural_cmp(*pair)
        return r if test is None else test(r)

    return impl


def version_in_range(args: list[Value], _ctx: FunctionContext) -> Value:
    """`version_in_range(v, lo, hi)`: lo <= v <= hi in natural order; UNDEFINED bounds
    give UNDEFINED, an UNDEFINED version gives ERROR."""
    if len(args) != 3:
        return ERROR
    test, low, high = args
    if low is UNDEFINED or high is UNDEFINED:
        return UNDEFINED
    texts = [to_string(v) for v in (test, low, high)]
    if not all(isinstance(t, str) for t in texts):
        return ERROR
    v, lo, hi = (to_bytes(t) for t in texts)
    return natural_cmp(lo, v) <= 0 and natural_cmp(v, hi) <= 0


# --- splitting ------------------------------------------------------------------------


def split(args: list[Value], _ctx: FunctionContext) -> Value:
    """`split(s [, seps])`: split at any separator byte (default comma, space, tab).

    Empty pieces are dropped except between two equal non-blank separators:
    "a,,b" -> {"a", "", "b"} but "a , b" -> {"a", "b"}.
    """
    if len(args) not in (1, 2):
        return ERROR
    text = args[0]
    seps_arg: Value = args[1] if len(args) == 2 else ", \t"
    if not (isinstance(text, str) and isinstance(seps_arg, str)):
        return ERROR
    data, seps = to_bytes(text), set(to_bytes(seps_arg))
    pieces: list[str] = []
    start = 0
    previous = -1  # last non-blank separator seen
    for i, byte in enumerate(data):
        if byte not in seps:
            continue
        if i > start:
            pieces.append(from_bytes(data[start:i]))
        elif byte == previous:
            pieces.append("")  # a doubled non-blank separator delimits an empty piece
        if chr(byte) not in C_SPACE:
            previous = byte
        start = i + 1
    if start < len(data):
        pieces.append(from_bytes(data[start:]))
    return pieces


def _split_at(name: str) -> FunctionImpl:
    """splitUserName / splitSlotName: two strings around the first '@'."""
    user_first = name == "splitusername"

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        if len(args) != 1 or not isinstance(args[0], str):
            return ERROR
        head, at, tail = args[0].partition("@")
        if at:
            return [head, tail]
        return [head, ""] if user_first else ["", head]

    return impl


BUILTINS: dict[str, FunctionImpl] = {
    "strcat": strcat,
    "join": join,
    "substr": substr,
    "toupper": _change_case(upper=True),
    "tolower": _change_case(upper=False),
    "strcmp": _compare_strings(fold=False),
    "stricmp": _compare_strings(fold=True),
    **{name: _version(name) for name in _VERSION_TESTS},
    "version_in_range": version_in_range,
    "split": split,
    "splitusername": _split_at("splitusername"),
    "splitslotname": _split_at("splitslotname"),
}
