"""The POOL_FILE of `condor-policy simulate` (issue 15): read, checked, immutable.

Stage: runtime input. `read_pool(path)` parses YAML or JSON into a `PoolSpec`; every
problem is a `PoolFileError` at the file, line and column of the key at fault (positions
from `yaml.compose`), unknown keys included ("did you mean"). The format is documented by
its commented example (`example_text()`, runtime/simulate/example.yaml), which
`condor-policy simulate --example` prints and a test reads back.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.errors import PolicyError
from compiler.textio import read_text

EXAMPLE = Path(__file__).with_name("example.yaml")
#: time() at simulated time 0 when the pool file gives no `epoch`: Monday 2025-12-01 00:00 UTC.
EPOCH = 1_764_547_200
OWNER_MODELS = ("office_hours", "dedicated")
#: Where the negotiator's configuration is in a pool file (its key path).
NEGOTIATOR_CONFIG = ("negotiator", "config")
#: The longest time a pool file may give, in seconds: the simulator keeps its instants
#: as floats, exact to the millisecond up to 2**53 ms (some 285,000 years); beyond, a
#: length drawn from it or added to one is no longer a time (1e308 minutes is infinity)
LONGEST_SECONDS = 2**53 / 1000
LONGEST_MINUTES = LONGEST_SECONDS / 60
LONGEST_HOURS = LONGEST_SECONDS / 3600
#: The most jobs a stream may submit per hour: one a millisecond (`LONGEST_SECONDS`)
MOST_PER_HOUR = 3_600_000.0
#: A number as YAML 1.2 and JSON write it that YAML 1.1 (PyYAML's) reads as text: an
#: exponent without a dot (`1e3`) or without a sign (`1.0e3`)
_YAML12_NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")


class PoolFileError(PolicyError):
    """A POOL_FILE `simulate` cannot use."""


def example_text() -> str:
    """The commented example pool file (the format's documentation)."""
    return EXAMPLE.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Owner:
    """Who sits at a machine's keyboard: `office_hours` (weekdays, `sessions` keyboard
    sessions a day at random times between `start_hour` and `end_hour`, each of mean
    `session_minutes`, with the owner's own `load`) or `dedicated` (nobody)."""

    model: str = "dedicated"
    start_hour: float = 9.0
    end_hour: float = 17.0
    sessions: float = 3.0
    session_minutes: float = 40.0
    load: float = 1.0


@dataclass(frozen=True)
class MachineGroup:
    name: str
    count: int
    startd: str
    machine: Mapping[str, Any]
    owner: Owner


@dataclass(frozen=True)
class JobStream:
    """A user's jobs: `count` queued `at` seconds after the start and `rate_per_hour`
    Poisson arrivals; run time in minutes, exponential with mean `run_mean` or `fixed`."""

    user: str
    count: int
    at: float
    rate_per_hour: float
    run_mean: float
    run_fixed: bool
    ad: Mapping[str, Any]
    nice: bool = False
    accounting_group: str | None = None
    max_retirement_minutes: float | None = None

    @property
    def submitter(self) -> str:
        """The name the negotiator knows the jobs by (submit_utils.cpp
        `SetAccountingGroup`): nice users as `nice-user.<owner>`, an accounting group as
        `<group>.<owner>`, at the user's domain."""
        owner, _, domain = self.user.partition("@")
        if self.nice:
            return f"nice-user.{owner}@{domain}"
        if self.accounting_group:
            return f"{self.accounting_group}.{owner}@{domain}"
        return self.user


@dataclass(frozen=True)
class PoolSpec:
    file: str
    hours: float
    seed: int
    epoch: int
    negotiator_config: str
    users: Mapping[str, Mapping[str, float]]
    machines: tuple[MachineGroup, ...]
    jobs: tuple[JobStream, ...]
    era: str | None = None
    positions: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)
    #: where the configuration texts (a group's `startd`, `negotiator.config`) are:
    #: key path -> (file, line, column, lines) such that the text's line L <= lines,
    #: column C is the file's line + L - 1, column + C (`text_origins`; a
    #: `startd_file`'s is its line 1)
    origins: Mapping[tuple[Any, ...], tuple[str, int, int, int]] = field(default_factory=dict)
    #: lines appended to a configuration text (a sweep variant's, `sweep.variant_pool`),
    #: by key path: the text's line they begin at, the file and key path they are at,
    #: and where in that file (as `origins`; None: not known)
    appended: Mapping[
        tuple[Any, ...], tuple[int, str, tuple[Any, ...], tuple[str, int, int, int] | None]
    ] = field(default_factory=dict)

    def _part(
        self, path: tuple[Any, ...], line: int
    ) -> tuple[str, str, int, tuple[str, int, int, int] | None]:
        """Of line `line` of the configuration text at `path`: the file and key path
        (dotted) it is written at, its line there, and its origin (`origins`)."""
        tail = self.appended.get(path)
        if tail is not None and line >= tail[0]:
            start, file, key, origin = tail
            return file, ".".join(map(str, key)), line - start + 1, origin
        return self.file, ".".join(map(str, path)), line, self.origins.get(path)

    def located(self, path: tuple[Any, ...], line: int, column: int) -> tuple[str, int, int]:
        """(file, line, column) of line `line`, column `column` of the configuration
        text at `path`; (the file it is written in, 0, 0) when its place is not known."""
        file, _, line, origin = self._part(path, line)
        if origin is None or not 1 <= line <= origin[3]:
            return file, 0, 0
        file, first, offset, _ = origin
        return file, first + line - 1, offset + column

    def config_error(self, path: tuple[Any, ...], err: PolicyError) -> PoolFileError:
        """`err`, found in the configuration text at `path`, at its place in the file
        the text is in (else named by the key path and its place in the text); one with
        no place in the text (a policy whose transitions never settle, say) at the key
        that gives the text (`startd`, or `startd_file`: the text is a file's)."""
        message = self.placed(path, err.message)  # (the places its details name)
        if err.line is None:
            key = (*path[:-1], f"{path[-1]}_file")
            if key not in self.positions:
                key = path
            line, column = self.positions.get(key, (None, None))
            where = ".".join(map(str, key))
            return PoolFileError(f"{where}: {message}", file=self.file, line=line, column=column)
        _, where, at, _ = self._part(path, err.line)
        file, line, column = self.located(path, err.line, err.column or 0)
        if not line:
            spot = f"{at}" if err.column is None else f"{at}:{err.column}"
            return PoolFileError(f"{where}:{spot}: {message}", file=file)
        shown = None
        if err.source_line is not None:
            shown = " " * (column - (err.column or 0)) + err.source_line  # the file's line
        return PoolFileError(
            f"{where}: {message}",
            file=file,
            line=line,
            column=None if err.column is None else column,
            source_line=shown,
        )

    def config_warning(self, path: tuple[Any, ...], text: str) -> str:
        """A warning about the configuration text at `path` (its place written
        `<input>:line:column`, as the text has no file) with its place in the file the
        text is in, after the key path."""
        found = _INPUT_PLACE.search(text)
        if found is None:
            return f"{self.file}: {'.'.join(map(str, path))}: {text}"
        _, where, at, _ = self._part(path, int(found[1]))
        file, line, column = self.located(path, int(found[1]), int(found[2] or 0))
        rest = self.placed(path, text[found.end() :])
        if not line:
            spot = f"<input>:{at}" if found[2] is None else f"<input>:{at}:{found[2]}"
            return f"{file}: {where}: {text[: found.start()]}{spot}{rest}"
        place = f"{file}:{line}" if found[2] is None else f"{file}:{line}:{column}"
        if found.start() == 0 and rest.startswith(": "):
            return f"{place}: {where}: {rest[2:]}"
        return f"{where}: {text[: found.start()]}{place}{rest}"

    def placed(self, path: tuple[Any, ...], text: str) -> str:
        """`text` with each place `<input>:line[:column]` in the configuration text at
        `path` written as its place in the file the text is in (one not known: as is)."""

        def place(found: re.Match[str]) -> str:
            file, line, column = self.located(path, int(found[1]), int(found[2] or 0))
            if not line:
                return found[0]
            return f"{file}:{line}" if found[2] is None else f"{file}:{line}:{column}"

        return _INPUT_PLACE.sub(place, text)


#: A place in a text read without a file (`PolicyError.where`): `<input>:line[:column]`.
_INPUT_PLACE = re.compile(r"<input>:(\d+)(?::(\d+))?")


def _nodes(text: str) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """(key path, the key or list item's node, the value's node) of every mapping key
    and list item of the YAML `text`, depth first; none when it does not compose."""
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return

    def walk(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                yield (*path, key.value), key, value
                yield from walk(value, (*path, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                yield (*path, index), item, item
                yield from walk(item, (*path, index))

    if root is not None:
        yield from walk(root, ())


def key_positions(text: str) -> dict[tuple[Any, ...], tuple[int, int]]:
    """(key path) -> (line, column), 1-based, of every mapping key and list item."""
    return {
        path: (mark.start_mark.line + 1, mark.start_mark.column + 1)
        for path, mark, _ in _nodes(text)
    }


def text_origins(text: str, file: str) -> dict[tuple[Any, ...], tuple[str, int, int, int]]:
    """(key path) -> (`file`, line, column offset, lines), 1-based line, of every text
    value whose lines stand verbatim in `text` (`file`'s: a literal block, `|`), after
    the same indentation: its line L, column C is `text`'s line + L - 1, column offset
    + C (`PoolSpec.origins`)."""
    lines = text.splitlines()

    def place(node: Any) -> tuple[str, int, int, int] | None:
        value = node.value
        if getattr(node, "style", None) != "|" or not value:
            return None  # (not a literal block: not a scalar at all, say)
        first = node.start_mark.line + 1  # (0-based: the line after the `|`)
        body = value.split("\n")
        if body[-1] == "":
            body.pop()
        if first + len(body) > len(lines):
            return None
        indent = len(lines[first]) - len(lines[first].lstrip(" "))
        for number, line in enumerate(body):
            here = lines[first + number]
            if here[indent:] != line or (line and here[:indent] != " " * indent):
                return None
        return file, first + 1, indent, len(body)

    found = ((path, place(value)) for path, _, value in _nodes(text))
    return {path: origin for path, origin in found if origin is not None}


class Reader:
    """Checks a parsed YAML document key by key; every error at the key's line and
    column (`key_positions`). Also reads the sweep file (runtime.simulate.sweep)."""

    def __init__(self, file: str, positions: Mapping[tuple[Any, ...], tuple[int, int]]) -> None:
        self.file = file
        self.positions = positions

    def error(self, path: tuple[Any, ...], message: str) -> PoolFileError:
        where = ".".join(str(p) for p in path)
        line, column = self.positions.get(path, (None, None))
        text = f"{where}: {message}" if where else message
        return PoolFileError(text, file=self.file, line=line, column=column)

    def mapping(
        self,
        value: Any,
        path: tuple[Any, ...],
        known: tuple[str, ...] | None,
        required: tuple[str, ...] = (),
    ) -> Mapping[str, Any]:
        """`value` checked as a mapping of the `known` keys (None: of any keys, such as a
        job ad's attributes), with the `required` ones; absent: an empty one."""
        if value is None and not required:
            return {}
        if not isinstance(value, Mapping):
            raise self.error(path, "must be a mapping")
        for key in required:
            if key not in value:
                raise self.error(path, f"{key!r} is missing")
        if known is None:
            return value
        for key in value:
            if key not in known:
                near = difflib.get_close_matches(str(key), known, n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else f" (known: {', '.join(known)})"
                raise self.error((*path, key), f"unknown key{hint}")
        return value

    def number(
        self,
        value: Any,
        path: tuple[Any, ...],
        *,
        minimum: float = 0.0,
        maximum: float = math.inf,
        integer: bool = False,
    ) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            hint = ""
            if isinstance(value, str) and _YAML12_NUMBER.fullmatch(value.strip()):
                # (PyYAML reads YAML 1.1: `1e3` is text there, `1.0e+3` a number)
                hint = (
                    " (YAML reads it as text: write the exponent with a dot and a sign, 1.0e+3)"
                    if "e" in value.lower()
                    else " (a number in quotes is text)"
                )
            raise self.error(path, f"must be a number, not {value!r}{hint}")
        if not math.isfinite(value):
            raise self.error(path, f"must be a finite number, not {value!r}")
        if value < minimum:
            raise self.error(path, f"must be at least {minimum:g}")
        if value > maximum:
            raise self.error(path, f"must be at most {maximum:g}")
        if integer and int(value) != value:
            raise self.error(path, "must be a whole number")
        return float(value)

    def text(self, value: Any, path: tuple[Any, ...]) -> str:
        if not isinstance(value, str):
            raise self.error(path, "must be text")
        return value


def read_pool(path: str) -> PoolSpec:
    """The pool file at `path`, checked (PoolFileError at the key at fault)."""
    from compiler.slots import read_document

    document = read_document(path)
    text = Path(path).read_text(encoding="utf-8")  # (UTF-8: read_document read it)
    return pool_spec(document, path, key_positions(text), text_origins(text, path))


def pool_spec(
    document: Any,
    file: str,
    positions: Mapping[tuple[Any, ...], tuple[int, int]] | None = None,
    origins: Mapping[tuple[Any, ...], tuple[str, int, int, int]] | None = None,
) -> PoolSpec:
    """A checked `PoolSpec` of a parsed pool document (`origins`: `PoolSpec.origins`)."""
    r = Reader(file, positions or {})
    placed = dict(origins or {})
    top = r.mapping(
        document, (), ("hours", "seed", "epoch", "era", "negotiator", "machines", "jobs")
    )
    if not top:
        raise r.error((), "a pool file must be a mapping with 'machines' and 'jobs'")
    negotiator = r.mapping(top.get("negotiator"), ("negotiator",), ("config", "users"))
    users_raw = r.mapping(negotiator.get("users"), ("negotiator", "users"), None)
    users: dict[str, dict[str, float]] = {}
    for name, values in users_raw.items():
        where = ("negotiator", "users", name)
        entry = r.mapping(values, where, ("factor", "rup"))
        users[str(name)] = {k: r.number(v, (*where, k)) for k, v in entry.items()}
    machines = _machines(r, top.get("machines"), file, placed)
    jobs = _jobs(r, top.get("jobs"))
    era = top.get("era")
    if era is not None:
        from compiler.spec import ERAS

        if r.text(era, ("era",)) not in ERAS:
            raise r.error(("era",), f"unknown era {era!r} (known: {', '.join(ERAS)})")
    return PoolSpec(
        file=file,
        hours=r.number(top.get("hours", 24), ("hours",), maximum=LONGEST_HOURS),
        seed=int(r.number(top.get("seed", 1), ("seed",), integer=True)),
        epoch=int(r.number(top.get("epoch", EPOCH), ("epoch",), integer=True)),
        negotiator_config=r.text(negotiator.get("config", ""), ("negotiator", "config")),
        users=users,
        machines=machines,
        jobs=jobs,
        era=None if era is None else r.text(era, ("era",)),
        positions=dict(positions or {}),
        origins=placed,
    )


def _machines(
    r: Reader, value: Any, file: str, origins: dict[tuple[Any, ...], tuple[str, int, int, int]]
) -> tuple[MachineGroup, ...]:
    if not isinstance(value, list) or not value:
        raise r.error(("machines",), "must be a list of machine groups")
    out = []
    names: set[str] = set()
    for index, raw in enumerate(value):
        where: tuple[Any, ...] = ("machines", index)
        entry = r.mapping(
            raw, where, ("name", "count", "startd", "startd_file", "machine", "owner")
        )
        name = r.text(entry.get("name", f"group{index + 1}"), (*where, "name"))
        if name in names:
            raise r.error((*where, "name"), f"machine group {name!r} named twice")
        names.add(name)
        if "startd_file" in entry:
            startd_path = Path(r.text(entry["startd_file"], (*where, "startd_file")))
            if not startd_path.is_absolute():
                startd_path = Path(file).parent / startd_path
            if not startd_path.is_file():
                raise r.error((*where, "startd_file"), f"no such file {str(startd_path)!r}")
            startd = read_text(startd_path, error=PoolFileError)
            origins[(*where, "startd")] = (str(startd_path), 1, 0, len(startd.splitlines()))
        else:
            startd = r.text(entry.get("startd", ""), (*where, "startd"))
        machine = r.mapping(entry.get("machine"), (*where, "machine"), None)
        owner_raw = r.mapping(
            entry.get("owner"),
            (*where, "owner"),
            ("model", "start_hour", "end_hour", "sessions", "session_minutes", "load"),
        )
        model = owner_raw.get("model", "dedicated")
        if model not in OWNER_MODELS:
            raise r.error((*where, "owner", "model"), f"must be one of {', '.join(OWNER_MODELS)}")
        numbers = {
            k: r.number(v, (*where, "owner", k), maximum=_OWNER_MOST.get(k, math.inf))
            for k, v in owner_raw.items()
            if k != "model"
        }
        if numbers.get("session_minutes", 1) <= 0:  # (the lengths' mean: drawn by 1 / it)
            raise r.error((*where, "owner", "session_minutes"), "must be above 0")
        owner = Owner(model, **numbers)
        if owner.end_hour <= owner.start_hour or owner.end_hour > 24:
            raise r.error((*where, "owner"), "the working day must end after it starts, by 24")
        day_minutes = (owner.end_hour - owner.start_hour) * 60
        if owner.sessions > day_minutes:
            # a session lasts a minute at least (runtime.simulate.owners): more than the
            # working day's minutes would all run into one another
            raise r.error(
                (*where, "owner", "sessions"),
                f"must be at most {day_minutes:g}, the working day's minutes",
            )
        count = int(r.number(entry.get("count", 1), (*where, "count"), minimum=1, integer=True))
        out.append(MachineGroup(name, count, startd, dict(machine), owner))
    return tuple(out)


#: The largest value of an owner's numbers (the others: any finite one)
_OWNER_MOST = {"session_minutes": LONGEST_MINUTES}


def _jobs(r: Reader, value: Any) -> tuple[JobStream, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise r.error(("jobs",), "must be a list of job streams")
    out = []
    keys = ("user", "count", "at_minutes", "rate_per_hour", "run_minutes", "ad", "nice",
            "accounting_group", "max_retirement_minutes")  # fmt: skip
    for index, raw in enumerate(value):
        where: tuple[Any, ...] = ("jobs", index)
        entry = r.mapping(raw, where, keys)
        user = r.text(entry.get("user"), (*where, "user"))
        if "@" not in user:
            raise r.error((*where, "user"), "must be user@domain")
        run = r.mapping(entry.get("run_minutes"), (*where, "run_minutes"), ("mean", "distribution"))
        mean = r.number(
            run.get("mean", 60), (*where, "run_minutes", "mean"), maximum=LONGEST_MINUTES
        )
        if mean <= 0:
            raise r.error((*where, "run_minutes", "mean"), "must be above 0")
        distribution = run.get("distribution", "exponential")
        if distribution not in ("exponential", "fixed"):
            raise r.error((*where, "run_minutes", "distribution"), "must be exponential or fixed")
        raw_ad = r.mapping(entry.get("ad"), (*where, "ad"), None)
        ad = {str(k): _classad_value(r, v, (*where, "ad", k)) for k, v in raw_ad.items()}
        nice = entry.get("nice", False)
        if not isinstance(nice, bool):
            raise r.error((*where, "nice"), "must be true or false")
        group = entry.get("accounting_group")
        retire = entry.get("max_retirement_minutes")
        out.append(
            JobStream(
                user=user,
                count=int(r.number(entry.get("count", 0), (*where, "count"), integer=True)),
                at=60
                * r.number(
                    entry.get("at_minutes", 0),
                    (*where, "at_minutes"),
                    maximum=LONGEST_MINUTES,
                ),
                rate_per_hour=r.number(
                    entry.get("rate_per_hour", 0), (*where, "rate_per_hour"), maximum=MOST_PER_HOUR
                ),
                run_mean=mean,
                run_fixed=distribution == "fixed",
                ad=dict(ad),
                nice=nice,
                accounting_group=None
                if group is None
                else r.text(group, (*where, "accounting_group")),
                max_retirement_minutes=None
                if retire is None
                else r.number(retire, (*where, "max_retirement_minutes"), maximum=LONGEST_MINUTES),
            )
        )
    return tuple(out)


def _classad_value(r: Reader, value: Any, path: tuple[Any, ...]) -> Any:
    """A job attribute: ClassAd source text (a string is `'"physics"'`), or a number or
    boolean as itself."""
    from compiler.classad import parse

    if isinstance(value, bool | int | float):
        return value
    if not isinstance(value, str):
        raise r.error(path, "must be ClassAd source text, a number or a boolean")
    try:
        return parse(value)
    except PolicyError as err:
        raise r.error(path, err.message) from None
