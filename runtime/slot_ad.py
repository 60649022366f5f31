"""The slot ad builder: the machine ClassAd the guards see (MY), from a slot record.

Stage: runtime. `AdBuilder.build(record, pair, now, overrides)` is the published ad
(`runtime.ads.machine_ad`: sensors, times, claim attributes, the table's published policy
expressions) plus the CpuBusy latch attributes and the spec's predicates
(`runtime.ads.predicates`). What it keeps between calls: the CpuBusy latch (when CpuBusy
last changed, reference D17), the last measured sensor values (to log real changes) and
the slot's own ad (`current`).

The slot's own ad is polled every few seconds while, most of the time, only the clock
and the sensors move: `current` keeps the three ads one build makes (`_Live`: the
published ad the CpuBusy expression sees, that plus the CpuBusy attributes for the
predicates, and the ad the guards see) together with the record's `ad_layout`, and
while the record, the pair and the sensors' names stay it only refreshes the
attributes that moved, in place. When the CpuBusy expression and the retirement limit
cannot read the attributes added after them (`reads`, a conservative look at their
text), one ad serves all three (`_Live.shared`), and those two are evaluated again only
when an attribute they read changes (`memo_keys`, `_Memo`). Every value is the one
`build` would give (a test compares them on every pass of the scenarios); a refresh
within the same instant that changes something copies the ads first, so an ad handed
out in that instant never changes under its holder. It decides no transition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from compiler import holds
from compiler.classad import ClassAd
from compiler.classad.ast import EXPR_TYPES, AttrRef, Call, Expr, Select, Subscript, walk
from compiler.spec import EraSpec, Pair
from runtime.ads import (
    TIMED_PREDICATES,
    Moving,
    PolicyExprs,
    SlotState,
    ad_layout,
    clock_quantities,
    cpu_busy_attrs,
    machine_ad,
    moving_values,
    predicates,
    timed_predicates,
)
from runtime.fired import jsonable
from runtime.sensors.fake import FakeSensors


@dataclass(slots=True)
class _Live:
    """The slot's own ads for one record, pair and set of sensor names (see the module
    docstring): `published` (None when the era has no CpuBusy expression), `claimed`
    (plus the CpuBusy attributes) and `ad` (plus the predicates, what the guards see),
    and the values last set of the attributes that may change: the layout's moving
    ones (`read` from the sensors, the other `moving` ones), the CpuBusy ones and the
    predicates. `in_place`: no name is set twice (else always built afresh); `shared`:
    the CpuBusy expression and the retirement limit read none of the attributes added
    after them (`reads`), so one ad serves all three (`published` and `claimed` None)."""

    record: SlotState
    pair: Pair
    sensor_names: tuple[str, ...]
    in_place: bool
    shared: bool
    read: tuple[tuple[str, str], ...]
    moving: tuple[tuple[str, Moving], ...]
    published: ClassAd | None
    claimed: ClassAd | None
    ad: ClassAd
    policy: PolicyExprs
    now: float
    moved: list[tuple[str, Any]]
    cpu: list[tuple[str, Any]]
    named: list[tuple[str, Any]]
    given: list[tuple[str, Any]]
    timed: tuple[int, ...]


def _changes(old: list[tuple[str, Any]], new: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (name, value) pairs of `new` whose value differs (by type or value) from the
    one at the same place in `old` (the same names in the same order)."""
    return [
        (name, value)
        for (_, was), (name, value) in zip(old, new, strict=True)
        if was is not value and (type(was) is not type(value) or was != value)
    ]


#: Builtins that read no attribute by a computed name (`eval`, `unparse`, ...): what an
#: expression calling only these may read is in its text (`reads`).
_PLAIN_CALLS = frozenset(
    [
        "ifthenelse",
        "isundefined",
        "iserror",
        "isstring",
        "isinteger",
        "isreal",
        "isboolean",
        "islist",
        "time",
        "int",
        "real",
        "string",
        "bool",
        "floor",
        "ceiling",
        "round",
        "pow",
        "abs",
        "min",
        "max",
        "sum",
        "avg",
        "strcat",
        "substr",
        "tolower",
        "toupper",
        "size",
        "stringlistmember",
        "stringlistimember",
        "regexp",
        "member",
        "identicalmember",
        "random",
        "quantize",
    ]
)
#: Names that, alone, stand for an ad (`MY`, `TARGET`, ...): an ad seen as a value.
_AD_NAMES = frozenset({"my", "self", "target", "other", "parent"})
_PLAIN = frozenset({bool, int, float, str})


def reads(expr: Expr | None, ad: Mapping[str, Any]) -> frozenset[str] | None:
    """The lower-case attribute names an evaluation of `expr` with MY = an ad holding
    `ad` (lower-case names) may look up, following the ad's own expressions; None when
    the text does not tell (a subscript, a call outside `_PLAIN_CALLS`, an ad seen as a
    value, a PARENT reference, a nested value in the ad)."""
    found = _reading(expr, ad)
    return None if found is None else found[0]


def _reading(
    expr: Expr | None, ad: Mapping[str, Any]
) -> tuple[frozenset[str], frozenset[str]] | None:
    """`reads`, and the builtins called on the way."""
    seen: set[str] = set()
    calls: set[str] = set()
    todo = [] if expr is None else [expr]
    done: set[int] = set()
    while todo:
        top = todo.pop()
        if id(top) in done:
            continue
        done.add(id(top))
        for node in walk(top):
            if isinstance(node, AttrRef):
                key = node.key
                if node.scope == "PARENT" or (node.scope is None and key in _AD_NAMES):
                    return None
                seen.add(key)
                raw = ad.get(key)
                if isinstance(raw, EXPR_TYPES):
                    todo.append(raw)
                elif raw is not None and type(raw) not in _PLAIN:
                    return None
            elif isinstance(node, Select):
                seen.add(node.key)
            elif isinstance(node, Subscript) or (
                isinstance(node, Call) and node.key not in _PLAIN_CALLS
            ):
                return None
            elif isinstance(node, Call):
                calls.add(node.key)
    return frozenset(seen), frozenset(calls)


def memo_keys(expr: Expr | None, ad: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The names whose values alone decide `expr`'s value in an ad holding `ad` against
    a given target (`reads`), or None when the value may also change with the clock or
    by chance (`time()`, `CurrentTime`, `random()`) or is not known from the text."""
    found = _reading(expr, ad)
    if found is None or "currenttime" in found[0] or found[1] & {"time", "random"}:
        return None
    return tuple(sorted(found[0]))


@dataclass(slots=True)
class _Memo:
    """A policy expression of the slot's own ad (`memo_keys`) evaluated again only when
    one of the attributes it reads, the ad or the target is another than last time."""

    fn: Callable[..., Any]
    keys: tuple[str, ...]
    last: tuple[Any, Any, tuple[Any, ...], Any] | None = None

    def __call__(self, my: Any, target: Any, **kw: Any) -> Any:
        if type(my) is not ClassAd:
            return self.fn(my, target, **kw)
        raw = my.lowered()
        values = tuple([raw.get(key, _ABSENT) for key in self.keys])
        last = self.last
        if last is not None and last[0] is my and last[1] is target and _same(last[2], values):
            return last[3]
        value = self.fn(my, target, **kw)
        self.last = (my, target, values, value)
        return value


_ABSENT: Any = object()


def _same(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """The same values, type for type (1 and 1.0 and True differ in a ClassAd)."""
    return all(a is b or (type(a) is type(b) and a == b) for a, b in zip(old, new, strict=True))


def _same_items(old: list[tuple[str, Any]], new: list[tuple[str, Any]]) -> bool:
    """The same names with the same values, type for type."""
    return len(old) == len(new) and all(
        a == c and (b is d or (type(b) is type(d) and b == d))
        for (a, b), (c, d) in zip(old, new, strict=True)
    )


def _distinct(names: list[str]) -> bool:
    """No two of `names` are the same attribute (ClassAd names ignore case)."""
    return len({name.lower() for name in names}) == len(names)


def _set(ad: ClassAd, changes: list[tuple[str, Any]], copy: bool) -> ClassAd:
    """`ad` with `changes` made: in place, or in a copy when `copy` (and any change)."""
    if not changes:
        return ad
    if copy:
        ad = ad.copy()
    for name, value in changes:
        ad[name] = value
    return ad


@dataclass(slots=True)
class AdBuilder:
    """Builds the slot ad of one slot (see the module docstring)."""

    spec: EraSpec
    policy: PolicyExprs
    published: Mapping[str, Expr]
    sensors: Any
    log: Callable[[dict[str, Any]], None]
    slot_id: int = 1
    cpu_busy: tuple[bool, float | None, float] = (False, None, 0.0)
    last_sensors: dict[str, Any] = field(default_factory=dict)
    cache: tuple[Any, ClassAd] | None = None
    live: _Live | None = None
    analysed: dict[tuple[Any, ...], tuple[list[Any], bool, dict[str, tuple[str, ...]]]] = field(
        default_factory=dict
    )

    def invalidate(self) -> None:
        """Forget the cached ad (the record, the pair or a sensor changed)."""
        self.cache = None

    def current(
        self, record: SlotState, pair: Pair, now: float, overrides: Mapping[str, Any]
    ) -> ClassAd:
        """The slot's ad now (cached per instant, record and pair); advances the latch."""
        key = (now, id(record), pair)
        if self.cache is not None and self.cache[0] == key:
            return self.cache[1]
        sensors = self.read_sensors(now)
        live = self.live
        if (
            live is None
            or live.record is not record
            or live.pair != pair
            or live.sensor_names != tuple(sensors)
        ):
            live = self._fresh(record, pair, now, overrides, sensors)
        else:
            live = self._refresh(live, now, overrides, sensors)
        self.live = live
        self.cache = (key, live.ad)
        return live.ad

    def _fresh(
        self,
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        sensors: Mapping[str, Any],
    ) -> _Live:
        """The three ads built from scratch (as `build` builds them) and the layout."""
        names = tuple(sensors)
        layout = ad_layout(
            record, pair, self.spec, names, slot_id=self.slot_id, published_policy=self.published
        )
        moving = tuple((n, v) for n, v in layout.items() if type(v) is Moving)
        read = tuple((n, v.sensor) for n, v in moving if v.quantity == "sensor")
        moving = tuple((n, v) for n, v in moving if v.quantity != "sensor")
        moved = [(n, sensors[k]) for n, k in read]
        moved += moving_values(moving, record, pair, now, sensors)
        shown = list(layout)
        layout.update(moved)
        published: ClassAd | None = None
        cpu: dict[str, Any] = {}
        if self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            published = ClassAd(layout)
            cpu = self._cpu_busy(published, now, track=True)
            layout.update(cpu)
        claimed = ClassAd(layout)
        named = predicates(record, pair, now, self.spec, self.policy, claimed, overrides)
        layout.update(named)
        ad = ClassAd(layout)
        shared, memos = self._shared(ad, cpu, named)
        policy = self.policy
        if memos:
            exprs: dict[str, Callable[..., Any]] = dict(policy.exprs)
            exprs.update({n: _Memo(policy.exprs[n], k) for n, k in memos.items()})
            policy = replace(policy, exprs=exprs)
        return _Live(
            record,
            pair,
            names,
            _distinct([*shown, *cpu, *named]),  # else a name set twice: always afresh
            shared,
            read,
            moving,
            None if shared else published,
            None if shared else claimed,
            ad,
            policy,
            now,
            moved,
            list(cpu.items()),
            list(named.items()),
            list(overrides.items()),
            tuple(i for i, name in enumerate(named) if name in TIMED_PREDICATES),
        )

    def _shared(
        self, ad: ClassAd, cpu: Mapping[str, Any], named: Mapping[str, Any]
    ) -> tuple[bool, dict[str, tuple[str, ...]]]:
        """Whether CpuBusy reads none of `cpu` and `named` and the retirement limit none
        of `named` (so both may be evaluated in the one ad `ad`: `_Live.shared`); and,
        when so, those of the two whose value only the attributes they read decide
        (`memo_keys`: evaluated again only when one of these changes)."""
        key = tuple(
            (name, id(raw) if isinstance(raw, EXPR_TYPES) else type(raw) in _PLAIN)
            for name, raw in ad.lowered().items()
        )
        hit = self.analysed.get(key)
        if hit is not None:
            return hit[1], hit[2]
        sources = self.policy.sources
        later = {name.lower() for name in named}
        limit = reads(sources.get(self.spec.helpers.retirement.limit), ad.lowered())
        shared = limit is not None and limit.isdisjoint(later)
        if shared and self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            busy = reads(sources.get(self.spec.helpers.cpu_busy.expression), ad.lowered())
            shared = busy is not None and busy.isdisjoint(later | {n.lower() for n in cpu})
        memos: dict[str, tuple[str, ...]] = {}
        if shared:
            helpers = self.spec.helpers
            for name in (helpers.cpu_busy.expression, helpers.retirement.limit):
                keys = memo_keys(sources.get(name), ad.lowered())
                if keys is not None and name in self.policy.exprs:
                    memos[name] = keys
        if len(self.analysed) >= 64:
            self.analysed.clear()
        self.analysed[key] = (list(ad.values()), shared, memos)  # (expressions kept alive)
        return shared, memos

    def _refresh(
        self, live: _Live, now: float, overrides: Mapping[str, Any], sensors: Mapping[str, Any]
    ) -> _Live:
        """`live` brought to `now` and `sensors`, setting only what moved (module docstring)."""
        record, pair = live.record, live.pair
        if not live.in_place:
            return self._fresh(record, pair, now, overrides, sensors)
        copy = now == live.now
        moved = [(n, sensors[k]) for n, k in live.read]
        if live.moving:
            clocked = clock_quantities(record, pair, now)
            moved += [(n, clocked[m.quantity]) for n, m in live.moving]
        changed = _changes(live.moved, moved)
        if live.shared:
            if any(type(value) not in _PLAIN for _, value in changed):
                return self._fresh(record, pair, now, overrides, sensors)  # analysed anew
            return self._refresh_shared(live, now, overrides, moved, changed, copy)
        live.moved = moved
        assert live.claimed is not None
        if live.published is not None:
            live.published = _set(live.published, changed, copy)
            cpu = list(self._cpu_busy(live.published, now, track=True).items())
            changed += _changes(live.cpu, cpu)
            live.cpu = cpu
        live.claimed = _set(live.claimed, changed, copy)
        named = list(
            predicates(record, pair, now, self.spec, self.policy, live.claimed, overrides).items()
        )
        changed += _changes(live.named, named)
        live.named = named
        live.ad = _set(live.ad, changed, copy)
        live.now = now
        return live

    def _refresh_shared(
        self,
        live: _Live,
        now: float,
        overrides: Mapping[str, Any],
        moved: list[tuple[str, Any]],
        changed: list[tuple[str, Any]],
        copy: bool,
    ) -> _Live:
        """`_refresh` with the one ad of `_Live.shared`: CpuBusy and the predicates are
        evaluated in it after the moved attributes are set, before their own are."""
        record, pair = live.record, live.pair
        ad = _set(live.ad, changed, copy)
        copy = copy and ad is live.ad
        live.moved = moved
        if self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            cpu = list(self._cpu_busy(ad, now, track=True, policy=live.policy).items())
            changes = _changes(live.cpu, cpu)
            ad = _set(ad, changes, copy)
            copy = copy and not changes
            live.cpu = cpu
        given = list(overrides.items())
        if _same_items(given, live.given):
            # only the timed predicates can have moved (`runtime.ads.timed_predicates`)
            timed = timed_predicates(record, pair, now, self.spec, live.policy, ad)
            changes = []
            named = live.named
            for index in live.timed:
                name, was = named[index]
                value = overrides[name] if name in overrides else timed[name]
                if was is not value and (type(was) is not type(value) or was != value):
                    changes.append((name, value))
                    if named is live.named:
                        named = named.copy()
                    named[index] = (name, value)
        else:
            named = list(
                predicates(record, pair, now, self.spec, live.policy, ad, overrides).items()
            )
            changes = _changes(live.named, named)
            live.given = given
        live.ad = _set(ad, changes, copy)
        live.named = named
        live.now = now
        return live

    def build(
        self,
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        *,
        track: bool = False,
    ) -> ClassAd:
        """The ad for `record` in `pair` at `now`; `track`: this is the slot's real ad, so
        a CpuBusy change is remembered (a hypothetical ad must not move the latch)."""
        base = machine_ad(
            record,
            pair,
            now,
            self.spec,
            self.policy,
            self.read_sensors(now),
            slot_id=self.slot_id,
            published_policy=self.published,
        )
        if self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            base.update(self._cpu_busy(ClassAd(base), now, track=track))
        base.update(predicates(record, pair, now, self.spec, self.policy, base, overrides))
        return ClassAd(base)

    def read_sensors(self, now: float) -> dict[str, Any]:
        values = dict(self.sensors.read(now))
        if not isinstance(self.sensors, FakeSensors):  # scripted changes are logged by set
            self._log_sensor_changes(values)
        return values

    def _log_sensor_changes(self, values: Mapping[str, Any]) -> None:
        """Log measured changes: idle times when they drop (activity), loads by 0.1."""
        for name, value in values.items():
            old = self.last_sensors.get(name)
            if old == value:
                continue
            if name in ("KeyboardIdle", "ConsoleIdle") and old is not None and value >= old:
                self.last_sensors[name] = value
                continue
            if "Load" in name and old is not None and abs(float(value) - float(old)) < 0.1:
                continue
            self.last_sensors[name] = value
            self.log({"kind": "sensor", "name": name, "value": jsonable(value)})

    def _cpu_busy(
        self, published: ClassAd, now: float, *, track: bool, policy: PolicyExprs | None = None
    ) -> dict[str, Any]:
        """The CpuBusy attributes, CpuBusy evaluated in the `published` ad (no predicates)."""
        rule = self.spec.helpers.cpu_busy
        policy = self.policy if policy is None else policy
        busy = holds(policy.value(rule.expression, published, None, now))
        was, since, changed = self.cpu_busy
        if busy != was and track:
            since = now if busy else None
            changed = now
            self.cpu_busy = (busy, since, changed)
        return cpu_busy_attrs(rule, busy, since, changed, now)
