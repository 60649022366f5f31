"""ClassAd regular-expression builtins: `regexp`, `regexpMember`, `regexps`,
`replace`, `replaceAll` (evaluation stage).

Patterns are PCRE2, translated by `compiler.classad.functions_pcre`. Option letters are the
lower-case `i m s x` (HTCondor ignores `I`, ...); `regexps` also takes `f` (keep the
whole target, replacing in place) and `g` (all matches); `replace` = `regexps` with
`f`, `replaceAll` with `fg`. A pattern PCRE rejects, or that we cannot translate
(`functions_pcre.Unsupported`), gives ERROR.
"""

from __future__ import annotations

import re

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.functions_pcre import (
    Compiled,
    Options,
    PatternError,
    Unsupported,
    compile_pattern,
)
from compiler.classad.values import ERROR, UNDEFINED, Value, from_bytes, to_bytes


def options_from(letters: str, upper_too: bool = False) -> Options:
    """PCRE options from an option string (`upper_too` for HTCondor's own Regex
    class, used by `stringList_regexpMember`, which also accepts `I M S X`)."""
    text = letters.lower() if upper_too else letters
    return Options(
        caseless="i" in text, multiline="m" in text, dotall="s" in text, extended="x" in text
    )


def compiled(pattern: str, options: Options) -> Compiled | None:
    """The compiled pattern, or None when HTCondor would fail to compile it (or we
    cannot express it)."""
    try:
        return compile_pattern(to_bytes(pattern), options)
    except (PatternError, Unsupported):
        return None


def _check(args: list[Value], fixed: int) -> Value | None:
    """HTCondor's argument checks for the regexp family: ERROR in any argument wins,
    then UNDEFINED; the options argument (after `fixed` ones) must be a string."""
    if len(args) not in (fixed, fixed + 1):
        return ERROR
    if any(a is ERROR for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if len(args) > fixed and not isinstance(args[fixed], str):
        return ERROR
    return None


def regexp(args: list[Value], _ctx: FunctionContext) -> Value:
    """`regexp(pattern, target [, options])`: does the pattern occur in target?"""
    early = _check(args, 2)
    if early is not None:
        return early
    pattern, target = args[0], args[1]
    if not (isinstance(pattern, str) and isinstance(target, str)):
        return ERROR
    regex = compiled(pattern, options_from(args[2] if len(args) == 3 else ""))
    if regex is None:
        return ERROR
    return regex.regex.search(to_bytes(target)) is not None


def regexp_member(args: list[Value], _ctx: FunctionContext) -> Value:
    """`regexpMember(pattern, list [, options])`: TRUE if some string element matches.

    Elements are scanned in order: a match gives TRUE, a non-string element that is not
    UNDEFINED gives ERROR; otherwise UNDEFINED if an element was UNDEFINED, else FALSE.
    A bad pattern matches nothing (HTCondor discards the per-element ERROR).
    """
    early = _check(args, 2)
    if early is not None:
        return early
    pattern, values = args[0], args[1]
    if not (isinstance(pattern, str) and isinstance(values, list | tuple)):
        return ERROR
    regex = compiled(pattern, options_from(args[2] if len(args) == 3 else ""))
    could_be_undefined = False
    for element in values:
        if element is UNDEFINED:
            could_be_undefined = True
        elif not isinstance(element, str):
            return ERROR
        elif regex is not None and regex.regex.search(to_bytes(element)):
            return True
    return UNDEFINED if could_be_undefined else False


def _highest_group(match: re.Match[bytes]) -> int:
    """Index of the highest-numbered group that took part in the match."""
    for index in range(match.re.groups, 0, -1):
        if match.start(index) != -1:
            return index
    return 0


def _expand(template: bytes, match: re.Match[bytes]) -> bytes | None:
    """The replacement text: `\\0`..`\\9` are groups; a reference past the highest
    participating group is an error (None); a group that did not take part is ""."""
    limit = _highest_group(match)
    out = bytearray()
    i = 0
    while i < len(template):
        byte = template[i]
        if byte == 0x5C and i + 1 < len(template) and 0x30 <= template[i + 1] <= 0x39:
            group = template[i + 1] - 0x30
            if group > limit:
                return None
            out += match.group(group) or b""
            i += 2
            continue
        out.append(byte)
        i += 1
    return bytes(out)


def substitute(
    pattern: Compiled, target: bytes, template: bytes, whole: bool, every: bool
) -> bytes | None:
    """HTCondor's substitution loop (`regexp_helper`); None means ERROR.

    Without `whole` the result is only the replacement text(s). With `every`, once a
    match has been empty every later attempt is anchored and must be non-empty; when
    one fails, one character is copied (even without `whole`) and plain searching
    resumes. Failing that at the very end of the string makes HTCondor step past it,
    which is an ERROR.
    """
    out = bytearray()
    position = 0
    after_empty = False
    while True:
        if after_empty:
            match = pattern.match_nonempty_at(target, position)
            if match is None:
                if position >= len(target):
                    return None
                out += target[position : position + 1]
                position += 1
                after_empty = False
                continue
        else:
            match = pattern.regex.search(target, position)
            if match is None:
                break
        if whole:
            out += target[position : match.start()]
        replacement = _expand(template, match)
        if replacement is None:
            return None
        out += replacement
        position = match.end()
        after_empty = after_empty or match.start() == match.end()
        if not every:
            break
    if whole:
        out += target[position:]
    return bytes(out)


def _substitution(extra: str) -> FunctionImpl:
    """regexps (`extra` = ""), replace ("f"), replaceAll ("fg")."""

    def impl(args: list[Value], _ctx: FunctionContext) -> Value:
        early = _check(args, 3)
        if early is not None:
            return early
        pattern, target, template = args[0], args[1], args[2]
        if not all(isinstance(a, str) for a in (pattern, target, template)):
            return ERROR
        letters = (args[3] if len(args) == 4 else "") + extra
        regex = compiled(pattern, options_from(letters))
        if regex is None:
            return ERROR
        result = substitute(
            regex, to_bytes(target), to_bytes(template), whole="f" in letters, every="g" in letters
        )
        return ERROR if result is None else from_bytes(result)

    return impl


BUILTINS: dict[str, FunctionImpl] = {
    "regexp": regexp,
    "regexpmember": regexp_member,
    "regexps": _substitution(""),
    "replace": _substitution("f"),
    "replaceall": _substitution("fg"),
}
