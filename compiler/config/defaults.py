"""Built-in defaults per era (stage: spec data -> the table under every configuration).

HTCondor answers a look-up the file does not define from its built-in parameter table;
Condor 6.x started from the manual's default policy. Both are data under
spec/config/defaults/<era>.yaml. Values are raw: they are expanded at look-up time like
any definition, so redefining MINUTE in a file changes StartIdleTime's default.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

import yaml

from compiler.config.errors import ConfigError

#: The eras the reader knows, oldest first.
ERAS = ("condor-6.4", "condor-6.8", "htcondor-current")


@dataclass(frozen=True, slots=True)
class EraDefaults:
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
    source = resources.files("spec.config.defaults").joinpath(f"{era}.yaml")
    document: dict[str, Any] = yaml.safe_load(source.read_text(encoding="utf-8"))
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
    )
