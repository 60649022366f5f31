"""`Config.expr`: the expanded value parsed as ClassAd, errors pointing at the definition."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.classad import parse, unparse
from compiler.config import ConfigError, load_config
from compiler.errors import PolicyError
from tests.config.realworld import FILES as REALWORLD
from tests.config.realworld import needs_realworld
from tests.oracle import classad2

POLICY = (
    "START",
    "SUSPEND",
    "CONTINUE",
    "PREEMPT",
    "KILL",
    "WANT_SUSPEND",
    "WANT_VACATE",
    "IS_OWNER",
    "RANK",
    "MaxJobRetirementTime",
    "PREEMPTION_REQUIREMENTS",
)


def test_expr_parses_the_expanded_value() -> None:
    config = load_config(text='START = ($(START)) || Owner == "coltrane"\n')
    expr = config.expr("START")
    assert expr == parse('(True) || Owner == "coltrane"')


def test_expr_of_an_undefined_name_is_none() -> None:
    assert load_config().expr("RANK") is None


def test_invalid_expression_points_at_the_definition() -> None:
    text = "MINUTE = 60\nMachineBusy = ($(CPUBusy) || $(KeyboardBusy)\n"
    config = load_config(text=text)
    with pytest.raises(ConfigError) as info:
        config.expr("MachineBusy")
    assert info.value.line == 2
    assert info.value.column == 15
    assert "MachineBusy is not a valid ClassAd expression" in info.value.message


def _oracle_parses(text: str) -> bool:
    try:
        classad2.ExprTree(text)
    except classad2.ClassAdException:  # the oracle signals a syntax error by raising
        return False
    return True


@pytest.mark.oracle
@needs_realworld
@pytest.mark.parametrize("path", REALWORLD, ids=[p.name for p in REALWORLD])
def test_policy_expressions_of_real_configs_parse_like_htcondor(path: Path) -> None:
    try:
        config = load_config(path)
    except PolicyError:
        pytest.skip("HTCondor refuses this file too (see test_realworld_oracle)")
    for name in POLICY:
        value = config.get(name)
        if value is None:
            continue
        try:
            expr = config.expr(name)
        except ConfigError:
            assert not _oracle_parses(value), f"{name}: we reject what HTCondor parses: {value}"
        else:
            assert expr is not None
            assert _oracle_parses(value), f"{name}: we parse what HTCondor rejects: {value}"
            assert parse(unparse(expr)) == expr
