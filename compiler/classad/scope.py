"""Ads as evaluation scopes, and attribute look-up as HTCondor does it (stage: evaluation,
shared by the interpreter and the compiled closures).

A `Scope` is one ad during one evaluation: its attributes (lower-case name -> `Expr` or
Python value), its lexically enclosing ad (`parent`, for nested `[...]` ads) and, for
the two top-level ads of a match, the other ad (`other`, HTCondor's "alternate scope").
Look-up rules (reference section 8, checked against the oracle):

1. walk the ad and its enclosing ads;
2. then the special names `MY`/`self` (this ad), `parent`, `TARGET`/`other` (the other
   top-level ad) and `CurrentTime`;
3. then, for an unscoped name in a top-level ad of a match, the other ad.

An attribute whose evaluation is already in progress (a cycle such as `a = b; b = a`)
evaluates to UNDEFINED, as in HTCondor 25.14.1; nothing is cached between look-ups.

A plain `dict` passed as MY or TARGET is not copied: its scope reads it in place
(`Scope.plain`), first under the name as the expression spells it (one dict look-up,
the common case: `{"KeyboardIdle": 4210}` read by `KeyboardIdle`), and only when that
misses through its lower-cased view (`PlainAttrs`: a name index checked against the
dict's key set at most once per evaluation, and only when something needs it: a name
the dict does not hold as spelled, or `MY.x`/`TARGET.x` asking whether the ad holds an
attribute named like the scope word). So a dict that holds several spellings of one
name (`{"A": 1, "a": 2}`, not a valid ad) gives a reference the entry spelled exactly
like it, and otherwise the last one (classad2 keeps the last one for every spelling).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from types import MappingProxyType
from typing import Any

from compiler.classad import ast
from compiler.classad.values import ERROR, UNDEFINED
from compiler.identity import IdentityMemo

Value = Any
#: What an ad stores for a name: an expression, or a Python value.
Raw = Any

_MISSING: Any = object()
#: What `find_raw` returns for a name the ad does not hold.
ABSENT: Any = _MISSING

#: Each stored name's lower-case key, made once: the ads of a pool share their key strings
#: (a simulated pool builds millions of ads with the same few dozen names)
_KEYS: dict[str, str] = {}
_KEYS_KEPT = 1 << 16


def _key(name: str) -> str:
    """The lower-case key of `name`, shared by every ad that stores it."""
    key = _KEYS.get(name)
    if key is None:
        if len(_KEYS) >= _KEYS_KEPT:
            _KEYS.clear()
        key = _KEYS[name] = name.lower()
    return key


class ClassAd(MutableMapping[str, Raw]):
    """A ClassAd: case-insensitive names -> `Expr` or Python value, spelling preserved."""

    __slots__ = ("_names", "_raw")

    def __init__(self, items: Mapping[str, Raw] | None = None, **kwargs: Raw) -> None:
        self._raw: dict[str, Raw] = {}
        self._names: dict[str, str] = {}
        if type(items) is ClassAd:  # a copy: its two maps as they are
            self._raw = dict(items._raw)
            self._names = dict(items._names)
        elif type(items) is dict:  # the common case, without MutableMapping.update's calls
            self._set_all(items)
        elif items:
            self.update(items)
        if kwargs:
            self.update(kwargs)

    def update(self, other: Any = (), /, **kwargs: Raw) -> None:
        """`MutableMapping.update`, without a call per item for a plain dict (a slot ad
        is grown by dicts of attributes at every transition)."""
        if type(other) is dict and not kwargs:
            self._set_all(other)
        else:
            super().update(other, **kwargs)

    def _set_all(self, items: dict[str, Raw]) -> None:
        raw, names, keys = self._raw, self._names, _KEYS
        for name, value in items.items():
            key = keys.get(name) or _key(name)
            raw[key] = value
            names[key] = name

    def __getitem__(self, name: str) -> Raw:
        return self._raw[name.lower()]

    def get(self, name: str, default: Any = None) -> Any:
        """`Mapping.get` without a KeyError raised and caught for a name the ad lacks (the
        simulator's analyses ask for the job attributes a slot ad does not have)."""
        return self._raw.get(name.lower(), default)

    def __setitem__(self, name: str, value: Raw) -> None:
        key = _KEYS.get(name) or _key(name)
        self._raw[key] = value
        self._names[key] = name

    def __delitem__(self, name: str) -> None:
        key = name.lower()
        del self._raw[key]
        del self._names[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names.values())

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._raw

    def __repr__(self) -> str:
        return f"ClassAd({dict(self.items())!r})"

    def copy(self) -> ClassAd:
        return ClassAd(self)

    def lowered(self) -> dict[str, Raw]:
        """The attributes keyed by lower-case name (shared, do not modify)."""
        return self._raw


class _Spellings(threading.local):
    """Per-thread memo of plain dicts' lower-case name -> spelling maps.

    An entry is used only while the dict holds exactly the same set of keys (checked
    with one set comparison, done in C), so a dict that gains, loses or renames a key is
    indexed again; values are always read from the dict itself.
    """

    def __init__(self) -> None:
        self.maps: IdentityMemo[dict[str, Raw], tuple[frozenset[str], dict[str, str]]] = (
            IdentityMemo(256)
        )


_spellings = _Spellings()


def spellings(ad: dict[str, Raw]) -> dict[str, str]:
    """Lower-case name -> the spelling `ad` holds it under (the last of several)."""
    maps = _spellings.maps
    hit = maps.get(ad)
    if hit is not None and ad.keys() == hit[0]:
        return hit[1]
    names = {k.lower(): k for k in ad}
    maps.put(ad, (frozenset(ad), names))
    return names


class PlainAttrs(Mapping[str, Raw]):
    """A plain dict's attributes keyed by lower-case name, read from the dict in place.

    The name index is checked at most once per evaluation (`top_scopes` clears `_names`
    for the next one): it is used again while the dict holds exactly the same keys in the
    same order (the list of its keys compared with the last one, item by item, by
    identity first: a third of the cost of comparing key sets; a list is made faster
    than a tuple), else made again. Values
    are always read from the dict, so a dict that changes between evaluations is read as
    it is now. For several spellings of one name the last one wins (as classad2 inserts
    them).
    """

    __slots__ = ("_index", "_keys", "_names", "ad")

    def __init__(self, ad: dict[str, Raw]) -> None:
        self.ad = ad
        self._names: dict[str, str] | None = None
        self._keys: list[str] | None = None
        self._index: dict[str, str] = {}

    def reset(self) -> None:
        self._names = None

    def names(self) -> dict[str, str]:
        """Lower-case name -> the dict's spelling (the compiled `MY.x`/`TARGET.x` read
        `_names` first and call this only when it is None)."""
        names = self._names
        if names is None:  # checked against the dict's keys, written out (hot)
            ad = self.ad
            keys = list(ad)
            if self._keys != keys:
                self._index = spellings(ad)
                self._keys = keys
            names = self._names = self._index
        return names

    def get(self, key: str, default: Any = None) -> Any:
        spelled = self.names().get(key)
        return default if spelled is None else self.ad.get(spelled, default)

    def __getitem__(self, key: str) -> Raw:
        return self.ad[self.names()[key]]

    def __contains__(self, key: object) -> bool:
        names = self._names
        return key in (names if names is not None else self.names())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


class Scope:
    """One ad during one evaluation (see the module docstring)."""

    __slots__ = (
        "attrs",
        "busy",
        "detached",
        "names",
        "node",
        "other",
        "parent",
        "plain",
        "records",
    )

    def __init__(
        self,
        attrs: Mapping[str, Raw],
        parent: Scope | None = None,
        *,
        names: Mapping[str, str] | None = None,
        node: ast.RecordExpr | None = None,
    ) -> None:
        self.attrs = attrs
        self.parent = parent
        self.other: Scope | None = None
        self.busy: set[str] | None = None
        self.names = names
        self.node = node
        self.records: dict[int, Scope] | None = None
        #: The user's dict itself when `attrs` is its `PlainAttrs` view (see `find_raw`).
        self.plain: dict[str, Raw] | None = None
        #: A copy handed out by `ad["name"]` (see `detach`): selecting from it is UNDEFINED.
        self.detached = False

    def record(
        self, node: ast.RecordExpr, attrs: Mapping[str, Raw], names: Mapping[str, str]
    ) -> Scope:
        """The nested ad `node` evaluated in this scope: one Scope per node and scope, so
        that an attribute of a nested ad that reaches itself again (`r = [a = r.a]`) is
        seen as a cycle (UNDEFINED, as HTCondor gives) instead of recursing forever."""
        cache = self.records
        if cache is None:
            self.records = cache = {}
        found = cache.get(id(node))
        if found is None or found.node is not node:
            found = cache[id(node)] = Scope(attrs, self, names=names, node=node)
        return found

    def root(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def find_raw(scope: Scope, key: str, name: str | None) -> Raw:
    """What `scope` itself stores for `key` (`name`: the spelling in the expression,
    tried first in a plain dict), or _MISSING."""
    plain = scope.plain
    if plain is not None and name is not None:
        raw = plain.get(name, _MISSING)
        if raw is not _MISSING:
            return raw
    return scope.attrs.get(key, _MISSING)


#: The attributes of "no ad at all" (an evaluation without MY): `MY` is then UNDEFINED.
NO_AD: Mapping[str, Raw] = MappingProxyType({})


def lowered(ad: Mapping[str, Raw] | None) -> tuple[Mapping[str, Raw], Mapping[str, str] | None]:
    """An ad's attributes keyed by lower-case name, and the original spellings."""
    if ad is None:
        return NO_AD, None
    if isinstance(ad, ClassAd):
        return ad.lowered(), ad._names
    return {k.lower(): v for k, v in ad.items()}, {k.lower(): k for k in ad}


def top_scope(ad: Mapping[str, Raw] | None) -> Scope:
    """A top-level scope viewing `ad` (a plain dict or our ClassAd is read in place)."""
    if type(ad) is dict:
        scope = Scope(PlainAttrs(ad), None)
        scope.plain = ad
        return scope
    attrs, names = lowered(ad)
    return Scope(attrs, None, names=names)


class _PairCache(threading.local):
    """Per-thread scopes of recently evaluated pairs of ads (ClassAds or plain dicts).

    A top-level scope only views its ad's live attributes (a ClassAd's dictionary, or a
    plain dict through a `PlainAttrs` view that `top_scopes` resets for every
    evaluation), and its `busy` set is empty again whenever no evaluation is running
    in this thread, so the same two scope objects can serve every evaluation of the
    same pair of ads. The cache holds the ads themselves, so their ids cannot be
    reused while cached.
    """

    def __init__(self) -> None:
        self.pairs: dict[
            tuple[int, int], tuple[Any, Any, Scope, Scope | None, tuple[PlainAttrs, ...]]
        ] = {}
        #: the entries last dropped from `pairs`, whose scopes `release_retired` unlinks
        self.retired: list[tuple[Any, Any, Scope, Scope | None, tuple[PlainAttrs, ...]]] = []


_PAIR_CACHE_SIZE = 256
#: At most this many dropped pairs wait for `release_retired` (a caller's loop may
#: evaluate thousands of pairs between two calls; one that never calls it keeps no more).
_RETIRED_KEPT = 16 * _PAIR_CACHE_SIZE
_pair_cache = _PairCache()
#: The ads whose scopes view them in place, so that a pair's scopes can be cached.
VIEWED = frozenset({ClassAd, dict})


#: A pair's scopes: (my, target, MY scope, TARGET scope, the plain-dict views to reset
#: per evaluation).
PairEntry = tuple[Any, Any, Scope, "Scope | None", tuple[PlainAttrs, ...]]


def pair_entry(my: Mapping[str, Raw] | None, target: Mapping[str, Raw] | None) -> PairEntry:
    """The scopes of the pair (my, target) for a new evaluation: this thread's cached
    entry (its plain-dict views reset), else new scopes, cached when both ads are
    ClassAds, plain dicts or absent (other mappings are copied per evaluation)."""
    pairs = _pair_cache.pairs
    key = (id(my), id(target))
    hit = pairs.get(key)
    if hit is not None and hit[0] is my and hit[1] is target:
        for view in hit[4]:
            view._names = None  # a new evaluation: index the dict again when needed
        return hit
    # New scopes, a plain dict's view made here (the common first call, written out).
    views: tuple[PlainAttrs, ...] = ()
    if type(my) is dict:
        view = PlainAttrs(my)
        mine = Scope(view, None)
        mine.plain = my
        views = (view,)
    else:
        mine = top_scope(my)
    theirs: Scope | None = None
    if target is not None:
        if type(target) is dict:
            view = PlainAttrs(target)
            theirs = Scope(view, None)
            theirs.plain = target
            views += (view,)
        else:
            theirs = top_scope(target)
        mine.other = theirs
        theirs.other = mine
    entry = (my, target, mine, theirs, views)
    if type(my) not in VIEWED or (target is not None and type(target) not in VIEWED):
        return entry
    if len(pairs) >= _PAIR_CACHE_SIZE:
        retired = _pair_cache.retired
        if len(retired) < _RETIRED_KEPT:
            retired.extend(pairs.values())
        else:  # never released: the ones before are left to the collector
            _pair_cache.retired = list(pairs.values())
        pairs.clear()
    pairs[key] = entry
    return entry


def release_retired() -> None:
    """Unlink the MY and TARGET scopes of the pairs this thread's cache dropped last.

    Each of the two scopes of a pair refers to the other (`other`): a reference cycle,
    holding both ads' dictionaries, that only the cyclic collector would free. A caller
    that evaluates many pairs (the simulator: thousands of slots, each against its job)
    calls this between evaluations, where none can still be using those scopes; an
    expression that kept them (`CompiledExpr.last`) makes new ones when it meets the
    pair again. Without it, the dropped pairs are left to the collector, as before."""
    retired = _pair_cache.retired
    if retired:
        for entry in retired:
            theirs = entry[3]
            if theirs is not None:
                entry[2].other = theirs.other = None
        _pair_cache.retired = []


def top_scopes(
    my: Mapping[str, Raw] | None, target: Mapping[str, Raw] | None
) -> tuple[Scope, Scope | None]:
    """The MY scope and, when there is a target, the TARGET scope, linked to each other."""
    entry = pair_entry(my, target)
    return entry[2], entry[3]


# ---- values crossing the boundary between Python and the evaluator ----


def to_runtime(value: Any, parent: Scope | None) -> Value:
    """A Python value stored in an ad (or returned by a builtin) as an evaluator value."""
    if isinstance(value, dict | ClassAd):
        attrs, names = lowered(value)
        return Scope(attrs, parent, names=names)
    if isinstance(value, list | tuple):
        return [to_runtime(v, parent) for v in value]
    return value


#: Evaluates an expression in a scope (the interpreter's or a compiled closure).
ExprEvaluator = Callable[[ast.Expr, Scope], Value]


class LazyList:
    """The value of a `{...}` expression: its elements are evaluated when used.

    HTCondor keeps a list as its element expressions and evaluates an element only
    when something reads it, in the evaluation state of that moment. The difference
    shows with cycles: for `a = {b}; b = a[0]`, `a[0]` reads `b` after `a` has been
    evaluated, so `b` is not part of a cycle. String conversions print the list as its
    unevaluated text (`string({1 + 1})` is `"{ 1 + 1 }"`), so the source is kept.
    """

    __slots__ = ("detached", "evaluate", "scope", "source")

    def __init__(
        self,
        source: ast.ListExpr,
        scope: Scope,
        evaluate: ExprEvaluator,
        *,
        detached: bool = False,
    ) -> None:
        self.source = source
        self.scope = scope
        self.evaluate = evaluate
        #: A copy handed out by `ad["name"]` (see `detach`): its nested ads are detached.
        self.detached = detached

    def __len__(self) -> int:
        return len(self.source.items)

    def item(self, index: int) -> Value:
        value = self.evaluate(self.source.items[index], self.scope)
        return detach(value) if self.detached else value

    def force(self) -> list[Value]:
        """All elements, evaluated now."""
        values = [self.evaluate(item, self.scope) for item in self.source.items]
        return [detach(v) for v in values] if self.detached else values

    def __repr__(self) -> str:
        return f"LazyList({len(self)} items)"


def elements(value: Value) -> list[Value] | None:
    """The elements of a list value (evaluated now), or None for a non-list."""
    if isinstance(value, list):
        return value
    if isinstance(value, LazyList):
        return value.force()
    return None


def to_python(value: Value, evaluate: ExprEvaluator, converting: set[int] | None = None) -> Any:
    """An evaluator value as a public value: nested ads become dicts of their values.

    A list or ad met again inside its own conversion (`U = {U}`) becomes UNDEFINED:
    HTCondor hands such values back unevaluated, a Python value has to be finite.
    """
    if isinstance(value, LazyList):
        converting = converting if converting is not None else set()
        source = id(value.source)
        if source in converting:
            return UNDEFINED
        converting.add(source)
        items = [to_python(v, evaluate, converting) for v in value.force()]
        converting.discard(source)
        return items
    if isinstance(value, list):
        return [to_python(v, evaluate, converting) for v in value]
    if not isinstance(value, Scope):
        return value
    converting = converting if converting is not None else set()
    marker = id(value.node) if value.node is not None else None
    if marker is not None and marker in converting:
        return UNDEFINED  # an ad that contains itself (`a = [x = a]`)
    if marker is not None:
        converting.add(marker)
    names = value.names
    if names is None:
        names = value.attrs.names() if isinstance(value.attrs, PlainAttrs) else {}
    out = {
        names.get(key, key): to_python(
            attribute_value(value, key, raw, evaluate), evaluate, converting
        )
        for key, raw in value.attrs.items()
    }
    if marker is not None:
        converting.discard(marker)
    return out


_NODES = ast.NODE_TYPES


def attribute_value(scope: Scope, key: str, raw: Raw, evaluate: ExprEvaluator) -> Value:
    """The value of attribute `key` found in `scope`; UNDEFINED inside a cycle."""
    if type(raw) not in _NODES:
        return to_runtime(raw, scope)
    busy = scope.busy
    if busy is None:
        scope.busy = busy = set()
    elif key in busy:
        return UNDEFINED
    busy.add(key)
    try:
        return evaluate(raw, scope)
    finally:
        busy.discard(key)


def special(scope: Scope, key: str, now: Callable[[], int]) -> Value:
    """The special names HTCondor resolves when no ad defines them, else _MISSING."""
    match key:
        case "my" | "self":
            return scope if scope.attrs is not NO_AD else UNDEFINED
        case "parent":
            if scope.parent is not None:  # (no ad around an evaluation without MY)
                return scope.parent if scope.parent.attrs is not NO_AD else UNDEFINED
            return match_context(scope) if scope.other is not None else UNDEFINED
        case "target" | "other":
            other = scope.root().other
            return other if other is not None else UNDEFINED
        case "currenttime":
            return now()
        case _:
            return _MISSING


def match_context(top: Scope) -> Scope:
    """The parent of a top-level ad in a match: HTCondor's context ad
    `[ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT]` (src/classad/matchClassad.cpp,
    `MatchClassAd::InitMatchClassAd`, `ReplaceLeftAd`), seen from that ad; looking further
    out (the match ad itself) finds nothing of the policy's."""
    other = top.other
    names = {"ad": "ad", "my": "my", "other": "other", "target": "target"}
    attrs = {"ad": top, "my": top, "other": other, "target": other}
    return Scope(attrs, None, names=names)


def resolve(
    scope: Scope,
    key: str,
    alternate: bool,
    evaluate: ExprEvaluator,
    now: Callable[[], int],
    name: str | None = None,
) -> Value:
    """Look `key` up from `scope`: enclosing ads, special names, then the other ad
    (`name`, the spelling in the expression, is tried first in a plain dict)."""
    current: Scope | None = scope
    while current is not None:
        raw = find_raw(current, key, name)
        if raw is not _MISSING:
            return attribute_value(current, key, raw, evaluate)
        current = current.parent
    found = special(scope, key, now)
    if found is not _MISSING:
        return found
    if alternate and scope.other is not None:
        current = scope.other
        while current is not None:
            raw = find_raw(current, key, name)
            if raw is not _MISSING:
                return attribute_value(current, key, raw, evaluate)
            current = current.parent
    return UNDEFINED


def resolve_absolute(
    scope: Scope, key: str, evaluate: ExprEvaluator, now: Callable[[], int]
) -> Value:
    """`.name`: looked up from the outermost ad. In a match the outermost ad is
    HTCondor's internal match ad, which holds no policy attributes: UNDEFINED."""
    root = scope.root()
    if root.other is not None:
        return UNDEFINED
    return resolve(root, key, False, evaluate, now)


_LEXICAL = (ast.RecordExpr, ast.ListExpr)


def select(
    base: Value,
    key: str,
    evaluate: ExprEvaluator,
    now: Callable[[], int],
    here: Scope | None = None,
    name: str | None = None,
) -> Value:
    """`base.name`: an attribute of an ad, mapped over a list; ERROR on other values.

    Each list element is selected from in turn, nested lists included (`{{}}.a` is
    `{{}}`). Quirk kept from HTCondor: the elements of a `{...}` list are evaluated in
    the scope of the selecting expression (`here`), not in the ad holding the list,
    except nested ads (and lists), which keep their lexical parent.
    """
    if isinstance(base, Scope):
        if base.detached:
            return UNDEFINED
        return resolve(base, key, False, evaluate, now, name)
    if base is UNDEFINED or base is ERROR:
        return base
    if isinstance(base, LazyList) and base.detached:
        return [select(item, key, evaluate, now, here, name) for item in base.force()]
    if isinstance(base, LazyList):
        where = here if here is not None else base.scope
        items = [
            # nested ads and lists keep their lexical home; everything else sees `here`
            evaluate(item, base.scope if isinstance(item, _LEXICAL) else where)
            for item in base.source.items
        ]
        return [_orphan(select(item, key, evaluate, now, here, name)) for item in items]
    if isinstance(base, list):
        return [_orphan(select(item, key, evaluate, now, here, name)) for item in base]
    return ERROR


def _orphan(value: Value) -> Value:
    """An ad in the list a selection maps over a list builds: HTCondor copies it into a
    new list whose parent scope it clears (attrrefs.cpp, `AttributeReference::FindExpr`),
    so the copy no longer sees the ads around the original (`{[]}.b.a` with `a`, `b`
    in MY is `{undefined}`)."""
    if isinstance(value, Scope) and value.parent is not None:
        copy = Scope(value.attrs, None, names=value.names, node=value.node)
        copy.detached = value.detached
        copy.plain = value.plain
        return copy
    return value


def detach(value: Value) -> Value:
    """The copy of a nested ad or list that `ad["name"]` hands out.

    HTCondor (operators.cpp, `Operation::_Evaluate`, SUBSCRIPT_OP) reads the attribute
    with `ClassAd::EvaluateAttr`, which makes a list or ad value self-contained: a deep
    copy whose parent scope is cleared (value.cpp, `Value::SafetyCheck` and
    `MakeSelfContained`). So the copy sees nothing outside itself, and a list's
    elements are evaluated with no ad around them. Selecting from such a copy
    (`access_times["globus"].start`) looks the name up in a copy that
    `AttributeReference::FindExpr` (attrrefs.cpp) has already released: HTCondor
    25.14.1 answers UNDEFINED (for a list of such ads it crashes). Subscripting the copy
    again (`ad["g"]["start"]`) reads it while it is still alive, so that works.
    """
    if isinstance(value, Scope):
        copy = Scope(value.attrs, None, names=value.names, node=value.node)
        copy.detached = True
        copy.plain = value.plain
        return copy
    if isinstance(value, LazyList):
        return LazyList(value.source, Scope(NO_AD), value.evaluate, detached=True)
    if isinstance(value, list):
        return [detach(v) for v in value]
    return value


def subscript(base: Value, index: Value, evaluate: ExprEvaluator) -> Value:
    """`base[index]`: list element by integer, or attribute of an ad by string name
    (a nested ad or list read that way is a detached copy: see `detach`)."""
    if base is ERROR or index is ERROR:
        return ERROR
    if base is UNDEFINED or index is UNDEFINED:
        return UNDEFINED
    if isinstance(base, list | LazyList):
        if type(index) is not int:
            return ERROR
        # HTCondor converts the index to a 32-bit int first: {7,8}[4294967297] is 8.
        index = (index + 2**31) % 2**32 - 2**31
        if not 0 <= index < len(base):
            return ERROR
        return base.item(index) if isinstance(base, LazyList) else base[index]
    if isinstance(base, Scope) and type(index) is str:
        raw = find_raw(base, index.lower(), index)
        if raw is _MISSING:
            return UNDEFINED
        # `ClassAd::EvaluateAttr` evaluates the attribute in a fresh state without
        # marking it in progress: a cycle through it is seen one step later
        # (`[x = isUndefined(x)]["x"]` is false, `x` itself true).
        if isinstance(raw, ast.EXPR_TYPES):
            return detach(evaluate(raw, base))
        return detach(to_runtime(raw, base))
    return ERROR


def is_undefined_or_error(v: Value) -> bool:
    return v is UNDEFINED or v is ERROR
