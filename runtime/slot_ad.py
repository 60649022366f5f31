"""The slot ad builder: the machine ClassAd the guards see (MY), from a slot record.

Stage: runtime. `AdBuilder.build(record, pair, now, overrides)` is the published ad
(`runtime.ads.machine_ad`: sensors, times, claim attributes, the table's published policy
expressions) plus the CpuBusy latch attributes and the spec's predicates
(`runtime.ads.predicates`). What it keeps between calls: the CpuBusy latch (when CpuBusy
last changed, reference D17), the last measured sensor values (to log real changes) and
one cached ad per instant (`current`). It decides no transition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compiler import holds
from compiler.classad import ClassAd
from compiler.classad.ast import Expr
from compiler.spec import EraSpec, Pair
from runtime.ads import PolicyExprs, SlotState, cpu_busy_attrs, machine_ad, predicates
from runtime.fired import jsonable
from runtime.sensors.fake import FakeSensors


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
        ad = self.build(record, pair, now, overrides, track=True)
        self.cache = (key, ad)
        return ad

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
            base.update(self._cpu_busy_attrs(base, now, track=track))
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

    def _cpu_busy_attrs(self, base: dict[str, Any], now: float, *, track: bool) -> dict[str, Any]:
        rule = self.spec.helpers.cpu_busy
        busy = holds(self.policy.value(rule.expression, ClassAd(base), None, now))
        was, since, changed = self.cpu_busy
        if busy != was and track:
            since = now if busy else None
            changed = now
            self.cpu_busy = (busy, since, changed)
        return cpu_busy_attrs(rule, busy, since, changed, now)
