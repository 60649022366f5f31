"""Ask the real HTCondor reader (the htcondor wheel) what a configuration means.

Each call runs a fresh Python process with CONDOR_CONFIG pointing at the file and the
subsystem set to STARTD, because HTCondor exits the process when it refuses a
configuration. Values are read through an alias (`CPQ_ALIAS = $(NAME)`), which gives the
string `condor_config_val` prints even for typed parameters (`htcondor2.param` returns
600 for MachineMaxVacateTime; `condor_config_val` prints `10 * 60`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_SCRIPT = r"""
import json, sys
request = json.loads(sys.stdin.read())
names = request["names"]
import htcondor2
htcondor2.set_subsystem(request["subsystem"], getattr(htcondor2.SubsystemType, request["kind"]))
htcondor2.reload_config()
p = htcondor2.param
out = {}
if request["all"]:
    known = {n.upper() for n in names}
    names = names + [k for k in list(p) if k and k.upper() not in known and k != "CPQ_ALIAS"]
for name in names:
    p["CPQ_ALIAS"] = "$(" + name + ")"
    try:
        value = p["CPQ_ALIAS"]
    except KeyError:
        value = ""
    out[name] = value if value != "" else None
print("\x00ORACLE" + json.dumps(out))
"""

#: Seconds before a look-up is declared hung (HTCondor spins forever on cyclic macros).
TIMEOUT = 4


@dataclass(frozen=True, slots=True)
class OracleResult:
    """`refused` with HTCondor's message, or `values` (None for undefined names)."""

    refused: bool
    message: str
    values: dict[str, str | None]
    hung: bool = False


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment both readers see: no `_CONDOR_*` overrides, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env.pop("CONDOR_CONFIG", None)
    env.update(extra or {})
    return env


def oracle_param(
    config: Path,
    names: Iterable[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    every_name: bool = False,
    subsystem: str = "STARTD",
) -> OracleResult:
    """Values of `names` (and with `every_name` of every name HTCondor knows) for `config`."""
    environment = clean_env(env)
    environment["CONDOR_CONFIG"] = str(config)
    try:
        result = subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            input=json.dumps(
                {
                    "names": list(names),
                    "all": every_name,
                    "subsystem": subsystem,
                    "kind": subsystem.capitalize(),
                }
            ),
            env=environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=cwd or Path.cwd(),
        )
    except subprocess.TimeoutExpired:
        return OracleResult(True, "timed out (HTCondor hangs on this configuration)", {}, True)
    marker = result.stdout.find("\x00ORACLE")
    if result.returncode != 0 or marker < 0:
        return OracleResult(True, (result.stderr or result.stdout).strip(), {})
    values = json.loads(result.stdout[marker + len("\x00ORACLE") :])
    return OracleResult(False, result.stderr.strip(), values)
