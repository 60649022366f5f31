"""Why an expression does not parse after macro expansion (stage: table -> error message).

Real configurations fail to parse mostly because a macro expanded to nothing:
`PREEMPT = $(ActivationTimer) > 48 * $(HOUR)` when the era has no ActivationTimer
default reads ` > 48 * 3600`. The expanded text alone does not say which macro it was,
nor where it is used, so `Config.expr` asks this module: it walks the macro references
of the failing value (and of the values they refer to) the way `expand` resolves them
and reports each reference that comes out empty, with where it is used (file:line:col,
found again in the source file) and why it is empty: not defined, defined empty, or
defined only after a line that HTCondor expands at once (a reference to the name being
assigned, `expand_self_macro` in src/condor_utils/config.cpp).

Only the error path runs this code; it never changes what a look-up returns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import msgspec

from compiler.config.expand import Context, MacroCycle, MacroProblem, expand, next_macro
from compiler.config.table import Definition, Origin, Table

#: How many values deep the walk follows references (real chains are short).
MAX_DEPTH = 12
#: How many physical lines after a definition's first line the use may be (continuations).
MAX_CONTINUATION = 200

#: What HTCondor's startd does with a policy expression it cannot parse
#: (src/condor_startd.V6/util.cpp, `configInsert`, called from ResMgr.cpp): it exits for
#: the names it reads with `is_fatal` and otherwise logs "Invalid expression" and leaves
#: the attribute out of the slot ad, so the policy is not the one written.
FATAL_IN_STARTD = frozenset({"MACHINEMAXVACATETIME"})


class EmptyMacro(msgspec.Struct, frozen=True):
    """One `$(NAME)` reference that expanded to nothing.

    `via` is the chain of references from the failing value down to this one (the
    failing name first); `used_by` names the definition holding the reference and
    `used_at` is `file:line:col` of the reference (or of the template use); `reason`
    says why NAME is empty.
    """

    name: str
    via: tuple[str, ...]
    used_by: str
    used_at: str
    reason: str

    def describe(self) -> str:
        chain = " -> ".join(f"$({n})" for n in (*self.via[1:], self.name))
        return (
            f"{chain} expands to nothing: {self.reason}; used by {self.used_by} at {self.used_at}"
        )


def empty_macros(table: Table, context: Context, name: str) -> tuple[EmptyMacro, ...]:
    """Every reference reachable from NAME's value that expands to nothing."""
    raw = table.raw(name)
    if not raw:
        return ()
    found: list[EmptyMacro] = []
    _walk(table, context, (name,), raw, table.winner(name), found, set())
    return tuple(found)


def startd_verdict(name: str) -> str:
    """What the real startd does with NAME when its expression does not parse."""
    if name.upper() in FATAL_IN_STARTD:
        return (
            "the real condor_startd would refuse this configuration too (it exits with "
            f"'Syntax error in {name} expression')"
        )
    return (
        f"the real condor_startd would refuse this {name} too (it logs "
        f"'Invalid expression {name}' and leaves {name} out of the slot ad)"
    )


def _walk(
    table: Table,
    context: Context,
    via: tuple[str, ...],
    raw: str,
    definition: Definition | None,
    found: list[EmptyMacro],
    seen: set[str],
) -> None:
    if definition is not None:
        for early in definition.early_empty:
            others = [
                d for d in table.definitions.get(early.upper(), []) if d is not definition and d.raw
            ]
            if others:
                later = others[-1]
                found.append(
                    EmptyMacro(
                        early,
                        via[:-1] if via[-1].upper() == early.upper() else via,
                        definition.name,
                        _use_site(definition.origin, early, table.texts),
                        f"{early} is defined too late, at {_describe(later.origin)}: "
                        "HTCondor expands a reference to the name being assigned when it "
                        "reads the line, and there it was not yet defined",
                    )
                )
    position = 0
    while True:
        macro = next_macro(raw, position)
        if macro is None:
            return
        position = macro.end
        if macro.kind != "NORMAL":
            continue
        ref, colon, default = macro.body.partition(":")
        if ref.upper() == "DOLLAR":
            continue
        value = table.raw(ref)
        text = default if colon and not value else (value or "")
        try:
            expanded = expand(text, table, context, (ref.upper(),))
        except (MacroCycle, MacroProblem):
            continue
        target = table.winner(ref)
        if expanded.strip():
            if value and ref.upper() not in seen and len(via) < MAX_DEPTH:
                seen.add(ref.upper())
                _walk(table, context, (*via, ref), value, target, found, seen)
            continue
        if text.strip() and len(via) < MAX_DEPTH and ref.upper() not in seen:
            # Not empty as written: the emptiness comes from deeper down.
            seen.add(ref.upper())
            owner = target if value else definition
            before = len(found)
            _walk(table, context, (*via, ref), text, owner, found, seen)
            if len(found) > before:
                continue
        where = _use_site(definition.origin, ref, table.texts) if definition else "<Default>"
        owner_name = definition.name if definition else via[-1]
        found.append(EmptyMacro(ref, via, owner_name, where, _reason(table, ref, value, target)))


def _reason(table: Table, ref: str, value: str | None, target: Definition | None) -> str:
    if target is not None and not value:
        return f"{ref} is defined empty at {_describe(target.origin)}"
    if value is None:
        era = table.defaults.era
        return f"{ref} is not defined (in no file, and era {era} has no default for it)"
    return f"{ref} expands to nothing"


def _describe(origin: Origin) -> str:
    text = f"{origin.file}:{origin.line}:{origin.column}" if origin.line else origin.file
    if origin.template:
        text += f" (use {origin.template})"
    return text


def _use_site(origin: Origin, ref: str, texts: Mapping[str, str]) -> str:
    """`file:line:col` of `$(ref` in the source (`texts`: those read without a file, by
    name), or the definition's own position."""
    if origin.template:
        inside = f", line {origin.template_line} of the template" if origin.template_line else ""
        return f"{_describe(origin)}{inside}"
    located = _locate(origin, ref, texts)
    if located is None:
        if not origin.line:
            return origin.file
        return f"{origin.file}:{origin.line}:{origin.value_column or origin.column}"
    line, column = located
    return f"{origin.file}:{line}:{column}"


def _locate(origin: Origin, ref: str, texts: Mapping[str, str]) -> tuple[int, int] | None:
    """Find `$(ref)` / `$(ref:` in the file (or the text read without one) from the
    definition's line on."""
    if not origin.line:
        return None
    if origin.file in texts:
        lines = texts[origin.file].split("\n")
    elif origin.file.startswith("<"):
        return None
    else:
        try:
            lines = Path(origin.file).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            return None
    pattern = re.compile(r"\$\(" + re.escape(ref) + r"[:)]", re.IGNORECASE)
    first = origin.line - 1
    for index in range(first, min(len(lines), first + MAX_CONTINUATION)):
        text = lines[index]
        start = (origin.value_column or origin.column) - 1 if index == first else 0
        match = pattern.search(text, max(0, start))
        if match is not None:
            return index + 1, match.start() + 1
        if not text.rstrip().endswith("\\"):
            return None
    return None
