"""The ClassAd expression language, exactly as HTCondor daemons evaluate it.

Public API (DESIGN.md): `parse`, `unparse`, `evaluate`, `compile_expr`, `UNDEFINED`,
`ERROR`, `ClassAdSyntaxError`.
"""

from compiler.classad.values import ERROR, UNDEFINED

__all__ = ["ERROR", "UNDEFINED"]
