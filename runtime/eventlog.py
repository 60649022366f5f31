"""The JSONL event log: every transition, event, timer, signal and sensor change, one line each.

Stage: runtime output. `EventLog(path)` appends one JSON object per record and flushes
after every line, so a watcher killed at any moment leaves a readable log; `close()` is
idempotent. Records come from `runtime.slot.Slot` (its `listener`): each has `t` (trace
seconds) and `kind` (start | transition | event | ignored | sensor | timer | signal | job
| action | note), transitions also `seq`, `number`, `letter`, `from`, `to`, `trigger`,
`reason` and `values` (the guard's attributes at that moment); an event no transition
took is an `ignored` record with its `reason` (docs/json-outputs.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any


class EventLog:
    """Append-only JSONL file (or an open text stream), flushed per line."""

    def __init__(self, target: str | Path | IO[str]) -> None:
        if isinstance(target, str | Path):
            self._stream: IO[str] = open(target, "a", encoding="utf-8")  # noqa: SIM115
            self._owned = True
        else:
            self._stream = target
            self._owned = False
        self.count = 0

    def __call__(self, record: dict[str, Any]) -> None:
        self.write(record)

    def write(self, record: dict[str, Any]) -> None:
        if self._stream.closed:
            return
        self._stream.write(json.dumps(record, default=str, sort_keys=False) + "\n")
        self._stream.flush()
        self.count += 1

    def close(self) -> None:
        if self._owned and not self._stream.closed:
            self._stream.flush()
            self._stream.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """All records of a JSONL event log."""
    with open(path, encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]
