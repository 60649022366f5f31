"""Era facts of the configuration reader are spec data (spec/config/eras.yaml), not
tests of the era's name in compiler/config; the list of eras is defined once
(compiler.spec.ERAS)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from compiler.config import ERAS as CONFIG_ERAS
from compiler.config import load_config
from compiler.config.defaults import era_defaults
from compiler.spec import ERAS

ROOT = Path(__file__).resolve().parents[2]


def test_the_reader_uses_the_one_list_of_eras() -> None:
    assert CONFIG_ERAS is ERAS


@pytest.mark.parametrize("era", ERAS)
def test_every_era_has_reader_options(era: str) -> None:
    assert era_defaults(era).reader is not None


def test_no_era_name_is_tested_in_compiler_config() -> None:
    test = re.compile(
        r"""era\s*(==|!=)|era\s+(not\s+)?in\s*[(\[{]\s*["']|["'](condor-6|htcondor-)[^"']*["']\s*(==|!=)"""
    )
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted((ROOT / "compiler" / "config").glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if test.search(line)
    ]
    assert found == []


def _era_lists(path: Path) -> bool:
    """True when the module's code (not its prose) writes a tuple/list/set of era names."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if {"condor-6.4", "condor-6.8"} <= names:
                return True
    return False


def test_the_era_list_is_written_once_in_the_product() -> None:
    found = [
        str(path.relative_to(ROOT))
        for folder in ("compiler", "runtime", "spec")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if _era_lists(path)
    ]
    assert found == ["compiler/spec/read.py"]


# The behaviour each option selects (expected values from the sources cited in
# spec/config/eras.yaml, not from the code).
OLD_COMMENT = "# a comment \\\nA = swallowed\nB = kept\n"


@pytest.mark.parametrize("era", ERAS)
def test_comment_continuation_follows_the_eras_option(era: str) -> None:
    config = load_config(text=OLD_COMMENT, era=era)
    swallowed = config.get("A") is None
    assert swallowed == era_defaults(era).reader.old_comments
    assert config.get("B") == "kept"


@pytest.mark.parametrize("era", ERAS)
def test_colon_assignment_warning_follows_the_eras_option(era: str) -> None:
    options = era_defaults(era).reader
    config = load_config(text="MY_NAME : 1\nRunBenchmarks : False\n", era=era)
    warned = [w.message for w in config.warnings]
    assert any("MY_NAME" in m for m in warned) == options.colon_warns
    assert not any("RunBenchmarks" in m for m in warned)


def test_the_current_era_reads_like_htcondor_today() -> None:
    """config.cpp `Parse_macros` today: new comment rules, colon warns, RunBenchmarks exempt."""
    options = era_defaults("htcondor-current").reader
    assert not options.old_comments
    assert options.colon_warns
    assert options.colon_exempt == frozenset({"RUNBENCHMARKS"})
