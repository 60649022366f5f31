"""One exception root for every input problem the compiler reports.

Each error knows where it happened (file, line, column, the source line) so that the
CLI can print `path:line:col: message`, the offending line and a caret, and exit 2
without a traceback. Several problems found in one file travel together in
`PolicyErrors` so that a user sees all of them in one run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec


class PolicyError(Exception):
    """An input problem with an optional position.

    `line` and `column` are 1-based; `source_line` is the text of that line (without
    its newline) and is used to draw a caret under the column.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        source_line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.source_line = source_line

    def location(self) -> str:
        """`file:line:col` with whatever parts are known ("<input>" for no file)."""
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def format(self) -> str:
        """The human form: location, message, and the source line with a caret."""
        text = f"{self.location()}: {self.message}"
        if self.source_line is not None:
            shown = self.source_line.expandtabs(1).rstrip("\n")
            text += "\n    " + shown
            if self.column is not None:
                text += "\n    " + " " * max(0, self.column - 1) + "^"
        return text

    def __str__(self) -> str:
        return self.format()


class PolicyErrors(PolicyError):
    """Several problems reported at once (all the problems of one file)."""

    def __init__(self, errors: Sequence[PolicyError]) -> None:
        if not errors:
            raise ValueError("PolicyErrors needs at least one error")
        first = errors[0]
        super().__init__(
            first.message,
            file=first.file,
            line=first.line,
            column=first.column,
            source_line=first.source_line,
        )
        self.errors: tuple[PolicyError, ...] = tuple(errors)

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)


def raise_all(errors: Iterable[PolicyError]) -> None:
    """Raise nothing for no errors, the error itself for one, `PolicyErrors` for more."""
    found = list(errors)
    if len(found) == 1:
        raise found[0]
    if found:
        raise PolicyErrors(found)


class Span(msgspec.Struct, frozen=True):
    """Where a piece of text came from: 1-based line/column of start and end.

    Kept out of AST equality (a node compares every field but its last, `span`) so that
    reparsed text compares equal to the original.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    start_pos: int = 0
    end_pos: int = 0


def close_matches(
    word: str, possibilities: Iterable[str], n: int = 3, cutoff: float = 0.6
) -> list[str]:
    """`difflib.get_close_matches`, the "did you mean" of every message, with difflib
    imported only when a message needs it (not on the path of a run without mistakes)."""
    from difflib import get_close_matches

    return get_close_matches(word, list(possibilities), n=n, cutoff=cutoff)
