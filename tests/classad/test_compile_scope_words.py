"""`MY.x` / `TARGET.x` inside a generated function, with plain dicts that hold (or
stop holding) an attribute spelled like the scope word.

A scoped reference first asks whether the ad holds an attribute named `MY` / `TARGET`
in any case spelling (HTCondor looks the scope word up as an attribute before its
special meaning: attrrefs.cpp, `AttributeReference::FindExpr`). The generated code reads
a plain dict's name index in place for that question; these checks make the dicts
change between warm calls (the generated code is used from the fourth call on), keep
their size while a key is renamed to a scope word, and compare with the interpreter and
with classad2 (the htcondor wheel).
"""

from __future__ import annotations

import pytest

from compiler.classad import compile as compile_module
from compiler.classad import parse
from compiler.classad.compile import compile_expr
from compiler.classad.evaluator import evaluate
from tests.classad.oracle_support import oracle_eval, same

WARM = compile_module._WARM_CALLS + 1
#: Binary roots, so that the reference is inside a generated function.
EXPRS = ("TARGET.z + 0", "MY.w * 1", "(TARGET.z + 0) * 10 + (MY.w + 0)")


def _agree(text: str, my: dict[str, object], target: dict[str, object]) -> object:
    """Our warm value of `text`, checked against the interpreter and classad2."""
    compiled = compile_expr(text)
    values = [compiled(my, target) for _ in range(WARM)]
    assert compiled.fn is compile_module.generated(compiled.expr)  # the generated code ran
    expected = evaluate(text, my, target)
    assert all(v == expected and type(v) is type(expected) for v in values), (text, values)
    assert same(values[-1], oracle_eval(text, my, target)), text
    return values[-1]


@pytest.mark.parametrize("text", EXPRS)
@pytest.mark.parametrize("word", ["target", "TARGET", "Target", "tArGeT", "my", "MY", "mY"])
def test_scope_word_keys_in_a_plain_dict(text: str, word: str) -> None:
    job = {"z": 7, "w": 11}
    machine: dict[str, object] = {"w": 3, "KeyboardIdle": 1}
    _agree(text, machine, job)
    machine[word] = parse("[z = 1; w = 5]")  # gained between calls
    _agree(text, machine, job)
    del machine[word]  # lost again
    _agree(text, machine, job)
    del machine["KeyboardIdle"]  # renamed to the scope word, same size and last key order
    machine[word] = parse("[z = 2; w = 6]")
    _agree(text, machine, job)


def test_scope_word_in_the_other_dict_does_not_redirect_this_one() -> None:
    machine = {"w": 3}
    job = {"z": 7, "Target": parse("[z = 1]"), "MY": parse("[w = 4]")}
    assert _agree("TARGET.z + 0", machine, job) == 7
    assert _agree("MY.w * 1", machine, job) == 3
