"""The schedd's policy: job transforms and submit requirements (issue 17).

Public API:

* `load_schedd_policy(config) -> ScheddPolicy` (a configuration read with
  `load_config(..., subsystem="SCHEDD")`): JOB_TRANSFORM_NAMES, SUBMIT_REQUIREMENT_NAMES
  and SCHEDD_CLASSAD_USER_MAP_NAMES as the schedd reads them;
* `check_submission(policy, jobs, schedd_ad=None) -> Submission`: a cluster's job ads
  transformed and checked as the schedd does before they enter the queue;
* `condor_submit_lines(submission, semantics=...)`: what condor_submit prints;
* `read_submit_file(text, file) -> list[ClassAd]` (with `looks_like_submit_file`): the
  job ads of a simple submit description (spec/schedd.yaml `submit_commands`);
* `lint(config) -> list[Finding]`: the transforms' and requirements' lints (never /
  always TRUE, unknown job attributes, a REQUIREMENTS written as a macro), for `check`
  and `compile` to report.

Modules: `transforms` (the native transform language and the older ClassAd form),
`requirements` (submit requirements and warnings), `usermap` (userMap's map files),
`check` (the two together), `lint`, `tokens` (the statement word splitter).
"""

from compiler.schedd.check import (
    Change,
    JobOutcome,
    ScheddPolicy,
    Submission,
    check_submission,
    condor_submit_lines,
    load_schedd_policy,
)
from compiler.schedd.lint import lint
from compiler.schedd.requirements import SubmitRequirementError
from compiler.schedd.submitfile import SubmitFileError, looks_like_submit_file, read_submit_file
from compiler.schedd.transforms import TransformError
from compiler.schedd.usermap import UserMapError

__all__ = [
    "Change",
    "JobOutcome",
    "ScheddPolicy",
    "Submission",
    "SubmitFileError",
    "SubmitRequirementError",
    "TransformError",
    "UserMapError",
    "check_submission",
    "condor_submit_lines",
    "lint",
    "load_schedd_policy",
    "looks_like_submit_file",
    "read_submit_file",
]
