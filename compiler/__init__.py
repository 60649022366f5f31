"""The compiler stage: text in, checked and simplified tables out.

`compiler` turns ClassAd text, HTCondor configuration text and the spec/ data into
immutable, checked structures (expressions, configurations, state tables, diagrams).
It never imports `runtime` and never prints or exits: it returns values or raises
`compiler.errors.PolicyError` subclasses.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.policy import compile_policy
    from compiler.table import StateTable

__all__ = ["StateTable", "compile_policy"]


def __getattr__(name: str) -> Any:
    """`compile_policy` and `StateTable`, imported on first use: importing `compiler`
    (e.g. for `compiler.classad`) must not pull in sympy and the whole join."""
    if name == "compile_policy":
        from compiler.policy import compile_policy

        return compile_policy
    if name == "StateTable":
        from compiler.table import StateTable

        return StateTable
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
