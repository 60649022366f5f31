"""The schedd's ClassAd user maps: what `userMap("Groups", Owner, ...)` consults (stage:
configuration -> lookup tables).

HTCondor 23.0, src/condor_utils/classad_usermap.cpp `reconfig_user_maps`: a daemon reads
`<SUBSYS>_CLASSAD_USER_MAP_NAMES` (for the schedd `SCHEDD_CLASSAD_USER_MAP_NAMES`); each
name's map comes from the file `CLASSAD_USER_MAPFILE_<name>`, or, when that is not set,
from the text `CLASSAD_USER_MAPDATA_<name>`. The map text is read by
src/condor_utils/MapFile.cpp `MapFile::ParseCanonicalization` with hash (literal) principals:
each line is `METHOD PRINCIPAL CANONICAL` (fields split at blanks; a field may be quoted
`"..."`; a principal written `/regex/` with optional `i`/`U` flags is a regular expression
whose groups `\\0`..`\\9` the canonical text may use); blank lines and lines whose method
starts with `#` are skipped, and so are lines with a missing field. A lookup
(`user_map_do_mapping`) splits `name.method` at the first dot (no dot: method `*`), finds
the method case-insensitively and tries the entries in file order: literal principals
match exactly (case-sensitive), the first matching entry wins.

What this module must not do: evaluate ClassAd (compiler.classad.functions_site's
`userMap` turns the canonical text into the function's value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compiler.config import Config
from compiler.errors import PolicyError


class UserMapError(PolicyError):
    """A user map the schedd would fail to load (a map file that cannot be read)."""


@dataclass(frozen=True, slots=True)
class MapEntry:
    """One line of a map: a literal principal, or a compiled regular expression."""

    principal: str
    canonical: str
    regex: re.Pattern[str] | None = None

    def apply(self, text: str) -> str | None:
        """The canonical text for `text` when this entry matches it, else None."""
        if self.regex is None:
            return self.canonical if text == self.principal else None
        found = self.regex.search(text)
        if found is None:
            return None
        groups = [found.group(0), *(g or "" for g in found.groups())]
        return _substitute(self.canonical, groups)


@dataclass(frozen=True, slots=True)
class UserMap:
    """A parsed map: method (upper case) -> entries in file order."""

    name: str
    methods: Mapping[str, tuple[MapEntry, ...]]

    def lookup(self, method: str, text: str) -> str | None:
        """`MapFile::GetCanonicalization`: the first matching entry's canonical text."""
        for entry in self.methods.get(method.upper(), ()):
            result = entry.apply(text)
            if result is not None:
                return result
        return None


def _substitute(pattern: str, groups: list[str]) -> str:
    """`MapFile::PerformSubstitution`: `\\N` is group N when the match has it; any other
    backslash is kept as written."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            following = pattern[index + 1]
            if following.isdigit() and int(following) < len(groups):
                out.append(groups[int(following)])
                index += 2
                continue
            out.append("\\")
            out.append(following)
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _field(line: str, offset: int, regex_allowed: bool) -> tuple[str, int, str]:
    """`MapFile::ParseField`: (text, next offset, kind) with kind "" / "quoted" / regex
    flags ("/", "/i", "/U", "/iU")."""
    while offset < len(line) and line[offset] in " \t\n":
        offset += 1
    if offset >= len(line):
        return "", offset, ""
    opener = line[offset]
    if opener == '"' or (opener == "/" and regex_allowed):
        offset += 1
        text: list[str] = []
        kind = "quoted" if opener == '"' else "/"
        while offset < len(line):
            char = line[offset]
            if char == opener:
                offset += 1
                if opener == "/":
                    while offset < len(line) and line[offset] in "iU":
                        kind += line[offset]
                        offset += 1
                break
            if char == "\\" and offset + 1 < len(line):
                offset += 1
                following = line[offset]
                text.append(following if following in (opener, "\\") else "\\" + following)
            else:
                text.append(char)
            offset += 1
        return "".join(text), offset, kind
    start = offset
    while offset < len(line) and line[offset] not in " \t\n":
        offset += 1
    return line[start:offset], offset, ""


def parse_map(name: str, text: str) -> UserMap:
    """A map's text read as `ParseCanonicalization(..., assume_hash=true)` reads it.

    `@include` lines are not followed (a map that needs them is refused by the caller's
    file reader; see `user_maps`)."""
    methods: dict[str, list[MapEntry]] = {}
    for line in text.splitlines():
        method, offset, _ = _field(line, 0, regex_allowed=False)
        if not method or method.startswith("#") or method == "@include":
            continue
        principal, offset, kind = _field(line, offset, regex_allowed=True)
        canonical, offset, _ = _field(line, offset, regex_allowed=False)
        if not principal or not canonical:
            continue  # HTCondor logs "Error parsing line" and skips it
        regex = None
        if kind.startswith("/"):
            flags = re.IGNORECASE if "i" in kind else 0
            try:
                regex = re.compile(principal, flags)
            except re.error:
                continue  # "Error compiling expression ... this entry will be ignored"
        methods.setdefault(method.upper(), []).append(MapEntry(principal, canonical, regex))
    return UserMap(name, {m: tuple(entries) for m, entries in methods.items()})


def _names(text: str | None) -> list[str]:
    """A StringList of names (commas and blanks separate)."""
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def user_maps(config: Config, subsystem: str = "SCHEDD") -> dict[str, UserMap]:
    """The maps `reconfig_user_maps` loads for `subsystem`, by name (case-insensitive
    look-up is the caller's: keys are upper case)."""
    maps: dict[str, UserMap] = {}
    for name in _names(config.get(f"{subsystem}_CLASSAD_USER_MAP_NAMES")):
        path = config.get(f"CLASSAD_USER_MAPFILE_{name}")
        if path:
            try:
                text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
            except OSError as err:
                where = config.where(f"CLASSAD_USER_MAPFILE_{name}")
                origin = where.winner if where else None
                raise UserMapError(
                    f"CLASSAD_USER_MAPFILE_{name}: cannot read map file {path}: "
                    f"{err.strerror or err}",
                    file=origin.file if origin else None,
                    line=origin.line if origin and origin.line else None,
                ) from None
            maps[name.upper()] = parse_map(name, text)
            continue
        data = config.get(f"CLASSAD_USER_MAPDATA_{name}")
        if data:
            maps[name.upper()] = parse_map(name, data)
    return maps


def mapper(maps: Mapping[str, UserMap]) -> UserMapper:
    """The function `userMap` calls: (map name, input) -> canonical text or None."""
    return UserMapper(dict(maps))


@dataclass(frozen=True, slots=True)
class UserMapper:
    """`user_map_do_mapping`: `name.method` (method `*` when no dot) over loaded maps."""

    maps: Mapping[str, UserMap]

    def __call__(self, map_name: str, text: str) -> str | None:
        name, dot, method = map_name.partition(".")
        found = self.maps.get(name.upper())
        if found is None:
            return None
        return found.lookup(method if dot else "*", text)
