"""Data, not code: what the HTCondor manuals say, as files.

This package only locates its data files; loading and checking them is the
compiler's job (`compiler.spec`).
"""

from pathlib import Path

SPEC_DIR = Path(__file__).resolve().parent


def data_path(*parts: str) -> Path:
    """Path of a data file shipped under spec/."""
    return SPEC_DIR.joinpath(*parts)
