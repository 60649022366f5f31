"""Assigning a name its built-in default, read by both readers.

HTCondor's `insert_macro` (src/condor_utils/config.cpp) does not store an assignment
to a name that is not yet in the macro set when the value is the built-in default by
`same_param_value` (equal text, or `true`/`false` in any case): the look-up then finds
the default in the default's own spelling. Once a name is stored, a redefinition is
stored as written. A prefixed name (`STARTD.SUSPEND`) is always stored.

The random config differential test (test_hypothesis_oracle.py) found the first case:
`SUSPEND = FALSE` in the main file and again in an included file read back `FALSE` in
ours, `False` in HTCondor.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import load_config
from tests.config.differential import compare

pytestmark = pytest.mark.oracle

#: (main file, included sub.config, the names to compare). `@DIR@` is the directory.
CASES = [
    ("SUSPEND = FALSE\ninclude : @DIR@/sub.config\n", "SUSPEND = FALSE\n"),
    ("SUSPEND = FALSE\ninclude : @DIR@/sub.config\n", "SUSPEND = false\n"),
    ("include : @DIR@/sub.config\nSUSPEND = FALSE\n", "SUSPEND = FALSE\n"),
    ("SUSPEND = x\ninclude : @DIR@/sub.config\n", "SUSPEND = FALSE\n"),
    ("SUSPEND = FALSE\nSUSPEND = FALSE\n", ""),
    ("SUSPEND = FALSE\nSUSPEND = x\nSUSPEND = FALSE\n", ""),
    ("STARTD.SUSPEND = FALSE\nSTARTD.SUSPEND = FALSE\n", ""),
    ("STARTD.SUSPEND = FALSE\n", ""),
    # Only true/false ignore case: any other default must match exactly.
    ("ActivityTimer = (TIME() - EnteredCurrentActivity)\n", ""),
    ("DAEMON_LIST = master\nMINUTE = 60\n", ""),
]


@pytest.mark.parametrize(("main", "sub"), CASES)
def test_assigning_the_default_reads_back_like_htcondor(
    tmp_path: Path, main: str, sub: str
) -> None:
    (tmp_path / "sub.config").write_text(sub)
    path = tmp_path / "main.config"
    path.write_text(main.replace("@DIR@", str(tmp_path)))
    result = compare(path, ("SUSPEND", "ActivityTimer", "DAEMON_LIST"), every_name=False)
    assert not result.oracle_refused, result.oracle_message
    assert result.our_error is None, result.our_error
    assert result.mismatches == {}


def test_second_default_assignment_in_an_included_file_keeps_the_default_spelling(
    tmp_path: Path,
) -> None:
    """Deterministic, no oracle needed at run time: the expected value is HTCondor's."""
    (tmp_path / "sub.config").write_text("SUSPEND = FALSE\n")
    path = tmp_path / "main.config"
    path.write_text(f"SUSPEND = FALSE\ninclude : {tmp_path}/sub.config\n")
    assert load_config(path).get("SUSPEND") == "False"
