"""The parser accepts exactly what HTCondor's parser accepts, with the same meaning.

Token soup (numbers at the lexical edges, strings with escapes, keywords, every
operator, comments) is joined with random blanks; the oracle and we must agree on
whether it parses, and when it does, on its value (which pins precedence down).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from compiler.classad import ClassAdSyntaxError, evaluate, parse, unparse
from tests.budget import examples
from tests.classad.oracle_support import OracleCrashed, oracle_run, same
from tests.classad.strategies import policy_exprs

pytestmark = pytest.mark.oracle

EXAMPLES = examples(400)

TOKENS = [
    # numbers, including the forms HTCondor mode rejects
    "0", "1", "7", "08", "00", "0x1F", "1.5", ".5", "5.", "00.5", "1e3", "1E+3", "2.5e-2",
    "1.e3", "1e309", "-1", "-0", "9223372036854775807", "9223372036854775808", "-2.5",
    # strings and names
    '"a"', '"A"', '"\\n"', '"\\101"', '"\\q"', '"\\0"', '"a\\"b"', "''", "'x y'", "'a\\'b'",
    "a", "B", "x", "MY", "my", "TARGET", "parent", "self", "CurrentTime",
    "true", "FALSE", "undefined", "Error", "is", "isnt", "island",
    # operators and punctuation
    "+", "-", "*", "/", "%", "!", "~", "&&", "||", "&", "|", "^", "<<", ">>", ">>>",
    "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "?", ":", "?:", "? :", ".", "..",
    "[", "]", "(", ")", "{", "}", ",", ";", "=",
    # calls and comments
    "size(", "strcat(", "ifThenElse(", "/* c */", "// c\n", "/*",
]  # fmt: skip
BLANKS = st.sampled_from(["", " ", " ", "\n", "\t"])


def _oracle(text: str) -> tuple[bool, object]:
    try:
        status, value = oracle_run(text)
    except OracleCrashed:
        reject()
    return status != "syntax", value if status == "ok" else None


@st.composite
def token_soup(draw: st.DrawFn) -> str:
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=7))
    out = []
    for token in tokens:
        out.append(draw(BLANKS))
        out.append(token)
    return "".join(out)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


def _compare(text: str) -> None:
    if re.search(r"\.\.\s*\.?[0-9]|0[xX][0-9a-fA-F]*\.", text):
        # Oracle quirks not followed: `..5` and `..0` read as the real 0.0; `0x1F1.5`
        # is accepted as a C hexadecimal real (while the integer `0x1F` is an error).
        return
    accepted, value = _oracle(text)
    try:
        expr = parse(text)
    except ClassAdSyntaxError as err:
        if accepted and err.line is not None and err.column is not None:
            # Oracle quirk (classad2.ExprTree only): after a complete expression it
            # stops at `]` or `;` and ignores the rest (`1 ] 2` is 1). Not followed:
            # we require the whole text to be one expression; the prefix must agree.
            at = _offset(text, err.line, err.column)
            if text[at : at + 1] in ("]", ";"):
                _compare(text[:at])
                return
        assert not accepted, f"oracle accepts {text!r}, we do not"
        return
    assert accepted, f"we accept {text!r} (as {unparse(expr)!r}), the oracle does not"
    if value is not None and "CurrentTime" not in text:
        ours = evaluate(expr)
        assert same(ours, value), f"{text!r}: ours {ours!r}, oracle {value!r}"


@given(token_soup())
@settings(max_examples=EXAMPLES)
# Counterexamples earlier random runs found, checked in every run:
@example("join({0})")  # f5ccacc: join(list) converts its elements ("0", we gave "")
@example("0//* c */0")  # 694cf27: an unterminated // comment (we read 0 / 0)
@example("[r = [a = r.a]].r")  # 525e961: a nested ad reaching itself is a cycle, not ERROR
@example('join(",", {1+1}, "x")')  # 6dcc62d: join reads a list item as unevaluated text
def test_token_soup_acceptance_and_meaning(text: str) -> None:
    _compare(text)


@given(policy_exprs())
@settings(max_examples=EXAMPLES)
def test_unparsed_text_reads_the_same_in_htcondor(expr: object) -> None:
    _compare(unparse(expr))  # type: ignore[arg-type]
