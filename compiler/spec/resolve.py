"""Resolve a merged era into the IR for one semantics, checking every name on the way.

Stage: raw merged mappings (`compiler.spec.read`) -> `compiler.spec.ir.EraSpec`. Picks the
`{manual, code}` variants, drops rows/triggers of the other semantics, fills defaults
(`against` by source state, the era seed in citations), and reports unknown keys, states,
activities, events, actions, timers, letters, guard names and unparsable guards with the
key path where they occur. Whole-table checks live in `compiler.spec.checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from msgspec.structs import replace

from compiler.errors import PolicyError, close_matches
from compiler.spec import checks, ir
from compiler.spec.ir import CLAIM_STATES, Action, ActivityChoice, Citation, Pair, Trigger
from compiler.spec.read import (
    AGAINST,
    CHOICE_ENTRY_KEYS,
    CHOICE_KEYS,
    CITATION_KEYS,
    EFFECT_KEYS,
    LETTER_KEYS,
    PAIR_KEYS,
    POLICY_KEYS,
    POLLING_KEYS,
    PUBLISH_KEYS,
    ROW_KEYS,
    STATE_KEYS,
    TIMER_KEYS,
    TRIGGER_KEYS,
    TRIGGER_KINDS,
    UNNUMBERED,
    Errors,
    Merged,
    Vocabulary,
    applies,
    check_keys,
    check_known,
    guard_names,
    pick,
)  # fmt: skip


class Resolver:
    """Turns one merged era into an `EraSpec` for one semantics, collecting problems."""

    def __init__(self, vocab: Vocabulary, merged: Merged, semantics: str, errors: Errors) -> None:
        self.v = vocab
        self.m = merged
        self.sem = semantics
        self.errors = errors
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
        raw = pick(raw, self.sem)
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
            if not isinstance(name, str) or not check_known(
                self.errors, file, where, "action", name, self.v.actions
            ):
                continue
            spec = self.v.actions[name].get("args", [])
            allowed, what = (
                (self.timer_names, "timer") if spec == "timer" else (spec, f"argument of {name}")
            )
            if arg is None and (spec == "timer" or allowed):
                self.err(file, where, f"action '{name}' needs an argument ({what})")
            elif arg is not None and not allowed and spec != "timer":
                self.err(file, where, f"action '{name}' takes no argument")
            elif arg is None:
                out.append(Action(name))
            elif check_known(self.errors, file, where, what, arg, allowed):
                out.append(Action(name, str(arg)))
        return tuple(out)

    def pair(self, file: str, path: str, text: object, *, wildcard: bool = False) -> Pair | None:
        if not isinstance(text, str) or text.count("/") != 1:
            self.err(file, path, f"expected 'State/Activity', got {text!r}")
            return None
        state, activity = text.split("/")
        if not check_known(self.errors, file, path, "state", state, self.states):
            return None
        if activity == "*" and wildcard:
            return Pair(state, activity)
        if not check_known(
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
        try:
            names = guard_names(text)
        except PolicyError as exc:
            self.err(file, path, f"guard {text!r} is not valid ClassAd: {exc.message}")
            return ""  # the error is reported; nothing downstream reads this guard
        for name in names:
            if name.lower() not in known:
                close = close_matches(name, list(known.values()), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                self.err(file, path, f"unknown name '{name}' in guard {text!r} "
                         f"(not a policy, predicate or attribute){hint}")  # fmt: skip
        return text

    def citation(self, file: str, path: str, raw: object, default_seed: str) -> Citation:
        data = check_keys(self.errors, file, path, raw, CITATION_KEYS)
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
            if not check_known(self.errors, file, path, "state", name, self.v.states):
                continue
            data = check_keys(self.errors, file, path, raw, STATE_KEYS)
            if not applies(data, self.sem):
                continue
            acts = data.get("activities") or []
            if not isinstance(acts, list) or not acts:
                self.err(
                    file, f"{path}.activities", "a state needs a list of at least one activity"
                )
                acts = []
            for i, act in enumerate(acts):
                check_known(
                    self.errors, file, f"{path}.activities[{i}]", "activity", act, self.v.activities
                )
            self.states[name] = tuple(acts)
        for name, (file, path, raw) in self.section("states").items():
            if name not in self.states:
                continue
            raw = raw if isinstance(raw, dict) else {}
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
            if not check_known(self.errors, file, path, "policy", name, self.v.policies):
                continue
            data = check_keys(self.errors, file, path, raw or {}, POLICY_KEYS)
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
            (n, e) for n, e in self.section("timers").items() if applies(e[2] or {}, self.sem)
        ]
        self.timer_names = tuple(n for n, _ in entries)
        out: list[ir.Timer] = []
        for name, (file, path, raw) in entries:
            data = check_keys(self.errors, file, path, raw, TIMER_KEYS)
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
                check_known(
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
        data = check_keys(self.errors, file, path, raw, POLLING_KEYS)
        fast = pick(data.get("fast_states", []), self.sem) or []
        for i, state in enumerate(fast):
            check_known(self.errors, file, f"{path}.fast_states[{i}]", "state", state, self.states)
        entry = pick(data.get("start_on_entry", []), self.sem) or []
        starts = [
            self.pair(file, f"{path}.start_on_entry[{i}]", text) for i, text in enumerate(entry)
        ]
        return ir.Polling(int(data.get("POLLING_INTERVAL", 5)), int(data.get("UPDATE_INTERVAL", 300)),
                          tuple(fast), data.get("difference"),
                          tuple(p for p in starts if p is not None))  # fmt: skip

    def resolve_choices(self) -> dict[str, tuple[ActivityChoice, ...]]:
        out: dict[str, tuple[ActivityChoice, ...]] = {}
        for state, (file, path, raw) in self.section("activity_choice").items():
            if not check_known(self.errors, file, path, "state", state, self.states):
                continue
            data = check_keys(self.errors, file, path, raw, CHOICE_KEYS)
            entries = data.get(self.sem)
            if not isinstance(entries, list) or not entries:
                self.err(
                    file, f"{path}.{self.sem}", "expected a non-empty list of {guard, activity}"
                )
                continue
            choices = []
            for i, entry in enumerate(entries):
                where = f"{path}.{self.sem}[{i}]"
                item = check_keys(self.errors, file, where, entry, CHOICE_ENTRY_KEYS)
                activity = item.get("activity")
                check_known(
                    self.errors,
                    file,
                    f"{where}.activity",
                    f"activity of {state}",
                    activity,
                    self.states[state],
                )
                against = item.get("against", "job")
                check_known(self.errors, file, f"{where}.against", "context", against, AGAINST)
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
            data = check_keys(self.errors, file, path, raw, PAIR_KEYS)
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
        data = check_keys(self.errors, file, path, raw, TRIGGER_KEYS)
        kind = data.get("kind")
        if not check_known(self.errors, file, f"{path}.kind", "trigger kind", kind, TRIGGER_KINDS):
            return None
        name = ""
        how = tuple(data.get("how", []))
        if kind in ir.EVENT_KINDS:
            name = data.get("event", "")
            if check_known(self.errors, file, f"{path}.event", "event", name, self.v.events):
                event = self.v.events[name]
                if event.get("kind") != kind:
                    self.err(
                        file,
                        f"{path}.kind",
                        f"event '{name}' is a {event.get('kind')} event, not {kind}",
                    )
                for i, item in enumerate(how):
                    check_known(
                        self.errors,
                        file,
                        f"{path}.how[{i}]",
                        f"'how' of {name}",
                        item,
                        event.get("how", []),
                    )
        elif kind == "timer":
            name = data.get("timer", "")
            check_known(self.errors, file, f"{path}.timer", "timer", name, self.timer_names)
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
        against = data.get("against", "job" if source.state in CLAIM_STATES else "local")
        check_known(self.errors, file, f"{path}.against", "context", against, AGAINST)
        activity = data.get("activity")
        if activity is not None:
            if not target.is_wildcard:
                self.err(file, f"{path}.activity", "'activity' applies only to a 'State/*' target")
            else:
                check_known(self.errors, file, f"{path}.activity", f"activity of {target.state}",
                       activity, self.states.get(target.state, ()))  # fmt: skip
        return Trigger(kind=cast("ir.TriggerKind", kind), name=name, guard=guard, against=against, how=how,
                       order=order if isinstance(order, int) else None,
                       actions=self.actions(file, f"{path}.actions", data.get("actions")),
                       activity=activity, note=str(data.get("note", "")),
                       difference=data.get("difference"))  # fmt: skip

    def rows(self, choices: Mapping[str, tuple[ActivityChoice, ...]]) -> list[ir.Transition]:
        out: list[ir.Transition] = []
        self.origins: list[tuple[str, str]] = []
        for file, path, raw in self.m.rows:
            data = check_keys(self.errors, file, path, raw, ROW_KEYS)
            if not applies(data, self.sem):
                continue
            number = data.get("number")
            if not (isinstance(number, int) and number > 0) and not (
                isinstance(number, str) and UNNUMBERED.match(number)
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
                    self.origins.append((file, where if isinstance(sources, list) else path))
        return out

    def row(self, file: str, path: str, data: Mapping[str, Any], number: int | str, source: Pair,
            target: Pair, choices: Mapping[str, tuple[ActivityChoice, ...]]) -> ir.Transition | None:  # fmt: skip
        raw_triggers = data.get("triggers")
        if not isinstance(raw_triggers, list) or not raw_triggers:
            self.err(file, f"{path}.triggers", "expected a non-empty list of triggers")
            return None
        triggers = []
        for i, raw in enumerate(raw_triggers):
            if isinstance(raw, dict) and applies(raw, self.sem):
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
            check_known(self.errors, file, f"{path}.letter", "letter", letter, self.letter_names)
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
            data = check_keys(self.errors, file, path, raw, LETTER_KEYS)
            if not (isinstance(letter, str) and len(letter) == 1 and letter.isupper()):
                self.err(file, path, f"a letter must be one capital letter, got {letter!r}")
            for key in ("from", "to"):
                check_known(self.errors, file, f"{path}.{key}", "state", data.get(key), self.states)
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
            data = check_keys(self.errors, file, f"publish[{i}]", raw, PUBLISH_KEYS)
            if not applies(data, self.sem):
                continue
            states = tuple(data.get("states", []))
            for j, state in enumerate(states):
                check_known(
                    self.errors, file, f"publish[{i}].states[{j}]", "state", state, self.states
                )
            out.append(ir.PublishRule(states, str(data.get("attribute")), str(data.get("value")),
                                      str(data.get("note", "")), data.get("difference")))  # fmt: skip
        return out

    def resolve_events(self) -> list[ir.Event]:
        """The vocabulary's events, with their era-independent `effects` checked."""
        out = []
        for name, raw in self.v.events.items():
            data = raw if isinstance(raw, dict) else {}
            path = f"events.{name}"
            effects = self.actions(self.v.file, f"{path}.effects", data.get("effects"))
            citation = data.get("citation")
            if effects and citation is None:
                self.err(self.v.file, f"{path}.citation", "an event with effects needs a citation")
            out.append(ir.Event(
                name, data.get("kind", "protocol"), str(data.get("meaning", "")),
                tuple(data.get("how", [])), effects,
                None if citation is None else self.citation(self.v.file, f"{path}.citation", citation, ""),
                data.get("default_how"),
            ))  # fmt: skip
        return out

    def resolve_options(self) -> tuple[tuple[str, bool | int | str], ...]:
        """Every option of the vocabulary: the era's value (checked) or the default."""
        known = self.v.options
        values = {name: (entry or {}).get("default") for name, entry in known.items()}
        for name, (file, path, raw) in self.section("options").items():
            if not check_known(self.errors, file, path, "option", name, known):
                continue
            value = pick(raw, self.sem)
            allowed = list((known[name] or {}).get("values") or [])
            if not any(value == a and type(value) is type(a) for a in allowed):
                shown = ", ".join(
                    str(a).lower() if isinstance(a, bool) else str(a) for a in allowed
                )
                self.err(file, path, f"option '{name}' must be one of {shown}, got {value!r}")
                continue
            values[name] = value
        return tuple((k, v) for k, v in values.items() if v is not None)

    def resolve_helpers(self, options: Mapping[str, Any]) -> ir.Helpers:
        """base.yaml `helpers`: names checked against the vocabulary."""
        file = self.v.file
        raw = self.v.helpers

        def entry(name: str) -> dict[str, Any]:
            value = raw.get(name)
            return value if isinstance(value, dict) else {}

        def text(name: str, key: str, known: Mapping[str, Any] | None = None) -> str:
            value = entry(name).get(key)
            if not isinstance(value, str) or not value:
                self.err(file, f"helpers.{name}.{key}", f"expected a name, got {value!r}")
                return ""
            if known is not None:
                check_known(self.errors, file, f"helpers.{name}.{key}", "policy", value, known)
            return value

        def names(name: str, key: str) -> tuple[str, ...]:
            value = entry(name).get(key)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self.err(file, f"helpers.{name}.{key}", f"expected a list of names, got {value!r}")
                return ()
            return tuple(value)

        def cite(name: str) -> Citation:
            return self.citation(
                file, f"helpers.{name}.citation", entry(name).get("citation", {}), ""
            )

        ret = "retirement_remaining"
        unless = entry(ret).get("peaceful_unlimited_unless")
        if isinstance(unless, bool) or not isinstance(unless, int):
            self.err(
                file,
                f"helpers.{ret}.peaceful_unlimited_unless",
                f"expected an integer, got {unless!r}",
            )
            unless = -1
        drains = names(ret, "drains_without_retirement")
        how = self.v.actions.get("start_draining", {}).get("args", [])
        for i, mode in enumerate(drains):
            check_known(
                self.errors,
                file,
                f"helpers.{ret}.drains_without_retirement[{i}]",
                "drain mode",
                mode,
                how,
            )
        retirement = ir.RetirementRule(
            text(ret, "limit", self.v.policies),
            text(ret, "job_limit"),
            unless,
            drains,
            str(entry(ret).get("meaning", "")),
            cite(ret),
        )
        vac = "max_vacate_time"
        vacate = ir.VacateRule(
            text(vac, "limit", self.v.policies),
            names(vac, "job_limits"),
            str(entry(vac).get("meaning", "")),
            cite(vac),
        )
        cpu = "cpu_busy"
        publish = entry(cpu).get("publish")
        choice = options.get("cpu_busy_publish")
        sets = publish if isinstance(publish, dict) else {}
        allowed = (self.v.options.get("cpu_busy_publish") or {}).get("values") or []
        check_keys(self.errors, file, f"helpers.{cpu}.publish", sets, allowed)
        for key, attrs in sets.items():
            attrs = (
                check_keys(self.errors, file, f"helpers.{cpu}.publish.{key}", attrs, ())
                if not isinstance(attrs, dict)
                else attrs
            )
            for attr, quantity in attrs.items():
                check_known(
                    self.errors,
                    file,
                    f"helpers.{cpu}.publish.{key}.{attr}",
                    "CpuBusy quantity",
                    quantity,
                    ir.CPU_BUSY_QUANTITIES,
                )
        found = sets.get(choice)
        chosen: dict[Any, Any] = found if isinstance(found, dict) else {}
        cpu_busy = ir.CpuBusyRule(
            text(cpu, "expression"),
            tuple((str(k), str(v)) for k, v in chosen.items()),
            str(entry(cpu).get("meaning", "")),
            cite(cpu),
        )
        return ir.Helpers(retirement, vacate, cpu_busy)

    def resolve_effects(self, events: list[ir.Event]) -> list[ir.EventEffect]:
        """The events' own effects (every pair) first, then the era's `event_effects`."""
        every_pair = tuple(Pair(s, a) for s, acts in self.states.items() for a in acts)
        out = [ir.EventEffect(e.name, every_pair, e.effects) for e in events if e.effects]
        file, entries = self.scalar("event_effects", [])
        for i, raw in enumerate(entries or []):
            path = f"event_effects[{i}]"
            data = check_keys(self.errors, file, path, raw, EFFECT_KEYS)
            if not applies(data, self.sem):
                continue
            check_known(
                self.errors, file, f"{path}.event", "event", data.get("event"), self.v.events
            )
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
            n for n, e in self.section("timers").items() if applies(e[2] or {}, self.sem)
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
        top, expected = self.m.files[-1], int(self.scalar("numbered_transitions", 0)[1] or 0)
        checks.check_numbers(rows, self.origins, expected, top, self.err)
        checks.check_letters(rows, self.origins, letters, top, self.err)
        checks.check_orders(rows, self.origins, self.err)
        states = [
            replace(s, evaluation_order=checks.eval_steps(rows, s.name, "policy")) for s in states
        ]
        pair_specs = [
            replace(p, immediate=checks.eval_steps(rows, p.pair, "immediate"))
            for p in pairs.values()
        ]
        if initial is not None:
            checks.check_reachable(initial, rows, pairs, self.sem, top, self.err)
        timers = [replace(t, fires=tuple(r.id for r in rows for g in r.triggers
                                         if g.kind == "timer" and g.name == t.name)) for t in timers]  # fmt: skip
        used = {n.lower() for r in rows for g in r.triggers for n in guard_names(g.guard)}
        used |= {n.lower() for c in choices.values() for e in c for n in guard_names(e.guard)}
        options = self.resolve_options()
        helpers = self.resolve_helpers(dict(options))
        events = self.resolve_events()
        return ir.EraSpec(
            era=str(era), semantics=cast("ir.Semantics", self.sem), title=str(self.scalar("title", "")[1]),
            seed=self.seed, code=str(self.scalar("code", "")[1]), files=tuple(self.m.files),
            states=tuple(states), pairs=tuple(pair_specs), initial=initial or Pair("Owner", "Idle"),
            transitions=tuple(rows), letters=tuple(letters), timers=tuple(timers),
            polling=self.resolve_polling(), policies=tuple(policies),
            predicates=tuple(ir.Predicate(n, m) for n, m in self.v.predicates.items() if n.lower() in used),
            attributes=tuple(self.v.attributes), events=tuple(events),
            event_effects=tuple(self.resolve_effects(events)), publish=tuple(self.resolve_publish()),
            options=options, numbered_count=int(self.scalar("numbered_transitions", 0)[1] or 0),
            helpers=helpers,
        )  # fmt: skip
