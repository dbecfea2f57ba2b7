"""Scratch directories a rechain killed outright leaves behind for one run at most.

rechain removes the directory it makes for a reader's process when it closes that
process (and a benchmark's, up to gigabytes of generated file, when it ends); a rechain
killed outright (``kill -9``, a CI step's timeout) removes nothing,
and the reader dies with it (``lifetime``). So each such directory holds a lock file,
``flock``-ed while its maker lives: the kernel drops the lock when the maker dies,
however it dies, and the next rechain that makes a directory of the same kind removes
the ones whose lock it can take. A directory without the lock file (another program's,
an older rechain's, or one being made) is never touched; a maker whose new directory a
sweeper took between making and locking it sees its lock file gone and makes another.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no locks, nothing swept
    fcntl = None  # type: ignore[assignment]

LOCK = ".rechain-owner"
_held: dict[Path, int] = {}  # directory -> the open, locked lock file
_swept: set[tuple[str, str]] = set()  # (parent, prefix) already swept by this process


def make_owned(prefix: str, parent: str | None = None) -> Path:
    """A fresh directory under ``parent`` (default: the temp dir), locked as this process's;
    first, once per process, the same kind's directories whose makers are gone are removed."""
    where = parent if parent is not None else tempfile.gettempdir()
    if (where, prefix) not in _swept:
        _swept.add((where, prefix))
        sweep(prefix, where)
    while True:
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
        if fcntl is None or _lock(path):
            return path


def _lock(path: Path) -> bool:
    """Hold ``path``'s lock; False when a sweeper took the directory first. A file system
    without locks gets the directory unlocked (never swept) rather than none."""
    try:
        fd = os.open(path / LOCK, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    except OSError:
        return False  # the directory is gone: a sweeper took it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        return error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK)
    try:
        mine = (path / LOCK).stat().st_ino == os.fstat(fd).st_ino
    except OSError:
        mine = False
    if not mine:
        os.close(fd)
        return False
    _held[path] = fd
    return True


def release(path: Path) -> None:
    """Remove a directory ``make_owned`` made, then let go of its lock."""
    shutil.rmtree(path, ignore_errors=True)
    fd = _held.pop(path, None)
    if fd is not None:
        os.close(fd)


@contextlib.contextmanager
def owned(prefix: str, parent: str | None = None) -> Iterator[Path]:
    """``make_owned`` for the ``with`` body; removed at its end."""
    path = make_owned(prefix, parent)
    try:
        yield path
    finally:
        release(path)


def sweep(prefix: str, parent: str) -> list[Path]:
    """Remove ``parent``'s ``prefix*`` directories whose makers are gone; those removed."""
    if fcntl is None:
        return []
    removed = []
    for path in Path(parent).glob(f"{prefix}*"):
        if path in _held:
            continue
        with contextlib.suppress(OSError):
            fd = os.open(path / LOCK, os.O_RDWR | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # OSError: its maker lives
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
            finally:
                os.close(fd)
    return removed
