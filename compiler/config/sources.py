"""What HTCondor reads after the root file (stage 3b of the reader).

LOCAL_CONFIG_DIR (files in name order, minus LOCAL_CONFIG_DIR_EXCLUDE_REGEXP), then
LOCAL_CONFIG_FILE (a list; each must exist unless REQUIRE_LOCAL_CONFIG_FILE is false),
then LOCAL_CONFIG_DIR again if a local file changed it; then `_CONDOR_<NAME>` variables
of the environment; finally FILESYSTEM_DOMAIN and UID_DOMAIN fall back to the host name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from compiler.config.conditions import ConditionError, evaluate_condition
from compiler.config.errors import ConfigError
from compiler.config.expand import MacroCycle, MacroProblem, expand
from compiler.config.files import directory_files, read_bytes
from compiler.config.lines import LogicalLine
from compiler.config.reader import ReadState, _assign, _include, condition_context, read_text
from compiler.config.syntax import Include
from compiler.config.table import Origin
from compiler.config.templates import expand_arguments, find_template

_LIST_SPLIT = re.compile(r"[\s,]+")


def read_locals(state: ReadState, depth: int = 0) -> None:
    """After the root file: LOCAL_CONFIG_DIR, LOCAL_CONFIG_FILE, LOCAL_CONFIG_DIR again."""
    first_dirs = _expanded(state, "LOCAL_CONFIG_DIR")
    if first_dirs:
        _read_directories(state, first_dirs)
    _read_local_files(state)
    later_dirs = _expanded(state, "LOCAL_CONFIG_DIR")
    if later_dirs and later_dirs != first_dirs:
        _read_directories(state, later_dirs)


def _expanded(state: ReadState, name: str) -> str:
    raw = state.table.raw(name)
    if not raw:
        return ""
    try:
        return expand(raw, state.table, state.context).strip()
    except (MacroCycle, MacroProblem) as err:
        state.errors.append(ConfigError(f"cannot expand {name}: {err}"))
        return ""


def _required(state: ReadState) -> bool:
    value = _expanded(state, "REQUIRE_LOCAL_CONFIG_FILE").lower()
    return value not in ("false", "no", "f", "0")


def _read_local_files(state: ReadState) -> None:
    done: list[str] = []
    value = _expanded(state, "LOCAL_CONFIG_FILE")
    while value:
        pending = [s for s in _LIST_SPLIT.split(value) if s and s not in done]
        if value.endswith("|"):
            pending = [value] if value not in done else []
        if not pending:
            return
        source = pending[0]
        done.append(source)
        _read_local(state, source)
        value = _expanded(state, "LOCAL_CONFIG_FILE")


def _local_origin(state: ReadState) -> Origin | None:
    """Where the LOCAL_CONFIG_FILE in force is defined in a file (None: a default, or a
    template's): what a problem with the source it names is placed at."""
    named = state.table.winner("LOCAL_CONFIG_FILE")
    origin = named.origin if named is not None else None
    if origin is not None and origin.line and not origin.template:
        return origin
    return None


def _read_local(state: ReadState, source: str) -> None:
    origin = _local_origin(state)
    if source.endswith("|"):
        # A command: errors point at the LOCAL_CONFIG_FILE definition that names it.
        if origin is not None:
            file = origin.file
            where = LogicalLine(source, origin.line, origin.column, "")
        else:
            file, where = "<LOCAL_CONFIG_FILE>", LogicalLine(source, 0, 0, "")
        _include(state, Include(source, False, True, None), file, where, 1)
        return
    path = Path(source)
    if not path.is_file():
        if _required(state):
            message = (
                f"cannot read LOCAL_CONFIG_FILE '{source}' (HTCondor refuses the configuration"
                " unless REQUIRE_LOCAL_CONFIG_FILE is false)"
            )
            state.errors.append(
                ConfigError(message, file=source)
                if origin is None  # (the default names it: the file is the place)
                else ConfigError(
                    message,
                    file=origin.file,
                    line=origin.line,
                    column=origin.value_column or origin.column,
                )
            )
        return
    try:
        text = read_bytes(path, source)
    except ConfigError as err:
        state.errors.append(err)
        return
    state.files.append(source)
    read_text(state, text, source, 1)


def _read_directories(state: ReadState, dirlist: str) -> None:
    exclude_text = _expanded(state, "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")
    try:
        exclude = re.compile(exclude_text) if exclude_text else None
    except re.error:
        exclude = None
    for directory in (d for d in _LIST_SPLIT.split(dirlist) if d):
        for path in directory_files(Path(directory), exclude):
            try:
                text = read_bytes(path, str(path))
            except ConfigError as err:
                state.errors.append(err)
                continue
            state.files.append(str(path))
            read_text(state, text, str(path), 1)


def apply_environment(state: ReadState, env: Mapping[str, str]) -> None:
    """`_CONDOR_<NAME>=value` variables override the files, as in HTCondor."""
    where = LogicalLine("", 0, 0, "")
    for key in sorted(env):
        if key[:8].lower() == "_condor_" and len(key) > 8:
            _assign(state, key[8:].strip(), env[key].strip(), "<environment>", where, None, None)


#: Names HTCondor sets to the host's full name when they expand to nothing.
_HOST_DOMAINS = ("FILESYSTEM_DOMAIN", "UID_DOMAIN")


def apply_domain(state: ReadState) -> None:
    """After the root file: a host name without a domain gets DEFAULT_DOMAIN_NAME."""
    domain = _expanded(state, "DEFAULT_DOMAIN_NAME")
    host = state.table.detected.get("FULL_HOSTNAME", "")
    if domain and host and "." not in host:
        state.table.detected["FULL_HOSTNAME"] = f"{host}.{domain.lstrip('.')}"


def apply_specials(state: ReadState) -> None:
    """HTCondor's last step: empty FILESYSTEM_DOMAIN / UID_DOMAIN become FULL_HOSTNAME."""
    where = LogicalLine("", 0, 0, "")
    host = state.table.detected.get("FULL_HOSTNAME")
    for name in _HOST_DOMAINS:
        if host and not _expanded(state, name):
            _assign(state, name, host, "<Detected>", where, None, None)


_AUTO_USE = re.compile(r"AUTO_USE_([A-Za-z]+)_(.+)\Z", re.IGNORECASE)


def apply_auto_use(state: ReadState) -> None:
    """HTCondor's very last step: `AUTO_USE_<CATEGORY>_<Template> = <condition>`.

    Every such parameter (file or built-in default, in name order) whose condition is
    true applies `use CATEGORY : Template`; the schedd's default
    AUTO_USE_FEATURE_PelicanRetryPolicy = $(IsSchedd) is one.
    """
    names = {d[-1].name.upper(): d[-1].name for d in state.table.definitions.values()}
    names.update(
        {k: spelling for k, (spelling, _) in state.defaults.values.items() if k not in names}
    )
    for key in sorted(names):
        match = _AUTO_USE.match(key)
        if match is None:
            continue
        trigger = state.table.raw(names[key])
        if not trigger:
            continue
        try:
            expanded = expand(trigger, state.table, state.context)
            fire = evaluate_condition(expanded, "$" in trigger, condition_context(state))
        except (ConditionError, MacroCycle, MacroProblem) as err:
            state.warnings.append(ConfigError(f"{names[key]}: {err}"))
            continue
        template = find_template(match.group(1), match.group(2)) if fire else None
        if template is not None:
            label = f"{template.category}:{template.name}"
            site = Origin("<AUTO_USE>", 0, 0)
            body = expand_arguments(template.body, None)
            read_text(state, body, f"<use {label}>", 1, f"{label} via {names[key]}", site)
