"""A compiled policy written back as a condor_config fragment (`compile --format config`).

Stage: compiler output, beside `StateTable.to_json`. The fragment holds every name the
compilation reads from the configuration (`compiler.policy`, `compiler.expand`), each
with its value as `condor_config_val` prints it (`Config.get`: `$(...)` macros, `use`
templates and defaults already expanded), so that the configuration reader, and
HTCondor's own, load it to the same values and hence the same state table. It never
evaluates or simplifies what it writes: the value the startd reads is the value written.
For people, a knob whose simplification (`compiler.simplify`, the startd's attribute
domains, no other assumption) is shorter is preceded by a comment with the simplified
form, which has the same value in every slot ad.

The names read, in the order written (one source of truth with the modules that read
them; a new name read there must be added here, and the round-trip tests fail until it
is):
- each policy knob of the era under the spelling the configuration uses (the first of
  NAME and its aliases it defines, `Expander._lookup`), and its `_VANILLA`/`_VM`
  variants (`Policy.variants`);
- the names put in the slot ad (STARTD_ATTRS, STARTD_EXPRS, and the 6.x `NAME : value`
  exports, written here as `=` definitions listed in STARTD_ATTRS, which the expander
  treats alike) with their values; the latch lists STARTD_LATCH_EXPRS and
  SYSTEM_STARTD_LATCH_EXPRS;
- the settings: MATCH_TIMEOUT, KILLING_TIMEOUT, POLLING_INTERVAL, UPDATE_INTERVAL,
  ENABLE_BACKFILL, BACKFILL_SYSTEM and the CpuBusy expression (`build_program`).
A name defined with an empty value is written empty (`NAME =`): for the startd that is
different from a name never defined (the era default).
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.classad import ClassAdSyntaxError, call_deep, parse, unparse
from compiler.config import Config
from compiler.errors import PolicyError
from compiler.simplify import STARTD_DOMAINS, simplify
from compiler.spec import EraSpec
from compiler.table import StateTable

#: Lists of names the startd puts into the slot ad (compiler.expand `_EXPORT_LISTS`).
EXPORT_LISTS = ("STARTD_ATTRS", "STARTD_EXPRS")
#: Lists of latched expressions (compiler.expand `_LATCH_LISTS`).
LATCH_LISTS = ("STARTD_LATCH_EXPRS", "SYSTEM_STARTD_LATCH_EXPRS")
#: Settings the compiled program reads (compiler.policy `_INT_SETTINGS`, `_settings`,
#: `build_program`).
SETTINGS = (
    "MATCH_TIMEOUT",
    "KILLING_TIMEOUT",
    "POLLING_INTERVAL",
    "UPDATE_INTERVAL",
    "ENABLE_BACKFILL",
    "BACKFILL_SYSTEM",
    "CpuBusy",
)


def _split(text: str | None) -> list[str]:
    """A configuration list: names separated by commas and/or white space."""
    return [item for item in (text or "").replace(",", " ").split() if item]


def _policy_names(spec: EraSpec, config: Config) -> Iterator[str]:
    for policy in spec.policies:
        for name in (policy.name, *policy.aliases):
            where = config.where(name)
            if where is not None:
                yield where.name
                break
        for suffix in policy.variants:
            where = config.where(policy.name + suffix)
            if where is not None:
                yield where.name


def read_names(spec: EraSpec, config: Config) -> tuple[list[str], list[str]]:
    """(names to write besides the export lists, the 6.x `NAME : value` exports)."""
    names = list(_policy_names(spec, config))
    exported: list[str] = []
    for listing in EXPORT_LISTS:
        exported += _split(config.get(listing))
    colon = list(config.exported())
    exported += colon
    defined = [n for n in dict.fromkeys(exported) if config.where(n) is not None]
    names += [n for n in defined if n not in names]
    names += [n for n in (*LATCH_LISTS, *SETTINGS) if config.where(n) is not None]
    return names, colon


def _value_lines(name: str, value: str) -> list[str]:
    """`NAME = value`; a value over several lines in the `NAME @=end ... @end` form."""
    if "\n" not in value:
        return [f"{name} = {value}".rstrip()]
    return [f"{name} @=end", *value.splitlines(), "@end"]


def _simplified(value: str) -> str | None:
    """The knob's simplification when it is a ClassAd expression and shorter."""
    try:
        expr = parse(value)
    except ClassAdSyntaxError:
        return None
    shown = unparse(call_deep(lambda: simplify(expr, domains=STARTD_DOMAINS)).expr)
    return shown if len(shown) < len(unparse(expr)) else None


def config_fragment(table: StateTable, config: Config) -> str:
    """The condor_config fragment of `config` as `table` (compiled from it) reads it."""
    names, colon = read_names(table.spec, config)
    lines = [
        "# condor-policy compile --format config",
        f"# era: {table.era}; semantics: {table.semantics}; source: {table.source}",
        "# Every name the compiled table reads, with its value as condor_config_val prints",
        "# it (macros, templates and defaults expanded); HTCondor's reader and condor-policy's",
        "# load this fragment to the same state table.",
    ]
    for listing in EXPORT_LISTS:
        items = _split(config.get(listing))
        if listing == "STARTD_ATTRS":
            items += [n for n in colon if n not in items]
        if items:
            lines.append(f"{listing} = {', '.join(items)}")
        elif config.where(listing) is not None:
            lines.append(f"{listing} =")
    expressions = {p.name.lower() for p in table.spec.policies}
    expressions |= {a.lower() for p in table.spec.policies for a in p.aliases}
    expressions |= {f"{p.name}{s}".lower() for p in table.spec.policies for s in p.variants}
    expressions |= {n.lower() for n in names if n not in (*LATCH_LISTS, *SETTINGS)}
    expressions.add("cpubusy")
    for name in names:
        try:
            value = config.get(name)
        except PolicyError:  # a macro problem the compilation already reported
            continue
        if value is None:
            lines.append(f"{name} =")
            continue
        value = value.strip()
        simpler = _simplified(value) if name.lower() in expressions else None
        if simpler is not None:
            lines.append(f"# simplified: {name} = {simpler}")
        lines += _value_lines(name, value)
    return "\n".join(lines) + "\n"
