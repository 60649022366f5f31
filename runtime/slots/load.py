"""Per-slot load and keyboard/console idle: what each slot of a multi-core machine publishes
as `LoadAvg`, `CondorLoadAvg`, `KeyboardIdle` and `ConsoleIdle`, and what the machine
publishes as `TotalLoadAvg` and `TotalCondorLoadAvg` (shared/reference/slots.md section 9).

Stage: runtime. Pure functions of the machine's measurements (the `slots --load`
document) and three knobs; the facts they follow (the walk order, the 1.0 step, the
rounding, what an unset SLOTS_CONNECTED_TO_* means per semantics) are data in
spec/slots_load.yaml. The HTCondor 23.0 functions this follows: ResMgr.cpp
`ResMgr::assign_load_and_idle`, ResAttributes.cpp `CpuAttributes::publish_dynamic` and
`MachAttributes::publish_dynamic`, startd_main.cpp `init_params`.

The startd measures three machine-wide figures -- the system load average, each slot's
HTCondor load (its starter's process tree) and the keyboard and console idle times -- and
has no way to tell which slot the owner's load belongs to. So it walks its slots in one
order (`walk_order`: by State, Claimed and Preempting slots by their claim's Rank, ties
in creation order) and hands out the owner load (`owner_load_split`: at most 1.0 per
slot, the rest dropped) and the idle times (`idle_split`: the first
SLOTS_CONNECTED_TO_CONSOLE slots see the real console, the others the startd's uptime plus
DISCONNECTED_KEYBOARD_IDLE_BOOST; the first SLOTS_CONNECTED_TO_KEYBOARD slots see the real
keyboard, the others their own console value). Nothing here prints or exits: bad input
raises a `LoadError` naming the key at fault.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler import yamlcache
from compiler.errors import PolicyError, raise_all
from spec import data_path

if TYPE_CHECKING:
    from compiler.config import Config

#: The keys of the LOAD document (DESIGN.md, "Machines with many slots").
DOCUMENT_KEYS = (
    "total_load",
    "condor_load",
    "slot_states",
    "claim_rank",
    "keyboard_idle",
    "console_idle",
    "startd_uptime",
)
#: ConsoleIdle the startd could not measure: it is then not published (publish_dynamic).
CONSOLE_UNKNOWN = -1


class LoadError(PolicyError):
    """A LOAD document the report cannot use; `key` is the path of the value at fault
    (`condor_load.slot3`, `total_load`; "" for the document itself)."""

    def __init__(self, message: str, *, key: str = "", **where: Any) -> None:
        super().__init__(f"{key}: {message}" if key else message, **where)
        self.key = key


# ------------------------------------------------------------------------------ the facts


@dataclass(frozen=True)
class LoadRules:
    """spec/slots_load.yaml, checked: the facts the functions below follow."""

    state_order: tuple[str, ...]
    rank_ordered_states: frozenset[str]
    default_state: str
    owner_load_step: float
    publish_decimals: int
    console_knob: str
    keyboard_knob: str
    boost_knob: str
    knob_fallbacks: Mapping[str, int]
    connected_when_unset: Mapping[str, str]  # semantics -> "default" | "all"


#: The keys of spec/slots_load.yaml and the check each value must pass.
_RULE_KEYS = (
    "state_order",
    "rank_ordered_states",
    "default_state",
    "owner_load_step",
    "publish_decimals",
    "knobs",
    "knob_fallbacks",
    "semantics",
)
_KNOB_ROLES = ("console", "keyboard", "boost")
_CONNECTED_WHEN_UNSET = ("default", "all")


@functools.cache
def load_rules(path: Path | None = None) -> LoadRules:
    """The facts of `path` (default the shipped spec/slots_load.yaml), read once and
    checked: a malformed file is a `SpecError` naming the key at fault."""
    from compiler.spec import SpecError

    path = path or data_path("slots_load.yaml")
    data = yamlcache.load(path.read_text(encoding="utf-8"), path)
    problems: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        raise SpecError("the file must be a mapping", file=str(path))
    for key in data:
        if key not in _RULE_KEYS:
            problems.append((str(key), f"unknown key (known: {', '.join(_RULE_KEYS)})"))
    for key in _RULE_KEYS:
        if key not in data:
            problems.append((key, "missing"))
    if not problems:
        problems = _rule_problems(data)
    if problems:
        key, message = problems[0]
        raise SpecError(
            f"{key}: {message}",
            file=str(path),
            key_path=key,
            problems=tuple(f"{k}: {m}" for k, m in problems),
        )
    knobs = data["knobs"]
    return LoadRules(
        state_order=tuple(data["state_order"]),
        rank_ordered_states=frozenset(data["rank_ordered_states"]),
        default_state=data["default_state"],
        owner_load_step=float(data["owner_load_step"]),
        publish_decimals=data["publish_decimals"],
        console_knob=knobs["console"],
        keyboard_knob=knobs["keyboard"],
        boost_knob=knobs["boost"],
        knob_fallbacks=dict(data["knob_fallbacks"]),
        connected_when_unset={
            name: entry["connected_when_unset"] for name, entry in data["semantics"].items()
        },
    )


def _rule_problems(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every problem of a spec/slots_load.yaml whose keys are all there."""
    problems: list[tuple[str, str]] = []

    def names(key: str) -> list[str]:
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append((key, "must be a list of names"))
            return []
        return value

    order = names("state_order")
    if len(set(order)) < len(order) or not order:
        problems.append(("state_order", "must name each State once"))
    for state in names("rank_ordered_states"):
        if state not in order:
            problems.append(("rank_ordered_states", f"{state!r} is not in state_order"))
    if data["default_state"] not in order:
        problems.append(("default_state", "must be one of state_order"))
    step = data["owner_load_step"]
    if isinstance(step, bool) or not isinstance(step, int | float) or not step > 0:
        problems.append(("owner_load_step", "must be a positive number"))
    decimals = data["publish_decimals"]
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 9:
        problems.append(("publish_decimals", "must be an integer from 0 to 9"))
    knobs = data["knobs"]
    if not isinstance(knobs, dict) or sorted(knobs) != sorted(_KNOB_ROLES):
        problems.append(("knobs", f"must map exactly {', '.join(_KNOB_ROLES)} to knob names"))
        knobs = {}
    fallbacks = data["knob_fallbacks"]
    if not isinstance(fallbacks, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in fallbacks.values()
    ):
        problems.append(("knob_fallbacks", "must map knob names to integers"))
        fallbacks = {}
    for role, knob in knobs.items():
        if knob not in fallbacks:
            problems.append(("knob_fallbacks", f"no fallback for {knob!r} (knobs.{role})"))
    semantics = data["semantics"]
    if not isinstance(semantics, dict) or not semantics:
        problems.append(("semantics", "must map each semantics to its entry"))
        semantics = {}
    from compiler.spec import SEMANTICS

    for name in SEMANTICS:
        if name not in semantics:
            problems.append((f"semantics.{name}", "missing"))
    for name, entry in semantics.items():
        value = entry.get("connected_when_unset") if isinstance(entry, dict) else None
        if value not in _CONNECTED_WHEN_UNSET:
            problems.append(
                (
                    f"semantics.{name}.connected_when_unset",
                    f"must be one of {', '.join(_CONNECTED_WHEN_UNSET)}",
                )
            )
    return problems


# ------------------------------------------------------------------------- pure functions


@dataclass(frozen=True)
class SlotLoad:
    """One slot as the load walk sees it: its State, its HTCondor load and, when Claimed
    or Preempting, its claim's Rank (`Claim::rank`, 0.0 when the job has none)."""

    name: str
    state: str
    condor_load: float = 0.0
    rank: float = 0.0


@dataclass(frozen=True)
class Connections:
    """How many slots see the console and the keyboard, and the boost of the others."""

    console: int
    keyboard: int
    boost: int


@dataclass(frozen=True)
class SlotFigures:
    """What one slot is given, unrounded (`publish` rounds the load figures)."""

    owner_load: float
    condor_load: float
    keyboard_idle: int
    console_idle: int

    @property
    def load_avg(self) -> float:
        """`LoadAvg` before rounding: owner load plus HTCondor load."""
        return self.owner_load + self.condor_load


@dataclass(frozen=True)
class MachineFigures:
    """The machine's totals, unrounded, and every slot's figures by name."""

    total_load: float
    total_condor_load: float
    slots: Mapping[str, SlotFigures] = field(default_factory=dict)
    order: tuple[str, ...] = ()


def walk_order(slots: Sequence[SlotLoad], rules: LoadRules | None = None) -> tuple[int, ...]:
    """The indices of `slots` (given in creation order) in the order the startd walks them:
    State in `state_order`; within a rank-ordered state (Claimed, Preempting) the claim's
    Rank, lowest first; remaining ties in creation order (23.0 compares object addresses,
    which follow creation). A state outside `state_order` is a ValueError."""
    rules = rules or load_rules()
    position = {state: index for index, state in enumerate(rules.state_order)}

    def key(index: int) -> tuple[int, float]:
        slot = slots[index]
        if slot.state not in position:
            raise ValueError(f"unknown slot state {slot.state!r}")
        rank = slot.rank if slot.state in rules.rank_ordered_states else 0.0
        return position[slot.state], rank

    return tuple(sorted(range(len(slots)), key=key))  # sorted() is stable: creation order


def owner_load_split(owner_load: float, count: int, step: float = 1.0) -> tuple[float, ...]:
    """The owner load of each of `count` slots in walk order: `step` each while at least
    `step` is left, then what is left, then 0; load left when the slots run out is dropped.
    A negative `owner_load` counts as 0 (the startd floors it)."""
    left = max(0.0, owner_load)
    shares = []
    for _ in range(count):
        if left < step:
            shares.append(left)
            left = 0.0
        else:
            shares.append(step)
            left -= step
    return tuple(shares)


def idle_split(
    count: int,
    connections: Connections,
    *,
    keyboard_idle: int,
    console_idle: int,
    startd_uptime: int,
) -> tuple[tuple[int, int], ...]:
    """(KeyboardIdle, ConsoleIdle) of each of `count` slots in walk order.

    The first `connections.console` slots see the real console idle time, the others the
    startd's uptime plus the boost; the first `connections.keyboard` slots see the real
    keyboard idle time, the others their own ConsoleIdle -- so a slot connected to the
    console but not to the keyboard reports the console's idle time as KeyboardIdle."""
    disconnected = startd_uptime + connections.boost
    out = []
    for index in range(count):
        console = console_idle if index < connections.console else disconnected
        keyboard = keyboard_idle if index < connections.keyboard else console
        out.append((keyboard, console))
    return tuple(out)


def publish(value: float, decimals: int = 2) -> float:
    """A load figure as the startd publishes it: rint(value * 100) / 100, rounding half to
    even on the double product (0.125 -> 0.12, 0.375 -> 0.38, 0.996 -> 1.0)."""
    scale = 10.0**decimals
    product = value * scale
    if not math.isfinite(product):
        return product / scale  # rint keeps an infinity (or NaN) as it is
    return float(round(product)) / scale


def total_condor_load(loads: Sequence[float]) -> float:
    """`TotalCondorLoadAvg` before rounding: the slots' HTCondor loads summed in creation
    order (ResMgr `sum(&Resource::condor_load)`)."""
    total = 0.0
    for load in loads:
        total += load
    return total


def assign(
    slots: Sequence[SlotLoad],
    connections: Connections,
    *,
    total_load: float,
    keyboard_idle: int,
    console_idle: int = CONSOLE_UNKNOWN,
    startd_uptime: int = 0,
    rules: LoadRules | None = None,
) -> MachineFigures:
    """Every slot's figures and the machine's totals, unrounded (`slots` in creation order).

    Owner load = total load - total HTCondor load, floored at 0, split along the walk."""
    rules = rules or load_rules()
    condor_total = total_condor_load([slot.condor_load for slot in slots])
    order = walk_order(slots, rules)
    owner = owner_load_split(total_load - condor_total, len(slots), rules.owner_load_step)
    idle = idle_split(
        len(slots),
        connections,
        keyboard_idle=keyboard_idle,
        console_idle=console_idle,
        startd_uptime=startd_uptime,
    )
    figures: dict[str, SlotFigures] = {}
    for step, index in enumerate(order):
        slot = slots[index]
        keyboard, console = idle[step]
        figures[slot.name] = SlotFigures(owner[step], slot.condor_load, keyboard, console)
    walked = tuple(slots[index].name for index in order)
    return MachineFigures(total_load, condor_total, figures, walked)


# ---------------------------------------------------------------------------- the knobs


def connections(config: Config, *, semantics: str, rules: LoadRules | None = None) -> Connections:
    """SLOTS_CONNECTED_TO_CONSOLE, _KEYBOARD and DISCONNECTED_KEYBOARD_IDLE_BOOST as the
    startd reads them (`param_integer`). A connection knob the configuration files do not
    set means what `semantics` says (spec/slots_load.yaml): the parameter table's default
    (code: 0, no slot connected) or every slot (manual)."""
    rules = rules or load_rules()
    if semantics not in rules.connected_when_unset:
        known = ", ".join(rules.connected_when_unset)
        raise ValueError(f"unknown semantics {semantics!r} (known: {known})")
    every_slot = rules.connected_when_unset[semantics] == "all"

    def connected(name: str) -> int:
        if every_slot and config.definition(name) is None:
            return 2**31 - 1  # the largest int param_integer can give: every slot
        return param_integer(config, name, rules.knob_fallbacks[name])

    return Connections(
        console=connected(rules.console_knob),
        keyboard=connected(rules.keyboard_knob),
        boost=param_integer(config, rules.boost_knob, rules.knob_fallbacks[rules.boost_knob]),
    )


def param_integer(config: Config, name: str, fallback: int) -> int:
    """NAME as the startd's `param_integer` reads it: a plain integer, else a ClassAd
    expression whose value is a number (a real is truncated, a boolean is 0 or 1);
    `fallback` when NAME is undefined. Anything else stops the startd (EXCEPT): a
    `ConfigError` at NAME's definition (condor_config.cpp `param_integer`)."""
    text = config.get(name)
    if text is None:
        return fallback
    plain = text.strip()
    digits = plain[1:] if plain[:1] in "+-" else plain
    if digits.isascii() and digits.isdigit():
        value = int(plain)
    else:
        value = _integer_expression(config, name, text)
    if not -(2**31) <= value < 2**31:
        raise config.error_at(
            name, f"{name} in the condor configuration is out of bounds for an integer"
        )
    return value


def _integer_expression(config: Config, name: str, text: str) -> int:
    from compiler.classad import ClassAdSyntaxError, evaluate, parse

    try:
        expr = parse(text)
    except ClassAdSyntaxError:
        raise config.error_at(
            name, f"Invalid expression for {name} ({text}) in condor configuration"
        ) from None
    result = evaluate(expr)
    if isinstance(result, bool):
        return int(result)
    if isinstance(result, int):
        return result
    if isinstance(result, float) and math.isfinite(result):
        return int(result)
    raise config.error_at(
        name,
        f"Invalid result (not an integer) for {name} ({text}) in condor configuration",
    )


# ------------------------------------------------------------------------ the LOAD document


class LoadDocument(dict[str, Any]):
    """A LOAD document read from a file: the data, plus where each key was written
    (`marks[path] = (line, column, source line)`, path as in `LoadError.key`) so that a
    problem `load_report` finds is reported at its place in the file."""

    def __init__(
        self,
        data: Mapping[str, Any],
        *,
        file: str,
        marks: Mapping[str, tuple[int, int, str]] | None = None,
    ) -> None:
        super().__init__(data)
        self.file = file
        self.marks: Mapping[str, tuple[int, int, str]] = dict(marks or {})


def read_load_document(path: str | Path, text: str | None = None) -> LoadDocument:
    """Read a LOAD file (JSON or YAML) keeping the position of every key; a file that is
    not a mapping, or not JSON/YAML at all, is a positioned `LoadError`."""
    import yaml

    from compiler.textio import read_text

    file = str(path)
    if text is None:
        text = read_text(path, error=LoadError)
    lines = text.splitlines()
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = err.problem or err.context
        raise _at(f"not valid JSON/YAML: {problem}", file, lines, mark) from None
    except yaml.YAMLError as err:
        raise LoadError(f"not valid JSON/YAML: {err}", file=file) from None
    except RecursionError:
        raise LoadError("nested too deeply for a LOAD document", file=file) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise LoadError(
            "a LOAD document is a mapping (total_load, condor_load, slot_states, ...)",
            file=file,
            line=1,
            column=1,
            source_line=lines[0] if lines else None,
        )
    marks: dict[str, tuple[int, int, str]] = {"": _mark(node.start_mark, lines)}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        marks[key] = _mark(key_node.start_mark, lines)
        if isinstance(value_node, yaml.MappingNode):
            for sub_key, sub_value in value_node.value:
                marks[f"{key}.{sub_key.value}"] = _mark(sub_key.start_mark, lines)
                marks[f"{key}.{sub_key.value}="] = _mark(sub_value.start_mark, lines)
        marks[f"{key}="] = _mark(value_node.start_mark, lines)
    return LoadDocument(data, file=file, marks=marks)


def _mark(mark: Any, lines: Sequence[str]) -> tuple[int, int, str]:
    line = mark.line + 1
    return line, mark.column + 1, lines[line - 1] if 0 < line <= len(lines) else ""


def _at(message: str, file: str, lines: Sequence[str], mark: Any) -> LoadError:
    if mark is None:
        return LoadError(message, file=file)
    line, column, source = _mark(mark, lines)
    return LoadError(message, file=file, line=line, column=column, source_line=source or None)


@dataclass(frozen=True)
class LoadInput:
    """A checked LOAD document."""

    slots: tuple[SlotLoad, ...]
    total_load: float
    keyboard_idle: int
    console_idle: int
    startd_uptime: int


class _Checker:
    """Collects every problem of one document, each at its key (and, for a document read
    by `read_load_document`, at its place in the file)."""

    def __init__(self, doc: Mapping[str, Any], names: Sequence[str]) -> None:
        self.doc = doc
        self.names = tuple(names)
        self.errors: list[LoadError] = []
        self.file: str | None = getattr(doc, "file", None)
        self.marks: Mapping[str, tuple[int, int, str]] = getattr(doc, "marks", {})

    def error(self, key: str, message: str, *, at_value: bool = True) -> None:
        mark = (self.marks.get(f"{key}=") if at_value else None) or self.marks.get(key)
        if mark is None and key not in self.doc:  # a missing key: at the document's start
            mark = self.marks.get("")
        if mark is None:
            self.errors.append(LoadError(message, key=key, file=self.file))
            return
        line, column, source = mark
        self.errors.append(
            LoadError(
                message,
                key=key,
                file=self.file,
                line=line,
                column=column,
                source_line=source or None,
            )
        )

    def number(self, key: str, value: object, *, minimum: float | None = 0.0) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.error(key, f"must be a number, not {_shown(value)}")
            return None
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            self.error(key, f"must be a finite number, not {_shown(value)}")
            return None
        if minimum is not None and number < minimum:
            self.error(key, f"must be at least {minimum:g}, not {_shown(value)}")
            return None
        return number

    def seconds(self, key: str, default: int, *, minimum: int = 0) -> int:
        if key not in self.doc:
            return default
        value = self.doc[key]
        number = self.number(key, value, minimum=minimum)
        if number is None:
            return default
        if number != int(number) or abs(number) >= 2**63:
            self.error(key, f"must be a whole number of seconds, not {_shown(value)}")
            return default
        return int(number)

    def per_slot(self, key: str) -> Mapping[str, Any]:
        value = self.doc.get(key)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.error(key, f"must be a mapping slot name -> value, not {_shown(value)}")
            return {}
        out = {}
        for name, item in value.items():
            if name not in self.names:
                known = ", ".join(self.names) or "none"
                self.error(
                    f"{key}.{name}",
                    f"no slot {name!r} on this machine{_suggest(str(name), self.names, known)}",
                    at_value=False,
                )
                continue
            out[str(name)] = item
        return out


def check_document(
    slot_names: Sequence[str], doc: Mapping[str, object], rules: LoadRules | None = None
) -> LoadInput:
    """The LOAD document checked against the machine's slots (in creation order); every
    problem is raised together (`LoadError`, or `PolicyErrors` holding several).

    Required: `total_load`. Defaults: a slot missing from `condor_load` has HTCondor load
    0, from `slot_states` is in the Owner state (where every slot starts), from
    `claim_rank` has Rank 0.0; `keyboard_idle` and `startd_uptime` default to 0,
    `console_idle` to -1 (not measured: ConsoleIdle is then not published)."""
    rules = rules or load_rules()
    if not isinstance(doc, Mapping):
        raise LoadError(
            "a LOAD document is a mapping (total_load, condor_load, slot_states, ...)",
            file=getattr(doc, "file", None),
        )
    check = _Checker(doc, slot_names)
    for key in doc:
        if key not in DOCUMENT_KEYS:
            check.error(
                str(key),
                f"unknown key{_suggest(str(key), DOCUMENT_KEYS, ', '.join(DOCUMENT_KEYS))}",
                at_value=False,
            )
    total = 0.0
    if "total_load" not in doc:
        check.error("total_load", "missing: the system load average (TotalLoadAvg) is required")
    else:
        total = check.number("total_load", doc["total_load"]) or 0.0
    condor = {
        name: check.number(f"condor_load.{name}", value)
        for name, value in check.per_slot("condor_load").items()
    }
    states: dict[str, str] = {}
    for name, state in check.per_slot("slot_states").items():
        if state in rules.state_order:
            states[name] = str(state)
        else:
            known = ", ".join(rules.state_order)
            check.error(
                f"slot_states.{name}",
                f"unknown State {_shown(state)}{_suggest(str(state), rules.state_order, known)}",
            )
    ranks = {
        name: check.number(f"claim_rank.{name}", value, minimum=None)
        for name, value in check.per_slot("claim_rank").items()
    }
    keyboard = check.seconds("keyboard_idle", 0)
    console = check.seconds("console_idle", CONSOLE_UNKNOWN, minimum=CONSOLE_UNKNOWN)
    uptime = check.seconds("startd_uptime", 0)
    raise_all(check.errors)
    slots = tuple(
        SlotLoad(
            name,
            states.get(name, rules.default_state),
            condor.get(name) or 0.0,
            ranks.get(name) or 0.0,
        )
        for name in slot_names
    )
    return LoadInput(slots, total, keyboard, console, uptime)


def load_report(
    slot_names: Sequence[str],
    doc: Mapping[str, object],
    config: Config,
    *,
    semantics: str,
) -> dict[str, Any]:
    """The `slots --load` output (DESIGN.md): `{"slots": {name: {"OwnerLoad", "LoadAvg",
    "CondorLoadAvg", "KeyboardIdle", "ConsoleIdle"}}, "machine": {"TotalLoadAvg",
    "TotalCondorLoadAvg"}}`, slots in the order of `slot_names` (creation order, which
    breaks ties of the walk). Load figures are rounded as the startd publishes them
    (OwnerLoad too, so LoadAvg is OwnerLoad + CondorLoadAvg up to rounding); ConsoleIdle
    is None when the console was not measured. A bad document raises `LoadError`(s), a
    knob the startd would refuse a `ConfigError`."""
    rules = load_rules()
    checked = check_document(slot_names, doc, rules)
    figures = assign(
        checked.slots,
        connections(config, semantics=semantics, rules=rules),
        total_load=checked.total_load,
        keyboard_idle=checked.keyboard_idle,
        console_idle=checked.console_idle,
        startd_uptime=checked.startd_uptime,
        rules=rules,
    )
    decimals = rules.publish_decimals
    slots: dict[str, dict[str, Any]] = {}
    for slot in checked.slots:
        one = figures.slots[slot.name]
        slots[slot.name] = {
            "OwnerLoad": publish(one.owner_load, decimals),
            "LoadAvg": publish(one.load_avg, decimals),
            "CondorLoadAvg": publish(one.condor_load, decimals),
            "KeyboardIdle": one.keyboard_idle,
            "ConsoleIdle": None if one.console_idle == CONSOLE_UNKNOWN else one.console_idle,
        }
    return {
        "slots": slots,
        "machine": {
            "TotalLoadAvg": publish(figures.total_load, decimals),
            "TotalCondorLoadAvg": publish(figures.total_condor_load, decimals),
        },
    }


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _suggest(word: str, known: Sequence[str], listing: str) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {listing})"
