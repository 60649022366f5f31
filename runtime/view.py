"""The live terminal view of a watched slot (rich): state, sensors, guards, last transitions.

Stage: runtime output, presentation only. `render(slot, ...)` builds a rich renderable
from a `runtime.slot.Slot`: the state/activity and time in it, the sensor values, the
guards of the rows leaving the current pair with their current truth value, the running
job, the last transitions with their reasons, when the policy is evaluated next, and the
last events no transition took. `LiveView` wraps `rich.live.Live`;
when stdout is not a terminal the watch command prints transitions as text instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

SENSOR_NAMES = (
    "KeyboardIdle",
    "ConsoleIdle",
    "LoadAvg",
    "CondorLoadAvg",
    "TotalLoadAvg",
    "Memory",
    "Disk",
    "Cpus",
    "ClockMin",
    "ClockDay",
)


def guard_values(slot: Any) -> list[tuple[str, str, bool]]:
    """(row number, simplified guard, holds now) for the policy guards leaving this pair."""
    out: list[tuple[str, str, bool]] = []
    my = slot.ad
    job = slot.record.job
    target = slot.classad(job) if job is not None else None
    now = int(slot.clock.now())
    for row in slot.table.rows_from(slot.pair):
        for trig, guard in zip(row.transition.triggers, row.triggers, strict=True):
            if guard is None or trig.kind not in ("policy", "immediate"):
                continue
            ctx_target = None if trig.against == "local" else target
            # A compiled guard does not raise: ClassAd problems (and nesting too deep for
            # the stack) evaluate to ERROR, which does not hold.
            value = guard.test(my, ctx_target, now=now)
            out.append((str(row.number), guard.simplified, value))
    return out


def policy_values(slot: Any) -> list[tuple[str, str, str]]:
    """(knob, expression, current value against the claim's job) for the published knobs."""
    from compiler.classad import ClassAdSyntaxError, evaluate, format_value

    my = slot.ad
    job = slot.record.job
    target = slot.classad(job) if job is not None else None
    out = []
    for name, text in sorted(slot.policy.texts.items()):
        try:
            value = format_value(evaluate(text, my, target, now=int(slot.clock.now())))
        except ClassAdSyntaxError:  # a knob text that does not parse: shown, not evaluated
            value = "?"
        out.append((name, text, value))
    return out


def _next_evaluation(slot: Any) -> str:
    """When the policy is evaluated next, and by which of the startd's timers."""
    schedule = slot.schedule
    due = [(t, name) for t, name in ((schedule.poll_due, "POLLING_INTERVAL"),
                                      (schedule.update_due, "UPDATE_INTERVAL")) if t is not None]  # fmt: skip
    if not due:
        return ""
    t, name = min(due)
    return f"   next evaluation in {max(0.0, t - slot.clock.elapsed()):.0f} s ({name})"


def render(slot: Any, notes: Sequence[str] = (), job_pid: int | None = None) -> Group:
    now = slot.clock.now()
    header = Text.assemble(
        (f"{slot.state}/{slot.activity}", "bold cyan"),
        f"  for {int(now - slot.record.entered_activity)} s",
        f"   job pid {job_pid}" if job_pid else "",
        f"   {slot.table.era} ({slot.table.semantics})",
        _next_evaluation(slot),
    )
    sensors = Table(title="sensors", show_header=False, box=None)
    ad = slot.ad
    for name in SENSOR_NAMES:
        if name in ad:
            sensors.add_row(name, Text(str(ad[name])))
    guards = Table(title="guards leaving this state", box=None)
    guards.add_column("#")
    guards.add_column("guard", overflow="fold")
    guards.add_column("now")
    for number, text, value in guard_values(slot):
        style = "bold green" if value else "dim"
        guards.add_row(Text(number), Text(text), Text(str(value), style=style))
    knobs = Table(title="policy expressions", box=None)
    knobs.add_column("name")
    knobs.add_column("expression", overflow="fold")
    knobs.add_column("now")
    for name, text, shown in policy_values(slot):
        knobs.add_row(Text(name), Text(text), Text(shown))
    fired = Table(title="last transitions", box=None)
    fired.add_column("t")
    fired.add_column("#")
    fired.add_column("from -> to")
    fired.add_column("reason", overflow="fold")
    for f in slot.fired[-8:]:
        fired.add_row(
            str(int(f.t)),
            str(f.number),
            f"{'/'.join(f.source)} -> {'/'.join(f.target)}",
            Text(f.reason),
        )
    parts: list[Any] = [Panel(header), sensors, knobs, guards, fired]
    ignored = [h for h in getattr(slot, "handled", ()) if h.ignored][-3:]
    if ignored:
        parts.append(Text("\n".join(h.to_text() for h in ignored), style="dim"))
    if notes:
        parts.append(Text("\n".join(notes), style="yellow"))
    return Group(*parts)


class LiveView:
    """A rich Live display refreshed by the watch loop."""

    def __init__(self) -> None:
        self.live = Live(auto_refresh=False, transient=False)

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(None, None, None)

    def update(self, slot: Any, notes: Sequence[str] = (), job_pid: int | None = None) -> None:
        self.live.update(render(slot, notes, job_pid), refresh=True)
