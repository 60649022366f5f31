"""`compiler.identity.IdentityMemo`: values per object (not per equal object), the key
kept alive while remembered, bounded by forgetting everything at once."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import parse
from compiler.identity import IdentityMemo


class _Key:
    """A key that can be watched (weakref) and is equal to every other `_Key`."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key)

    def __hash__(self) -> int:
        return 0


def test_equal_objects_are_different_keys() -> None:
    # AST equality takes 0.0 for -0.0, yet `x / 0.0` is ERROR where `x / -0.0` is -inf
    plus, minus = parse("x / 0.0"), parse("x / -0.0")
    assert plus == minus
    memo: IdentityMemo[object, str] = IdentityMemo(8)
    memo.put(plus, "plus")
    assert memo.get(plus) == "plus"
    assert memo.get(minus) is None
    assert memo.get(minus, "none") == "none"


def test_the_key_lives_while_its_value_is_remembered() -> None:
    memo: IdentityMemo[_Key, int] = IdentityMemo(8)
    key = _Key()
    watch = weakref.ref(key)
    memo.put(key, 1)
    del key
    gc.collect()
    alive = watch()
    assert alive is not None  # so its id cannot be handed to another object
    memo.forget(alive)
    del alive
    gc.collect()
    assert watch() is None
    assert len(memo) == 0


def test_full_means_everything_is_forgotten_but_not_for_a_known_key() -> None:
    memo: IdentityMemo[_Key, int] = IdentityMemo(3)
    keys = [_Key() for _ in range(4)]
    for n, key in enumerate(keys[:3]):
        memo.put(key, n)
    memo.put(keys[1], 10)  # a new value for a remembered key: nothing forgotten
    assert [memo.get(k) for k in keys[:3]] == [0, 10, 2]
    memo.put(keys[3], 3)  # a fourth key: the three are forgotten
    assert [memo.get(k) for k in keys] == [None, None, None, 3]
    assert len(memo) == 1


def test_a_memo_holds_at_least_one_value() -> None:
    with pytest.raises(ValueError, match="at least one"):
        IdentityMemo(0)


@given(
    st.integers(1, 4),
    st.lists(st.tuples(st.sampled_from(["put", "get", "forget"]), st.integers(0, 5)), max_size=40),
)
def test_get_gives_the_last_value_put_since_the_key_was_forgotten(
    limit: int, steps: list[tuple[str, int]]
) -> None:
    """Whatever the steps, `get` gives the value last put for that very key, or None once
    it was forgotten (by `forget` or by a clearing, which leaves only the new key), and
    the memo never holds more than `limit` values."""
    keys = [_Key() for _ in range(6)]
    memo: IdentityMemo[_Key, int] = IdentityMemo(limit)
    last: dict[int, int] = {}  # index -> value put since it was last forgotten
    for n, (op, i) in enumerate(steps):
        key = keys[i]
        if op == "put":
            memo.put(key, n)
            if i not in last and len(last) >= limit:
                last.clear()
            last[i] = n
        elif op == "forget":
            memo.forget(key)
            last.pop(i, None)
        got = memo.get(key)
        assert got == last.get(i)
        assert len(memo) == len(last) <= limit
