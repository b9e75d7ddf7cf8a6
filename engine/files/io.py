"""Reading and writing graph files on disk.

Reading refuses oversized files before reading them, and opens ``.py`` files as a script with
default settings. Writing is atomic: the new contents go to a temporary file in the same folder,
which is flushed and fsynced and then renamed over the target with ``os.replace``; a crash at any
moment leaves either the old file or the new one, never a mixture. Temporary files are named
``.<name>.<random>.tmp`` so nothing that looks for ``*.gstep`` mistakes one for a graph file.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from ..gc_policy import collector_paused, keep_if_large
from .errors import GraphFileError
from .format import GraphFile
from .limits import DEFAULT_LIMITS, ReadLimits
from .parse import ParsedDocument, decode_text, parse_json
from .processes import process_running
from .serialize import graph_file_to_json, to_text
from .validate import graph_file_from_json

SCRIPT_SUFFIXES = (".py",)
TEMP_SUFFIX = ".tmp"
_CHUNK_BYTES = 1 << 20


def loads(text: str | bytes, *, limits: ReadLimits = DEFAULT_LIMITS) -> GraphFile:
    """Parse and validate graph-file text (or UTF-8 bytes). Runs nothing.

    Raises
    ------
    GraphFileError
        With the field path, or the line and column for malformed JSON or a bad encoding.
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode_text(bytes(text))
    elif text.startswith("\ufeff"):
        text = text[1:]
    seen = ParsedDocument()
    # a recording's tables are hundreds of thousands of new objects and no cycles
    with collector_paused():
        doc = parse_json(text, limits, seen)
        gf = graph_file_from_json(doc, limits, parsed_clean=not seen.duplicates)
        # out of every later collection while still in the young generation: the first one
        # after the pause would walk them all (most of a second per 100,000 recorded nodes)
        keep_if_large(len(gf.recorded.nodes) if gf.recorded is not None else 0)
        return gf


def dumps(graph_file: GraphFile) -> str:
    """The JSON text of ``graph_file`` (ends with a newline; the version: ``FORMAT_VERSION``).

    Raises
    ------
    GraphFileError
        If ``graph_file`` could not be read back (say, a breakpoint past the end of the script,
        a state larger than the read limits, or more bytes than a file may have): a file is
        never written that would not load.
    """
    text = to_text(graph_file_to_json(graph_file))
    loads(text)  # exactly what a reader will check
    size = len(text.encode("utf-8"))
    if size > DEFAULT_LIMITS.max_file_bytes:
        raise GraphFileError(
            f"the file would be {size} bytes, over the {DEFAULT_LIMITS.max_file_bytes}-byte "
            "limit of files that load; save the script alone (as .py) or with fewer iterations "
            "of saved state")
    return text


def _open_regular(path: Path):
    """Open ``path`` for reading only if it is a regular file. Opened without blocking, so a FIFO
    named ``x.gstep`` (whose plain open waits for a writer forever) or a device is refused at
    once, and checked on the opened descriptor, so it cannot be swapped after the check."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        if not stat.S_ISREG(mode):
            kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device or socket"
            raise GraphFileError(f"is {kind}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        with _open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                raise GraphFileError(f"the file is {size} bytes; the limit is {max_bytes}")
            raw = f.read(max_bytes + 1)  # the size can change under us
    except IsADirectoryError:
        raise GraphFileError("is a folder, not a file") from None
    except FileNotFoundError:
        raise GraphFileError("no such file") from None
    except OSError as e:
        raise GraphFileError(f"cannot read the file: {e.strerror or e}") from None
    if len(raw) > max_bytes:
        raise GraphFileError(f"the file is larger than the limit of {max_bytes} bytes")
    return raw


def load(path, *, limits: ReadLimits = DEFAULT_LIMITS) -> GraphFile:
    """Read a ``.gstep`` file, or a ``.py`` script as a GraphFile with default settings.

    Nothing in the file is executed. ``.py`` files are read as UTF-8 text (a BOM is dropped);
    the title is the file's name.

    Raises
    ------
    GraphFileError
        One error naming the problem's field (or line and column); ``filename`` is set.
    """
    path = Path(path)
    try:
        raw = _read_bytes(path, limits.max_file_bytes)
        if path.suffix.lower() in SCRIPT_SUFFIXES:
            script = decode_text(raw)
            if len(script) > limits.max_script_chars:
                raise GraphFileError(f"the script has {len(script)} characters; the limit is "
                                     f"{limits.max_script_chars}")
            return GraphFile(script=script, title=path.name)
        return loads(decode_text(raw), limits=limits)
    except GraphFileError as e:
        raise e.with_filename(str(path)) from None


def _chunks(data: bytes):
    for start in range(0, len(data), _CHUNK_BYTES):
        yield data[start:start + _CHUNK_BYTES]


def write_atomic(path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same folder, fsync, rename).

    The new file keeps the old file's permission bits; a new file gets the usual ones (0666
    less the umask) rather than the temp file's private 0600. A symbolic link is followed, so
    the link stays and its target is replaced.
    """
    path = Path(os.path.realpath(path))
    folder = path.parent if str(path.parent) else Path(".")
    # the writer's pid in the name tells a crashed write's leftover from one under way
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.{os.getpid()}.",
                               suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in _chunks(data):
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        # BaseException: a KeyboardInterrupt mid-write must not leave the temp file behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(folder)


def remove_interrupted_writes(place) -> int:
    """Delete the temporary files that writes killed midway left behind: in ``place`` if it is a
    folder (every file's), else next to the file ``place`` (that file's only). A temporary file
    whose writer is still running is kept. Returns how many were removed."""
    place = Path(place)
    folder, name = (place, None) if place.is_dir() else (place.parent, place.name)
    pattern = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+" + re.escape(TEMP_SUFFIX) + r"\Z")
    removed = 0
    try:
        candidates = list(folder.glob(f".{name or '*'}.*{TEMP_SUFFIX}"))
    except OSError:
        return 0
    for candidate in candidates:
        match = pattern.match(candidate.name)
        if match is None or (name is not None and match["name"] != name):
            continue
        if process_running(int(match["pid"])):
            continue
        try:
            candidate.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _mode_for(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_folder(folder: Path) -> None:
    # the rename itself is durable only once the folder's entry is on disk (POSIX)
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(path, graph_file: GraphFile) -> None:
    """Write ``graph_file`` to ``path`` atomically (see ``write_atomic``).

    A ``.py`` target gets just the script. A GraphFile that would not load back raises
    GraphFileError (see ``dumps``); errors while writing propagate as OSError. The old file is
    untouched in every case.
    """
    path = Path(path)
    if path.suffix.lower() in SCRIPT_SUFFIXES:
        data = graph_file.script.encode("utf-8")
    else:
        data = dumps(graph_file).encode("utf-8")
    remove_interrupted_writes(path)
    write_atomic(path, data)
