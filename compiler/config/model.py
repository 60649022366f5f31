"""`Config`: the result of reading a configuration (stage: table -> named expressions).

Look-ups are lazy, like HTCondor's `param()`: `get(NAME)` expands the winning raw value
at call time, so it prints what `condor_config_val NAME` prints. A `Config` never changes;
`with_overrides` and `slot` return new ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar

import msgspec

from compiler.config.diagnose import empty_macros, startd_verdict
from compiler.config.errors import ConfigError
from compiler.config.expand import Context, MacroCycle, MacroProblem, expand
from compiler.config.table import DEFAULT_ORIGIN, DETECTED_ORIGIN, Definition, Origin, Table
from compiler.errors import PolicyError

if TYPE_CHECKING:
    from compiler.classad.ast import Expr


_E = TypeVar("_E", bound=PolicyError)


class Provenance(msgspec.Struct, frozen=True):
    """Where NAME's value comes from: the winning origin and the ones it overrode."""

    name: str
    winner: Origin
    overridden: tuple[Origin, ...]

    def describe(self) -> str:
        text = self.winner.describe()
        if self.overridden:
            text += " (overrides " + ", ".join(o.describe() for o in self.overridden) + ")"
        return text


class Config(msgspec.Struct, frozen=True):
    """An HTCondor configuration as the given subsystem (default the startd) sees it.

    `files` lists the files read, in order; `warnings` holds problems HTCondor only warns
    about (such as `NAME : value` in the current era).
    """

    era: str
    subsystem: str
    table: Table
    env: Mapping[str, str]
    files: tuple[str, ...] = ()
    warnings: tuple[ConfigError, ...] = ()
    slot_id: int | None = None

    def __repr__(self) -> str:
        # as the dataclass it was, with the table and the environment left out
        shown = ", ".join(
            f"{n}={getattr(self, n)!r}" for n in self.__struct_fields__ if n not in ("table", "env")
        )
        return f"Config({shown})"

    # -- look-ups -------------------------------------------------------------------------

    @property
    def context(self) -> Context:
        """What macro expansion needs besides the table (the environment)."""
        return Context(self.env)

    def raw(self, name: str) -> str | None:
        """The unexpanded value a look-up of NAME finds (file, detected or default)."""
        return self.table.raw(name)

    def get(self, name: str) -> str | None:
        """NAME fully expanded, exactly as `condor_config_val NAME` prints it; None if undefined."""
        raw = self.table.raw(name)
        if not raw:
            return None
        try:
            value = expand(raw, self.table, Context(self.env), (name.upper(),))
        except MacroCycle as cycle:
            raise self.error_at(name, f"cyclic macro definition: {cycle}") from None
        except MacroProblem as problem:
            raise self.error_at(name, str(problem)) from None
        return value or None

    def expr(self, name: str) -> Expr | None:
        """NAME's expanded value parsed as a ClassAd expression (None when undefined)."""
        value = self.get(name)
        if value is None:
            return None
        from compiler.classad import ClassAdSyntaxError, parse

        try:
            return parse(value)
        except ClassAdSyntaxError as err:
            reason = getattr(err, "message", str(err))
            where = f" at column {err.column} of" if getattr(err, "column", None) else " in"
            lines = [f"{name} is not a valid ClassAd expression: {reason}{where} '{value}'"]
            lines += [empty.describe() for empty in empty_macros(self.table, self.context, name)]
            lines.append(startd_verdict(name))
            raise self.error_at(name, "\n  ".join(lines)) from None

    def defined(self, name: str) -> bool:
        """True when NAME has a non-empty raw value (the `if defined` test)."""
        return bool(self.table.raw(name))

    def where(self, name: str) -> Provenance | None:
        """Provenance of NAME like `condor_config_val -v`, None when undefined."""
        chain: list[Definition] = []
        for key in self.table.candidates(name):
            chain = self.table.definitions.get(key, [])
            if chain:
                break
        if chain:
            return Provenance(
                chain[-1].name,
                chain[-1].origin,
                tuple(d.origin for d in reversed(chain[:-1])),
            )
        fallback = self.table.fallback(name)
        if fallback is None:
            return None
        origin = DETECTED_ORIGIN if name.upper() in self.table.detected else DEFAULT_ORIGIN
        return Provenance(self.table.defaults.spelling(name), origin, ())

    def definition(self, name: str) -> Definition | None:
        """The winning file definition of NAME (None when it is a default or undefined)."""
        return self.table.winner(name)

    def names(self) -> tuple[str, ...]:
        """Every name the files define, in their own spelling, sorted case-insensitively."""
        return tuple(
            sorted((defs[-1].name for defs in self.table.definitions.values()), key=str.upper)
        )

    def default_names(self) -> tuple[str, ...]:
        """Every name with a built-in default in this era."""
        return tuple(sorted((s for s, _ in self.table.defaults.values.values()), key=str.upper))

    def exported(self) -> tuple[str, ...]:
        """Names written as `NAME : value` (Condor 6.x exported them to the machine ad)."""
        names = {defs[-1].name for defs in self.table.definitions.values() if defs[-1].colon}
        return tuple(sorted(names, key=str.upper))

    def as_dict(self) -> MappingProxyType[str, str | None]:
        """Name -> expanded value for every name the files define."""
        return MappingProxyType({n: self.get(n) for n in self.names()})

    # -- derived configurations ----------------------------------------------------------------

    def with_overrides(self, overrides: Mapping[str, str], source: str = "<override>") -> Config:
        """A new Config with `overrides` appended as if written at the end of the file.

        A value may refer to the name's earlier value (`START = ($(START)) && X`).
        """
        from compiler.config.expand import expand_self

        table = self.table.copy()
        for index, (name, value) in enumerate(overrides.items(), start=1):
            raw = expand_self(str(value).strip(), table.self_names(name), table.raw)
            table.define(Definition(name, raw, Origin(source, index, 1)))
        return Config(
            self.era, self.subsystem, table, self.env, self.files, self.warnings, self.slot_id
        )

    def slot(self, slot_id: int, slot_type: int | None = None) -> Config:
        """The view of slot N: `SLOT<N>_NAME` (and `SLOT_TYPE_<T>_NAME`) win over NAME."""
        table = self.table.copy()
        prefixes = [f"SLOT{slot_id}_"]
        if slot_type is not None:
            prefixes.append(f"SLOT_TYPE_{slot_type}_")
        table.prefixes = tuple(prefixes)
        return Config(self.era, self.subsystem, table, self.env, self.files, self.warnings, slot_id)

    # -- helpers ------------------------------------------------------------------------------

    def error_at(self, name: str, message: str, kind: type[_E] = ConfigError) -> _E:  # type: ignore[assignment]
        """A `ConfigError` (or another `PolicyError` class `kind`) saying `message`,
        placed at NAME's winning definition (at `<Default>` when the files do not define
        it): how a problem with a knob's value is reported by whoever reads it."""
        found = self.table.winner(name)
        if found is None:
            return kind(message, file="<Default>")
        origin = found.origin
        return kind(
            message,
            file=origin.file,
            line=origin.line or None,
            column=(origin.value_column or origin.column) if origin.line else None,
        )
