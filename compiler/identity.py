"""Values remembered per object, not per equal object (`IdentityMemo`).

Stage: shared by the compiler and the runtime. Many things are made once for an object
that is never changed in place and then asked for again and again: an expression's
compiled function (per AST node: AST equality takes 0.0 for -0.0, and hashing a tree costs
a walk of it), a table's engine, a job ad's ClassAd, an era's options. The key is the
object itself, found by `id`; the memo keeps the object alive with its value, so that its
id cannot be reused by another object while the value is remembered. A memo is bounded:
when it is full, everything is forgotten at once and made again on the next asks (the
working set is back within a few calls; an LRU's bookkeeping would cost every hit, and
the hits are the point).
"""

from __future__ import annotations

from typing import Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class IdentityMemo(Generic[K, V]):
    """At most `limit` values, each remembered for one key object (see the module
    docstring)."""

    __slots__ = ("_items", "limit")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"an IdentityMemo holds at least one value, not {limit}")
        self.limit = limit
        self._items: dict[int, tuple[K, V]] = {}

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        """The value remembered for this very object, else `default`."""
        hit = self._items.get(id(key))
        return hit[1] if hit is not None and hit[0] is key else default

    def put(self, key: K, value: V) -> V:
        """Remember `value` for `key` (forgetting everything first when full); `value`."""
        items = self._items
        if len(items) >= self.limit and id(key) not in items:
            items.clear()
        items[id(key)] = (key, value)
        return value

    def forget(self, key: K) -> None:
        """Forget the value of `key`, if one is remembered for it."""
        hit = self._items.get(id(key))
        if hit is not None and hit[0] is key:
            del self._items[id(key)]

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def table(self) -> dict[int, tuple[K, V]]:
        """id(key) -> (key, value): for code that must look up inline, as `get` does
        (generated evaluation code, where a method call per lookup is the cost)."""
        return self._items
