"""Errors of the store, named for what happened."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from sqlalchemy.exc import DatabaseError as _SQLAlchemyDatabaseError


class StoreError(RuntimeError):
    """A database file that cannot be used as asked."""


class NotAGameDB(StoreError):
    """The file is missing, not SQLite, or not written by gamedb."""


class SpecMismatch(StoreError):
    """The file holds another game spec or another key layout."""


class DamagedFile(StoreError):
    """The file's content is not what gamedb wrote: a table, a meta entry or a row."""

    def __init__(self, path: object, what: str):
        super().__init__(f"{path}: {what} (the file is damaged; rebuild it or restore a copy)")
        self.what = what


class DiskFull(StoreError):
    """The disk filled up during a build; what was committed is kept and resumable."""


#: The files SQLite keeps beside a database ``x.sqlite``: ``x.sqlite-journal`` and so on.
_COMPANIONS = ("-journal", "-wal", "-shm")


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when ``a`` and ``b`` name one file (False when either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refuse_unwritable(output: Path) -> None:
    """Raise ``StoreError`` naming ``output`` (not the database read) when it exists or
    cannot be created: its folder is missing or not writable (a read-only or virtual
    file system; a trial file, as root's permissions say nothing). SQLite's "unable to
    open database file" had been said as a damaged source."""
    if output.exists():
        raise StoreError(f"{output} exists; choose a new file name")
    if not output.parent.is_dir():
        raise StoreError(f"cannot write {output}: folder {str(output.parent)!r} does not exist")
    try:
        os.close(os.open(output, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError as exc:
        raise StoreError(f"cannot write {output}: folder {str(output.parent)!r} is not "
                         f"writable ({exc.strerror or exc})") from None
    output.unlink()


def refuse_own_database(output: str | os.PathLike[str], database: str | os.PathLike[str]) -> None:
    """Raise ``StoreError`` when ``output`` is the file ``database`` (any name of it:
    the same path written otherwise, a symbolic or a hard link) or the journal, WAL or
    shared-memory file SQLite keeps beside any name of it."""
    own = Path(database).resolve()
    for suffix in _COMPANIONS:  # SQLite's own files beside it: its journal is its data
        if Path(output).resolve() == own.with_name(own.name + suffix):
            base = Path(database)
        elif str(output).endswith(suffix) and _same_file(str(output)[:-len(suffix)], database):
            base = Path(str(output)[:-len(suffix)])  # the journal of another name of it
        else:
            continue
        raise StoreError(f"cannot write {output}: it is {base.name}'s own "
                         f"{suffix[1:]} file (SQLite keeps the database's pages there); "
                         "choose another file")
    if _same_file(output, database):
        named = "" if str(output) == str(database) else f"{database}, "
        raise StoreError(f"cannot write {output}: it is {named}the database this command "
                         "reads; choose another file")


class NotSolved(KeyError):
    """The position is not in the database (unreachable, or the build is unfinished)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "position not solved"


#: Low-level errors of a damaged or foreign file, as raised by sqlite3 or SQLAlchemy.
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    sqlite3.DatabaseError, _SQLAlchemyDatabaseError,
    UnicodeDecodeError,  # a TEXT cell that is not UTF-8: sqlite3 decodes every one it reads
)


def is_disk_full(exc: BaseException) -> bool:
    """True for SQLite's "database or disk is full" (SQLITE_FULL) or an ``OSError``
    ENOSPC: the disk, not the file, is at fault."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    return isinstance(exc, DATABASE_ERRORS) and "database or disk is full" in str(exc)


def is_corrupt(exc: BaseException) -> bool:
    """True for SQLite's "database disk image is malformed" (SQLITE_CORRUPT): a page of
    the file does not decode, e.g. a file cut short; the file is damaged."""
    return isinstance(exc, DATABASE_ERRORS) and "malformed" in str(exc)


def describe_database_error(exc: Exception) -> str:
    """Return the one-line reason of a sqlite3 or SQLAlchemy database error."""
    if isinstance(exc, UnicodeDecodeError):
        return f"text in the file is not UTF-8 ({exc.reason} at byte {exc.start})"
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]
