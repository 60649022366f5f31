"""The differential oracle: the official HTCondor wheel (test dependency only).

`htcondor2` must be imported before `classad2`: the import switches the ClassAd library
into the "old ClassAd" compatibility mode that every HTCondor daemon uses (see
shared/reference/classad-semantics.md section 0). Importing `classad2` first would test
the wrong language. The product itself never imports either module.
"""
# ruff: noqa: I001  (import order is semantic here, see above)

from __future__ import annotations

import htcondor2
import classad2

__all__ = ["classad2", "htcondor2"]
