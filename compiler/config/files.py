"""Reading configuration bytes safely (stage 0 of the reader: bytes -> text).

A configuration must be text: binary data (a NUL byte) and files over MAX_FILE_BYTES are
refused with a positioned ConfigError rather than parsed into nonsense. Invalid UTF-8 is
read as Latin-1, as old configuration files sometimes contain it in comments.
"""

from __future__ import annotations

import re
from pathlib import Path

from compiler.config.errors import ConfigError

#: Files larger than this are refused (real configurations are well under 1 MiB).
MAX_FILE_BYTES = 4 * 1024 * 1024


def read_bytes(path: Path, display: str) -> str:
    """File text, refusing unreadable, binary and oversized files."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(
                f"file is {size} bytes; refusing configuration files over {MAX_FILE_BYTES} bytes",
                file=display,
            )
        data = path.read_bytes()
    except IsADirectoryError as err:
        raise ConfigError("is a directory, expected a file", file=display) from err
    except OSError as err:
        raise ConfigError(f"cannot read: {err.strerror or err}", file=display) from err
    return decode(data, display)


def decode(data: bytes, display: str) -> str:
    """Text of a configuration file; binary content (NUL bytes) is an error."""
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(
            f"input is {len(data)} bytes; refusing configuration over {MAX_FILE_BYTES} bytes",
            file=display,
        )
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise ConfigError(
            "binary data (NUL byte): this is not a configuration file",
            file=display,
            line=line,
            column=column,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def directory_files(directory: Path, exclude: re.Pattern[str] | None) -> list[Path]:
    """The files of a config.d directory in the order HTCondor reads them (sorted)."""
    if not directory.is_dir():
        return []
    return sorted(
        (p for p in directory.iterdir() if p.is_file() and not (exclude and exclude.match(p.name))),
        key=lambda p: p.name,
    )
