"""Every spec row is anchored in its manual: the seed-number test and the anchor test.

For each era, the set of transition numbers the seed text mentions must equal the set of
numbered rows the spec cites from the seed; rows the seed lost (condor-6.4's 11-15) must be
marked `recovered` and anchored in the reference's recovered table row of that number.
"""

from __future__ import annotations

import re

import pytest

from compiler.spec import ERAS, SEMANTICS, Transition, load_spec
from tests.spec.sources import (
    normalize,
    numbers_in,
    reference_section,
    reference_text,
    seed_text,
    sentences_with,
)

TABLE_OF = {"condor-6.4": "### 1.1", "condor-6.8": "### 1.2", "htcondor-current": "### 1.3"}


def all_rows(era: str) -> list[Transition]:
    """Rows of both semantics (a row appears once, by id)."""
    rows: dict[str, Transition] = {}
    for semantics in SEMANTICS:
        for row in load_spec(era, semantics).transitions:
            rows.setdefault(row.id, row)
    return list(rows.values())


@pytest.mark.parametrize("era", ERAS)
def test_seed_mentions_exactly_the_numbers_cited_from_it(era: str) -> None:
    spec = load_spec(era)
    mentioned = numbers_in(seed_text(spec.seed))
    cited = {r.number for r in all_rows(era) if r.numbered and not r.citation.recovered}
    recovered = {r.number for r in all_rows(era) if r.numbered and r.citation.recovered}
    assert cited == mentioned
    assert cited | recovered == set(range(1, spec.numbered_count + 1))
    assert not cited & recovered


def numbered_rows() -> list[tuple[str, Transition]]:
    return [(era, r) for era in ERAS for r in load_spec(era).numbered()]


@pytest.mark.parametrize(("era", "row"), numbered_rows(), ids=lambda x: getattr(x, "id", x))
def test_anchor_sits_in_a_sentence_naming_the_number(era: str, row: Transition) -> None:
    cite = row.citation
    if cite.recovered:
        table = reference_section(TABLE_OF[era])
        lines = [ln for ln in table.splitlines() if ln.startswith(f"| {row.number} |")]
        assert lines, f"reference table has no row {row.number}"
        assert normalize(cite.anchor) in normalize(lines[0])
        return
    assert cite.seed == load_spec(era).seed
    sentences = sentences_with(seed_text(cite.seed), cite.anchor)
    assert sentences, f"anchor {cite.anchor!r} not in {cite.seed}"
    assert any(row.number in numbers_in(s) for s in sentences), sentences


def other_citations() -> list[tuple[str, str, object]]:
    out = []
    for era in ERAS:
        for semantics in SEMANTICS:
            spec = load_spec(era, semantics)
            out += [(era, f"row {r.id}", r.citation) for r in spec.transitions if not r.numbered]
            out += [(era, f"timer {t.name}", t.citation) for t in spec.timers if t.citation]
            out += [(era, f"letter {x.letter}", x.citation) for x in spec.letters]
            out += [(era, f"event {e.name}", e.citation) for e in spec.events if e.citation]
            helpers = spec.helpers
            out += [(era, f"helper {type(h).__name__}", h.citation)
                    for h in (helpers.retirement, helpers.vacate, helpers.cpu_busy)]  # fmt: skip
    return out


@pytest.mark.parametrize(("era", "what", "cite"), other_citations(), ids=lambda x: str(x)[:40])
def test_other_anchors_occur_where_cited(era: str, what: str, cite) -> None:
    if cite.seed is not None and not cite.recovered:
        assert normalize(cite.anchor) in seed_text(cite.seed), what
    else:
        assert cite.reference, what
        assert normalize(cite.anchor) in normalize(reference_text()), what


def test_every_event_with_effects_and_every_helper_names_startd_functions() -> None:
    spec = load_spec("htcondor-current", "code")
    assert all(e.citation is not None for e in spec.events if e.effects)
    assert "Resource::evalRetirementRemaining" in spec.helpers.retirement.citation.functions
    assert "Resource::evalMaxVacateTime" in spec.helpers.vacate.citation.functions
    for fn in ("Resource::evalRetirementRemaining", "Resource::evalMaxVacateTime"):
        assert fn.split("::")[1] in reference_text()


@pytest.mark.parametrize("era", ["condor-6.8", "htcondor-current"])
def test_cited_sections_are_headings_of_the_seed(era: str) -> None:
    spec = load_spec(era, "code")
    text = seed_text(spec.seed)
    sections = {r.citation.section for r in spec.transitions if r.citation.seed}
    missing = [s for s in sections if s not in text]
    assert not missing


def test_number_parser_reads_lists_and_bold_and_ignores_figures() -> None:
    text = "See Figure 3.3. It moves (transition **14**); transitions **34** and **35** too, via **A**."
    assert numbers_in(text) == {14, 34, 35}
    assert numbers_in("transitions 1, 2 or 3 and figure 7") == {1, 2, 3}


def test_recovered_rows_are_only_the_ones_the_seed_lost() -> None:
    recovered = [r.number for r in load_spec("condor-6.4").numbered() if r.citation.recovered]
    lost = re.search(r"transitions 11–15", reference_text())
    assert lost is not None
    assert recovered == [11, 12, 13, 14, 15]
