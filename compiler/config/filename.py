"""The file-name macros `$F<letters>(X)`, `$BASENAME(X[, suffix])` and `$DIRNAME(X)`.

HTCondor cuts these out of one byte buffer by index arithmetic (src/condor_utils/
config.cpp, `evaluate_macro_func`, case SPECIAL_MACRO_ID_FILENAME; with
`strlen_unquote`, `strcpy_quoted`, `condor_basename_plus_dirs` there and
`condor_basename` / `condor_basename_extension_ptr` in basename.cpp). The corner cases
(a `q` that re-quotes a cut, `$Fd` keeping the trailing `/`, a leading-dot name having
no extension, `\\` counting as a separator only for `d`) all follow from that
arithmetic, so this module replays it step by step on a bytearray rather than
re-deriving the rules with `os.path`. The letters (any case after the `F`):

- `x` extension with its dot, `n` name without extension, `p` directory with its
  trailing `/`, `d` (repeatable) that many parent directory names;
- `q` quote the result with `"` (`a`: with `'`), without `q` outer quotes are dropped;
- `b` bare: no trailing `/` for `p`/`d`, no dot for `x`;
- `w` / `u` turn every path separator into `\\` / `/`;
- `f` make the path absolute; `condor_config_val` has no current directory to join
  it to, so the path stays as it is.
"""

from __future__ import annotations

import msgspec


class FilenameUndefined(ValueError):
    """HTCondor's result is undefined (more `d`s than directories) or not valid text."""


class Letters(msgspec.Struct, frozen=True):
    """What the letters of `$F<letters>` ask for (the `switch` over `func`)."""

    parts: int = 0
    dirs: int = 0
    quoted: bool = False
    arg_quote: bool = False
    bare: bool = False
    path_char: bytes = b""

    @staticmethod
    def of(letters: str) -> Letters:
        parts = dirs = 0
        quoted = arg_quote = bare = False
        path_char = b""
        bits = {"x": 1, "n": 2, "p": 4, "d": 8}
        for letter in letters.lower():
            parts |= bits.get(letter, 0)
            dirs += letter == "d"
            quoted |= letter == "q"
            arg_quote |= letter == "a"
            bare |= letter == "b"
            if letter in "wu":
                path_char = b"\\" if letter == "w" else b"/"
        return Letters(parts, dirs, quoted, arg_quote, bare, path_char)


BASENAME = Letters(parts=1 | 2)
DIRNAME = Letters(parts=4)


def _unquote(value: bytes) -> bytes:
    """`strlen_unquote`: drop one pair of matching outer `"` or `'`."""
    if len(value) > 1 and value[0] == value[-1] and value[:1] in (b'"', b"'"):
        return value[1:-1]
    return value


def _copy_quoted(value: bytes, quote: bytes, after: bytes) -> bytes:
    """`strcpy_quoted`: drop a leading `"` (or `quote`) and its twin at the end; add `quote`.

    `after` is the byte that follows `value` in HTCondor's buffer: for an empty value
    C still looks at it, and if it is a quote to drop, copies -1 bytes (a crash).
    """
    if not value and (after == b'"' or (quote and after == quote)):
        raise FilenameUndefined("HTCondor copies -1 bytes of an empty quoted value")
    if value[:1] == b'"' or (quote and value[:1] == quote):
        first = value[:1]
        value = value[1:]
        if value[-1:] == first:
            value = value[:-1]
    return quote + value + quote


def _extension(buf: bytearray, start: int, end: int) -> int:
    """`condor_basename_extension_ptr`: the last `.` after the name's first byte, else end."""
    for index in range(end, start, -1):
        if buf[index] == ord("."):
            return index
    return end


def _plus_dirs(buf: bytearray, end: int, dirs: int) -> int:
    """`condor_basename_plus_dirs`: where the name with `dirs` parent directories starts."""
    seps: list[int] = []
    pos = 0
    if buf[0:2] == b"\\\\":
        pos = 4 if buf[2:4] == b".\\" else 2
        seps.append(pos)
    seps += [i + 1 for i in range(pos, end) if buf[i] in b"\\/"]
    if dirs > len(seps):
        raise FilenameUndefined(f"asks for {dirs} directories of a path that has {len(seps)}")
    del seps[len(seps) - dirs :]
    return seps[-1] if seps else 0


def file_part(letters: Letters, value: str, suffix: str | None = None) -> str:
    """The part of the path `value` that `letters` select (`suffix`: $BASENAME's 2nd argument)."""
    quote = (b"'" if letters.arg_quote else b'"') if letters.quoted else b""
    raw = value.encode("utf-8", "surrogateescape")
    unquoted = _unquote(raw)
    after = raw[len(raw) - 1 :] if unquoted is not raw else b""
    text = _copy_quoted(unquoted, quote, after)
    if letters.path_char:
        other = b"/" if letters.path_char == b"\\" else b"\\"
        text = text.replace(other, letters.path_char)
    end = len(text)
    buf = bytearray(text + b"\0\0\0")
    name = text.rfind(b"/") + 1
    ext = _extension(buf, name, end)
    parts = letters.parts
    if suffix is not None:
        tail = suffix.encode("utf-8", "surrogateescape")
        if end - len(tail) >= name and buf[end - len(tail) : end].lower() == tail.lower():
            ext = end - len(tail)
            parts &= ~1
    if not name and parts & 3:
        parts &= ~(4 | 8)
    start = 0
    match parts & 0xF:
        case 1:
            start = ext + (1 if letters.bare and ext < end else 0)
        case 3:
            start = name
        case 2:
            start, end = name, ext
        case 0 | 7 | 5:
            pass
        case 4:
            end = name - 1 if letters.bare and name > 0 else name
        case 6:
            end = ext
        case _ if name > 0:
            start = _plus_dirs(buf, end, letters.dirs)
            if parts & 3 == 2:
                end = ext
            elif parts & 3 == 0:
                end = name - 1 if letters.bare else name
        case _:
            start = end = 1
    if quote:
        if buf[start] != quote[0]:
            if start == 0:  # HTCondor ASSERTs here; no letter combination reaches it
                raise FilenameUndefined("cannot re-quote the start of the value")
            start -= 1
            buf[start] = quote[0]
        if end > 1 and buf[end - 1] == quote[0]:
            end -= 1
        buf[end] = quote[0]
        end += 1
    buf[end] = 0
    result = bytes(buf[start : buf.index(0, start)])
    try:
        return result.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FilenameUndefined("the cut splits a character") from err
