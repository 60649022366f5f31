"""The loaded eras agree with the reference's tables and are well-formed state machines.

Endpoints and letters are parsed from shared/reference/transitions.md (sections 1 and 2);
reachability, evaluation order and guard names are checked with code written here, not
with the loader's own checks.
"""

from __future__ import annotations

import re

import pytest

from compiler.spec import ERAS, SEMANTICS, EraSpec, Pair, load_spec, spec_differences
from tests.spec.sources import reference_section, table_rows

SPECS = [(era, sem) for era in ERAS for sem in SEMANTICS]
TABLE_OF = {"condor-6.4": "### 1.1", "condor-6.8": "### 1.2", "htcondor-current": "### 1.3"}
COUNTS = {"condor-6.4": 20, "condor-6.8": 32, "htcondor-current": 37}


def spec_of(era: str, semantics: str) -> EraSpec:
    return load_spec(era, semantics)


def endpoint(cell: str) -> str:
    """'Unclaimed/Idle (code: also Benchmarking)' -> 'Unclaimed/Idle'; 'X/Vacating or Killing' -> 'X/*'."""
    cell = re.sub(r"\s*\(.*\)$", "", cell.strip())
    return re.sub(r"/(Vacating or Killing|\*)$", "/*", cell)


def reference_endpoints(era: str) -> dict[int, tuple[str, str]]:
    rows = {int(r[0]): (endpoint(r[1]), endpoint(r[2]))
            for r in table_rows(reference_section(TABLE_OF[era])) if r[0].isdigit()}  # fmt: skip
    if era == "htcondor-current":  # "26–32 | Backfill | … | identical to 6.8"
        for n, ends in reference_endpoints("condor-6.8").items():
            rows.setdefault(n, ends)
    return rows


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_numbered_count(era: str, semantics: str) -> None:
    spec = spec_of(era, semantics)
    assert [r.number for r in spec.numbered()] == sorted(r.number for r in spec.numbered())
    assert {r.number for r in spec.numbered()} == set(range(1, COUNTS[era] + 1))
    assert spec.numbered_count == COUNTS[era]


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_endpoints_match_the_reference_tables(era: str, semantics: str) -> None:
    expected = reference_endpoints(era)
    assert sorted(expected) == list(range(1, COUNTS[era] + 1))
    got = {r.number: (str(r.source), str(r.target)) for r in spec_of(era, semantics).numbered()}
    assert got == expected


def reference_letters() -> dict[str, tuple[str, str, set[int]]]:
    out = {}
    for cells in table_rows(reference_section("## 2.")):
        source, target = (s.strip() for s in cells[1].split("→"))
        numbers = {int(n) for n in re.findall(r"\d+", re.sub(r"\([^)]*\)", "", cells[3]))}
        out[cells[0]] = (source, target, numbers)
    return out


@pytest.mark.parametrize(("era", "letters"), [("condor-6.4", ""), ("condor-6.8", "ABCDEFGHIJKLM"),
                                              ("htcondor-current", "ABCDEFGHIJKLMNOP")])  # fmt: skip
def test_letters_match_reference_section_2(era: str, letters: str) -> None:
    reference = reference_letters()
    assert len(reference) == 16
    for semantics in SEMANTICS:
        spec = spec_of(era, semantics)
        assert "".join(x.letter for x in spec.letters) == letters
        for entry in spec.letters:
            assert (entry.source, entry.target, set(entry.numbers)) == reference[entry.letter]
            rows = {r.number for r in spec.numbered() if r.letter == entry.letter}
            assert rows == set(entry.numbers)


def test_activity_only_transitions_have_no_letter() -> None:
    text = reference_section("## 2.")
    line = next(ln for ln in text.splitlines() if ln.startswith("Activity-only transitions"))
    plain = {int(n) for n in re.findall(r"\d+", line)}
    for era in ("condor-6.8", "htcondor-current"):
        spec = load_spec(era)
        wanted = {n for n in plain if n <= spec.numbered_count}
        assert {r.number for r in spec.numbered() if r.letter is None} == wanted


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_every_pair_is_reachable_and_no_public_pair_is_a_trap(era: str, semantics: str) -> None:
    spec = spec_of(era, semantics)
    seen, todo = {spec.initial}, [spec.initial]
    while todo:
        here = todo.pop()
        for row in spec.transitions:
            if row.source != here:
                continue
            states = [row.target] if not row.target.is_wildcard else [
                Pair(row.target.state, c.activity) for c in row.activity_choice]  # fmt: skip
            for target in states:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
    assert seen == {p.pair for p in spec.pairs}
    for pair in spec.pairs:
        internal = spec.state(pair.pair.state).internal
        assert internal or spec.transitions_from(pair.pair), f"{pair.pair} has no way out"


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_evaluation_order_lists_each_policy_trigger_once(era: str, semantics: str) -> None:
    spec = spec_of(era, semantics)
    steps = [(s.transition, s.trigger) for st in spec.states for s in st.evaluation_order]
    wanted = [
        (r.id, i) for r in spec.transitions for i, t in enumerate(r.triggers) if t.kind == "policy"
    ]
    assert sorted(steps) == sorted(wanted)
    for state in spec.states:
        orders = [(str(s.source), s.order) for s in state.evaluation_order]
        assert len(orders) == len(set(orders)), f"{state.name}: two steps share an order"
        assert [s.order for s in state.evaluation_order] == sorted(
            s.order for s in state.evaluation_order
        )


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_every_guard_name_is_classified(era: str, semantics: str) -> None:
    from compiler.spec import guard_names

    spec = spec_of(era, semantics)
    guards = [t.guard for r in spec.transitions for t in r.triggers]
    guards += [c.guard for r in spec.transitions for c in r.activity_choice]
    names = {n for g in guards for n in guard_names(g)}
    assert names
    assert {n for n in names if spec.name_kind(n) is None} == set()
    assert spec.name_kind("start") == "policy" and spec.name_kind("IsOwner") == "policy"


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_guards_parse_as_classad(era: str, semantics: str) -> None:
    classad = pytest.importorskip("compiler.classad")
    parse = getattr(classad, "parse", None)
    if parse is None:  # the parser lands in parallel; this test runs as soon as it exists
        pytest.skip("compiler.classad.parse not available yet")
    spec = spec_of(era, semantics)
    guards = {t.guard for r in spec.transitions for t in r.triggers if t.guard}
    guards |= {c.guard for r in spec.transitions for c in r.activity_choice}
    for guard in sorted(guards):
        parse(guard)
    assert len(guards) > 10


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_wildcard_targets_always_choose_an_activity(era: str, semantics: str) -> None:
    rows = [r for r in spec_of(era, semantics).transitions if r.target.is_wildcard]
    assert rows
    for row in rows:
        assert row.target.state == "Preempting"
        assert row.activity_choice[-1].guard == "true"
        assert {p.activity for p in row.targets} == {"Vacating", "Killing"}


@pytest.mark.parametrize(("era", "semantics"), SPECS)
def test_requirements_false_in_matched_and_preempting(era: str, semantics: str) -> None:
    spec = spec_of(era, semantics)
    false_in = {s for rule in spec.publish if rule.attribute == "Requirements"
                and rule.value == "false" for s in rule.states}  # fmt: skip
    assert {"Matched", "Preempting"} <= false_in
    assert ("Drained" in false_in) == (era == "htcondor-current")
    assert not false_in & {"Owner", "Unclaimed", "Claimed"}


def test_timer_defaults_follow_the_reference_section_4() -> None:
    assert load_spec("condor-6.4", "manual").timer("MATCH_TIMEOUT").default == 300
    assert load_spec("condor-6.4", "code").timer("MATCH_TIMEOUT").default == 120
    for era in ERAS:
        for semantics in SEMANTICS:
            spec = load_spec(era, semantics)
            assert spec.timer("KILLING_TIMEOUT").default == 30
            assert (spec.polling.fast_interval, spec.polling.slow_interval) == (5, 300)
    current = load_spec("htcondor-current", "code")
    assert current.timer("MATCH_TIMEOUT").default == 120
    assert current.timer("MachineMaxVacateTime").default == 600
    assert current.timer("CLAIM_WORKLIFE").default == 1200
    assert load_spec("condor-6.8").timer("CLAIM_WORKLIFE").default is None


def test_vanilla_variants_and_policy_defaults() -> None:
    for era in ("condor-6.4", "condor-6.8"):
        spec = load_spec(era)
        for name in ("WANT_SUSPEND", "WANT_VACATE", "SUSPEND", "CONTINUE", "PREEMPT", "KILL"):
            assert spec.policy(name).variants == ("_VANILLA",)
        assert spec.policy("IsOwner").default == "(START =?= False)"
    assert load_spec("htcondor-current", "code").policy("PREEMPT").variants == ("_VANILLA", "_VM")
    assert load_spec("htcondor-current", "code").policy("IS_OWNER").default == "False"
    assert load_spec("htcondor-current", "code").policy("WANT_VACATE").default == "True"
    assert load_spec("htcondor-current", "manual").policy("WANT_VACATE").default == "False"


def test_semantics_change_the_documented_places() -> None:
    """Each D-number named in the spec exists in reference 3.6; key ones are found."""
    section = reference_section("### 3.6")
    known = set(re.findall(r"\*\*(D\d+) ", section))
    found = {era: {d.d_number for d in spec_differences(era)} for era in ERAS}
    for era, numbers in found.items():
        assert numbers - {None} <= known, era
        assert {"D1", "D5", "D20"} <= numbers, era
    assert {"D2", "D14"} <= found["condor-6.4"]
    assert {"D3", "D7", "D16", "D18", "D22"} <= found["htcondor-current"]
    matched = load_spec("htcondor-current", "code").transition(8)
    assert "START =?= false" not in matched.guard  # D1: the code ignores START in Matched
    assert "START =?= false" in load_spec("htcondor-current", "manual").transition(8).guard


def test_renumbering_of_killing_exits() -> None:
    """6.4 #19/#20 became 6.8 #25/#24 (reference 1.4): check by endpoints, not by number."""
    old, new = load_spec("condor-6.4"), load_spec("condor-6.8")
    assert (str(old.transition(19).source), str(old.transition(19).target)) == (
        "Preempting/Killing",
        "Owner/Idle",
    )
    assert (str(new.transition(25).source), str(new.transition(25).target)) == (
        "Preempting/Killing",
        "Owner/Idle",
    )
    assert str(new.transition(24).target) == "Claimed/Idle"
