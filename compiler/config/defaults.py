"""Built-in defaults per era (stage: spec data -> the table under every configuration).

HTCondor answers a look-up the file does not define from its built-in parameter table;
Condor 6.x started from the manual's default policy. Both are data under
spec/config/defaults/<era>.yaml. Values are raw: they are expanded at look-up time like
any definition, so redefining MINUTE in a file changes StartIdleTime's default. How the
era's reader reads text (comments in continuations, `NAME : value`) is data too, in
spec/config/eras.yaml: the reader never tests an era's name.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType
from typing import Any

import msgspec

from compiler import yamlcache
from compiler.config.errors import ConfigError
from compiler.spec import ERAS
from spec import data_path


class ReaderOptions(msgspec.Struct, frozen=True):
    """How one era's reader reads configuration text (spec/config/eras.yaml says why).

    `old_comments`: a comment ending in `\\` continues and a `#` line inside a
    continuation is text (Condor 6.x); `colon_warns`: `NAME : value` draws HTCondor's
    "obsolete use of ':'" warning, except for the names in `colon_exempt` (upper case).
    """

    old_comments: bool
    colon_warns: bool
    colon_exempt: frozenset[str]


class EraDefaults(msgspec.Struct, frozen=True):
    """The default table of one era.

    `values` maps upper-cased names to (spelling, raw value); `detected` names are
    computed on the host (compiler/config/host.py); `exported` names were written with
    `:` in the era's manual (6.x: exported to the machine ad).
    """

    era: str
    version: tuple[int, int, int]
    values: MappingProxyType[str, tuple[str, str]]
    detected: frozenset[str]
    exported: frozenset[str]
    reader: ReaderOptions

    def raw(self, name: str) -> str | None:
        entry = self.values.get(name.upper())
        return None if entry is None else entry[1]

    def spelling(self, name: str) -> str:
        entry = self.values.get(name.upper())
        return name if entry is None else entry[0]


def _version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in str(text).split(".")]
    parts += [0] * (3 - len(parts))
    return parts[0], parts[1], parts[2]


@cache
def era_defaults(era: str) -> EraDefaults:
    """Load (once) the defaults of `era`; unknown eras are a ConfigError."""
    if era not in ERAS:
        raise ConfigError(f"unknown era '{era}' (known: {', '.join(ERAS)})")
    source = data_path("config", "defaults", f"{era}.yaml")
    document: dict[str, Any] = yamlcache.load(source.read_text(encoding="utf-8"), source)
    values = {
        str(name).upper(): (str(name), "" if value is None else str(value))
        for name, value in document["defaults"].items()
    }
    return EraDefaults(
        era=era,
        version=_version(document["version"]),
        values=MappingProxyType(values),
        detected=frozenset(n.upper() for n in document.get("detected", [])),
        exported=frozenset(n.upper() for n in document.get("exported", [])),
        reader=_reader_options()[era],
    )


@cache
def _reader_options() -> MappingProxyType[str, ReaderOptions]:
    """Every era's ReaderOptions from spec/config/eras.yaml (each era must have one)."""
    source = data_path("config", "eras.yaml")
    document: dict[str, Any] = yamlcache.load(source.read_text(encoding="utf-8"), source)
    entries: dict[str, Any] = document["eras"]
    missing = [era for era in ERAS if era not in entries]
    if missing:
        raise ConfigError(f"no reader options for era {', '.join(missing)}", file=str(source))
    return MappingProxyType(
        {
            era: ReaderOptions(
                old_comments=bool(entry["old_comments_in_continuation"]),
                colon_warns=bool(entry["colon_assignment_warns"]),
                colon_exempt=frozenset(
                    str(n).upper() for n in entry.get("colon_assignment_exempt") or ()
                ),
            )
            for era, entry in entries.items()
        }
    )
