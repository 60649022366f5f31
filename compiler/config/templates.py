"""Configuration templates, `use CATEGORY : Name(args)` (stage: statement -> config text).

A template ("metaknob") is configuration text stored under a category; `use` inserts it
at the `use` line, after substituting its arguments: `$(1)` .. `$(9)` (the Nth
comma-separated argument, trimmed), `$(N:default)`, `$(N?)` (1 when the argument is
non-empty, else 0), `$(N+)` (arguments N and after, commas kept), `$(0)` (all
arguments) and `$(0#)` (how many). The bodies are data in
spec/config/templates/metaknobs.yaml; names and categories are case-insensitive.
"""

from __future__ import annotations

import re
from functools import cache
from types import MappingProxyType
from typing import Any

import msgspec

from compiler import yamlcache
from compiler.errors import close_matches
from spec import data_path


class Template(msgspec.Struct, frozen=True):
    """One template: its category and name as HTCondor spells them, and its body."""

    category: str
    name: str
    body: str
    summary: str = ""


class TemplateUse(msgspec.Struct, frozen=True):
    """One `Name(args)` item of a `use` line; `args` is None without parentheses."""

    name: str
    args: str | None


@cache
def all_templates() -> MappingProxyType[str, MappingProxyType[str, Template]]:
    """Category (upper) -> template name (upper) -> Template."""
    source = data_path("config", "templates", "metaknobs.yaml")
    document: dict[str, Any] = yamlcache.load(source.read_text(encoding="utf-8"), source)
    table: dict[str, MappingProxyType[str, Template]] = {}
    for category, entries in document["templates"].items():
        table[category.upper()] = MappingProxyType(
            {
                name.upper(): Template(category, name, entry["body"], entry.get("summary", ""))
                for name, entry in entries.items()
            }
        )
    return MappingProxyType(table)


def find_template(category: str, name: str) -> Template | None:
    """The template, or None (case-insensitive; a leading `@` is ignored)."""
    entries = all_templates().get(category.lstrip("@").upper())
    if entries is None:
        return None
    return entries.get(name.upper())


def suggest(category: str, name: str) -> str:
    """A 'did you mean' hint for an unknown category or template ('' when none)."""
    table = all_templates()
    entries = table.get(category.lstrip("@").upper())
    if entries is None:
        close = close_matches(category.upper(), list(table), n=1)
        return f" (did you mean {close[0]}?)" if close else f" (known: {', '.join(sorted(table))})"
    by_upper = {key: template.name for key, template in entries.items()}
    close = close_matches(name.upper(), list(by_upper), n=3, cutoff=0.6)
    if close:
        return " (did you mean " + " or ".join(by_upper[c] for c in close) + "?)"
    return ""


def find_close(text: str, open_pos: int) -> int:
    """Index of the `)` matching the `(` at open_pos (nested () and [] allowed), or -1."""
    depth = 0
    for pos in range(open_pos, len(text)):
        char = text[pos]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return pos if char == ")" else -1
    return -1


def split_uses(text: str) -> list[TemplateUse]:
    """`Desktop, Limit_Job_Runtimes(3600)` -> the template items in order."""
    items: list[TemplateUse] = []
    pos = 0
    while pos < len(text):
        while pos < len(text) and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        start = pos
        while pos < len(text) and not text[pos].isspace() and text[pos] not in ",(":
            pos += 1
        if pos == start:
            break
        name = text[start:pos]
        while pos < len(text) and text[pos].isspace():
            pos += 1
        args: str | None = None
        if pos < len(text) and text[pos] == "(":
            close = find_close(text, pos)
            if close >= 0:
                args = text[pos + 1 : close]
                pos = close + 1
            else:
                pos += 1
        items.append(TemplateUse(name, args))
    return items


_META_ARG = re.compile(r"\$\((\d)([?#+]?)(?::([^()]*(?:\([^()]*\)[^()]*)*))?\)")


def expand_arguments(body: str, args: str | None) -> str:
    """Substitute the template arguments `$(N)`, `$(N?)`, `$(N+)`, `$(0#)` ... in `body`."""
    values = [] if not args else [part.strip() for part in args.split(",")]
    if args is not None and args.strip() == "":
        values = []
    whole = (args or "").strip()

    def replace(match: re.Match[str]) -> str:
        index = int(match.group(1))
        suffix = match.group(2)
        default = match.group(3)
        if index == 0:
            text = str(len(values)) if suffix in ("#", "+") else whole
        elif suffix in ("#", "+"):
            pieces = (args or "").split(",")
            text = ",".join(pieces[index - 1 :]).strip() if len(pieces) >= index else ""
            if not text and default is not None:
                text = default
        else:
            text = values[index - 1] if index <= len(values) else ""
            if index > len(values) and default is not None:
                text = default
        if suffix == "?":
            return "1" if text.strip() else "0"
        return text.strip()

    result = body
    for _ in range(10):  # arguments may contain $(N) again; HTCondor loops until none
        expanded = _META_ARG.sub(replace, result)
        if expanded == result:
            break
        result = expanded
    return result
