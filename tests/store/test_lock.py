"""The build lock under the interleaving that let two builders in (tox-dev/filelock#574)."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

import gamedb.store.lock as lock_module
from gamedb.store.lock import BuildLock, BuildLocked


def test_a_builder_that_opened_the_lock_file_before_it_was_released_cannot_share_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "x.sqlite"
    first, second, third = BuildLock(db), BuildLock(db), BuildLock(db)
    first.acquire()
    real_flock = fcntl.flock

    def first_releases_in_between(fd: int, operation: int) -> None:
        if first._fd is not None and fd not in (first._fd,):
            first.release()  # second has opened the file, first now lets go of it
        real_flock(fd, operation)

    monkeypatch.setattr(lock_module.fcntl, "flock", first_releases_in_between)
    second.acquire()
    monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
    try:
        with pytest.raises(BuildLocked):
            third.acquire()  # would succeed on a fresh file if second held an unlinked one
    finally:
        second.release()
    third.acquire()
    third.release()


def test_a_second_builder_through_a_hard_link_is_refused_while_the_first_holds_it(
        tmp_path: Path) -> None:
    db, link = tmp_path / "x.sqlite", tmp_path / "link.sqlite"
    first = BuildLock(db)
    first.acquire()  # a fresh build: the file does not exist yet, the lock creates it
    try:
        link.hardlink_to(db)
        with pytest.raises(BuildLocked, match="another name"):
            BuildLock(link).acquire()
    finally:
        first.release()
    second = BuildLock(link)
    second.acquire()
    second.release()


def test_a_lock_released_before_anything_was_written_leaves_no_file(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    lock = BuildLock(db)
    lock.acquire()
    lock.release()
    assert list(tmp_path.iterdir()) == []
