"""The ClassAd expression language, exactly as HTCondor daemons evaluate it.

Public API (DESIGN.md): `parse`, `unparse`, `evaluate`, `compile_expr`, `UNDEFINED`,
`ERROR`, `ClassAdSyntaxError`; also `ClassAd` (a case-insensitive ad), `load_ad` /
`load_ads` (long form, new syntax, JSON), `symmetric_match` / `requirements_met` /
`rank` (matchmaking), `format_value` (a value printed as HTCondor prints it) and
`call_deep` (run a walk over deeply nested values without a RecursionError) and
`function_context` (the builtin functions' context, its clock fixed at a given instant:
what a caller passes as `ctx` to evaluate many expressions at one simulated time).
"""

from compiler.classad.ads import load_ad, load_ads
from compiler.classad.compile import CompiledExpr, compile_expr
from compiler.classad.deep import call_deep
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.evaluator import evaluate, function_context
from compiler.classad.match import rank, rank_value, requirements_met, symmetric_match
from compiler.classad.parser import parse
from compiler.classad.scope import ClassAd
from compiler.classad.unparse import format_value, unparse
from compiler.classad.values import ERROR, UNDEFINED, AbsTime, RelTime, to_bytes

__all__ = [
    "ERROR",
    "UNDEFINED",
    "AbsTime",
    "ClassAd",
    "ClassAdSyntaxError",
    "CompiledExpr",
    "RelTime",
    "call_deep",
    "compile_expr",
    "evaluate",
    "format_value",
    "function_context",
    "load_ad",
    "load_ads",
    "parse",
    "rank",
    "rank_value",
    "requirements_met",
    "symmetric_match",
    "to_bytes",
    "unparse",
]
