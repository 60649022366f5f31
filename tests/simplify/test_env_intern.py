"""Env is one object per content (caches key on its identity), whatever mapping built it."""

from __future__ import annotations

from compiler.simplify import STARTD_DOMAINS, Domain
from compiler.simplify.domains import Env, _clear_interned


def test_equal_contents_give_the_same_env_and_a_changed_mapping_another() -> None:
    domains = dict(STARTD_DOMAINS)
    first = Env.make(domains, {"State": "Owner"})
    assert Env.make(dict(STARTD_DOMAINS), {"State": "Owner"}) is first
    assert first.without_assumptions() is Env.make(dict(domains), {})
    domains["KeyboardIdle"] = Domain("integer", True, 0, 10)  # the same mapping, changed
    changed = Env.make(domains, {"State": "Owner"})
    assert changed is not first and dict(changed.domains)["MY.keyboardidle"].high == 10


def test_after_the_caches_are_cleared_contents_still_meet_one_env() -> None:
    old = Env.make(dict(STARTD_DOMAINS), {"Activity": "Busy"})
    _clear_interned()
    bare = old.without_assumptions()  # built from the old, no longer interned tuple
    assert Env.make(dict(STARTD_DOMAINS), {}) is bare
    assert Env.make(dict(STARTD_DOMAINS), {"Activity": "Busy"}).domains is bare.domains
