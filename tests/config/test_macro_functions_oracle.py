"""The configuration function macros, expanded by our reader and by HTCondor's.

`$INT` / `$REAL` / `$STRING` with printf formats, `$EVAL`, the `$F<letters>` file-name
parts, `$BASENAME` / `$DIRNAME`, `$CHOICE`, `$SUBSTR` and `$ENV` (src/condor_utils/
config.cpp, `evaluate_macro_func`; formats checked by printf_format.cpp,
`validatePrintfFormat`). Every case is compared with `htcondor2.param` read through an
alias, i.e. what `condor_config_val` prints. All cases of a table go into one file so
that one oracle process answers them all: HTCondor's tools never refuse these macros,
they expand a bad one to nothing (or to the rejected format).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.config import ConfigError, load_config
from compiler.config.expand import Context, MacroProblem, expand
from tests.config.oracle_config import clean_env, oracle_param

pytestmark = pytest.mark.oracle

#: (value of the macro `@`, or None for no macro; the use, `@` standing for its name)
Case = tuple[str | None, str]

INT_CASES: list[Case] = [
    ("42", "$INT(@)"),
    ("42", "$INT(@,%05d)"),
    ("42", "$INT(@,%x)"),
    ("42", "$INT(@,%#X)"),
    ("42", "$INT(@,%#o)"),
    ("0", "$INT(@,%#x)"),
    ("42", "$INT(@, %d)"),
    ("42", "$INT(@,%-6d|)"),
    ("42", "$INT(@,%+d)"),
    ("-42", "$INT(@,% d)"),
    ("42", "$INT(@,%.5d)"),
    ("0", "$INT(@,%.0d)"),
    ("-1", "$INT(@,%u)"),
    ("-1", "$INT(@,%lx)"),
    ("70000", "$INT(@,%hd)"),
    ("300", "$INT(@,%hhd)"),
    ("4294967338", "$INT(@,%d)"),
    ("42", "$INT(@,%lld)"),
    ("42", "$INT(@,%'d)"),
    ("42", "$INT(@,%c)"),
    ("42", "$INT(@,%5c)"),
    ("42", "$INT(@,%p)"),
    ("0", "$INT(@,%p)"),
    ("42", "$INT(@,%060d)"),
    ("42", "$INT(@,val=%d!)"),
    ("42", "$INT(@,a%%%d%%b)"),
    ("42", "$INT(@,%d%)"),
    ("42", "$INT(@,%s)"),
    ("42", "$INT(@,%f)"),
    ("42", "$INT(@,%d%d)"),
    ("42", "$INT(@,%n)"),
    ("42", "$INT(@,%*d)"),
    ("42", "$INT(@,plain)"),
    ("42", "$INT(@,)"),
    ("42", "$INT(@ , %d)"),
    ("2.5", "$INT(@)"),
    ("-7.9", "$INT(@)"),
    ("(17)*60 + 0.5", "$INT(@)"),
    ("true", "$INT(@)"),
    ("  12  ", "$INT(@)"),
    ('" 12 "', "$INT(@)"),
    ("0x10", "$INT(@)"),
    ("99999999999999999999", "$INT(@)"),
    ("1e19", "$INT(@)"),
    ("abc", "$INT(@)"),
    ("", "$INT(@)"),
    ('"a" == "a"', "$INT(@)"),
    (None, "$INT(3+4)"),
    (None, "$INT(  7  )"),
    ("1 + 2 // a comment to the end", "$INT(@)"),
]

REAL_CASES: list[Case] = [
    ("42", "$REAL(@)"),
    ("0.1", "$REAL(@)"),
    ("1e300", "$REAL(@)"),
    ("42", "$REAL(@,%.2f)"),
    ("42", "$REAL(@,%.0f)"),
    ("42", "$REAL(@,%e)"),
    ("42", "$REAL(@,%g)"),
    ("42", "$REAL(@,%.0e)"),
    ("42.5", "$REAL(@,%10.3e|)"),
    ("42.5", "$REAL(@,%+012.3f)"),
    ("42.5", "$REAL(@,%#g)"),
    ("1.5", "$REAL(@,%G)"),
    ("1e-5", "$REAL(@,%g)"),
    ("1e20", "$REAL(@,%f)"),
    ("1.5", "$REAL(@,%lf)"),
    ("42.5", "$REAL(@,%a)"),
    ("1", "$REAL(@,%A)"),
    ("0", "$REAL(@,%a)"),
    ("0.1", "$REAL(@,%.3a)"),
    ("42", "$REAL(@,%d)"),
    ("true", "$REAL(@)"),
    ("0x10", "$REAL(@)"),
    ("inf", "$REAL(@)"),
    ("-inf", "$REAL(@,%f)"),
    ("nan", "$REAL(@)"),
    ("3 * 1.5", "$REAL(@)"),
    ("9223372036854775807", "$REAL(@)"),
    ("x y", "$REAL(@)"),
    ("nan", "$REAL(@,%05.3lf)"),
    ("-inf", "$REAL(@,%08e)"),
]

STRING_CASES: list[Case] = [
    ('"hello"', "$STRING(@)"),
    ('"hello"', "$STRING(@,%10s)"),
    ('"abc"', "$STRING(@,[%-5s])"),
    ("abc def", "$STRING(@,[%-10s])"),
    ("abc", "$STRING(@,%.2s)"),
    ('"abc"', "$STRING(@,%%%s%%)"),
    ("hello", "$STRING(@,%d)"),
    ('"a"', "$STRING(@,%s%s)"),
    ("1+2", "$STRING(@)"),
    ('strcat("a","b")', "$STRING(@)"),
    ("undefined", "$STRING(@)"),
    ("1+", "$STRING(@)"),
    ("", "$STRING(@)"),
    (None, "$STRING(hello world)"),
    (None, '$STRING("quoted")'),
]

EVAL_CASES: list[Case] = [
    (None, "$EVAL(1+2)"),
    (None, "$EVAL(1.0*3)"),
    (None, "$EVAL(1.5)"),
    (None, "$EVAL(10/4)"),
    (None, "$EVAL(1/0)"),
    (None, "$EVAL(undefined)"),
    (None, "$EVAL(x == y)"),
    (None, "$EVAL(true)"),
    (None, "$EVAL({1,2})"),
    (None, "$EVAL([a=1])"),
    (None, '$EVAL("abc")'),
    (None, '$EVAL(strcat("a", "b"))'),
    (None, "$EVAL(size({1,2,3}))"),
    (None, "$EVAL(foo bar)"),
    ("1+", "$EVAL(@)"),
    ('"a" + "b"', "$EVAL(@)"),
    ("$(@X) * 2", "$EVAL(@)"),
    ("$(@X) +", "$EVAL(@)"),
    ("", "$EVAL(@)"),
    ("a//", "$EVAL(@)"),
]

PATHS = [
    "/a/b/c.txt",
    "a/b/c.tar.gz",
    "c.txt",
    "c",
    "/a/b/",
    "dir/",
    ".bashrc",
    "a/.hidden",
    '"a/b c/d.e"',
    "'x/y.z'",
    "a\\b\\c.d",
    "",
    "/",
    "./rel/f.x",
    '"q',
    "a.b/c",
]
LETTERS = [
    *["F", "Fp", "Fn", "Fx", "Fnx", "Fpn", "Fpx", "Fpnx", "Fd", "Fdn", "Fdnx", "Fdx"],
    *["Fpd", "FQN", "Ff", "Fq", "Fqn", "Fqx", "Fqp", "Fqd", "Fqa", "Fqan", "Fa", "Fb"],
    *["Fbp", "Fbx", "Fbd", "Fqdb", "Fw", "Fu", "Fwp"],
]
FILE_CASES: list[Case] = [
    *((path, f"${letters}(@)") for letters in LETTERS for path in PATHS),
    *((path, f"${function}(@)") for function in ("BASENAME", "DIRNAME") for path in PATHS),
    *((path, "$BASENAME(@, .txt)") for path in PATHS),
    *((path, "$BASENAME(@,.GZ)") for path in PATHS),
    (None, "$Fn(/lit/path.x)"),
    (None, "$BASENAME(/lit/file.tar.gz, .tar.gz)"),
    (None, "$DIRNAME(/lit/file.tar.gz)"),
    ("/a/b/c.txt", "$Fnx(@ )"),
    ("$(@X)/file.txt", "$Fp(@)"),
]

LIST_CASES: list[Case] = [
    ("a, b ,c", "$CHOICE(1, @)"),
    ("a, b ,c", "$CHOICE(3, @)"),
    (None, "$CHOICE(1, x, y , z)"),
    (None, "$CHOICE(0, NOPE_NOT_DEFINED)"),
    ("2", "$CHOICE(@, p,q,r)"),
    (None, "$CHOICE(1+1, p,q,r)"),
    (None, "$CHOICE(-1, p,q,r)"),
    (None, "$CHOICE(abc, p,q,r)"),
    (None, "$CHOICE(1)"),
    ("abcdefgh", "$SUBSTR(@, 2)"),
    ("abcdefgh", "$SUBSTR(@, 2, 3)"),
    ("abcdefgh", "$SUBSTR(@, -3)"),
    ("abcdefgh", "$SUBSTR(@, 2, -2)"),
    ("abcdefgh", "$SUBSTR(@,1+1,3)"),
    ("abcdefgh", "$SUBSTR(@)"),
    ("abcdefgh", "$SUBSTR(@, x)"),
    ("abcdefgh", "$SUBSTR(@ , 1)"),
    ("abcdefgh", "$SUBSTR(@, 20)"),
    ("abcdefgh", "$SUBSTR(@, 2, 100)"),
    ("abcdefgh", "$SUBSTR(@, $(@X))"),
    (None, "$SUBSTR(lit, 1)"),
    (None, "$ENV(CPQ_MACRO_TEST)"),
    (None, "$ENV(CPQ_MACRO_UNSET)"),
    (None, "$ENV(CPQ_MACRO_UNSET:dflt)"),
]


def _config_text(cases: Sequence[Case]) -> str:
    """One file: `M<i>` holds case i's value, `MX<i>` = 3 (for nested uses), `R<i>` its use."""
    lines = []
    for i, (value, use) in enumerate(cases):
        if value is not None:
            lines.append(f"M{i} = {value.replace('@X', f'MX{i}')}")
        lines.append(f"MX{i} = 3")
        lines.append(f"R{i} = {use.replace('@X', f'MX{i}').replace('@', f'M{i}')}")
    return "\n".join(lines) + "\n"


def _expand_both(cases: Sequence[Case]) -> list[tuple[str, str | None, str | None]]:
    """(use, ours, HTCondor's) for every case."""
    env = {"CPQ_MACRO_TEST": "from env"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "macros.config"
        path.write_text(_config_text(cases))
        names = [f"R{i}" for i in range(len(cases))]
        theirs = oracle_param(path, names, env=env)
        assert not theirs.refused, theirs.message
        ours = load_config(path, env=clean_env(env))
        return [
            (use, ours.get(n), theirs.values.get(n))
            for (_, use), n in zip(cases, names, strict=True)
        ]


@pytest.mark.parametrize(
    "cases",
    [INT_CASES, REAL_CASES, STRING_CASES, EVAL_CASES, FILE_CASES, LIST_CASES],
    ids=["INT", "REAL", "STRING", "EVAL", "FILE", "CHOICE-SUBSTR-ENV"],
)
def test_function_macros_match_htcondor(cases: list[Case]) -> None:
    differ = [
        f"{value!r}: {use}: ours {mine!r}, HTCondor {theirs!r}"
        for (value, _), (use, mine, theirs) in zip(cases, _expand_both(cases), strict=True)
        if mine != theirs
    ]
    assert not differ, "\n".join(differ)


#: Uses whose HTCondor result is undefined behaviour in C (garbage, or a crash): more
#: `d`s than directories (condor_basename_plus_dirs pops an empty vector), `%p` of a
#: string or a real, `%L` / `%ll` with a double, `%ls`, a `$REAL` whose `.0` overflows
#: the buffer, an empty quoted path (strcpy_quoted copies -1 bytes: `free(): invalid size`).
UNDEFINED_CASES: list[Case] = [
    ("a/b", "$Fdd(@)"),
    ("dir/", "$Fddd(@)"),
    ('"a"', "$STRING(@,%p)"),
    ('"a"', "$STRING(@,%ls)"),
    ("1.5", "$REAL(@,%p)"),
    ("1.5", "$REAL(@,%Lf)"),
    ("1.5", "$REAL(@,%llg)"),
    ('""', "$Fnxxd(@)"),
    ('""', "$BASENAME(@)"),
    ("''", "$Fqa(@)"),
    ("1" * 60, "$REAL(@,%f)"),
]


@pytest.mark.parametrize(("value", "use"), UNDEFINED_CASES)
def test_undefined_results_are_positioned_errors(value: str, use: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "u.config"
        path.write_text(
            f"# where HTCondor's answer is garbage\nM = {value}\nR = {use.replace('@', 'M')}\n"
        )
        config = load_config(path, env=clean_env())
        with pytest.raises(ConfigError) as caught:
            config.get("R")
    error = caught.value
    assert (error.line, error.column) == (3, 5)
    assert error.format().startswith(f"{path}:3:5:")
    assert "undefined" in error.message


def test_real_buffer_overflow_refused_like_htcondor() -> None:
    """HTCondor aborts (`*** buffer overflow detected ***`) on a 55-byte `%f` of a real."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "o.config"
        path.write_text(f"M = {'1' * 60}\nSTART = $REAL(M,%f) > 0\n")
        theirs = oracle_param(path, ["START"])
        config = load_config(path, env=clean_env())
        with pytest.raises(ConfigError):
            config.get("START")
    assert theirs.refused


class _Table:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def raw(self, name: str) -> str | None:
        return self.values.get(name)


@pytest.mark.parametrize(
    "use",
    ["$INT(X)", "$INT(N,%s)", "$REAL(X)", "$STRING(N,%d)", "$CHOICE(5, a, b)", "$SUBSTR(N)"],
)
def test_strict_context_refuses_what_daemons_refuse(use: str) -> None:
    """Daemons run with `CONFIG_OPT_WANT_EXCEPT` (daemon_core_main.cpp): `might_EXCEPT`
    stops them where `condor_config_val` prints nothing."""
    table = _Table({"X": "abc", "N": "42"})
    assert expand(use, table, Context({})) in ("", "%s", "%d")
    with pytest.raises(MacroProblem):
        expand(use, table, Context({}, strict=True))


# --- generated uses ------------------------------------------------------------------

_NUMBERS = st.sampled_from(
    [
        *["0", "1", "-1", "42", "2.5", "-7.25", "1e3", "true", "false", "1+2*3", "10/4"],
        *["7 % 3", '"text"', "abc", "", " 8 ", "0x1F", "undefined", "{1, 2}", 'strcat("a", "b")'],
    ]
)
_FORMATS = st.builds(
    lambda before, flags, width, prec, length, letter, after: (
        f"{before}%{flags}{width}{prec}{length}{letter}{after}"
    ),
    st.sampled_from(["", " ", "x=", "%%"]),
    st.sampled_from(["", "-", "0", "+", " ", "#", "-0", "+ "]),
    st.sampled_from(["", "1", "5", "12"]),
    st.sampled_from(["", ".", ".0", ".3"]),
    st.sampled_from(["", "", "l", "ll", "h"]),
    st.sampled_from(list("dixXoufeEgGcs")),
    st.sampled_from(["", "!", "%%", " end"]),
)
_PATH_PIECES = st.sampled_from(["a", "b.c", "dir", ".x", "f.tar.gz", "", " sp", "é"])
_PATHS = st.builds(
    lambda lead, pieces, trail, quote: quote + lead + "/".join(pieces) + trail + quote,
    st.sampled_from(["", "/", "./", "../"]),
    st.lists(_PATH_PIECES, min_size=1, max_size=4),
    st.sampled_from(["", "/", "\\"]),
    st.sampled_from(["", "", '"', "'"]),
)
_LETTERS = st.lists(st.sampled_from(list("pnxdqabfwuPNX")), max_size=4).map("".join)


@st.composite
def _uses(draw: st.DrawFn) -> Case:
    """One macro use over a generated value."""
    family = draw(st.sampled_from(["INT", "REAL", "STRING", "EVAL", "F", "BASE", "SUB", "CHO"]))
    if family in ("INT", "REAL", "STRING"):
        fmt = draw(st.none() | _FORMATS)
        return draw(_NUMBERS), f"${family}(@{'' if fmt is None else ',' + fmt})"
    if family == "EVAL":
        return draw(_NUMBERS), "$EVAL(@)"
    if family == "F":
        return draw(_PATHS), f"$F{draw(_LETTERS)}(@)"
    if family == "BASE":
        suffix = draw(st.sampled_from(["", ", .gz", ",.C", ", tar.gz"]))
        return draw(_PATHS), draw(st.sampled_from(["$BASENAME", "$DIRNAME"])) + f"(@{suffix})"
    ints = st.integers(-12, 12).map(str)
    if family == "SUB":
        more = draw(st.none() | ints)
        return draw(_PATHS), f"$SUBSTR(@, {draw(ints)}{'' if more is None else ', ' + more})"
    return draw(_NUMBERS), f"$CHOICE({draw(ints)}, @, x, y)"


def _defined_by_htcondor(case: Case) -> bool:
    """False for the uses whose HTCondor result is C undefined behaviour (see above): our
    reader, given the same file text, refuses exactly those."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one.config"
        path.write_text(_config_text([case]))
        try:
            load_config(path, env=clean_env()).get("R0")
        except ConfigError as err:
            assert "undefined here" in err.message, err.format()
            return False
    return True


#: What random runs found (glibc reads `%llg` as a long double; an empty quoted path
#: crashes HTCondor), kept so that every run checks them.
FOUND: list[Case] = [
    ("1", "$REAL(@,x=%+1.llg)"),
    ("7 % 3", "$REAL(@,%012.lle)"),
    ('""', "$Fnxxd(@)"),
    ("1.5", "$REAL(@,%qf)"),
    ("a/b", "$Fdd(@)"),
]


@settings(max_examples=12, deadline=None)
@given(st.lists(_uses(), min_size=1, max_size=25))
@example([("a/b.c", "$Fqd(@)"), ("12", "$INT(@,%-05d)"), ("2.5", "$REAL(@,%#.0e)")])
@example(FOUND)
def test_generated_macro_uses_match_htcondor(cases: list[Case]) -> None:
    cases = [case for case in cases if _defined_by_htcondor(case)]
    differ = [
        f"{value!r}: {use}: ours {mine!r}, HTCondor {theirs!r}"
        for (value, _), (use, mine, theirs) in zip(cases, _expand_both(cases), strict=True)
        if mine != theirs
    ]
    assert not differ, "\n".join(differ)


@pytest.mark.explore
@settings(max_examples=200, deadline=None)
@given(st.lists(_uses(), min_size=1, max_size=40))
@example(FOUND)
def test_generated_macro_uses_match_htcondor_many(cases: list[Case]) -> None:
    test_generated_macro_uses_match_htcondor.hypothesis.inner_test(cases)  # type: ignore[attr-defined]
