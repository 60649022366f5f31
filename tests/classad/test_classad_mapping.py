"""`ClassAd.update`'s plain-dict path gives what `MutableMapping.update` gives: each
item set in turn (a name already there, spelled otherwise, keeps its place and takes the
new spelling), and the other argument kinds still work."""

from __future__ import annotations

from collections.abc import MutableMapping

from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import ClassAd

_NAMES = st.sampled_from(["Memory", "memory", "MEMORY", "Cpus", "cpus", "State", "Rank", "x"])
_ADS = st.dictionaries(_NAMES, st.integers(-3, 3) | st.text(max_size=2), max_size=6)


@given(start=_ADS, more=_ADS)
def test_update_with_a_dict_is_setting_each_item(
    start: dict[str, object], more: dict[str, object]
) -> None:
    fast = ClassAd(start)
    fast.update(more)
    slow = ClassAd(start)
    MutableMapping.update(slow, more)
    assert list(fast.items()) == list(slow.items())
    assert fast.lowered() == slow.lowered()


def test_update_takes_pairs_and_keywords_too() -> None:
    ad = ClassAd({"Memory": 1})
    ad.update([("memory", 2)], Cpus=4)
    assert list(ad.items()) == [("memory", 2), ("Cpus", 4)]


@given(ad=_ADS, name=_NAMES | st.just("Absent"), default=st.none() | st.integers(7, 9))
def test_get_is_the_mapping_get(ad: dict[str, object], name: str, default: object) -> None:
    """`ClassAd.get` (without raising KeyError for a missing name) answers as
    `Mapping.get` does: case-insensitive, `default` for a name the ad lacks."""
    from collections.abc import Mapping

    classad = ClassAd(ad)
    assert classad.get(name, default) == Mapping.get(classad, name, default)
    assert classad.get(name) == Mapping.get(classad, name)
