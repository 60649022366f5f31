"""Reading ads from files (stage: front end).

Three formats, recognised by their first character:

* long form, as `condor_status -l` and `condor_q -l` print it: one `Name = expression`
  per line, strings in old ClassAd syntax (a backslash is literal except before `"`),
  ads separated by blank lines, `#` lines ignored;
* new ClassAd syntax: `[ Name = expression; ... ]`;
* JSON, as `condor_status -json` prints it: a list of objects (or one object) whose
  expression-valued attributes are strings `"\\/Expr(text)\\/"`.

Attributes whose expression is a plain literal are stored as Python values, the rest
as parsed expressions, so the result feeds `evaluate` and `compile_expr` directly.
Errors are `ClassAdSyntaxError`s naming file, line and column.

A whole pool's dump (10,000 slots of about 200 attributes) is read in seconds and in
memory proportional to the slots (tests/bench_dump.py): a dump repeats most of its
lines and every policy expression in each slot, so each distinct long-form line and
each distinct expression text is read once and its (immutable) result shared by the
ads; plain literals (integers, reals, strings without quotes inside, booleans) are
read without the parser; attribute names are shared; an ad's dictionaries are built
in one step. The cyclic garbage collector is paused while reading.
"""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from compiler.classad import ast
from compiler.classad.deep import call_deep
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.parser import parse
from compiler.classad.scope import ClassAd
from compiler.classad.values import UNDEFINED
from compiler.textio import read_text

_LONG_LINE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=\s?(.*)\Z", re.DOTALL)
#: The range of a ClassAd integer (a literal outside it reads as 0).
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_JSON_EXPR = re.compile(r"/Expr\((.*)\)/\Z", re.DOTALL)

# The literals a dump is mostly made of, exactly as the grammar's INT / NEG_INT, REAL /
# NEG_REAL and (old-syntax) STRING terminals read them; anything else goes to the parser.
# An integer of at most 18 digits is inside int64, so its value is `int(text)`; a string
# whose body holds no `"` ends at its last quote when it ends in an even number of
# backslashes, and its value is the body itself (old syntax: only `\"` is an escape).
_FAST_LITERAL = re.compile(
    r"(?:(-?(?:0|[1-9][0-9]{0,17}))"
    r"|(-?(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+))"
    r'|"([^"\0]*)"'
    r"|(?ai:(true)|(false)))\Z"
)
_NO_LITERAL: Any = object()
#: What `_long_line` gives for a blank or comment line.
_NOT_ATTR: Any = object()


def _literal_or_expr(expr: ast.Expr) -> Any:
    match expr:
        case ast.Integer(value=v) | ast.Real(value=v) | ast.String(value=v) | ast.Boolean(value=v):
            return v
        case _:
            return expr


def _read(path_or_text: str | os.PathLike[str]) -> tuple[str, str | None]:
    """The text and the file name (None for text given directly).

    Bytes that are not UTF-8 are kept as HTCondor keeps them in ClassAd strings (see
    compiler.textio); outside a string literal the parser reports them."""
    if isinstance(path_or_text, os.PathLike):
        path = Path(path_or_text)
        return _read_file(path, str(path)), str(path)
    if "\n" not in path_or_text and path_or_text.strip() and _is_file(path_or_text):
        return _read_file(Path(path_or_text), path_or_text), path_or_text
    return path_or_text, None


def _is_file(text: str) -> bool:
    """Whether `text` names a file (an ad's text can be too long to be a name)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # ENAMETOOLONG; NUL in the text
        return False


def _read_file(path: Path, shown: str) -> str:
    return read_text(path, file=shown, error=ClassAdSyntaxError, keep_bytes=True)


def _relocated(err: ClassAdSyntaxError, file: str | None, line: int, column: int) -> Exception:
    """A parse error of a value moved to its place in the file."""
    err.file = file
    if err.line is not None:
        if err.line == 1 and err.column is not None:
            err.column += column - 1
        err.line += line - 1
    return err


def _fast_literal(text: str) -> Any:
    """The value of a plain literal (what `_literal_or_expr(parse(text, old_strings=True))`
    gives), or `_NO_LITERAL` when `text` needs the parser."""
    match = _FAST_LITERAL.match(text)
    if match is None:
        return _NO_LITERAL
    kind = match.lastindex
    if kind == 1:
        return int(text)
    if kind == 2:
        return float(text)
    if kind == 3:
        body = match.group(3)
        trailing = len(body) - len(body.rstrip("\\"))
        return _NO_LITERAL if trailing % 2 else body
    return kind == 4


class _Interner:
    """What one read shares between ads: attribute names (one string object per spelling,
    one lower-case key per name) and the value of each distinct expression text, parsed
    once (a pool repeats the same Start/Requirements in every slot)."""

    __slots__ = ("exprs", "lowered", "names", "old_strings", "strings")

    def __init__(self, old_strings: bool) -> None:
        self.names: dict[str, tuple[str, str]] = {}
        self.lowered: dict[str, str] = {}
        self.exprs: dict[str, Any] = {}
        self.strings: dict[str, str] = {}
        self.old_strings = old_strings

    def name(self, name: str) -> tuple[str, str]:
        """(lower-case key, spelling) of an attribute name, both shared."""
        found = self.names.get(name)
        if found is None:
            found = self.names[name] = (name.lower(), name)
        return found

    def key(self, name: str) -> str:
        """The lower-case key of an attribute name (one string object per name)."""
        found = self.lowered.get(name)
        if found is None:
            found = self.lowered[name] = name.lower()
        return found

    def expr(self, text: str) -> Any:
        """The stored value of an expression text: a literal's Python value or the
        (shared) tree. Raises the parser's `ClassAdSyntaxError` unchanged."""
        if self.old_strings:
            found = _fast_literal(text)
            if found is not _NO_LITERAL:
                return found
        found = self.exprs.get(text, _NO_LITERAL)
        if found is _NO_LITERAL:
            found = self.exprs[text] = _literal_or_expr(parse(text, old_strings=self.old_strings))
        return found


def _new_ad(raw: dict[str, Any], names: dict[str, str]) -> ClassAd:
    """A ClassAd over dictionaries already keyed as ClassAd keys them (lower-case name ->
    value, lower-case name -> spelling): a dump's ads are built without a method call per
    attribute."""
    ad = ClassAd()
    ad._raw = raw
    ad._names = names
    return ad


def _long_form(text: str, file: str | None) -> list[ClassAd]:
    """Long-form ads. Each distinct line is read once: a dump repeats most lines in every
    ad (`OpSys = "LINUX"`, the policy expressions), and a line's result is immutable (a
    Python literal or a tree), so later ads share it. An ad whose lines are all
    attributes is then built in one step from its lines' results."""
    ads: list[ClassAd] = []
    values: dict[str, tuple[str, Any]] = {}  # line -> (key, value)
    spellings: dict[str, tuple[str, str]] = {}  # line -> (key, spelling)
    interner = _Interner(old_strings=True)
    number = 1  # of the block's first line
    # Lines end at "\n" only (and a "\r" before it), as HTCondor reads them: a form feed
    # or U+0085 inside a string is part of the string, not a line break. An empty line
    # ends an ad, so every "\n\n" does.
    for block in text.split("\n\n"):
        lines = block.split("\n")
        plain = True
        for line in [line for line in lines if line not in values]:
            if line in values:  # twice in this block
                continue
            hit = _long_line(line, lines, number, file, interner)
            if hit is _NOT_ATTR:
                plain = False
                continue
            key, spelling, value = hit
            values[line] = (key, value)
            spellings[line] = (key, spelling)
        if plain:
            raw = dict(map(values.__getitem__, lines))
            ads.append(_new_ad(raw, dict(map(spellings.__getitem__, lines))))
        else:
            _add_line_by_line(lines, values, spellings, ads)
        number += len(lines) + 1
    return ads


def _add_line_by_line(
    lines: list[str],
    values: dict[str, tuple[str, Any]],
    spellings: dict[str, tuple[str, str]],
    ads: list[ClassAd],
) -> None:
    """The ads of a block that holds blank or comment lines (a blank line ends an ad)."""
    raw: dict[str, Any] = {}
    names: dict[str, str] = {}
    for line in lines:
        if line in values:
            key, value = values[line]
            raw[key] = value
            names[key] = spellings[line][1]
        elif raw and not line.strip():
            ads.append(_new_ad(raw, names))
            raw, names = {}, {}
    if raw:
        ads.append(_new_ad(raw, names))


def _long_line(
    raw_line: str, lines: list[str], first: int, file: str | None, interner: _Interner
) -> Any:
    """(key, spelling, value) of one `Name = expression` line of `lines` (a block whose
    first line is line `first`); `_NOT_ATTR` for a blank or comment line."""
    line = raw_line.removesuffix("\r")
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return _NOT_ATTR
    name, sep, value = line.partition(" = ")
    if sep and (name in interner.names or _NAME.match(name)):
        start = len(name) + 4
    else:
        match = _LONG_LINE.match(line)
        if match is None:
            raise ClassAdSyntaxError(
                "expected `Name = expression`",
                file=file,
                line=first + lines.index(raw_line),
                column=1,
                source_line=line,
            )
        name, value, start = match.group(1), match.group(2), match.start(2) + 1
    try:
        result = interner.expr(value)
    except ClassAdSyntaxError as err:
        err.source_line = line
        raise _relocated(err, file, first + lines.index(raw_line), start) from None
    key, spelling = interner.name(name)
    return key, spelling, result


def _new_syntax(text: str, file: str | None) -> list[ClassAd]:
    try:
        expr = parse(text)
    except ClassAdSyntaxError as err:
        err.file = file
        raise
    records = expr.items if isinstance(expr, ast.ListExpr) else (expr,)
    ads = []
    for record in records:
        if not isinstance(record, ast.RecordExpr):
            span = record.span
            raise ClassAdSyntaxError(
                "expected an ad `[ Name = expression; ... ]`",
                file=file,
                line=span.line if span else 1,
                column=span.column if span else 1,
            )
        ads.append(ClassAd({name: _literal_or_expr(value) for name, value in record.attrs}))
    return ads


def _json_expr(body: str, name: str, text: str, file: str | None, interner: _Interner) -> Any:
    """The value of a `"\\/Expr(body)\\/"` string (parsed once per distinct body)."""
    try:
        return interner.expr(body)
    except ClassAdSyntaxError as err:
        at = text.find(f'"{name}"')
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        err.file, err.line, err.column = file, line, None
        err.source_line = text.splitlines()[line - 1] if at >= 0 else None
        raise


def _json_value(value: Any, name: str, text: str, file: str | None, interner: _Interner) -> Any:
    if value is None:
        return UNDEFINED  # HTCondor's JSON reader: null is undefined
    if isinstance(value, str):
        match = _JSON_EXPR.match(value)
        if match is None:
            return value
        return _json_expr(match.group(1), name, text, file, interner)
    if isinstance(value, list):
        return [_json_value(v, name, text, file, interner) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v, k, text, file, interner) for k, v in value.items()}
    if value.__class__ is int and not _INT64_MIN <= value <= _INT64_MAX:
        return 0  # as HTCondor's lexer reads an integer literal out of range
    return value


def _json(text: str, file: str | None) -> list[ClassAd]:
    """JSON ads; nested as deeply as JSON allows (call_deep), integers read as ClassAd
    integer literals are (out of int64 range: 0; no Python digit limit)."""
    try:
        return call_deep(_json_ads, text, file)
    except RecursionError:
        raise ClassAdSyntaxError("JSON nested too deeply", file=file, line=1, column=1) from None


def _json_int(text: str) -> Any:
    # JSON integers are `-?(0|[1-9][0-9]*)`: up to 18 characters they are inside int64.
    return int(text) if len(text) <= 18 else _literal_or_expr(parse(text))


def _json_load(text: str) -> Any:
    """The JSON value of `text`. Integers are read by the decoder itself (fast) and put
    back in int64 range afterwards; only a text with an integer too long for Python's
    `int()` is read again with `_json_int` for every integer."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return json.loads(text, parse_int=_json_int)


def _json_ads(text: str, file: str | None) -> list[ClassAd]:
    """The ads of a JSON text. json.loads shares each object key between objects; here
    identical string values and expression bodies are shared too, and each distinct
    expression body is parsed once."""
    data = _json_load(text)
    objects = data if isinstance(data, list) else [data]
    interner = _Interner(old_strings=False)
    lowered = interner.lowered
    strings = interner.strings
    ads = []
    for obj in objects:
        if not isinstance(obj, dict):
            raise ClassAdSyntaxError("expected a JSON object per ad", file=file, line=1, column=1)
        found = list(map(lowered.get, obj))
        keys = list(map(interner.key, obj)) if None in found else cast("list[str]", found)
        raw = dict(zip(keys, obj.values(), strict=True))
        if len(raw) < len(obj):  # names that differ only in case: the last one counts
            raw = {}
            for key, (name, value) in zip(keys, obj.items(), strict=True):
                raw[key] = _json_value(value, name, text, file, interner)
            ads.append(_new_ad(raw, dict(zip(keys, obj, strict=True))))
            continue
        names = dict(zip(keys, obj, strict=True))
        for key, value in raw.items():
            kind = value.__class__
            if kind is str:
                if value.startswith("/Expr(") and value.endswith(")/"):
                    raw[key] = _json_expr(value[6:-2], names[key], text, file, interner)
                else:
                    raw[key] = strings.setdefault(value, value)
            elif kind is int:
                if not _INT64_MIN <= value <= _INT64_MAX:
                    raw[key] = 0
            elif kind is list or kind is dict or value is None:
                raw[key] = _json_value(value, names[key], text, file, interner)
        ads.append(_new_ad(raw, names))
    return ads


@contextmanager
def _without_gc() -> Iterator[None]:
    """No cyclic garbage collection while a dump is read: reading builds millions of
    acyclic objects (dictionaries, tuples), and the collector's passes over them cost
    as much as the reading itself. The collector's state is restored afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_ads(path_or_text: str | os.PathLike[str]) -> list[ClassAd]:
    """Every ad in a file (or text) in long form, new ClassAd syntax or JSON."""
    text, file = _read(path_or_text)
    with _without_gc():
        return _load(text, file)


def _load(text: str, file: str | None) -> list[ClassAd]:
    start = text.lstrip()[:1]
    if start in ("{", "["):
        try:
            return _json(text, file)
        except json.JSONDecodeError as err:
            if start == "{":
                lines = text.splitlines()
                raise ClassAdSyntaxError(
                    f"invalid JSON: {err.msg}",
                    file=file,
                    line=err.lineno,
                    column=err.colno,
                    source_line=lines[err.lineno - 1] if err.lineno <= len(lines) else None,
                ) from None
        return _new_syntax(text, file)
    return _long_form(text, file)


def load_ad(path_or_text: str | os.PathLike[str]) -> ClassAd:
    """The single ad in a file (or text); see `load_ads` for the formats."""
    ads = load_ads(path_or_text)
    if len(ads) != 1:
        file = _read(path_or_text)[1]
        raise ClassAdSyntaxError(f"expected exactly one ad, found {len(ads)}", file=file, line=1)
    return ads[0]
