"""Reading whole pool dumps (`condor_status -l` / `-json`): every ad we read is the ad the
htcondor wheel reads from the same text, attribute by attribute.

The dumps are printed by classad2 itself (`printOld()` / `printJson()`): the realistic
pool of `tests.classad.pool_dump`, and generated ads with values of every kind (integers
up to int64 and past it, reals in exponent form and infinities, strings with quotes,
backslashes and control characters, booleans, undefined, expressions, lists, nested ads).
A literal is compared by value (the wheel's `eval`); an expression by tree: the wheel's
tree, printed and read back by our parser, is the tree we read.

The long-form reader's shortcut for plain literals is also checked against the parser
it stands in for.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from compiler.classad import ClassAdSyntaxError, ast, parse, unparse
from compiler.classad.ads import _NO_LITERAL, _fast_literal, _literal_or_expr, load_ads
from tests.classad.oracle_support import _normalize, same
from tests.classad.pool_dump import json_dump, long_dump, slot_ads, slot_ads_json
from tests.classad.strategies import INT64_MAX, INT64_MIN, policy_exprs

pytestmark = pytest.mark.oracle

FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def _classad2() -> Any:
    from tests.oracle import classad2

    return classad2


def _assert_same_ads(ours: list[Any], theirs: list[Any]) -> None:
    classad2 = _classad2()
    assert len(ours) == len(theirs)
    for mine, their in zip(ours, theirs, strict=True):
        assert sorted(mine) == sorted(their.keys())
        for name in their:
            raw = mine[name]
            if isinstance(raw, ast.EXPR_TYPES):
                assert raw == parse(str(their.lookup(name))), name
            else:
                assert same(raw, _normalize(their.eval(name), classad2)), (name, raw)


def _read_both_long(texts: list[str]) -> None:
    classad2 = _classad2()
    dump = long_dump(texts)
    theirs = list(classad2.parseAds(dump, classad2.ParserType.Old))
    _assert_same_ads(load_ads(dump), theirs)


def _read_both_json(texts: list[str]) -> None:
    classad2 = _classad2()
    theirs = [classad2.parseOne(text, classad2.ParserType.JSON) for text in texts]
    _assert_same_ads(load_ads(json_dump(texts)), theirs)


# ---------------------------------------------------------------- a realistic pool


def test_pool_dump_long_form_reads_like_the_wheel() -> None:
    texts = slot_ads(_classad2(), 40)
    assert all(180 <= text.count("\n") <= 230 for text in texts)
    _read_both_long(texts)


def test_pool_dump_json_reads_like_the_wheel() -> None:
    _read_both_json(slot_ads_json(_classad2(), 40))


def test_pool_dump_shares_names_and_expressions() -> None:
    """Flat memory: the slots of one dump share attribute names and each distinct
    expression's tree (the machines' three Start expressions are three trees)."""
    for ads in (
        load_ads(long_dump(slot_ads(_classad2(), 48))),
        load_ads(json_dump(slot_ads_json(_classad2(), 48))),
    ):
        starts = {id(ad["Start"]) for ad in ads}
        assert len(starts) == 3
        assert len({id(ad["WithinResourceLimits"]) for ad in ads}) == 1
        first, last = ads[0], ads[-1]
        names = {id(name) for name in first} & {id(name) for name in last}
        assert len(names) >= 150


# ---------------------------------------------------------------- generated ads

_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True).filter(
    lambda s: s.lower() not in {"true", "false", "undefined", "error", "is", "isnt"}
)
#: Old syntax (the long form) cannot carry every string: `printOld()` writes a newline
#: inside a string as is (the wheel then stops reading the dump), and NUL ends a C string.
_OLD_TEXT = st.text(
    st.one_of(st.sampled_from('"\\ \t\x01\x7f\x0céa'), st.characters(exclude_characters="\n\0")),
    max_size=12,
)
_JSON_TEXT = st.text(st.characters(exclude_characters="\0"), max_size=12)


def _values(strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Python values (set as literals) and expression texts (set as `ExprTree`s)."""
    return st.one_of(
        st.integers(INT64_MIN, INT64_MAX),
        st.integers(-(10**30), 10**30).map(lambda n: ("expr", str(n))),
        st.floats(allow_nan=False),
        st.floats(min_value=-1e300, max_value=1e300).map(lambda x: ("expr", repr(x))),
        strings,
        st.booleans(),
        st.sampled_from([("expr", "undefined"), ("expr", "error"), ("expr", "{}")]),
        policy_exprs(max_leaves=8).map(lambda e: ("expr", unparse(e))),
    )


def _ads(strings: st.SearchStrategy[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    ad = st.dictionaries(_NAMES, _values(strings), min_size=1, max_size=8)
    return st.lists(ad, min_size=1, max_size=3)


def _printed(ads: list[dict[str, Any]], method: str) -> list[str]:
    classad2 = _classad2()
    texts = []
    for attrs in ads:
        ad = classad2.ClassAd()
        seen: set[str] = set()
        for name, value in attrs.items():
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            if isinstance(value, tuple):
                try:
                    ad[name] = classad2.ExprTree(value[1])
                except classad2.ClassAdException:  # the wheel cannot read the text
                    assume(False)
            else:
                ad[name] = value
        texts.append(getattr(ad, method)())
    return texts


@FAST
@example([{"S": 'a"b\\c', "N": 2**63 - 1, "R": 1.5e-7, "L": ("expr", '{1, "x", [a = 2]}')}])
@example([{"Big": ("expr", "123456789012345678901234"), "Inf": float("inf")}])
@example([{"A": 1}, {"a": ("expr", "A + 1"), "B": "x"}])
@given(_ads(_OLD_TEXT))
def test_generated_long_form_dump_reads_like_the_wheel(ads: list[dict[str, Any]]) -> None:
    _read_both_long(_printed(ads, "printOld"))


@FAST
@example([{"S": 'a"b\\c\n\u2028', "N": -(2**63), "R": -2.5e300, "E": ("expr", "[x = 1]")}])
@example([{"Big": ("expr", "-99999999999999999999"), "Null": ("expr", "undefined")}])
@given(_ads(_JSON_TEXT))
def test_generated_json_dump_reads_like_the_wheel(ads: list[dict[str, Any]]) -> None:
    _read_both_json(_printed(ads, "printJson"))


# HTCondor's old-syntax lexer (lexer.cpp tokenizeStringOld) reads `\"` as a quote inside
# the string unless the quote ends the text or its line, so `"\"` is one backslash and
# `"x\\"y"` is `x\"y` (lexical.OLD_STRING); printOld writes such strings.
@pytest.mark.parametrize("value", ["\\", 'q"x\\', 'x\\"y', "C:\\dir\\", 'a\\"', '\\"\\"'])
def test_old_syntax_backslash_before_quote_like_htcondor(value: str) -> None:
    _read_both_long(_printed([{"S": value, "N": 1}], "printOld"))


# ---------------------------------------------------------------- the literal shortcut

_LITERAL_TEXTS = st.one_of(
    st.from_regex(r"-?[0-9]{1,21}", fullmatch=True),
    st.from_regex(r"-?[0-9]{0,4}\.[0-9]{0,4}([eE][+-]?[0-9]{0,4})?", fullmatch=True),
    st.from_regex(r"-?[0-9]{1,4}[eE][+-]?[0-9]{1,4}", fullmatch=True),
    st.builds(lambda body: f'"{body}"', st.text(st.sampled_from('ab\\"\0 é'), max_size=6)),
    st.sampled_from(["true", "FALSE", "True", "fAlSe", "falſe", "undefined", "error", "tru"]),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@example("9223372036854775807")
@example("999999999999999999")
@example("-0")
@example("007")
@example('"a\\\\"')
@example('"a\\"')
@given(_LITERAL_TEXTS)
def test_literal_shortcut_is_the_parser(text: str) -> None:
    fast = _fast_literal(text)
    try:
        slow = _literal_or_expr(parse(text, old_strings=True))
    except ClassAdSyntaxError:
        assert fast is _NO_LITERAL
        return
    if fast is not _NO_LITERAL:
        assert type(fast) is type(slow) and fast == slow


# ---------------------------------------------------------------- positioned errors


def test_error_deep_in_a_long_dump_names_its_line_and_column() -> None:
    texts = slot_ads(_classad2(), 3)
    bad = texts[2].replace("\nRank = 0.0\n", "\nRank = 0.0 +* 1\n")
    dump = long_dump([*texts[:2], bad])
    line = dump.splitlines().index("Rank = 0.0 +* 1") + 1
    with pytest.raises(ClassAdSyntaxError) as info:
        load_ads(dump)
    assert (info.value.line, info.value.column) == (line, 13)
    assert info.value.source_line == "Rank = 0.0 +* 1"


def test_error_in_a_repeated_line_is_reported_at_its_first_place() -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        load_ads("A = 1\nB = (\n\nA = 2\nB = (\n")
    assert (info.value.line, info.value.column) == (2, 5)


def test_error_in_a_json_dump_names_its_line() -> None:
    texts = slot_ads_json(_classad2(), 2)
    dump = json_dump(texts).replace("\\/Expr(Cpus)\\/", "\\/Expr(Cpus +)\\/", 1)
    line = next(n for n, text in enumerate(dump.splitlines(), 1) if "Cpus +" in text)
    with pytest.raises(ClassAdSyntaxError) as info:
        load_ads(dump)
    assert info.value.line == line


def test_json_names_that_differ_only_in_case_keep_the_last() -> None:
    (ad,) = load_ads('{"Memory": 1, "memory": "\\/Expr(2 + 1)\\/", "x": null}')
    assert list(ad) == ["memory", "x"] and ad["MEMORY"] == parse("2 + 1")


@pytest.mark.parametrize(
    "number", ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "1" * 5000]
)
def test_json_integers_out_of_range_read_like_the_wheel(number: str) -> None:
    """Top-level and nested: the decoder's integers are put back in int64 range as
    HTCondor's lexer reads them (a number too long for Python's int() too)."""
    classad2 = _classad2()
    text = f'{{"a": {number}, "b": [{number}, 5], "c": {{"d": {number}}}}}'
    theirs = classad2.parseOne(text, classad2.ParserType.JSON)
    (ours,) = load_ads(text)
    for name in ("a", "b", "c"):
        assert same(ours[name], _normalize(theirs.eval(name), classad2)), name
