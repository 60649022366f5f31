"""Regenerate spec/config data from HTCondor's parameter table and the oracle (dev-time only).

Usage:
    python tools/gen_config_data.py PARAM_INFO_IN

PARAM_INFO_IN is HTCondor's `src/condor_utils/param_info.in` (for example
`git show 25.x:src/condor_utils/param_info.in` from a clone of htcondor/htcondor).

Writes:
* spec/config/defaults/htcondor-current.yaml: every parameter the oracle (`htcondor2.param`
  with an empty configuration, subsystem STARTD) reports, with the *raw* default from the
  table when expanding it reproduces the oracle's value (so that a configuration that
  redefines MINUTE changes StartIdleTime, as in HTCondor), else the oracle's text; names
  whose value HTCondor detects on the host are listed separately.
* spec/config/templates/metaknobs.yaml: the body of every `use CATEGORY : Template`.

The product never imports the oracle; only this script and the tests do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.config.expand import Context, expand, references  # noqa: E402

ORACLE_DUMP = r"""
import json, os, sys
import htcondor2
htcondor2.set_subsystem("STARTD", htcondor2.SubsystemType.Startd)
htcondor2.reload_config()
p = htcondor2.param
out = {}
for key in list(p):
    if not key:
        continue
    p["CPQ_ALIAS"] = "$(" + key + ")"
    out[key] = p["CPQ_ALIAS"]
# prefixed defaults (MASTER.X) are not listed; ask for them by name
for key in json.loads(os.environ.get("CPQ_EXTRA", "[]")):
    p["CPQ_ALIAS"] = "$(" + key + ")"
    try:
        value = p["CPQ_ALIAS"]
    except KeyError:
        value = ""
    if value:
        out[key] = value
json.dump(out, sys.stdout)
"""

#: Names whose value differs per process even when the table has a default.
VOLATILE = {"PERIODIC_CHECKPOINT", "UWCS_PERIODIC_CHECKPOINT"}

#: Names HTCondor computes from the host, the process or the subsystem at start-up.
HOST_DETECTED = {
    "ARCH",
    "CONFIG_ROOT",
    "CondorIsAdmin",
    "DETECTED_CORES",
    "DETECTED_CPUS",
    "DETECTED_MEMORY",
    "DETECTED_PHYSICAL_CPUS",
    "FULL_HOSTNAME",
    "HOSTNAME",
    "IPV4_ADDRESS",
    "IPV6_ADDRESS",
    "IP_ADDRESS",
    "IP_ADDRESS_IS_IPV6",
    "LOCALNAME",
    "OPSYS",
    "OPSYSANDVER",
    "OPSYSLEGACY",
    "OPSYSLONGNAME",
    "OPSYSMAJORVER",
    "OPSYSNAME",
    "OPSYSSHORTNAME",
    "OPSYSVER",
    "PID",
    "PPID",
    "REAL_GID",
    "REAL_UID",
    "SUBSYSTEM",
    "UNAME_ARCH",
    "UNAME_OPSYS",
    "USERNAME",
    "UTSNAME_MACHINE",
    "UTSNAME_NODENAME",
    "UTSNAME_RELEASE",
    "UTSNAME_SYSNAME",
    "UTSNAME_VERSION",
    "CONDOR_BUILD_PLATFORM",
    "PYTHON3_MODULE_SUFFIX",
    "PYTHON3_VERSION_MINOR",
}

#: Names whose table default is kept raw although it expands through detected values.
KEEP_RAW = {"DETECTED_CPUS_LIMIT", "NUM_CPUS"}

#: Hand-written one-line summaries of the templates that touch the startd policy.
SUMMARIES = {
    (
        "POLICY",
        "Desktop",
    ): "cycle scavenging: run only when keyboard and CPU are idle, suspend then preempt",
    ("POLICY", "UWCS_Desktop"): "the UW-Madison CS desktop policy via the UWCS_* macros",
    ("POLICY", "Always_Run_Jobs"): "dedicated machine: always start, never suspend or preempt",
    (
        "POLICY",
        "Limit_Job_Runtimes",
    ): "preempt a job that has been busy longer than the limit (default 24 h)",
    ("POLICY", "Preempt_If_Runtime_Exceeds"): "preempt jobs running longer than the limit",
    ("POLICY", "Hold_If_Runtime_Exceeds"): "put jobs running longer than the limit on hold",
    ("POLICY", "Preempt_If_Memory_Exceeded"): "preempt jobs using more memory than provisioned",
    ("POLICY", "Hold_If_Memory_Exceeded"): "hold jobs using more memory than provisioned",
    ("POLICY", "Preempt_If_Cpus_Exceeded"): "preempt jobs using more CPUs than provisioned",
    ("POLICY", "Hold_If_Cpus_Exceeded"): "hold jobs using more CPUs than provisioned",
    ("POLICY", "Preempt_If_Disk_Exceeded"): "preempt jobs using more disk than provisioned",
    ("POLICY", "Hold_If_Disk_Exceeded"): "hold jobs using more disk than provisioned",
    ("POLICY", "Preempt_If"): "building block: preempt when the named macro is true",
    (
        "POLICY",
        "Want_Hold_If",
    ): "building block: hold when the named macro is true (subcode, reason)",
    ("POLICY", "Startd_Publish_CpusUsage"): "publish CpusUsage in the slot ad",
    ("POLICY", "Desktop_Idle"): "desktop policy without suspension, optional working hours",
    ("POLICY", "Desktop_Hours"): "run jobs only outside working hours",
    ("FEATURE", "Policy_Expr_Fragments"): "helper macros of the desktop policies",
    ("FEATURE", "UWCS_Desktop_Policy_Values"): "the UWCS_* macros used by POLICY : UWCS_Desktop",
    ("FEATURE", "TestingMode_Policy_Values"): "the TESTINGMODE_* macros",
    ("FEATURE", "Policy_Hours_To_Start"): "working-hours helper macros",
    ("FEATURE", "StaticSlots"): "static slots of a given size",
    ("FEATURE", "PartitionableSlot"): "one partitionable slot of a given size",
    ("FEATURE", "GPUs"): "detect GPUs and advertise them as a slot resource",
}


def parse_param_info(text: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """(defaults by name, metaknob bodies by (category, name)) from param_info.in."""
    defaults: dict[str, str] = {}
    metaknobs: dict[tuple[str, str], str] = {}
    lines = text.split("\n")
    index = 0
    current: str | None = None
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith("[") and line.rstrip().endswith("]"):
            current = line.strip()[1:-1]
            continue
        if current is None or line.startswith("#"):
            continue
        stripped = line.strip()
        key, _, after = line.partition("=")
        if stripped.startswith("default") and key.strip() != "default":
            rest = stripped[len("default") :].strip()
            if rest.startswith(":") and rest[1:].strip().startswith("@"):
                tag = rest[1:].strip()
                body: list[str] = []
                while index < len(lines) and lines[index].strip() != tag:
                    body.append(lines[index])
                    index += 1
                index += 1
                _store(current, "\n".join(body), defaults, metaknobs, multi=True)
            continue
        if key.strip() == "default" and line.startswith("default"):
            value = after[1:] if after.startswith(" ") and key.endswith(" ") else after
            _store(current, value, defaults, metaknobs, multi=False)
    return defaults, metaknobs


def _store(
    entry: str,
    value: str,
    defaults: dict[str, str],
    metaknobs: dict[tuple[str, str], str],
    *,
    multi: bool,
) -> None:
    if entry.startswith("$"):
        category, _, name = entry[1:].partition(".")
        lines = [line.strip() for line in value.split("\n")]
        metaknobs[(category.upper(), name)] = "\n".join(
            line for line in lines if line and not line.startswith("#")
        )
    else:
        defaults[entry] = value if not multi else value.strip()


def oracle_dump(config_text: str = "", extra: list[str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env["CPQ_EXTRA"] = json.dumps(extra or [])
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "probe.config"
        config.write_text(config_text)
        env["CONDOR_CONFIG"] = str(config)
        result = subprocess.run(
            [sys.executable, "-c", ORACLE_DUMP],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp,
        )
    dumped: dict[str, str] = json.loads(result.stdout)
    return dumped


class _Table:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = {k.upper(): v for k, v in values.items()}

    def raw(self, name: str) -> str | None:
        return self.values.get(name.upper())


def build_defaults(
    table: dict[str, str], oracle: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    by_upper = {k.upper(): v for k, v in table.items()}
    detected = sorted(name for name in oracle if name in HOST_DETECTED)
    merged = {name: by_upper.get(name.upper(), "") for name in oracle}
    for name in detected:
        merged[name] = oracle[name]
    resolver = _Table(merged)
    context = Context(env={})
    chosen: dict[str, str] = {}
    # Defaults that expand to nothing with an empty configuration (ETC = $(LOCAL_DIR))
    # are not listed by the oracle, but a file that sets LOCAL_DIR brings them to life.
    listed = {name.upper() for name in oracle}
    for name, raw in sorted(table.items()):
        if raw and "." not in name and name.upper() not in listed:
            chosen[name] = raw  # includes subsystem defaults such as MASTER.PID_SNAPSHOT_INTERVAL
    for name in sorted(oracle, key=str.upper):
        if name in detected or name in VOLATILE:
            continue
        raw = by_upper.get(name.upper(), "")
        try:
            ours = expand(raw, resolver, context, (name.upper(),))
        except Exception:  # the generator reports, it does not stop
            ours = None
        keep = ours == oracle[name] or name in KEEP_RAW or name.startswith("Is")
        chosen[name] = raw if keep and raw else oracle[name]
    return dict(sorted(chosen.items(), key=lambda item: item[0].upper())), detected


HEADER_DEFAULTS = """\
# Built-in parameter defaults of HTCondor (era htcondor-current), one entry per name.
# Generated by tools/gen_config_data.py from the parameter table and checked against the
# htcondor wheel (htcondor2.param with an empty configuration, subsystem STARTD).
# Values are raw (unexpanded) where the table's text expands to what HTCondor reports,
# so that redefining MINUTE changes StartIdleTime as it does in HTCondor.
# `detected` lists names HTCondor computes on the host at start-up (host name, CPU
# count ...); compiler/config/host.py supplies the ones a policy may use.
"""

HEADER_TEMPLATES = """\
# Bodies of HTCondor's configuration templates (`use CATEGORY : Name(args)`), one entry
# per template. The configuration text is HTCondor's (facts about the real reader);
# `summary` lines are ours. Generated by tools/gen_config_data.py from the parameter
# table; tests/config/test_templates_oracle.py compares every POLICY and FEATURE template
# that touches the startd with the htcondor wheel.
"""


class _LiteralDumper(yaml.SafeDumper):
    """Writes multi-line strings as `|` blocks so the data files read like config text."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_LiteralDumper.add_representer(str, _represent_str)


def recover_raw(table: dict[str, str], chosen: dict[str, str]) -> None:
    """Raw defaults for parameters the oracle knows but the table given to us lacks.

    The wheel may be newer than the param_info.in at hand (METRICD_LOG ...). Setting every
    macro the table's defaults refer to (LOG, SPOOL, ETC ...) to a sentinel and reading
    the oracle again shows which of them such a value is built from.
    """
    referenced = sorted(
        {ref for raw in table.values() for ref in references(raw)}
        - {n.upper() for n in HOST_DETECTED}
    )
    sentinels = {name: f"@@{name}@@" for name in referenced}
    probe = "\n".join(f"{name} = {sentinel}" for name, sentinel in sentinels.items()) + "\n"
    probed = oracle_dump(probe)
    known = {name.upper() for name in table}
    for name in list(chosen):
        if name.upper() in known or name.upper() in sentinels:
            continue
        value = probed.get(name, "")
        if "@@" not in value:
            continue
        for ref, sentinel in sentinels.items():
            value = value.replace(sentinel, f"$({ref})")
        chosen[name] = value


def main(argv: list[str]) -> int:
    text = Path(argv[1]).read_text()
    table, metaknobs = parse_param_info(text)
    oracle = oracle_dump(extra=[name for name in table if "." in name])
    chosen, detected = build_defaults(table, oracle)
    recover_raw(table, chosen)
    out_dir = ROOT / "spec" / "config"
    (out_dir / "defaults").mkdir(parents=True, exist_ok=True)
    (out_dir / "templates").mkdir(parents=True, exist_ok=True)
    defaults_doc = {
        "era": "htcondor-current",
        "version": "25.14.1",
        "defaults": chosen,
        "detected": detected,
        "volatile": sorted(VOLATILE),
    }
    with (out_dir / "defaults" / "htcondor-current.yaml").open("w") as handle:
        handle.write(HEADER_DEFAULTS)
        yaml.dump(
            defaults_doc,
            handle,
            Dumper=_LiteralDumper,
            sort_keys=False,
            width=10000,
            allow_unicode=True,
        )
    templates: dict[str, dict[str, dict[str, str]]] = {}
    for (category, name), body in sorted(metaknobs.items()):
        entry = {"body": body}
        summary = None
        for (cat, known), text_ in SUMMARIES.items():
            if cat == category and known.upper() == name.upper():
                summary, name = text_, known  # the documentation's spelling
        if summary:
            entry = {"summary": summary, "body": body}
        templates.setdefault(category, {})[name] = entry
    with (out_dir / "templates" / "metaknobs.yaml").open("w") as handle:
        handle.write(HEADER_TEMPLATES)
        yaml.dump(
            {"templates": templates}, handle, Dumper=_LiteralDumper, sort_keys=False, width=10000
        )
    print(f"{len(chosen)} defaults, {len(detected)} detected, {len(metaknobs)} templates")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
