"""Fuzzing era spec files (compiler.spec.load_spec_file) in a scratch copy of spec/eras.

Contract (tests/fuzz/support.py): a checked spec or a `SpecError`, never another
exception. One era file (or the vocabulary, base.yaml) is mutated per example.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.spec import load_spec_file
from tests.fuzz.support import EXPLORE, FAST, holds, mutated, spec_files

NAMES = tuple(spec_files())


@st.composite
def _mutated_spec(draw: st.DrawFn) -> tuple[str, str, str]:
    """(file mutated, its new text, era loaded)."""
    name = draw(st.sampled_from(NAMES))
    era = name if name != "base.yaml" else draw(st.sampled_from([n for n in NAMES if n != name]))
    return name, draw(mutated([spec_files()[name]], max_edits=3)), era


def _load(name: str, text: str, era: str, semantics: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for file, original in spec_files().items():
            (Path(folder) / file).write_text(original, encoding="utf-8")
        (Path(folder) / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        holds(load_spec_file, Path(folder) / era, semantics)


@settings(FAST, max_examples=10)
@example(("condor-6.4.yaml", "\udcff# a byte that is not UTF-8\n", "condor-6.4.yaml"), "manual")
@given(_mutated_spec(), st.sampled_from(["manual", "code"]))
def test_spec_never_raises_anything_else(case: tuple[str, str, str], semantics: str) -> None:
    _load(*case, semantics)


@pytest.mark.explore
@EXPLORE
@given(_mutated_spec(), st.sampled_from(["manual", "code"]))
def test_spec_explore(case: tuple[str, str, str], semantics: str) -> None:
    _load(*case, semantics)
