"""Stage 3 of the configuration reader: statements -> the table of definitions.

Reads configuration text the way HTCondor's reader does: statements in order, `if`
blocks evaluated against what has been read so far, `include` and `use` inserted in
place, names expanded at once, values kept raw except for references to the name being
assigned (expanded immediately: `START = ($(START)) || ...` extends the earlier START,
or the built-in default). After the root file come LOCAL_CONFIG_DIR, LOCAL_CONFIG_FILE
and `_CONDOR_<NAME>` environment overrides, as in HTCondor.

Differences on purpose: all problems are collected (HTCondor stops at the first);
commands (`include : cmd |`) are refused unless allowed; binary or huge files are refused.
What happens after the root file (LOCAL_CONFIG_*, environment) is in `sources`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from compiler.config.arglist import ArgListError, split_command
from compiler.config.conditions import ConditionContext, ConditionError, evaluate_condition
from compiler.config.defaults import EraDefaults
from compiler.config.errors import ConfigError
from compiler.config.expand import (
    Context,
    MacroCycle,
    MacroProblem,
    empty_self_references,
    expand,
    expand_self,
)
from compiler.config.files import decode, read_bytes
from compiler.config.files import directory_files as directory_files  # re-exported (used by CLI)
from compiler.config.lines import LogicalLine, logical_lines
from compiler.config.syntax import (
    Assign,
    Conditional,
    HereStart,
    Ignored,
    Include,
    Invalid,
    Message,
    Use,
    conditional_of,
    is_valid_name,
    parse_statement,
)
from compiler.config.table import Definition, Origin, Table
from compiler.config.templates import (
    all_templates,
    expand_arguments,
    find_template,
    split_uses,
    suggest,
)

#: How deep `include` and `use` may nest (HTCondor's limit is similar).
MAX_NESTING = 20
#: Seconds a permitted `include` command may run.
COMMAND_TIMEOUT = 60


class _IfFrame(msgspec.Struct):
    """One open `if` block: whether its branches can be on at all, which one is."""

    parent_enabled: bool
    active: bool
    taken: bool
    seen_else: bool
    where: LogicalLine


class ReadState(msgspec.Struct):
    """Mutable state of one read (private to this module's functions)."""

    table: Table
    defaults: EraDefaults
    context: Context
    allow_commands: bool
    errors: list[ConfigError] = msgspec.field(default_factory=list)
    warnings: list[ConfigError] = msgspec.field(default_factory=list)
    files: list[str] = msgspec.field(default_factory=list)


def _error(state: ReadState, message: str, file: str, where: LogicalLine, column: int = 0) -> None:
    state.errors.append(
        ConfigError(
            message,
            file=file,
            line=where.line,
            column=column or where.column,
            source_line=where.source_line or None,
        )
    )


def _expand_now(state: ReadState, text: str, file: str, where: LogicalLine) -> str | None:
    try:
        return expand(text, state.table, state.context)
    except MacroCycle as cycle:
        _error(state, f"cyclic macro definition: {cycle}", file, where)
    except MacroProblem as problem:
        _error(state, str(problem), file, where)
    return None


def condition_context(state: ReadState) -> ConditionContext:
    def has_template(category: str, name: str | None) -> bool:
        if name is None:
            return find_template(category, "") is not None or _category_exists(category)
        return find_template(category, name) is not None

    return ConditionContext(state.table.raw, has_template, state.defaults.version)


def _category_exists(category: str) -> bool:
    return category.lstrip("@").upper() in all_templates()


def read_text(
    state: ReadState,
    text: str,
    file: str,
    depth: int = 0,
    template: str | None = None,
    use_site: Origin | None = None,
) -> None:
    """Read configuration `text` (from `file`) into `state.table`."""
    if depth > MAX_NESTING:
        state.errors.append(
            ConfigError(f"include/use nested more than {MAX_NESTING} deep", file=file)
        )
        return
    frames: list[_IfFrame] = []
    here: tuple[str, str, LogicalLine, list[str]] | None = None
    strict = False
    for logical in logical_lines(text, state.defaults.reader.old_comments):
        line = logical.text
        if here is not None:
            name, tag, start, collected = here
            if not line.strip() or line.startswith("#"):
                continue
            if line == "@" + tag:
                _assign(state, name, "\n".join(collected), file, start, template, use_site)
                here = None
            else:
                collected.append(line)
            continue
        if not line.strip() or line.startswith("#"):
            if line.strip().lower() == "#opt:strict":
                strict = True
            continue
        if line.startswith(":") and (frames or conditional_of(line[1:]) is not None):
            line = line[1:]
        conditional = conditional_of(line)
        if conditional is not None:
            _conditional(state, frames, conditional, file, logical)
            continue
        if frames and not frames[-1].active:
            continue
        statement = parse_statement(line)
        match statement:
            case Assign():
                if statement.colon:
                    _colon_assignment(state, statement, file, logical, strict)
                _assign_statement(state, statement, file, logical, template, use_site)
            case HereStart(name=raw_name, tag=tag):
                here_name = _expand_now(state, raw_name, file, logical)
                if here_name is None:
                    continue
                if not is_valid_name(here_name):
                    _error(
                        state,
                        f"illegal name '{here_name}' (letters, digits, _ . / only)",
                        file,
                        logical,
                    )
                    continue
                here = (here_name, tag, logical, [])
            case Use():
                _use(state, statement, file, logical, depth, use_site)
            case Include():
                _include(state, statement, file, logical, depth)
            case Message(fatal=fatal, text=message_text):
                message = _expand_now(state, message_text, file, logical) or ""
                problem = ConfigError(
                    message or "error statement",
                    file=file,
                    line=logical.line,
                    column=logical.column,
                    source_line=logical.source_line,
                )
                (state.errors if fatal else state.warnings).append(problem)
                if template is not None and not fatal:
                    # HTCondor's template parser prints the warning and then, having
                    # no `continue`, also defines a parameter named "warning".
                    _assign(state, "warning", message_text, file, logical, template, use_site)
            case Ignored():
                pass
            case Invalid(reason=reason, column=column):
                _error(state, reason, file, logical, logical.column + column - 1)
            case Conditional():  # pragma: no cover - handled above
                pass
            case _:  # pragma: no cover
                raise AssertionError(statement)
    if here is not None:
        _error(
            state,
            f"'@{here[1]}' not found before end of file (unterminated @= block)",
            file,
            here[2],
        )
    for frame in frames:
        _error(state, "if without endif before end of file", file, frame.where)


def _conditional(
    state: ReadState, frames: list[_IfFrame], statement: Conditional, file: str, where: LogicalLine
) -> None:
    enabled = not frames or frames[-1].active
    match statement.keyword:
        case "if":
            value = enabled and _test(state, statement.condition, file, where)
            frames.append(_IfFrame(enabled, value, value, False, where))
        case "elif":
            if not frames or frames[-1].seen_else:
                reason = "elif is not allowed after else" if frames else "elif without matching if"
                _error(state, reason, file, where)
                return
            frame = frames[-1]
            if frame.taken or not frame.parent_enabled:
                frame.active = False
            else:
                frame.active = _test(state, statement.condition, file, where)
                frame.taken = frame.active
        case "else":
            if not frames or frames[-1].seen_else:
                reason = "else is not allowed after else" if frames else "else without matching if"
                _error(state, reason, file, where)
                return
            frame = frames[-1]
            frame.seen_else = True
            frame.active = frame.parent_enabled and not frame.taken
        case "endif":
            if not frames:
                _error(state, "endif without matching if", file, where)
                return
            frames.pop()


def _test(state: ReadState, condition: str, file: str, where: LogicalLine) -> bool:
    had_macros = "$" in condition
    expanded = _expand_now(state, condition, file, where) if had_macros else condition
    if expanded is None:
        return False
    try:
        return evaluate_condition(expanded, had_macros, condition_context(state))
    except ConditionError as err:
        _error(state, f"'{condition}' is not a valid if condition because {err}", file, where)
        return False


def _colon_assignment(
    state: ReadState, statement: Assign, file: str, where: LogicalLine, strict: bool
) -> None:
    options = state.defaults.reader
    if not options.colon_warns or statement.name.upper() in options.colon_exempt:
        return
    message = (
        f"obsolete use of ':' for parameter assignment at {statement.name} : {statement.value}"
    )
    problem = ConfigError(
        message, file=file, line=where.line, column=where.column, source_line=where.source_line
    )
    (state.errors if strict else state.warnings).append(problem)


def _assign_statement(
    state: ReadState,
    statement: Assign,
    file: str,
    where: LogicalLine,
    template: str | None,
    use_site: Origin | None,
) -> None:
    name = _expand_now(state, statement.name, file, where)
    if name is None:
        return
    if not is_valid_name(name):
        _error(state, f"illegal name '{name}' (letters, digits, _ . / only)", file, where)
        return
    value = statement.value
    if statement.plus is not None:
        current = state.table.raw(name)
        if current:
            separator = statement.plus
            joiner = f" {separator} " if len(separator) == 2 else separator
            value = current + joiner + value
    _assign(
        state,
        name,
        value,
        file,
        where,
        template,
        use_site,
        colon=statement.colon,
        column=where.column + statement.value_column - 1,
    )


def _assign(
    state: ReadState,
    name: str,
    value: str,
    file: str,
    where: LogicalLine,
    template: str | None,
    use_site: Origin | None,
    *,
    colon: bool = False,
    column: int | None = None,
) -> None:
    selves = state.table.self_names(name)
    early_empty = empty_self_references(value, selves, state.table.raw)
    value = expand_self(value, selves, state.table.raw)
    default = state.defaults.raw(name.split(".", 1)[-1])
    as_default = False
    if default is not None and not state.table.is_set(name) and same_param_value(default, value):
        # HTCondor (config.cpp, `insert_macro`): a name not yet in the macro set that is
        # assigned its built-in default is not stored at all (`SUSPEND = FALSE` reads
        # back `False`, and so does a second `SUSPEND = FALSE` later or in an included
        # file); a prefixed name (`STARTD.SUSPEND`) is stored, with the default's text.
        # Once a name is stored, a redefinition is stored as written.
        value = default
        as_default = "." not in name
    if use_site is not None:
        origin = Origin(use_site.file, use_site.line, use_site.column, template, where.line)
    else:
        origin = Origin(file, where.line, where.column, None, None, column or where.column)
    state.table.define(Definition(name, value, origin, colon, as_default, early_empty))


def same_param_value(default: str, value: str) -> bool:
    """True when `value` counts as the built-in `default` (config.cpp, `same_param_value`).

    Equal text, or `true`/`false` in any case; nothing else ignores case (on Unix).
    """
    if default == value:
        return True
    return default.lower() == value.lower() and default.lower() in ("true", "false")


def _use(
    state: ReadState,
    statement: Use,
    file: str,
    where: LogicalLine,
    depth: int,
    use_site: Origin | None,
) -> None:
    category = statement.category
    if not category:
        _error(state, f"use needs a category before ':' ({statement.templates})", file, where)
        return
    items = split_uses(statement.templates)
    if not items:
        _error(state, f"use {category}: names no template", file, where)
        return
    site = use_site or Origin(file, where.line, where.column)
    for item in items:
        template = find_template(category, item.name)
        if template is None:
            hint = suggest(category, item.name)
            _error(state, f"use {category}: unknown template '{item.name}'{hint}", file, where)
            continue
        body = expand_arguments(template.body, item.args)
        label = f"{template.category}:{template.name}"
        if item.args is not None:
            label += f"({item.args})"
        read_text(state, body, f"<use {label}>", depth + 1, label, site)


def _include(
    state: ReadState, statement: Include, file: str, where: LogicalLine, depth: int
) -> None:
    target = _expand_now(state, statement.target, file, where)
    if target is None:
        return
    target = target.strip()
    is_command = statement.command or target.endswith("|")
    if is_command:
        command = target.rstrip("| ").strip()
        if not state.allow_commands:
            _error(
                state,
                f"include runs the command '{command}'; reading a configuration never runs "
                "programs unless allowed (--allow-commands on the command line, "
                "allow_commands=True in Python)",
                file,
                where,
            )
            return
        output = _run_command(state, command, file, where, statement.if_exists)
        if output is not None:
            read_text(state, output, f"<command {command}>", depth + 1)
        return
    path = Path(target)
    if not path.is_absolute() and file and not file.startswith("<"):
        # HTCondor opens relative include paths from the current directory.
        path = Path.cwd() / path
    if not path.exists():
        if not statement.if_exists:
            _error(state, f"cannot open include file '{target}': no such file", file, where)
        return
    try:
        text = read_bytes(path, target)
    except ConfigError as err:
        state.errors.append(err)
        return
    state.files.append(target)
    read_text(state, text, target, depth + 1)


def _run_command(
    state: ReadState, command: str, file: str, where: LogicalLine, optional: bool
) -> str | None:
    import subprocess  # only `include : command |` runs programs; reading needs none

    try:
        args = split_command(command)
        if not args:
            raise ArgListError("no program to run")
        result = subprocess.run(args, capture_output=True, timeout=COMMAND_TIMEOUT, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired) as err:  # ValueError: ArgListError, NUL
        if not optional:
            _error(state, f"include command '{command}' failed: {err}", file, where)
        return None
    if result.returncode != 0:
        if not optional:
            _error(
                state, f"include command '{command}' exited with {result.returncode}", file, where
            )
        return None
    return decode(result.stdout, f"<command {command}>")
