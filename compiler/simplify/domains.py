"""What the startd guarantees about the attributes of its own (MY) ad, and the simplifier's
per-call context (domains, assumed values, attribute identity).

Stage: simplifier support. Pure data plus look-ups; nothing here rewrites expressions.

Attribute identity (why `MY.x` and `x` are not always one atom): during a match an
unscoped `x` looks in MY first and, when MY has no `x`, in TARGET
(classad-semantics.md section 8). So `x` and `MY.x` denote the same value only when MY
is known to hold `x`: its domain says `defined=True` (the startd always publishes it) or
the caller fixed its value with `assume`. Otherwise `x` may be the job's attribute and is a
separate atom whose domain is unknown. `TARGET.x` is always separate; a domain or an
assumed value for it is given under the key `"TARGET.x"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

import msgspec

from compiler.classad.ast import AttrRef
from compiler.classad.values import UNDEFINED, Value
from compiler.identity import IdentityMemo

Kind = Literal["number", "integer", "boolean", "string", "any"]


class Domain(msgspec.Struct, frozen=True):
    """The values an attribute can take.

    `kind` "number" means finite reals or integers (never NaN or infinite), "integer"
    64-bit integers; `low`/`high` bound numbers inclusively. `defined=True`: never
    UNDEFINED or ERROR (and, for an unscoped reference, present in MY so no TARGET
    fallback); `defined=False` adds UNDEFINED and ERROR to the kind's values.
    """

    kind: Kind
    defined: bool
    low: float | None = None
    high: float | None = None


_NONNEG_NUMBER = Domain("number", True, 0.0)
_NONNEG_INT = Domain("integer", True, 0)

#: What the startd publishes in every slot ad, in every state (reference/transitions.md
#: section 5). Job attributes copied while Claimed (JobStart, RemoteOwner, ...) are not
#: here: they are UNDEFINED outside a claim and, unscoped, would fall back to TARGET.
STARTD_DOMAINS: Mapping[str, Domain] = {
    "State": Domain("string", True),
    "Activity": Domain("string", True),
    "EnteredCurrentState": _NONNEG_INT,
    "EnteredCurrentActivity": _NONNEG_INT,
    "KeyboardIdle": _NONNEG_INT,
    "ConsoleIdle": _NONNEG_INT,
    "LoadAvg": _NONNEG_NUMBER,
    "CondorLoadAvg": _NONNEG_NUMBER,
    "TotalLoadAvg": _NONNEG_NUMBER,
    "TotalCondorLoadAvg": _NONNEG_NUMBER,
    "ClockMin": Domain("integer", True, 0, 1439),
    "ClockDay": Domain("integer", True, 0, 6),
    "Memory": _NONNEG_INT,
    "Disk": _NONNEG_INT,
    "Cpus": _NONNEG_NUMBER,
    "CurrentTime": _NONNEG_INT,
    "MyCurrentTime": _NONNEG_INT,
    "CurrentRank": Domain("number", True),
    "LastBenchmark": _NONNEG_INT,
}

#: `time()` is a defined non-negative integer (never folded: it changes).
TIME_DOMAIN = _NONNEG_INT


class Relation(msgspec.Struct, frozen=True):
    """A fact the startd guarantees between attributes of one slot ad, at every
    evaluation: `text` is ClassAd that is TRUE in every ad the startd builds. Ranges of
    single attributes are domains (STARTD_DOMAINS); a relation ties several together,
    so that the analysis never reports a witness no startd can publish (an owner load
    below zero). `citation` names the HTCondor source that makes it hold."""

    text: str
    attributes: tuple[str, ...]
    citation: str


#: Relations between the attributes of STARTD_DOMAINS in every era. (KeyboardIdle is not
#: bounded by ConsoleIdle: a slot connected to the console but not the keyboard reports
#: the startd's uptime plus DISCONNECTED_KEYBOARD_IDLE_BOOST, ResMgr::assign_idle_to_slots;
#: TotalCondorLoadAvg can exceed TotalLoadAvg, which is why the owner load is floored.)
STARTD_RELATIONS: tuple[Relation, ...] = (
    Relation(
        "CondorLoadAvg <= LoadAvg",
        ("CondorLoadAvg", "LoadAvg"),
        "src/condor_startd.V6/ResAttributes.cpp CpuAttributes::publish_dynamic publishes "
        "LoadAvg = rint((owner load + condor load) * 100) / 100 and CondorLoadAvg = "
        "rint(condor load * 100) / 100 (rint is monotone); ResMgr::assign_load_to_slots "
        "and ResMgr::distribute_load give every slot an owner load of at least 0 (6.8: "
        "ResMgr::assign_load, V6_8_7 src/condor_startd.V6/ResMgr.C)",
    ),
)


def _norm(mapping: Mapping[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in mapping.items():
        scope, _, name = key.rpartition(".")
        scope = scope.upper()
        if scope not in ("", "MY", "TARGET"):
            raise ValueError(f"attribute key {key!r}: scope must be MY or TARGET")
        out[f"{'TARGET' if scope == 'TARGET' else 'MY'}.{name.lower()}"] = value
    return out


class Env(msgspec.Struct, frozen=True, eq=False):
    """Domains and assumed values, keyed `"MY.<lower name>"` / `"TARGET.<lower name>"`."""

    domains: tuple[tuple[str, Domain], ...]
    assume: tuple[tuple[str, tuple[str, object]], ...]

    @staticmethod
    def make(domains: Mapping[str, Domain], assume: Mapping[str, Value]) -> Env:
        a = _norm(assume)
        return _intern(
            _domain_items(domains),
            # The type name is part of the key: False == 0 == 0.0 in Python, not in ClassAd
            # (and Env is a cache key).
            tuple(sorted((k, (type(v).__name__, _freeze(v))) for k, v in a.items())),
        )

    def without_assumptions(self) -> Env:
        """The Env of the same domains and no assumed value."""
        return _intern(self.domains, ())

    def _domain_map(self) -> dict[str, Domain]:
        return _maps(self)[0]

    def _assume_map(self) -> dict[str, object]:
        return _maps(self)[1]

    def present_in_my(self, name: str) -> bool:
        key = f"MY.{name.lower()}"
        dom = self._domain_map().get(key)
        value = self._assume_map().get(key, UNDEFINED)
        return (dom is not None and dom.defined) or value is not UNDEFINED

    def resolve(self, ref: AttrRef) -> str | None:
        """The key of the ad attribute `ref` certainly denotes, or None if it may be
        either ad's (unscoped and not known to be in MY) or is PARENT-scoped."""
        name = ref.name.lower()
        if ref.scope == "TARGET":
            return f"TARGET.{name}"
        if ref.scope == "MY" or (ref.scope is None and self.present_in_my(name)):
            return f"MY.{name}"
        return None

    def domain(self, ref: AttrRef) -> Domain | None:
        key = self.resolve(ref)
        return None if key is None else self._domain_map().get(key)

    def assumed(self, ref: AttrRef) -> tuple[bool, object]:
        key = self.resolve(ref)
        if key is None:
            return False, None
        amap = self._assume_map()
        return (key in amap, amap.get(key))


@lru_cache(maxsize=256)
def _maps(env: Env) -> tuple[dict[str, Domain], dict[str, object]]:
    return dict(env.domains), {k: _thaw(v) for k, (_, v) in env.assume}


def _freeze(v: object) -> object:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def _thaw(v: object) -> object:
    return [_thaw(x) for x in v] if isinstance(v, tuple) else v


#: Env by (id of its interned domains, its assumptions), and the interned domain tuples.
_ENVS: dict[tuple[int, object], Env] = {}
_DOMAIN_TUPLES: dict[tuple[tuple[str, Domain], ...], tuple[tuple[str, Domain], ...]] = {}
#: mapping -> (a copy of it, its interned domain tuple): a caller passes the same domains
#: with every guard, and normalising and hashing them was a tenth of a cold compile
#: (issue 11).
_SEEN_DOMAINS: IdentityMemo[Mapping[str, object], tuple[dict[str, object], tuple]] = IdentityMemo(
    65
)


def _domain_items(domains: Mapping[str, object]) -> tuple[tuple[str, Domain], ...]:
    """`domains` normalised and sorted, one tuple object per content; a mapping seen
    before that still holds the same items (one dict comparison) is not normalised again."""
    seen = _SEEN_DOMAINS.get(domains)
    if seen is not None and seen[0] == domains:
        return seen[1]
    d = _norm(domains)
    items = tuple(sorted((k, v) for k, v in d.items() if isinstance(v, Domain)))
    if len(_DOMAIN_TUPLES) > 1024:
        _clear_interned()
    items = _DOMAIN_TUPLES.setdefault(items, items)
    _SEEN_DOMAINS.put(domains, (dict(domains), items))
    return items


def _clear_interned() -> None:
    _ENVS.clear()
    _DOMAIN_TUPLES.clear()
    _SEEN_DOMAINS.clear()


def _intern(domains: tuple[tuple[str, Domain], ...], assume: tuple) -> Env:
    """One object per distinct content, so Env compares and hashes by identity (fast).
    Every Env holds the interned domain tuple, whose id then stands for its content."""
    env = _ENVS.get((id(domains), assume))
    if env is not None and env.domains is domains:
        return env
    if len(_ENVS) > 1024:
        _clear_interned()
    domains = _DOMAIN_TUPLES.setdefault(domains, domains)
    return _ENVS.setdefault((id(domains), assume), Env(domains, assume))
