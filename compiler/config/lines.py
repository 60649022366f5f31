"""Stage 1 of the configuration reader: physical lines -> logical lines.

HTCondor's reader works on "logical lines": a physical line plus the lines its trailing
backslash pulls in. The rules below are the ones the real reader follows (and that
shared/reference/classad-semantics.md section 12 records), including its quirks:

* trailing whitespace is dropped before looking for the backslash, so `a \\   ` continues;
  whitespace *before* the backslash is kept, the next line's leading whitespace is not;
* a line whose first non-blank character is `#` is a comment; a comment that ends in a
  backslash does not continue;
* a `#` line *inside* a continuation is replaced by its last character: if that is a
  backslash the continuation goes on (the commented-out line vanishes), otherwise the
  statement ends with that one character appended;
* a final line without a newline is taken verbatim (no trimming, no continuation).

Condor 6.x read comments the old way (`old_comments=True`): a comment ending in a
backslash swallowed the next line, and a `#` line inside a continuation was ordinary
text. The 6.2 sample configuration depends on that.

This module only splits text; it does not know about assignments or keywords.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec


class LogicalLine(msgspec.Struct, frozen=True):
    """One statement's text and where it starts.

    `line` is the 1-based number of the first physical line, `column` the 1-based column
    of the first non-blank character in it, `source_line` that physical line's text.
    """

    text: str
    line: int
    column: int
    source_line: str


def _split_physical(text: str) -> list[tuple[str, bool]]:
    """Physical lines with a flag saying whether they ended in a newline."""
    parts = text.split("\n")
    lines = [(part, True) for part in parts[:-1]]
    if parts[-1] != "":
        lines.append((parts[-1], False))
    return lines


def logical_lines(text: str, old_comments: bool = False) -> Iterator[LogicalLine]:
    """Yield the logical lines of `text`, skipping nothing (comments included).

    Comment and blank lines are yielded too (as their trimmed text) so that callers can
    see `#opt:` directives; callers skip them.
    """
    physical = _split_physical(text)
    index = 0
    while index < len(physical):
        raw, has_newline = physical[index]
        start = index
        index += 1
        if not has_newline:
            # The real reader treats an unterminated last line as a partial read and
            # returns it untouched.
            stripped = raw.lstrip()
            yield LogicalLine(raw, start + 1, len(raw) - len(stripped) + 1, raw)
            continue
        segment = raw.strip()
        column = len(raw) - len(raw.lstrip()) + 1
        if (segment.startswith("#") and not old_comments) or not segment.endswith("\\"):
            yield LogicalLine(segment, start + 1, column, raw)
            continue
        buffer = segment[:-1]
        while index < len(physical):
            raw_next, next_has_newline = physical[index]
            index += 1
            if not next_has_newline:
                buffer += raw_next
                break
            piece = raw_next.strip()
            if piece.startswith("#") and not old_comments:
                piece = piece[-1]
            if piece.endswith("\\"):
                buffer += piece[:-1]
                continue
            buffer += piece
            break
        yield LogicalLine(buffer, start + 1, column, raw)
