"""Golden state tables of the seeds' own policies (tests/compile/golden/README.md).

Each golden file was written by hand from the manual text. The compiled table must agree:
statuses exactly, guards by truth on sampled assignments (UNDEFINED and ERROR included),
both the expanded and the simplified form.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.classad import ast as A
from compiler.classad import parse
from compiler.config import load_config
from compiler.policy import _domains, compile_policy
from compiler.spec import load_spec
from compiler.table import CompiledGuard, Row, StateTable
from tests.compile.sampling import NOW, assignments, truth_mismatches

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden").glob("*.yaml"))
SAMPLES = 400


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def _substitute(text: str, let: dict[str, str]) -> str:
    for _ in range(10):
        new = re.sub(r"\{(\w+)\}", lambda m: f"({let[m.group(1)]})", text)
        if new == text:
            return new
        text = new
    raise AssertionError(f"let macros nest too deep: {text}")


def _table(golden: dict[str, Any]) -> StateTable:
    config = None
    if golden["config"]:
        config = load_config(HERE / "fixtures" / golden["config"], era=golden["era"])
    return compile_policy(config, golden["era"], golden["semantics"])


_CACHE: dict[str, StateTable] = {}


def _cached(path: Path) -> tuple[dict[str, Any], StateTable]:
    golden = _load(path)
    if path.name not in _CACHE:
        _CACHE[path.name] = _table(golden)
    return golden, _CACHE[path.name]


def _check_guard(
    table: StateTable, row: Row, compiled: CompiledGuard, hand_text: str, what: str
) -> None:
    golden_expr = parse(hand_text)
    expanded = parse(compiled.expanded)
    spec = load_spec(table.era, table.semantics)
    # CurrentTime is the clock, as time() is: both NOW (so `CurrentTime - JobStart > 90`
    # meets its boundary when JobStart is near NOW - 90).
    fixed = {"State": row.source[0], "Activity": row.source[1], "CurrentTime": NOW}
    cases = assignments(
        [golden_expr, expanded, compiled.expr], _domains(spec), fixed, count=SAMPLES
    )
    bad, bad_expanded = truth_mismatches(golden_expr, [compiled.expr, expanded], cases)
    assert bad is None, (f"{what}: simplified {compiled.simplified!r} != hand {hand_text!r}", bad)
    assert bad_expanded is None, (
        f"{what}: expanded {compiled.expanded!r} != hand {hand_text!r}",
        bad_expanded,
    )


def _policy_guards(row: Row) -> list[CompiledGuard]:
    """The compiled guards of the row's policy triggers, first of each expansion only."""
    seen: list[str] = []
    out = []
    for trigger, compiled in zip(row.transition.triggers, row.triggers, strict=True):
        if trigger.kind == "policy" and compiled is not None and compiled.expanded not in seen:
            seen.append(compiled.expanded)
            out.append(compiled)
    return out


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_statuses_and_guards(path: Path) -> None:
    golden, table = _cached(path)
    let = golden.get("let") or {}
    listed = {str(k): v for k, v in (golden.get("rows") or {}).items()}
    dead_by_events = set(golden.get("dead") or ())
    unreachable = set(golden.get("unreachable") or ())
    for row in table.rows:
        if row.id not in listed:
            assert row.guard is None, f"row {row.id} has a policy guard but no golden entry"
            out_of_reach = f"{row.source[0]}/{row.source[1]}" in unreachable
            want = "dead" if row.id in dead_by_events or out_of_reach else "live"
            assert row.status == want, f"row {row.id}: {row.status}"
            continue
        status, *hands = listed.pop(row.id)
        assert row.status == status, f"row {row.id}: status {row.status}, golden {status}"
        assert row.guard is not None, f"row {row.id} has no policy guard"
        texts = [_substitute(h, let) for h in hands]
        policy = _policy_guards(row)
        assert len(policy) == len(texts), f"row {row.id}: {len(policy)} policy triggers"
        for number, (compiled, text) in enumerate(zip(policy, texts, strict=True), 1):
            _check_guard(table, row, compiled, text, f"row {row.id} trigger {number}")
        either = " || ".join(f"(({t}) || false) =?= true" for t in texts)
        _check_guard(table, row, row.guard, either, f"row {row.id} combined")
    assert not listed, f"golden rows not in the table: {sorted(listed)}"


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_claim_guards_and_activity_choices(path: Path) -> None:
    golden, table = _cached(path)
    let = golden.get("let") or {}
    for key, hand in (golden.get("events") or {}).items():
        row = table.row(str(key))
        found = [
            g
            for t, g in zip(row.transition.triggers, row.triggers, strict=True)
            if t.kind == "protocol" and t.name == "claim" and g is not None
        ]
        assert found, f"row {key} has no guarded claim trigger"
        _check_guard(table, row, found[0], _substitute(hand, let), f"row {key} claim")
    for key, hand in (golden.get("choices") or {}).items():
        row = table.row(str(key))
        assert row.choices, f"row {key} has no activity choice"
        _check_guard(table, row, row.choices[0], _substitute(hand, let), f"row {key} choice")


def test_golden_files_cover_every_era() -> None:
    eras = {_load(p)["era"] for p in GOLDEN}
    assert eras == {"condor-6.4", "condor-6.8", "htcondor-current"}


def test_hand_guards_parse() -> None:
    for path in GOLDEN:
        golden = _load(path)
        let = golden.get("let") or {}
        for value in (golden.get("rows") or {}).values():
            for hand in value[1:]:
                assert isinstance(parse(_substitute(hand, let)), A.EXPR_TYPES)
