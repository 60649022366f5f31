"""One ad against many, column-wise (compiler.classad.match_columns and flip): row for
row the scalar matchmaker's answer (match.py), on generated expressions and ads.

The job side is the interesting one: the job's expression is flipped so that the slot is
MY (flip.py) and its own attributes are inlined, stored expressions and their cycles
included; the generated ads share names with the expressions (so references resolve in
the job, in the slot, in neither, through `MY.`/`TARGET.`, specially), store expressions
referring to each other, and hold values the arrays cannot (lists, nested ads, times).
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import ast, evaluate, parse, requirements_met, symmetric_match
from compiler.classad.columns import Columns
from compiler.classad.flip import flip
from compiler.classad.match_columns import of_other, requirements_accept, symmetric_matches
from tests.budget import examples
from tests.classad.strategies import policy_exprs
from tests.classad.test_columns import NOW, _same, column_exprs, slot_rows

EXAMPLES = examples(150)
_exprs = st.one_of(column_exprs(), column_exprs(), policy_exprs())


@given(_exprs, slot_rows(), slot_rows())
@settings(max_examples=EXAMPLES)
@example(parse("Memory >= RequestMemory"), [{"Memory": 10}, {"Memory": 1}], [{"RequestMemory": 4}])
@example(parse("MY.x + TARGET.x + x"), [{"x": 1}, {}], [{"x": parse("x + 1")}])
@example(parse("CurrentTime > 0 && self.x"), [{"x": 1}], [{}])
def test_an_expression_of_the_job_against_every_slot(
    expr: ast.Expr, rows: list[dict[str, Any]], job_rows: list[dict[str, Any]]
) -> None:
    job = job_rows[0]
    got = of_other(expr, job, Columns.from_ads(rows), now=NOW).tolist()
    for n, row in enumerate(rows):
        expected = evaluate(expr, job, row, now=NOW)
        assert _same(got[n], expected), (
            f"{expr} row {n} {row!r} job {job!r}: {got[n]!r} != {expected!r}"
        )


@given(_exprs, slot_rows(), slot_rows(), slot_rows())
@settings(max_examples=EXAMPLES)
@example(
    parse("TARGET.Memory >= RequestMemory && Requirements =?= undefined"),
    [{"Memory": 10, "Requirements": parse("TARGET.RequestMemory < 5")}, {"Memory": 1}],
    [{"RequestMemory": parse("Requirements =?= undefined ? 4 : 400")}],
    [{}],
)
def test_requirements_both_ways(
    expr: ast.Expr,
    rows: list[dict[str, Any]],
    job_rows: list[dict[str, Any]],
    extra: list[dict[str, Any]],
) -> None:
    job = {**job_rows[0], "Requirements": expr}
    slots = [{**row, **extra[n % len(extra)]} for n, row in enumerate(rows)]
    columns = Columns.from_ads(slots)
    accept = requirements_accept(job, columns, now=NOW)
    both = symmetric_matches(columns, job, now=NOW)
    for n, slot in enumerate(slots):
        assert accept[n] == requirements_met(job, slot, now=NOW), (expr, slot, job)
        assert both[n] == symmetric_match(slot, job, now=NOW), (expr, slot, job)


def test_what_cannot_be_flipped() -> None:
    """Names resolved specially, PARENT, lists and selections, scope-reading calls."""
    job = {"RequestMemory": 4, "L": parse("{1, 2}")}
    for text in ("CurrentTime", "self.x", "PARENT.x", "L", "{x}[0]", 'eval("x")', "unparse(x)"):
        assert flip(parse(text), job) is None, text
    flipped = flip(parse("TARGET.Memory >= RequestMemory && Disk > MY.Gone"), job)
    assert flipped is not None
    assert flipped.reads == {"memory", "disk"}
