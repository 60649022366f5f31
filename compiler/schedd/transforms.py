"""Job transforms: JOB_TRANSFORM_NAMES read, parsed and applied to a job ad (stage:
configuration -> checked transform rules -> a transformed ad).

Facts from HTCondor 23.0 (cite, do not copy):

* src/condor_schedd.V6/job_transforms.cpp `JobTransforms::initAndReconfig`: the names of
  JOB_TRANSFORM_NAMES in order (`NAMES` skipped, any case); each `JOB_TRANSFORM_<name>` is
  taken unexpanded; a value starting with `[` is the older ClassAd form, expanded and
  converted (src/condor_utils/xform_utils.cpp `ConvertClassadJobRouterRouteToXForm`);
  otherwise it is the native language (`MacroStreamXFormSource::open`, which takes out
  the `NAME`, `UNIVERSE`, `REQUIREMENTS` and `TRANSFORM` statements: a keyword followed
  by a blank and not by `=` or `:`; the rest stops at a `TRANSFORM` line). A transform
  whose REQUIREMENTS does not parse is dropped by the schedd; here that is a positioned
  error.
* `JobTransforms::transformJob`: every transform whose requirements match the (already
  transformed) job is applied, in order; `MacroStreamXFormSource::matches`: no
  requirements matches, else the job ad alone is MY and the value must be a boolean or a
  number that is not 0. Temporary macros live for the whole job (all its transforms).
* `TransformClassAd` runs the rules with `Parse_macros` in submit syntax
  (src/condor_utils/config.cpp): `NAME = value` and `NAME @=tag ... @tag` define
  temporary macros; any other line goes to `ParseRulesCallback`: a keyword from
  COPY, DEFAULT, DELETE, EVALMACRO, EVALSET, NAME, RENAME, REQUIREMENTS, SET, TRANSFORM,
  UNIVERSE (any case; another word is "not a valid transform keyword" and fails the
  transform), then an attribute (for COPY, RENAME, DELETE also `/regex/flags`, always
  case-insensitive), then for two-argument keywords an optional `=` or `,` and the value:
  the rest of the line, macro-expanded (`$(name)`: temporary macros, then `$(MY.attr)`
  from the job ad -- a string's text, else the expression's text --, then the
  configuration; unknown names expand to nothing).
  SET/DEFAULT parse the value as an expression (DEFAULT only when the attribute is
  absent); EVALSET evaluates it against the job and stores the value; EVALMACRO stores
  the value's text as a macro; COPY/RENAME need a valid new attribute name; a regex
  form acts on every matching attribute, `\\N` in the new name being group N. A value
  that does not parse, or a new name that is not valid, is skipped silently (the schedd
  passes no log flags).

What this module must not do: print, or read anything but the configuration it is given.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compiler.classad import (
    ClassAd,
    ClassAdSyntaxError,
    evaluate,
    format_value,
    parse,
    unparse,
)
from compiler.classad import ast as A
from compiler.classad.functions_context import FunctionContext
from compiler.config import Config
from compiler.config.expand import Context, MacroCycle, MacroProblem, expand, expand_self
from compiler.errors import PolicyError, raise_all
from compiler.schedd.tokens import Regex, next_token, read_regex


class TransformError(PolicyError):
    """A transform the schedd cannot use (positioned at the offending line)."""


#: Keyword -> (number of arguments, regex form allowed); xform_utils.cpp `ActionKeywordItems`.
KEYWORDS: dict[str, tuple[int, bool]] = {
    "COPY": (2, True),
    "DEFAULT": (2, False),
    "DELETE": (1, True),
    "EVALMACRO": (2, False),
    "EVALSET": (2, False),
    "NAME": (0, False),
    "RENAME": (2, True),
    "REQUIREMENTS": (0, False),
    "SET": (2, False),
    "TRANSFORM": (0, False),
    "UNIVERSE": (1, False),
}

#: The schedd's temporary-macro defaults (xform_utils.cpp `XFormBasicMacroDefaults`):
#: a proc ad of a job that is not late-materialised, on Linux.
BASIC_DEFAULTS: dict[str, str] = {
    "ISCLUSTERAD": "0",
    "ISLINUX": "1",
    "ISWINDOWS": "0",
    "ITERATING": "0",
    "LATEMATERIALIZATION": "0",
}

#: The seed of `random()` while transforming (HTCondor's is not reproducible).
RANDOM_SEED = 0

_VALID_ATTR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_VALID_PARAM = re.compile(r"[A-Za-z0-9_./]+\Z")
_CONDITIONALS = ("if", "elif", "else", "endif")


@dataclass(frozen=True, slots=True)
class Where:
    """A statement's place: file, 1-based line and column, and the line's text."""

    file: str | None
    line: int | None
    column: int | None
    source_line: str | None = None

    def error(self, message: str) -> TransformError:
        return TransformError(
            message,
            file=self.file,
            line=self.line,
            column=self.column,
            source_line=self.source_line,
        )


@dataclass(frozen=True, slots=True)
class MacroDef:
    """`name = value` (or an `@=` block): a temporary macro for this job."""

    name: str
    value: str
    where: Where


@dataclass(frozen=True, slots=True)
class Action:
    """A keyword statement. `rhs` is the raw rest of the line from the value on (None for
    one-argument keywords), expanded each time the rule runs."""

    keyword: str
    attr: str
    rhs: str | None
    where: Where
    regex: Regex | None = None
    text: str = ""


Statement = MacroDef | Action


@dataclass(frozen=True, slots=True)
class Transform:
    """One JOB_TRANSFORM_<name> as the schedd keeps it."""

    name: str
    statements: tuple[Statement, ...]
    requirements: A.Expr | None = None
    requirements_text: str | None = None
    universe: str | None = None
    classad_form: bool = False
    where: Where = field(default=Where(None, None, None))


# -- reading ----------------------------------------------------------------------------


def _names(text: str | None) -> list[str]:
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def _meta(line: str, keyword: str) -> str | None:
    """`is_xform_statement`: the text after `keyword` when the line is that statement."""
    stripped = line.lstrip()
    size = len(keyword)
    if stripped[:size].lower() != keyword.lower() or len(stripped) <= size:
        return None
    if not stripped[size].isspace():
        return None
    rest = stripped[size:].lstrip()
    if rest[:1] in ("=", ":"):
        return None
    return rest


def _source_lines(where: Where, count: int, body: list[str]) -> list[Where]:
    """Each body line's place in the configuration file: the value of an `@=` block
    starts on the line after the definition (blank and comment lines, which the reader
    drops from the value, are skipped here too); a one-line value is on the definition's
    line."""
    if where.file is None or where.line is None:
        return [where] * count
    try:
        text = Path(where.file).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return [where] * count
    lines = text.splitlines()
    if count == 1 and where.line - 1 < len(lines) and "@=" not in lines[where.line - 1]:
        raw = lines[where.line - 1]
        equals = raw.find("=")
        start = equals + 1 if equals >= 0 else 0
        while start < len(raw) and raw[start] in " \t":
            start += 1
        return [Where(where.file, where.line, start + 1, raw)]
    found: list[Where] = []
    index = where.line  # 0-based index of the line after the definition
    for wanted in body:
        target = wanted.strip()
        while index < len(lines) and lines[index].strip() != target:
            index += 1
        if index >= len(lines):
            found.append(where)
            continue
        raw = lines[index]
        column = len(raw) - len(raw.lstrip()) + 1
        found.append(Where(where.file, index + 1, column, raw))
        index += 1
    return found


def parse_native(name: str, text: str, where: Where = Where(None, None, None)) -> Transform:
    """A native transform's text read as `MacroStreamXFormSource::open` and
    `Parse_macros` read it; every problem that would fail the transform is raised
    (all of them at once), positioned at its line."""
    raw_lines = [line for line in re.split(r"[\r\n]+", text) if line]
    places = _source_lines(where, len(raw_lines), raw_lines)
    requirements: A.Expr | None = None
    requirements_text: str | None = None
    universe: str | None = None
    body: list[tuple[str, Where]] = []
    errors: list[PolicyError] = []
    for line, place in zip(raw_lines, places, strict=True):
        first = line.lstrip(" \t")[:1].lower()
        if first == "n" and _meta(line, "name") is not None:
            continue  # the schedd keeps the configuration's name
        if first == "u" and (rest := _meta(line, "universe")) is not None:
            universe = rest.strip()
            continue
        if first == "r" and (rest := _meta(line, "requirements")) is not None:
            try:
                requirements, requirements_text = parse(rest), rest.strip()
            except ClassAdSyntaxError as err:
                reason = getattr(err, "message", str(err))
                errors.append(
                    place.error(
                        f"JOB_TRANSFORM_{name}: invalid REQUIREMENTS ({reason}): {rest.strip()}; "
                        "the schedd ignores this whole transform"
                    )
                )
            continue
        if first == "t" and _meta(line, "transform") is not None:
            break
        body.append((line, place))
    statements = _statements(name, body, errors)
    raise_all(errors)
    return Transform(
        name, tuple(statements), requirements, requirements_text, universe, False, where
    )


def _statements(
    name: str, body: list[tuple[str, Where]], errors: list[PolicyError]
) -> list[Statement]:
    """`Parse_macros` in submit syntax over the rule lines."""
    out: list[Statement] = []
    here: tuple[str, str, Where, list[str]] | None = None
    for raw, place in body:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if here is not None:
            macro, tag, start, collected = here
            if line == "@" + tag:
                out.append(MacroDef(macro, "\n".join(collected), start))
                here = None
            else:
                collected.append(line)
            continue
        word = re.match(r"[^\s=:]*", line)
        head = word.group(0) if word else ""
        if head.lower() in _CONDITIONALS:
            errors.append(
                place.error(
                    f"JOB_TRANSFORM_{name}: '{head}' blocks in a transform are not modelled "
                    "by condor-policy yet"
                )
            )
            continue
        statement = _line(name, line, place, errors)
        if isinstance(statement, tuple):
            here = (statement[0], statement[1], place, [])
        elif statement is not None:
            out.append(statement)
    if here is not None:
        errors.append(
            here[2].error(
                f"JOB_TRANSFORM_{name}: '@{here[1]}' not found before the end of the transform"
            )
        )
    return out


def _line(
    name: str, line: str, place: Where, errors: list[PolicyError]
) -> Statement | tuple[str, str] | None:
    """One logical line: a macro definition, the start of an `@=` block (name, tag), or a
    keyword statement."""
    head_end = 0
    while head_end < len(line) and not line[head_end].isspace() and line[head_end] not in "=:":
        head_end += 1
    if head_end >= len(line):
        return _action(name, line, place, errors)
    head = line[:head_end]
    rest = line[head_end:]
    op = ""
    words_before_op = False
    if rest[0] in "=:":
        op, value = rest[0], rest[1:]
    else:
        stripped = rest.lstrip()
        words_before_op = bool(stripped) and stripped[0] not in "=:@"
        cut = re.search(r"[=:@]", stripped)
        value = ""
        if cut is not None:
            op = stripped[cut.start()]
            value = stripped[cut.end() :]
            if op == "@":
                if value[:1] == "=":
                    value = value[1:]
                else:
                    op = ""
    if head.lower() in ("include", "use", "error", "warning") and op == ":":
        errors.append(
            place.error(f"JOB_TRANSFORM_{name}: '{head}' in a transform is not modelled yet")
        )
        return None
    if words_before_op or op not in ("=", "@"):
        return _action(name, line, place, errors)
    if head.startswith(("+", "-")) and op == "=":
        return MacroDef("MY." + head[1:], value.strip() if head[0] == "+" else "", place)
    if not _VALID_PARAM.fullmatch(head):
        errors.append(place.error(f"JOB_TRANSFORM_{name}: illegal macro name <{head}>"))
        return None
    if op == "@":
        return (head, value.strip())
    return MacroDef(head, value.strip(), place)


def _action(name: str, line: str, place: Where, errors: list[PolicyError]) -> Action | None:
    """`ParseRulesCallback`'s reading of a keyword statement (its checks that fail the
    transform, and nothing that depends on the job)."""

    def fail(message: str, column: int = 0) -> None:
        shifted = place
        if column and place.column is not None:
            shifted = Where(place.file, place.line, place.column + column, place.source_line)
        errors.append(shifted.error(f"JOB_TRANSFORM_{name}: {message}"))

    first = next_token(line, 0)
    if first is None:
        return None
    keyword = first.text.upper()
    if keyword not in KEYWORDS:
        fail(
            f"{first.text} is not a valid transform keyword (one of {', '.join(sorted(KEYWORDS))})",
            first.start,
        )
        return None
    arguments, regex_allowed = KEYWORDS[keyword]
    second = next_token(line, first.end)
    if second is None:
        if keyword != "TRANSFORM":
            fail(f"{keyword} needs an argument")
        return None
    regex: Regex | None = None
    if regex_allowed and not second.quote and second.text.startswith("/"):
        regex = read_regex(line, second.start)
        if regex is None:
            fail("invalid regex (a closing '/' and only the flags g, m, i, U)", second.start)
            return None
        attr = regex.pattern
        after = regex.end
    else:
        attr = second.text
        if attr[-1:] in (",", "="):
            attr = attr[:-1]
        after = second.end
    value_token = second
    if arguments == 2:
        third = next_token(line, after)
        if third is not None and third.text in ("=", ",") and not third.quote:
            third = next_token(line, third.end)
        if third is None:
            fail(f"{keyword} needs 2 arguments")
            return None
        value_token = third
    rhs = line[value_token.start :] if arguments == 2 else None
    return Action(keyword, attr, rhs, place, regex, line)


def job_transforms(config: Config) -> tuple[Transform, ...]:
    """JOB_TRANSFORM_NAMES read as `JobTransforms::initAndReconfig` reads it."""
    found: list[Transform] = []
    errors: list[PolicyError] = []
    for name in _names(config.get("JOB_TRANSFORM_NAMES")):
        if name.upper() == "NAMES":
            continue
        knob = f"JOB_TRANSFORM_{name}"
        raw = config.raw(knob)
        if raw is None or not raw.strip():
            continue  # "JOB_TRANSFORM_<name> not defined (or empty), ignoring."
        where = _definition_place(config, knob)
        try:
            if raw.lstrip().startswith("["):
                found.append(parse_classad_form(name, config.get(knob) or "", where))
            else:
                found.append(parse_native(name, raw.lstrip(), where))
        except PolicyError as err:
            errors.extend(getattr(err, "errors", (err,)))
    raise_all(errors)
    return tuple(found)


def _definition_place(config: Config, knob: str) -> Where:
    found = config.definition(knob)
    if found is None:
        return Where("<Default>", None, None)
    origin = found.origin
    return Where(origin.file, origin.line or None, origin.column if origin.line else None)


# -- the older ClassAd form ----------------------------------------------------------------


def _untarget(expr: A.Expr) -> A.Expr:
    """`strip_target_attr_ref`: `TARGET.x` -> `x`."""
    if isinstance(expr, A.AttrRef) and expr.scope == "TARGET":
        return A.AttrRef(expr.name)
    return A.map_children(expr, _untarget)


def classad_form_text(name: str, text: str, where: Where = Where(None, None, None)) -> str:
    """The native rules `ConvertClassadJobRouterRouteToXForm` writes for a transform in
    the ClassAd form (what the schedd then reads), as text."""
    try:
        route = parse(text)
    except ClassAdSyntaxError as err:
        reason = getattr(err, "message", str(err))
        raise where.error(
            f"JOB_TRANSFORM_{name} is not a valid ClassAd ({reason}); "
            "the schedd ignores this transform"
        ) from None
    if not isinstance(route, A.RecordExpr):
        raise where.error(f"JOB_TRANSFORM_{name} starts with '[' but is not one ClassAd")
    title = name
    universe = ""
    requirements = ""
    assignments: dict[str, tuple[str, str]] = {}
    copies: dict[str, tuple[str, str]] = {}
    deletes: dict[str, str] = {}
    sets: dict[str, tuple[str, str]] = {}
    evalsets: dict[str, tuple[str, str]] = {}
    for attr, expr in route.attrs:
        lower = attr.lower()
        if lower.startswith("copy_"):
            target = evaluate(expr, {}, None)
            if isinstance(target, str):
                copies[attr[5:].lower()] = (attr[5:], target)
        elif lower.startswith("delete_"):
            deletes[attr[7:].lower()] = attr[7:]
        elif lower.startswith("set_"):
            sets[attr[4:].lower()] = (attr[4:], unparse(expr))
        elif lower.startswith("eval_set_"):
            evalsets[attr[9:].lower()] = (attr[9:], unparse(expr))
        elif lower == "name":
            value = evaluate(expr, {}, None)
            title = value if isinstance(value, str) else title
        elif lower == "targetuniverse":
            value = evaluate(expr, {}, None)
            universe = str(value) if isinstance(value, int) and value else ""
        elif lower == "requirements":
            requirements = unparse(_untarget(expr))
        else:
            shown = expr.value if isinstance(expr, A.String) else unparse(expr)
            assignments[lower] = (attr, shown)
    lines = [f"# autoconversion of route '{title}' from new-classad syntax", f"NAME {title}"]
    if universe:
        lines.append(f"UNIVERSE {universe}")
    if requirements:
        lines.append(f"REQUIREMENTS {requirements}")
    lines += [f"{a} = {v}" for _, (a, v) in sorted(assignments.items())]
    lines += [f"COPY {a} {v}" for _, (a, v) in sorted(copies.items())]
    lines += [f"DELETE {a}" for _, a in sorted(deletes.items())]
    lines += [f"SET {a} {v}" for _, (a, v) in sorted(sets.items())]
    lines += [f"EVALSET {a} {v}" for _, (a, v) in sorted(evalsets.items())]
    return "\n".join(lines)


def parse_classad_form(name: str, text: str, where: Where = Where(None, None, None)) -> Transform:
    """A `[ Requirements = ...; set_X = ...; copy_X = ...; delete_X = ... ]` transform:
    converted to native rules (copy_*, then delete_*, set_*, eval_set_*, each sorted by
    attribute name) and read as those."""
    converted = classad_form_text(name, text, where)
    transform = parse_native(name, converted)
    single = Where(where.file, where.line, where.column)  # every rule: the definition
    statements = tuple(_moved(s, single) for s in transform.statements)
    return Transform(
        name,
        statements,
        transform.requirements,
        transform.requirements_text,
        transform.universe,
        True,
        where,
    )


def _moved(statement: Statement, where: Where) -> Statement:
    if isinstance(statement, MacroDef):
        return MacroDef(statement.name, statement.value, where)
    return Action(
        statement.keyword,
        statement.attr,
        statement.rhs,
        where,
        statement.regex,
        statement.text,
    )


# -- applying ------------------------------------------------------------------------------


UserMapFn = Callable[[str, str], str | None]


@dataclass(frozen=True, slots=True)
class TransformResult:
    """The transformed ad, the transforms applied (in order) and what the schedd would do
    silently (`notes`: a SET value that does not parse, an invalid new name ...)."""

    ad: ClassAd
    applied: tuple[str, ...]
    notes: tuple[str, ...] = ()


def _is_true(value: object) -> bool:
    """`Value::IsBooleanValueEquiv` and its truth."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    return False


def _text_of(raw: object) -> str:
    """`$(MY.attr)`: a string's own text, any other value's ClassAd text."""
    if isinstance(raw, A.String):
        return raw.value
    if isinstance(raw, str):
        return raw
    if isinstance(raw, A.Expr):
        return unparse(raw)
    return format_value(raw)


class _Macros:
    """The look-up of a macro name while a job is transformed (config.cpp `lookup_macro`
    with the transform's context): temporary macros, their defaults, `MY.attr` from the
    job, then the configuration."""

    def __init__(self, config: Config | None, ad: ClassAd, local: dict[str, str]) -> None:
        self.config = config
        self.ad = ad
        self.local = local

    def raw(self, name: str) -> str | None:
        key = name.upper()
        if key in self.local:
            return self.local[key]
        if key in BASIC_DEFAULTS:
            return BASIC_DEFAULTS[key]
        if key.startswith("MY.") and name[3:] in self.ad:
            return _text_of(self.ad[name[3:]])
        return self.config.raw(name) if self.config is not None else None


def matches(transform: Transform, ad: Mapping[str, object], ctx: FunctionContext) -> bool:
    """`MacroStreamXFormSource::matches`."""
    if transform.requirements is None:
        return True
    return _is_true(evaluate(transform.requirements, ad, None, ctx=ctx))


def apply_transforms(
    transforms: tuple[Transform, ...],
    job: Mapping[str, object],
    *,
    config: Config | None = None,
    user_map: UserMapFn | None = None,
    now: int | None = None,
) -> TransformResult:
    """`JobTransforms::transformJob`: a copy of `job` with every matching transform
    applied in order."""
    ad = ClassAd(job)
    # `random()` (the PelicanRetry transform HTCondor turns on by default uses it) draws
    # from a fixed seed, so that a check prints the same ad every time.
    rng = random.Random(RANDOM_SEED)
    ctx = (
        FunctionContext(rng=rng, user_map=user_map)
        if now is None
        else FunctionContext(now=lambda: now, rng=rng, user_map=user_map)
    )
    local: dict[str, str] = {}
    macros = _Macros(config, ad, local)
    env = Context(config.env if config is not None else {})
    applied: list[str] = []
    notes: list[str] = []
    for transform in transforms:
        if not matches(transform, ad, ctx):
            continue
        for statement in transform.statements:
            _run(transform.name, statement, ad, macros, env, ctx, notes)
        applied.append(transform.name)
    return TransformResult(ad, tuple(applied), tuple(notes))


def _expand(text: str, macros: _Macros, env: Context) -> str:
    try:
        return expand(text, macros, env)
    except (MacroCycle, MacroProblem) as err:
        raise TransformError(f"macro expansion failed: {err}") from None


def _run(
    name: str,
    statement: Statement,
    ad: ClassAd,
    macros: _Macros,
    env: Context,
    ctx: FunctionContext,
    notes: list[str],
) -> None:
    if isinstance(statement, MacroDef):
        key = statement.name.upper()
        value = expand_self(statement.value, frozenset({key}), macros.raw)
        macros.local[key] = value
        return
    keyword, attr = statement.keyword, statement.attr
    rhs = _expand(statement.rhs, macros, env) if statement.rhs is not None else None
    where = f"JOB_TRANSFORM_{name}"
    match keyword:
        case "NAME" | "UNIVERSE" | "REQUIREMENTS" | "TRANSFORM":
            return
        case "DEFAULT" | "SET":
            if keyword == "DEFAULT" and attr in ad:
                return
            assert rhs is not None
            try:
                ad[attr] = parse(rhs)
            except ClassAdSyntaxError:
                notes.append(
                    f"{where}: {keyword} {attr}: '{rhs}' is not a valid expression; "
                    "the schedd skips this rule without a message"
                )
        case "EVALSET" | "EVALMACRO":
            assert rhs is not None
            try:
                expr = parse(rhs)
            except ClassAdSyntaxError:
                notes.append(
                    f"{where}: {keyword} {attr}: '{rhs}' is not a valid expression; "
                    "the schedd skips this rule without a message"
                )
                return
            value = evaluate(expr, ad, None, ctx=ctx)
            if keyword == "EVALSET":
                ad[attr] = value
            else:
                macros.local[attr.upper()] = (
                    value if isinstance(value, str) else format_value(value)
                )
        case "DELETE" | "COPY" | "RENAME":
            _attribute_op(where, statement, rhs, ad, notes)
        case _:  # pragma: no cover - KEYWORDS lists every keyword handled above
            raise AssertionError(keyword)


def _attribute_op(
    where: str, statement: Action, rhs: str | None, ad: ClassAd, notes: list[str]
) -> None:
    keyword = statement.keyword
    pairs: list[tuple[str, str]] = []
    if statement.regex is not None:
        flags = re.IGNORECASE | (re.MULTILINE if "m" in statement.regex.flags else 0)
        try:
            pattern = re.compile(statement.regex.pattern, flags)
        except re.error:
            notes.append(
                f"{where}: {keyword}: the regex /{statement.regex.pattern}/ does not compile; "
                "the schedd ignores this rule"
            )
            return
        for name in sorted(ad, key=lambda n: n.encode()):
            found = pattern.search(name)
            if found is None:
                continue
            new = "" if keyword == "DELETE" else _regex_substitute(rhs or "", found)
            pairs.append((name, new))
    else:
        pairs.append((statement.attr, (rhs or "").strip()))
    for old, new in pairs:
        if keyword == "DELETE":
            if old in ad:
                del ad[old]
            continue
        if not _VALID_ATTR.match(new):
            notes.append(
                f"{where}: {keyword} {old}: '{new}' is not a valid attribute name; "
                "the schedd skips this rule"
            )
            continue
        if old not in ad:
            continue
        value = ad[old]
        if keyword == "RENAME":
            del ad[old]
        ad[new] = value


def _regex_substitute(template: str, found: re.Match[str]) -> str:
    """`append_substituted_regex` with `\\`: `\\N` is group N when the match has it."""
    out: list[str] = []
    index = 0
    groups = found.re.groups
    while index < len(template):
        char = template[index]
        following = template[index + 1 : index + 2]
        if char == "\\" and following.isdigit() and int(following) <= groups:
            out.append(found.group(int(following)) or "")
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)
