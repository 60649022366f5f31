"""The negotiator's accountant: real and effective user priorities (issue 14).

Stage: pool (above the ClassAd language; pure functions over small frozen records). The
rules and their sources are shared/reference/pool.md section 1 (HEAD
`Accountant::UpdatePriorities`, `UpdateOnePriority`, `GetPriority`, `GetPriorityFactor`,
`SetPriorityFactor`) and seed 003 3.4; where they differ the facts are spec data
(spec/pool.yaml `accountant`, one entry per semantics, each with its D-number).

* `decay(rup, usage, dt, half_life, facts)`: one update of a real user priority over `dt`
  seconds with `usage` weighted slots in use on average: `beta = 0.5 ** (dt / h)`,
  `new = old * beta + usage * (1 - beta)`, the code clamping to 0.5 before and after;
* `priority_factor(name, stored, knobs, facts)`: the factor a user gets;
* `effective_priority(rup, factor, facts)`: EUP = RUP x factor (code: RUP at least 0.5);
* `replay_history(history, facts)`: what `condor-policy userprio` prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

from compiler import yamlcache
from compiler.errors import PolicyError

#: The smallest half-life the accountant accepts (param_double's minimum).
MIN_HALF_LIFE = 0.00001


class HistoryError(PolicyError):
    """A HISTORY document `userprio` cannot replay (the key at fault is named)."""


@dataclass(frozen=True)
class Facts:
    """What one semantics says about the accountant (spec/pool.yaml)."""

    semantics: str
    rup_floor: float | None
    eup_floor: float | None
    default_prio_factor: float
    min_factor: float | None
    priority_halflife: float
    nice_user_prio_factor: float
    remote_prio_factor: float | None
    nice_user_prefix: str
    initial_rup: float
    group_records: bool


@cache
def facts(semantics: str) -> Facts:
    """The accountant facts of `semantics` ("code" or "manual")."""
    entry = yamlcache.spec_entry(
        "pool.yaml", "accountant", semantics, "semantics for the accountant"
    )

    def number(key: str) -> float | None:
        value = entry[key]
        return None if value is None else float(value)

    return Facts(
        semantics,
        number("rup_floor"),
        number("eup_floor"),
        float(entry["default_prio_factor"]),
        number("min_factor"),
        float(entry["priority_halflife"]),
        float(entry["nice_user_prio_factor"]),
        number("remote_prio_factor"),
        str(entry["nice_user_prefix"]),
        float(entry["initial_rup"]),
        bool(entry["group_records"]),
    )


def _floor(value: float, floor: float | None) -> float:
    return value if floor is None else max(value, floor)


def decay(rup: float, usage: float, dt: float, half_life: float, known: Facts) -> float:
    """The real user priority after `dt` seconds with `usage` weighted slots in use (the
    time average over the interval). `dt <= 0`: unchanged (the code skips a zero or
    negative interval). Seed 003 3.4.4: `pi(t) = beta pi(t - dt) + (1 - beta) rho`."""
    if dt <= 0:
        return rup
    beta = 0.5 ** (dt / max(half_life, MIN_HALF_LIFE))
    old = _floor(rup, known.rup_floor)
    return _floor(old * beta + usage * (1 - beta), known.rup_floor)


def effective_priority(rup: float, factor: float, known: Facts) -> float:
    """EUP = RUP x factor (code: `GetPriority` = max(RUP, 0.5) x factor, D17)."""
    return _floor(rup, known.eup_floor) * factor


@dataclass(frozen=True)
class FactorKnobs:
    """The configuration's knobs `GetPriorityFactor` reads (None: not configured)."""

    default_prio_factor: float | None = None
    nice_user_prio_factor: float | None = None
    remote_prio_factor: float | None = None
    accountant_local_domain: str | None = None
    group_prio_factors: Mapping[str, float] = field(default_factory=dict)


def priority_factor(
    name: str,
    stored: float | None,
    knobs: FactorKnobs,
    known: Facts,
    group: str | None = None,
) -> float:
    """The priority factor of submitter `name` (`GetPriorityFactor`): a stored factor
    (condor_userprio -setfactor; the code keeps at least 1.0, D3), else the first that
    applies: a nice user (name prefix `nice-user`, D20), the group's
    GROUP_PRIO_FACTOR_<group>, a remote user (ACCOUNTANT_LOCAL_DOMAIN set and another
    domain after the last `@`; the manual boosts only when REMOTE_PRIO_FACTOR is
    configured), else DEFAULT_PRIO_FACTOR (default 1000 in the code, 1.0 in the seed, D2)."""
    if stored is not None:
        return _floor(stored, known.min_factor)
    if name.lower().startswith(known.nice_user_prefix):
        return knobs.nice_user_prio_factor or known.nice_user_prio_factor
    if group is not None:
        wanted = {k.lower(): v for k, v in knobs.group_prio_factors.items()}.get(group.lower())
        if wanted:
            return wanted
    remote = knobs.remote_prio_factor or known.remote_prio_factor
    domain = name.rpartition("@")[2] if "@" in name else ""
    if (
        remote is not None
        and knobs.accountant_local_domain
        and domain.lower() != knobs.accountant_local_domain.lower()
    ):
        return remote
    return knobs.default_prio_factor or known.default_prio_factor


@dataclass(frozen=True)
class Step:
    """One interval of a HISTORY: `dt` seconds with `in_use` weighted slots per user."""

    dt: float
    in_use: Mapping[str, float]


@dataclass(frozen=True)
class History:
    """A `userprio` HISTORY document, checked."""

    half_life: float
    steps: tuple[Step, ...]
    factors: Mapping[str, float]
    initial: Mapping[str, float]
    knobs: FactorKnobs
    #: the HGQ groups of the configuration's GROUP_NAMES, the root `<none>` first (empty
    #: without GROUP_NAMES)
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Priorities:
    """Each user's RUP after each step, and the EUP and factor that go with it."""

    users: tuple[str, ...]
    rup: Mapping[str, tuple[float, ...]]
    eup: Mapping[str, tuple[float, ...]]
    factor: Mapping[str, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "rup": {u: list(v) for u, v in self.rup.items()},
            "eup": {u: list(v) for u, v in self.eup.items()},
            "factor": dict(self.factor),
        }


def replay_history(history: History, known: Facts) -> Priorities:
    """Every user's priorities through `history` (the users of `initial`, `factors` and
    any step, in order of first appearance). A user not in `initial` starts at 0.5
    (seed 003 3.4.1; the code's `GetPriority` reports 0.5 and writes the record)."""
    users: dict[str, None] = {}
    for name in (*history.initial, *history.factors):
        users.setdefault(name, None)
    for step in history.steps:
        for name in step.in_use:
            users.setdefault(name, None)
    steps = history.steps
    if known.group_records and history.groups:  # D18: the groups' own records
        steps = tuple(_with_group_usage(step, history.groups) for step in steps)
        for name in history.groups:
            users.setdefault(name, None)
    factor = {u: priority_factor(u, history.factors.get(u), history.knobs, known) for u in users}
    current = {u: history.initial.get(u, known.initial_rup) for u in users}
    rup: dict[str, list[float]] = {u: [] for u in users}
    eup: dict[str, list[float]] = {u: [] for u in users}
    for step in steps:
        for u in users:
            current[u] = decay(
                current[u], step.in_use.get(u, 0.0), step.dt, history.half_life, known
            )
            rup[u].append(current[u])
            eup[u].append(effective_priority(current[u], factor[u], known))
    return Priorities(
        tuple(users),
        MappingProxyType({u: tuple(v) for u, v in rup.items()}),
        MappingProxyType({u: tuple(v) for u, v in eup.items()}),
        MappingProxyType(factor),
    )


def _with_group_usage(step: Step, groups: tuple[str, ...]) -> Step:
    """`step` with each group's record charged with the usage of the submitters assigned
    to it (`GroupEntry::GetAssignedGroup`; a group name itself is not a submitter)."""
    from runtime.pool.groups import assigned_group

    usage = dict.fromkeys(groups, 0.0)
    for name, amount in step.in_use.items():
        if name not in usage:
            usage[assigned_group(name, groups)] += amount
    return Step(step.dt, MappingProxyType({**step.in_use, **usage}))


def _number(value: Any, where: str, file: str | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HistoryError(f"{where} must be a number, not {value!r}", file=file)
    return float(value)


def _users(value: Any, where: str, file: str | None) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HistoryError(f"{where} must map user names to numbers", file=file)
    return {str(k): _number(v, f"{where}.{k}", file) for k, v in value.items()}


def _config_knobs(text: str, file: str | None) -> tuple[FactorKnobs, float | None, tuple[str, ...]]:
    """The factor knobs, PRIORITY_HALFLIFE and HGQ groups (root first, none without
    GROUP_NAMES) a negotiator configuration sets."""
    from compiler.config import load_config
    from runtime.pool.groups import group_tree

    config = load_config(text=text, subsystem="NEGOTIATOR")
    groups: tuple[str, ...] = ()
    if (config.get("GROUP_NAMES") or "").strip():
        groups = tuple(g.name for g in group_tree(config).walk())

    def number(name: str) -> float | None:
        if config.definition(name) is None:
            return None
        raw = config.get(name)
        try:
            return float(raw) if raw is not None else None
        except ValueError:
            raise HistoryError(f"config: {name} = {raw!r} is not a number", file=file) from None

    group_factors = {
        name[len("GROUP_PRIO_FACTOR_") :]: value
        for name in config.names()
        if name.upper().startswith("GROUP_PRIO_FACTOR_") and (value := number(name))
    }
    domain = (
        config.get("ACCOUNTANT_LOCAL_DOMAIN")
        if config.definition("ACCOUNTANT_LOCAL_DOMAIN")
        else None
    )
    knobs = FactorKnobs(
        number("DEFAULT_PRIO_FACTOR"),
        number("NICE_USER_PRIO_FACTOR"),
        number("REMOTE_PRIO_FACTOR"),
        domain,
        MappingProxyType(group_factors),
    )
    return knobs, number("PRIORITY_HALFLIFE"), groups


def read_history(document: Any, known: Facts, file: str | None = None) -> History:
    """A HISTORY document (issue 14: `{"half_life", "steps": [{"dt", "in_use"}],
    "factors", "initial", "config"}`) checked; `half_life` defaults to the configuration's
    PRIORITY_HALFLIFE, else 86400 s."""
    if not isinstance(document, Mapping):
        raise HistoryError("a HISTORY must be a mapping with 'steps'", file=file)
    unknown = sorted(set(document) - {"half_life", "steps", "factors", "initial", "config"})
    if unknown:
        raise HistoryError(f"unknown key {unknown[0]!r}", file=file)
    knobs, configured, groups = _config_knobs(str(document.get("config") or ""), file)
    half_life = document.get("half_life")
    if half_life is None:
        half_life = configured if configured is not None else known.priority_halflife
    half_life = _number(half_life, "half_life", file)
    raw_steps = document.get("steps")
    if not isinstance(raw_steps, Sequence) or isinstance(raw_steps, str):
        raise HistoryError("'steps' must be a list of {dt, in_use}", file=file)
    steps = []
    for index, raw in enumerate(raw_steps):
        where = f"steps[{index}]"
        if not isinstance(raw, Mapping) or "dt" not in raw:
            raise HistoryError(f"{where} must be a mapping with 'dt'", file=file)
        steps.append(
            Step(
                _number(raw["dt"], f"{where}.dt", file),
                MappingProxyType(_users(raw.get("in_use"), f"{where}.in_use", file)),
            )
        )
    return History(
        half_life,
        tuple(steps),
        MappingProxyType(_users(document.get("factors"), "factors", file)),
        MappingProxyType(_users(document.get("initial"), "initial", file)),
        knobs,
        groups,
    )
