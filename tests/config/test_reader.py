"""Reader behaviour with hand-checked expectations (shared/reference/classad-semantics.md §12).

These do not need the oracle; the differential tests cover the same ground against it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import ConfigError, load_config
from compiler.errors import PolicyError, PolicyErrors
from tests.config.realworld import REALWORLD, needs_realworld


def get(text: str, name: str, **kwargs: object) -> str | None:
    return load_config(text=text, **kwargs).get(name)  # type: ignore[arg-type]


# -- lines and continuation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A = a &&\\\n   b\n", "a &&b"),
        ("A = a \\\n b\n", "a b"),
        ("A = a \\   \n b\n", "a b"),  # a backslash followed by spaces still continues
        ("A = a \\\n# gone \\\n b\n", "a b"),  # commented line ending in \ is dropped
        ("A = one\n# comment \\\nA = two\n", "two"),  # a comment's backslash does not continue
        ("B = bee\nA = $(B) \\\n# $(C)\n", "bee )"),  # the reader's quirk: last char only
        ("A = x\r\n", "x"),  # CRLF: the \r is trailing whitespace
        ("A = True # not a comment\n", "True # not a comment"),
        ("A = 1\n[Section]\n", "1"),
    ],
)
def test_continuation_and_comments(text: str, expected: str) -> None:
    assert get(text, "A") == expected


def test_unterminated_last_line_is_taken_verbatim() -> None:
    assert load_config(text="A = x \\\n   y").raw("A") == "x    y"


def test_names_are_case_insensitive_and_later_definitions_win() -> None:
    config = load_config(text="start = 1\nSTART = 2\nStart = 3\n")
    assert config.get("START") == "3"
    assert config.get("start") == "3"


def test_colon_assignment_warns_in_the_current_era_and_is_exported_in_6x() -> None:
    current = load_config(text="START : True\n")
    assert current.get("START") == "True"
    assert "obsolete use of ':'" in current.warnings[0].message
    old = load_config(text="START : KeyboardIdle > 5\n", era="condor-6.4")
    assert old.warnings == ()
    assert old.exported() == ("START",)


def test_strict_option_turns_colon_into_an_error() -> None:
    with pytest.raises(ConfigError, match="obsolete use of ':'"):
        load_config(text="#opt:strict\nSTART : True\n")


# -- macro expansion -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A = $(B)\nB = late\n", "late"),  # lazy: sees the final B
        ("A = $(B:dflt)\n", "dflt"),
        ("B =\nA = $(B:dflt)\n", "dflt"),  # empty counts as undefined
        ("A = $(B:$(C:zz))\n", "zz"),
        ("A = x$(NOPE)y\n", "xy"),
        ("A = $(DOLLAR)(X)\n", "$(X)"),
        ("A = $$(Memory) $$([Cpus*2])\n", "$$(Memory) $$([Cpus*2])"),
        ('A = $(B:"quoted")\n', '$(B:"quoted")'),  # not a macro for HTCondor either
        ("A = $ENV(CPQ_TEST_VAR)\n", "value"),
        ("A = $ENV(CPQ_UNSET)\n", "UNDEFINED"),
        ("A = $ENV(CPQ_UNSET:fallback)\n", "fallback"),
        ("A = $(MINUTE)\n", "60"),  # built-in default
        ("MINUTE = 7\nA = $(StartIdleTime)\n", "15 * 7"),  # defaults expand lazily too
        ("A = 1\nA = $(A)2\n", "12"),  # self reference expands at assignment
        ("X = 1\n$(X)_NAME = built\nA = $(1_NAME)\n", "built"),  # macros in names
        ("A = a\nA += b\nA +,= c\nA +&&= d\n", "a b,c && d"),
        ("A = $INT(B)\nB = 6*7\n", "42"),
        ("A = $RANDOM_INTEGER(230, 370)\n", "230"),
    ],
)
def test_expansion(text: str, expected: str) -> None:
    assert get(text, "A", env={"CPQ_TEST_VAR": "value"}) == expected


def test_self_reference_picks_up_the_builtin_default() -> None:
    config = load_config(text='START = ($(START)) || Owner == "coltrane"\n')
    assert config.get("START") == '(True) || Owner == "coltrane"'


def test_first_definition_equal_to_the_default_reads_back_in_its_spelling() -> None:
    assert get("START = TRUE\n", "START") == "True"
    assert get("START = False\nSTART = TRUE\n", "START") == "TRUE"


def test_empty_definition_hides_the_default() -> None:
    config = load_config(text="CLAIM_WORKLIFE = $(NOT_DEFINED)\n")
    assert config.get("CLAIM_WORKLIFE") is None
    assert load_config().get("CLAIM_WORKLIFE") == "1200"


def test_cycle_is_an_error_naming_the_chain() -> None:
    config = load_config(text="A = $(B)\nB = $(C)\nC = $(A)\n")
    with pytest.raises(ConfigError) as info:
        config.get("A")
    assert "A -> B -> C -> A" in info.value.message
    assert info.value.line == 1


def test_self_reference_inside_a_default_is_a_cycle_not_a_hang() -> None:
    config = load_config(text="START = $(Alpha:$(START:x))\n")
    with pytest.raises(ConfigError, match="cyclic"):
        config.get("START")


# -- blocks, conditionals, includes ----------------------------------------------------------------


def test_here_block() -> None:
    text = "A @=end\n  first\n# dropped\n  second \\\n continued\n@end\nB = 1\n"
    config = load_config(text=text)
    assert config.get("A") == "first\nsecond continued"
    assert config.get("B") == "1"


@pytest.mark.parametrize(
    ("condition", "taken"),
    [
        ("true", True),
        ("FALSE", False),
        ("yes", True),
        ("no", False),
        ("2.5", True),
        ("0", False),
        ("defined MINUTE", True),
        ("defined NOPE", False),
        ("! defined NOPE", True),
        ("version >= 8.0", True),
        ("version < 8.0", False),
        ("version == 25.14", True),
        ("version != 25.14.1", False),
        ("$(NOPE)", False),
        ("defined use POLICY:Desktop", True),
    ],
)
def test_if_conditions(condition: str, taken: bool) -> None:
    text = f"if {condition}\nA = then\nelse\nA = else\nendif\n"
    assert get(text, "A") == ("then" if taken else "else")


def test_elif_chain_and_nesting() -> None:
    text = (
        "if false\nA = 1\nelif true\n  if defined A\n  A = 2\n  else\n  A = 3\n  endif\n"
        "elif true\nA = 4\nelse\nA = 5\nendif\n"
    )
    assert get(text, "A") == "3"


def test_include_and_include_ifexist(tmp_path: Path) -> None:
    (tmp_path / "sub.config").write_text("B = from include\n")
    text = f"include : {tmp_path}/sub.config\ninclude ifexist : {tmp_path}/none.config\n"
    config = load_config(text=text)
    assert config.get("B") == "from include"
    assert str(tmp_path / "sub.config") in config.files


def test_include_command_needs_permission() -> None:
    text = "include : echo A = from command |\n"
    with pytest.raises(ConfigError, match="allow_commands=True"):
        load_config(text=text)
    assert load_config(text=text, allow_commands=True).get("A") == "from command"


def test_directory_of_fragments_is_read_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "20-late.config").write_text("A = late\n")
    (tmp_path / "10-early.config").write_text("A = early\nB = $(A)\n")
    (tmp_path / "30-skip.rpmsave").write_text("A = ignored\n")
    config = load_config(tmp_path)
    assert config.get("A") == "late"
    assert config.get("B") == "late"
    provenance = config.where("A")
    assert provenance is not None
    assert provenance.winner.file.endswith("20-late.config")
    assert provenance.overridden[0].file.endswith("10-early.config")


# -- subsystems, slots, provenance, overrides ------------------------------------------------------


def test_subsystem_prefix() -> None:
    text = "FOO = 1\nSTARTD.FOO = 2\nSCHEDD.FOO = 3\nBAR = $(FOO)\n"
    assert load_config(text=text).get("BAR") == "2"
    assert load_config(text=text, subsystem="SCHEDD").get("FOO") == "3"
    assert load_config(text=text, subsystem="NEGOTIATOR").get("FOO") == "1"


def test_slot_view() -> None:
    config = load_config(text="START = True\nSLOT2_START = False\nSLOT_TYPE_1_X = t1\n")
    assert config.slot(1).get("START") == "True"
    assert config.slot(2).get("START") == "False"
    assert config.slot(3, slot_type=1).get("X") == "t1"


def test_where_reports_file_line_template_and_overrides() -> None:
    config = load_config(text="START = False\nuse POLICY : Desktop\n")
    provenance = config.where("START")
    assert provenance is not None
    assert provenance.winner.line == 2
    assert provenance.winner.template == "POLICY:Desktop"
    assert provenance.overridden[0].line == 1
    assert "use POLICY:Desktop" in provenance.describe()
    default = load_config().where("MINUTE")
    assert default is not None and default.winner.file == "<Default>"
    assert load_config().where("NOT_A_PARAM") is None


def test_with_overrides_appends_definitions() -> None:
    config = load_config(text="START = KeyboardIdle > 60\n")
    changed = config.with_overrides({"START": '($(START)) || Owner == "coltrane"'})
    assert changed.get("START") == '(KeyboardIdle > 60) || Owner == "coltrane"'
    assert config.get("START") == "KeyboardIdle > 60"  # the original is unchanged


def test_no_input_gives_the_era_defaults() -> None:
    assert load_config().get("START") == "True"
    assert load_config().get("MachineMaxVacateTime") == "10 * 60"
    old = load_config(era="condor-6.4")
    assert old.get("START") == ("(LoadAvg - CondorLoadAvg) <= 0.3 && KeyboardIdle > 15 * 60")
    assert old.get("MATCH_TIMEOUT") == "300"
    assert load_config(era="condor-6.8").get("MATCH_TIMEOUT") == "120"


def test_unknown_era_is_an_error() -> None:
    with pytest.raises(ConfigError, match="unknown era"):
        load_config(era="condor-7.0")


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("A @=end\nx\n", "unterminated @= block", 1),
        ("if true\nA = 1\n", "if without endif", 1),
        ("A = 1\nendif\n", "endif without matching if", 2),
        ("if true\nelse\nelse\nendif\n", "else is not allowed after else", 3),
        ("use POLICY : Destkop\n", "did you mean Desktop", 1),
        ("use NOPE : Desktop\n", "unknown template", 1),
        ("include : /nonexistent/cpq.config\n", "cannot open include file", 1),
        ("A-B = 1\n", "illegal name", 1),
        ("[HTCondor Settings]\n", "missing operator", 1),
        ("if maybe\nendif\n", "not a valid if condition", 1),
        ("if version > 5.0\nendif\n", "version literal is invalid", 1),
        ("error : stop here\n", "stop here", 1),
    ],
)
def test_bad_input_reports_position(text: str, message: str, line: int) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(text=text)
    assert message in info.value.message
    assert info.value.line == line
    assert info.value.column is not None
    assert info.value.format().startswith(f"<input>:{line}:")


def test_all_problems_of_a_file_are_reported_together() -> None:
    with pytest.raises(PolicyErrors) as info:
        load_config(text="use POLICY : Nope\nA-B = 1\nif true\n")
    lines = [e.line for e in info.value.errors]
    assert lines == [1, 2, 3]


def test_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.config"
    path.write_bytes(b"A = 1\n\x7fELF\x00\x01\x02")
    with pytest.raises(ConfigError, match="binary") as info:
        load_config(path)
    assert info.value.line == 2


def test_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.config"
    path.write_bytes(b"# padding\n" * (1024 * 1024))  # 10 MiB
    with pytest.raises(ConfigError, match="refusing configuration files over"):
        load_config(path)


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.config")
    (tmp_path / "dir.config").mkdir()
    with pytest.raises(PolicyError, match="is a directory"):
        load_config(text=f"include : {tmp_path}/dir.config\n")


def test_a_long_cycle_is_reported_without_recursion_error() -> None:
    n = 3000
    text = "".join(f"M{i} = $(M{i + 1})\n" for i in range(n)) + f"M{n} = $(M0)\n"
    config = load_config(text=text)
    with pytest.raises(ConfigError) as info:
        config.get("M0")
    assert "M0 -> M1" in info.value.message
    assert f"({n + 1} macros)" in info.value.message


def test_6x_eras_read_comments_the_old_way() -> None:
    text = "#A = commented \\\nA = swallowed\nB = x \\\n# kept\\\n y\n"
    old = load_config(text=text, era="condor-6.8")
    assert old.get("A") is None  # the comment's backslash swallowed the next line
    assert old.get("B") == "x # kepty"  # no blank before that backslash
    new = load_config(text=text)
    assert new.get("A") == "swallowed"
    assert new.get("B") == "x y"


@needs_realworld
def test_6_2_sample_config_reads_in_its_era_but_not_today() -> None:
    path = REALWORLD / "htcondor-generic-2000-v6.2-colon-syntax.config"
    text = path.read_text().replace("LOCAL_CONFIG_FILE", "NO_LOCAL_CONFIG_FILE")
    with pytest.raises(PolicyError, match="illegal name"):
        load_config(text=text)
    old = load_config(text=text, era="condor-6.4")
    assert old.get("START") is not None


def test_local_name_beats_the_subsystem() -> None:
    text = "FOO = 1\nSTARTD.FOO = 2\nSTARTD2.FOO = 3\nSTARTD2.BAR = ($(BAR)) x\nBAR = b\n"
    config = load_config(text=text, local_name="startd2")
    assert config.get("FOO") == "3"
    assert config.get("LOCALNAME") == "startd2"
    assert load_config(text=text).get("FOO") == "2"


def test_subsystem_specific_defaults_and_auto_use() -> None:
    master = load_config(subsystem="MASTER")
    assert master.get("PID_SNAPSHOT_INTERVAL") == "60"
    assert load_config().get("PID_SNAPSHOT_INTERVAL") != "60"
    schedd = load_config(subsystem="SCHEDD")
    assert "PelicanRetry" in (schedd.get("JOB_TRANSFORM_NAMES") or "")
    assert load_config().get("JOB_TRANSFORM_NAMES") is None
    forced = load_config(text="AUTO_USE_POLICY_Always_Run_Jobs = true\n")
    assert forced.get("MaxJobRetirementTime") == "2147483647"


def test_a_missing_local_config_file_is_an_error_at_the_definition_naming_it(
    tmp_path: Path,
) -> None:
    """HTCondor refuses a configuration whose LOCAL_CONFIG_FILE cannot be read (unless
    REQUIRE_LOCAL_CONFIG_FILE is false: tests/config/fixtures/field, against the
    oracle); the error is placed at the value that names the file, in the text or file
    defining it (it named only the missing file, so a text read without one had no
    place at all)."""
    missing = tmp_path / "nowhere" / "condor_config.local"
    text = f"LOCAL_DIR = {missing.parent}\nLOCAL_CONFIG_FILE =  $(LOCAL_DIR)/condor_config.local\n"
    with pytest.raises(PolicyError) as raised:
        load_config(text=text)
    assert raised.value.format() == (
        f"<input>:2:22: cannot read LOCAL_CONFIG_FILE '{missing}' (HTCondor refuses the "
        "configuration unless REQUIRE_LOCAL_CONFIG_FILE is false)"
    )
    config = tmp_path / "condor_config"
    config.write_text(text)
    with pytest.raises(PolicyError) as raised:
        load_config(config)
    assert raised.value.format().startswith(f"{config}:2:22: cannot read LOCAL_CONFIG_FILE")
    assert load_config(text=text + "REQUIRE_LOCAL_CONFIG_FILE = false\n").get("LOCAL_DIR") == (
        str(missing.parent)
    )
