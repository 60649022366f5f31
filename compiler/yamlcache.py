"""The shipped YAML data files, read once per content and kept in `__pycache__` as Python
keeps byte code (issue 11, cold compile).

Stage: data. A cold `condor-policy compile` reads seven of the spec's YAML files (the
vocabulary, the era and the eras it extends, the era's defaults, the reader options, the
metaknob templates, the attribute tables): importing PyYAML and scanning them was about a
fifth of the whole process. `load(text, source)` gives exactly `compiler.yamlio.safe_load
(text)`; after a first parse it stores `(text, data)` with `marshal` in
`<source's folder>/__pycache__/<name>.<interpreter tag>.yaml-data`, and a later process that
finds an entry whose text is the very text it was given returns the stored data without
importing PyYAML. Nothing is trusted but an exact match of the whole text: an edited file is
simply parsed again (and its entry replaced), a file whose data `marshal` cannot hold (dates,
say) is never stored, a text that does not parse raises the loader's own error and stores
nothing. Like byte code, the entry is written only when the folder is writable and the
interpreter writes byte code (`sys.dont_write_bytecode`, PYTHONDONTWRITEBYTECODE).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Bumped whenever `compiler.yamlio` builds different data from the same text.
FORMAT = 1
#: The folder of the entries, next to each source (the same one as byte code).
CACHE_DIR = "__pycache__"


def entry_path(source: Path) -> Path:
    """Where the entry of `source` lives."""
    tag = sys.implementation.cache_tag or "python"
    return source.parent / CACHE_DIR / f"{source.name}.{tag}.yaml-data"


def load(text: str, source: Path) -> Any:
    """`compiler.yamlio.safe_load(text)` for the text of file `source`, from its cached
    entry when that entry holds this very text."""
    entry = entry_path(source)
    try:
        stored = marshal.loads(entry.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        stored = None
    if type(stored) is tuple and len(stored) == 3 and stored[0] == FORMAT and stored[1] == text:
        return stored[2]
    from compiler.yamlio import safe_load  # imports PyYAML: only when there is no entry

    data = safe_load(text)
    if not sys.dont_write_bytecode:
        _store(entry, text, data)
    return data


def _store(entry: Path, text: str, data: Any) -> None:
    """Write the entry atomically (a reader never sees half of it); give up quietly when the
    data has a type `marshal` cannot hold or the folder cannot be written."""
    try:
        blob = marshal.dumps((FORMAT, text, data))
    except ValueError:
        return
    temporary = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(exist_ok=True)
        temporary.write_bytes(blob)
        os.replace(temporary, entry)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def __getattr__(name: str) -> Any:
    """`YAMLError`, PyYAML's error class, imported when first named: an `except` clause
    naming it is evaluated only while an exception propagates, so a reader that catches it
    costs nothing when its file loads from the cache."""
    if name == "YAMLError":
        import yaml

        return yaml.YAMLError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def spec_entry(file: str, section: str, key: str, what: str) -> Mapping[str, Any]:
    """`<section>.<key>` of the spec data file `file` (spec/<file>), e.g. the `code`
    entry of spec/slots.yaml's `semantics`; a PolicyError naming `what` when there is
    none (an unknown semantics or era)."""
    from compiler.errors import PolicyError
    from spec import data_path

    path = data_path(file)
    document = load(path.read_text(encoding="utf-8"), path)
    entry = (document.get(section) or {}).get(key)
    if not isinstance(entry, Mapping):
        raise PolicyError(f"unknown {what} '{key}'", file=str(path))
    return entry
