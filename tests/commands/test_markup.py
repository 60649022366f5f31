"""Expressions are shown as written in every rich view, never read as console markup.

rich reads a str cell as markup (`[bold]`, `[/]`) and emoji codes (`:smile:`); a guard
such as `regexp("[bold]x", Name)` was shown as `regexp("x", Name)` by `compile`.
"""

from __future__ import annotations

import io
import subprocess
import sys

from rich.console import Console

from runtime.clock import SimClock
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot
from runtime.view import render
from tests.runtime.support import compiled

TRICKY = 'regexp("[bold]x", Name) || regexp(":smile:[/]", Machine)'
CONFIG = f"START = KeyboardIdle > 1 && ({TRICKY})\nSUSPEND = {TRICKY}\n"


def test_compile_table_shows_markup_like_text_verbatim(tmp_path) -> None:
    config = tmp_path / "condor_config"
    config.write_text(CONFIG)
    out = subprocess.run(
        [sys.executable, "-m", "runtime", "compile", str(config)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # The table folds long cells, so look for the pieces that markup would eat.
    assert '"[bold]x"' in out
    assert ":smile:[/]" in out


def test_watch_view_shows_markup_like_text_verbatim() -> None:
    _, table = compiled("htcondor-current", "manual", (("SUSPEND", TRICKY),))
    clock = SimClock()
    slot = Slot(table, FakeSensors(start=clock.now()), clock, job={"Owner": "tyner"})
    slot.start()
    buffer = io.StringIO()
    Console(file=buffer, width=400, no_color=True).print(render(slot))
    assert TRICKY in buffer.getvalue()
