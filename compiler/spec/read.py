"""Reading spec/eras/ files: the schema's key lists, YAML reading, error collection, the
vocabulary (base.yaml) and the `extends` merge.

Stage: data -> raw merged mappings (resolved into the IR by `compiler.spec.resolve`). Reads
YAML with a safe loader only (`compiler.yamlio.safe_load`, its data kept by
`compiler.yamlcache`) and evaluates nothing. Problems are collected, never raised one by one, so that a file's author sees all of them at once
(`Errors.raise_if_any`). An era file may `extends:` another era: its mapping entries
replace or shallow-merge the parent's (`name: null` drops one, `section: null` drops a
section), its transitions replace rows with the same number key by key (`remove: true`
drops one; `inherit_transitions: false` drops all), its lists (publish, event_effects)
replace the parent's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from compiler import yamlcache
from compiler.classad import ast as A
from compiler.classad import parse
from compiler.errors import PolicyError, close_matches
from compiler.textio import decode
from spec import data_path

ERA_DIR = data_path("eras")
VOCABULARY = "base.yaml"
ERAS: tuple[str, ...] = ("condor-6.4", "condor-6.8", "htcondor-current")
#: The era a command or trace uses when it names none: the newest.
DEFAULT_ERA = ERAS[-1]
SEMANTICS: tuple[str, ...] = ("manual", "code")
_VARIANT_KEYS = frozenset(SEMANTICS)
UNNUMBERED = re.compile(r"^unnumbered:[a-z][a-z0-9_]*$")

ERA_KEYS = (
    "era", "extends", "title", "seed", "code", "numbered_transitions", "states", "initial",
    "pairs", "activity_choice", "policies", "timers", "polling", "options", "publish",
    "event_effects", "letters", "letter_citation", "transitions", "inherit_transitions",
)  # fmt: skip
_MAP_SECTIONS = ("states", "pairs", "activity_choice", "policies", "timers", "letters", "options")
_DICT_SECTIONS = ("polling", "letter_citation")
_LIST_SECTIONS = ("publish", "event_effects")
VOCAB_KEYS = (
    "states", "activities", "events", "predicates", "actions", "policies", "attributes",
    "options", "helpers",
)  # fmt: skip
EVENT_KEYS = ("kind", "how", "default_how", "meaning", "effects", "citation")
OPTION_KEYS = ("values", "default", "meaning")
HELPER_KEYS: dict[str, tuple[str, ...]] = {
    "retirement_remaining": (
        "meaning", "limit", "job_limit", "peaceful_unlimited_unless",
        "drains_without_retirement", "citation",
    ),
    "max_vacate_time": ("meaning", "limit", "job_limits", "citation"),
    "cpu_busy": ("meaning", "expression", "publish", "citation"),
}  # fmt: skip
STATE_KEYS = ("activities", "on_enter", "on_exit", "internal", "semantics")
PAIR_KEYS = ("on_enter", "on_exit", "evaluate_on_entry")
ROW_KEYS = (
    "number", "letter", "from", "to", "summary", "triggers", "actions", "citation",
    "semantics", "difference", "remove",
)  # fmt: skip
TRIGGER_KEYS = (
    "kind", "event", "timer", "how", "guard", "against", "order", "actions", "activity",
    "semantics", "difference", "note",
)  # fmt: skip
CITATION_KEYS = ("section", "anchor", "functions", "reference", "recovered", "seed")
POLICY_KEYS = ("aliases", "variants", "default", "if_undefined", "difference")
TIMER_KEYS = (
    "kind", "default", "default_text", "meaning", "on_expiry", "predicate", "citation",
    "semantics", "difference",
)  # fmt: skip
LETTER_KEYS = ("from", "to", "numbers", "cause", "citation")
CHOICE_KEYS = ("manual", "code", "difference")
CHOICE_ENTRY_KEYS = ("guard", "activity", "against")
POLLING_KEYS = (
    "POLLING_INTERVAL", "UPDATE_INTERVAL", "fast_states", "start_on_entry", "difference",
)  # fmt: skip
PUBLISH_KEYS = ("states", "attribute", "value", "note", "semantics", "difference")
EFFECT_KEYS = ("event", "from", "how", "actions", "semantics")
TRIGGER_KINDS = ("policy", "timer", "protocol", "command", "immediate")
AGAINST = ("local", "job", "preempting_job")


class SpecError(PolicyError):
    """A spec file is malformed; `.key_path` locates the first problem, `.problems` all."""

    def __init__(self, message: str, *, file: str, key_path: str = "",
                 problems: tuple[str, ...] = ()) -> None:  # fmt: skip
        super().__init__(message, file=file)
        self.key_path = key_path
        self.problems = problems or (message,)


class Errors(msgspec.Struct):
    """Problems collected while checking, grouped by file."""

    found: list[tuple[str, str, str]] = msgspec.field(default_factory=list)
    texts: dict[str, str] = msgspec.field(default_factory=dict)  # shown path -> file text
    fatal: bool = False  # a file could not be read at all: resolving it would only add noise

    def add(self, file: str, path: str, problem: str, *, fatal: bool = False) -> None:
        self.fatal = self.fatal or fatal
        self.found.append((file, path, problem))

    def raise_if_any(self) -> None:
        if not self.found:
            return
        file, path, _ = self.found[0]
        lines = tuple(f"{p}: {m}" if p else m for f, p, m in self.found if f == file)
        others = tuple(f"{f}: {p}: {m}" for f, p, m in self.found if f != file)
        error = SpecError("\n".join(lines + others), file=file, key_path=path,
                          problems=lines + others)  # fmt: skip
        text = self.texts.get(file)
        line = line_of(text, path) if text is not None else None
        if line is not None and text is not None:
            error.line = line
            error.source_line = text.splitlines()[line - 1]
        raise error


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def line_of(text: str, key_path: str) -> int | None:
    """1-based line of the YAML node at `key_path` ("transitions[3].to"), or of its nearest
    existing parent; None when the text does not parse."""
    import yaml  # only to place an error: a file that loads has no need of PyYAML

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line: int | None = node.start_mark.line + 1 if node is not None else None
    for key, index in _PATH_PART.findall(key_path):
        if index and isinstance(node, yaml.SequenceNode) and int(index) < len(node.value):
            node = node.value[int(index)]
            line = node.start_mark.line + 1
        elif key and isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if str(k.value) == key), None)
            if found is None:  # e.g. an unknown key reported with its own name: keep the parent
                return line
            line, node = found[0].start_mark.line + 1, found[1]
        else:
            break
    return line


def display_path(path: Path) -> str:
    """Path as shown in messages: relative to the repository when inside it."""
    root = ERA_DIR.parent.parent
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def read_yaml(path: Path, errors: Errors) -> dict[str, Any]:
    shown = display_path(path)
    try:
        text = decode(path.read_bytes(), shown)  # not UTF-8: a positioned PolicyError
        errors.texts[shown] = text
        data = yamlcache.load(text, path)
    except OSError as exc:
        errors.add(shown, "", f"cannot read: {exc.strerror}", fatal=True)
        return {}
    except yamlcache.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        errors.add(shown, where, f"not valid YAML: {getattr(exc, 'problem', exc)}", fatal=True)
        return {}
    if not isinstance(data, dict):
        errors.add(shown, "", "the file must hold a mapping", fatal=True)
        return {}
    return data


def check_keys(errors: Errors, file: str, path: str, value: object, allowed: Iterable[str]) -> dict:
    """`value` as a dict, reporting a non-mapping or unknown keys (naming the allowed ones)."""
    allowed = tuple(allowed)
    if not isinstance(value, dict):
        errors.add(file, path, f"expected a mapping, got {type(value).__name__}")
        return {}
    for key in value:
        if key not in allowed:
            close = close_matches(str(key), allowed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            where = f"{path}.{key}" if path else str(key)
            errors.add(file, where, f"unknown key '{key}' (allowed: {', '.join(allowed)}){hint}")
    return value


def check_known(errors: Errors, file: str, path: str, what: str, name: object,
           known: Iterable[str]) -> bool:  # fmt: skip
    known = tuple(known)
    if name in known:
        return True
    close = close_matches(str(name), known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    errors.add(file, path, f"unknown {what} '{name}' (known: {', '.join(known)}){hint}")
    return False


def pick(value: Any, semantics: str) -> Any:
    """Resolve a `{manual: x, code: y}` value for one semantics (other values unchanged)."""
    if isinstance(value, dict) and value and set(value) <= _VARIANT_KEYS:
        return value.get(semantics)
    return value


def applies(entry: Mapping[str, Any], semantics: str) -> bool:
    return entry.get("semantics", "both") in ("both", semantics)


# --------------------------------------------------------------------------- vocabulary


class Vocabulary(msgspec.Struct, frozen=True):
    """spec/eras/base.yaml: every name an era may use, with its meaning."""

    file: str
    states: Mapping[str, str]
    activities: Mapping[str, str]
    events: Mapping[str, Mapping[str, Any]]
    predicates: Mapping[str, str]
    actions: Mapping[str, Mapping[str, Any]]
    policies: Mapping[str, str]
    attributes: Mapping[str, str]
    options: Mapping[str, Mapping[str, Any]]
    helpers: Mapping[str, Mapping[str, Any]]


def read_vocabulary(directory: Path, errors: Errors) -> Vocabulary:
    path = directory / VOCABULARY
    file = display_path(path)
    data = check_keys(errors, file, "", read_yaml(path, errors), VOCAB_KEYS)
    sections = {k: data.get(k) or {} for k in VOCAB_KEYS}
    for key, entries in sections.items():
        if not isinstance(entries, dict):
            errors.add(file, key, "expected a mapping")
            sections[key] = {}
    for name, event in sections["events"].items():
        entry = check_keys(errors, file, f"events.{name}", event, EVENT_KEYS)
        if (
            entry
            and "default_how" in entry
            and entry["default_how"] not in (entry.get("how") or [])
        ):
            errors.add(file, f"events.{name}.default_how", "the default must be one of `how`")
    for name, action in sections["actions"].items():
        check_keys(errors, file, f"actions.{name}", action, ("args", "meaning"))
    for name, option in sections["options"].items():
        entry = check_keys(errors, file, f"options.{name}", option, OPTION_KEYS)
        if entry and entry.get("default") not in (entry.get("values") or []):
            errors.add(file, f"options.{name}.default", "the default must be one of the values")
    check_keys(errors, file, "helpers", sections["helpers"], HELPER_KEYS)
    for name, helper in sections["helpers"].items():
        if name in HELPER_KEYS:
            entry = check_keys(errors, file, f"helpers.{name}", helper, HELPER_KEYS[name])
            for key in HELPER_KEYS[name]:
                if key not in entry:
                    errors.add(file, f"helpers.{name}", f"required key '{key}' is missing")
    missing = [name for name in HELPER_KEYS if name not in sections["helpers"]]
    if missing:
        errors.add(file, "helpers", f"missing helpers: {', '.join(missing)}")
    return Vocabulary(file, *(sections[k] for k in VOCAB_KEYS))


# --------------------------------------------------------------------------- merging


class Merged(msgspec.Struct):
    """An era file with its `extends` chain applied; every entry remembers its file/path."""

    files: list[str] = msgspec.field(default_factory=list)
    scalars: dict[str, tuple[str, Any]] = msgspec.field(default_factory=dict)
    maps: dict[str, dict[str, tuple[str, str, Any]]] = msgspec.field(default_factory=dict)
    rows: list[tuple[str, str, dict[str, Any]]] = msgspec.field(default_factory=list)


def row_key(row: Mapping[str, Any]) -> str:
    return f"{row.get('number')}@{row.get('from')}"


def merge_era(
    directory: Path, era_file: Path, errors: Errors, seen: tuple[str, ...] = ()
) -> Merged:
    file = display_path(era_file)
    data = check_keys(errors, file, "", read_yaml(era_file, errors), ERA_KEYS)
    parent = data.get("extends")
    merged = Merged()
    if parent is not None:
        if parent in seen:
            errors.add(
                file, "extends", f"circular extends: {' -> '.join((*seen, parent))}", fatal=True
            )
        else:
            merged = merge_era(directory, directory / f"{parent}.yaml", errors, (*seen, parent))
    merged.files.append(file)
    if data.get("inherit_transitions", True) is False:
        merged.rows = []
    for key, value in data.items():
        if (key in _MAP_SECTIONS or key in _DICT_SECTIONS) and value is None:
            merged.maps.pop(key, None)  # `section: null` drops the inherited section
        elif key in _MAP_SECTIONS or key in _DICT_SECTIONS:
            entries = value if key in _MAP_SECTIONS else {"": value}
            if not isinstance(entries, dict):
                errors.add(file, key, "expected a mapping")
                continue
            section = merged.maps.setdefault(key, {})
            for name, entry in entries.items():
                old = section.get(name)
                path = f"{key}.{name}" if name != "" else key
                if entry is None:
                    section.pop(name, None)
                elif old is not None and isinstance(old[2], dict) and isinstance(entry, dict):
                    section[name] = (file, path, {**old[2], **entry})
                else:
                    section[name] = (file, path, entry)
        elif key == "transitions":
            merge_rows(merged, file, value, errors)
        elif key not in ("extends", "inherit_transitions"):
            merged.scalars[key] = (file, value)
    return merged


def merge_rows(merged: Merged, file: str, rows: object, errors: Errors) -> None:
    if not isinstance(rows, list):
        errors.add(file, "transitions", "expected a list")
        return
    index = {row_key(r): i for i, (_, _, r) in enumerate(merged.rows)}
    here: dict[str, str] = {}  # keys written by this file: a second one is a duplicate
    for i, row in enumerate(rows):
        path = f"transitions[{i}]"
        if not isinstance(row, dict):
            errors.add(file, path, "expected a mapping")
            continue
        key = row_key(row) if "from" in row else None
        if key is None:  # an override may omit `from`: match by number alone
            hits = [
                j for j, (_, _, r) in enumerate(merged.rows) if r.get("number") == row.get("number")
            ]
            key = row_key(merged.rows[hits[0]][2]) if len(hits) == 1 else f"{row.get('number')}@?"
        if key in here:
            errors.add(file, f"{path}.number", f"duplicate number {row.get('number')} from "
                       f"{row.get('from')} (also {here[key]})")  # fmt: skip
            continue
        here[key] = path
        if key in index:
            _, _, old = merged.rows[index[key]]
            if row.get("remove"):
                merged.rows[index[key]] = (file, path, {"remove": True})
            else:
                merged.rows[index[key]] = (file, path, {**old, **row})
        else:
            index[key] = len(merged.rows)
            merged.rows.append((file, path, row))
    merged.rows = [r for r in merged.rows if not r[2].get("remove")]


# --------------------------------------------------------------------------- guards


@lru_cache(maxsize=4096)
def guard_names(text: str) -> tuple[str, ...]:
    """Attribute names a guard refers to, as written and in order of first appearance
    (the name of every attribute reference, its `MY.`/`TARGET.` scope dropped; not
    functions, literals or strings). An empty guard names nothing. Kept per text: a
    fired transition's values are those its guard names (`runtime.fired`), and a pool's
    tables have few guards.

    Raises `ClassAdSyntaxError` (a PolicyError) when `text` is not a ClassAd expression.
    """
    if not text.strip():
        return ()
    return tuple(dict.fromkeys(ref.name for ref in A.find_all(parse(text), A.AttrRef)))
