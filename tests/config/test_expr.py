"""`Config.expr`: the expanded value parsed as ClassAd, errors pointing at the definition."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.classad import parse
from compiler.config import ConfigError, load_config
from compiler.errors import PolicyError
from tests.config.differential import assert_policy_parses_like_htcondor
from tests.config.realworld import FILES as REALWORLD
from tests.config.realworld import needs_realworld


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


@pytest.mark.oracle
@needs_realworld
@pytest.mark.parametrize("path", REALWORLD, ids=[p.name for p in REALWORLD])
def test_policy_expressions_of_real_configs_parse_like_htcondor(path: Path) -> None:
    try:
        config = load_config(path)
    except PolicyError:
        pytest.skip("HTCondor refuses this file too (see test_realworld_oracle)")
    assert_policy_parses_like_htcondor(config)
