"""Kill-and-resume harness: SIGKILL a real ``gamedb build`` at random moments, resume it,
and require the finished file to equal an uninterrupted build.

Every cycle starts a fresh file; each run of the build is killed after a random delay
drawn uniformly over the length of an uninterrupted run (so kills land during start-up,
mid-chunk, mid-commit, between layers, during index creation and finalisation), then
restarted, until it completes. The finished file must pass ``PRAGMA integrity_check``
and hold exactly the reference states, strategies, layer counts and root value.

    python bench/kill_resume.py --spec "jujitsu(num_cards=9)" --kills 200
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def dump(path: Path) -> tuple[object, ...]:
    """Everything a resumed build must reproduce exactly (not timings)."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return (conn.execute("SELECT * FROM states ORDER BY key").fetchall(),
                conn.execute("SELECT * FROM strategies ORDER BY key, player, action").fetchall(),
                conn.execute("SELECT layer, states, done, max_gap FROM layers").fetchall(),
                conn.execute("SELECT name, value FROM meta WHERE name IN "
                             "('status', 'root_value', 'states', 'spec')").fetchall(),
                conn.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall(),
                _pages(conn))


def _pages(conn: sqlite3.Connection) -> tuple[object, ...]:
    """The page layers and their pages (none before schema 0006, or in a rows-only file)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'pages'").fetchone():
        return ()
    return (conn.execute("SELECT * FROM page_layers ORDER BY layer").fetchall(),
            conn.execute("SELECT * FROM pages ORDER BY layer, page").fetchall())


EXTRA: list[str] = []
"""More ``gamedb build`` options (``--build-args``), the same for every run."""


def command(spec: str, db: Path, chunk_size: int) -> list[str]:
    return [sys.executable, "-m", "gamedb", "build", spec, "--db", str(db), "--quiet",
            "--chunk-size", str(chunk_size), *EXTRA]


def run_cycle(spec: str, db: Path, chunk_size: int, span: float, rnd: random.Random,
              kills_left: int) -> int:
    """Build ``db`` to completion, killing runs at random; return the number of kills."""
    kills = 0
    while True:
        proc = subprocess.Popen(command(spec, db, chunk_size), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        if kills < kills_left:
            try:
                proc.wait(timeout=rnd.uniform(0.0, span))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                continue
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"resumed build failed: {err.decode()}")
        return kills


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="jujitsu(num_cards=8)")
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--chunk-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--build-args", default="",
                        help='more build options, e.g. "--pages-below 7 --page-size 200"')
    args = parser.parse_args()
    EXTRA[:] = args.build_args.split()
    rnd = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference.sqlite"
        start = time.perf_counter()
        subprocess.run(command(args.spec, reference, args.chunk_size), check=True,
                       stdout=subprocess.DEVNULL)
        span = time.perf_counter() - start
        expected = dump(reference)
        kills = cycles = 0
        while kills < args.kills:
            db = Path(tmp) / f"victim{cycles}.sqlite"
            kills += run_cycle(args.spec, db, args.chunk_size, span, rnd, args.kills - kills)
            cycles += 1
            got = dump(db)
            if got != expected:
                parts = ("states", "strategies", "layers", "meta", "schema objects", "pages")
                differ = [name for name, a, b in zip(parts, got, expected) if a != b]
                keep = Path(tmp).parent / f"kill_resume_failure_{cycles}.sqlite"
                shutil.copy(db, keep)
                raise SystemExit(f"cycle {cycles}: resumed database differs from the reference "
                                 f"in {', '.join(differ)} (kept as {keep})")
            db.unlink()
        print(f"{args.spec}: {kills} kills over {cycles} resumed builds "
              f"(uninterrupted run {span:.2f} s, chunk size {args.chunk_size}): "
              f"every resumed database identical to the reference")


if __name__ == "__main__":
    main()
