"""The machine and job ClassAd attributes the manuals document (spec/attributes.yaml).

Stage: spec data -> a checked, typed table. The policy compiler asks it which unscoped
names a slot ad holds, so that a guard evaluated "locally" (the machine ad alone) can
replace the others by UNDEFINED. Nothing here evaluates anything.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

import msgspec

from compiler import yamlcache
from compiler.errors import PolicyError
from spec import data_path

Side = Literal["machine", "job"]
When = Literal["always", "claimed", "job"]
_WHEN = ("always", "claimed", "job")
_KEYS = {"eras", "when", "meaning"}


class Attribute(msgspec.Struct, frozen=True):
    """One documented attribute: which ad holds it, in which eras, and when."""

    name: str
    side: Side
    eras: tuple[str, ...]
    meaning: str
    when: When | None = None


class Attributes(msgspec.Struct, frozen=True):
    """Every documented attribute; look-ups are case-insensitive, as ClassAd names are."""

    eras: tuple[str, ...]
    entries: tuple[Attribute, ...]

    def machine(self, era: str | None = None) -> frozenset[str]:
        """Lower-case names the slot ad may hold (in `era`, or in any era)."""
        return frozenset(
            a.name.lower()
            for a in self.entries
            if a.side == "machine" and (era is None or era in a.eras)
        )

    def job(self, era: str | None = None) -> frozenset[str]:
        """Lower-case names of job-ad attributes (in `era`, or in any era)."""
        return frozenset(
            a.name.lower()
            for a in self.entries
            if a.side == "job" and (era is None or era in a.eras)
        )

    def get(self, name: str, side: Side | None = None) -> Attribute | None:
        key = name.lower()
        for entry in self.entries:
            if entry.name.lower() == key and (side is None or entry.side == side):
                return entry
        return None


@cache
def load_attributes() -> Attributes:
    """Read and check spec/attributes.yaml (cached). Raises `PolicyError` naming the key."""
    path = data_path("attributes.yaml")
    document: dict[str, Any] = yamlcache.load(path.read_text(encoding="utf-8"), path)
    eras = tuple(document["eras"])
    problems: list[str] = []
    entries: list[Attribute] = []
    for side in ("machine", "job"):
        for name, body in (document.get(side) or {}).items():
            entries.append(_entry(side, str(name), body or {}, eras, problems))
    if problems:
        raise PolicyError("; ".join(problems), file=str(path))
    return Attributes(eras, tuple(entries))


def _entry(
    side: Side, name: str, body: dict[str, Any], eras: tuple[str, ...], problems: list[str]
) -> Attribute:
    where = f"{side}.{name}"
    unknown = set(body) - _KEYS
    if unknown:
        problems.append(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_KEYS)})")
    own = tuple(body.get("eras", eras))
    bad = [e for e in own if e not in eras]
    if bad:
        problems.append(f"{where}.eras: unknown eras {bad} (known: {list(eras)})")
    when = body.get("when")
    if side == "machine" and when not in _WHEN:
        problems.append(f"{where}.when: {when!r} is not one of {list(_WHEN)}")
    if side == "job" and when is not None:
        problems.append(f"{where}.when: only machine attributes have `when`")
    if not body.get("meaning"):
        problems.append(f"{where}.meaning: missing")
    return Attribute(name, side, own, str(body.get("meaning", "")), when)
