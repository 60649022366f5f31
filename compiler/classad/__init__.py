"""The ClassAd expression language, exactly as HTCondor daemons evaluate it.

Public API (DESIGN.md): `parse`, `unparse`, `evaluate`, `compile_expr`, `UNDEFINED`,
`ERROR`, `ClassAdSyntaxError`; plus `format_value` (HTCondor's printed form of a value).
"""

from compiler.classad.compile import CompiledExpr, compile_expr
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.evaluator import evaluate
from compiler.classad.parser import parse
from compiler.classad.scope import ClassAd
from compiler.classad.unparse import format_value, unparse
from compiler.classad.values import ERROR, UNDEFINED

__all__ = [
    "ERROR",
    "UNDEFINED",
    "ClassAd",
    "ClassAdSyntaxError",
    "CompiledExpr",
    "compile_expr",
    "evaluate",
    "format_value",
    "parse",
    "unparse",
]
