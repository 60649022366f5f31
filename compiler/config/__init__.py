"""HTCondor configuration reader (stage 1 of the compiler: config text -> named values).

Public API (DESIGN.md):

* `load_config(path=None, *, text=None, era="htcondor-current", subsystem="STARTD",
  allow_commands=False, env=None) -> Config`
* `Config.get(name)` (expanded, as `condor_config_val` prints it), `Config.expr(name)`,
  `Config.where(name)`, `Config.names()`, `Config.era`, `Config.with_overrides({...})`,
  `Config.slot(n)`
* `ConfigError` (a `compiler.errors.PolicyError`)

Pipeline: `lines` (physical -> logical lines) -> `syntax` (line -> statement) ->
`reader` (statements -> `table`, with `conditions`, `templates`, includes) -> `model`
(`Config`, lazy `expand` at look-up). Data: spec/config/defaults, spec/config/templates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from compiler.config.defaults import ERAS, era_defaults
from compiler.config.errors import ConfigError
from compiler.config.expand import Context
from compiler.config.files import decode, directory_files, read_bytes
from compiler.config.host import detected_values
from compiler.config.model import Config, Provenance
from compiler.config.reader import ReadState, read_text
from compiler.config.sources import (
    apply_auto_use,
    apply_domain,
    apply_environment,
    apply_specials,
    read_locals,
)
from compiler.config.table import Definition, Origin, Table
from compiler.config.templates import all_templates, find_template
from compiler.errors import raise_all

__all__ = [
    "ERAS",
    "Config",
    "ConfigError",
    "Definition",
    "Origin",
    "Provenance",
    "all_templates",
    "directory_files",
    "find_template",
    "load_config",
]


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | bytes | None = None,
    era: str = "htcondor-current",
    subsystem: str = "STARTD",
    allow_commands: bool = False,
    env: Mapping[str, str] | None = None,
    local_name: str | None = None,
) -> Config:
    """Read a configuration the way HTCondor does and return the resulting `Config`.

    `path` is a file (read like CONDOR_CONFIG: then LOCAL_CONFIG_DIR / LOCAL_CONFIG_FILE
    it names) or a directory of fragments (read in name order). `text` is configuration
    text (file name `<input>`). With neither: just the era's built-in defaults.
    `env` replaces os.environ for `$ENV()` and `_CONDOR_*` overrides; `local_name` is
    the daemon's `-local-name` (its `LOCAL.NAME` settings win). Every problem found
    is raised at once (`ConfigError`, or `PolicyErrors` holding several).
    """
    defaults = era_defaults(era)
    environment: Mapping[str, str] = dict(os.environ) if env is None else dict(env)
    config_root: str | None = None
    if path is not None:
        resolved = Path(path)
        config_root = str(resolved if resolved.is_dir() else resolved.parent) or "."
    detected = detected_values(subsystem, config_root, local_name)
    table = Table(defaults, subsystem.upper(), detected, local_name=(local_name or "").upper())
    state = ReadState(table, defaults, Context(environment), allow_commands)
    if text is not None:
        body = decode(text, "<input>") if isinstance(text, bytes) else text
        table.texts["<input>"] = body
        read_text(state, body, "<input>")
        apply_domain(state)
        read_locals(state)
    elif path is not None:
        _read_path(state, Path(path))
    apply_environment(state, environment)
    apply_domain(state)
    apply_specials(state)
    apply_auto_use(state)
    raise_all(state.errors)
    return Config(
        era=era,
        subsystem=subsystem.upper(),
        table=table,
        env=environment,
        files=tuple(state.files),
        warnings=tuple(state.warnings),
    )


def _read_path(state: ReadState, path: Path) -> None:
    if path.is_dir():
        exclude_text = state.table.raw("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP") or ""
        try:
            exclude = re.compile(exclude_text) if exclude_text else None
        except re.error:
            exclude = None
        fragments = directory_files(path, exclude)
        if not fragments:
            raise ConfigError("directory holds no configuration files", file=str(path))
        for fragment in fragments:
            _read_one(state, fragment)
        return
    if not path.exists():
        raise ConfigError("no such file or directory", file=str(path))
    _read_one(state, path)
    apply_domain(state)
    read_locals(state)


def _read_one(state: ReadState, path: Path) -> None:
    try:
        body = read_bytes(path, str(path))
    except ConfigError as err:
        state.errors.append(err)
        return
    state.files.append(str(path))
    read_text(state, body, str(path))
