"""Shared helpers of the differential tests: compare our reader with HTCondor's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from compiler.config import Config, ConfigError, load_config
from compiler.errors import PolicyError
from tests.config.oracle_config import clean_env, oracle_param

#: The policy names every differential test compares, defined or not.
POLICY_NAMES = (
    "START",
    "SUSPEND",
    "CONTINUE",
    "PREEMPT",
    "KILL",
    "WANT_SUSPEND",
    "WANT_VACATE",
    "IS_OWNER",
    "IsOwner",
    "RANK",
    "MaxJobRetirementTime",
    "CLAIM_WORKLIFE",
    "MachineMaxVacateTime",
    "MATCH_TIMEOUT",
    "KILLING_TIMEOUT",
    "PREEMPTION_REQUIREMENTS",
    "PREEMPTION_RANK",
    "NEGOTIATOR_CONSIDER_PREEMPTION",
    "WANT_HOLD",
    "START_BACKFILL",
    "EVICT_BACKFILL",
    "MINUTE",
    "HOUR",
    "StateTimer",
    "ActivityTimer",
    "ActivationTimer",
    "StartIdleTime",
    "ContinueIdleTime",
    "MaxSuspendTime",
    "MaxVacateTime",
    "KeyboardBusy",
    "CPUIdle",
    "CPUBusy",
    "SmallJob",
    "IsVanilla",
)

#: Names whose value HTCondor computes per process or per host in ways we do not copy.
UNCOMPARABLE = frozenset(
    n.upper()
    for n in (
        "PERIODIC_CHECKPOINT",
        "UWCS_PERIODIC_CHECKPOINT",
        "PID",
        "PPID",
        "OPSYSANDVER",
        "OPSYSLONGNAME",
        "OPSYSMAJORVER",
        "OPSYSNAME",
        "OPSYSSHORTNAME",
        "OPSYSVER",
        "CONDOR_BUILD_PLATFORM",
        "DETECTED_MEMORY",
    )
)


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of reading one configuration with both readers."""

    oracle_refused: bool
    oracle_message: str
    our_error: str | None
    mismatches: dict[str, tuple[str | None, str | None]]
    compared: int
    oracle_hung: bool = False
    our_cycle: str | None = None

    @property
    def agrees(self) -> bool:
        if self.oracle_hung:
            return self.our_cycle is not None or self.our_error is not None
        if self.oracle_refused or self.our_error is not None:
            return self.oracle_refused == (self.our_error is not None)
        return not self.mismatches


def compare(
    config: Path,
    extra_names: Iterable[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    allow_commands: bool = False,
    every_name: bool = True,
    subsystem: str = "STARTD",
) -> Comparison:
    """Read `config` with both readers and compare every name either of them knows.

    That is every name the files define, the policy names, `extra_names`, and (with
    `every_name`) every parameter HTCondor has a value for, built-in defaults included.
    """
    environment = clean_env(env)
    try:
        ours = load_config(
            config, env=environment, allow_commands=allow_commands, subsystem=subsystem
        )
    except PolicyError as err:
        result = oracle_param(config, ["START"], env=env, subsystem=subsystem)
        return Comparison(result.refused, result.message, err.format(), {}, 0)
    names = {n.upper(): n for n in (*ours.names(), *POLICY_NAMES, *extra_names)}
    wanted = [
        n
        for key, n in sorted(names.items())
        if key not in UNCOMPARABLE and "$RANDOM_" not in (ours.raw(n) or "")
    ]
    result = oracle_param(config, wanted, env=env, every_name=every_name, subsystem=subsystem)
    wanted += [
        n
        for n in result.values
        if n.upper() not in names
        and n.upper() not in UNCOMPARABLE
        and "$RANDOM_" not in (ours.raw(n) or "")
    ]
    if result.hung:
        return Comparison(True, result.message, None, {}, 0, True, _first_cycle(ours, wanted))
    if result.refused:
        return Comparison(True, result.message, None, {}, 0)
    mismatches: dict[str, tuple[str | None, str | None]] = {}
    for name in wanted:
        try:
            mine = ours.get(name)
        except ConfigError as err:
            mine = f"<error {err.message}>"
        theirs = result.values.get(name)
        if _normal(mine) != _normal(theirs):
            mismatches[name] = (mine, theirs)
    return Comparison(False, result.message, None, mismatches, len(wanted))


def _first_cycle(config: Config, names: Iterable[str]) -> str | None:
    """The first cyclic-macro error our reader reports for `names` (HTCondor hangs)."""
    for name in names:
        try:
            config.get(name)
        except ConfigError as err:
            if "cyclic" in err.message:
                return err.format()
    return None


def _normal(value: str | None) -> str | None:
    """Whitespace-normalised value (the issue compares after normalising whitespace)."""
    if value is None:
        return None
    normal = " ".join(value.split())
    return normal or None


def oracle_parses(text: str) -> bool:
    """Whether HTCondor's ClassAd parser accepts `text` (it signals a syntax error by raising)."""
    from tests.oracle import classad2

    try:
        classad2.ExprTree(text)
    except classad2.ClassAdException:
        return False
    return True


def assert_policy_parses_like_htcondor(config: Config) -> None:
    """Every policy knob of `config` parses here exactly when it parses in HTCondor, and
    what parses here unparses to text that reads back as the same expression."""
    from compiler.classad import parse, unparse

    for name in POLICY_NAMES:
        value = config.get(name)
        if value is None:
            continue
        try:
            expr = config.expr(name)
        except ConfigError:
            assert not oracle_parses(value), f"{name}: we reject what HTCondor parses: {value}"
        else:
            assert expr is not None
            assert oracle_parses(value), f"{name}: we parse what HTCondor rejects: {value}"
            assert parse(unparse(expr)) == expr
