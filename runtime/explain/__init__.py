"""`condor-policy explain`: why a slot does what it does (issue 16, part 1).

Pure functions over a compiled table and the ads: `explain_slot` (runtime.explain.slot)
returns an `Explanation` (the evaluation pass of the pair, each guard's deciding clauses,
the transition that fires, the smallest change and flip time of the others, a job's
acceptance); `decide` (runtime.explain.clauses) is the clause tree of one expression;
`render_text` (runtime.explain.render) the text for people. `runtime.commands.explain`
is the command line.
"""

from runtime.explain.clauses import Ads, Clause, Reading, decide, truth_name
from runtime.explain.render import render_text
from runtime.explain.slot import (
    Change,
    Edit,
    Explanation,
    Step,
    Verdict,
    advance,
    explain_slot,
    flip_time,
    nearest_change,
    parse_pair,
)

__all__ = [
    "Ads",
    "Change",
    "Clause",
    "Edit",
    "Explanation",
    "Reading",
    "Step",
    "Verdict",
    "advance",
    "decide",
    "explain_slot",
    "flip_time",
    "nearest_change",
    "parse_pair",
    "render_text",
    "truth_name",
]
