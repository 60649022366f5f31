"""The fast parser reads exactly what the grammar (the lark parser) reads, with equal trees.

compiler/classad/fastparse.py is a hand-written scanner and precedence-climbing parser;
grammar.lark read by compiler/classad/lark_parser.py is the specification. For every
text: when lark gives a tree, the fast parser gives an equal one with the same source
span on every node (nesting deeper than the fast parser's recursion may be handed back
to lark); when lark raises a syntax error, the fast parser rejects the text (and
`parse` then raises lark's positioned error). Both string modes (`old_strings`).
Inputs: every string constant of the ClassAd and fuzz tests, the fuzz corpora, the
right-hand sides of the real-world configurations, generated trees, token soup and
mutated texts.
"""

from __future__ import annotations

import ast as pyast
import operator
import pickle
import subprocess
import sys
from functools import cache
from pathlib import Path

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.classad import ClassAdSyntaxError, ast, parse, unparse
from compiler.classad.deep import call_deep
from compiler.classad.fastparse import _TOKEN, Reject, _scan, parse_fast
from compiler.classad.lark_parser import parse_lark
from compiler.classad.parser import depth, parse_uncached
from tests.budget import examples
from tests.classad.strategies import asts, policy_exprs
from tests.classad.test_parse_differential import TOKENS
from tests.config.realworld import FILES as REALWORLD
from tests.fuzz.support import expressions, texts
from tests.paths import ROOT

#: Trees at least this deep may exceed the fast parser's recursion (it recurses once per
#: bracket level); lark then builds them.
_DEEP = 200


def _spans(expr: ast.Expr) -> list[tuple[str, object]]:
    return [(type(node).__name__, node.span) for node in ast.walk(expr)]


def _outcome(read: object, text: str, old: bool) -> ast.Expr | None:
    try:
        return read(text, old_strings=old)  # type: ignore[operator]
    except (ClassAdSyntaxError, Reject):
        return None


def check_same(text: str) -> None:
    """The fast parser agrees with the grammar on `text`, in both string modes."""
    for old in (False, True):
        spec = _outcome(parse_lark, text, old)
        fast = _outcome(parse_fast, text, old)
        if spec is None:
            assert fast is None, f"fast parser accepts what the grammar rejects: {text!r}"
        elif fast is None:
            assert depth(spec) >= _DEEP, f"fast parser rejects valid text: {text!r}"
        else:
            assert call_deep(operator.eq, fast, spec), text
            assert _spans(fast) == _spans(spec), text


# ---- corpora --------------------------------------------------------------------------


@cache
def _test_strings() -> tuple[str, ...]:
    """Every string constant in the ClassAd and fuzz test modules (parse tests included)."""
    found: set[str] = set()
    for folder in ("tests/classad", "tests/fuzz"):
        for path in sorted((ROOT / folder).glob("*.py")):
            tree = pyast.parse(path.read_text(encoding="utf-8"))
            for node in pyast.walk(tree):
                if (
                    isinstance(node, pyast.Constant)
                    and isinstance(node.value, str)
                    and len(node.value) < 5000
                ):
                    found.add(node.value)
    return tuple(sorted(found))


def _realworld_values() -> list[str]:
    values = []
    for path in REALWORLD:
        for line in path.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            _, eq, value = line.partition("=")
            if eq and value.strip():
                values.append(value.strip())
    return values


#: Texts where the scan and the contextual lexer could part: signs glued to numbers,
#: keywords at operator and operand places, comments, blank runs, quoting.
EDGES = [
    "a-5", "a-5.5", "a-.5", "a-0", "a-07", "a-0x1F", "a-1e5", "a--5", "a---5", "5-3",
    "-0x1F", "-017", "-08", "-0", "- 0x1F", "x[0]-1", "f()-1", "(a)-1", "a -1e309",
    "1is 1", "1isnt 1", "1 IS 1", "a is", "is", "a.is", "a.island", "[is = 1]", "['is' = 1]",
    '"\\"', '"x\\\\"y"', '"C:\\dir\\"', '"a\\" + b', 'f("q\\"x\\", 1)', '"a\\"\n', '"a\\"\n+ "b"',
    '"a\\"" "b"', '"a\\" "b"', "x /* c */ + \"\\\"",
    "true(1)", "x.true", "TRUE.x", "fal\u017fe", "\u0131s", "a \u0131snt b", "\u212aey", "a..5", "a.5", "a. b", ".a", "..a", ". 5", "1.e3", "1e",
    "1else", "a ?\n: b", "a ?\t:b", "a ?/**/: b", "c ? a ?: b : d", "a ?: - b", "a ?: -5",
    "a/**/b", "a /* x */ + /* y */ b", "a // x\n+ b", "a // x", "1 /* open", "a/ /b",
    "a //\n\n// y\n + b\n", " \t a \n", "\x0ba\x0c", "a\xa0+ b", "a + \x00", "\x7f", "a\x7f",
    '"a" "b"', '"a"\x1c"b"', "'a' 'b'", "'a'\n'b'.c", '"\\0"', '"\\400"', '"\\q\\x41"',
    '"\\303\\251"', '"\udcc3\udca9"', "\udcff", '"unterminated', "'x", '"a\\"b"',
    "absTime(\"2004-01-01\")", 'absTime("nonsense")', 'relTime("1+2:03:04")', 'relTime("x")',
    'absTime(("x"))', 'f("x")', "MY.x", "my.x", "(MY).x", "((MY)).x", "'MY'.x", ".MY.x",
    "TARGET.TARGET.x", "PARENT.x[1].y", "[a=1 b=2]", "[a=1;;b=2;]", "[;]", "[]", "[a==1]",
    "[a=!b]", "[a=-1]", "{}", "{1,}", "{,}", "f(1;2,3)", "f(,)", "f(1)(2)", "x[1][2].y",
    "a=?=b", "a=!=b", "a>>>b>>c<<d", "a<=b>=c<d>e", "!a==b", "~-!+a", "a ? b : c ? d : e",
    "a ? b ? c : d : e", "a || b && c | d ^ e & f == g < h << i + j * k",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1" * 30,
    "-" + "0" * 40 + "1", "00.5", "1E+3", "2.5e-2", ".5e3",
]  # fmt: skip


@pytest.mark.parametrize("text", EDGES)
def test_edge_texts(text: str) -> None:
    check_same(text)


def test_every_string_of_the_classad_and_fuzz_tests() -> None:
    for text in _test_strings():
        check_same(text)


def test_fuzz_corpus_expressions() -> None:
    for text in expressions():
        check_same(text)


@pytest.mark.skipif(not REALWORLD, reason="SHARED FILES ABSENT: no real-world configurations")
def test_realworld_configuration_values() -> None:
    for text in _realworld_values():
        check_same(text)


# ---- generated texts --------------------------------------------------------------------

_BLANKS = st.sampled_from(["", " ", "", "\n", "\t", "/* c */", "// c\n", "  \n "])
_SOUP = [
    *TOKENS,
    "-0x1F", "-017", "-5", "-.5", "-1e3", "'", '"', "\\", "\x00", "é", "\udc80", "$",
    "absTime(", 'relTime("1:2")', '"2004-01-01"', "?\n:", "...", "is", "ISNT", "my.", "x.",
]  # fmt: skip


@st.composite
def token_soup(draw: st.DrawFn) -> str:
    out = []
    for token in draw(st.lists(st.sampled_from(_SOUP), min_size=1, max_size=9)):
        out.append(draw(_BLANKS))
        out.append(token)
    out.append(draw(_BLANKS))
    return "".join(out)


@given(token_soup())
@settings(max_examples=examples(600))
@example("a -5")
@example("a-5")
def test_token_soup(text: str) -> None:
    check_same(text)


_SPACES = st.sampled_from(["", " ", "  "])


@st.composite
def spaced_soup(draw: st.DrawFn) -> str:
    """Token soup with spaces alone between tokens (the texts `str.split` may read)."""
    out = []
    for token in draw(st.lists(st.sampled_from(_SOUP + _SPLIT_EDGES), min_size=1, max_size=9)):
        out.append(draw(_SPACES))
        out.append(token)
    out.append(draw(_SPACES))
    return "".join(out)


#: Pieces where splitting at blanks, brackets, commas and dots could part from the
#: regular expression: joined strings, dots in REALs and `..`, signed and
#: leading-zero numbers, brackets and dots inside quotes, non-ASCII and control
#: characters that `str.split` treats as blanks.
_SPLIT_EDGES = [
    '"a"', '"a b"', '"x(y)"', '"a.b"', '"a,b"', '" "', '"\\""', "'a'", "'a.b'",
    "a.b", "a..b", "0.3", ".5", "5.", "1.e3", "1e3", "07", "-07", "-0", "-5", "-x", "0",
    "a.5", "x.y.z", ".x", "?", "? :", ":", "\x1c", "\xa0", "\x0b",
]  # fmt: skip


@given(st.one_of(token_soup(), spaced_soup()))
@settings(max_examples=examples(600))
@example('"a" "b"')
@example('"a"  "b"')
@example("a.b + 0.3")
@example("x == .5 && a.b")
@example("a\x1c+ b")
@example('f(x, "a,b")')
def test_scan_finds_the_regular_expressions_tokens(text: str) -> None:
    """The `str.split` short cut of the scan gives exactly the tokens of `_TOKEN` (the
    spans found again from `_TOKEN` rely on it)."""
    assert _scan(text) == _TOKEN.findall(text)
    check_same(text)


@given(asts())
@settings(max_examples=examples(300))
def test_unparsed_trees(expr: ast.Expr) -> None:
    check_same(unparse(expr))


@given(policy_exprs())
@settings(max_examples=examples(200))
def test_unparsed_policy_trees(expr: ast.Expr) -> None:
    text = unparse(expr)
    check_same(text)
    check_same(text.replace(" ", ""))


@given(texts(expressions()))
@settings(max_examples=examples(300))
def test_mutated_texts(text: str) -> None:
    check_same(text)


# ---- the public entry point -----------------------------------------------------------


def test_errors_are_the_grammars_messages() -> None:
    for text in ("a b", "1 // no newline", "x.true", "{1,2,}", '"\\0"', 'absTime("x")', ""):
        with pytest.raises(ClassAdSyntaxError) as ours:
            parse_uncached(text)
        with pytest.raises(ClassAdSyntaxError) as spec:
            parse_lark(text)
        assert (str(ours.value), ours.value.line, ours.value.column) == (
            str(spec.value),
            spec.value.line,
            spec.value.column,
        )
        assert ours.value.source_line == spec.value.source_line


def test_deep_nesting_is_handed_to_the_grammar() -> None:
    text = "(" * 3000 + "x" + ")" * 3000
    with pytest.raises(Reject):
        parse_fast(text)
    assert parse(text) == ast.AttrRef("x")
    check_same("- " * 5000 + "1")  # prefixes do not recurse
    check_same("!" * 20000 + "x")


def test_parsing_valid_text_does_not_import_lark() -> None:
    code = (
        "import sys\n"
        "from compiler.classad import parse\n"
        "parse('((KeyboardIdle > 15 * 60) && (State != \"Owner\")) ?: MY.x[1]')\n"
        "assert 'lark' not in sys.modules, 'lark imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(ROOT), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_spans_made_on_first_read_survive_copies() -> None:
    text = 'a +\n  f("x", b.c)'
    spec = parse_lark(text)
    expr = parse_uncached(text)
    call = expr.right  # type: ignore[union-attr]
    assert pickle.loads(pickle.dumps(call)).span == spec.right.span  # type: ignore[union-attr]
    assert msgspec.structs.replace(expr, op="-").span == spec.span
    assert _spans(expr) == _spans(spec)
