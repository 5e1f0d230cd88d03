"""One writer per file: an advisory ``flock`` on ``<db>.lock`` naming its holder, and
one on the database file itself.

The holder unlinks the lock file when it is done; a builder that opened the file before
then and locks it afterwards sees that the path no longer names its file and starts over
(the race of tox-dev/filelock#574, where two builders both got in).

The lock file goes by the database's name, so a hard link (another name of the same
file) has another lock file: the flock on the database file's own inode refuses the
second builder there (two builders under two names each kept a WAL of their own,
``NAME-wal``, and damaged the file). SQLite's own locks are POSIX record locks, which
Linux keeps apart from ``flock``; the descriptor is opened before SQLite opens the file
and closed after the build has closed it, so closing it drops none of SQLite's locks.

The kernel drops the lock when the holder dies (even by SIGKILL), so a crashed build
never leaves a stale lock behind; readers never take it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
import weakref
from pathlib import Path

from gamedb.store.errors import StoreError


class BuildLocked(StoreError):
    """Another process is building the same file."""


class BuildLock:
    """An exclusive lock on a database file for the duration of a build."""

    def __init__(self, db_path: Path):
        self.path = db_path.with_name(db_path.name + ".lock")
        self._db = db_path
        self._fd: int | None = None
        self._db_fd: int | None = None
        self._created = False

    def acquire(self) -> None:
        """Take the lock or raise ``BuildLocked`` saying who holds it."""
        fd = self._locked_fd()
        while not _same_file(fd, self.path):  # its holder unlinked it as we took it: retry
            os.close(fd)
            fd = self._locked_fd()
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "since": time.strftime("%Y-%m-%d %H:%M:%S")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd = fd
        _HELD.add(self)
        try:
            self._lock_database_file()
        except BaseException:
            self.release()
            raise

    def _lock_database_file(self) -> None:
        """Lock the database file's inode (created empty if it does not exist yet), or
        raise ``BuildLocked``: another builder holds it under another name."""
        try:
            fd = os.open(self._db, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            self._created = True
        except FileExistsError:
            try:
                fd = os.open(self._db, os.O_RDONLY)
            except OSError:
                return  # not a file this builder can read: its own checks say so
        except OSError:
            return  # e.g. a folder of that name: the builder's own checks say so
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BuildLocked(f"{self._db} is being built by another process under another "
                              "name of the same file (a hard link); wait for it or stop "
                              "that process") from None
        self._db_fd = fd

    def _locked_fd(self) -> int:
        """Open the lock file and lock it (it may be unlinked by then)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot write next to {self.path.with_suffix('')}: "
                             f"{exc.strerror} ({self.path.parent} must be a writable "
                             "directory)") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(os.read(fd, 4096))
            os.close(fd)
            raise BuildLocked(f"{self.path.with_suffix('')} is being built by {holder}; "
                              "wait for it or stop that process") from None
        return fd

    def _forget_in_child(self) -> None:
        for fd in (self._fd, self._db_fd):
            if fd is not None:
                os.close(fd)
        self._fd = self._db_fd = None

    def release(self) -> None:
        """Give the lock up (idempotent)."""
        if self._fd is None:
            return
        try:
            self._release_database_file()
            self.path.unlink(missing_ok=True)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
            _HELD.discard(self)


    def _release_database_file(self) -> None:
        """Unlock the database file; remove it if this lock created it and nothing was
        written to it (a build refused before its first write leaves no file)."""
        if self._db_fd is None:
            return
        fd, self._db_fd = self._db_fd, None
        try:
            if self._created and os.fstat(fd).st_size == 0 and _same_file(fd, self._db):
                self._db.unlink(missing_ok=True)
        finally:
            os.close(fd)  # closing drops the flock


#: Locks held by this process. A forked worker closes its copies of their descriptors,
#: so a lock dies with the builder itself, even while killed workers finish a last task.
_HELD: weakref.WeakSet[BuildLock] = weakref.WeakSet()


def _forget_held_locks_in_child() -> None:
    for lock in list(_HELD):
        lock._forget_in_child()


os.register_at_fork(after_in_child=_forget_held_locks_in_child)


def _same_file(fd: int, path: Path) -> bool:
    """True if ``path`` still names the open file ``fd``: a releasing holder unlinks the
    lock file before unlocking it, so a lock won on an unlinked file locks nothing."""
    try:
        here, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def build_running(db_path: str | Path) -> bool | None:
    """Tell, without taking the lock, whether a build of ``db_path`` is running: False
    when no lock file is left (the holder removes it) or its holder's process on this
    host is gone (a SIGKILL), True when that process lives, None when another host holds
    it (its process cannot be seen from here)."""
    path = Path(db_path)
    try:
        info = json.loads(path.with_name(path.name + ".lock").read_text())
        pid, host = int(info["pid"]), str(info["host"])
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _describe(raw: bytes) -> str:
    try:
        info = json.loads(raw.decode())
        return f"process {info['pid']} on {info['host']} (since {info['since']})"
    except (ValueError, KeyError):
        return "another process"
