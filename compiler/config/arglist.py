"""The argument list of an `include : COMMAND |` line, split as HTCondor splits it.

Stage: compiler.config, used by the reader before it runs a configuration command. HTCondor
hands the command text to its ArgList class (src/condor_utils/condor_arglist.cpp,
`ArgList::AppendArgsV1RawOrV2Quoted`), not to a shell, so shell quoting means nothing:

* V1 raw (the text does not start with a double quote, leading white space aside): the
  words separated by space, tab, newline or carriage return; quotes of either kind are
  ordinary characters (`/bin/echo "A = 1"` passes `"A`, `=` and `1"`);
* V2 quoted (it does): the text inside the outer double quotes, where `""` is a literal
  double quote and only white space may follow the closing quote
  (`ArgList::V2QuotedToV2Raw`); the result is split on the same white space, single
  quotes group words and `''` inside them is a literal single quote (`split_args`).
"""

from __future__ import annotations

import re

#: The separators of both syntaxes (AppendArgsV1Raw_unix and split_args).
_SEPARATORS = " \t\n\r"
#: What C's isspace() skips before and after a V2 quoted string.
_C_SPACE = " \t\n\v\f\r"


class ArgListError(ValueError):
    """The command text is not a valid V2 quoted argument list (HTCondor refuses it)."""


def split_command(text: str) -> list[str]:
    """The program and its arguments, as HTCondor's ArgList reads `text`."""
    stripped = text.lstrip(_C_SPACE)
    if not stripped.startswith('"'):
        return [word for word in re.split(f"[{_SEPARATORS}]+", text) if word]
    return _split_v2_raw(_v2_raw(stripped))


def _v2_raw(quoted: str) -> str:
    out: list[str] = []
    i = 1
    while i < len(quoted):
        char = quoted[i]
        if char != '"':
            out.append(char)
            i += 1
            continue
        if quoted[i + 1 : i + 2] == '"':
            out.append('"')
            i += 2
            continue
        rest = quoted[i + 1 :]
        if rest.strip(_C_SPACE):
            raise ArgListError(
                "unexpected characters following double-quote (repeat a double quote to "
                f"escape it): {quoted[i:]}"
            )
        return "".join(out)
    raise ArgListError("unterminated double-quote")


def _split_v2_raw(raw: str) -> list[str]:
    words: list[str] = []
    word: list[str] = []
    started = False
    i = 0
    while i < len(raw):
        char = raw[i]
        if char in _SEPARATORS:
            if started:
                words.append("".join(word))
                word, started = [], False
            i += 1
        elif char == "'":
            started = True
            start = i
            i += 1
            while True:
                if i >= len(raw):
                    raise ArgListError(f"unbalanced quote starting here: {raw[start:]}")
                if raw[i] == "'":
                    if raw[i + 1 : i + 2] == "'":
                        word.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                word.append(raw[i])
                i += 1
        else:
            started = True
            word.append(char)
            i += 1
    if started:
        words.append("".join(word))
    return words
