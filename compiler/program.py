"""What a slot runs besides the guards: knobs, runtime expressions, settings, published ad.

Stage: compiler output, part of `compiler.table.StateTable` (`table.program`). The runtime
(`runtime.Slot`) runs from the table alone, so everything it used to read from the
configuration at start-up is decided here, once, by `compiler.policy.compile_policy`, and
kept as immutable data that a JSON file can carry (`Program.to_dict` / `from_dict`; what
the simulator ships to its workers). Nothing here reads a configuration or expands a
knob: `compiler.expand` is the single place that knows `_VANILLA` rules, aliases and era
defaults; this module only holds and renders its results.

* `knobs`: every policy knob of the era (`EraSpec.policies`) and each of its `_VANILLA`/
  `_VM` variants, as the unexpanded expression the startd reads, with where it came from
  (`Knob.source`).
* `evaluated`: the expressions the runtime itself evaluates besides the guards, expanded
  for the claim's job (PREEMPT for the PREEMPT latch, RANK for CurrentRank and
  preempting-claim refusal, MaxJobRetirementTime, MachineMaxVacateTime, START) and the
  CpuBusy latch expression.
* `published`: the policy expressions the slot ad carries (so `Requirements = START` and
  the like evaluate as in a real slot ad).
* `settings`: timeouts, intervals, CLAIM_WORKLIFE and whether backfill is enabled.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Literal

import msgspec

from compiler.classad import parse, unparse
from compiler.classad.ast import Expr

#: Where a knob's expression came from. "config": the configuration defines it (in its
#: own spelling, `Knob.spelling`; this includes the configuration's built-in defaults);
#: "default": the spec's era default (the configuration never names it); "empty": defined
#: with no value (UNDEFINED, as `param()` finds nothing); "undefined": neither;
#: "invalid": defined, but the text is not a ClassAd expression (`Knob.note` says why).
KnobSource = Literal["config", "default", "empty", "undefined", "invalid"]
KNOB_SOURCES: tuple[KnobSource, ...] = ("config", "default", "empty", "undefined", "invalid")


class Knob(msgspec.Struct, frozen=True):
    """One policy knob (or `_VANILLA`/`_VM` variant) as the startd of the era reads it.

    `name` is the spec's name (`START`, `PREEMPT_VANILLA`); `spelling` the name as the
    configuration writes it (an alias such as `IsOwner` for IS_OWNER); `expr` the
    unexpanded expression (None unless `source` is "config" or "default"); `variant_of`
    the base knob of a variant.
    """

    name: str
    spelling: str
    source: KnobSource
    expr: Expr | None = None
    variant_of: str | None = None
    note: str = ""

    @property
    def text(self) -> str:
        return "" if self.expr is None else unparse(self.expr)

    def render(self) -> str:
        """The knob for people: its text, or a note saying why there is none."""
        match self.source:
            case "config":
                return self.text
            case "default":
                return f"{self.text}  (era default)"
            case "empty":
                return "(defined empty: undefined)"
            case "invalid":
                return f"(invalid: {self.note})"
            case _:
                return "(undefined)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spelling": self.spelling,
            "source": self.source,
            "expr": None if self.expr is None else self.text,
            "variant_of": self.variant_of,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Knob:
        source = data["source"]
        if source not in KNOB_SOURCES:
            raise ValueError(f"unknown knob source {source!r}")
        text = data.get("expr")
        return cls(
            name=str(data["name"]),
            spelling=str(data.get("spelling") or data["name"]),
            source=source,
            expr=None if text is None else parse(text),
            variant_of=data.get("variant_of"),
            note=str(data.get("note") or ""),
        )


class Settings(msgspec.Struct, frozen=True):
    """The integer settings a slot runs with (None: not configured, use the spec's value).

    `claim_worklife`: seconds a claim may accept new jobs (negative: forever; None: no
    limit in this era or defined empty); `backfill_enabled`: ENABLE_BACKFILL is true and
    BACKFILL_SYSTEM is set.
    """

    match_timeout: int | None = None
    killing_timeout: int | None = None
    polling_interval: int | None = None
    update_interval: int | None = None
    claim_worklife: int | None = None
    backfill_enabled: bool = False

    #: Configuration name -> field, for timers named after the configuration setting.
    NAMES: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            "MATCH_TIMEOUT": "match_timeout",
            "KILLING_TIMEOUT": "killing_timeout",
            "POLLING_INTERVAL": "polling_interval",
            "UPDATE_INTERVAL": "update_interval",
            "CLAIM_WORKLIFE": "claim_worklife",
        }
    )

    def get(self, name: str) -> int | None:
        """The setting configured under NAME (a timer's name), None when not one of ours."""
        attr = self.NAMES.get(name)
        return None if attr is None else getattr(self, attr)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: self.get(name) for name in self.NAMES}
        out["BackfillEnabled"] = self.backfill_enabled
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        values = {attr: _opt_int(data.get(name)) for name, attr in cls.NAMES.items()}
        return cls(**values, backfill_enabled=bool(data.get("BackfillEnabled", False)))


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"setting must be an integer or null, not {value!r}")
    return value


class Program(msgspec.Struct, frozen=True):
    """Everything a slot runs besides the rows (see the module docstring)."""

    knobs: tuple[Knob, ...] = ()
    evaluated: tuple[tuple[str, Expr], ...] = ()
    published: tuple[tuple[str, Expr], ...] = ()
    settings: Settings = Settings()

    def knob(self, name: str) -> Knob:
        """The knob NAME (spec name or variant, case-insensitive)."""
        for knob in self.knobs:
            if knob.name.lower() == name.lower():
                return knob
        raise KeyError(name)

    def expression(self, name: str) -> Expr | None:
        """The runtime expression NAME (expanded for the claim's job), None if absent."""
        return dict(self.evaluated).get(name)

    def policy_values(self) -> tuple[tuple[str, str], ...]:
        """(knob, its text or a note) for the era's knobs, variants left out: the display."""
        return tuple((k.name, k.render()) for k in self.knobs if k.variant_of is None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "knobs": [k.to_dict() for k in self.knobs],
            "evaluated": [[name, unparse(e)] for name, e in self.evaluated],
            "published": [[name, unparse(e)] for name, e in self.published],
            "settings": self.settings.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Program:
        return cls(
            knobs=tuple(Knob.from_dict(k) for k in data.get("knobs", ())),
            evaluated=tuple((str(n), parse(t)) for n, t in data.get("evaluated", ())),
            published=tuple((str(n), parse(t)) for n, t in data.get("published", ())),
            settings=Settings.from_dict(data.get("settings", {})),
        )
