"""Shared fixtures: database paths and small solved databases."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamedb.build import build


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database path in a temporary directory."""
    return tmp_path / "game.sqlite"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Return a function that builds a spec once per test session and returns its path."""
    cache: dict[tuple[str, bool], Path] = {}

    def get(spec: str, *, canonical_keys: bool = True) -> Path:
        from gamedb.games import load_game
        key = (spec, canonical_keys)
        if key not in cache:
            path = tmp_path_factory.mktemp("db") / "game.sqlite"
            build(load_game(spec, canonical_keys=canonical_keys), path)
            cache[key] = path
        return cache[key]

    return get
