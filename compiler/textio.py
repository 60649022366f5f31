"""Input files -> text, with one rule for bytes that are not UTF-8 (stage: front end).

Every reader of a user's file (ads, traces, properties, transition-step lists) gets its
text here, so a file that cannot be read, or that holds bytes UTF-8 cannot decode, is a
positioned `PolicyError` (`file:line:col: byte 0xFF is not UTF-8 text`, exit 2) and
never a `UnicodeDecodeError` traceback.

Two rules, chosen by the format:

* strict (traces, properties, step lists): the format is text (YAML must be Unicode),
  so the first undecodable byte is an error at its line and column;
* `keep_bytes` (ClassAd ads): HTCondor's ClassAd strings are byte strings and its
  parser accepts any byte inside a string literal, so undecodable bytes are kept, one
  lone surrogate U+DC80..U+DCFF per byte (Python's `surrogateescape`), which is how
  the evaluator already represents the bytes of `"\\377"`. Outside a string literal
  the ClassAd parser reports such a byte at its position.

Configuration files keep their own rule (compiler.config.files: Latin-1 fallback, NUL
refused), as HTCondor's configuration reader does not look at encodings at all.
"""

from __future__ import annotations

import os
from pathlib import Path

from compiler.errors import PolicyError


def not_utf8(
    data: bytes, at: int, file: str | None, error: type[PolicyError] = PolicyError
) -> PolicyError:
    """The error for the undecodable byte at offset `at` of `data` (the first one)."""
    line = data.count(b"\n", 0, at) + 1
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    column = len(data[start:at].decode("utf-8", "replace")) + 1
    source = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")
    return error(
        f"byte 0x{data[at]:02X} is not UTF-8 text",
        file=file,
        line=line,
        column=column,
        source_line=source.rstrip("\r"),
    )


def decode(
    data: bytes,
    file: str | None,
    *,
    error: type[PolicyError] = PolicyError,
    keep_bytes: bool = False,
) -> str:
    """`data` as text by the rule in the module docstring."""
    if keep_bytes:
        return data.decode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(data, err.start, file, error) from None


def read_text(
    path: str | os.PathLike[str],
    *,
    file: str | None = None,
    error: type[PolicyError] = PolicyError,
    keep_bytes: bool = False,
) -> str:
    """The text of the file at `path` (shown in messages as `file`, default the path)."""
    shown = str(path) if file is None else file
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise error("no such file", file=shown) from None
    except IsADirectoryError:
        raise error("is a directory, expected a file", file=shown) from None
    except OSError as err:
        raise error(f"cannot read: {err.strerror or err}", file=shown) from None
    return decode(data, shown, error=error, keep_bytes=keep_bytes)
