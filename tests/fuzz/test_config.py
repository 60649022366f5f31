"""Fuzzing configuration text (compiler.config.load_config), mutated from the project's
configuration fixtures, and compiling what loads (compiler.policy.compile_policy).

Contract (tests/fuzz/support.py): a `Config` (and a table) or a `PolicyError`, never
another exception. Every defect found here is
fixed and kept as an explicit example.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.config import load_config
from compiler.policy import compile_policy
from tests.fuzz.support import EXPLORE, FAST, configs, holds, mutated_bytes, texts


def _load(text: str | bytes) -> None:
    config = holds(load_config, text=text, env={})
    if config is not None:
        holds(compile_policy, config)


@FAST
@given(texts(configs()))
def test_config_text_never_raises_anything_else(text: str) -> None:
    holds(load_config, text=text, env={})


@FAST
@given(mutated_bytes(configs()))
def test_config_bytes_never_raise_anything_else(data: bytes) -> None:
    holds(load_config, text=data, env={})


@settings(FAST, max_examples=30)
@given(texts(configs()))
def test_compiling_what_loads_never_raises_anything_else(text: str) -> None:
    _load(text)


def test_compiling_a_byte_string_comparison() -> None:
    _load('START = ("\\377" < "a") || KeyboardIdle > 600\n')


@pytest.mark.explore
@EXPLORE
@given(st.one_of(texts(configs()), mutated_bytes(configs())))
def test_config_explore(text: str | bytes) -> None:
    _load(text)
