"""Guard simplification that is sound for ClassAd's four-valued logic.

Stage: compiler (after macro substitution, before code generation and diagrams). Input
and output are ClassAd ASTs; the output has *exactly* the same ClassAd value as the input
for every assignment of its attributes (drawn from their domains; an attribute without a
domain can be anything: UNDEFINED, ERROR, booleans, integers, reals incl. NaN, strings of
any case, lists), not merely the same truth value.

Why not just hand the expression to sympy: ClassAd's `&&`/`||` are not Boolean. They have
four truth values (TRUE, FALSE, UNDEFINED, ERROR), are evaluated left to right and are not
commutative (`false && error` is FALSE, `error && false` is ERROR), `x && !x` is UNDEFINED
for an undefined x, and `TRUE && 5` is TRUE, not 5.

The encoding that makes each rewrite sound (three layers):
1. Abstract values (abstract.py): for every subexpression the set of value kinds it can
   have (bool, int, real, NaN/inf, string, list, ad, UNDEFINED, ERROR) and numeric bounds,
   from the attribute domains (domains.py). Laws that need "never ERROR", "boolean-valued"
   or "two-valued" operands ask it; it over-approximates, which is the safe direction.
2. The region oracle (regions.py): two candidate expressions are compared in every
   behaviourally distinct situation. Comparisons of the same subject against constants
   share one sample value per cell of the number line cut by those constants (plus
   UNDEFINED, ERROR, strings of both cases, lists, NaN, infinities as the domain allows),
   other atoms range over their possible truth values independently. Interval reasoning,
   complements, absorption and duplicate removal are applied only when the oracle proves
   the instance; each pass's docstring states its law and the condition.
3. Two-valued islands (passes/minimise.py): sympy minimises only subtrees whose atoms are
   all two-valued (never UNDEFINED/ERROR); there ClassAd logic *is* Boolean algebra.
   It runs with force=True up to `max_vars` atoms; beyond that the result says
   `minimised=False` and a note explains, never silently.

Passes (compiler/simplify/passes/, one law per module, order in pipeline.RULES): assume,
fold, conditional, comparison, negation, connectives, truth_context, intervals,
complement, redundancy, given (local, to a fixpoint); then minimise (global), then the
local ones again.

Cost (issue 11: a START that is an OR of 100 clauses compiles in well under a second):
the sweep and each node's rule fixpoint are memoised, across calls too for subtrees that
name no assumed attribute (context.py `Ctx`); a chain pass at `a || b || ... || x` looks
only at what its settled left operand did not already hold (`Ctx.new_from`); the region
oracle first tries a few probe situations that find most counterexamples without the full
enumeration, with the same answers (regions.py); the pairwise passes compare every pair
of operands up to `ALL_PAIRS` operands and neighbours beyond (context.py says why).

Public API: `simplify`, `Simplified`, `truth`, `Domain`, `STARTD_DOMAINS`, and the pass
lists `RULES`/`GLOBAL`.
"""

from compiler.simplify.domains import STARTD_DOMAINS, Domain
from compiler.simplify.pipeline import GLOBAL, RULES, Simplified, simplify, truth

__all__ = ["GLOBAL", "RULES", "STARTD_DOMAINS", "Domain", "Simplified", "simplify", "truth"]
