"""A study folder's record of its finished run files, and the lock that keeps one writer.

``manifest.jsonl`` holds one line per finished batch, appended by the runner's main process
once the batch's files are in place: the ids of its runs and the SHA-256 of each of its
files (``{"runs": [...], "files": {"<name>.model.parquet": "<sha256>", ...}}``). A run is
done when a line names it and every file of that line is on disk with its checksum; that is
checked every time a study resumes (``verify``), so whatever damaged a file -- cut short, bytes
changed, replaced by a copy of another batch, deleted -- its batch's files are removed and its
runs played again. A file no line names (its batch was cut short before it was recorded) is
removed too, and a run named twice keeps only its first batch. ``results.load`` reads only the
files the manifest names, each checked against its checksum (``read``): a reader meeting a
missing or damaged file is told which, and that running the study again mends it. A line
that is not a batch's record (bytes changed: not UTF-8, not JSON) stops a reader
(``entries``) with one line naming the file and the line, and so does a manifest that names
no file though run files are on disk (cut short); resuming drops it and plays its runs
again, as for a damaged run file.

A folder written before manifests existed has run files and no manifest: ``verify`` adopts
every run file that reads whole, so nothing written earlier is lost.

``lock(folder)`` takes an exclusive ``flock`` on ``<folder>/.lock`` for as long as the runner
writes; a second runner on the same folder is refused at once. The operating system drops the
lock when the holder dies, so a crashed runner never leaves it stuck (the runner's forked
workers share it and die with their parent, ``dilemmas.analysis.studies.runner``).
"""

import contextlib
import errno
import fcntl
import hashlib
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from dilemmas.analysis.studies.study import StudyError
from dilemmas.models.files import make_folder, read_bytes, write_atomic

NAME = "manifest.jsonl"
#: What mends a damaged study folder, said by every error that finds one.
AGAIN = ("run the study again (dilemmas run, same --out) to check every file against the "
         "manifest and play again the runs it lost")


class FolderInUse(StudyError):
    """Another runner is writing the study folder."""


@contextlib.contextmanager
def lock(folder: Path):
    """Hold the folder's writer lock (``FolderInUse`` if another process holds it)."""
    path = Path(folder) / ".lock"
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise FolderInUse(f"{folder} is being written by {holder}; wait for it to finish "
                              "(or stop it) and run the study again to resume") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()


def being_written(folder: Path) -> bool:
    """Whether a runner holds the folder's lock (``lock``) now; the lock dies with it."""
    path = Path(folder) / ".lock"
    if not path.is_file():
        return False
    with open(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


#: The operating system's refusals to write: no permission, a read-only or full file system.
UNWRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}


@contextlib.contextmanager
def writing(folder: Path):
    """Create ``folder`` and hold its lock (``lock``) while the body writes into it; the
    system's refusal to write a file (permission, a read-only or full file system) becomes
    one ``StudyError`` naming the file. Every file is written whole or not at all
    (``write_atomic``), so what the refusal stopped is left as it was."""
    try:
        make_folder(folder)
        with lock(folder):
            yield
    except OSError as error:
        if error.errno not in UNWRITABLE or error.filename is None:
            raise
        raise StudyError(f"cannot write {str(error.filename)!r}: {error.strerror}; nothing "
                         "was left half-written there") from None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record(folder: Path, entry: dict) -> None:
    """Append a finished batch's line (``runs``, ``files``), waiting for the disk."""
    with open(Path(folder) / NAME, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def entries(folder: Path) -> list[dict]:
    """The manifest's lines, for a reader of the results: a last line cut short by a crash
    (no newline yet) is left out; any other line that is not a batch's record (not UTF-8,
    not JSON, not of that shape) is a StudyError naming the file and the line, and saying
    that resuming the study repairs it (``verify``)."""
    lines = _lines(folder)
    for number, entry in enumerate(lines, 1):
        if entry is None:
            path = Path(folder) / NAME
            raise StudyError(f"{str(path)!r} line {number} is damaged (not a finished batch's "
                             f"record); {AGAIN}")
    return lines


def _lines(folder: Path) -> list[dict | None]:
    """Each whole line of the manifest (ended by its newline) as a batch's record, or None
    where it is not one."""
    path = Path(folder) / NAME
    if not path.exists():
        return []
    # the last piece: b"" after the last newline, or a line a crash cut short
    return [_entry(line) for line in read_bytes(path).split(b"\n")[:-1]]


def _entry(line: bytes) -> dict | None:
    try:
        entry = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError too
        return None
    if isinstance(entry, dict) and isinstance(entry.get("runs"), list) \
            and isinstance(entry.get("files"), dict):
        return entry
    return None


def verify(folder: Path) -> set[str]:
    """Check every recorded batch against its files, remove what is damaged or unrecorded,
    rewrite the manifest with the good batches and return the ids of the runs done."""
    folder = Path(folder)
    runs = folder / "runs"
    on_disk = {path.name for path in runs.glob("*.parquet")}
    if not (folder / NAME).exists() and on_disk:
        good = _adopt(runs, on_disk)
    else:
        good, seen = [], set()
        for entry in filter(None, _lines(folder)):  # damaged lines: their runs played again
            files = entry["files"]
            if seen.intersection(entry["runs"]) or not all(
                    name in on_disk and digest((runs / name).read_bytes()) == checksum
                    for name, checksum in files.items()):
                continue
            good.append(entry)
            seen.update(entry["runs"])
    kept = {name for entry in good for name in entry["files"]}
    for name in on_disk - kept:
        (runs / name).unlink()
    text = "".join(json.dumps(entry, sort_keys=True) + "\n" for entry in good)
    write_atomic(folder / NAME, text.encode())
    return {run for entry in good for run in entry["runs"]}


def _adopt(runs: Path, names: set[str]) -> list[dict]:
    """Batches of a folder from before manifests: each model file that reads whole, with its
    agent file if that reads whole too (else the batch is played again)."""
    good, seen = [], set()
    for name in sorted(n for n in names if n.endswith(".model.parquet")):
        agent = name.replace(".model.", ".agent.")
        files = [name] + ([agent] if agent in names else [])
        try:
            ids = pq.read_table(runs / name).column("run_id").to_pylist()
            for other in files[1:]:
                pq.read_table(runs / other)
        except (pa.ArrowException, OSError, KeyError):
            continue
        if seen.intersection(ids):
            continue
        seen.update(ids)
        good.append({"runs": sorted(set(ids)),
                     "files": {f: digest((runs / f).read_bytes()) for f in files}})
    return good


def files(folder: Path, level: str, recorded: list[dict] | None = None) -> list[Path]:
    """The run files of ``level`` ("model" or "agent") that the manifest names, by name
    (``recorded``: its ``entries``, if already read); a StudyError if the manifest names
    none though run files of ``level`` are on disk and no runner is writing the folder (its
    first batch not yet recorded): cut short or damaged."""
    folder = Path(folder)
    on_disk = sorted((folder / "runs").glob(f"*.{level}.parquet"))
    if not (folder / NAME).exists():  # a folder from before manifests, not yet resumed
        return on_disk
    names = {name for entry in (entries(folder) if recorded is None else recorded)
             for name in entry["files"] if name.endswith(f".{level}.parquet")}
    if not names and on_disk and not being_written(folder):
        raise StudyError(f"{str(folder / NAME)!r} names none of the {len(on_disk)} {level} "
                         f"file{'s' * (len(on_disk) != 1)} in {str(folder / 'runs')!r}: it "
                         f"is cut short or damaged; {AGAIN}")
    return sorted(folder / "runs" / name for name in names)


def checked_bytes(path: Path, checksum: str | None) -> bytes:
    """A run file's bytes, checked against its manifest ``checksum`` (None: a folder from
    before manifests); a StudyError says what is damaged and what mends it."""
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        raise StudyError(f"{str(path)!r} is missing (the manifest records it); {AGAIN}") \
            from None
    except (OSError, ValueError) as error:
        raise StudyError(f"{str(path)!r} cannot be read: "
                         f"{getattr(error, 'strerror', None) or error}") from None
    if checksum is not None and digest(data) != checksum:
        raise StudyError(f"{str(path)!r} does not match its checksum in {NAME}: it was cut "
                         f"short or changed after it was written; {AGAIN}")
    return data


def read(folder: Path, level: str) -> list[pa.Table]:
    """Every run file of ``level`` that the manifest names (``files``), each checked against
    its checksum (``checked_bytes``) and read whole; a StudyError names a file that is
    missing, damaged or not a run file."""
    folder = Path(folder)
    recorded = entries(folder)      # read once: the names and their checksums
    paths = files(folder, level, recorded)
    checksums = {name: checksum for entry in recorded
                 for name, checksum in entry["files"].items()}
    tables = []
    for path in paths:
        data = checked_bytes(path, checksums.get(path.name))
        try:
            tables.append(pq.read_table(pa.BufferReader(data)))
        except (pa.ArrowException, OSError, ValueError) as error:
            raise StudyError(f"{str(path)!r} cannot be read as a run file ({error}); "
                             f"{AGAIN}") from None
    return tables
