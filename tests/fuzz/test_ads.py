"""Fuzzing ad files: long form, new syntax `[...]`, JSON; as text and as bytes on disk.

Contract (tests/fuzz/support.py): a list of ads or a `PolicyError`, never another
exception; and whatever was read evaluates and prints.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from compiler.classad import ast, evaluate, format_value
from compiler.classad.ads import load_ads
from tests.fuzz.support import EXPLORE, FAST, ads, holds, mutated_bytes, texts

FOUND_BYTES = (
    b'A = "caf\xe9"\n',
    b"A = 1\nB = 2 + \xff\n",
    b'[ A = "x\xff"; B = \xfe ]',
    b'{"A": "x\xff"}',
    b"\xef\xbb\xbfA = 1\n",
    b"A = 1\r\nB = 2\r\n",
)


def _use(found: list | None) -> None:
    for ad in found or ():
        for name in list(ad):
            format_value(evaluate(ast.AttrRef(name), ad))


def _read_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.ad"
        path.write_bytes(data)
        _use(holds(load_ads, path))


@FAST
@example('\r\n{"a": [1, 2.5, {"b": null}], "c": "\\/Expr(a[0] + 1)\\/"}')
@example('A = "x"\nB = ' + "!" * 3000 + "A\n")
@example("[" + "a = [" * 3000 + "]" * 3000 + "]")
@example('{"a": ' + "[" * 3000 + "]" * 3000 + "}")
@example("A = " + "1" * 5000 + "\n")
@given(texts(ads()))
def test_ad_text_never_raises_anything_else(text: str) -> None:
    _use(holds(load_ads, text))


@FAST
@given(st.one_of(mutated_bytes(ads()), st.binary(max_size=200), st.sampled_from(FOUND_BYTES)))
def test_ad_file_bytes_never_raise_anything_else(data: bytes) -> None:
    _read_bytes(data)


@pytest.mark.explore
@EXPLORE
@given(st.one_of(texts(ads()), mutated_bytes(ads()).map(lambda b: b.decode("latin-1"))))
def test_ads_explore(text: str) -> None:
    _use(holds(load_ads, text))
    _read_bytes(text.encode("utf-8", "surrogateescape"))
