"""A submission checked the way the schedd checks it before it enters the queue (stage:
schedd configuration + job ads -> verdict).

src/condor_schedd.V6/qmgmt.cpp (23.0), the submit transaction's check: for each job of the
cluster, in order, the transforms are applied (compiler.schedd.transforms) and then the
submit requirements are checked on the transformed ad (compiler.schedd.requirements),
with one error stack for the whole transaction; the first rejected job rejects the whole
cluster. condor_submit then prints the newest message of the stack, worded as
spec/schedd.yaml records for the chosen semantics.

What this module must not do: print or read job files (runtime/commands/submit_check.py).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler import yamlcache
from compiler.classad import ClassAd, format_value, unparse
from compiler.classad import ast as A
from compiler.config import Config
from compiler.schedd.requirements import (
    Problem,
    RequirementsResult,
    SubmitRequirement,
    check_requirements,
    submit_requirements,
)
from compiler.schedd.transforms import Transform, apply_transforms, job_transforms
from compiler.schedd.usermap import UserMap, UserMapper, user_maps
from spec import data_path

SEMANTICS = ("code", "manual")


@dataclass(frozen=True, slots=True)
class ScheddPolicy:
    """What the schedd reads from its configuration for submissions."""

    transforms: tuple[Transform, ...]
    requirements: tuple[SubmitRequirement, ...]
    maps: Mapping[str, UserMap]
    config: Config


def load_schedd_policy(config: Config) -> ScheddPolicy:
    """The transforms, submit requirements and user maps of `config` (read as the
    schedd: `SCHEDD.NAME` settings win). Problems are positioned `PolicyError`s."""
    if config.subsystem != "SCHEDD":
        raise ValueError("load the configuration with subsystem='SCHEDD'")
    return ScheddPolicy(
        job_transforms(config), submit_requirements(config), user_maps(config), config
    )


@dataclass(frozen=True, slots=True)
class Change:
    """One attribute a transform changed: `before`/`after` as ClassAd text, None when the
    attribute is absent on that side."""

    attr: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class JobOutcome:
    """One job of the submission: its transformed ad, what changed, the transforms
    applied, and the requirements' outcome (None when an earlier job already rejected
    the cluster)."""

    index: int
    ad: ClassAd
    applied: tuple[str, ...]
    changes: tuple[Change, ...]
    requirements: RequirementsResult | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Submission:
    """The verdict: "accepted", "warned" or "rejected"; `message` is what condor_submit
    shows (the newest pushed message, without its trailing newline)."""

    status: str
    message: str | None
    rejected_job: int | None
    jobs: tuple[JobOutcome, ...]
    problems: tuple[Problem, ...]


def _text(raw: object) -> str:
    if isinstance(raw, A.Expr):
        return unparse(raw)
    return format_value(raw)


def changes(before: Mapping[str, object], after: Mapping[str, object]) -> tuple[Change, ...]:
    """The attributes whose ClassAd text differs (names compared without case)."""
    old = {name.lower(): (name, _text(value)) for name, value in before.items()}
    new = {name.lower(): (name, _text(value)) for name, value in after.items()}
    out: list[Change] = []
    for key in sorted(old.keys() | new.keys()):
        was, now = old.get(key), new.get(key)
        if was is not None and now is not None and was[1] == now[1]:
            continue
        name = (now or was or ("", ""))[0]
        out.append(Change(name, was[1] if was else None, now[1] if now else None))
    return tuple(out)


def check_submission(
    policy: ScheddPolicy,
    jobs: Sequence[Mapping[str, object]],
    schedd_ad: Mapping[str, object] | None = None,
    *,
    now: int | None = None,
) -> Submission:
    """The schedd's check of one cluster (`jobs` are its procs, in order)."""
    schedd = schedd_ad if schedd_ad is not None else ClassAd()
    mapper = UserMapper(dict(policy.maps)) if policy.maps else None
    outcomes: list[JobOutcome] = []
    stack: list[Problem] = []
    rejected: int | None = None
    for index, job in enumerate(jobs):
        result = apply_transforms(
            policy.transforms, job, config=policy.config, user_map=mapper, now=now
        )
        verdict: RequirementsResult | None = None
        if rejected is None:
            verdict = check_requirements(policy.requirements, result.ad, schedd)
            stack.extend(verdict.problems)
            if not verdict.accepted:
                rejected = index
        outcomes.append(
            JobOutcome(
                index,
                result.ad,
                result.applied,
                changes(job, result.ad),
                verdict,
                result.notes + (verdict.notes if verdict else ()),
            )
        )
        if rejected is not None:
            break
    message = stack[-1].message.rstrip("\n") if stack else None
    status = "rejected" if rejected is not None else ("warned" if stack else "accepted")
    return Submission(status, message, rejected, tuple(outcomes), tuple(stack))


@functools.cache
def _messages() -> dict[str, dict[str, tuple[str, ...]]]:
    """spec/schedd.yaml's `messages`, checked."""
    from compiler.spec import SpecError

    path: Path = data_path("schedd.yaml")
    data: Any = yamlcache.load(path.read_text(encoding="utf-8"), path)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    if not isinstance(data, dict) or set(data) != {"messages", "submit_commands"}:
        raise SpecError(
            "the file must be a mapping with the keys messages and submit_commands",
            file=str(path),
        )
    for semantics in SEMANTICS:
        entry = data["messages"].get(semantics) if isinstance(data["messages"], dict) else None
        if not isinstance(entry, dict) or set(entry) != {"rejected", "warned"}:
            raise SpecError(
                f"messages.{semantics}: must map rejected and warned to lists of lines",
                file=str(path),
                key_path=f"messages.{semantics}",
            )
        for kind, lines in entry.items():
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise SpecError(
                    f"messages.{semantics}.{kind}: must be a list of lines",
                    file=str(path),
                    key_path=f"messages.{semantics}.{kind}",
                )
        out[semantics] = {kind: tuple(lines) for kind, lines in entry.items()}
    return out


def condor_submit_lines(submission: Submission, *, semantics: str = "code") -> list[str]:
    """The lines condor_submit prints on stderr for this verdict (none when accepted
    without a warning)."""
    if submission.status == "accepted" or submission.message is None:
        return []
    template = _messages()[semantics][submission.status]
    return [line.replace("{message}", submission.message) for line in template]
