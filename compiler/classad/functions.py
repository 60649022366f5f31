"""The ClassAd builtin function library, as HTCondor daemons see it (evaluation stage).

The evaluator calls `BUILTINS[name.lower()](args, ctx)` with the arguments already
evaluated; a name missing from the table is an unknown function (the evaluator answers
ERROR). `ifThenElse`, `eval` and `unparse` need laziness or the syntax tree, so the
evaluator implements them itself, and so do `evalInEachContext`/`countMatches` (they
evaluate an unevaluated argument inside nested ads; see `functions_context`).

Every behaviour here was probed against HTCondor 25.14.1 in HTCondor mode (see
shared/reference/classad-semantics.md and tests/classad/test_functions*.py). The
implementations live in topic modules:

* `functions_scalar`     type tests, int/real/string/bool, floor/ceiling/round, pow,
                         quantize, time, random, interval, debug
* `functions_strings`    strcat, join, substr, toUpper/toLower, strcmp/stricmp,
                         versioncmp & co, split, splitUserName, splitSlotName
* `functions_lists`      member, identicalMember, anyCompare/allCompare, sum, avg,
                         min, max, size
* `functions_regex`      regexp, regexpMember, regexps, replace, replaceAll
* `functions_stringlist` stringListSize/Sum/Avg/Min/Max/Member/IMember/SubsetMatch/
                         ISubsetMatch, stringListsIntersect, stringList_regexpMember
* `functions_time`       absTime, relTime, currentTime, timeZoneOffset, dayTime,
                         getYear & co, splitTime, formatTime
* `functions_site`       userHome, userMap (no map files: mapping always fails)
* `functions_args`       argsToList, listToArgs
* `functions_env`        envV1ToV2, mergeEnvironment

Support modules: `functions_context` (FunctionContext), `functions_convert` (HTCondor's
conversions and value formatting), `operators` (the value semantics list functions use),
`functions_pcre` (PCRE2 patterns translated to Python `re`).

Values are printed by `compiler.classad.unparse.format_value` (the one value printer).
"""

from __future__ import annotations

from typing import Final

from compiler.classad import (
    functions_args,
    functions_env,
    functions_lists,
    functions_regex,
    functions_scalar,
    functions_site,
    functions_stringlist,
    functions_strings,
    functions_time,
)
from compiler.classad.functions_context import FunctionContext, FunctionImpl, default_context
from compiler.classad.functions_convert import to_integer, to_real, to_string


def _merge(*tables: dict[str, FunctionImpl]) -> dict[str, FunctionImpl]:
    merged: dict[str, FunctionImpl] = {}
    for table in tables:
        clash = merged.keys() & table.keys()
        if clash:
            raise ValueError(f"builtin defined twice: {sorted(clash)}")
        merged.update(table)
    return merged


#: Lower-case function name -> implementation.
BUILTINS: Final[dict[str, FunctionImpl]] = _merge(
    functions_scalar.BUILTINS,
    functions_strings.BUILTINS,
    functions_lists.BUILTINS,
    functions_regex.BUILTINS,
    functions_stringlist.BUILTINS,
    functions_time.BUILTINS,
    functions_site.BUILTINS,
    functions_args.BUILTINS,
    functions_env.BUILTINS,
)

__all__ = [
    "BUILTINS",
    "FunctionContext",
    "FunctionImpl",
    "default_context",
    "to_integer",
    "to_real",
    "to_string",
]
