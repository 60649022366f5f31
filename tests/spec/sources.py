"""Reading the requirement texts the spec must agree with: the seeds and the reference.

Test support only. The numbers and tables are parsed from the documents themselves, never
copied from the spec under test, so a wrong spec row makes a test fail.
"""

from __future__ import annotations

import re
from functools import cache

from tests.paths import shared_path

#: "transition 14", "transition **14**", "transitions **34** and **35**", "transitions 1, 2 or 3"
_MENTION = re.compile(
    r"\btransitions?\s+\**(\d+)\**((?:\s*(?:,|and|or)\s*\**\d+\**)*)", re.IGNORECASE
)


def shared_text(*parts: str) -> str:
    """A document under ../shared; skips the calling test (saying where) when absent."""
    return shared_path(*parts).read_text(encoding="utf-8")


@cache
def seed_text(name: str) -> str:
    return normalize(shared_text("seeds", name))


@cache
def reference_text() -> str:
    return shared_text("reference", "transitions.md")


def normalize(text: str) -> str:
    """Drop rST/markdown emphasis and literal markers, join 'condor_ x', collapse space."""
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"condor_ (\w)", r"condor_\1", text)
    return re.sub(r"\s+", " ", text)


def numbers_in(text: str) -> set[int]:
    """Every transition number a text mentions ("transition 8", "transitions 34 and 35")."""
    found: set[int] = set()
    for match in _MENTION.finditer(text):
        found.add(int(match.group(1)))
        found.update(int(n) for n in re.findall(r"\d+", match.group(2)))
    return found


def sentences_with(text: str, anchor: str) -> list[str]:
    """The sentences (of normalized text) that contain the normalized anchor."""
    anchor = normalize(anchor)
    out = []
    start = 0
    while (pos := text.find(anchor, start)) >= 0:
        begin = max(text.rfind(mark, 0, pos) for mark in (". ", "! ", "? ")) + 2
        end_match = re.compile(r"[.!?](\s|$)").search(text, pos + len(anchor))
        end = end_match.end() if end_match else len(text)
        out.append(text[max(begin, 0) : end])
        start = pos + 1
    return out


def reference_section(title_prefix: str) -> str:
    """Text of the reference section whose heading starts with `title_prefix` (e.g. '### 1.1')."""
    text = reference_text()
    start = text.index(title_prefix)
    following = re.compile(r"^#{2,3} ", re.MULTILINE).search(text, start + len(title_prefix))
    return text[start : following.start() if following else len(text)]


def table_rows(section: str) -> list[list[str]]:
    """Cells of every markdown table row of a section (header and rule lines dropped)."""
    rows = []
    for line in section.splitlines():
        if not line.startswith("|") or set(line) <= {"|", "-", " "}:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] not in ("#", "letter", "meaning"):
            rows.append(cells)
    return rows
