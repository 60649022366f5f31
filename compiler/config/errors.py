"""Errors of the configuration reader (stage: config text -> macro table).

Every problem carries the file, line and column where it was found so that the CLI can
point at it; the reader collects all problems of a run and raises them together.
"""

from __future__ import annotations

from compiler.errors import PolicyError


class ConfigError(PolicyError):
    """A configuration file HTCondor would refuse, or one we refuse on purpose.

    We refuse on purpose: commands in `include` (unless allowed), cyclic macros,
    binary or oversized files.
    """
