"""Load, merge, check and resolve the spec/eras/ YAML files into `compiler.spec.ir` objects.

Stage: data -> IR. Reads YAML with `yaml.safe_load` only, never evaluates anything, and
reports every problem of a file at once as one `SpecError` whose message lines read
`<key path>: <problem>` (file in `.file`). An era file may `extends:` another era: its
mapping entries replace or shallow-merge the parent's, its transitions replace rows with
the same number (`remove: true` drops one), its lists replace the parent's lists.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import yaml

from compiler.errors import PolicyError
from compiler.spec import ir
from compiler.spec.ir import Action, ActivityChoice, Citation, Pair, Trigger
from spec import data_path

ERA_DIR = data_path("eras")
VOCABULARY = "base.yaml"
ERAS: tuple[str, ...] = ("condor-6.4", "condor-6.8", "htcondor-current")
SEMANTICS: tuple[str, ...] = ("manual", "code")
_VARIANT_KEYS = frozenset(SEMANTICS)
_UNNUMBERED = re.compile(r"^unnumbered:[a-z][a-z0-9_]*$")
_KEYWORDS = frozenset({"true", "false", "undefined", "error", "is", "isnt"})
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?|\S')

ERA_KEYS = (
    "era", "extends", "title", "seed", "code", "numbered_transitions", "states", "initial",
    "pairs", "activity_choice", "policies", "timers", "polling", "options", "publish",
    "event_effects", "letters", "letter_citation", "transitions", "inherit_transitions",
)  # fmt: skip
_MAP_SECTIONS = ("states", "pairs", "activity_choice", "policies", "timers", "letters", "options")
_DICT_SECTIONS = ("polling", "letter_citation")
_LIST_SECTIONS = ("publish", "event_effects")
VOCAB_KEYS = ("states", "activities", "events", "predicates", "actions", "policies", "attributes")
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
POLLING_KEYS = ("POLLING_INTERVAL", "UPDATE_INTERVAL", "fast_states", "difference")
PUBLISH_KEYS = ("states", "attribute", "value", "note", "semantics", "difference")
EFFECT_KEYS = ("event", "from", "how", "actions", "semantics")
TRIGGER_KINDS = ("policy", "timer", "protocol", "command", "immediate")
AGAINST = ("local", "job", "preempting_job")
_JOB_STATES = frozenset({"Claimed", "Preempting"})


class SpecError(PolicyError):
    """A spec file is malformed; `.key_path` locates the first problem, `.problems` all."""

    def __init__(self, message: str, *, file: str, key_path: str = "",
                 problems: tuple[str, ...] = ()) -> None:  # fmt: skip
        super().__init__(message, file=file)
        self.key_path = key_path
        self.problems = problems or (message,)


@dataclass
class _Errors:
    """Problems collected while checking, grouped by file."""

    found: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, file: str, path: str, problem: str) -> None:
        self.found.append((file, path, problem))

    def raise_if_any(self) -> None:
        if not self.found:
            return
        file, path, _ = self.found[0]
        lines = tuple(f"{p}: {m}" if p else m for f, p, m in self.found if f == file)
        others = tuple(f"{f}: {p}: {m}" for f, p, m in self.found if f != file)
        raise SpecError("\n".join(lines + others), file=file, key_path=path,
                        problems=lines + others)  # fmt: skip


def _display(path: Path) -> str:
    """Path as shown in messages: relative to the repository when inside it."""
    root = ERA_DIR.parent.parent
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def _read(path: Path, errors: _Errors) -> dict[str, Any]:
    shown = _display(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        errors.add(shown, "", f"cannot read: {exc.strerror}")
        return {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        errors.add(shown, where, f"not valid YAML: {getattr(exc, 'problem', exc)}")
        return {}
    if not isinstance(data, dict):
        errors.add(shown, "", "the file must hold a mapping")
        return {}
    return data


def _keys(errors: _Errors, file: str, path: str, value: object, allowed: Iterable[str]) -> dict:
    """`value` as a dict, reporting a non-mapping or unknown keys (naming the allowed ones)."""
    allowed = tuple(allowed)
    if not isinstance(value, dict):
        errors.add(file, path, f"expected a mapping, got {type(value).__name__}")
        return {}
    for key in value:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            where = f"{path}.{key}" if path else str(key)
            errors.add(file, where, f"unknown key '{key}' (allowed: {', '.join(allowed)}){hint}")
    return value


def _known(errors: _Errors, file: str, path: str, what: str, name: object,
           known: Iterable[str]) -> bool:  # fmt: skip
    known = tuple(known)
    if name in known:
        return True
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    errors.add(file, path, f"unknown {what} '{name}' (known: {', '.join(known)}){hint}")
    return False


def pick(value: Any, semantics: str) -> Any:
    """Resolve a `{manual: x, code: y}` value for one semantics (other values unchanged)."""
    if isinstance(value, dict) and value and set(value) <= _VARIANT_KEYS:
        return value.get(semantics)
    return value


def _applies(entry: Mapping[str, Any], semantics: str) -> bool:
    return entry.get("semantics", "both") in ("both", semantics)


# --------------------------------------------------------------------------- vocabulary


@dataclass(frozen=True)
class Vocabulary:
    """spec/eras/base.yaml: every name an era may use, with its meaning."""

    file: str
    states: Mapping[str, str]
    activities: Mapping[str, str]
    events: Mapping[str, Mapping[str, Any]]
    predicates: Mapping[str, str]
    actions: Mapping[str, Mapping[str, Any]]
    policies: Mapping[str, str]
    attributes: Mapping[str, str]


def _vocabulary(directory: Path, errors: _Errors) -> Vocabulary:
    path = directory / VOCABULARY
    file = _display(path)
    data = _keys(errors, file, "", _read(path, errors), VOCAB_KEYS)
    sections = {k: data.get(k) or {} for k in VOCAB_KEYS}
    for key, entries in sections.items():
        if not isinstance(entries, dict):
            errors.add(file, key, "expected a mapping")
            sections[key] = {}
    for name, event in sections["events"].items():
        _keys(errors, file, f"events.{name}", event, ("kind", "how", "meaning"))
    for name, action in sections["actions"].items():
        _keys(errors, file, f"actions.{name}", action, ("args", "meaning"))
    return Vocabulary(file, *(sections[k] for k in VOCAB_KEYS))


# --------------------------------------------------------------------------- merging


@dataclass
class _Merged:
    """An era file with its `extends` chain applied; every entry remembers its file/path."""

    files: list[str] = field(default_factory=list)
    scalars: dict[str, tuple[str, Any]] = field(default_factory=dict)
    maps: dict[str, dict[str, tuple[str, str, Any]]] = field(default_factory=dict)
    rows: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


def _row_key(row: Mapping[str, Any]) -> str:
    return f"{row.get('number')}@{row.get('from')}"


def _merge(directory: Path, era_file: Path, errors: _Errors, seen: tuple[str, ...] = ()) -> _Merged:
    file = _display(era_file)
    data = _keys(errors, file, "", _read(era_file, errors), ERA_KEYS)
    parent = data.get("extends")
    merged = _Merged()
    if parent is not None:
        if parent in seen:
            errors.add(file, "extends", f"circular extends: {' -> '.join((*seen, parent))}")
        else:
            merged = _merge(directory, directory / f"{parent}.yaml", errors, (*seen, parent))
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
            _merge_rows(merged, file, value, errors)
        elif key not in ("extends", "inherit_transitions"):
            merged.scalars[key] = (file, value)
    return merged


def _merge_rows(merged: _Merged, file: str, rows: object, errors: _Errors) -> None:
    if not isinstance(rows, list):
        errors.add(file, "transitions", "expected a list")
        return
    index = {_row_key(r): i for i, (_, _, r) in enumerate(merged.rows)}
    for i, row in enumerate(rows):
        path = f"transitions[{i}]"
        if not isinstance(row, dict):
            errors.add(file, path, "expected a mapping")
            continue
        key = _row_key(row) if "from" in row else None
        if key is None:  # an override may omit `from`: match by number alone
            hits = [
                j for j, (_, _, r) in enumerate(merged.rows) if r.get("number") == row.get("number")
            ]
            key = _row_key(merged.rows[hits[0]][2]) if len(hits) == 1 else f"{row.get('number')}@?"
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


def guard_names(text: str) -> tuple[str, ...]:
    """Attribute names a guard refers to (not functions, keywords, strings or scopes)."""
    tokens = _TOKEN.findall(text)
    names: list[str] = []
    for i, token in enumerate(tokens):
        if not (token[0].isalpha() or token[0] == "_"):
            continue
        if token.lower() in _KEYWORDS or (i + 1 < len(tokens) and tokens[i + 1] == "("):
            continue
        names.append(token.split(".")[-1] if "." in token else token)
    return tuple(dict.fromkeys(names))


def _classad_parser() -> Callable[[str], object] | None:
    """`compiler.classad.parse` once it exists (landing in parallel), else None."""
    from compiler import classad

    return cast("Callable[[str], object] | None", getattr(classad, "parse", None))


# --------------------------------------------------------------------------- resolving


class _Resolver:
    """Turns one merged era into an `EraSpec` for one semantics, collecting problems."""

    def __init__(self, vocab: Vocabulary, merged: _Merged, semantics: str, errors: _Errors) -> None:
        self.v = vocab
        self.m = merged
        self.sem = semantics
        self.errors = errors
        self.parse = _classad_parser()
        self.policy_names: dict[str, str] = {}
        self.timer_names: tuple[str, ...] = ()

    def err(self, file: str, path: str, problem: str) -> None:
        self.errors.add(file, path, problem)

    def scalar(self, key: str, default: Any = None) -> tuple[str, Any]:
        return self.m.scalars.get(key, (self.m.files[-1], default))

    def section(self, key: str) -> dict[str, tuple[str, str, Any]]:
        return self.m.maps.get(key, {})

    # ---- small pieces

    def actions(self, file: str, path: str, raw: object) -> tuple[Action, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.err(file, path, "expected a list of actions")
            return ()
        out: list[Action] = []
        for i, item in enumerate(raw):
            where = f"{path}[{i}]"
            name, arg = (next(iter(item.items())) if isinstance(item, dict) and len(item) == 1
                         else (item, None))  # fmt: skip
            if not isinstance(name, str) or not _known(
                self.errors, file, where, "action", name, self.v.actions
            ):
                continue
            allowed = self.v.actions[name].get("args", [])
            if allowed == "timer":
                allowed = self.timer_names
            if (arg is None) != (not allowed):
                self.err(
                    file,
                    where,
                    f"action '{name}' takes {'one of: ' + ', '.join(allowed) if allowed else 'no argument'}",
                )
            elif arg is not None and _known(
                self.errors, file, where, f"argument of {name}", arg, allowed
            ):
                out.append(Action(name, str(arg)))
            elif arg is None:
                out.append(Action(name))
        return tuple(out)

    def pair(self, file: str, path: str, text: object, *, wildcard: bool = False) -> Pair | None:
        if not isinstance(text, str) or text.count("/") != 1:
            self.err(file, path, f"expected 'State/Activity', got {text!r}")
            return None
        state, activity = text.split("/")
        if not _known(self.errors, file, path, "state", state, self.states):
            return None
        if activity == "*" and wildcard:
            return Pair(state, activity)
        if not _known(
            self.errors, file, path, f"activity of {state}", activity, self.states[state]
        ):
            return None
        return Pair(state, activity)

    def guard(self, file: str, path: str, text: object) -> str:
        if text is None:
            return ""
        if not isinstance(text, str):
            self.err(file, path, f"a guard must be ClassAd text, got {text!r}")
            return ""
        known = {**self.policy_names, **{p.lower(): p for p in self.v.predicates},
                 **{a.lower(): a for a in self.v.attributes}}  # fmt: skip
        for name in guard_names(text):
            if name.lower() not in known:
                close = difflib.get_close_matches(name, list(known.values()), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                self.err(file, path, f"unknown name '{name}' in guard {text!r} "
                         f"(not a policy, predicate or attribute){hint}")  # fmt: skip
        if self.parse is not None and text:
            try:
                self.parse(text)
            except PolicyError as exc:
                self.err(file, path, f"guard {text!r} is not valid ClassAd: {exc.message}")
        return text

    def citation(self, file: str, path: str, raw: object, default_seed: str) -> Citation:
        data = _keys(self.errors, file, path, raw, CITATION_KEYS)
        anchor = data.get("anchor")
        if not isinstance(anchor, str) or not anchor.strip():
            self.err(file, f"{path}.anchor", "every citation needs a non-empty anchor text")
        reference = str(data.get("reference", ""))
        recovered = bool(data.get("recovered", False))
        seed = data.get("seed", default_seed if "section" in data else None)
        if seed is None and not reference:
            self.err(file, path, "a citation needs a seed section or a reference")
        functions = data.get("functions", [])
        return Citation(seed=seed, section=str(data.get("section", "")), anchor=str(anchor or ""),
                        functions=tuple(functions), reference=reference, recovered=recovered)  # fmt: skip

    # ---- sections

    def resolve_states(self) -> list[ir.StateSpec]:
        out: list[ir.StateSpec] = []
        self.states: dict[str, tuple[str, ...]] = {}
        for name, (file, path, raw) in self.section("states").items():
            if not _known(self.errors, file, path, "state", name, self.v.states):
                continue
            data = _keys(self.errors, file, path, raw, STATE_KEYS)
            if not _applies(data, self.sem):
                continue
            acts = data.get("activities") or []
            for i, act in enumerate(acts):
                _known(
                    self.errors, file, f"{path}.activities[{i}]", "activity", act, self.v.activities
                )
            self.states[name] = tuple(acts)
        for name, (file, path, raw) in self.section("states").items():
            if name not in self.states:
                continue
            out.append(ir.StateSpec(
                name=name, activities=self.states[name], meaning=self.v.states[name],
                on_enter=self.actions(file, f"{path}.on_enter", raw.get("on_enter")),
                on_exit=self.actions(file, f"{path}.on_exit", raw.get("on_exit")),
                internal=bool(raw.get("internal", False)),
            ))  # fmt: skip
        return out

    def resolve_policies(self) -> list[ir.Policy]:
        out: list[ir.Policy] = []
        for name, (file, path, raw) in self.section("policies").items():
            if not _known(self.errors, file, path, "policy", name, self.v.policies):
                continue
            data = _keys(self.errors, file, path, raw or {}, POLICY_KEYS)
            undefined = pick(data.get("if_undefined", "not_true"), self.sem)
            if undefined not in ("fatal", "not_true"):
                self.err(
                    file, f"{path}.if_undefined", f"expected fatal or not_true, got {undefined!r}"
                )
                undefined = "not_true"
            default = pick(data.get("default"), self.sem)
            policy = ir.Policy(
                name=name, meaning=self.v.policies[name], aliases=tuple(data.get("aliases", [])),
                variants=tuple(pick(data.get("variants", []), self.sem) or ()),
                default=None if default is None else str(default), if_undefined=undefined,
                difference=data.get("difference"),
            )  # fmt: skip
            out.append(policy)
            for known in (name, *policy.aliases):
                self.policy_names[known.lower()] = name
        return out

    def resolve_timers(self) -> list[ir.Timer]:
        entries = [
            (n, e) for n, e in self.section("timers").items() if _applies(e[2] or {}, self.sem)
        ]
        self.timer_names = tuple(n for n, _ in entries)
        out: list[ir.Timer] = []
        for name, (file, path, raw) in entries:
            data = _keys(self.errors, file, path, raw, TIMER_KEYS)
            kind = data.get("kind", "timer")
            if kind not in ("timer", "limit"):
                self.err(file, f"{path}.kind", f"expected timer or limit, got {kind!r}")
            default = pick(data.get("default"), self.sem)
            if default is not None and not isinstance(default, int):
                self.err(
                    file, f"{path}.default", f"expected seconds (int) or null, got {default!r}"
                )
                default = None
            predicate = data.get("predicate")
            if predicate is not None:
                _known(
                    self.errors,
                    file,
                    f"{path}.predicate",
                    "predicate",
                    predicate,
                    self.v.predicates,
                )
            citation = data.get("citation")
            out.append(ir.Timer(
                name=name, kind=kind, default=default,
                default_text=str(pick(data.get("default_text"), self.sem) or ("none" if default is None else default)),
                meaning=str(data.get("meaning", "")),
                on_expiry=self.actions(file, f"{path}.on_expiry", data.get("on_expiry")),
                predicate=predicate, difference=data.get("difference"),
                citation=None if citation is None else self.citation(file, f"{path}.citation", citation, self.seed),
            ))  # fmt: skip
        return out

    def resolve_polling(self) -> ir.Polling:
        file, path, raw = self.section("polling").get("", (self.m.files[-1], "polling", {}))
        data = _keys(self.errors, file, path, raw, POLLING_KEYS)
        fast = pick(data.get("fast_states", []), self.sem) or []
        for i, state in enumerate(fast):
            _known(self.errors, file, f"{path}.fast_states[{i}]", "state", state, self.states)
        return ir.Polling(int(data.get("POLLING_INTERVAL", 5)), int(data.get("UPDATE_INTERVAL", 300)),
                          tuple(fast), data.get("difference"))  # fmt: skip

    def resolve_choices(self) -> dict[str, tuple[ActivityChoice, ...]]:
        out: dict[str, tuple[ActivityChoice, ...]] = {}
        for state, (file, path, raw) in self.section("activity_choice").items():
            if not _known(self.errors, file, path, "state", state, self.states):
                continue
            data = _keys(self.errors, file, path, raw, CHOICE_KEYS)
            entries = data.get(self.sem)
            if not isinstance(entries, list) or not entries:
                self.err(
                    file, f"{path}.{self.sem}", "expected a non-empty list of {guard, activity}"
                )
                continue
            choices = []
            for i, entry in enumerate(entries):
                where = f"{path}.{self.sem}[{i}]"
                item = _keys(self.errors, file, where, entry, CHOICE_ENTRY_KEYS)
                activity = item.get("activity")
                _known(
                    self.errors,
                    file,
                    f"{where}.activity",
                    f"activity of {state}",
                    activity,
                    self.states[state],
                )
                against = item.get("against", "job")
                _known(self.errors, file, f"{where}.against", "context", against, AGAINST)
                choices.append(ActivityChoice(self.guard(file, f"{where}.guard", item.get("guard")),
                                              str(activity), against))  # fmt: skip
            out[state] = tuple(choices)
        return out

    def resolve_pairs(self) -> dict[Pair, ir.PairSpec]:
        out = {Pair(s, a): ir.PairSpec(Pair(s, a), f"{s}: {self.v.activities.get(a, '')}")
               for s, acts in self.states.items() for a in acts}  # fmt: skip
        for text, (file, path, raw) in self.section("pairs").items():
            pair = self.pair(file, path, text)
            if pair is None:
                continue
            data = _keys(self.errors, file, path, raw, PAIR_KEYS)
            out[pair] = replace(
                out[pair],
                on_enter=self.actions(file, f"{path}.on_enter", data.get("on_enter")),
                on_exit=self.actions(file, f"{path}.on_exit", data.get("on_exit")),
                evaluate_on_entry=bool(pick(data.get("evaluate_on_entry", False), self.sem)),
            )
        return out

    # ---- transitions

    def trigger(
        self, file: str, path: str, raw: object, source: Pair, target: Pair
    ) -> Trigger | None:
        data = _keys(self.errors, file, path, raw, TRIGGER_KEYS)
        kind = data.get("kind")
        if not _known(self.errors, file, f"{path}.kind", "trigger kind", kind, TRIGGER_KINDS):
            return None
        name = ""
        how = tuple(data.get("how", []))
        if kind in ir.EVENT_KINDS:
            name = data.get("event", "")
            if _known(self.errors, file, f"{path}.event", "event", name, self.v.events):
                event = self.v.events[name]
                if event.get("kind") != kind:
                    self.err(
                        file,
                        f"{path}.kind",
                        f"event '{name}' is a {event.get('kind')} event, not {kind}",
                    )
                for i, item in enumerate(how):
                    _known(
                        self.errors,
                        file,
                        f"{path}.how[{i}]",
                        f"'how' of {name}",
                        item,
                        event.get("how", []),
                    )
        elif kind == "timer":
            name = data.get("timer", "")
            _known(self.errors, file, f"{path}.timer", "timer", name, self.timer_names)
        for key, wrong in (("event", kind not in ir.EVENT_KINDS), ("timer", kind != "timer"),
                           ("how", kind not in ir.EVENT_KINDS)):  # fmt: skip
            if key in data and wrong:
                self.err(file, f"{path}.{key}", f"'{key}' does not apply to a {kind} trigger")
        guard = self.guard(file, f"{path}.guard", data.get("guard"))
        order = data.get("order")
        if kind in ir.POLICY_KINDS:
            if not guard:
                self.err(file, f"{path}.guard", f"a {kind} trigger needs a guard")
            if not isinstance(order, int):
                self.err(file, f"{path}.order", f"a {kind} trigger needs an integer order")
        against = data.get("against", "job" if source.state in _JOB_STATES else "local")
        _known(self.errors, file, f"{path}.against", "context", against, AGAINST)
        activity = data.get("activity")
        if activity is not None:
            if not target.is_wildcard:
                self.err(file, f"{path}.activity", "'activity' applies only to a 'State/*' target")
            else:
                _known(self.errors, file, f"{path}.activity", f"activity of {target.state}",
                       activity, self.states.get(target.state, ()))  # fmt: skip
        return Trigger(kind=cast("ir.TriggerKind", kind), name=name, guard=guard, against=against, how=how,
                       order=order if isinstance(order, int) else None,
                       actions=self.actions(file, f"{path}.actions", data.get("actions")),
                       activity=activity, note=str(data.get("note", "")),
                       difference=data.get("difference"))  # fmt: skip

    def rows(self, choices: Mapping[str, tuple[ActivityChoice, ...]]) -> list[ir.Transition]:
        out: list[ir.Transition] = []
        for file, path, raw in self.m.rows:
            data = _keys(self.errors, file, path, raw, ROW_KEYS)
            if not _applies(data, self.sem):
                continue
            number = data.get("number")
            if not (isinstance(number, int) and number > 0) and not (
                isinstance(number, str) and _UNNUMBERED.match(number)
            ):
                self.err(
                    file,
                    f"{path}.number",
                    f"expected a positive int or 'unnumbered:<name>', got {number!r}",
                )
                continue
            sources = data.get("from")
            if isinstance(sources, list) and isinstance(number, int):
                self.err(file, f"{path}.from", "only unnumbered rows may list several sources")
                continue
            target = self.pair(file, f"{path}.to", data.get("to"), wildcard=True)
            for i, text in enumerate(sources if isinstance(sources, list) else [sources]):
                where = f"{path}.from[{i}]" if isinstance(sources, list) else f"{path}.from"
                source = self.pair(file, where, text)
                if source is None or target is None:
                    continue
                row = self.row(file, path, data, number, source, target, choices)
                if row is not None:
                    out.append(row)
        return out

    def row(self, file: str, path: str, data: Mapping[str, Any], number: int | str, source: Pair,
            target: Pair, choices: Mapping[str, tuple[ActivityChoice, ...]]) -> ir.Transition | None:  # fmt: skip
        raw_triggers = data.get("triggers")
        if not isinstance(raw_triggers, list) or not raw_triggers:
            self.err(file, f"{path}.triggers", "expected a non-empty list of triggers")
            return None
        triggers = []
        for i, raw in enumerate(raw_triggers):
            if isinstance(raw, dict) and _applies(raw, self.sem):
                trigger = self.trigger(file, f"{path}.triggers[{i}]", raw, source, target)
                if trigger is not None:
                    triggers.append(trigger)
            elif not isinstance(raw, dict):
                self.err(file, f"{path}.triggers[{i}]", "expected a mapping")
        if not triggers:
            self.err(file, f"{path}.triggers", f"no trigger applies to semantics '{self.sem}'")
            return None
        choice: tuple[ActivityChoice, ...] = ()
        if target.is_wildcard:
            choice = choices.get(target.state, ())
            if not choice:
                self.err(
                    file, f"{path}.to", f"'{target}' needs an activity_choice for {target.state}"
                )
        letter = data.get("letter")
        if letter is not None:
            _known(self.errors, file, f"{path}.letter", "letter", letter, self.letter_names)
        if "citation" not in data:
            self.err(file, f"{path}.citation", "every row needs a citation")
        return ir.Transition(
            number=number, letter=letter, source=source, target=target, triggers=tuple(triggers),
            actions=self.actions(file, f"{path}.actions", data.get("actions")),
            activity_choice=choice, summary=str(data.get("summary", "")),
            citation=self.citation(file, f"{path}.citation", data.get("citation", {}), self.seed),
            difference=data.get("difference"),
        )  # fmt: skip

    def resolve_letters(self) -> list[ir.Letter]:
        out: list[ir.Letter] = []
        default = self.section("letter_citation").get("")
        for letter, (file, path, raw) in self.section("letters").items():
            data = _keys(self.errors, file, path, raw, LETTER_KEYS)
            if not (isinstance(letter, str) and len(letter) == 1 and letter.isupper()):
                self.err(file, path, f"a letter must be one capital letter, got {letter!r}")
            for key in ("from", "to"):
                _known(self.errors, file, f"{path}.{key}", "state", data.get(key), self.states)
            cite = data.get("citation", default[2] if default else None)
            cfile, cpath = (
                (file, f"{path}.citation") if "citation" in data or not default else default[:2]
            )
            out.append(ir.Letter(letter, str(data.get("from")), str(data.get("to")),
                                 tuple(data.get("numbers", [])), str(data.get("cause", "")),
                                 self.citation(cfile, cpath, cite or {}, self.seed)))  # fmt: skip
        return out

    def resolve_publish(self) -> list[ir.PublishRule]:
        file, entries = self.scalar("publish", [])
        out = []
        for i, raw in enumerate(entries or []):
            data = _keys(self.errors, file, f"publish[{i}]", raw, PUBLISH_KEYS)
            if not _applies(data, self.sem):
                continue
            states = tuple(data.get("states", []))
            for j, state in enumerate(states):
                _known(self.errors, file, f"publish[{i}].states[{j}]", "state", state, self.states)
            out.append(ir.PublishRule(states, str(data.get("attribute")), str(data.get("value")),
                                      str(data.get("note", "")), data.get("difference")))  # fmt: skip
        return out

    def resolve_effects(self) -> list[ir.EventEffect]:
        file, entries = self.scalar("event_effects", [])
        out = []
        for i, raw in enumerate(entries or []):
            path = f"event_effects[{i}]"
            data = _keys(self.errors, file, path, raw, EFFECT_KEYS)
            if not _applies(data, self.sem):
                continue
            _known(self.errors, file, f"{path}.event", "event", data.get("event"), self.v.events)
            every = [f"{s}/{a}" for s, acts in self.states.items() for a in acts]
            pairs = [
                self.pair(file, f"{path}.from[{j}]", p)
                for j, p in enumerate(data.get("from", every))
            ]
            out.append(ir.EventEffect(str(data.get("event")), tuple(p for p in pairs if p),
                                      self.actions(file, f"{path}.actions", data.get("actions")),
                                      tuple(data.get("how", []))))  # fmt: skip
        return out

    # ---- whole era

    def build(self) -> ir.EraSpec:
        top = self.m.files[-1]
        era = self.scalar("era")[1]
        self.seed = str(self.scalar("seed", "")[1])
        for key in ("era", "seed", "initial", "numbered_transitions"):
            if key not in self.m.scalars:
                self.err(top, key, "required key is missing")
        self.timer_names = tuple(
            n for n, e in self.section("timers").items() if _applies(e[2] or {}, self.sem)
        )
        states = self.resolve_states()
        policies = self.resolve_policies()
        timers = self.resolve_timers()
        self.letter_names = tuple(self.section("letters"))
        choices = self.resolve_choices()
        pairs = self.resolve_pairs()
        rows = self.rows(choices)
        letters = self.resolve_letters()
        initial = self.pair(self.scalar("initial")[0], "initial", self.scalar("initial")[1])
        self.check_rows(rows, letters)
        states = [replace(s, evaluation_order=self.steps(rows, s.name, "policy")) for s in states]
        pair_specs = [
            replace(p, immediate=self.steps(rows, p.pair, "immediate")) for p in pairs.values()
        ]
        if initial is not None:
            self.check_reachable(initial, rows, pairs)
        timers = [replace(t, fires=tuple(r.id for r in rows for g in r.triggers
                                         if g.kind == "timer" and g.name == t.name)) for t in timers]  # fmt: skip
        used = {n.lower() for r in rows for g in r.triggers for n in guard_names(g.guard)}
        used |= {n.lower() for c in choices.values() for e in c for n in guard_names(e.guard)}
        options_raw = self.section("options")
        return ir.EraSpec(
            era=str(era), semantics=cast("ir.Semantics", self.sem), title=str(self.scalar("title", "")[1]),
            seed=self.seed, code=str(self.scalar("code", "")[1]), files=tuple(self.m.files),
            states=tuple(states), pairs=tuple(pair_specs), initial=initial or Pair("Owner", "Idle"),
            transitions=tuple(rows), letters=tuple(letters), timers=tuple(timers),
            polling=self.resolve_polling(), policies=tuple(policies),
            predicates=tuple(ir.Predicate(n, m) for n, m in self.v.predicates.items() if n.lower() in used),
            attributes=tuple(self.v.attributes), events=tuple(
                ir.Event(n, e.get("kind", "protocol"), str(e.get("meaning", "")), tuple(e.get("how", [])))
                for n, e in self.v.events.items()),
            event_effects=tuple(self.resolve_effects()), publish=tuple(self.resolve_publish()),
            options=tuple((k, pick(v[2], self.sem)) for k, v in options_raw.items()),
            numbered_count=int(self.scalar("numbered_transitions", 0)[1] or 0),
        )  # fmt: skip

    def where(self, row: ir.Transition) -> tuple[str, str]:
        for file, path, raw in self.m.rows:
            if raw.get("number") == row.number:
                return file, path
        return self.m.files[-1], "transitions"

    def check_rows(self, rows: list[ir.Transition], letters: list[ir.Letter]) -> None:
        seen: dict[str, ir.Transition] = {}
        for row in rows:
            file, path = self.where(row)
            if row.id in seen:
                what = "number" if row.numbered else "unnumbered row from"
                self.err(file, f"{path}.number", f"duplicate {what} {row.id}")
            seen[row.id] = row
            orders: dict[tuple[str, int], int] = {}
            if row.letter is not None:
                letter = next((x for x in letters if x.letter == row.letter), None)
                if letter and (letter.source, letter.target) != (
                    row.source.state,
                    row.target.state,
                ):
                    self.err(file, f"{path}.letter", f"letter {row.letter} is {letter.source} -> "
                             f"{letter.target}, the row goes {row.source.state} -> {row.target.state}")  # fmt: skip
            del orders
        numbers = sorted(r.number for r in rows if isinstance(r.number, int))
        expected = int(self.scalar("numbered_transitions", 0)[1] or 0)
        if numbers != list(range(1, expected + 1)):
            missing = sorted(set(range(1, expected + 1)) - set(numbers))
            extra = sorted(set(numbers) - set(range(1, expected + 1)))
            self.err(
                self.m.files[-1],
                "transitions",
                f"numbered rows must be exactly 1..{expected} (missing {missing}, unexpected {extra})",
            )
        for letter in letters:
            for n in letter.numbers:
                lettered = seen.get(str(n))
                if lettered is None or lettered.letter != letter.letter:
                    self.err(
                        self.m.files[-1],
                        f"letters.{letter.letter}.numbers",
                        f"transition {n} is not a row with letter {letter.letter}",
                    )
        steps: dict[tuple[Pair, str, int], str] = {}
        for row in rows:
            for i, trig in enumerate(row.triggers):
                if trig.kind not in ir.POLICY_KINDS or trig.order is None:
                    continue
                key = (row.source, trig.kind, trig.order)
                if key in steps and steps[key] != row.id:
                    file, path = self.where(row)
                    self.err(file, f"{path}.triggers[{i}].order", f"order {trig.order} of {row.source} "
                             f"is already used by transition {steps[key]}")  # fmt: skip
                steps.setdefault(key, row.id)

    def steps(
        self, rows: list[ir.Transition], where: str | Pair, kind: str
    ) -> tuple[ir.EvalStep, ...]:
        found = [
            ir.EvalStep(t.order, r.source, r.id, i, t.guard, t.against)
            for r in rows for i, t in enumerate(r.triggers)
            if t.kind == kind and t.order is not None
            and (r.source == where if isinstance(where, Pair) else r.source.state == where)
        ]  # fmt: skip
        return tuple(sorted(found, key=lambda s: (s.order, str(s.source), s.transition, s.trigger)))

    def check_reachable(
        self, initial: Pair, rows: list[ir.Transition], pairs: Mapping[Pair, object]
    ) -> None:
        reached = {initial}
        frontier = [initial]
        while frontier:
            pair = frontier.pop()
            for row in rows:
                if row.source == pair:
                    for target in row.targets:
                        if target not in reached:
                            reached.add(target)
                            frontier.append(target)
        for pair in pairs:
            if pair not in reached:
                self.err(self.m.files[-1], f"pairs.{pair}", f"unreachable pair '{pair}' (no transition "
                         f"path from {initial} reaches it under semantics '{self.sem}')")  # fmt: skip


# --------------------------------------------------------------------------- public API


def load_spec_file(path: str | Path, semantics: str = "manual") -> ir.EraSpec:
    """Load one era file (its vocabulary is base.yaml in the same directory)."""
    path = Path(path)
    errors = _Errors()
    if semantics not in SEMANTICS:
        errors.add(
            _display(path), "", f"unknown semantics '{semantics}' (known: {', '.join(SEMANTICS)})"
        )
        errors.raise_if_any()
    vocab = _vocabulary(path.parent, errors)
    merged = _merge(path.parent, path, errors, (path.stem,))
    errors.raise_if_any()
    spec = _Resolver(vocab, merged, semantics, errors).build()
    errors.raise_if_any()
    return spec


_CACHE: dict[tuple[str, str, str], ir.EraSpec] = {}


def load_spec(
    era: str, semantics: str = "manual", *, directory: str | Path | None = None
) -> ir.EraSpec:
    """The checked spec of `era` ("condor-6.4", "condor-6.8", "htcondor-current") for
    `semantics` ("manual", default, or "code"). Raises `SpecError` on any problem."""
    folder = Path(directory) if directory is not None else ERA_DIR
    if directory is None and era not in ERAS:
        close = difflib.get_close_matches(era, ERAS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise SpecError(
            f"unknown era '{era}' (known: {', '.join(ERAS)}){hint}", file=_display(folder)
        )
    key = (str(folder), era, semantics)
    if key not in _CACHE:
        _CACHE[key] = load_spec_file(folder / f"{era}.yaml", semantics)
    return _CACHE[key]


def spec_differences(era: str, *, directory: str | Path | None = None) -> list[ir.Difference]:
    """Every place where `era`'s manual and code semantics differ, with the D-number."""
    manual = load_spec(era, "manual", directory=directory)
    code = load_spec(era, "code", directory=directory)
    out: list[ir.Difference] = []

    def differ(item: str, d: str | None, a: object, b: object) -> None:
        if a != b:
            out.append(ir.Difference(era, item, d, str(a), str(b)))

    by_id = {r.id: r for r in manual.transitions}
    code_ids = {r.id: r for r in code.transitions}
    for rid in dict.fromkeys([*by_id, *code_ids]):
        m, c = by_id.get(rid), code_ids.get(rid)
        rows = [r for r in (m, c) if r is not None]
        d = next((r.difference for r in rows if r.difference), None) or next(
            (t.difference for r in rows for t in r.triggers if t.difference), None
        )
        differ(
            f"transition {rid}",
            d,
            m.trigger_text if m else "(absent)",
            c.trigger_text if c else "(absent)",
        )

    def choice(spec: ir.EraSpec) -> list[tuple[str, str]]:
        row = next((r for r in spec.transitions if r.activity_choice), None)
        return [(e.guard, e.activity) for e in row.activity_choice] if row else []

    differ("activity_choice Preempting", "D5", choice(manual), choice(code))
    differ(
        "polling fast_states",
        code.polling.difference,
        manual.polling.fast_states,
        code.polling.fast_states,
    )
    for t in code.timers:
        mt = next((x for x in manual.timers if x.name == t.name), None)
        differ(
            f"timer {t.name}", t.difference, mt.default_text if mt else "(absent)", t.default_text
        )
    for p in code.policies:
        mp = manual.policy(p.name)
        differ(f"policy {p.name} default", p.difference, mp.default, p.default)
        differ(
            f"policy {p.name} if undefined", p.difference or "D13", mp.if_undefined, p.if_undefined
        )
    for mpair, cpair in zip(manual.pairs, code.pairs, strict=True):
        differ(
            f"pair {mpair.pair} evaluate_on_entry",
            "D10",
            mpair.evaluate_on_entry,
            cpair.evaluate_on_entry,
        )
    differ(
        "publish",
        next((r.difference for r in code.publish if r.difference), None),
        [(r.states, r.attribute, r.value) for r in manual.publish],
        [(r.states, r.attribute, r.value) for r in code.publish],
    )
    return out
