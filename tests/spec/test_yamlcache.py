"""compiler.yamlcache: the shipped YAML read once per content, exactly as the loader reads it.

The cache must never change what a reader gets: the data equals `yaml.safe_load` of the
text (a property over generated documents), an edited text is parsed again, a text that does
not parse fails as before and stores nothing, data `marshal` cannot hold is not stored, and
an unwritable folder or PYTHONDONTWRITEBYTECODE only means that nothing is stored. A cold
process that finds the entries does not import PyYAML at all (the point of it: issue 11).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import yamlcache

ROOT = Path(__file__).resolve().parents[2]

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@pytest.fixture(autouse=True)
def _writes_byte_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are written as byte code is: whatever PYTHONDONTWRITEBYTECODE says here."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _source(folder: Path, text: str, name: str = "data.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@settings(max_examples=60, deadline=None)
@given(document=_DOCUMENTS)
def test_data_is_what_safe_load_reads_first_and_second_time(
    tmp_path_factory: pytest.TempPathFactory, document: object
) -> None:
    folder = tmp_path_factory.mktemp("yaml")
    text = yaml.safe_dump(document, allow_unicode=True)
    path = _source(folder, text)
    first = yamlcache.load(text, path)
    assert yamlcache.entry_path(path).exists()
    second = yamlcache.load(text, path)
    assert first == second == yaml.safe_load(text)


def test_an_edited_text_is_parsed_again(tmp_path: Path) -> None:
    path = _source(tmp_path, "a: 1\n")
    assert yamlcache.load("a: 1\n", path) == {"a": 1}
    # Same length, same file: only the text tells the two apart.
    assert yamlcache.load("a: 2\n", path) == {"a": 2}
    assert yamlcache.load("a: 2\n", path) == {"a": 2}


def test_an_entry_written_for_another_text_is_never_returned(tmp_path: Path) -> None:
    path = _source(tmp_path, "x: [1, 2]\n")
    yamlcache.load("x: [1, 2]\n", path)
    yamlcache.entry_path(path).write_bytes(b"not marshal data")
    assert yamlcache.load("x: [1, 2]\n", path) == {"x": [1, 2]}


def test_a_broken_text_fails_as_the_loader_fails_and_stores_nothing(tmp_path: Path) -> None:
    path = _source(tmp_path, "a: [1, 2\n")
    with pytest.raises(yaml.YAMLError):
        yamlcache.load("a: [1, 2\n", path)
    assert not yamlcache.entry_path(path).exists()
    assert issubclass(yamlcache.YAMLError, Exception) and yamlcache.YAMLError is yaml.YAMLError


def test_data_marshal_cannot_hold_is_read_but_not_stored(tmp_path: Path) -> None:
    text = "when: 2004-01-01\n"
    path = _source(tmp_path, text)
    assert yamlcache.load(text, path) == yaml.safe_load(text)
    assert not yamlcache.entry_path(path).exists()


def test_no_entry_without_byte_code_or_a_writable_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _source(tmp_path, "a: 1\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert yamlcache.load("a: 1\n", path) == {"a": 1}
    assert not yamlcache.entry_path(path).exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)

    def refused(*_: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(yamlcache.os, "replace", refused)
    assert yamlcache.load("a: 1\n", path) == {"a": 1}
    assert not yamlcache.entry_path(path).exists()
    assert list(yamlcache.entry_path(path).parent.iterdir()) == []  # no temporary left


def test_a_cold_compile_with_entries_does_not_import_pyyaml() -> None:
    probe = (
        "import contextlib, io, json, sys\n"
        "from runtime.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['compile', '--policy', 'desktop', '--format', 'json'])\n"
        "print(json.dumps({'status': status, 'yaml': 'yaml' in sys.modules}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    results = [json.loads(r.stdout.strip().splitlines()[-1]) for r in runs]
    assert [r["status"] for r in results] == [0, 0], [r.stderr for r in runs]
    if not os.access(ROOT / "spec" / "eras", os.W_OK):
        pytest.skip("the spec folder is read-only here: no entries can be written")
    assert results[1]["yaml"] is False
