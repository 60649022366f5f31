"""Every real-world configuration in shared/realworld-configs, read by both readers.

HTCondor loads 35 of the 44 files; for those every name the file defines (plus the
policy names) must expand to the same text. For the 9 it refuses we must refuse too; one
of them (`include ... command`) we refuse for our own reason (we never run commands by
default), and that refusal must say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.errors import PolicyError
from tests.config.differential import compare
from tests.config.realworld import FILES, REALWORLD, needs_realworld

pytestmark = [pytest.mark.oracle, needs_realworld]


def test_all_44_files_are_present() -> None:
    assert len(FILES) == 44


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_realworld_file_matches_htcondor(path: Path) -> None:
    result = compare(path)
    if result.oracle_refused:
        assert result.our_error is not None, f"HTCondor refuses: {result.oracle_message}"
        return
    assert result.our_error is None, result.our_error
    assert result.compared >= 30
    assert result.mismatches == {}


def test_command_include_is_refused_with_a_clear_message() -> None:
    path = REALWORLD / "htcondor-generic-2016-minimal-include-command.config"
    with pytest.raises(PolicyError) as info:
        load_config(path)
    assert "allow_commands=True" in info.value.format()
    assert ":59:" in info.value.format()


def test_missing_local_config_file_is_refused_like_htcondor() -> None:
    path = REALWORLD / "htcondor-generic-2009-v7.2-uwcs.config"
    with pytest.raises(PolicyError) as info:
        load_config(path)
    assert "LOCAL_CONFIG_FILE" in info.value.format()


def test_loaded_counts_match_sources_md() -> None:
    loaded = refused = 0
    for path in FILES:
        try:
            load_config(path)
        except PolicyError:
            refused += 1
        else:
            loaded += 1
    # SOURCES.md: HTCondor loads 35 and refuses 9; we refuse the same 9.
    assert (loaded, refused) == (35, 9)


PREFIXED = [
    REALWORLD / "alahiff-k8s-worker-pslot-start-selfage.config",
    REALWORLD / "glideinwms-glidein-base.config",
    REALWORLD / "osgvo-docker-pilot-main.config",
    REALWORLD / "htcondor-generic-redhat-2021-uwcs-config-dir.config",
]


@pytest.mark.parametrize("subsystem", ["SCHEDD", "NEGOTIATOR", "MASTER"])
@pytest.mark.parametrize("path", PREFIXED, ids=[p.name for p in PREFIXED])
def test_other_daemons_see_what_htcondor_shows_them(path: Path, subsystem: str) -> None:
    result = compare(path, subsystem=subsystem)
    assert result.our_error is None and not result.oracle_refused
    assert result.mismatches == {}


def test_etc_condor_layout_with_config_d_matches_htcondor(tmp_path: Path) -> None:
    """The packaged layout: condor_config naming config.d, fragments read in name order."""
    (tmp_path / "config.d").mkdir()
    (tmp_path / "config.d" / "00-base").write_text("use POLICY : Desktop\nMINUTE = 30\n")
    (tmp_path / "config.d" / "50-site.config").write_text('START = ($(START)) || Owner == "x"\n')
    (tmp_path / "config.d" / "60-skip.rpmsave").write_text("START = False\n")
    (tmp_path / "config.d" / "70-local.config").write_text(
        f"LOCAL_CONFIG_FILE = {tmp_path}/condor_config.local\n"
    )
    (tmp_path / "condor_config.local").write_text("SUSPEND = False\n")
    root = tmp_path / "condor_config"
    root.write_text(f"ETC = {tmp_path}\nLOCAL_CONFIG_DIR = $(ETC)/config.d\n")
    result = compare(root)
    assert result.our_error is None and not result.oracle_refused, result.oracle_message
    assert result.mismatches == {}
    assert result.compared > 900
