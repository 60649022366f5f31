"""The fuzz campaign's contract, corpora and mutators (issue 10: no traceback for any input).

The contract for every input language: reading the input either succeeds or raises a
`compiler.errors.PolicyError` (which the CLI prints as `file:line:col`, exit 2). Any other
exception escapes `holds` and fails the test with the input hypothesis found.

Inputs are near-valid: a real document of the language (scenario traces, configuration
fixtures, the properties in docs/properties.md, policy expressions, the era specs) with a
few edits drawn from `NASTY` (deep nesting, huge numbers, NUL, CR/LF mixes, odd Unicode,
lone surrogates, the language's own punctuation), or random text and bytes.

Each language has a fast derandomized test (default run, a few seconds) and a larger one
marked `explore` (hypothesis's `explore` profile decides the example count there).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from compiler.errors import PolicyError

ROOT = Path(__file__).resolve().parents[2]

#: Settings of the fast tests of the default run.
FAST = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: Settings the explore tests add to the loaded profile (which sets the example count).
EXPLORE = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def holds(read: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`read(*args, **kwargs)`, where a `PolicyError` is an acceptable answer (None).

    Any other exception propagates: that is the bug the campaign looks for."""
    try:
        return read(*args, **kwargs)
    except PolicyError as err:
        assert err.message, "a PolicyError needs a message"
        err.format()  # printing it must not fail either
        return None


#: Snippets that broke (or could break) a reader: deep nesting, huge numbers, bytes and
#: characters the formats treat specially, and each language's punctuation.
NASTY: tuple[str, ...] = (
    "\0",
    "\r\n",
    "\r",
    "\n",
    "\n\n",
    "\t",
    "\v\f",
    "\ufeff",
    "\u2028",
    "\x85",
    "\x1c",
    "\udcff",
    "é",
    "😀",
    "\\",
    '"',
    "'",
    "!" * 2000,
    "-" * 2000,
    "~" * 500,
    "(" * 3000,
    ")" * 3000,
    "{" * 600,
    "[" * 600,
    "1" * 5000,
    "9" * 20,
    "-9223372036854775809",
    "9223372036854775808",
    "0x" + "f" * 20,
    "1e999",
    "-1e-999",
    "nan",
    ".inf",
    " = ",
    ":",
    ",",
    ";",
    "#",
    "/*",
    "//",
    "*/",
    "$(",
    "$(X)",
    "$ENV(",
    "$INT(",
    "@=end",
    "if ",
    "elif",
    "endif",
    "include : ",
    "use ROLE : ",
    "- ",
    "? ",
    "!!int ",
    "!!binary ",
    "&a ",
    "*a",
    "%YAML 1.1\n",
    "---\n",
    "=>",
    "within ",
    " of ",
    "Claimed/",
)


@st.composite
def _edit(draw: st.DrawFn, text: str) -> str:
    at = draw(st.integers(0, len(text)))
    match draw(st.integers(0, 5)):
        case 0 | 1:
            piece = draw(st.sampled_from(NASTY))
            return text[:at] + piece + text[at:]
        case 2:
            end = draw(st.integers(at, min(len(text), at + 40)))
            return text[:at] + text[end:]
        case 3:
            end = draw(st.integers(at, min(len(text), at + 40)))
            return text[:at] + text[at:end] * draw(st.integers(2, 50)) + text[end:]
        case 4:
            return text[:at] + draw(st.characters()) + text[at + 1 :]
        case _:
            return text[:at]


@st.composite
def mutated(draw: st.DrawFn, corpus: Sequence[str], max_edits: int = 4) -> str:
    """A document of `corpus` with up to `max_edits` nasty edits."""
    text = draw(st.sampled_from(corpus))
    for _ in range(draw(st.integers(1, max_edits))):
        text = draw(_edit(text))
    return text


@st.composite
def mutated_bytes(draw: st.DrawFn, corpus: Sequence[str]) -> bytes:
    """A document of `corpus` as UTF-8 with random bytes written into it."""
    data = bytearray(draw(mutated(corpus, max_edits=2)).encode("utf-8", "surrogatepass"))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.binary(min_size=1, max_size=4))
    return bytes(data)


def texts(corpus: Sequence[str]) -> st.SearchStrategy[str]:
    """Mutated documents, random text, and random text built from the nasty pieces."""
    return st.one_of(
        mutated(corpus),
        st.text(max_size=200),
        st.lists(st.sampled_from(NASTY), max_size=6).map("".join),
    )


# ------------------------------------------------------------------------- corpora


def _files(folder: str, pattern: str) -> tuple[str, ...]:
    return tuple(p.read_text(encoding="utf-8") for p in sorted((ROOT / folder).glob(pattern)))


@cache
def traces() -> tuple[str, ...]:
    """The scenario traces (tests/scenarios)."""
    return _files("tests/scenarios", "*/*.yaml")


@cache
def configs() -> tuple[str, ...]:
    """The project's configuration fixtures."""
    return _files("tests/compile/fixtures", "*.config") + _files(
        "tests/config/fixtures", "**/*.config"
    )


@cache
def properties() -> tuple[str, ...]:
    """The example properties of docs/properties.md, one document per example block."""
    text = (ROOT / "docs" / "properties.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", text, re.DOTALL)
    lines = [ln for ln in text.splitlines() if re.match(r"(never|always|eventually):", ln)]
    return (*blocks, "\n".join(lines) + "\n")


#: Policy expressions (manual examples, oracle surprises) as seeds for the expression fuzz.
EXPRESSIONS: tuple[str, ...] = (
    '(LoadAvg <= 0.3) && (KeyboardIdle > (15 * 60)) && Owner == "coltrane"',
    "ifThenElse(isUndefined(a), 10, 20) + {1, 2, 3}[1]",
    '[a = 1; b = a + 1].b =?= 2 || "x" =!= "X"',
    'strcat("a", string(1.5e10), substr("abcdef", -3, 2)) ?: undefined',
    'regexp("^a.*b$", "axxb", "i") && stringListMember("x", "a, x, b")',
    "-9223372036854775808 / -1 + (1 << 64) - (-8 >>> 1) * 1e308",
    "MY.Memory > TARGET.ImageSize / 1024 ? RANK : .w",
    "'a' 'b' is 1 isnt error",
    'formatTime(1000000000, "%Y-%m-%d") + size({}) + sum({1, 2.5})',
    '"\\303\\251" == "é" && "\\377" < "a"',
)


@cache
def expressions() -> tuple[str, ...]:
    """Seed expressions plus every right-hand side of the configuration fixtures."""
    found = []
    for text in configs():
        for line in text.splitlines():
            name, eq, value = line.partition("=")
            if eq and name.strip().isidentifier() and value.strip():
                found.append(value.strip())
    return EXPRESSIONS + tuple(found)


@cache
def ads() -> tuple[str, ...]:
    """Ads in the three formats."""
    return (
        'MyType = "Machine"\nMemory = 511\nLoadAvg = 0.220000\n'
        'Path = "c:\\dir\\file \\" quoted"\nStart = (LoadAvg <= 0.3) && (KeyboardIdle > 900)\n',
        "x = 1\n\nx = 2\n# comment\n",
        '[ MyType = "Machine"; Memory = 511; LoadAvg = 0.22; Start = LoadAvg <= 0.3 ]',
        '{ [ a = 1 ], [ b = "x\\377" ] }',
        '[{"MyType": "Job", "Owner": "coltrane", "ImageSize": 2000, "WantCheckpoint": false,'
        ' "Requirements": "\\/Expr(OpSys == \\"LINUX\\" && Memory > 256)\\/"}]',
        '{"a": [1, 2.5, {"b": null}], "c": "\\/Expr(a[0] + 1)\\/"}',
    )


@cache
def spec_files() -> dict[str, str]:
    """The era specs by file name (base.yaml is the vocabulary)."""
    return {
        p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "spec/eras").glob("*.yaml"))
    }
