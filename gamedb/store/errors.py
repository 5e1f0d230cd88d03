"""Errors of the store, named for what happened."""

from __future__ import annotations


class StoreError(RuntimeError):
    """A database file that cannot be used as asked."""


class NotAGameDB(StoreError):
    """The file is missing, not SQLite, or not written by gamedb."""


class SpecMismatch(StoreError):
    """The file holds another game spec or another key layout."""


class DiskFull(StoreError):
    """The disk filled up during a build; what was committed is kept and resumable."""


class NotSolved(KeyError):
    """The position is not in the database (unreachable, or the build is unfinished)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "position not solved"
