"""`compile --format table` prints rich's table on a terminal and plain columns elsewhere.

A pipe or a file gets one line per row (the title, the header, then the rows), the columns
aligned and nothing folded, so that `grep`, `diff` and scripts see every guard whole; the
terminal keeps rich's boxed table. The expected cells come from the JSON view of the same
table, not from the plain renderer.
"""

from __future__ import annotations

import io
import json

import pytest

from runtime.cli import main

CONFIG = 'START = regexp("[bold]x", Name)\nWANT_SUSPEND = True\nSUSPEND = regexp(":smile:[/]", Machine)\n'


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["compile", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "argv",
    [
        ["--policy", "desktop"],
        ["--era", "condor-6.4"],
        ["--policy", "desktop", "--semantics", "code"],
    ],
)
def test_a_pipe_gets_one_aligned_line_per_row(argv, capsys) -> None:
    data = _json(argv, capsys)
    assert main(["compile", *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    title, header, body = lines[0], lines[1], lines[2:]
    assert data["era"] in title and data["semantics"] in title
    assert header.split() == ["#", "L", "from", "to", "status", "trigger", "simplified", "guard"]
    assert len(body) == len(data["rows"])
    starts = {
        name: header.index(name) for name in ("from", "to  ", "status", "trigger", "simplified")
    }
    for line, row in zip(body, data["rows"], strict=True):
        assert line.split()[0] == str(row["number"])
        assert line[starts["from"] :].startswith("/".join(row["from"]))
        assert line[starts["to  "] :].startswith("/".join(row["to"]))
        assert line[starts["status"] :].startswith(row["status"])
        assert line[starts["simplified"] :] == row["simplified"]
    assert "┃" not in "".join(lines) and "│" not in "".join(lines)


def test_a_terminal_gets_the_rich_table_with_expressions_verbatim(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "condor_config"
    config.write_text(CONFIG)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["compile", str(config)]) == 0
    out = terminal.getvalue()
    assert "┃" in out and "simplified guard" in out
    assert '"[bold]x"' in out and ":smile:[/]" in out


def test_differences_on_a_pipe_are_a_block_per_item(capsys) -> None:
    assert main(["compile", "--policy", "desktop", "--differences", "--format", "json"]) == 0
    items = json.loads(capsys.readouterr().out)["differences"]
    assert main(["compile", "--policy", "desktop", "--differences"]) == 0
    out = capsys.readouterr().out
    for item in items:
        assert f"\n  manual: {item['manual']}\n  code:   {item['code']}\n" in out
