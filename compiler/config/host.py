"""Values HTCondor's reader computes at start-up instead of reading them from a file.

HTCondor defines HOSTNAME, FULL_HOSTNAME, DETECTED_CPUS, DETECTED_MEMORY, OPSYS, ARCH,
SUBSYSTEM and friends itself. Policies use a few of them (`NUM_CPUS =
$(DETECTED_CORES)`, `START = ... $(FULL_HOSTNAME) ...`), so the reader supplies the ones
it can learn cheaply and portably; the rest stay undefined. Stage: before reading.
"""

from __future__ import annotations

import os
import socket
import sys
import sysconfig
from functools import cache

_ARCH_NAMES = {"x86_64": "X86_64", "amd64": "X86_64", "aarch64": "aarch64", "arm64": "aarch64"}


@cache
def _machine_facts() -> dict[str, str]:
    cpus = str(os.cpu_count() or 1)
    system, machine = _system_and_machine()
    facts = {
        "DETECTED_CORES": cpus,
        "DETECTED_CPUS": cpus,
        "DETECTED_PHYSICAL_CPUS": cpus,
        "ARCH": _ARCH_NAMES.get(machine.lower(), machine.upper()),
        "OPSYS": system.upper() or "LINUX",
        "UNAME_OPSYS": system,
        "UNAME_ARCH": machine,
        "OPSYSLEGACY": system.upper() or "LINUX",
        "CondorIsAdmin": "false",
        "PYTHON3_VERSION_MINOR": str(sys.version_info.minor),
        "PYTHON3_MODULE_SUFFIX": str(sysconfig.get_config_var("EXT_SUFFIX") or ""),
    }
    if hasattr(os, "uname"):
        uname = os.uname()
        facts.update(
            UTSNAME_SYSNAME=uname.sysname,
            UTSNAME_NODENAME=uname.nodename,
            UTSNAME_RELEASE=uname.release,
            UTSNAME_VERSION=uname.version,
            UTSNAME_MACHINE=uname.machine,
        )
    if hasattr(os, "getuid"):
        facts.update(REAL_UID=str(os.getuid()), REAL_GID=str(os.getgid()))
    memory = _memory_mb()
    if memory is not None:
        facts["DETECTED_MEMORY"] = str(memory)
    name = socket.gethostname()
    full = name
    if "." not in name:
        qualified = socket.getfqdn(name)
        if qualified.lower().startswith(name.lower() + "."):
            full = qualified
    facts["HOSTNAME"] = name.split(".")[0]
    facts["FULL_HOSTNAME"] = full
    ipv4 = _route_address(socket.AF_INET, "192.0.2.1")
    ipv6 = _route_address(socket.AF_INET6, "2001:db8::1")
    facts["IP_ADDRESS"] = ipv4 or ipv6 or "127.0.0.1"
    facts["IP_ADDRESS_IS_IPV6"] = "false" if ipv4 or not ipv6 else "true"
    if ipv4:
        facts["IPV4_ADDRESS"] = ipv4
    if ipv6:
        facts["IPV6_ADDRESS"] = ipv6
    return facts


def _route_address(family: socket.AddressFamily, documentation_host: str) -> str | None:
    """This host's source address towards a documentation address (no packet is sent)."""
    try:
        probe = socket.socket(family, socket.SOCK_DGRAM)
    except OSError:
        return None
    try:
        probe.connect((documentation_host, 9))
        address: str = probe.getsockname()[0]
        return address
    except OSError:
        return None
    finally:
        probe.close()


def _condor_home() -> str:
    """The home directory of the `condor` user ($(TILDE)), '' when there is none."""
    try:
        import pwd

        return pwd.getpwnam("condor").pw_dir
    except (ImportError, KeyError):
        return ""


def _user_name() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError, AttributeError):
        return os.environ.get("USER", "")


def _system_and_machine() -> tuple[str, str]:
    """`platform.system()` and `platform.machine()`: on a POSIX host both are read from
    `os.uname()` as platform reads them, without importing platform (and compiling its
    regular expressions) on every cold start; elsewhere platform answers."""
    if hasattr(os, "uname"):
        uname = os.uname()
        return uname.sysname, uname.machine
    import platform

    return platform.system(), platform.machine()


def _memory_mb() -> int | None:
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return int(pages * size // (1024 * 1024))


def detected_values(
    subsystem: str, config_root: str | None, local_name: str | None = None
) -> dict[str, str]:
    """Upper-cased name -> value for the computed parameters of this host and subsystem."""
    facts = {name.upper(): value for name, value in _machine_facts().items()}
    facts["SUBSYSTEM"] = subsystem.upper()
    facts["LOCALNAME"] = local_name or subsystem.upper()
    tilde = _condor_home()
    if tilde:
        facts["TILDE"] = tilde
    facts["USERNAME"] = _user_name()
    facts["PID"] = str(os.getpid())
    facts["PPID"] = str(os.getppid())
    if config_root is not None:
        facts["CONFIG_ROOT"] = config_root
    return facts
