"""The ClassAd expression language, exactly as HTCondor daemons evaluate it.

Public API (DESIGN.md): `parse`, `unparse`, `evaluate`, `compile_expr`, `UNDEFINED`,
`ERROR`, `ClassAdSyntaxError`; also `ClassAd` (a case-insensitive ad), `load_ad` /
`load_ads` (long form, new syntax, JSON), `symmetric_match` / `requirements_met` /
`rank` (matchmaking), `format_value` (a value printed as HTCondor prints it) and
`call_deep` (run a walk over deeply nested values without a RecursionError) and
`function_context` (the builtin functions' context, its clock fixed at a given instant:
what a caller passes as `ctx` to evaluate many expressions at one simulated time).
Many ads at once (a pool's slots): `Columns` and `compile_columns` (one expression over
every ad, column-wise), and for matchmaking one ad against them `symmetric_matches`,
`requirements_accept`, `rows_accept`, `of_other` (an expression of the one ad against
each of them) and `own_expression`; `evaluate_attribute` (an attribute of an ad); `truth`
(what `&&`, `||`, `!` and `?:` make of an operand); `PLAIN_TYPES` (the Python values an
ad stores that are their own value).
"""

from typing import TYPE_CHECKING, Any

# Imported now, not on first use: `unparse` is also the name of its module, which becomes
# an attribute of this package when imported and would hide the function.
from compiler.classad.unparse import format_value, unparse

if TYPE_CHECKING:
    from compiler.classad.ads import load_ad, load_ads
    from compiler.classad.columns import Columns, compile_columns
    from compiler.classad.compile import CompiledExpr, compile_expr
    from compiler.classad.deep import call_deep
    from compiler.classad.errors import ClassAdSyntaxError
    from compiler.classad.evaluator import evaluate, function_context
    from compiler.classad.match import (
        evaluate_attribute,
        rank,
        rank_value,
        requirements_met,
        symmetric_match,
    )
    from compiler.classad.match_columns import (
        of_other,
        own_expression,
        requirements_accept,
        rows_accept,
        symmetric_matches,
    )
    from compiler.classad.operators import truth
    from compiler.classad.parser import parse
    from compiler.classad.scope import ClassAd, release_retired
    from compiler.classad.values import ERROR, PLAIN_TYPES, UNDEFINED, AbsTime, RelTime, to_bytes

__all__ = [
    "ERROR",
    "PLAIN_TYPES",
    "UNDEFINED",
    "AbsTime",
    "ClassAd",
    "ClassAdSyntaxError",
    "Columns",
    "CompiledExpr",
    "RelTime",
    "call_deep",
    "compile_columns",
    "compile_expr",
    "evaluate",
    "evaluate_attribute",
    "format_value",
    "function_context",
    "load_ad",
    "load_ads",
    "of_other",
    "own_expression",
    "parse",
    "rank",
    "rank_value",
    "release_retired",
    "requirements_accept",
    "requirements_met",
    "rows_accept",
    "symmetric_match",
    "symmetric_matches",
    "to_bytes",
    "truth",
    "unparse",
]

#: Public name -> the module that defines it (imported on first use, so that a reader of
#: one part, the compiler's parser say, does not load the ad files' reader and the
#: matchmaker with it).
_HOMES = {
    "load_ad": "compiler.classad.ads",
    "load_ads": "compiler.classad.ads",
    "Columns": "compiler.classad.columns",
    "compile_columns": "compiler.classad.columns",
    "CompiledExpr": "compiler.classad.compile",
    "compile_expr": "compiler.classad.compile",
    "call_deep": "compiler.classad.deep",
    "ClassAdSyntaxError": "compiler.classad.errors",
    "evaluate": "compiler.classad.evaluator",
    "function_context": "compiler.classad.evaluator",
    "evaluate_attribute": "compiler.classad.match",
    "of_other": "compiler.classad.match_columns",
    "own_expression": "compiler.classad.match_columns",
    "requirements_accept": "compiler.classad.match_columns",
    "rows_accept": "compiler.classad.match_columns",
    "symmetric_matches": "compiler.classad.match_columns",
    "rank": "compiler.classad.match",
    "rank_value": "compiler.classad.match",
    "requirements_met": "compiler.classad.match",
    "symmetric_match": "compiler.classad.match",
    "truth": "compiler.classad.operators",
    "parse": "compiler.classad.parser",
    "ClassAd": "compiler.classad.scope",
    "release_retired": "compiler.classad.scope",
    "ERROR": "compiler.classad.values",
    "PLAIN_TYPES": "compiler.classad.values",
    "UNDEFINED": "compiler.classad.values",
    "AbsTime": "compiler.classad.values",
    "RelTime": "compiler.classad.values",
    "to_bytes": "compiler.classad.values",
}


def __getattr__(name: str) -> Any:
    """The names of `__all__`, each imported from its module on first use and kept."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'compiler.classad' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
