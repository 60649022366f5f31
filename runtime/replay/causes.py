"""The startd's own reasons (`State change: <why>`) as evidence for which row fired.

Data: spec/replay_causes.yaml (the texts of HTCondor 23.0's startd, each with the kinds of
trigger it names). A step whose change several rows could have made (the log shows only
the pairs) keeps the rows that have such a trigger, when at least one has; the reason
never flags a change (a text this file does not know, or an older startd's wording, just
narrows nothing).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from compiler import yamlcache
from compiler.spec import Trigger
from spec import data_path

_KINDS = ("policy", "immediate", "protocol", "command", "timer")


@dataclass(frozen=True, slots=True)
class Wanted:
    """A trigger the startd's text names: its kind and, if any, the event or timer names
    (protocol, command, timer) or the names a policy guard must mention."""

    kind: str
    names: tuple[str, ...] = ()

    def matches(self, trigger: Trigger) -> bool:
        if trigger.kind != self.kind:
            return False
        if not self.names:
            return True
        if trigger.kind in ("policy", "immediate"):
            words = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", trigger.guard)}
            return any(n.lower() in words for n in self.names)
        return trigger.name in self.names


@dataclass(frozen=True, slots=True)
class Cause:
    text: str
    triggers: tuple[Wanted, ...]


@functools.cache
def load_causes(path: Path | None = None) -> tuple[Cause, ...]:
    """spec/replay_causes.yaml, checked: a malformed entry is a `SpecError`."""
    from compiler.spec import SpecError

    path = path or data_path("replay_causes.yaml")
    data = yamlcache.load(path.read_text(encoding="utf-8"), path)
    entries = data.get("causes") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise SpecError("the file must map 'causes' to a list", file=str(path))
    out = []
    for index, entry in enumerate(entries):
        where = f"causes[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise SpecError(f"{where}: needs a 'text'", file=str(path), key_path=where)
        wanted = []
        for item in entry.get("triggers") or ():
            kind = item.get("kind") if isinstance(item, dict) else None
            names = item.get("names", []) if isinstance(item, dict) else None
            if kind not in _KINDS or not isinstance(names, list):
                raise SpecError(
                    f"{where}: a trigger needs a kind ({', '.join(_KINDS)}) and a list of names",
                    file=str(path),
                    key_path=where,
                )
            wanted.append(Wanted(kind, tuple(str(n) for n in names)))
        if not wanted:
            raise SpecError(f"{where}: no triggers", file=str(path), key_path=where)
        out.append(Cause(entry["text"], tuple(wanted)))
    return tuple(out)


def wanted_for(texts: Iterable[str]) -> tuple[Wanted, ...]:
    """The triggers the startd's reasons name (texts matched as prefixes)."""
    found: list[Wanted] = []
    for text in texts:
        for cause in load_causes():
            if text.startswith(cause.text):
                found.extend(cause.triggers)
    return tuple(found)


def fired_by(triggers: Sequence[Trigger], wanted: Sequence[Wanted]) -> bool:
    """Whether a row with `triggers` has one the startd's reasons name."""
    return any(w.matches(t) for t in triggers for w in wanted)
