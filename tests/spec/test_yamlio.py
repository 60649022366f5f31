"""compiler.yamlio.safe_load reads what `yaml.safe_load` reads, and fails as it fails.

The spec data (spec/**/*.yaml) is loaded with libyaml's scanner for speed (issue 11, cold
compile); the pure-Python loader stays the definition. Differential: every shipped YAML
file, texts where the two scanners are known to word their errors differently, and
scalars whose type comes from the resolver (shared by both loaders).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.yamlio import FAST_LOADER, safe_load

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "spec").rglob("*.yaml"))


def _typed(value: Any) -> Any:
    """The value with every scalar's type spelled out (1 == 1.0 == True in Python)."""
    if isinstance(value, dict):
        return {_typed(k): _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def test_the_fast_loader_is_libyaml_when_pyyaml_has_it() -> None:
    """Otherwise the speedup would be lost without anything failing."""
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML built without libyaml: the pure loader is the only one")
    assert FAST_LOADER is yaml.CSafeLoader


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_loads_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _typed(safe_load(text)) == _typed(yaml.safe_load(text))


SCALARS = """\
plain: [1, -2, 0o17, 0x1f, 1_000, 1.5, .5, 1e3, .inf, -.Inf, .nan, 2001-12-14, yes, No,
  on, off, true, FALSE, null, ~, '', "a\\tb", 010, 0b101, +1, 1:30, 12:30:45]
block: |
  START = KeyboardIdle > 15 * $(MINUTE)
folded: >
  one
  two
"""


def test_resolved_scalars_agree() -> None:
    loaded = safe_load(SCALARS)
    assert repr(_typed(loaded)) == repr(_typed(yaml.safe_load(SCALARS)))  # nan != nan


BROKEN = [
    "a: [1, 2\n",
    "a: b: c\n",
    "key: 'unterminated\n",
    "- a\nb: c\n",
    "a:\n\t- tab\n",
    "a: *undefined_alias\n",
    "!!python/object:os.system x\n",
    "a: 1\na: 2\n",  # duplicate keys: both loaders keep the last
    "\x07 control character\n",
]


@pytest.mark.parametrize("text", BROKEN)
def test_errors_and_edge_cases_are_the_pure_loaders(text: str) -> None:
    try:
        expected: Any = ("data", _typed(yaml.safe_load(text)))
    except yaml.YAMLError as err:
        expected = ("error", type(err).__name__, str(err))
    try:
        got: Any = ("data", _typed(safe_load(text)))
    except yaml.YAMLError as err:
        got = ("error", type(err).__name__, str(err))
    assert got == expected


# -- the constructor: plain nodes built directly, the rest by the safe constructor ------

SHAPES = [
    "a: &x [1, {b: c}]\nd: *x\ne: {f: *x}\n",  # aliases: the same object
    "base: &b {x: 1, y: two}\nmerged: {<<: *b, y: 3}\nlist: [{<<: [*b], z: 4}]\n",
    "= : value\nk: {=: 1}\n",  # the `=` key
    "? [1, 2]\n: unhashable\n",  # a key that is not a string: an error
    "{1: one, 2.5: two, null: three, true: four, 2001-01-01: five}\n",
    "a: !!str 12\nb: !!binary aGVsbG8=\nc: !!set {x, y}\nd: !!omap [{p: 1}, {q: 2}]\n",
    "&r [a, *r]\n",  # a list that contains itself
    "&m {a: 1, self: *m}\n",
    "[" * 300 + "x" + "]" * 300 + "\n",  # deeper than the builder goes
    "{a: " * 250 + "b" + "}" * 250 + "\n",
    "- - - []\n  - {}\n- ''\n- \"\"\n",
    "!!map {a: b}\n",
]


def _shape(value: Any, seen: dict[int, int] | None = None) -> Any:
    """`_typed`, with each container numbered by identity (aliases share a number) and a
    container met again inside itself written as its number."""
    seen = {} if seen is None else seen
    if isinstance(value, dict | list):
        if id(value) in seen:
            return ("alias", seen[id(value)])
        seen[id(value)] = len(seen)
        number = seen[id(value)]
        if isinstance(value, dict):
            return (number, [(_shape(k, seen), _shape(v, seen)) for k, v in value.items()])
        return (number, [_shape(v, seen) for v in value])
    return (type(value).__name__, value if not isinstance(value, set) else sorted(value))


@pytest.mark.parametrize("text", SHAPES)
def test_shapes_load_as_the_safe_constructor_loads_them(text: str) -> None:
    try:
        expected: object = _shape(yaml.safe_load(text))
    except yaml.YAMLError as err:
        expected = ("error", type(err).__name__, str(err))
    try:
        ours: object = _shape(safe_load(text))
    except yaml.YAMLError as err:
        ours = ("error", type(err).__name__, str(err))
    assert ours == expected


_LEAVES = st.one_of(
    st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False)
)
_DATA = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(_DATA, st.booleans())
def test_dumped_data_loads_back_alike(data: Any, flow: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow)
    assert _shape(safe_load(text)) == _shape(yaml.safe_load(text))
