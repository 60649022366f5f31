"""Translate PCRE2 patterns (as HTCondor's `regexp` family uses them) to Python `re`.

Stage: evaluation support. HTCondor compiles patterns with PCRE2 in byte (non-UTF)
mode; we compile the translation as a *bytes* pattern, which gives the same ASCII-only
`\\w \\d \\s` and case folding. What differs, and is rewritten here:

* `\\Z` (end or before a final newline) / `\\z` (very end); `\\Q...\\E` quoting;
  `\\x{hh}`, `\\o{ooo}`, `\\e`, `\\cX`; `\\h \\H \\v \\V \\R \\N`; `\\p{..}`/`\\P{..}`
  (general categories, evaluated on the Latin-1 reading of each byte, as PCRE does);
  POSIX classes `[[:alpha:]]`; named groups `(?<n>..)`, `(?'n'..)`, `\\k<n>`,
  `\\g{n}`/`\\g{-n}`; a `{` that is not a quantifier is a literal (`a{,2}`).
* Character classes are rebuilt item by item with hex escapes, so Python never sees
  its own nested-set syntax.

Constructs Python cannot express (recursion, branch reset, `\\K`, backtracking verbs,
`(?U)`, `(?J)`, ...) raise
`Unsupported`; callers turn that into ERROR. `PatternError` means PCRE itself would
reject the pattern.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final


class PatternError(Exception):
    """The pattern is invalid for PCRE2 (HTCondor answers ERROR)."""


class Unsupported(Exception):
    """Valid PCRE2 that has no Python `re` equivalent here."""


_MAX_REPEAT: Final = 65535
C_WS: Final = " \t\n\v\f\r"

_POSIX: Final[dict[str, bytes]] = {
    "alpha": bytes(range(65, 91)) + bytes(range(97, 123)),
    "digit": bytes(range(48, 58)),
    "alnum": bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123)),
    "upper": bytes(range(65, 91)),
    "lower": bytes(range(97, 123)),
    "space": b" \t\n\v\f\r",
    "blank": b" \t",
    "punct": bytes(b for b in range(33, 127) if not chr(b).isalnum()),
    "print": bytes(range(32, 127)),
    "graph": bytes(range(33, 127)),
    "cntrl": bytes(range(0, 32)) + b"\x7f",
    "xdigit": b"0123456789abcdefABCDEF",
    "word": bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123)) + b"_",
    "ascii": bytes(range(128)),
}

_HSPACE: Final = b"\t \xa0"
_VSPACE: Final = b"\n\x0b\x0c\r\x85"
_ALL: Final = frozenset(range(256))


def _category_bytes(name: str) -> bytes:
    """Bytes whose Latin-1 character has Unicode general category `name` (`L`, `Lu`,
    `L&`, `Any`, ...)."""
    if name == "Any":
        return bytes(range(256))
    if name in ("L&", "LC"):
        wanted = {"Lu", "Ll", "Lt"}
        return bytes(b for b in range(256) if unicodedata.category(chr(b)) in wanted)
    if len(name) in (1, 2) and name[0] in "CLMNPSZ":
        return bytes(b for b in range(256) if unicodedata.category(chr(b)).startswith(name))
    raise Unsupported(f"unicode property {name}")


def _hex(b: int) -> bytes:
    return b"\\x%02x" % b


def _set_text(members: bytes | frozenset[int]) -> bytes:
    return b"".join(_hex(b) for b in sorted(set(members)))


@dataclass(slots=True)
class _Frame:
    """One open group of the pattern being translated."""

    # Inline-flag settings (`i`, `-s`, ...) met at this level, each rendered as a
    # scoped group that is closed before the group's ')' and reopened after every '|'
    # (PCRE applies them to the later alternatives too).
    flags: list[bytes] = field(default_factory=list)
    # For a lookbehind: '=' or '!', where its body starts in the output, and where its
    # top-level alternatives start (PCRE allows alternatives of different lengths).
    lookbehind: str = ""
    body_start: int = 0
    alternatives: list[int] = field(default_factory=list)
    # Extended mode (option x) as it was outside this group, restored at its ')'.
    outer_extended: bool = False


@dataclass(slots=True)
class _State:
    """Translation state for one pattern."""

    src: bytes
    pos: int = 0
    extended: bool = False
    groups: int = 0
    out: list[bytes] = field(default_factory=list)
    frames: list[_Frame] = field(default_factory=lambda: [_Frame()])

    def peek(self, k: int = 0) -> int:
        i = self.pos + k
        return self.src[i] if i < len(self.src) else -1

    def startswith(self, text: bytes) -> bool:
        return self.src.startswith(text, self.pos)


def _read_until(st: _State, end: bytes) -> bytes:
    close = st.src.find(end, st.pos)
    if close < 0:
        raise PatternError("unterminated construct")
    body = st.src[st.pos : close]
    st.pos = close + len(end)
    return body


def _read_braced_number(st: _State, base: int) -> int:
    body = _read_until(st, b"}")
    try:
        return int(body, base)
    except ValueError as exc:
        raise PatternError("bad number in braces") from exc


def _escape_char(st: _State, in_class: bool) -> bytes | int | frozenset[int]:
    """Consume an escape after the backslash. Returns a byte value for a single
    character, a set of bytes for a class escape we expand (`\\h`, `\\p{L}`, ...), or
    Python pattern text (`\\d`) that means the same inside and outside classes."""
    c = st.peek()
    if c < 0:
        raise PatternError("trailing backslash")
    ch = chr(c)
    st.pos += 1
    match ch:
        case "x":
            if st.peek() == ord("{"):
                st.pos += 1
                value = _read_braced_number(st, 16)
            else:
                digits = b""
                while (
                    len(digits) < 2
                    and st.peek() >= 0
                    and chr(st.peek()) in "0123456789abcdefABCDEF"
                ):
                    digits += bytes([st.peek()])
                    st.pos += 1
                value = int(digits, 16) if digits else 0
            if value > 255:
                raise PatternError("character code too large in byte mode")
            return value
        case "o":
            if st.peek() != ord("{"):
                raise PatternError("\\o needs braces")
            st.pos += 1
            value = _read_braced_number(st, 8)
            if value > 255:
                raise PatternError("character code too large in byte mode")
            return value
        case "e":
            return 0x1B
        case "a":
            return 0x07
        case "f":
            return 0x0C
        case "n":
            return 0x0A
        case "r":
            return 0x0D
        case "t":
            return 0x09
        case "c":
            if st.peek() < 0 or st.peek() > 127:
                raise PatternError("bad \\c")
            value = ord(chr(st.peek()).upper()) ^ 0x40
            st.pos += 1
            return value
        case "d" | "D" | "w" | "W" | "s" | "S":
            return b"\\" + ch.encode()
        case "h":
            return frozenset(_HSPACE)
        case "H":
            return _ALL - set(_HSPACE)
        case "v":
            return frozenset(_VSPACE)
        case "V":
            return _ALL - set(_VSPACE)
        case "p" | "P":
            if st.peek() == ord("{"):
                st.pos += 1
                name = _read_until(st, b"}").decode("latin-1")
            else:
                if st.peek() < 0:
                    raise PatternError("bad \\p")
                name = chr(st.peek())
                st.pos += 1
            negate = ch == "P"
            if name.startswith("^"):
                negate, name = not negate, name[1:]
            members = _category_bytes(name)
            return _ALL - set(members) if negate else frozenset(members)
        case "b" if in_class:
            return 0x08
        case _ if ch in "0123456789" and in_class:
            return _octal(st, ch)
        case _ if ch.isascii() and ch.isalnum():
            raise PatternError(f"escape \\{ch} is not valid here")
        case _:
            return c


def _octal(st: _State, first: str) -> int:
    digits = first
    while len(digits) < 3 and st.peek() >= 0 and chr(st.peek()) in "01234567":
        digits += chr(st.peek())
        st.pos += 1
    if any(d not in "01234567" for d in digits):
        raise PatternError("bad octal escape")
    value = int(digits, 8)
    if value > 255:
        raise PatternError("octal value too large")
    return value


def _class(st: _State) -> bytes:
    """Translate a character class; `st.pos` is just after '['."""
    negate = st.peek() == ord("^")
    if negate:
        st.pos += 1
    items: list[bytes] = []
    previous: int | None = None  # last single byte, a possible range start
    first = True
    while True:
        c = st.peek()
        if c < 0:
            raise PatternError("missing ]")
        if c == ord("]") and not first:
            st.pos += 1
            break
        first = False
        if c == ord("[") and st.peek(1) == ord(":"):
            close = st.src.find(b":]", st.pos + 2)
            if close < 0:
                raise PatternError("bad POSIX class")
            name = st.src[st.pos + 2 : close].decode("latin-1")
            st.pos = close + 2
            neg = name.startswith("^")
            if name.lstrip("^") not in _POSIX:
                raise PatternError(f"unknown POSIX class {name}")
            members = _POSIX[name.lstrip("^")]
            items.append(_set_text(_ALL - set(members) if neg else frozenset(members)))
            previous = None
            continue
        if c == ord("[") and st.peek(1) in (ord("."), ord("=")):
            raise PatternError("POSIX collating elements are not supported")
        if st.startswith(b"\\Q"):
            st.pos += 2
            end = st.src.find(b"\\E", st.pos)
            literal = st.src[st.pos :] if end < 0 else st.src[st.pos : end]
            st.pos = len(st.src) if end < 0 else end + 2
            for b in literal:
                items.append(_hex(b))
                previous = b
            continue
        if st.startswith(b"\\E"):
            st.pos += 2
            continue
        st.pos += 1
        value = _escape_char(st, in_class=True) if c == ord("\\") else c
        if isinstance(value, bytes | frozenset):
            items.append(value if isinstance(value, bytes) else _set_text(value))
            previous = None
            continue
        if value == ord("-") and c != ord("\\") and previous is not None and st.peek() != ord("]"):
            hi = _range_end(st)
            if hi is None:
                raise PatternError("invalid range in class")
            if hi < previous:
                raise PatternError("range out of order")
            items[-1] = _hex(previous) + b"-" + _hex(hi)
            previous = None
            continue
        items.append(_hex(value))
        previous = value
    return b"[" + (b"^" if negate else b"") + b"".join(items) + b"]"


def _range_end(st: _State) -> int | None:
    c = st.peek()
    st.pos += 1
    if c != ord("\\"):
        return c
    value = _escape_char(st, in_class=True)
    return value if isinstance(value, int) else None


_QUANT_RE: Final = re.compile(rb"\{(\d+)(,(\d*))?\}")
_NAME_RE: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _group(st: _State) -> bytes:
    """Translate the opening of a group; `st.pos` is just after '('."""
    if st.peek() == ord("*"):
        raise Unsupported("backtracking control verbs")
    if st.peek() != ord("?"):
        st.groups += 1
        st.frames.append(_Frame(outer_extended=st.extended))
        return b"("
    st.pos += 1
    for opener, close in ((b"<", b">"), (b"'", b"'"), (b"P<", b">")):
        if st.startswith(opener) and not st.startswith(b"<=") and not st.startswith(b"<!"):
            st.pos += len(opener)
            name = _read_until(st, close)
            if not _NAME_RE.fullmatch(name):
                raise PatternError("bad group name")
            st.groups += 1
            st.frames.append(_Frame(outer_extended=st.extended))
            return b"(?P<" + name + b">"
    if st.startswith(b"P="):
        st.pos += 2
        return b"(?P=" + _read_until(st, b")") + b")"
    if st.peek() == ord("#"):
        _read_until(st, b")")
        return b""
    simple = {
        b":": b"(?:",
        b"=": b"(?=",
        b"!": b"(?!",
        b"<=": b"(?<=",
        b"<!": b"(?<!",
        b">": b"(?>",
    }
    for opener, text in simple.items():
        if st.startswith(opener):
            st.pos += len(opener)
            kind = opener.decode()[1:] if opener.startswith(b"<") else ""
            st.frames.append(
                _Frame(lookbehind=kind, body_start=len(st.out) + 1, outer_extended=st.extended)
            )
            return text
    m = re.compile(rb"([imsxn]*)(?:-([imsx]*))?([:)])").match(st.src, st.pos)
    if m is None or b"n" in m.group(1):
        raise Unsupported("group construct")
    st.pos = m.end()
    on, off = m.group(1), m.group(2) or b""
    if m.group(3) == b":":
        st.frames.append(_Frame(outer_extended=st.extended))
    if b"x" in on:
        st.extended = True  # we strip blanks and comments ourselves (see `translate`)
    if b"x" in off:
        st.extended = False
    on, off = on.replace(b"x", b""), off.replace(b"x", b"")
    flags = on + (b"-" + off if off else b"")
    if m.group(3) == b":":
        return b"(?" + flags + b":" if flags else b"(?:"
    if not flags:
        return b""
    st.frames[-1].flags.append(flags)  # scope the flags to the rest of the enclosing group
    return b"(?" + flags + b":"


def _close_scoped(st: _State) -> bytes:
    return b")" * len(st.frames[-1].flags)


def _close_group(st: _State) -> None:
    """Emit the ')' of the innermost group. A lookbehind with alternatives becomes one
    lookbehind per alternative: PCRE lets alternatives differ in length, Python wants
    each lookbehind of one fixed width."""
    frame = st.frames.pop()
    st.extended = frame.outer_extended
    st.out.append(b")" * len(frame.flags))
    if not (frame.lookbehind and frame.alternatives):
        st.out.append(b")")
        return
    opener = b"(?<" + frame.lookbehind.encode()
    starts = [frame.body_start] + [i + 1 for i in frame.alternatives]
    ends = [*frame.alternatives, len(st.out)]
    pieces = [opener + b"".join(st.out[b:e]) + b")" for b, e in zip(starts, ends, strict=True)]
    del st.out[frame.body_start - 1 :]
    if frame.lookbehind == "=":
        st.out.append(b"(?:" + b"|".join(pieces) + b")")
    else:
        st.out.append(b"".join(pieces))


def translate(pattern: bytes, extended: bool = False) -> bytes:
    """The Python `re` (bytes) equivalent of a PCRE2 pattern."""
    st = _State(pattern, extended=extended)
    while st.pos < len(st.src):
        c = st.src[st.pos]
        ch = chr(c)
        st.pos += 1
        if st.extended and ch == "#":
            end = st.src.find(b"\n", st.pos)
            st.pos = len(st.src) if end < 0 else end + 1
            continue
        if st.extended and ch in C_WS:
            continue
        match ch:
            case "\\":
                st.out.append(_outside_escape(st))
            case "[":
                st.out.append(_class(st))
            case "(":
                st.out.append(_group(st))
            case ")":
                if len(st.frames) == 1:
                    raise PatternError("unmatched )")
                _close_group(st)
            case "|":
                frame = st.frames[-1]
                st.out.append(_close_scoped(st))
                if frame.lookbehind:
                    frame.alternatives.append(len(st.out))
                st.out.append(b"|")
                st.out.append(b"".join(b"(?" + f + b":" for f in frame.flags))
            case "{":
                m = _QUANT_RE.match(st.src, st.pos - 1)
                if m is None:
                    st.out.append(b"\\{")
                    continue
                numbers = [int(n) for n in (m.group(1), m.group(3)) if n]
                if any(n > _MAX_REPEAT for n in numbers):
                    raise PatternError("number too big in quantifier")
                st.pos = m.end()
                st.out.append(m.group(0))
            case _ if c >= 0x80 or ch in "}]":
                st.out.append(_hex(c))
            case _:
                st.out.append(bytes([c]))
    if len(st.frames) != 1:
        raise PatternError("missing )")
    st.out.append(_close_scoped(st))
    return b"".join(st.out)


def _outside_escape(st: _State) -> bytes:
    """An escape outside a character class, as Python pattern text."""
    c = st.peek()
    if c < 0:
        raise PatternError("trailing backslash")
    ch = chr(c)
    simple = {
        "z": b"\\Z",
        "Z": b"(?=\\n?\\Z)",
        "A": b"\\A",
        "G": b"\\A",
        "b": b"\\b",
        "B": b"(?!\\b)",
    }
    if ch in simple:
        st.pos += 1
        return simple[ch]
    if ch == "Q":
        st.pos += 1
        end = st.src.find(b"\\E", st.pos)
        literal = st.src[st.pos :] if end < 0 else st.src[st.pos : end]
        st.pos = len(st.src) if end < 0 else end + 2
        return b"".join(_hex(b) for b in literal)
    if ch == "E":
        st.pos += 1
        return b""
    if ch == "N" and st.peek(1) != ord("{"):
        st.pos += 1
        return b"[^\\n]"
    if ch == "R":
        st.pos += 1
        return b"(?>\\r\\n|[" + _set_text(_VSPACE) + b"])"
    if ch == "C":
        st.pos += 1
        return b"(?s:.)"
    if ch in "gk":
        return _backreference(st)
    if ch in "0123456789":
        return _numeric_escape(st)
    if ch in "KXN":
        raise Unsupported(f"\\{ch}")
    value = _escape_char(st, in_class=False)
    if isinstance(value, frozenset):
        return b"[" + _set_text(value) + b"]" if value else b"(?!)"
    return value if isinstance(value, bytes) else _hex(value)


def _numeric_escape(st: _State) -> bytes:
    """`\\0`, `\\012` (octal) or `\\1`.. (back reference), by PCRE's rules."""
    digits = re.compile(rb"\d+").match(st.src, st.pos)
    assert digits is not None
    text = digits.group(0).decode()
    if text[0] != "0":
        number = int(text)
        if number < 10 or number <= st.groups:
            st.pos = digits.end()
            return b"(?:\\%d)" % number
        if text[0] in "89":
            raise PatternError("reference to a non-existent group")
    st.pos += 1
    return _hex(_octal(st, text[0]))


def _backreference(st: _State) -> bytes:
    kind = chr(st.peek())
    st.pos += 1
    if kind == "k" or (kind == "g" and st.peek() in (ord("<"), ord("'"))):
        close = {ord("<"): b">", ord("'"): b"'", ord("{"): b"}"}.get(st.peek())
        if close is None:
            raise PatternError("bad \\k")
        st.pos += 1
        name = _read_until(st, close)
        if name.isdigit():
            raise Unsupported("subroutine call")
        return b"(?P=" + name + b")"
    if st.peek() == ord("{"):
        st.pos += 1
        ref = _read_until(st, b"}")
    else:
        m = re.compile(rb"-?\d+").match(st.src, st.pos)
        if m is None:
            raise PatternError("bad \\g")
        ref = m.group(0)
        st.pos = m.end()
    if _NAME_RE.fullmatch(ref):
        return b"(?P=" + ref + b")"
    try:
        number = int(ref)
    except ValueError as exc:
        raise PatternError("bad \\g") from exc
    if number < 0:
        number = st.groups + 1 + number
    if number <= 0:
        raise PatternError("bad group reference")
    return b"(?:\\%d)" % number


@dataclass(frozen=True, slots=True)
class Options:
    """The PCRE option letters HTCondor honours (others are ignored)."""

    caseless: bool = False
    multiline: bool = False
    dotall: bool = False
    extended: bool = False


@dataclass(frozen=True, slots=True)
class Compiled:
    """A translated pattern, plus a variant that prefers the empty match.

    `empty_first` is `(?:)|(?:pattern)`: `finditer` on it yields the empty match at a
    position and then, since Python refuses a second empty match at the same place,
    the first *non-empty* match of the pattern there — PCRE's NOTEMPTY_ATSTART.
    """

    regex: re.Pattern[bytes]
    empty_first: re.Pattern[bytes]

    def match_nonempty_at(self, target: bytes, position: int) -> re.Match[bytes] | None:
        """The first non-empty match starting exactly at `position`, if any."""
        matches = self.empty_first.finditer(target, position)
        next(matches, None)  # the empty alternative, at `position`
        found = next(matches, None)
        if found is None or found.start() != position or found.end() == position:
            return None
        return found


@lru_cache(maxsize=512)
def compile_pattern(pattern: bytes, options: Options) -> Compiled:
    """Compile a PCRE2 pattern; raises PatternError or Unsupported."""
    flags = 0
    flags |= re.IGNORECASE if options.caseless else 0
    flags |= re.MULTILINE if options.multiline else 0
    flags |= re.DOTALL if options.dotall else 0
    text = translate(pattern, extended=options.extended)
    try:
        return Compiled(re.compile(text, flags), re.compile(b"(?:)|(?:" + text + b")", flags))
    except re.error as exc:
        raise PatternError(str(exc)) from exc
    except (OverflowError, RecursionError) as exc:  # pragma: no cover - defensive
        raise Unsupported(str(exc)) from exc
