"""Matchmaking between two ads: Requirements both ways, and Rank (stage: evaluation).

HTCondor's matchmaker pairs a job ad with a machine ad in one environment where each ad
is MY to its own expressions and TARGET to the other's. Two ads match when each one's
`Requirements` evaluates to TRUE against the other (a non-zero number counts as TRUE,
UNDEFINED, ERROR, strings and a missing Requirements do not), as in HTCondor's
`symmetricMatch`. `Rank` is a number: HTCondor reads it as a real, booleans as 1/0,
anything else (UNDEFINED, ERROR, strings, a missing Rank) as 0.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compiler.classad.compile import CompiledExpr, compile_expr
from compiler.classad.evaluator import Now
from compiler.classad.operators import truth
from compiler.classad.scope import ClassAd, Raw
from compiler.classad.values import ERROR, UNDEFINED

REQUIREMENTS = "Requirements"
RANK = "Rank"


def _attribute(ad: Mapping[str, Raw], name: str) -> Raw:
    if isinstance(ad, ClassAd):
        return ad.get(name)
    found = ad.get(name)
    if found is not None:  # spelled as asked: no scan
        return found
    lowered, size = name.lower(), len(name)
    return next((v for k, v in ad.items() if len(k) == size and k.lower() == lowered), None)


def evaluate_attribute(
    ad: Mapping[str, Raw], name: str, target: Mapping[str, Raw] | None = None, *, now: Now = None
) -> Any:
    """The value of attribute `name` of `ad` with `target` as TARGET (UNDEFINED if absent)."""
    raw = _attribute(ad, name)
    if raw is None:
        return UNDEFINED
    kind = type(raw)
    if kind is str or kind is int or kind is float or kind is bool:
        return raw  # a literal is its own value (the negotiator asks for thousands a cycle)
    return _reference(name)(ad, target, now=now)


def _reference(name: str) -> CompiledExpr:
    # `MY.name` evaluates the attribute in `ad`'s own scope, exactly as the matchmaker does.
    return compile_expr(f"MY.{name}")


def requirements_met(ad: Mapping[str, Raw], other: Mapping[str, Raw], *, now: Now = None) -> bool:
    """Does `ad`'s Requirements accept `other` (evaluated with MY = ad, TARGET = other)?"""
    value = evaluate_attribute(ad, REQUIREMENTS, other, now=now)
    return truth(value) is True


def symmetric_match(a: Mapping[str, Raw], b: Mapping[str, Raw], *, now: Now = None) -> bool:
    """Both ads' Requirements are TRUE against each other (HTCondor's symmetricMatch)."""
    return requirements_met(a, b, now=now) and requirements_met(b, a, now=now)


def rank_value(ad: Mapping[str, Raw], other: Mapping[str, Raw], *, now: Now = None) -> Any:
    """`ad`'s Rank evaluated against `other`, as a ClassAd value (UNDEFINED if absent)."""
    return evaluate_attribute(ad, RANK, other, now=now)


def rank(ad: Mapping[str, Raw], other: Mapping[str, Raw], *, now: Now = None) -> float:
    """`ad`'s Rank of `other` as the matchmaker uses it: a real, 0.0 when not a number."""
    value = rank_value(ad, other, now=now)
    if value is UNDEFINED or value is ERROR:
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    return 0.0
