"""ClassAd builtins converting job environment strings: `envV1ToV2`,
`mergeEnvironment` (evaluation stage).

An environment is a set of NAME=VALUE entries. V1 strings separate entries with `;`
(or with `^` when the string starts with `^`) and with newlines, and skip spaces, tabs and carriage returns at the
start of an entry. V2 strings use the argument syntax of `functions_args` (blanks
separate entries, single quotes protect them). Results are V2 strings with the entries
sorted by name (byte order); a later entry for a name replaces an earlier one.
"""

from __future__ import annotations

import re

from compiler.classad.functions_args import quote_v2, split_v2
from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.values import ERROR, UNDEFINED, Value, to_bytes

Environment = dict[str, str]


def _add(env: Environment, entry: str) -> bool:
    """Add one NAME=VALUE entry; False if it has no '=' or an empty name."""
    name, equals, value = entry.partition("=")
    if not equals or not name:
        return False
    env[name] = value
    return True


def _merge_v1(env: Environment, text: str) -> bool:
    delimiter = ";"
    if text.startswith("^"):
        delimiter, text = "^", text[1:]
    for entry in re.split(f"[{re.escape(delimiter)}\n]", text):
        entry = entry.lstrip(" \t\r")
        if entry and not _add(env, entry):
            return False
    return True


def _merge_v2(env: Environment, text: str) -> bool:
    words = split_v2(text)
    return words is not None and all(_add(env, word) for word in words)


def _v2_text(env: Environment) -> str:
    return " ".join(quote_v2(f"{n}={env[n]}") for n in sorted(env, key=to_bytes))


def env_v1_to_v2(args: list[Value], _ctx: FunctionContext) -> Value:
    """`envV1ToV2(s)`: the V1 environment string in V2 syntax; UNDEFINED stays."""
    if len(args) != 1:
        return ERROR
    (text,) = args
    if text is UNDEFINED:
        return UNDEFINED
    env: Environment = {}
    if not isinstance(text, str) or not _merge_v1(env, text):
        return ERROR
    return _v2_text(env)


def merge_environment(args: list[Value], _ctx: FunctionContext) -> Value:
    """`mergeEnvironment(s1, s2, ...)`: V2 strings merged left to right (UNDEFINED
    arguments skipped)."""
    env: Environment = {}
    for text in args:
        if text is UNDEFINED:
            continue
        if not isinstance(text, str) or not _merge_v2(env, text):
            return ERROR
    return _v2_text(env)


BUILTINS: dict[str, FunctionImpl] = {
    "envv1tov2": env_v1_to_v2,
    "mergeenvironment": merge_environment,
}
