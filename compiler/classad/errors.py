"""Errors raised by the ClassAd front end (stage: parsing and ad reading).

`ClassAdSyntaxError` is a `PolicyError`, so the CLI prints it as `file:line:col: message`
with the source line and a caret, and exits 2.
"""

from __future__ import annotations

from compiler.errors import PolicyError


class ClassAdSyntaxError(PolicyError):
    """Text that HTCondor's ClassAd parser would reject (or that nests too deeply)."""
