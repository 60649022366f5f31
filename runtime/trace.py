"""Trace files (DESIGN.md "Trace files"): reading, validation, and replay through a `Slot`.

Stage: runtime input. `read_trace(path)` parses YAML or JSON (`yaml.safe_load`
semantics; positions from `yaml.compose` node marks) into a checked, immutable `Trace`,
reporting every problem of the file at once as `file:line:col: message`; `Trace.to_dict()`
and `dump_trace` write one back (read_trace of the dump is the same trace), which is how
`condor-policy check` prints a generated counterexample. `replay(...)` drives a `Slot`
with fake sensors and the simulated clock through the steps, as fast as the CPU allows:
`condor-policy run` and `check`'s compiled machine both call it.

Besides DESIGN.md's keys a trace may hold: `expect` (the transition numbers the story
should fire, a list or `{manual: [...], code: [...]}`; written by hand from the manual,
ignored by `condor-policy run`), `description`, `epoch` (time() at t = 0, default
1000000000) and `keepalive` (default true: the schedd's keep-alives renew the claim lease;
false lets the lease run out).
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import yaml

from compiler import StateTable
from compiler.classad import parse
from compiler.errors import PolicyError, raise_all
from compiler.spec import DEFAULT_ERA, ERAS, SEMANTICS, load_spec
from compiler.textio import read_text
from runtime.clock import SimClock
from runtime.fired import num
from runtime.sensors.fake import IDLE_ATTRIBUTES, FakeSensors

#: time() at trace time 0 when a trace gives no `epoch` (DESIGN.md trace format).
EPOCH = 1_000_000_000

TOP_KEYS = (
    "era",
    "semantics",
    "config",
    "initial",
    "machine",
    "idle_ages",
    "polling",
    "job",
    "slot",
    "steps",
    "expect",
    "description",
    "epoch",
    "keepalive",
    "hardware",
)
STEP_KINDS = ("tick", "event", "set", "set_job")
STEP_KEYS = ("t", *STEP_KINDS, "how", "job", "note", "slot", "start", "defrag")


class TraceError(PolicyError):
    """A problem in a trace file, with its position."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step: at trace time `t`, a tick, an event (with `how`/`job`), `set` or `set_job`."""

    t: float
    kind: str
    event: str | None = None
    how: str | None = None
    job: Mapping[str, Any] | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    line: int = 0
    slot: str | None = None
    #: 1-based column of the step's `slot:` value (else of the step) in its trace file,
    #: 0 when not read from a file: where a startd error about the step points
    column: int = field(default=0, compare=False)
    #: a drain's start expression (`condor_drain -start`), and whether condor_defrag
    #: asked for the drain (DEFRAG_DRAINING_SCHEDULE / DEFRAG_DRAINING_START_EXPR)
    start: str | None = None
    defrag: bool = False

    def payload(self) -> dict[str, Any]:
        """An event step's keyword arguments for `send` (`how`, `job`, `start`, `defrag`)."""
        out: dict[str, Any] = {}
        if self.how is not None:
            out["how"] = self.how
        if self.job is not None:
            out["job"] = dict(self.job)
        if self.start is not None:
            out["start"] = self.start
        if self.defrag:
            out["defrag"] = True
        return out

    def to_dict(self) -> dict[str, Any]:
        """The step as a trace file writes it."""
        out: dict[str, Any] = {"t": num(self.t)}
        if self.slot is not None:
            out["slot"] = self.slot
        match self.kind:
            case "tick":
                out["tick"] = True
            case "event":
                out["event"] = self.event
                if self.how is not None:
                    out["how"] = self.how
                if self.job is not None:
                    out["job"] = dict(self.job)
                if self.start is not None:
                    out["start"] = self.start
                if self.defrag:
                    out["defrag"] = True
            case _:
                out[self.kind] = dict(self.values)
        return out


@dataclass(frozen=True, slots=True)
class Trace:
    """A checked trace file."""

    file: str
    steps: tuple[Step, ...]
    era: str | None = None
    semantics: str | None = None
    config: Mapping[str, str] = field(default_factory=dict)
    initial: tuple[str, str] = ("Owner", "Idle")
    machine: Mapping[str, Any] = field(default_factory=dict)
    idle_ages: bool = True
    polling: str = "auto"
    job: Mapping[str, Any] = field(default_factory=dict)
    slot: str = "static"
    epoch: float = float(EPOCH)
    keepalive: bool = True
    expect: Mapping[str, tuple[int | str, ...]] = field(default_factory=dict)
    description: str = ""
    hardware: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The trace as a trace file writes it (keys at their default are left out, except
        the ones a reader should see: initial, machine, idle_ages, polling, slot)."""
        out: dict[str, Any] = {}
        if self.description:
            out["description"] = self.description
        for key in ("era", "semantics"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.config:
            out["config"] = dict(self.config)
        out["initial"] = {"state": self.initial[0], "activity": self.initial[1]}
        out["machine"] = dict(self.machine)
        out["idle_ages"] = self.idle_ages
        out["polling"] = self.polling
        if self.job:
            out["job"] = dict(self.job)
        out["slot"] = self.slot
        if self.hardware is not None:
            out["hardware"] = dict(self.hardware)
        if self.epoch != EPOCH:
            out["epoch"] = num(self.epoch)
        if not self.keepalive:
            out["keepalive"] = False
        if self.expect:
            groups = {k: list(v) for k, v in self.expect.items()}
            out["expect"] = groups["any"] if set(groups) == {"any"} else groups
        out["steps"] = [step.to_dict() for step in self.steps]
        return out

    def expected(self, semantics: str) -> tuple[int | str, ...] | None:
        """The hand-written expected transition numbers for `semantics` (None if absent)."""
        if "any" in self.expect:
            return self.expect["any"]
        return self.expect.get(semantics)


# ------------------------------------------------------------------------------ reading


class _Reader:
    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.text = text
        self.lines = text.splitlines()
        self.errors: list[TraceError] = []

    def positioned(self, message: str, mark: yaml.Mark | None) -> TraceError:
        """An error at a YAML mark (0-based line and column), with its source line."""
        if mark is None:
            return TraceError(message, file=self.file)
        line = mark.line + 1
        source = self.lines[line - 1] if line <= len(self.lines) else None
        return TraceError(
            message, file=self.file, line=line, column=mark.column + 1, source_line=source
        )

    def at_offset(self, message: str, offset: int) -> TraceError:
        """An error at a character offset of the text."""
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        source = self.text.split("\n")[line - 1].rstrip("\r")
        return TraceError(message, file=self.file, line=line, column=column, source_line=source)

    def error(self, node: yaml.Node | None, message: str) -> None:
        line = column = None
        source = None
        if node is not None:
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
            if 0 < line <= len(self.lines):
                source = self.lines[line - 1]
        self.errors.append(
            TraceError(message, file=self.file, line=line, column=column, source_line=source)
        )


def _mapping(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, value in node.value:
        out[str(key.value)] = (key, value)
    return out


def _value(loader_node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        value = loader.construct_object(loader_node, deep=True)
        _check_integers(value, loader_node)
        return value
    except ValueError as err:
        # PyYAML's own constructors raise ValueError for `!!int abc` and the like.
        raise yaml.constructor.ConstructorError(
            None, None, f"not a valid {loader_node.tag} value: {err}", loader_node.start_mark
        ) from None
    finally:
        loader.dispose()


def _check_idle(r: _Reader, node: yaml.Node, values: Mapping[str, Any]) -> None:
    """Idle times count up with the clock (runtime.sensors.fake): numbers must be finite."""
    for name, value in values.items():
        if name in IDLE_ATTRIBUTES and isinstance(value, float) and _seconds(value) is None:
            r.error(node, f"{name} must be a finite number of seconds, not {value}")


def _check_integers(value: Any, node: yaml.Node) -> None:
    """Refuse integers outside int64 (ClassAd integers are 64-bit; `0x` + 5,000 digits
    would not even print)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, int) and not isinstance(item, bool):
            if not -(2**63) <= item < 2**63:
                raise yaml.constructor.ConstructorError(
                    None, None, "integer out of the 64-bit range", node.start_mark
                )
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list | tuple | set):
            todo.extend(item)


def _seconds(value: Any) -> float | None:
    """A YAML number as finite seconds; None for anything else (text, booleans, .nan,
    .inf, integers too large for a float)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _suggest(word: str, known: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"


def read_trace(path: str | Path, text: str | None = None) -> Trace:
    """Read and check a trace file (YAML or JSON); all problems raised together.

    `text` is the file's content when it is already in memory. A trace is text: bytes
    that are not UTF-8 are a positioned error (compiler.textio), as are characters YAML
    refuses, nesting too deep for the YAML composer, and values it cannot construct."""
    file = str(path)
    if text is None:
        text = read_text(path, error=TraceError)
    r = _Reader(file, text)
    try:
        return _checked(r, yaml.compose(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        raise r.positioned(f"not valid YAML/JSON: {err.problem or err.context}", mark) from None
    except yaml.reader.ReaderError as err:
        raise r.at_offset(f"not valid YAML/JSON: {err.reason}", err.position) from None
    except RecursionError:
        raise TraceError("nested too deeply for a trace", file=file) from None


def _checked(r: _Reader, root: yaml.Node | None) -> Trace:
    file = r.file
    if not isinstance(root, yaml.MappingNode):
        raise TraceError("a trace is a mapping with a `steps` list", file=file, line=1)
    top = _mapping(root)
    for key, (knode, _) in top.items():
        if key not in TOP_KEYS:
            r.error(knode, f"unknown trace key {key!r}{_suggest(key, TOP_KEYS)}")
    values: dict[str, Any] = {}
    for key, (_, vnode) in top.items():
        if key in TOP_KEYS and key != "steps":
            values[key] = _value(vnode)
    era = values.get("era")
    if era is not None and era not in ERAS:
        r.error(top["era"][1], f"unknown era {era!r}{_suggest(str(era), ERAS)}")
        era = None
    semantics = values.get("semantics")
    if semantics is not None and semantics not in SEMANTICS:
        r.error(top["semantics"][1], f"semantics must be one of {', '.join(SEMANTICS)}")
    config = values.get("config", {}) or {}
    if not isinstance(config, dict):
        r.error(top["config"][1], "config must be a mapping NAME: value")
        config = {}
    config = {str(k): _config_text(v) for k, v in config.items()}
    initial = ("Owner", "Idle")
    if "initial" in values:
        init = values["initial"]
        if not isinstance(init, dict) or "state" not in init:
            r.error(top["initial"][1], "initial must be {state: S, activity: A}")
        else:
            initial = (str(init["state"]), str(init.get("activity", "Idle")))
    for key in ("machine", "job", "hardware"):
        if key in values and not isinstance(values[key], dict):
            r.error(top[key][1], f"{key} must be a mapping of attributes")
            values[key] = {}
    if "machine" in values:
        _check_idle(r, top["machine"][1], values["machine"])
    for key in ("idle_ages", "keepalive"):
        if key in values and not isinstance(values[key], bool):
            r.error(top[key][1], f"{key} must be true or false")
            values[key] = True
    polling = values.get("polling", "auto")
    if polling not in ("auto", "explicit"):
        r.error(top["polling"][1], "polling must be auto or explicit")
        polling = "auto"
    slot = values.get("slot", "static")
    if slot not in ("static", "dynamic"):
        r.error(top["slot"][1], "slot must be static or dynamic")
        slot = "static"
    epoch = values.get("epoch", EPOCH)
    if _seconds(epoch) is None:
        r.error(top["epoch"][1], "epoch must be a number of seconds")
        epoch = EPOCH
    hardware = values.get("hardware")
    expect = _expect(r, top.get("expect"))
    spec = load_spec(era or DEFAULT_ERA)
    events = {e.name: e for e in spec.events}
    steps: list[Step] = []
    if "steps" not in top:
        r.error(root, "a trace needs a `steps` list")
    else:
        steps = _steps(r, top["steps"][1], events)
    if hardware is None:
        for step in steps:
            if step.slot not in (None, "slot1"):
                r.errors.append(
                    TraceError(
                        f"the step names slot {step.slot!r}, but a trace without `hardware:` "
                        "runs one slot (slot1)",
                        file=file,
                        line=step.line,
                    )
                )
            if step.start is not None or step.defrag:
                r.errors.append(
                    TraceError(
                        "a drain's start: and defrag: decide which jobs a draining "
                        "partitionable slot still takes: they need `hardware:` (a machine)",
                        file=file,
                        line=step.line,
                    )
                )
    raise_all(r.errors)
    return Trace(
        file=file,
        steps=tuple(steps),
        era=era,
        semantics=semantics,
        config=config,
        initial=initial,
        machine=dict(values.get("machine") or {}),
        idle_ages=values.get("idle_ages", True),
        polling=polling,
        job=dict(values.get("job") or {}),
        slot=slot,
        epoch=float(epoch),
        keepalive=values.get("keepalive", True),
        expect=expect,
        description=str(values.get("description", "")),
        hardware=hardware,
    )


def dump_trace(trace: Trace) -> str:
    """A trace file's text (YAML) for `trace`: what `read_trace` reads back."""
    return yaml.safe_dump(trace.to_dict(), sort_keys=False, default_flow_style=None)


def _config_text(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def _expect(r: _Reader, entry: tuple[yaml.Node, yaml.Node] | None) -> dict[str, tuple[Any, ...]]:
    if entry is None:
        return {}
    node = entry[1]
    data = _value(node)
    groups = {"any": data} if isinstance(data, list) else data
    if not isinstance(groups, dict):
        r.error(node, "expect must be a list of transition numbers or {manual: [...], code: [...]}")
        return {}
    out: dict[str, tuple[Any, ...]] = {}
    for key, numbers in groups.items():
        if key not in (*SEMANTICS, "any") or not isinstance(numbers, list):
            r.error(node, f"expect: {key!r} must be manual or code with a list of numbers")
            continue
        bad = [n for n in numbers if not (isinstance(n, int) or str(n).startswith("unnumbered:"))]
        if bad:
            r.error(node, f"expect: not transition numbers: {bad}")
        out[str(key)] = tuple(numbers)
    return out


def _steps(r: _Reader, node: yaml.Node, events: Mapping[str, Any]) -> list[Step]:
    if not isinstance(node, yaml.SequenceNode):
        r.error(node, "steps must be a list")
        return []
    steps: list[Step] = []
    last_t = 0.0
    for item in node.value:
        if not isinstance(item, yaml.MappingNode):
            r.error(item, "a step is a mapping such as {t: 0, tick: true}")
            continue
        fields = _mapping(item)
        for key, (knode, _) in fields.items():
            if key not in STEP_KEYS:
                r.error(knode, f"unknown step key {key!r}{_suggest(key, STEP_KEYS)}")
        kinds = [k for k in STEP_KINDS if k in fields]
        if len(kinds) != 1:
            r.error(item, f"a step needs exactly one of {', '.join(STEP_KINDS)}")
            continue
        kind = kinds[0]
        t_entry = fields.get("t")
        t = _value(t_entry[1]) if t_entry else None
        seconds = _seconds(t)
        if seconds is None or seconds < 0:
            r.error(t_entry[1] if t_entry else item, "t must be a number of seconds >= 0")
            continue
        if seconds < last_t and t_entry is not None:
            r.error(t_entry[1], f"steps must be in time order (t={t} after t={last_t})")
        last_t = max(last_t, seconds)
        line = item.start_mark.line + 1
        at = fields["slot"][1] if "slot" in fields else item
        column = at.start_mark.column + 1
        slot_name = None
        if "slot" in fields:
            slot_name = _value(fields["slot"][1])
            if not isinstance(slot_name, str) or not slot_name:
                r.error(fields["slot"][1], "slot must be a slot name such as slot1 or slot1_2")
                slot_name = None
        value_node = fields[kind][1]
        value = _value(value_node)
        match kind:
            case "event":
                name = str(value)
                if name not in events:
                    r.error(value_node, f"unknown event {name!r}{_suggest(name, list(events))}")
                    continue
                how = _value(fields["how"][1]) if "how" in fields else None
                allowed = events[name].how
                if how is not None and (not allowed or how not in allowed):
                    choices = ", ".join(allowed) if allowed else "none"
                    r.error(fields["how"][1], f"event {name}: how {how!r} (allowed: {choices})")
                job = _value(fields["job"][1]) if "job" in fields else None
                if job is not None and not isinstance(job, dict):
                    r.error(fields["job"][1], "job must be a mapping of job attributes")
                    job = None
                start, defrag = _drain_fields(r, fields, name)
                steps.append(
                    Step(
                        seconds,
                        "event",
                        name,
                        how,
                        job,
                        line=line,
                        slot=slot_name,
                        column=column,
                        start=start,
                        defrag=defrag,
                    )
                )
            case "tick":
                if value is not True:
                    r.error(value_node, "tick must be true")
                steps.append(Step(seconds, "tick", line=line, slot=slot_name, column=column))
            case "set" | "set_job":
                if not isinstance(value, dict) or not value:
                    r.error(value_node, f"{kind} must be a mapping of attributes")
                    continue
                if kind == "set":
                    _check_idle(r, value_node, value)
                steps.append(
                    Step(
                        seconds, kind, values=dict(value), line=line, slot=slot_name, column=column
                    )
                )
    return steps


def _drain_fields(
    r: Any, fields: dict[str, tuple[yaml.Node, yaml.Node]], event: str
) -> tuple[str | None, bool]:
    """A drain step's `start:` (a ClassAd expression) and `defrag:` (a boolean); other
    events take neither."""
    start: str | None = None
    defrag = False
    for key in ("start", "defrag"):
        if key in fields and event != "drain":
            r.error(fields[key][0], f"{key}: belongs to a drain step, not to {event}")
    if "start" in fields and event == "drain":
        node = fields["start"][1]
        value = _value(node)
        text = str(value).lower() if isinstance(value, bool) else value
        if not isinstance(text, str | int | float) or isinstance(text, bool):
            r.error(node, "start must be a ClassAd expression")
        else:
            try:
                parse(str(text))
                start = str(text)
            except PolicyError as err:
                r.error(node, f"start: {err.message}")
    if "defrag" in fields and event == "drain":
        value = _value(fields["defrag"][1])
        if not isinstance(value, bool):
            r.error(fields["defrag"][1], "defrag must be true or false")
        else:
            defrag = value
    return start, defrag


# ------------------------------------------------------------------------------ replay

#: Called by `replay` with (slot, step index, applied): after the clock advanced to the
#: step (applied False), after the step (True), and once after the clock ran on past the
#: last step (index = number of steps, applied False).
Observer = Callable[[Any, int, bool], None]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _in_the_trace(
    run: Callable[Concatenate[Trace, _P], _R],
) -> Callable[Concatenate[Trace, _P], _R]:
    """`run(trace, ...)` with a problem it meets that has no place of its own (a cascade
    that never settles while the clock runs between steps, say) put in the trace's file:
    the run it happened in."""

    @functools.wraps(run)
    def placed(trace: Trace, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return run(trace, *args, **kwargs)
        except PolicyError as err:
            if err.file is None:
                err.file = trace.file
            raise

    return placed


@_in_the_trace
def replay(
    trace: Trace,
    table: StateTable,
    *,
    until: float | None = None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    jobs: Any = None,
    observer: Observer | None = None,
) -> Any:
    """Run `trace` through a fresh `Slot` of `table` on simulated time; returns the slot.

    The slot's `fired` list holds every transition. `until` extends (or cuts) the run;
    by default it ends at the last step's time. The table is the slot's only input: a
    trace's `config:` overrides are applied by compiling `table` from the overridden
    configuration (as `condor-policy run` does). Before a step at time t the timers due
    before t fire; ones due at t itself fire after the step (and after the last step when
    the run ends at t).
    """
    clock = SimClock(epoch=trace.epoch)
    sensors = FakeSensors(idle_ages=trace.idle_ages, start=clock.now())
    sensors.set(trace.machine, clock.now())
    try:
        slot = _slot(trace, table, listener, jobs, clock, sensors)
    except PolicyError as err:
        err.file = trace.file
        raise
    slot.start()
    end = until if until is not None else (trace.steps[-1].t if trace.steps else 0.0)
    for index, step in enumerate(trace.steps):
        if step.t > end:
            break
        slot.advance(step.t, inclusive=False)
        if observer is not None:
            observer(slot, index, False)
        try:
            _apply(slot, step)
        except PolicyError as err:
            err.file, err.line = trace.file, step.line
            err.column = step.column or None
            raise
        if observer is not None:
            observer(slot, index, True)
        if slot.deleted:
            return slot
    slot.advance(end)
    if observer is not None:
        observer(slot, len(trace.steps), False)
    return slot


def _slot(
    trace: Trace,
    table: StateTable,
    listener: Any,
    jobs: Any,
    clock: SimClock,
    sensors: FakeSensors,
) -> Any:
    from runtime.slot import Slot

    return Slot(
        table,
        sensors,
        clock,
        job=trace.job,
        jobs=jobs,
        listener=listener,
        dynamic=trace.slot == "dynamic",
        keepalive=trace.keepalive,
        polling=trace.polling,
        initial=trace.initial,
    )


def _apply(slot: Any, step: Step) -> None:
    match step.kind:
        case "tick":
            slot.poll()
        case "event":
            slot.send(step.event, **step.payload())
        case "set":
            slot.set_sensors(step.values)
        case "set_job":
            slot.set_job(step.values)
        case _:
            raise ValueError(f"unknown step kind {step.kind}")


# ------------------------------------------------------------------ a machine of slots


@_in_the_trace
def replay_startd(
    trace: Trace,
    layout: Any,
    table_of: Callable[[Any], StateTable],
    *,
    semantics: str,
    until: float | None = None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    slot_attrs: tuple[str, ...] = (),
) -> Any:
    """Run `trace` through a `runtime.startd.Startd` of `layout` (a trace with
    `hardware:`): steps go to the slot they name (`slot:`), startd-wide commands without
    one to every slot. Returns the startd; its `log` holds every report in order."""
    from runtime.startd import Startd

    clock = SimClock(epoch=trace.epoch)
    options = {"keepalive": trace.keepalive, "polling": trace.polling, "job": trace.job}
    startd = Startd(
        layout,
        table_of,
        clock,
        machine=trace.machine,
        idle_ages=trace.idle_ages,
        semantics=semantics,
        slot_options=options,
        listener=listener,
        slot_attrs=slot_attrs,
    )
    startd.start()
    end = until if until is not None else (trace.steps[-1].t if trace.steps else 0.0)
    for step in trace.steps:
        if step.t > end:
            break
        startd.advance(step.t, inclusive=False)
        try:
            _apply_startd(startd, step)
        except PolicyError as err:
            err.file, err.line = trace.file, step.line
            err.column = step.column or None
            raise
    startd.advance(end)
    return startd


def _apply_startd(startd: Any, step: Step) -> None:
    what = step.event if step.kind == "event" else ("set_job" if step.kind == "set_job" else None)
    for name in startd.targets(step.slot, what):
        match step.kind:
            case "tick":
                startd.poll(name)
            case "event":
                startd.send(name, step.event, **step.payload())
            case "set":
                startd.set_sensors(name, step.values)
            case "set_job":
                startd.set_job(name, step.values)
