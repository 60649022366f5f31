"""Fuzzing properties files (`condor-policy check --properties`), mutated from the
examples of docs/properties.md.

Contract (tests/fuzz/support.py): parsed properties or a `PropertiesError`, never another
exception, for text and for bytes on disk.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from runtime.check.properties import parse_properties, read_properties
from tests.fuzz.support import EXPLORE, FAST, holds, mutated_bytes, properties, texts


def _read_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.props"
        path.write_bytes(data)
        text = holds(read_properties, str(path))
        if text is not None:
            holds(parse_properties, text, str(path))


@FAST
@example("never: Claimed/Busy within " + "1" * 5000 + "s of JobStart\n")
@example("always: Owner and LoadAvg > " + "9" * 400 + ".5 => avoids Busy\n")
@example("always: " + "(" * 3000 + "Owner" + ")" * 3000 + " => avoids Busy\n")
@example("always: " + "not " * 3000 + "Owner => avoids Busy\n")
@given(texts(properties()))
def test_properties_text_never_raises_anything_else(text: str) -> None:
    holds(parse_properties, text, "fuzz.props")


@FAST
@example(b"never: Claimed/Bu\xffsy\n")
@given(mutated_bytes(properties()))
def test_properties_file_bytes_never_raise_anything_else(data: bytes) -> None:
    _read_file(data)


@pytest.mark.explore
@EXPLORE
@given(
    st.one_of(texts(properties()), mutated_bytes(properties()).map(lambda b: b.decode("latin-1")))
)
def test_properties_explore(text: str) -> None:
    holds(parse_properties, text, "fuzz.props")
    _read_file(text.encode("utf-8", "surrogateescape"))
