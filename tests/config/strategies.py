"""Hypothesis strategies that write HTCondor configuration files from a small grammar.

The grammar covers the reader's features: assignments with `=`, `:` and `+=`, macro
references (nested, with defaults, `$ENV`, `$(DOLLAR)`, `$$()`), self references,
continuations (with spaces after the backslash, indentation, comment lines inside),
comments, blank lines, `if`/`elif`/`else`/`endif`, `@=` blocks and `use` templates.

To keep the real reader from spinning forever on cyclic macros, a value may refer only to
itself or to names later in `NAMES` (helper macros come last, and templates only refer to
helper macros).
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Names in dependency order: a value may refer to itself or to later names only.
NAMES = (
    "START",
    "SUSPEND",
    "PREEMPT",
    "WANT_SUSPEND",
    "KILL",
    "Alpha",
    "beta",
    "GAMMA",
    "Delta",
    "eps",
    "StartIdleTime",
    "ContinueIdleTime",
    "MINUTE",
)

#: Placeholder for the directory the test writes the files to (include paths).
DIR = "@DIR@"

TEMPLATES = (
    "POLICY : Desktop",
    "POLICY : UWCS_Desktop",
    "POLICY : Always_Run_Jobs",
    "POLICY : Limit_Job_Runtimes",
    "POLICY : Limit_Job_Runtimes(3600)",
    "policy : preempt_if_memory_exceeded",
    "POLICY : Hold_If_Memory_Exceeded",
    "POLICY : Preempt_If_Runtime_Exceeds(7200)",
    "POLICY : Want_Hold_If(Alpha, 42, too big)",
    "POLICY : Preempt_If(beta)",
    "FEATURE : UWCS_Desktop_Policy_Values",
    "POLICY : Desktop, Limit_Job_Runtimes(100)",
)

_WORDS = st.sampled_from(
    ["True", "FALSE", "KeyboardIdle", "x", "10", "0.5", "Owner", '"coltrane"', "time()", "3"]
)
_OPS = st.sampled_from([" && ", " || ", " > ", " == ", " + ", "*", " ", ", "])


def _case(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.lower()])


def _assigned_name(name: str) -> st.SearchStrategy[str]:
    """A spelling of NAME for the left-hand side, sometimes with the STARTD. prefix."""
    return st.one_of(_case(name), _case(name), _case(name), st.just(f"STARTD.{name}"))


def _reference(owner: int) -> st.SearchStrategy[str]:
    """A macro reference allowed in the value of NAMES[owner]."""
    allowed = NAMES[owner:]
    name = st.sampled_from(allowed).flatmap(_case)
    plain = name.map(lambda n: f"$({n})")
    with_default = st.tuples(name, _WORDS).map(lambda t: f"$({t[0]}:{t[1]})")
    # A self reference inside another macro's default survives assignment and makes
    # HTCondor spin forever at look-up; keep that rare (later names only, usually).
    later = st.sampled_from(NAMES[owner + 1 :] or NAMES[-1:]).flatmap(_case)
    nested_default = st.tuples(name, later, _WORDS).map(lambda t: f"$({t[0]}:$({t[1]}:{t[2]}))")
    undefined = st.sampled_from(["$(NOT_DEFINED_ANYWHERE)", "$(undefined_x:fallback)"])
    env = st.sampled_from(["$ENV(HOME)", "$ENV(CPQ_UNSET_VAR)", "$ENV(CPQ_UNSET_VAR:dflt)"])
    special = st.sampled_from(["$(DOLLAR)", "$$(Memory)", "$$([Cpus*2])", "$(DOLLAR)(X)"])
    return st.one_of(plain, plain, with_default, nested_default, undefined, env, special)


def value(owner: int) -> st.SearchStrategy[str]:
    """A value for NAMES[owner]: words and references joined by operators."""
    atom = st.one_of(_WORDS, _reference(owner), _WORDS.map(lambda w: f"({w})"))
    return st.lists(st.tuples(atom, _OPS), min_size=1, max_size=5).map(
        lambda parts: "".join(a + o for a, o in parts[:-1]) + parts[-1][0]
    )


@st.composite
def continued(draw: st.DrawFn, text: str) -> list[str]:
    """Split `text` into physical lines joined by trailing backslashes."""
    if len(text) < 4 or not draw(st.booleans()):
        return [text]
    cut = draw(st.integers(1, len(text) - 1))
    first, rest = text[:cut], text[cut:]
    spaces_after = draw(st.sampled_from(["", " ", "  \t"]))
    indent = draw(st.sampled_from(["", "   ", "\t"]))
    lines = [first + "\\" + spaces_after]
    if draw(st.integers(0, 5)) == 0:
        lines.append(draw(st.sampled_from(["# commented \\", "  #  note\\"])))
    lines.append(indent + rest)
    return lines


@st.composite
def assignment(draw: st.DrawFn) -> list[str]:
    owner = draw(st.integers(0, len(NAMES) - 1))
    name = draw(_assigned_name(NAMES[owner]))
    text = draw(value(owner))
    op = draw(
        st.sampled_from([" = ", "=", " = ", "  =\t", " : ", " += ", " +,= ", " +&&= ", " +||= "])
    )
    lead = draw(st.sampled_from(["", "", "  "]))
    trail = draw(st.sampled_from(["", "", " ", "\t"]))
    return draw(continued(f"{lead}{name}{op}{text}{trail}"))


@st.composite
def here_block(draw: st.DrawFn) -> list[str]:
    owner = draw(st.integers(0, len(NAMES) - 1))
    name = draw(_case(NAMES[owner]))
    body = draw(st.lists(value(owner), min_size=1, max_size=3))
    lines = [f"{name} @=end"]
    for line in body:
        lines.append(draw(st.sampled_from(["", "  "])) + line)
        if draw(st.integers(0, 4)) == 0:
            lines.append("# a comment inside")
    lines.append("@end")
    return lines


_CONDITIONS = st.one_of(
    st.sampled_from(
        [
            "true",
            "false",
            "True",
            "yes",
            "no",
            "0",
            "1",
            "2.5",
            "-1",
            "defined START",
            "defined Alpha",
            "! defined beta",
            "defined MINUTE",
            "defined NOT_THERE",
            "version >= 8.0",
            "version < 9.1.3",
            "version == 25.14",
            "version != 25.14.1",
            "defined use POLICY:Desktop",
            "defined true",
        ]
    ),
    st.sampled_from(NAMES).map(lambda n: f"$({n}:false)"),
)


@st.composite
def conditional(draw: st.DrawFn, depth: int) -> list[str]:
    lines = [f"if {draw(_CONDITIONS)}"]
    lines += draw(body(depth + 1))
    if draw(st.booleans()):
        lines.append(f"elif {draw(_CONDITIONS)}")
        lines += draw(body(depth + 1))
    if draw(st.booleans()):
        lines.append("else")
        lines += draw(body(depth + 1))
    lines.append("endif")
    return lines


def statement(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        assignment(),
        assignment(),
        assignment(),
        here_block(),
        st.sampled_from(TEMPLATES).map(lambda t: [f"use {t}"]),
        st.sampled_from(
            [
                f"include : {DIR}/sub.config",
                f"include ifexist : {DIR}/missing.config",
                f"include ifexist : {DIR}/sub.config",
                f"@include : {DIR}/sub.config",
            ]
        ).map(lambda s: [s]),
        st.sampled_from(["# comment", "", "   ", "#  trailing \\", "[Section]"]).map(lambda s: [s]),
        st.sampled_from(
            [
                "warning : careful $(MINUTE)",
                ": Alpha = colon-prefixed",
                "if false\nerror : never\nendif",
            ]
        ).map(lambda s: s.split("\n")),
    )
    if depth >= 2:
        return simple
    return st.one_of(simple, simple, simple, conditional(depth))


def body(depth: int) -> st.SearchStrategy[list[str]]:
    return st.lists(statement(depth), min_size=0, max_size=4).map(
        lambda groups: [line for group in groups for line in group]
    )


@st.composite
def config_text(draw: st.DrawFn, includes: bool = True) -> str:
    """A whole configuration file (`includes=False`: one that includes nothing)."""
    groups = draw(st.lists(statement(0), min_size=1, max_size=10))
    if not includes:
        groups = [
            g for g in groups if not any(line.lstrip("@").startswith("include") for line in g)
        ]
    lines = [line for group in groups for line in group]
    ending = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = ending.join(lines)
    if draw(st.integers(0, 3)) > 0:
        text += ending
    return text


@st.composite
def config_files(draw: st.DrawFn) -> tuple[str, str]:
    """A main file and `sub.config`, which the main file may include."""
    return draw(config_text()), draw(config_text(includes=False))
