"""`condor-policy replay`'s outputs: text for people, JSON for tools, diagram steps.

Text: one line per slot with its numbered path (`1 A, 6 C, 9 G, 11`; a step the log
cannot pin to one row shows its candidates in braces, a flagged step ends in `!`), then
each flagged step as `LOG:line:column: [kind] reason` (the form editors jump to), then
a summary. JSON: docs/replay.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from runtime.replay.check import Replay, SlotReplay, summary


def _path(slot: SlotReplay) -> str:
    return ", ".join(s.label() + ("!" if s.flagged else "") for s in slot.steps)


def render_text(replay: Replay, log: str, *, possible_with: Sequence[tuple[str, str]] = ()) -> str:
    lines = [
        f"replay of {log}: {replay.era} ({replay.semantics} semantics), policy {replay.source}"
    ]
    for slot in replay.slots:
        lines.append(f"{slot.slot}: {_path(slot)}")
        for step in slot.steps:
            for flag in step.flags:
                where = f"{log}:{step.change.line}:{step.change.column}"
                said = f" (the log says: {step.cause})" if step.cause else ""
                lines.append(f"  {where}: [{flag.kind}] {flag.reason}{said}")
    counts = summary(replay)
    verdict = (
        "every change was possible"
        if not counts["flagged"]
        else f"{counts['flagged']} change(s) the policy could not have made"
    )
    lines.append(f"summary: {counts['slots']} slot(s), {counts['changes']} change(s); {verdict}")
    for era, semantics in possible_with:
        lines.append(f"hint: every change is possible with --era {era} --semantics {semantics}")
    return "\n".join(lines) + "\n"


def to_json(
    replay: Replay, log: str, *, possible_with: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    return {
        "log": log,
        "era": replay.era,
        "semantics": replay.semantics,
        "source": replay.source,
        "slots": [
            {
                "slot": slot.slot,
                "path": [s.label() for s in slot.steps],
                "steps": [s.to_json() for s in slot.steps],
            }
            for slot in replay.slots
        ],
        "summary": dict(summary(replay)),
        "possible_with": [{"era": e, "semantics": s} for e, s in possible_with],
    }


def render_json(replay: Replay, log: str, *, possible_with: Sequence[tuple[str, str]] = ()) -> str:
    return json.dumps(to_json(replay, log, possible_with=possible_with), indent=2) + "\n"


def diagram_steps(slot: SlotReplay) -> list[tuple[int, str]]:
    """(step number, row id) of the slot's steps that some row fits: the first possible
    candidate, else the first candidate (a flagged step is still drawn where the log
    says the slot went)."""
    out = []
    for index, step in enumerate(slot.steps, start=1):
        chosen = (
            [c for c in step.candidates if c.by_cause]
            or [c for c in step.candidates if c.possible]
            or list(step.candidates)
        )
        if chosen:
            out.append((index, chosen[0].id))
    return out
