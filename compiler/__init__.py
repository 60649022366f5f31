"""The compiler stage: text in, checked and simplified tables out.

`compiler` turns ClassAd text, HTCondor configuration text and the spec/ data into
immutable, checked structures (expressions, configurations, state tables, diagrams).
It never imports `runtime` and never prints or exits: it returns values or raises
`compiler.errors.PolicyError` subclasses.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.attributes import load_attributes
    from compiler.policy import RowDifference, compile_policy, policy_differences
    from compiler.table import StateTable, holds

__all__ = [
    "RowDifference",
    "StateTable",
    "compile_policy",
    "holds",
    "load_attributes",
    "policy_differences",
]

#: Public name -> the module that defines it (imported on first use).
_HOMES = {
    "compile_policy": "compiler.policy",
    "policy_differences": "compiler.policy",
    "RowDifference": "compiler.policy",
    "StateTable": "compiler.table",
    "holds": "compiler.table",
    "load_attributes": "compiler.attributes",
}


def __getattr__(name: str) -> Any:
    """The names of `__all__`, imported on first use: importing `compiler` (e.g. for
    `compiler.classad`) must not pull in sympy and the whole join."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
