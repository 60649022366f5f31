"""The host facts read without `platform` are platform's (compiler/config/host.py)."""

from __future__ import annotations

import platform

from compiler.config import load_config
from compiler.config.host import _system_and_machine


def test_system_and_machine_are_platforms() -> None:
    assert _system_and_machine() == (platform.system(), platform.machine())


def test_the_detected_names_use_them() -> None:
    config = load_config(text="")
    assert config.raw("UNAME_OPSYS") == platform.system()
    assert config.raw("UNAME_ARCH") == platform.machine()
    assert config.raw("OPSYS") == (platform.system().upper() or "LINUX")
