"""The word splitter of HTCondor's transform statements (stage: text -> tokens).

src/condor_utils/tokener.cpp `tokener::next` / `tokener::copy_regex` (23.0): tokens are
separated by blanks, tabs, CR and LF; a token starting with `"` or `'` runs to the next
same quote (the quotes are not part of it); a regular expression `/.../` runs to the next
`/` and may be followed, with no blank between, by the flags `g`, `m`, `i`, `U` (another
letter makes it invalid).
"""

from __future__ import annotations

from dataclasses import dataclass

_SEPARATORS = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Token:
    """`text` of a token starting at `start` (0-based, the opening quote's position for
    a quoted token); `end` is where the next search starts."""

    text: str
    start: int
    end: int
    quote: str = ""


def next_token(line: str, position: int) -> Token | None:
    """The token at or after `position`, None at the end of the line."""
    start = position
    while start < len(line) and line[start] in _SEPARATORS:
        start += 1
    if start >= len(line):
        return None
    if line[start] in "\"'":
        quote = line[start]
        close = line.find(quote, start + 1)
        if close < 0:
            return Token(line[start + 1 :], start, len(line), quote)
        return Token(line[start + 1 : close], start, close + 1, quote)
    end = start
    while end < len(line) and line[end] not in _SEPARATORS:
        end += 1
    return Token(line[start:end], start, end)


@dataclass(frozen=True, slots=True)
class Regex:
    """A `/pattern/flags` token: `pattern` between the slashes, `flags` after them."""

    pattern: str
    flags: str
    end: int


def read_regex(line: str, start: int) -> Regex | None:
    """`tokener::copy_regex` at `start` (a `/`): None when the closing `/` is missing or
    a flag is not one of g, m, i, U."""
    close = line.find("/", start + 1)
    if close < 0:
        return None
    end = close + 1
    while end < len(line) and line[end] not in _SEPARATORS:
        end += 1
    flags = line[close + 1 : end]
    if any(flag not in "gmiU" for flag in flags):
        return None
    return Regex(line[start + 1 : close], flags, end)
