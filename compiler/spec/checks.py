"""Whole-table checks of a resolved era and the derived evaluation order.

Stage: part of data -> IR. Each check looks at all rows at once (unique numbers, the
declared count, letters against rows, evaluation-order clashes, reachability) and reports
through a callback with the file and key path of the offending row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from compiler.spec import ir
from compiler.spec.ir import Pair

#: report(file, key path, problem)
Report = Callable[[str, str, str], None]
#: where each row came from: (file, key path), parallel to the rows
Origins = Sequence[tuple[str, str]]


def check_numbers(rows: Sequence[ir.Transition], origins: Origins, expected: int,
                  era_file: str, report: Report) -> None:  # fmt: skip
    """Row ids are unique and the numbered rows are exactly 1..expected."""
    seen: set[str] = set()
    for row, (file, path) in zip(rows, origins, strict=True):
        if row.id in seen:
            what = "number" if row.numbered else "unnumbered row from"
            report(file, f"{path}.number", f"duplicate {what} {row.id}")
        seen.add(row.id)
    numbers = {r.number for r in rows if isinstance(r.number, int)}
    wanted = set(range(1, expected + 1))
    if numbers != wanted:
        report(era_file, "transitions", f"numbered rows must be exactly 1..{expected} "
               f"(missing {sorted(wanted - numbers)}, unexpected {sorted(numbers - wanted)})")  # fmt: skip


def check_letters(rows: Sequence[ir.Transition], origins: Origins, letters: Iterable[ir.Letter],
                  era_file: str, report: Report) -> None:  # fmt: skip
    """A row's letter joins the same two states; a letter's numbers carry that letter."""
    by_letter = {x.letter: x for x in letters}
    for row, (file, path) in zip(rows, origins, strict=True):
        letter = by_letter.get(row.letter or "")
        if letter and (letter.source, letter.target) != (row.source.state, row.target.state):
            report(file, f"{path}.letter", f"letter {letter.letter} is {letter.source} -> "
                   f"{letter.target}, the row goes {row.source.state} -> {row.target.state}")  # fmt: skip
    by_number = {r.number: r for r in rows if r.numbered}
    for letter in by_letter.values():
        for n in letter.numbers:
            numbered = by_number.get(n)
            if numbered is None or numbered.letter != letter.letter:
                report(era_file, f"letters.{letter.letter}.numbers",
                       f"transition {n} is not a row with letter {letter.letter}")  # fmt: skip


def check_orders(rows: Sequence[ir.Transition], origins: Origins, report: Report) -> None:
    """Two rows leaving the same pair may not share a policy (or immediate) order."""
    taken: dict[tuple[Pair, str, int], str] = {}
    for row, (file, path) in zip(rows, origins, strict=True):
        for i, trigger in enumerate(row.triggers):
            if trigger.kind not in ir.POLICY_KINDS or trigger.order is None:
                continue
            key = (row.source, trigger.kind, trigger.order)
            other = taken.setdefault(key, row.id)
            if other != row.id:
                report(file, f"{path}.triggers[{i}].order", f"order {trigger.order} of "
                       f"{row.source} is already used by transition {other}")  # fmt: skip


def eval_steps(
    rows: Iterable[ir.Transition], where: str | Pair, kind: str
) -> tuple[ir.EvalStep, ...]:
    """The `kind` steps of a state (str) or a pair (Pair), sorted by order."""
    found = [
        ir.EvalStep(t.order, r.source, r.id, i, t.guard, t.against)
        for r in rows for i, t in enumerate(r.triggers)
        if t.kind == kind and t.order is not None
        and (r.source == where if isinstance(where, Pair) else r.source.state == where)
    ]  # fmt: skip
    return tuple(sorted(found, key=lambda s: (s.order, str(s.source), s.transition, s.trigger)))


def reachable(initial: Pair, rows: Iterable[ir.Transition]) -> set[Pair]:
    """Every pair some path of rows reaches from `initial` (including it)."""
    rows = tuple(rows)
    reached = {initial}
    frontier = [initial]
    while frontier:
        pair = frontier.pop()
        for row in rows:
            if row.source == pair:
                fresh = [t for t in row.targets if t not in reached]
                reached.update(fresh)
                frontier.extend(fresh)
    return reached


def check_reachable(initial: Pair, rows: Iterable[ir.Transition], pairs: Iterable[Pair],
                    semantics: str, era_file: str, report: Report) -> None:  # fmt: skip
    reached = reachable(initial, rows)
    for pair in pairs:
        if pair not in reached:
            report(era_file, f"pairs.{pair}", f"unreachable pair '{pair}' (no transition path "
                   f"from {initial} reaches it under semantics '{semantics}')")  # fmt: skip
