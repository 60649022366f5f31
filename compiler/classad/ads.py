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
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from compiler.classad import ast
from compiler.classad.deep import call_deep
from compiler.classad.errors import ClassAdSyntaxError
from compiler.classad.parser import parse
from compiler.classad.scope import ClassAd
from compiler.classad.values import UNDEFINED
from compiler.textio import read_text

_LONG_LINE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=\s?(.*)\Z", re.DOTALL)
_JSON_EXPR = re.compile(r"/Expr\((.*)\)/\Z", re.DOTALL)


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


def _long_form(text: str, file: str | None) -> list[ClassAd]:
    ads: list[ClassAd] = []
    current = ClassAd()
    # Lines end at "\n" only (and a "\r" before it), as HTCondor reads them: a form feed
    # or U+0085 inside a string is part of the string, not a line break.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r")
        stripped = line.strip()
        if not stripped:
            if current:
                ads.append(current)
                current = ClassAd()
            continue
        if stripped.startswith("#"):
            continue
        match = _LONG_LINE.match(line)
        if match is None:
            raise ClassAdSyntaxError(
                "expected `Name = expression`", file=file, line=number, column=1, source_line=line
            )
        name, value = match.group(1), match.group(2)
        try:
            expr = parse(value, old_strings=True)
        except ClassAdSyntaxError as err:
            err.source_line = line
            raise _relocated(err, file, number, match.start(2) + 1) from None
        current[name] = _literal_or_expr(expr)
    if current:
        ads.append(current)
    return ads


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


def _json_value(value: Any, name: str, text: str, file: str | None) -> Any:
    if value is None:
        return UNDEFINED  # HTCondor's JSON reader: null is undefined
    if isinstance(value, str):
        match = _JSON_EXPR.match(value)
        if match is None:
            return value
        try:
            return _literal_or_expr(parse(match.group(1)))
        except ClassAdSyntaxError as err:
            at = text.find(f'"{name}"')
            line = text.count("\n", 0, at) + 1 if at >= 0 else 1
            err.file, err.line, err.column = file, line, None
            err.source_line = text.splitlines()[line - 1] if at >= 0 else None
            raise
    if isinstance(value, list):
        return [_json_value(v, name, text, file) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v, k, text, file) for k, v in value.items()}
    return value


def _json(text: str, file: str | None) -> list[ClassAd]:
    """JSON ads; nested as deeply as JSON allows (call_deep), integers read as ClassAd
    integer literals are (out of int64 range: 0; no Python digit limit)."""
    try:
        return call_deep(_json_ads, text, file)
    except RecursionError:
        raise ClassAdSyntaxError("JSON nested too deeply", file=file, line=1, column=1) from None


def _json_int(text: str) -> Any:
    return _literal_or_expr(parse(text))


def _json_ads(text: str, file: str | None) -> list[ClassAd]:
    data = json.loads(text, parse_int=_json_int)
    objects = data if isinstance(data, list) else [data]
    ads = []
    for obj in objects:
        if not isinstance(obj, dict):
            raise ClassAdSyntaxError("expected a JSON object per ad", file=file, line=1, column=1)
        ads.append(ClassAd({k: _json_value(v, k, text, file) for k, v in obj.items()}))
    return ads


def load_ads(path_or_text: str | os.PathLike[str]) -> list[ClassAd]:
    """Every ad in a file (or text) in long form, new ClassAd syntax or JSON."""
    text, file = _read(path_or_text)
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
