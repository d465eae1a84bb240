"""Writing result and replay files so that a failed write never damages what was there, and
reading a file only when it is a regular file.

The text goes to a temporary file in the target's folder, is flushed to disk, and only then
replaces the target in one ``os.replace``: a reader sees the old file or the new one, never
half of either. ``durable=False`` skips waiting for the disk (``fsync``): a killed process
still leaves no half file, but after a crash of the machine itself the file may be empty or
cut short, so use it only where the reader checks what it reads.

The file gets the permissions an ordinary ``open`` would give it, ``0o666`` less the
process's umask (a temporary file alone would be private to its owner), so collaborators
read results as they read any other file.

``read_bytes`` refuses a path that is not a regular file (a FIFO, a folder, a device) before
opening it: reading a FIFO waits for a writer forever.
"""

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path, data: str | bytes, durable: bool = True) -> Path:
    path = Path(path)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def umask() -> int:
    """The process's umask: read from Linux's ``/proc`` without touching it, elsewhere by
    setting it and putting it back."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_folder(path) -> Path:
    """``path`` made a folder (with its parents), as ``Path.mkdir(parents=True,
    exist_ok=True)``; a ValueError names the file that stands where a folder must be."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next(p for p in (path, *path.parents) if p.exists() and not p.is_dir())
        raise ValueError(f"the folder {str(path)!r} cannot be made: {str(blocking)!r} is a "
                         "file, not a folder; choose another output folder") from None
    return path


#: What ``stat`` calls the kinds of file that are not regular files.
KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def read_bytes(path) -> bytes:
    """``path``'s bytes (``Path.read_bytes``); a ValueError names it if it is not a regular
    file (a FileNotFoundError if it does not exist)."""
    path = Path(path)
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in KINDS if test(mode)), "not a file")
        raise ValueError(f"{str(path)!r} is {kind}, not a regular file")
    return path.read_bytes()


def check_writable(path) -> Path:
    """``path``, if it is a folder that can be written into or can be made (nothing is
    made); else a ValueError naming what stands in the way. For the commands that check
    their output folder before the work whose results go there."""
    path = Path(path)
    standing = next(p for p in (path, *path.parents) if p.exists() or p.is_symlink())
    if not standing.is_dir():
        what = "a file, not a folder" if standing.is_file() else "not a folder"
        raise ValueError(f"the folder {str(path)!r} cannot be made: {str(standing)!r} is "
                         f"{what}; choose another output folder")
    if not os.access(standing, os.W_OK | os.X_OK):
        raise ValueError(f"the folder {str(path)!r} cannot be written: {str(standing)!r} is "
                         "not writable; choose another output folder")
    return path
