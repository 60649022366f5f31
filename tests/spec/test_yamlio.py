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
