"""Which of HTCondor's builtin functions we provide, checked against the oracle.

HTCondor answers ERROR for an unknown function name, so a name "exists" in the oracle
when some plausible call does not give ERROR. Every name in `BUILTINS` must exist
there, and every function the oracle has must be either ours, one of the evaluator's
special forms, or listed (with the reason) as deliberately not provided.
"""

from __future__ import annotations

import pytest

from compiler.classad.functions import BUILTINS
from compiler.classad.values import ERROR
from tests.classad.test_functions_support import OracleFailed, oracle_text

pytestmark = pytest.mark.oracle

# Argument lists tried when asking the oracle whether a name is a function.
PROBES = [
    "",
    "1",
    '"a"',
    "{1}",
    "[a=1]",
    "1, 2",
    '"a", "b"',
    '"a", "b", "c"',
    "1, {1}",
    '"<", {1}, 2',
    '"1.0", "0.5", "2.0"',
    "1, 2, 3",
    "undefined",
    "x, {[a=1]}",
    "x",
    '"1,2"',
    '{"a"}',
    "absTime(0)",
    "relTime(5)",
]

#: Implemented by the evaluator: they need laziness, the syntax tree or the scope.
SPECIAL_FORMS = {"ifthenelse", "eval", "unparse", "evalineachcontext", "countmatches"}

#: Present in HTCondor, deliberately absent here (see compiler/classad/functions.py).
NOT_PROVIDED: set[str] = set()  # absTime & co are provided since issue 11

#: Names that look like functions but HTCondor 25.14.1 does not have.
ABSENT = {"isdefined", "length", "trim", "sprintf", "abs", "sqrt", "lower", "upper", "strlen"}


def _exists(name: str) -> bool:
    for args in PROBES:
        try:
            if oracle_text(f"{name}({args})") is not ERROR:
                return True
        except OracleFailed:
            continue  # a parse-time refusal of these arguments says nothing
    return False


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_exists_in_htcondor(name: str) -> None:
    assert _exists(name)


@pytest.mark.parametrize("name", sorted(SPECIAL_FORMS | NOT_PROVIDED))
def test_known_gaps_are_real_functions(name: str) -> None:
    assert _exists(name)
    assert name not in BUILTINS


@pytest.mark.parametrize("name", sorted(ABSENT))
def test_absent_functions_are_absent_in_both(name: str) -> None:
    assert not _exists(name)
    assert name not in BUILTINS
