"""Semantic diff of two compiled policies (issue 16 part 2), transition by transition.

For every row (same transition id in both tables) the two policy guards are compared by
MEANING, not text: the startd's boolean test (`compiler.table.holds`: TRUE or a non-zero
number) of each guard is written as a two-valued ClassAd expression
`((G) ? true : false) =?= true`, and the question "can they disagree?" is the
satisfiability of `H(old) =!= H(new)` in the row's source pair
(`compiler.analysis.Analysis.sat`, whose "unsat" is a proof by the region oracle's
region partition of compiler.simplify.regions, and whose "sat" comes with a witness
that the real evaluator confirms). A witness is checked again here against both
compiled predicates before it is reported, so a reported disagreement is always real.

Verdicts per row: "same" (no policy guard on either side, or the same guard text),
"equivalent" (texts differ, proof named), "differ" (witness), "unknown" (neither proof
nor witness found; counted as a difference for the exit status, never as equivalent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from compiler import holds
from compiler.classad import ERROR, UNDEFINED, compile_expr, format_value, parse

if TYPE_CHECKING:
    from compiler import CompiledGuard, Row, StateTable
    from compiler.analysis import Witness

Verdict = Literal["same", "equivalent", "differ", "unknown"]

#: How "equivalent" is proven (named in every report).
PROOF_METHOD = "region partition"


@dataclass(frozen=True, slots=True)
class RowDiff:
    """One transition's comparison."""

    id: str
    label: str
    source: tuple[str, str]
    target: tuple[str, str]
    old: str
    new: str
    old_status: str | None
    new_status: str | None
    verdict: Verdict
    proof: str = ""
    witness: Witness | None = None
    old_holds: bool | None = None
    new_holds: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "transition": self.label,
            "source": "/".join(self.source),
            "target": "/".join(self.target),
            "old": self.old,
            "new": self.new,
            "old_status": self.old_status,
            "new_status": self.new_status,
            "verdict": self.verdict,
        }
        if self.proof:
            out["proof"] = self.proof
        if self.witness is not None:
            my, target = self.witness.as_dicts()
            out["witness"] = {
                "machine": {k: _json_value(v) for k, v in my.items()},
                "job": {k: _json_value(v) for k, v in target.items()},
                "now": self.witness.now,
                "old_fires": self.old_holds,
                "new_fires": self.new_holds,
            }
        return out


@dataclass(frozen=True, slots=True)
class PolicyDiff:
    """Every row's comparison; `equivalent` when none differs or is undecided."""

    era: str
    semantics: str
    rows: tuple[RowDiff, ...] = field(default=())

    @property
    def changed(self) -> tuple[RowDiff, ...]:
        return tuple(r for r in self.rows if r.verdict in ("differ", "unknown"))

    @property
    def equivalent(self) -> bool:
        return not self.changed


def _json_value(v: Any) -> Any:
    if v is UNDEFINED:
        return "UNDEFINED"
    if v is ERROR:
        return "ERROR"
    if isinstance(v, bool | int | float | str) or v is None:
        return v
    return format_value(v)


def _label(row: Row) -> str:
    return f"{row.number}{row.letter or ''}"


def holds_expr(text: str) -> str:
    """The startd's boolean test of guard `text` as a two-valued ClassAd expression."""
    return f"((({text}) ? true : false) =?= true)"


def _guard_text(guard: CompiledGuard | None) -> str:
    """A missing policy guard is a transition the policy never takes: FALSE."""
    return guard.simplified if guard is not None else "false"


def diff_tables(old: StateTable, new: StateTable) -> PolicyDiff:
    """Compare `old` and `new` (same era and semantics) transition by transition."""
    from compiler.analysis import Analysis
    from compiler.errors import PolicyError

    if (old.era, old.semantics) != (new.era, new.semantics):
        raise PolicyError(
            f"cannot compare a {old.era}/{old.semantics} table with a "
            f"{new.era}/{new.semantics} one",
            file="diff",
        )
    an = Analysis(old)
    new_rows = {r.id: r for r in new.rows}
    out = []
    for row in old.rows:
        other = new_rows[row.id]
        out.append(_compare(an, row, other))
        out.extend(_compare_choices(an, row, other))
    return PolicyDiff(old.era, old.semantics, tuple(out))


def _compare_choices(an: Any, row: Row, other: Row) -> list[RowDiff]:
    """A transition into `State/*` enters the activity of its first choice whose guard
    holds (WANT_VACATE: Vacating, else Killing): the same comparison as for guards, on
    "choice i is the one taken" (its guard holds and no earlier one does), one entry per
    choice, `<row id>:choice<i>` (i from 1), target its activity. A choice whose own guard is
    unchanged is "same": where it is taken differently, an earlier choice changed and
    that one is reported."""
    choices = row.transition.activity_choice
    if not choices or len(row.choices) != len(choices) or len(other.choices) != len(choices):
        return []
    out = []
    for i, choice in enumerate(choices):
        ta, tb = _taken(row.choices, i), _taken(other.choices, i)
        base: dict[str, Any] = {
            "id": f"{row.id}:choice{i + 1}",
            "label": f"{_label(row)}:{i + 1}",
            "source": row.source,
            "target": (row.target[0], choice.activity),
            "old": row.choices[i].simplified,
            "new": other.choices[i].simplified,
            "old_status": row.choices[i].status,
            "new_status": other.choices[i].status,
        }
        if row.choices[i].simplified == other.choices[i].simplified:
            # taken differently only because an earlier choice changed: reported there
            out.append(RowDiff(**base, verdict="same"))
            continue
        out.append(_compare_texts(an, row.source, base, ta, tb))
    return out


def _taken(guards: tuple[CompiledGuard, ...], i: int) -> str:
    """ "choice i is taken" as a two-valued expression over the choices' simplified texts."""
    parts = [holds_expr(guards[i].simplified)]
    parts += [f"!{holds_expr(g.simplified)}" for g in guards[:i]]
    return " && ".join(parts)


def _compare_texts(
    an: Any, source: tuple[str, str], base: dict[str, Any], ta: str, tb: str
) -> RowDiff:
    """`_compare` for two boolean texts (an activity choice taken or not)."""
    if ta == tb:
        return RowDiff(**base, verdict="same")
    disagree = parse(f"{holds_expr(ta)} =!= {holds_expr(tb)}")
    found = an.sat(disagree, an.assume(source))
    if found.verdict == "unsat":
        proof = PROOF_METHOD if found.exact else found.proof
        return RowDiff(**base, verdict="equivalent", proof=f"never disagree: {proof}")
    if found.verdict != "sat" and _regions_equivalent(an, ta, tb, source):
        return RowDiff(**base, verdict="equivalent", proof=f"never disagree: {PROOF_METHOD}")
    if found.verdict == "sat" and found.witness is not None:
        my, target = found.witness.as_dicts()
        my = {**my, **an.assume(source)}
        now = found.witness.now
        fa = holds(compile_expr(parse(ta))(my, target or None, now=now))
        fb = holds(compile_expr(parse(tb))(my, target or None, now=now))
        if fa != fb:
            return RowDiff(
                **base, verdict="differ", witness=found.witness, old_holds=fa, new_holds=fb
            )
    return RowDiff(**base, verdict="unknown", proof=found.proof or "no witness confirmed")


def _compare(an: Any, row: Row, other: Row) -> RowDiff:
    a, b = row.guard, other.guard
    base: dict[str, Any] = {
        "id": row.id,
        "label": _label(row),
        "source": row.source,
        "target": row.target,
        "old": a.simplified if a else "",
        "new": b.simplified if b else "",
        "old_status": a.status if a else None,
        "new_status": b.status if b else None,
    }
    if a is None and b is None:
        return RowDiff(**base, verdict="same")
    ta, tb = _guard_text(a), _guard_text(b)
    if ta == tb and (a is None) == (b is None):
        return RowDiff(**base, verdict="same")
    disagree = parse(f"{holds_expr(ta)} =!= {holds_expr(tb)}")
    found = an.sat(disagree, an.assume(row.source))
    if found.verdict == "unsat":
        proof = PROOF_METHOD if found.exact else found.proof
        return RowDiff(**base, verdict="equivalent", proof=f"never disagree: {proof}")
    if found.verdict != "sat" and _regions_equivalent(an, ta, tb, row.source):
        return RowDiff(**base, verdict="equivalent", proof=f"never disagree: {PROOF_METHOD}")
    if found.verdict == "sat" and found.witness is not None:
        my, target = found.witness.as_dicts()
        my = {**my, **an.assume(row.source)}
        fa = _fires(a, my, target, found.witness.now)
        fb = _fires(b, my, target, found.witness.now)
        if fa != fb:
            return RowDiff(
                **base, verdict="differ", witness=found.witness, old_holds=fa, new_holds=fb
            )
    return RowDiff(**base, verdict="unknown", proof=found.proof or "no witness confirmed")


def _regions_equivalent(an: Any, ta: str, tb: str, source: tuple[str, str]) -> bool:
    """The region oracle directly on the two boolean tests (it answers True only with a
    proof over every region; False is "unknown or different")."""
    same: bool = an.same_truth(parse(holds_expr(ta)), parse(holds_expr(tb)), an.assume(source))
    return same


def _fires(
    guard: CompiledGuard | None, my: dict[str, Any], target: dict[str, Any], now: int
) -> bool:
    if guard is None:
        return False
    return guard.test(my, target or None, now=now)
