"""The compiler stage: text in, checked and simplified tables out.

`compiler` turns ClassAd text, HTCondor configuration text and the spec/ data into
immutable, checked structures (expressions, configurations, state tables, diagrams).
It never imports `runtime` and never prints or exits: it returns values or raises
`compiler.errors.PolicyError` subclasses.

This module is the package's face: `compile_policy`, `policy_differences`,
`load_attributes`, `MANUAL_READS_JOB` (how the manual semantics' loud warning begins), and the types of what they return (`StateTable`, its `Row` and
`CompiledGuard`, the `Program` with its `Settings` and `Knob`s) plus `holds` (the
startd's test of a guard's value) and `IdentityMemo` (values remembered per object, as
the compiler keeps its own). The runtime imports these from here, never from the
modules that define them; the subpackages (`compiler.classad`, `compiler.config`,
`compiler.spec`, ...) are faces of their own.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.attributes import load_attributes
    from compiler.expand import Expander
    from compiler.identity import IdentityMemo
    from compiler.policy import (
        MANUAL_READS_JOB,
        RowDifference,
        compile_policy,
        policy_differences,
        reachable_pairs,
    )
    from compiler.program import Knob, Program, Settings
    from compiler.roundtrip import config_fragment
    from compiler.table import CompiledGuard, Row, StateTable, holds

__all__ = [
    "MANUAL_READS_JOB",
    "CompiledGuard",
    "Expander",
    "IdentityMemo",
    "Knob",
    "Program",
    "Row",
    "RowDifference",
    "Settings",
    "StateTable",
    "compile_policy",
    "config_fragment",
    "holds",
    "load_attributes",
    "policy_differences",
    "reachable_pairs",
]

#: Public name -> the module that defines it (imported on first use).
_HOMES = {
    "compile_policy": "compiler.policy",
    "policy_differences": "compiler.policy",
    "RowDifference": "compiler.policy",
    "MANUAL_READS_JOB": "compiler.policy",
    "reachable_pairs": "compiler.policy",
    "config_fragment": "compiler.roundtrip",
    "StateTable": "compiler.table",
    "Row": "compiler.table",
    "CompiledGuard": "compiler.table",
    "holds": "compiler.table",
    "Program": "compiler.program",
    "Settings": "compiler.program",
    "Knob": "compiler.program",
    "load_attributes": "compiler.attributes",
    "Expander": "compiler.expand",
    "IdentityMemo": "compiler.identity",
}


def __getattr__(name: str) -> Any:
    """The names of `__all__`, imported on first use: importing `compiler` (e.g. for
    `compiler.classad`) must not pull in sympy and the whole join."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
