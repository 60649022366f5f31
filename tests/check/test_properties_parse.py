"""The properties file grammar: the issue's examples parse to the expected IR, printing
round-trips, and every error points at its line and column."""

from __future__ import annotations

import pytest

from compiler.errors import PolicyError, PolicyErrors
from runtime.check.properties import (
    AllOf,
    Compare,
    Consequence,
    Not,
    Pattern,
    PropertiesError,
    Window,
    parse_properties,
)

EXAMPLES = """\
# the issue's three examples
never: Preempting/Killing within 600s of JobStart
always: Claimed/Busy and KeyboardIdle < 60 => leaves Busy within 2 polls
eventually: Owner/Idle => Unclaimed when KeyboardIdle > 900 and LoadAvg < 0.3

always: Claimed and not State == "Owner" => avoids */Killing within 1h   # trailing comment
always: Claimed/Suspended => leaves Suspended \\
        within 20 minutes
"""


def test_issue_examples() -> None:
    never, always, eventually, avoid, cont = parse_properties(EXAMPLES)
    assert never.kind == "never" and never.line == 2
    assert never.pattern == Pattern("Preempting", "Killing")
    assert never.window == Window(600.0, "s", "JobStart")
    assert always.condition == AllOf((Pattern("Claimed", "Busy"), Compare("KeyboardIdle", "<", 60)))
    assert always.consequence == Consequence("leaves", Pattern(None, "Busy"), Window(2.0, "polls"))
    assert eventually.condition == Pattern("Owner", "Idle")
    assert eventually.pattern == Pattern("Unclaimed", None)
    assert eventually.when == AllOf(
        (Compare("KeyboardIdle", ">", 900), Compare("LoadAvg", "<", 0.3))
    )
    assert avoid.condition == AllOf(
        (Pattern("Claimed", None), Not(Compare("State", "==", "Owner")))
    )
    assert avoid.consequence == Consequence("avoids", Pattern(None, "Killing"), Window(3600.0, "s"))
    assert avoid.text.endswith("within 1h")  # the comment is not part of the property
    assert cont.line == 7 and cont.consequence is not None
    assert cont.consequence.window == Window(1200.0, "s")


def test_names_are_case_insensitive_and_canonicalised() -> None:
    (prop,) = parse_properties("never: claimed/SUSPENDED\n")
    assert prop.pattern == Pattern("Claimed", "Suspended")
    assert str(prop.pattern) == "Claimed/Suspended"


def _error(text: str) -> PolicyError:
    with pytest.raises(PolicyError) as info:
        parse_properties(text, "p.txt")
    return info.value


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("never: Preempting/Kiling\n", 1, 19, "did you mean 'Killing'"),
        ("\n\nalways: Claimed/Busy => leaves Busy\n", 3, 36, "expected 'within'"),
        ("sometimes: Owner\n", 1, 1, "unexpected 'sometimes'"),
        ("never Owner\n", 1, 7, "expected ':'"),
        ("always: KeyboardIdle < => leaves Busy within 2 polls\n", 1, 24, "a number"),
        ("never: Owner within 2 polls of JobStart\n", 1, 21, "seconds"),
        ("never: Owner within 10s of activat\n", 1, 28, "did you mean 'activate'"),
        ("eventually: Owner => Unclaimed within 5x\n", 1, 39, "duration"),
        ('always: Owner and LoadAvg > "x => avoids Busy\n', 1, 29, "unexpected"),
    ],
)
def test_errors_point_at_line_and_column(text: str, line: int, column: int, words: str) -> None:
    err = _error(text)
    assert isinstance(err, PropertiesError)
    assert (err.file, err.line, err.column) == ("p.txt", line, column), err.format()
    assert words in err.message
    formatted = err.format()
    assert formatted.startswith(f"p.txt:{line}:{column}: ")
    caret_line = formatted.splitlines()[-1]
    assert caret_line.index("^") == 4 + column - 1


def test_all_name_errors_of_a_file_are_reported_together() -> None:
    err = _error("never: Clamed\nnever: Owner\nnever: Busy/Idle\n")
    assert isinstance(err, PolicyErrors)
    assert [(e.line, e.column) for e in err.errors] == [(1, 8), (3, 8)]
    assert "did you mean 'Claimed'" in err.errors[0].message


def test_empty_and_comment_only_files() -> None:
    assert parse_properties("") == ()
    assert parse_properties("# nothing\n\n   # still nothing\n") == ()


def test_names_come_from_the_spec() -> None:
    """States, activities and anchors are the era's (spec/eras), not a list of our own:
    condor-6.4 has no Drained state; htcondor-current has it; events are the vocabulary's."""
    from compiler.spec import load_spec

    old, new = load_spec("condor-6.4", "manual"), load_spec("htcondor-current", "code")
    text = "never: Drained/Retiring\nnever: Claimed/Busy within 60s of drain\n"
    assert len(parse_properties(text, "p.txt", new)) == 2
    with pytest.raises(PolicyError) as info:
        parse_properties(text, "p.txt", old)
    assert "unknown state 'Drained'" in str(info.value)
    assert "anchor" not in str(info.value)  # drain is a trace event in every era
    assert len(parse_properties(text, "p.txt")) == 2  # no spec: any era's names
    with pytest.raises(PolicyError, match="unknown state 'Delete'"):
        parse_properties("never: Delete/Idle\n", "p.txt", new)  # internal: never published
