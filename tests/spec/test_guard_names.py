"""`guard_names`: the attribute names a spec guard refers to, read with the ClassAd parser
(not a token regex: names inside strings and comments, function names, keywords and the
attribute part of a scope prefix are not references)."""

from __future__ import annotations

import pytest

from compiler.classad.errors import ClassAdSyntaxError
from compiler.spec import guard_names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("", ()),
        ("   ", ()),
        ("START", ("START",)),
        ('Owner == "KeyboardIdle" && strcmp(Foo, "x\\"Bar") == 0', ("Owner", "Foo")),
        ("MY.Memory > TARGET.RequestMemory && Memory > 1", ("Memory", "RequestMemory")),
        ("x is undefined && y isnt error && true || False", ("x", "y")),
        ("a /* b */ && c", ("a", "c")),
        (
            'ifThenElse(IsOwner, Activity == "Busy", time() > JobStart)',
            ("IsOwner", "Activity", "JobStart"),
        ),
        ("[k = v].k && l[0]", ("v", "l")),
    ],
)
def test_guard_names(text: str, names: tuple[str, ...]) -> None:
    assert guard_names(text) == names


def test_text_that_is_not_classad_is_a_syntax_error() -> None:
    with pytest.raises(ClassAdSyntaxError):
        guard_names("IsOwner &&")
