"""Synthetic startd logs written the way `ResState::change` writes them
(src/condor_startd.V6/ResState.cpp): the full form when state and activity both change,
`Changing state:` when only the state does, `Changing activity:` when only the activity
does; nothing at all when neither changes (the function returns first)."""

from __future__ import annotations

from collections.abc import Iterable

BANNER = (
    "11/23/26 09:59:59 ******************************************************\n"
    "11/23/26 09:59:59 ** condor_startd (CONDOR_STARTD) STARTING UP\n"
)


def message(source: tuple[str, str], target: tuple[str, str]) -> str | None:
    (fs, fa), (ts, ta) = source, target
    if fs != ts and fa != ta:
        return f"Changing state and activity: {fs}/{fa} -> {ts}/{ta}"
    if fs != ts:
        return f"Changing state: {fs} -> {ts}"
    if fa != ta:
        return f"Changing activity: {fa} -> {ta}"
    return None


def log_lines(
    moves: Iterable[tuple[tuple[str, str], tuple[str, str]]], *, slot: str | None = "slot1"
) -> list[str]:
    """One line per move that changes something, with a default-format header."""
    lines = []
    prefix = f"{slot}: " if slot else ""
    for index, (source, target) in enumerate(moves):
        text = message(source, target)
        if text is not None:
            lines.append(f"11/23/26 10:{index // 60 % 60:02d}:{index % 60:02d} {prefix}{text}")
    return lines
