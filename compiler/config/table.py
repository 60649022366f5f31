"""The macro table: definitions with provenance, and HTCondor's look-up rules.

A look-up of NAME for subsystem S (and, in the startd, slot N) tries, in order:
`SLOT<N>_NAME` / `SLOT_TYPE_<T>_NAME` (slot views only), `LOCAL.NAME` (a daemon started
with `-local-name LOCAL`), `S.NAME`, `NAME` in the files;
then the host's detected values and the era's built-in default. An empty value counts as
undefined for queries but still hides the default (`CLAIM_WORKLIFE =` is infinite, not
1200). Stage: shared by the reader (while reading) and `Config` (afterwards).
"""

from __future__ import annotations

import msgspec

from compiler.config.defaults import EraDefaults


class Origin(msgspec.Struct, frozen=True):
    """Where a definition came from.

    `file`/`line`/`column`: the statement (for template definitions: the `use` line);
    `template`: "POLICY:Desktop" when a template made the definition, with
    `template_line` its line inside the template; `value_column`: where the value starts.
    """

    file: str
    line: int
    column: int = 1
    template: str | None = None
    template_line: int | None = None
    value_column: int | None = None

    def describe(self) -> str:
        """`file:line` (plus `, use POLICY:Desktop`), as condor_config_val -v prints."""
        text = f"{self.file}:{self.line}" if self.line else self.file
        if self.template:
            text += f", use {self.template}"
        return text


#: The origin of built-in defaults (HTCondor prints `<Default>`).
DEFAULT_ORIGIN = Origin("<Default>", 0, 0)
#: The origin of values detected on the host.
DETECTED_ORIGIN = Origin("<Detected>", 0, 0)


class Definition(msgspec.Struct, frozen=True):
    """One assignment: the name as spelled, its raw value, where, and `:` syntax.

    `as_default`: HTCondor did not store this assignment because it set a name not yet
    in the macro set to its built-in default (config.cpp, `insert_macro`); it is kept
    for provenance, with the default's spelling, but does not make the name "set", so a
    later assignment of the default is again not stored. `early_empty`: names whose
    reference in the value was expanded when the line was read (a reference to the
    name being assigned) and gave nothing; error messages use it to say "defined too
    late".
    """

    name: str
    raw: str
    origin: Origin
    colon: bool = False
    as_default: bool = False
    early_empty: tuple[str, ...] = ()


class Table(msgspec.Struct):
    """Definitions by upper-cased name (all of them, oldest first) plus the fallbacks."""

    defaults: EraDefaults
    subsystem: str
    detected: dict[str, str]
    definitions: dict[str, list[Definition]] = msgspec.field(default_factory=dict)
    prefixes: tuple[str, ...] = ()
    local_name: str = ""
    #: configuration text read without a file, by the name it was read under
    #: ("<input>"): where a diagnosis finds a reference's column (a file is read again)
    texts: dict[str, str] = msgspec.field(default_factory=dict)

    def define(self, definition: Definition) -> None:
        self.definitions.setdefault(definition.name.upper(), []).append(definition)

    def is_set(self, name: str) -> bool:
        """True when NAME (exactly, upper-cased) has an assignment HTCondor stored."""
        return any(not d.as_default for d in self.definitions.get(name.upper(), ()))

    def candidates(self, name: str) -> list[str]:
        """Upper-cased names tried for NAME, most specific first."""
        key = name.upper()
        if "." in key:
            return [key]
        tried = [f"{prefix}{key}" for prefix in self.prefixes]
        if self.local_name:
            tried.append(f"{self.local_name.upper()}.{key}")
        if self.subsystem:
            tried.append(f"{self.subsystem.upper()}.{key}")
        tried.append(key)
        return tried

    def winner(self, name: str) -> Definition | None:
        """The definition a look-up of NAME finds in the files, if any."""
        for key in self.candidates(name):
            found = self.definitions.get(key)
            if found:
                return found[-1]
        return None

    def fallback(self, name: str) -> str | None:
        """Detected value or built-in default of NAME (no file definitions).

        A name written with a prefix (`MASTER.X`) is looked up exactly (no fallback to
        `X`); an unprefixed name tries the subsystem's own default
        (`MASTER.PID_SNAPSHOT_INTERVAL` for the master) first.
        """
        key = name.upper()
        if "." in key:
            return self.defaults.raw(key)
        if key in self.detected:
            return self.detected[key]
        if key == f"IS{self.subsystem.upper()}" and self.defaults.raw(key) is not None:
            return "true"
        if self.subsystem:
            specific = self.defaults.raw(f"{self.subsystem.upper()}.{key}")
            if specific is not None:
                return specific
        return self.defaults.raw(key)

    def raw(self, name: str) -> str | None:
        """The raw value a look-up of NAME sees (file definition, else fallback)."""
        found = self.winner(name)
        if found is not None:
            return found.raw
        return self.fallback(name)

    def self_names(self, name: str) -> frozenset[str]:
        """Names that count as a self reference when assigning NAME."""
        key = name.upper()
        names = {key}
        for owner in (self.local_name, self.subsystem):
            prefix = f"{owner.upper()}."
            if owner and key.startswith(prefix) and len(key) > len(prefix):
                names.add(key[len(prefix) :])
                break
        return frozenset(names)

    def copy(self) -> Table:
        return Table(
            self.defaults,
            self.subsystem,
            dict(self.detected),
            {k: list(v) for k, v in self.definitions.items()},
            self.prefixes,
            self.local_name,
        )
