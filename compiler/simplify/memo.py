"""Identity-keyed memo tables for the simplifier's analyses.

Stage: simplifier support. ClassAd AST nodes are frozen dataclasses whose hash is
recomputed over the whole subtree on every call, so `functools.lru_cache` on a node costs
O(size) per look-up and made hashing the main cost of simplifying a policy. These tables
key on `id(node)` and keep the node itself in the entry, so a recycled id (after the node
was freed) is detected by an `is` check instead of returning a stale answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
R = TypeVar("R")

_LIMIT = 100_000


class IdMemo(Generic[R]):
    """`memo(fn, node, env)` = `fn(node, env)`, computed once per (node object, env object)."""

    __slots__ = ("_table",)

    def __init__(self) -> None:
        self._table: dict[tuple[int, int], tuple[object, object, R]] = {}

    def __call__(self, fn: Callable[[K, object], R], node: K, env: object) -> R:
        key = (id(node), id(env))
        hit = self._table.get(key)
        if hit is not None and hit[0] is node and hit[1] is env:
            return hit[2]
        result = fn(node, env)
        if len(self._table) >= _LIMIT:
            self._table.clear()
        self._table[key] = (node, env, result)
        return result

    def clear(self) -> None:
        self._table.clear()
