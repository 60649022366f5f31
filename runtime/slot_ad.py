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

A guard asks for the ad with its expression and target (`current(..., guard, target)`).
In the one-ad case, at a new instant, with the same overrides, the ad is then refreshed
only in what that guard can read (`reads`, following the ad's expressions; the target's
values under those names must be plain, as a target expression may read MY), in what
CpuBusy reads, and, when the guard reads a timed predicate, in what the retirement
limit reads (`_plan`, `_partial`); CpuBusy is evaluated (the latch moves as on a whole
refresh) and the rest is filled in, for the same instant and sensor reading, when the
ad is next asked for without a guard (`_complete`: actions, timers, `Slot.ad`, a
transition about to be recorded). A guard the analysis cannot read (`eval`, `MY[...]`,
an ad as a value, a stored expression doing so) gets the whole refresh; so does every
guard while CpuBusy or the retirement limit calls `random()` (filling in evaluates the
limit again: only while that gives the same value).

A new record or pair (every transition) changes the layout's values, not often its
names: the ads are then renewed (`_fresh`, `_renew`) from a copy of the last ones built
with the same layout names for any slot of the policy (`_TEMPLATES`), setting the layout
values that differ, the moving ones, the CpuBusy attributes and the predicates, when the
template's ads are shared and in place, made with the same overrides and sensor names,
and the two layouts hold the same expressions and markers and plain values elsewhere
(so the shape's analysis holds: it is found once per policy and shape,
`_Templates.shapes`, and each slot keeps its own memoised policy of it, `analysed`).
Otherwise they are built (`_built`). A pool's slots share a handful of templates; the
tests compare every ad handed out with a build.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Any, Final

from compiler import IdentityMemo, holds
from compiler.classad import PLAIN_TYPES, ClassAd, evaluate
from compiler.classad.ast import NODE_TYPES, AttrRef, Call, Expr, Select, Subscript, walk
from compiler.spec import Action, EraSpec, Pair
from runtime.ads import (
    READS_MY,
    TIMED_PREDICATES,
    Moving,
    PolicyExprs,
    SlotState,
    ad_layout,
    clock_quantities,
    cpu_busy_attrs,
    eval_context,
    machine_ad,
    moving_values,
    my_expressions,
    pair_names,
    predicates,
    timed_predicates,
)
from runtime.fired import jsonable

#: ad structures a slot keeps analysed (`SlotAds._shared`): few per slot, a pool of
#: 10,000 slots must not hold dozens each
_ANALYSED_KEPT = 8
#: layout shapes `AdBuilder._fresh` keeps a template of, per policy
_TEMPLATES_KEPT = 64


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
    pending: Mapping[str, Any] | None = None
    latch: tuple[Any, ...] = ()
    applied: list[tuple[tuple[int, ...], bool]] = field(default_factory=list)
    #: `AdBuilder.steady`'s plans by the names asked and whether the sensors are
    #: scripted (None: not provable); like `guard_reads`, the shape decides the rest, so
    #: the ads renewed from these (`AdBuilder._renew`) share them
    steady: dict[tuple[tuple[str, ...], bool], tuple[tuple[str, int], ...] | None] = field(
        default_factory=dict
    )
    plans: dict[tuple[int, int], tuple[Any, Any, tuple[tuple[int, ...], bool] | None]] = field(
        default_factory=dict
    )
    #: what each guard reads of an ad of this shape (`AdBuilder._guard_reads`), by the
    #: guard's id: shared by the slot's ads of one shape (`AdBuilder.analysed`) while
    #: their expressions are those the shape was analysed with, and by the ads renewed
    #: from these (`AdBuilder._renew`, perhaps another slot's of the policy)
    guard_reads: dict[int, tuple[Expr, Any]] = field(default_factory=dict)
    #: the layout's names and values (`runtime.ads.ad_layout`, `Moving` markers in
    #: place) the ads were built from: what `AdBuilder._renew` compares a new one with
    shown: tuple[str, ...] = ()
    template: tuple[Any, ...] = ()
    #: the shape `AdBuilder._shared` analysed the ads as (its key): the ads `_renew`
    #: makes from these have it too
    shape: tuple[Any, ...] = ()


def _changes(old: list[tuple[str, Any]], new: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (name, value) pairs of `new` whose value differs (by type or value) from the
    one at the same place in `old` (the same names in the same order)."""
    if len(old) == len(new) and list(map(type, map(_VALUE, old))) == list(
        map(type, map(_VALUE, new))
    ):
        # type for type the same (the usual case, told by C loops): a pair differs when
        # its value does (a tuple compares its items by identity first, as below)
        return [pair for pair, was in zip(new, old, strict=True) if pair != was]
    return [
        (name, value)
        for (_, was), (name, value) in zip(old, new, strict=True)
        if was is not value and (type(was) is not type(value) or was != value)
    ]


_VALUE = itemgetter(1)


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
_NODES = NODE_TYPES


def reads(expr: Expr | None, ad: Mapping[str, Any]) -> frozenset[str] | None:
    """The lower-case attribute names an evaluation of `expr` with MY = an ad holding
    `ad` (lower-case names) may look up, following the ad's own expressions; None when
    the text does not tell (a subscript, a call outside `_PLAIN_CALLS`, an ad seen as a
    value, a PARENT reference, a nested value in the ad)."""
    found = _reading(expr, ad)
    return None if found is None else found[0]


def _reading(
    expr: Expr | None, ad: Mapping[str, Any]
) -> tuple[frozenset[str], frozenset[str], bool] | None:
    """`reads`, the builtins called on the way, and whether the target may be read: a
    name scoped to it, an unscoped name the ad lacks (looked up in the target next), a
    selection from an ad (`reads_no_target`)."""
    seen: set[str] = set()
    calls: set[str] = set()
    target = False
    todo = [] if expr is None else [expr]
    done: set[int] = set()
    while todo:
        top = todo.pop()
        if id(top) in done:
            continue
        done.add(id(top))
        for node in walk(top):
            # exact node types (`NODE_TYPES`): a failed isinstance is the costly case
            if type(node) is AttrRef:
                key = node.key
                if node.scope == "PARENT" or (node.scope is None and key in _AD_NAMES):
                    return None
                seen.add(key)
                raw: Any = ad.get(key)
                if node.scope not in (None, "MY") or (raw is None and node.scope is None):
                    target = True
                if type(raw) in _NODES:
                    todo.append(raw)
                elif raw is not None and type(raw) not in PLAIN_TYPES:
                    return None
            elif type(node) is Select:
                seen.add(node.key)
                target = True
            elif type(node) is Subscript or (type(node) is Call and node.key not in _PLAIN_CALLS):
                return None
            elif type(node) is Call:
                calls.add(node.key)
    return frozenset(seen), frozenset(calls), target


def memo_keys(expr: Expr | None, ad: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The names whose values alone decide `expr`'s value in an ad holding `ad` against
    a given target (`reads`), or None when the value may also change with the clock or
    by chance (`time()`, `CurrentTime`, `random()`) or is not known from the text."""
    found = _reading(expr, ad)
    if found is None or "currenttime" in found[0] or found[1] & {"time", "random"}:
        return None
    return tuple(sorted(found[0]))


#: `constant_value`'s answer for a value that reads something or is not plain.
NOT_CONSTANT: Final = object()


def constant_value(ad: ClassAd, name: str) -> Any:
    """The plain value of attribute `name` of `ad` when it reads nothing at all (a value
    stored, or an expression of literals evaluated; None when `ad` has no `name`), else
    NOT_CONSTANT: the same value against any target, at any time."""
    lowered = ad.lowered()
    raw: Any = lowered.get(name.lower())
    if type(raw) in _NODES:
        found = _CONSTANTS.get(raw, _ABSENT)
        if found is _ABSENT:
            # found once per expression (a pool's slots publish the same few)
            found = evaluate(raw, ad, None) if reads_nothing(raw) else NOT_CONSTANT
            _CONSTANTS.put(raw, found)
        raw = found
    return raw if raw is None or type(raw) in PLAIN_TYPES else NOT_CONSTANT


def reads_no_target(expr: Expr, ad: Mapping[str, Any]) -> bool:
    """Whether an evaluation of `expr` with MY = an ad holding `ad` (lower-case names)
    reads nothing of its target, following the ad's own expressions: no TARGET-scoped
    name, no unscoped name the ad lacks (looked up in the target next), no selection
    from an ad, nothing `reads` cannot tell. Its value is then the same against any
    job: a slot whose Requirements is such and not TRUE matches none."""
    found = _reading(expr, ad)
    return found is not None and not found[2]


def shape_key(lowered: Mapping[str, Any]) -> tuple[Any, ...]:
    """An ad's shape (lower-case names -> values): its names, each value's type, its
    expressions by identity; what decides what an expression reads in it (`reads`).
    Flat tuples made by C loops (not one of pairs: a slot keeps several, a pool
    thousands of slots). The caller keeps the expressions alive while it keeps a key."""
    types = tuple(map(type, lowered.values()))
    return (
        tuple(lowered),
        types,
        tuple(compress(map(id, lowered.values()), map(_NODES.__contains__, types))),
    )


def reads_nothing(expr: Expr) -> bool:
    """Whether `expr` reads no attribute and calls neither time() nor random() nor a
    builtin that reads by a computed name (`memo_keys` is empty in any ad): it has one
    value in every ad, against any target, at any time."""
    found = _READS_NOTHING.get(expr)
    if found is None:
        found = _READS_NOTHING.put(expr, memo_keys(expr, {}) == ())
    return found


def reads_my(action: Action, spec: EraSpec, policy: PolicyExprs) -> bool:
    """Whether performing `action` may read the slot's ad: it is one of READS_MY and an
    expression it evaluates there (`runtime.ads.my_expressions`) reads something
    (`reads_nothing`); a missing one is UNDEFINED in any ad. A slot whose RANK and
    MachineMaxVacateTime are numbers starts a job without building its ad."""
    if action.name not in READS_MY:
        return False
    for name in my_expressions(action, spec):
        source = policy.sources.get(name)
        if source is None:
            if name in policy.exprs:
                return True  # compiled from what we cannot see
        elif not reads_nothing(source):
            return True
    return False


#: `constant_value`'s finding per expression (by identity), and `reads_nothing`'s.
_CONSTANTS: IdentityMemo[Expr, Any] = IdentityMemo(1 << 12)
_READS_NOTHING: IdentityMemo[Expr, bool] = IdentityMemo(1 << 12)


class _Templates(threading.local):
    """`AdBuilder._fresh`'s templates, per thread (a template's ads are refreshed in place
    by their own slot, so another thread must not copy them): per policy (the slots of
    one table share it), the last live ads built of each layout (slot id and names)."""

    def __init__(self) -> None:
        self.by_policy: IdentityMemo[PolicyExprs, dict[tuple[int, tuple[str, ...]], _Live]] = (
            IdentityMemo(64)
        )
        #: `AdBuilder._shared`'s findings per policy and ad shape (the shape decides
        #: them): (the era, the ad's values kept alive, whether shared, the memoised
        #: names with what they read, the shape's guard_reads); each slot makes its own
        #: memoised policy of them. Found once per pool, not once per slot: a slot
        #: meets a handful of shapes, 60,000 analyses in a pool of 10,000.
        self.shapes: IdentityMemo[PolicyExprs, dict[tuple[Any, ...], _Shape]] = IdentityMemo(64)


#: What `AdBuilder._shared` finds of an ad shape (`_Templates.shapes`)
_Shape = tuple[EraSpec, list[Any], bool, dict[str, tuple[str, ...]], dict[int, tuple[Expr, Any]]]


_TEMPLATES = _Templates()


@dataclass(slots=True)
class _Memo:
    """A policy expression of the slot's own ad (`memo_keys`) evaluated again only when
    one of the attributes it reads, the ad or the target is another than last time."""

    fn: Callable[..., Any]
    keys: tuple[str, ...]
    #: (ad, target, the values read, their types, the value) of the last evaluation
    last: tuple[Any, Any, tuple[Any, ...], tuple[type, ...], Any] | None = None

    def __call__(self, my: Any, target: Any, **kw: Any) -> Any:
        if type(my) is not ClassAd:
            return self.fn(my, target, **kw)
        values = tuple(map(my.lowered().get, self.keys, repeat(_ABSENT)))
        types = tuple(map(type, values))
        last = self.last
        # the same values type for type (1 and 1.0 and True differ in a ClassAd)
        if (
            last is not None
            and last[0] is my
            and last[1] is target
            and last[2] == values
            and last[3] == types
        ):
            return last[4]
        value = self.fn(my, target, **kw)
        self.last = (my, target, values, types, value)
        return value

    def of_shape(self, my: ClassAd, **kw: Any) -> Any:
        """Its value in `my` (no target), which the caller vouches has the shape of the
        ads it was evaluated in (so it reads the same names there): evaluated again only
        when the values of those are not the last ones (a slot's new ad, made from its
        last one by `AdBuilder._renew`, mostly reads the same loads)."""
        values = tuple(map(my.lowered().get, self.keys, repeat(_ABSENT)))
        value = self.known(values)
        if value is _ABSENT:
            value = self.fn(my, None, **kw)
            # (not `my` itself: a memo per shape holding the slot's last ad of each was a
            # tenth more memory; `__call__`'s identity test then fails once, and evaluates)
            self.last = (None, None, values, tuple(map(type, values)), value)
        elif self.last is not None and self.last[0] is not None:
            self.last = (None, *self.last[1:])  # (the same values: only the ad let go)
        return value

    def known(self, values: tuple[Any, ...]) -> Any:
        """Its last value (no target) when the names it reads had these `values` then,
        type for type (in an ad of its shape); `_ABSENT` otherwise."""
        last = self.last
        if (
            last is None
            or last[1] is not None
            or last[2] != values
            or last[3] != tuple(map(type, values))
        ):
            return _ABSENT
        return last[4]


_ABSENT: Any = object()


def _same_items(old: list[tuple[str, Any]], new: list[tuple[str, Any]]) -> bool:
    """The same names with the same values, type for type."""
    return len(old) == len(new) and all(
        a == c and (b is d or (type(b) is type(d) and b == d))
        for (a, b), (c, d) in zip(old, new, strict=True)
    )


def _moved(
    read: tuple[tuple[str, str], ...],
    moving: tuple[tuple[str, Moving], ...],
    record: SlotState,
    pair: Pair,
    now: float,
    sensors: Mapping[str, Any],
) -> list[tuple[str, Any]]:
    """The values at `now` of a layout's moving attributes: those `read` from the
    sensors, then the other `moving` ones (`runtime.ads.moving_values`)."""
    moved = [(n, sensors[k]) for n, k in read]
    moved += moving_values(moving, record, pair, now, sensors)
    return moved


def _memo_alike(fn: Any, ad: ClassAd, moved: Mapping[str, Any]) -> Any:
    """The value the memoised expression `fn` (`_Memo`, of `ad`'s shape: a slot's
    memoised policy is its ad shape's, and every ad it evaluates reads the same names)
    has in `ad` with the lower-case names of `moved` set to those (plain) values, when
    that is its last value (`_Memo.known`); `_ABSENT` when that cannot be told."""
    if type(fn) is not _Memo:
        return _ABSENT
    lowered = ad.lowered()
    return fn.known(tuple(moved[k] if k in moved else lowered.get(k, _ABSENT) for k in fn.keys))


def _given(overrides: Mapping[str, Any], given: list[tuple[str, Any]]) -> bool:
    """`overrides` holds the very values of `given` (identity: a cheap, strict check)."""
    if len(overrides) != len(given):
        return False
    return all(overrides.get(name, _ABSENT) is value for name, value in given)


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
    analysed: dict[
        tuple[Any, ...], tuple[list[Any], bool, PolicyExprs, dict[int, tuple[Expr, Any]]]
    ] = field(default_factory=dict)
    #: `latch_alike`, once known (it depends on the policy and the sensors only)
    alike: bool | None = None

    @property
    def scripted(self) -> bool:
        """Whether the sensors' driver sets every value itself (runtime.sensors): what
        the slot reads back is not logged, so a reading left out changes no log."""
        return bool(getattr(self.sensors, "scripted", False))

    def invalidate(self) -> None:
        """Forget the cached ad (the record, the pair or a sensor changed)."""
        self.cache = None

    def current(
        self,
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        guard: Expr | None = None,
        target: Any = None,
    ) -> ClassAd:
        """The slot's ad now (cached per instant, record and pair); advances the latch.

        With `guard` (a guard's expression, evaluated against `target`), the ad may be
        refreshed only in what that guard can read (`_partial`): the rest is filled in
        when the ad is next asked for without a guard in the same instant."""
        key = (now, id(record), pair)
        cache = self.cache
        live = self.live
        if cache is not None and cache[0] == key:
            assert live is not None
            if live.pending is None:
                return cache[1]
            if guard is not None:
                plan = self._plan(live, guard, target)
                if plan is not None and (
                    plan in live.applied or self._partial(live, now, live.pending, plan)
                ):
                    return live.ad
            live = self._complete(live)
            self.live = live
            self.cache = (key, live.ad)
            return live.ad
        sensors = self.read_sensors(now)
        if (
            live is None
            or live.record is not record
            or live.pair != pair
            or live.sensor_names != tuple(sensors)
        ):
            live = self._fresh(record, pair, now, overrides, sensors)
        else:
            if (
                guard is not None
                and live.shared
                and live.in_place
                and now != live.now
                and _given(overrides, live.given)
            ):
                plan = self._plan(live, guard, target)
                if plan is not None and self._partial(live, now, sensors, plan):
                    self.cache = (key, live.ad)
                    return live.ad
            live.pending = None
            live = self._refresh(live, now, overrides, sensors)
        self.live = live
        self.cache = (key, live.ad)
        return live.ad

    def latch_alike(self) -> bool:
        """Whether building the ad now moves the CpuBusy latch alike in every record and
        pair, so that a build nothing reads may be left out: the sensors are scripted (a
        measured reading is logged when read), and the policy has no CpuBusy expression
        or it reads, following the published policy expressions, no name the record or
        the pair decides (`runtime.ads.pair_names`)."""
        if self.alike is None:
            self.alike = self._latch_alike()
        return self.alike

    def _latch_alike(self) -> bool:
        if not self.scripted:
            return False
        name = self.spec.helpers.cpu_busy.expression
        if name not in self.policy.exprs:
            return True
        source = self.policy.sources.get(name)
        if source is None:
            return False
        found = reads(source, {n.lower(): expr for n, expr in self.published.items()})
        return found is not None and found.isdisjoint(pair_names(self.spec))

    def steady(
        self, record: SlotState, pair: Pair, now: float, names: tuple[str, ...]
    ) -> tuple[ClassAd, tuple[Any, ...]] | None:
        """The slot's last built ad, when building one now would change nothing in
        `names` (nor in what they read, following the ad's expressions) and nothing the
        builder keeps (the CpuBusy latch), with the values of the sensors they read, each
        with its type (what those names are a function of, besides the record and the
        pair; 1 and 1.0 differ in a ClassAd); else None. So:
        the ad is whole and of `record` and `pair`; the sensors are scripted (a measured
        reading is logged when read); none of those names, nor what CpuBusy reads, moves
        with the clock, is a predicate or a CpuBusy attribute, or is read through time(),
        CurrentTime or random(); and each sensor among them reads now what it read when
        the ad was built."""
        live = self.live
        if live is None or live.pending is not None or live.record is not record:
            return None
        if live.pair != pair:
            return None
        asked = (names, self.scripted)
        if asked in live.steady:
            plan = live.steady[asked]
        else:
            plan = live.steady[asked] = self._steady_plan(live, names)
        if plan is None:
            return None
        reading = self.read_sensors(now)
        if tuple(reading) != live.sensor_names:
            return None
        moved = live.moved
        for sensor, index in plan:
            was, value = moved[index][1], reading[sensor]
            if was is not value and (type(was) is not type(value) or was != value):
                return None
        return live.ad, tuple((type(v), v) for v in (reading[sensor] for sensor, _ in plan))

    def _steady_plan(
        self, live: _Live, names: tuple[str, ...]
    ) -> tuple[tuple[str, int], ...] | None:
        """`steady`'s sensors to compare ((sensor, place in `live.moved`)), or None."""
        if not self.scripted:
            return None
        lowered = live.ad.lowered()
        seen: set[str] = set()
        calls: set[str] = set()
        rule = self.spec.helpers.cpu_busy
        exprs: list[Expr | None] = []
        if rule.expression in self.policy.exprs:
            exprs.append(self.policy.sources.get(rule.expression))
            if exprs[0] is None:
                return None
        for name in names:
            key = name.lower()
            seen.add(key)
            raw = lowered.get(key)
            if type(raw) in _NODES:
                exprs.append(raw)
            elif raw is not None and type(raw) not in PLAIN_TYPES:
                return None
        for expr in exprs:
            found = _reading(expr, lowered)
            if found is None:
                return None
            seen |= found[0]
            calls |= found[1]
        if calls & {"time", "random"} or "currenttime" in seen:
            return None
        apart = {n.lower() for n, _ in (*live.moving, *live.named, *live.cpu)}
        if not seen.isdisjoint(apart):
            return None
        return tuple(
            (sensor, index)
            for index, (attribute, sensor) in enumerate(live.read)
            if attribute.lower() in seen
        )

    def cached(self, record: SlotState, pair: Pair, now: float) -> ClassAd | None:
        """The slot's ad for `record` in `pair` at `now` when `current` has it complete
        already (the same values `build` would give; no side effect), else None."""
        cache, live = self.cache, self.live
        if cache is None or live is None or live.pending is not None:
            return None
        return cache[1] if cache[0] == (now, id(record), pair) else None

    def whole(self, record: SlotState, pair: Pair, now: float) -> ClassAd | None:
        """`cached`, or the ad a partial refresh left for this very instant, filled in
        first (`_complete`, as `current` fills it in when next asked without a guard in
        the same instant: the same values, the sensors read once); None when `current`
        has no ad of `record` and `pair` at `now`."""
        found = self.cached(record, pair, now)
        if found is not None:
            return found
        cache, live = self.cache, self.live
        if cache is None or live is None or cache[0] != (now, id(record), pair):
            return None
        live = self.live = self._complete(live)
        self.cache = (cache[0], live.ad)
        return live.ad

    def _plan(self, live: _Live, guard: Expr, target: Any) -> tuple[tuple[int, ...], bool] | None:
        """What a partial refresh for `guard` against `target` must refresh: the indices
        of `_Live.moved` it may read, with those CpuBusy reads, and whether it may read
        a timed predicate (then also what the retirement limit reads); None when `reads`
        cannot tell or the target holds something else than a plain value under one of
        those names (a target expression may read MY)."""
        key = (id(guard), id(target))
        hit = live.plans.get(key)
        if hit is not None and hit[0] is guard and hit[1] is target:
            return hit[2]
        plan = self._make_plan(live, guard, target)
        live.plans[key] = (guard, target, plan)
        return plan

    def _make_plan(
        self, live: _Live, guard: Expr, target: Any
    ) -> tuple[tuple[int, ...], bool] | None:
        hit = live.guard_reads.get(id(guard))
        if hit is not None and hit[0] is guard:
            found = hit[1]
        else:
            found = self._guard_reads(live, guard)
            live.guard_reads[id(guard)] = (guard, found)
        if found is None:
            return None
        names, plan = found
        if target is not None:
            if type(target) is not ClassAd:
                return None
            theirs = target.lowered()
            for name in names:
                raw = theirs.get(name)
                if raw is not None and type(raw) not in PLAIN_TYPES:
                    return None
        return plan

    def _guard_reads(
        self, live: _Live, guard: Expr
    ) -> tuple[frozenset[str], tuple[tuple[int, ...], bool]] | None:
        """What `guard` may read of the ad (`reads`) and the plan without the target:
        the ad's shape decides both (its names, which hold expressions and which plain
        values, and its expressions), so the slot's ads of one shape share them."""
        lowered = live.ad.lowered()
        names = reads(guard, lowered)
        if names is None:
            return None
        read = names
        helpers = self.spec.helpers
        sources = self.policy.sources
        timed = any(name.lower() in names for name in TIMED_PREDICATES)
        for name in (helpers.retirement.limit, helpers.cpu_busy.expression):
            # evaluated again when the ad is filled in: only while that gives the same
            found = _reading(sources.get(name), lowered)
            if found is None or "random" in found[1]:
                return None
            if name == helpers.cpu_busy.expression or timed:
                names = names | found[0]
        plan = tuple(i for i, (n, _) in enumerate(live.moved) if n.lower() in names), timed
        return read, plan

    def _partial(
        self,
        live: _Live,
        now: float,
        sensors: Mapping[str, Any],
        plan: tuple[tuple[int, ...], bool],
    ) -> bool:
        """`_refresh_shared` of only what `plan` names (in place; the rest is left as it
        was and filled in by `_complete`); False, having changed nothing, when a value
        to set is not a plain one (the full refresh analyses the ad anew)."""
        record, pair = live.record, live.pair
        moved = live.moved
        read = live.read
        nread = len(read)
        changes: list[tuple[int, str, Any]] = []
        clocked: dict[str, Any] | None = None
        for i in plan[0]:
            name, was = moved[i]
            if i < nread:
                value = sensors[read[i][1]]
            else:
                if clocked is None:
                    clocked = clock_quantities(record, pair, now)
                value = clocked[live.moving[i - nread][1].quantity]
            if was is not value and (type(was) is not type(value) or was != value):
                if type(value) not in PLAIN_TYPES:
                    return False
                changes.append((i, name, value))
        ad = live.ad
        for i, name, value in changes:
            moved[i] = (name, value)
            ad[name] = value
        self._latch_cpu_busy(live, ad, now, False)
        if plan[1]:
            named, timed = self._timed(live, now, dict(live.given), ad)
            _set(ad, timed, False)
            live.named = named
        if live.pending is not sensors:
            live.applied.clear()  # a new instant
        live.applied.append(plan)
        live.now = now
        live.pending = sensors
        return True

    def _latch_cpu_busy(self, live: _Live, ad: ClassAd, now: float, copy: bool) -> ClassAd:
        """CpuBusy evaluated in `ad` now, the latch moved (the slot's real ad); its
        attributes set again only when the latch says they changed (they are a function
        of it alone: `cpu_busy_attrs`), in a copy when `copy`. `ad` when nothing changed."""
        rule = self.spec.helpers.cpu_busy
        fn = live.policy.exprs.get(rule.expression)
        if fn is None:
            return ad
        busy = self._latch(holds(fn(ad, None, ctx=eval_context(now))), now)
        latch = (*self.cpu_busy, now if busy else None)
        if latch == live.latch:
            return ad
        cpu = list(cpu_busy_attrs(rule, *self.cpu_busy, now).items())
        ad = _set(ad, _changes(live.cpu, cpu), copy)
        live.cpu = cpu
        live.latch = latch
        return ad

    def _complete(self, live: _Live) -> _Live:
        """`live` after a partial refresh, filled in for the same instant and sensor
        reading (in place: what the holders of the ad read is already set)."""
        sensors = live.pending
        assert sensors is not None
        live.pending = None
        record, pair, now = live.record, live.pair, live.now
        moved = [(n, sensors[k]) for n, k in live.read]
        if live.moving:
            clocked = clock_quantities(record, pair, now)
            moved += [(n, clocked[m.quantity]) for n, m in live.moving]
        changed = _changes(live.moved, moved)
        if any(type(value) not in PLAIN_TYPES for _, value in changed):
            return self._fresh(record, pair, now, dict(live.given), sensors)  # analysed anew
        live.moved = moved
        ad = _set(live.ad, changed, False)
        named, timed = self._timed(live, now, dict(live.given), ad)
        _set(ad, timed, False)
        live.named = named
        return live

    def _timed(
        self, live: _Live, now: float, overrides: Mapping[str, Any], ad: ClassAd
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """The predicates with the timed ones evaluated in `ad` now (the others and the
        overrides as `live` holds them), and the changes to make."""
        timed = timed_predicates(live.record, live.pair, now, self.spec, live.policy, ad)
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
        return named, changes

    def _fresh(
        self,
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        sensors: Mapping[str, Any],
    ) -> _Live:
        """New ads (a new record or pair, or the old ones analysed anew): made from the
        last ones of the same layout names built for any slot of this policy (`_renew`),
        else built (`_built`)."""
        layout = ad_layout(
            record, pair, self.spec, tuple(sensors), slot_id=self.slot_id,
            published_policy=self.published,
        )  # fmt: skip
        templates = _TEMPLATES.by_policy
        shapes = templates.get(self.policy)
        if shapes is None:
            shapes = templates.put(self.policy, {})
        key = (self.slot_id, tuple(layout))
        template = shapes.get(key)
        live = None
        if template is not None:
            live = self._renew(template, layout, record, pair, now, overrides, sensors)
        if live is None:
            live = self._built(layout, record, pair, now, overrides, sensors)
        if live.shared and live.in_place:
            if len(shapes) >= _TEMPLATES_KEPT and key not in shapes:
                shapes.clear()
            shapes[key] = live
        return live

    def _built(
        self,
        layout: dict[str, Any],
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        sensors: Mapping[str, Any],
    ) -> _Live:
        """The three ads built from scratch (as `build` builds them) from `layout` (the
        record's `ad_layout`)."""
        names = tuple(sensors)
        moving = tuple((n, v) for n, v in layout.items() if type(v) is Moving)
        read = tuple((n, v.sensor) for n, v in moving if v.quantity == "sensor")
        moving = tuple((n, v) for n, v in moving if v.quantity != "sensor")
        moved = _moved(read, moving, record, pair, now, sensors)
        shown = tuple(layout)
        template = tuple(layout.values())
        layout.update(moved)
        # one ad, grown in place: the published attributes (CpuBusy is evaluated in
        # them), then the CpuBusy ones (the predicates are evaluated in those), then the
        # predicates; the two smaller ads are made apart only when kept (not `shared`)
        ad = ClassAd(layout)
        cpu: dict[str, Any] = {}
        busy_rule = self.spec.helpers.cpu_busy.expression in self.policy.exprs
        if busy_rule:
            cpu = self._cpu_busy(ad, now, track=True)
            ad.update(cpu)
        named = predicates(record, pair, now, self.spec, self.policy, ad, overrides)
        ad.update(named)
        shared, policy, guard_reads, shape = self._shared(ad, cpu, named)
        published = claimed = None
        if not shared:
            published = ClassAd(layout) if busy_rule else None
            layout.update(cpu)
            claimed = ClassAd(layout)
        # no name set twice (else always afresh): as many attributes as names
        in_place = len(ad) == len(shown) + len(cpu) + len(named)
        return _Live(
            record,
            pair,
            names,
            in_place,
            shared,
            read,
            moving,
            published,
            claimed,
            ad,
            policy,
            now,
            moved,
            list(cpu.items()),
            list(named.items()),
            list(overrides.items()),
            tuple(i for i, name in enumerate(named) if name in TIMED_PREDICATES),
            guard_reads=guard_reads if in_place else {},
            shown=shown,
            template=template,
            shape=shape,
        )

    def _renew(
        self,
        live: _Live,
        layout: dict[str, Any],
        record: SlotState,
        pair: Pair,
        now: float,
        overrides: Mapping[str, Any],
        sensors: Mapping[str, Any],
    ) -> _Live | None:
        """The ads of `layout` (for a new record or pair) made from `live`'s, the last
        ones built of the same names (a copy: the holders of those keep theirs; perhaps
        another slot's of the same policy), when it has the same markers and expressions
        and only plain values elsewhere (None: built afresh). Then the ad has `live`'s
        shape and the shape's analysis holds (the expressions are the same; a plain value
        reads nothing): only the layout values that differ, the moving ones (the sensors,
        the clock, the slot's Name), the CpuBusy attributes and the predicates are set.
        That needs `live` shared (CpuBusy and the retirement limit read no CpuBusy
        attribute or predicate, so those left from before change nothing evaluated
        before they are set), made with these very overrides and sensor names. A slot
        changes record at every transition: built afresh, its ad cost half of it."""
        if (
            not (live.shared and live.in_place and live.template)
            or live.sensor_names != tuple(sensors)
            or not _given(overrides, live.given)
            or tuple(layout) != live.shown
        ):
            return None
        template = tuple(layout.values())
        was_template = live.template
        changes = []
        # the places whose value is another object, found by C loops (a handful of the
        # layout's names: the record's times and the like)
        for i in compress(range(len(template)), map(is_not, template, was_template)):
            value, was = template[i], was_template[i]
            if type(value) not in PLAIN_TYPES or type(was) not in PLAIN_TYPES:
                return None  # an expression or a marker of its own: analysed afresh
            if type(value) is not type(was) or value != was:
                changes.append((live.shown[i], value))
        moved = _moved(live.read, live.moving, record, pair, now, sensors)
        if not PLAIN_TYPES.issuperset(map(type, map(_VALUE, moved))):
            return None
        ad = live.ad.copy()
        _set(ad, changes, False)
        _set(ad, moved, False)
        cpu: dict[str, Any] = {}
        # this slot's own analysis of the shape (with its memoised policy)
        own = self.analysed.get(live.shape)
        if self.spec.helpers.cpu_busy.expression in self.policy.exprs:
            # through the memoised CpuBusy when known: it remembers what it read, and
            # `moved_at` reads CpuBusy later off it
            cpu = self._cpu_busy(ad, now, track=True, policy=None if own is None else own[2])
            ad.update(cpu)
        named = predicates(record, pair, now, self.spec, self.policy, ad, overrides)
        ad.update(named)
        # (the shape's analysis kept under the template's key too: its plain values'
        # types may differ)
        if own is None:
            shared, _, _, key = self._shared(ad, cpu, named)
            if not shared:
                return None  # (not so: the shape's analysis is `live`'s)
            own = self.analysed[live.shape] = self.analysed[key]
        return _Live(
            record,
            pair,
            live.sensor_names,
            True,
            True,
            live.read,
            live.moving,
            None,
            None,
            ad,
            own[2],
            now,
            moved,
            list(cpu.items()),
            list(named.items()),
            list(overrides.items()),
            live.timed,
            steady=live.steady,
            # the template's: the same shape, layout order and sensors (checked above)
            guard_reads=live.guard_reads,
            shown=live.shown,
            template=template,
            shape=live.shape,
        )

    def _shared(
        self, ad: ClassAd, cpu: Mapping[str, Any], named: Mapping[str, Any]
    ) -> tuple[bool, PolicyExprs, dict[int, tuple[Expr, Any]], tuple[Any, ...]]:
        """Whether CpuBusy reads none of `cpu` and `named` and the retirement limit none
        of `named` (so both may be evaluated in the one ad `ad`: `_Live.shared`); and the
        policy to evaluate them with: when shared, those of the two whose value only the
        attributes they read decide are memoised (`memo_keys`: evaluated again only when
        one of these changes). Both are kept per ad shape (the slot's ads of one shape
        share the memoised policy), with the shape's `_Live.guard_reads`; and the key."""
        lowered = ad.lowered()
        key = shape_key(lowered)
        hit = self.analysed.get(key)
        if hit is not None:
            return hit[1], hit[2], hit[3], key
        shapes = _TEMPLATES.shapes.get(self.policy)
        if shapes is None:
            shapes = _TEMPLATES.shapes.put(self.policy, {})
        found = shapes.get(key)
        if found is None or found[0] is not self.spec:
            found = self._analysed_shape(ad, cpu, named)
            if len(shapes) >= _TEMPLATES_KEPT:
                shapes.clear()
            shapes[key] = found
        _, values, shared, memos, guard_reads = found
        policy = self.policy
        if memos:
            exprs: dict[str, Callable[..., Any]] = dict(policy.exprs)
            exprs.update({n: _Memo(policy.exprs[n], k) for n, k in memos.items()})
            policy = replace(policy, exprs=exprs)
        if len(self.analysed) >= _ANALYSED_KEPT:
            self.analysed.clear()
        self.analysed[key] = (values, shared, policy, guard_reads)
        return shared, policy, guard_reads, key

    def _analysed_shape(
        self, ad: ClassAd, cpu: Mapping[str, Any], named: Mapping[str, Any]
    ) -> _Shape:
        """`_shared`'s findings of `ad`'s shape (`_Templates.shapes`)."""
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
        # (the expressions kept alive: the key holds their ids)
        return self.spec, list(ad.values()), shared, memos, {}

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
            if any(type(value) not in PLAIN_TYPES for _, value in changed):
                return self._fresh(record, pair, now, overrides, sensors)  # analysed anew
            return self._refresh_shared(live, now, overrides, moved, changed, copy)
        live.moved = moved
        assert live.claimed is not None
        if live.published is not None:
            live.published = _set(live.published, changed, copy)
            cpu = list(self._cpu_busy(live.published, now, track=True).items())
            changed += _changes(live.cpu, cpu)
            live.cpu = cpu
            live.latch = ()
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
        latched = self._latch_cpu_busy(live, ad, now, copy)
        copy = copy and latched is ad
        ad = latched
        given = list(overrides.items())
        if _same_items(given, live.given):
            # only the timed predicates can have moved (`runtime.ads.timed_predicates`)
            named, changes = self._timed(live, now, overrides, ad)
        else:
            named = list(
                predicates(record, pair, now, self.spec, live.policy, ad, overrides).items()
            )
            changes = _changes(live.named, named)
            live.given = given
            # an override may be an expression a guard reads through: the shape's
            # analysis is not this ad's any more
            live.plans.clear()
            live.guard_reads = {}
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
        """The sensors' values now (a dict of the slot's own). Measured changes are
        logged here; a scripted sensor's driver logs its own (runtime.sensors)."""
        if self.scripted:
            return self.sensors.read(now)  # a new dict: FakeSensors, OwnerSensors
        values = dict(self.sensors.read(now))
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

    def moved_at(self, record: SlotState, pair: Pair, at: float) -> dict[str, Any] | None:
        """The values `build(record, pair, at, ...)` gives the names that move with the
        clock and the sensors (the layout's moving attributes and the CpuBusy ones), by
        lower-case name, without building the ad and without a side effect; None when
        the slot's live ads cannot tell (not of this record and pair, not shared or not
        in place, sensors that log what they read or now read other names). Every other
        name of the ad has the value it has now (a timed predicate apart)."""
        live = self.live
        if (
            not self.scripted
            or live is None
            or live.record is not record
            or live.pair != pair
            or not (live.in_place and live.shared)
        ):
            return None
        sensors = self.read_sensors(at)
        if tuple(sensors) != live.sensor_names:
            return None
        moved = _moved(live.read, live.moving, record, pair, at, sensors)
        values = {name.lower(): value for name, value in moved}
        if live.cpu:
            # CpuBusy reads no CpuBusy attribute or predicate (shared): evaluated in the
            # ad with the moving values set, the latch not moved; known without that ad
            # when the memoised CpuBusy last read, in an ad of this shape, the values
            # the later one gives what it reads
            busy = _memo_alike(live.policy.exprs.get(self.spec.helpers.cpu_busy.expression),
                               live.ad, values)  # fmt: skip
            if busy is _ABSENT:
                ad = _set(live.ad.copy(), moved, False)
                cpu = self._cpu_busy(ad, at, track=False)
            else:
                cpu = cpu_busy_attrs(self.spec.helpers.cpu_busy, holds(busy),
                                     *self.cpu_busy[1:], at)  # fmt: skip
            values.update((name.lower(), value) for name, value in cpu.items())
        return values

    def _cpu_busy(
        self, published: ClassAd, now: float, *, track: bool, policy: PolicyExprs | None = None
    ) -> dict[str, Any]:
        """The CpuBusy attributes, CpuBusy evaluated in the `published` ad (no predicates),
        by `policy` (the slot's memoised one for the ad's shape: `_Memo.of_shape`) or the
        slot's own."""
        rule = self.spec.helpers.cpu_busy
        fn = None if policy is None else policy.exprs.get(rule.expression)
        if type(fn) is _Memo:
            busy = holds(fn.of_shape(published, ctx=eval_context(now)))
        else:
            busy = holds((policy or self.policy).value(rule.expression, published, None, now))
        if track:  # a hypothetical ad must not move the latch
            self._latch(busy, now)
        _, since, changed = self.cpu_busy
        return cpu_busy_attrs(rule, busy, since, changed, now)

    def _latch(self, busy: bool, now: float) -> bool:
        """CpuBusy seen `busy` now by the slot's real ad: the latch (reference D17)
        remembers when it last changed and since when it holds; `busy`."""
        if busy != self.cpu_busy[0]:
            self.cpu_busy = (busy, now if busy else None, now)
        return busy
