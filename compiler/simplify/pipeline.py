"""The simplifier's driver: the passes as data, run to a fixpoint, plus `truth`.

Stage: compiler, after macro substitution and before code generation. Input and output
are ClassAd ASTs (compiler/classad/ast.py); nothing is printed or evaluated at runtime.

Order: local rules (RULES) are applied bottom-up to every node until nothing changes;
then the global two-valued minimisation (GLOBAL) runs once per maximal boolean
subtree, and the local rules run again to tidy up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Final, Literal

import msgspec

from compiler.classad import ast as A
from compiler.classad.values import Value
from compiler.simplify.abstract import truth_values
from compiler.simplify.context import Ctx, Memo, Rule
from compiler.simplify.domains import Domain, Env
from compiler.simplify.passes import (
    assume,
    comparison,
    complement,
    conditional,
    connectives,
    fold,
    given,
    intervals,
    minimise,
    negation,
    redundancy,
    truth_context,
)
from compiler.simplify.regions import true_and_otherwise

#: Node-local rewrites, in the order they are tried at each node.
RULES: Final[tuple[Rule, ...]] = (
    assume.substitute_assumed,
    fold.fold_constants,
    conditional.known_condition,
    conditional.elvis_defined,
    conditional.same_branches,
    comparison.constant_right,
    comparison.compare_with_boolean,
    comparison.decided_by_domain,
    negation.double_negation,
    negation.negated_comparison,
    negation.de_morgan,
    connectives.chain_literals,
    truth_context.truth_only_operands,
    intervals.merge_neighbours,
    complement.complementary_operands,
    redundancy.redundant_operands,
    given.simplify_given_earlier,
)

#: Whole-tree passes run after the local fixpoint.
GLOBAL: Final[tuple[Callable[[A.Expr, Ctx], A.Expr], ...]] = (minimise.minimise_skeletons,)

_MAX_ROUNDS: Final = 50


class Simplified(msgspec.Struct, frozen=True):
    """`expr` has the same ClassAd value as the input for every attribute assignment the
    domains allow. `minimised` is False when some subexpression had more than `max_vars`
    atoms, so two-valued minimisation was skipped there (`notes` say where)."""

    expr: A.Expr
    minimised: bool
    notes: tuple[str, ...]


def _at_node(e: A.Expr, ctx: Ctx) -> A.Expr:
    """Apply the rules at one node until none fires (children are left to the next sweep).

    Memoised (`Ctx.memo`): the rules are pure functions of the node, and the nodes where
    none fires are recorded as settled (chain passes use it, see `Ctx.new_from`)."""
    memo = ctx.memo(e)
    done = memo.local.get(e)
    if done is not None:
        return done
    start = e
    for _ in range(_MAX_ROUNDS):
        for rule in RULES:
            new = rule(e, ctx)
            if new is not None and new is not e and new != e:
                e = new
                break
        else:
            memo.settled.add(e)
            memo.local[e] = e
            break
    memo.local[start] = e
    return e


def _sweep(e: A.Expr, ctx: Ctx) -> A.Expr:
    """One bottom-up pass; a subtree already swept (`Ctx.memo`) is not visited again."""
    memo = ctx.memo(e)
    done = memo.swept.get(e)
    if done is None:
        done = _at_node(A.map_children(e, lambda x: _sweep(x, ctx)), ctx)
        memo.swept[e] = done
    return done


def run_rules(e: A.Expr, ctx: Ctx) -> A.Expr:
    """Bottom-up sweeps until the tree stops changing (sqlglot's while_changing)."""
    for _ in range(_MAX_ROUNDS):
        new = _sweep(e, ctx)
        if new is e:  # map_children and _at_node return the same object when unchanged
            return new
        e = new
    ctx.note(f"rewriting stopped after {_MAX_ROUNDS} rounds without reaching a fixpoint")
    return e


#: The memo of each assumption-free Env, shared by every call with its domains (see
#: `Ctx`); one is dropped and started again past `_SHARED_MAX` nodes.
_SHARED: dict[Env, Memo] = {}
_SHARED_MAX: Final = 200_000


def _context(env: Env, max_vars: int) -> Ctx:
    base = env.without_assumptions() if env.assume else env
    shared = _SHARED.get(base)
    if shared is None or len(shared.local) + len(shared.swept) > _SHARED_MAX:
        if len(_SHARED) > 64:
            _SHARED.clear()
        shared = _SHARED[base] = Memo()
    assumed = frozenset(key.split(".", 1)[1] for key, _ in env.assume)
    return Ctx(env, max_vars, shared=shared, assumed=assumed)


@lru_cache(maxsize=4096)
def _simplify(expr: A.Expr, env: Env, max_vars: int) -> Simplified:
    ctx = _context(env, max_vars)
    e = run_rules(expr, ctx)
    for global_pass in GLOBAL:
        new = global_pass(e, ctx)
        if new != e:
            e = run_rules(new, ctx)
    return Simplified(e, ctx.minimised, tuple(ctx.notes))


def simplify(
    expr: A.Expr,
    *,
    domains: Mapping[str, Domain] | None = None,
    assume: Mapping[str, Value] | None = None,
    max_vars: int = 8,
) -> Simplified:
    """A simpler expression with exactly the same ClassAd value (see package docstring)."""
    env = Env.make(domains or {}, assume or {})
    return _simplify(expr, env, max_vars)


def truth(
    expr: A.Expr,
    *,
    domains: Mapping[str, Domain] | None = None,
    assume: Mapping[str, Value] | None = None,
) -> Literal["dead", "always", "live"]:
    """ "dead": the guard can never be TRUE; "always": it is always TRUE (truth value, as
    the startd's boolean test sees it: a non-zero number counts as TRUE); "live":
    otherwise, or not provable."""
    env = Env.make(domains or {}, assume or {})
    e = _simplify(expr, env, 8).expr
    seen = true_and_otherwise(e, env)
    if seen is None:
        found = truth_values(e, env)
        seen = ("T" in found, bool(found - {"T"}))
    can_be_true, can_be_other = seen
    if not can_be_true:
        return "dead"
    if not can_be_other:
        return "always"
    return "live"
