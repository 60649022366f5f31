"""`condor-policy submit-check [CONFIG] JOB_AD... [--schedd AD] [--format text|json]`:
what the schedd does to a submission before it enters the queue.

The configuration is read as the schedd reads it (subsystem SCHEDD); with two or more
positional arguments the first is CONFIG, with one it is a job ad and the configuration
is $CONDOR_CONFIG, else the era's defaults. Each JOB_AD file is one submission (a
cluster): every ad in it is one job, in order, in any form `eval --job` reads (long form,
new ClassAd syntax, JSON). For each submission: the job transforms applied and what they
changed (a diff against the input ad), then accepted / warned / rejected with the lines
condor_submit prints (`--semantics manual`: the seed's wording; `code`, the default, the
23.0 wording). The schedd ad (`--schedd`, default empty) is MY in the submit
requirements, the job TARGET.

Exit status: 0 when every submission is accepted (possibly with a warning), 1 when one is
rejected, 2 for bad input (a configuration whose transforms or requirements the schedd
cannot use, an unreadable ad), with a positioned message.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from compiler.classad import ClassAd, format_value, load_ad, load_ads, unparse
from compiler.classad import ast as A
from compiler.config import load_config
from compiler.errors import PolicyError
from compiler.spec import DEFAULT_ERA, ERAS
from runtime.commands._policy_args import add_allow_commands_argument

NAME = "submit-check"
HELP = (
    "Apply the schedd's job transforms and submit requirements to job ads "
    "(accepted / warned / rejected, as condor_submit reports it)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        metavar="[CONFIG] JOB_AD",
        nargs="+",
        help="schedd configuration (when two or more files are given) and job ad files",
    )
    parser.add_argument("--schedd", metavar="AD", help="the schedd's ad: MY (default empty)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--era", choices=ERAS, default=DEFAULT_ERA, help="manual era")
    parser.add_argument(
        "--semantics",
        choices=("code", "manual"),
        default="code",
        help="code (default): condor_submit 23.0's wording; manual: the seed's",
    )
    add_allow_commands_argument(parser)


def _ads(path: str) -> list[ClassAd]:
    if not Path(path).is_file():
        raise PolicyError(f"no such ad file: {path}", file=path)
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    from compiler.schedd import looks_like_submit_file, read_submit_file

    if looks_like_submit_file(text):
        return read_submit_file(text, path)
    ads = load_ads(Path(path))
    if not ads:
        raise PolicyError("the file holds no job ad", file=path)
    return ads


def run(args: argparse.Namespace) -> int:
    from compiler.schedd import check_submission, condor_submit_lines, load_schedd_policy
    from runtime.commands._policy_args import config_path

    paths: list[str] = list(args.paths)
    config_arg = paths.pop(0) if len(paths) >= 2 else None
    args.config = config_arg
    path = config_path(args)
    if path is not None and not path.exists():
        raise PolicyError("no such configuration file or directory", file=str(path))
    config = load_config(path, era=args.era, subsystem="SCHEDD", allow_commands=args.allow_commands)
    policy = load_schedd_policy(config)
    if args.schedd and not Path(args.schedd).is_file():
        raise PolicyError(f"no such ad file: {args.schedd}", file=args.schedd)
    schedd = load_ad(Path(args.schedd)) if args.schedd else ClassAd()
    reports: list[dict[str, Any]] = []
    for job_path in paths:
        jobs = _ads(job_path)
        submission = check_submission(policy, jobs, schedd)
        reports.append(
            {
                "file": job_path,
                "status": submission.status,
                "message": submission.message,
                "condor_submit": condor_submit_lines(submission, semantics=args.semantics),
                "rejected_job": submission.rejected_job,
                "jobs": [_job_json(job) for job in submission.jobs],
            }
        )
    if args.format == "json":
        print(json.dumps({"submissions": reports}, indent=2))
    else:
        for report in reports:
            print(_text(report))
    return 1 if any(r["status"] == "rejected" for r in reports) else 0


def _value_text(raw: object) -> str:
    return unparse(raw) if isinstance(raw, A.Expr) else format_value(raw)


def _job_json(job: Any) -> dict[str, Any]:
    verdict = job.requirements
    return {
        "index": job.index,
        "transforms_applied": list(job.applied),
        "changes": [{"attr": c.attr, "before": c.before, "after": c.after} for c in job.changes],
        "requirements": None
        if verdict is None
        else {
            "rejected_by": verdict.rejected_by,
            "problems": [
                {
                    "requirement": p.requirement,
                    "warning": p.is_warning,
                    "message": p.message.rstrip("\n"),
                }
                for p in verdict.problems
            ],
        },
        "notes": list(job.notes),
        "ad": {name: _value_text(value) for name, value in job.ad.items()},
    }


def _text(report: dict[str, Any]) -> str:
    lines = [f"{report['file']}: {report['status']}"]
    for job in report["jobs"]:
        applied = ", ".join(job["transforms_applied"]) or "none"
        lines.append(f"  job {job['index']}: transforms applied: {applied}")
        for change in job["changes"]:
            if change["before"] is None:
                lines.append(f"    + {change['attr']} = {change['after']}")
            elif change["after"] is None:
                lines.append(f"    - {change['attr']} = {change['before']}")
            else:
                lines.append(f"    - {change['attr']} = {change['before']}")
                lines.append(f"    + {change['attr']} = {change['after']}")
        for note in job["notes"]:
            lines.append(f"    note: {note}")
    lines += [f"  {line}" for line in report["condor_submit"]]
    return "\n".join(lines)
