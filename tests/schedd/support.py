"""Shared helpers of the schedd-policy tests: the seed's configuration with a Groups map,
job ads written as ClassAd text, and the wheel asked in a child process (it must read
the test's configuration: userMap's maps come from SCHEDD_CLASSAD_USER_MAP_NAMES)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from compiler.classad import ClassAd, parse
from compiler.config import load_config
from compiler.schedd import ScheddPolicy, load_schedd_policy
from tests.config.oracle_config import clean_env

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SEED = FIXTURES / "seed002_schedd.conf"

#: The Groups map the seed's AssignGroup example assumes (written for these tests).
GROUPS_MAP = """\
# method  user    groups
*         alice   physics,cs
*         chris   cs
*         /^(dan|eve)$/  ops_\\1
"""


def seed_config(tmp_path: Path, extra: str = "") -> Path:
    """The seed's schedd configuration plus the Groups map file (and `extra` lines)."""
    mapfile = tmp_path / "groups.map"
    mapfile.write_text(GROUPS_MAP, encoding="utf-8")
    config = tmp_path / "schedd.conf"
    config.write_text(
        SEED.read_text(encoding="utf-8")
        + "\nSCHEDD_CLASSAD_USER_MAP_NAMES = Groups\n"
        + f"CLASSAD_USER_MAPFILE_Groups = {mapfile}\n"
        + extra,
        encoding="utf-8",
    )
    return config


def policy_of(path: Path) -> ScheddPolicy:
    return load_schedd_policy(load_config(path, subsystem="SCHEDD"))


def ad(**attrs: str) -> ClassAd:
    """A job ad from ClassAd source text per attribute."""
    return ClassAd({name: parse(text) for name, text in attrs.items()})


_WHEEL = r"""
import json, sys
request = json.loads(sys.stdin.read())
import htcondor2
htcondor2.set_subsystem("SCHEDD", htcondor2.SubsystemType.Schedd)
htcondor2.reload_config()
import classad2
out = []
for steps, job in request:
    ad = classad2.ClassAd(job)
    values = []
    for attr, text in steps:
        value = classad2.ExprTree(text).eval(ad)
        if isinstance(value, classad2.Value):
            shown = {"special": "error" if value == classad2.Value.Error else "undefined"}
            ad[attr] = value
        else:
            shown = value
            ad[attr] = value
        values.append(shown)
    out.append(values)
print("\x00WHEEL" + json.dumps(out))
"""


def wheel_evalsets(config: Path, cases: list[tuple[list[tuple[str, str]], str]]) -> list[list[Any]]:
    """For each (steps, job ad text): the wheel's values of the steps' expressions, each
    evaluated against the job ad (MY) and stored in it as EVALSET does."""
    env = clean_env({"CONDOR_CONFIG": str(config)})
    result = subprocess.run(
        [sys.executable, "-c", _WHEEL],
        input=json.dumps(cases),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    marker = result.stdout.find("\x00WHEEL")
    assert marker >= 0, result.stderr
    return json.loads(result.stdout[marker + len("\x00WHEEL") :])  # type: ignore[no-any-return]
