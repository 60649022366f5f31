"""The Mermaid renderer (`-o FILE.mmd`) reads the same model: same numbers, same arrows."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from compiler.diagram import extract, render
from compiler.spec import ERAS, load_spec
from tests.diagram.helpers import ENDPOINTS, fake_table

EDGE = re.compile(r"^\s+(\w+) (-->|-\.->|==>)(?:\|([^|]*)\|)? (\w+)$")


def _mid(pair: str) -> str:
    state, activity = pair.split("/")
    return f"state_{state}" if activity == "*" else f"pair_{state}_{activity}"


def _edges(text: str) -> list[tuple[str, str, str, str]]:
    return [m.groups("") for line in text.splitlines() if (m := EDGE.match(line))]  # type: ignore[misc]


@pytest.mark.parametrize("era", ERAS)
def test_every_number_once_with_the_reference_endpoints(era: str) -> None:
    text = render(extract(load_spec(era)), ".mmd").decode()
    assert text.splitlines()[1] == "flowchart TB"
    seen: Counter[int] = Counter()
    for source, _arrow, label, target in _edges(text):
        if source == "initial":
            assert target == "pair_Owner_Idle"
            continue
        number = int(label.split()[0])
        seen[number] += 1
        expected = ENDPOINTS[era][number]
        assert (source, target) == (_mid(expected[0]), _mid(expected[1])), number
    assert seen == Counter(dict.fromkeys(ENDPOINTS[era], 1))


def test_dead_dotted_always_thick_and_guards_escaped() -> None:
    spec = load_spec("htcondor-current")
    table = fake_table(spec, {"2": "dead", "1": "always"}, {"14": 'Owner == "a|b" && x < 1'})
    text = render(extract(spec, table), ".mmd", show_guards=True).decode()
    arrows = {label.split()[0]: arrow for _s, arrow, label, _t in _edges(text) if label}
    assert arrows["2"] == "-.->" and arrows["1"] == "==>" and arrows["3"] == "-->"
    line = next(line for line in text.splitlines() if "|14 " in line)
    assert "#34;a#124;b#34; #38;#38; x #60; 1" in line
