"""ClassAd builtins converting job argument strings: `argsToList`, `listToArgs`
(evaluation stage).

HTCondor job ads carry arguments in two syntaxes. V1: words separated by blanks, no
quoting at all. V2 (the default, version 2): blanks separate words, a single-quoted
section protects blanks, and inside such a section `''` is one literal quote. Blanks
here are space, tab, newline and carriage return only.
"""

from __future__ import annotations

import re
from typing import Final

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_convert import is_exact_int, wrap32
from compiler.classad.values import ERROR, Value

_BLANKS: Final = " \t\n\r"
_SPECIAL_RUN: Final = re.compile("[ \t\n\r']+")


def _version(args: list[Value]) -> int | None:
    """The syntax version argument (default 2); None when it is not the integer 1 or 2."""
    if len(args) < 2:
        return 2
    v = args[1]
    if not is_exact_int(v) or wrap32(v) not in (1, 2):
        return None
    return wrap32(v)


def split_v2(text: str) -> list[str] | None:
    """Words of a V2 argument string; None for an unterminated quote."""
    words: list[str] = []
    current: list[str] = []
    started = quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted and ch == "'" and text[i + 1 : i + 2] == "'":
            current.append("'")
            i += 2
            continue
        if ch == "'":
            quoted, started = not quoted, True
        elif ch in _BLANKS and not quoted:
            if started:
                words.append("".join(current))
                current, started = [], False
        else:
            current.append(ch)
            started = True
        i += 1
    if quoted:
        return None
    if started:
        words.append("".join(current))
    return words


def args_to_list(args: list[Value], _ctx: FunctionContext) -> Value:
    """`argsToList(s [, version])`: the list of argument words."""
    if len(args) not in (1, 2):
        return ERROR
    version, text = _version(args), args[0]
    if version is None or not isinstance(text, str):
        return ERROR
    if version == 1:
        return [word for word in re.split("[ \t\n\r]+", text) if word]
    words = split_v2(text)
    return ERROR if words is None else words


def quote_v2(word: str) -> str:
    """One word in V2 syntax: each run of blanks and quotes becomes one quoted section
    (quotes doubled inside); an empty word is `''`."""
    if not word:
        return "''"
    return _SPECIAL_RUN.sub(lambda m: "'" + m.group(0).replace("'", "''") + "'", word)


def list_to_args(args: list[Value], _ctx: FunctionContext) -> Value:
    """`listToArgs(list [, version])`: the argument string; every element must be a
    string, and V1 cannot express words containing blanks."""
    if len(args) not in (1, 2):
        return ERROR
    version, words = _version(args), args[0]
    if version is None or not isinstance(words, list | tuple):
        return ERROR
    if not all(isinstance(w, str) for w in words):
        return ERROR
    if version == 1:
        if any(c in _BLANKS for w in words for c in w):
            return ERROR
        text = ""
        for word in words:  # a separating space only once something has been written
            text = f"{text} {word}" if text else word
        return text
    return " ".join(quote_v2(w) for w in words)


BUILTINS: dict[str, FunctionImpl] = {
    "argstolist": args_to_list,
    "listtoargs": list_to_args,
}
