"""Design study for issue 12: a perfect index per layer and W sharing for
point-difference Goofspiel (random prize order, ties discarded).

    python bench/goofspiel_index.py counts [--check N]
        exact positions per layer for 2..13 cards, by counting; --check N also
        enumerates every hand pair of N cards and counts the canonical patterns.
    python bench/goofspiel_index.py counts --table N
        per-layer counts, look-ups and array sizes for N cards (computed, no solving).
    python bench/goofspiel_index.py solve N [--db REF.sqlite] [--no-share | --chance]
        solves N cards (N <= 10 on the shared machine) layer by layer in flat float64
        arrays indexed by the rank function below, prints per-layer timings, and with
        --db compares every stored value of a gamedb file of the same spec (built with
        ``gamedb build "goofspiel(num_cards=N,returns_type=point_difference)"``).
        W is computed per position (--no-share), once per (h, Q) (default), or read
        from the chance-node values of the layer below (--chance).
    python bench/goofspiel_index.py kernel
        kernel and gap-check time per game on random k x k games, k = 2..13.
    python bench/goofspiel_index.py write N K [--path FILE]
        SQLite insert rates and bytes per row for layer K of N cards in index order:
        goofspiel-v1 keys, hands-first keys, and JSON through json_each.

Canonical position of layer k (k cards in each hand):
    h  rank of the canonical hand pattern (base-3 code over the ranks of the union of
       both hands, the smaller of code and player-swapped code; gamedb's key field),
    Q  the k-1 hidden prizes (a mask; colex rank = combinatorial number system),
    p  the revealed prize, not in Q (its position among the n-k+1 cards not in Q).
    index = (h * C(n, k-1) + colex(Q)) * (n-k+1) + below(p)
Positions that share (h, Q) share W[a, b] = mean over q in Q of the value of the
successor (hands minus a and b, Q - q, revealed q); the stage game is
p * sign(a - b) + W[a, b].

Writes nothing but stdout (``write`` uses a scratch file, removed after). Prototype code for a design document,
not the product: it takes the index, tables and chance values from the product
(``gamedb.games.goofspiel.index``) and keeps only the experiments the product dropped.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from math import comb

import numpy as np
from numba import njit

from gamedb.games import load_game
from gamedb.games.goofspiel.index import GoofspielIndex, _popcount, patterns
from gamedb.solver.kernel import solve_batch
from gamedb.solver.matrix_game import batch_gaps

# The index, hand codes, transition tables, chance values and the stage games read from
# them (--chance) are the product's (``gamedb.games.goofspiel.index``); only the two
# W variants that the product dropped (per position, shared per (h, Q)) live here.


def face_of(n: int) -> GoofspielIndex:
    """The product's indexed face of n-card point-difference Goofspiel."""
    face = load_game(f"goofspiel(num_cards={n},returns_type=point_difference)").indexed_face()
    assert isinstance(face, GoofspielIndex)
    return face


# -- counting ------------------------------------------------------------------------

def layer_counts(n: int) -> list[tuple[int, int, int, int, int]]:
    """Return (k, patterns S_k, swap classes H_k, W groups, positions N_k) per layer."""
    rows = []
    for k in range(n, 0, -1):
        s = patterns(n, k)
        h = 1 + (s - 1) // 2  # only identical hands (all digits 0) are their own twin
        rows.append((k, s, h, h * comb(n, k - 1), h * comb(n, k - 1) * (n - k + 1)))
    return rows


# -- the W variants the product dropped -------------------------------------------------

@njit(cache=True)
def _stage_games(h_lo, h_hi, k, n, qmasks, colex, succ, sign, lower, nq_lower, share, out):  # type: ignore[no-untyped-def]
    """Fill out[i] with the stage games of positions h_lo..h_hi-1 in index order;
    return (games, lookups)."""
    W = np.zeros((k, k))
    i, lookups = 0, 0
    for h in range(h_lo, h_hi):
        for Q in qmasks:
            for pc in range(1, n + 1):
                if Q >> (pc - 1) & 1:
                    continue
                if share == 0 or pc == _first_free(Q):
                    lookups += _fill_w(W, h, Q, k, n, colex, succ, lower, nq_lower)
                for a in range(k):
                    for b in range(k):
                        out[i, a, b] = pc * sign[h, a, b] + W[a, b]
                i += 1
    return i, lookups


@njit(cache=True)
def _first_free(Q):  # type: ignore[no-untyped-def]
    c = 1
    while Q >> (c - 1) & 1:
        c += 1
    return c


@njit(cache=True)
def _fill_w(W, h, Q, k, n, colex, succ, lower, nq_lower):  # type: ignore[no-untyped-def]
    """W[a, b] = mean over q in Q of the successor's value; return the look-ups made."""
    W[:, :] = 0.0
    if k == 1:
        return 0
    inv = 1.0 / (k - 1)
    free = n - k + 2  # cards not in Q - q
    lookups = 0
    for a in range(k):
        for b in range(k):
            s = succ[h, a, b]
            neg = s < 0
            hs = -1 - s if neg else s
            acc = 0.0
            rest = Q
            while rest:
                low = rest & -rest
                rest ^= low
                Q2 = Q ^ low
                below = _popcount((~Q2) & (low - 1))
                idx = (hs * nq_lower + colex[Q2]) * free + below
                acc += inv * lower[idx]
                lookups += 1
            W[a, b] = -acc if neg else acc
    return lookups


def solve(n: int, share: bool = True, chunk: int = 50_000, gaps: bool = True,
          keep_all: bool = False, chance: bool = False):
    """Solve every layer; return {k: values} and per-layer timing rows."""
    face = face_of(n)
    values: dict[int, np.ndarray] = {}
    rows = []
    for k in face.layers():
        lower = values.get(k - 1, np.zeros(1))
        t0 = time.perf_counter()
        cvals = face.summarize(k - 1, 0, len(lower), lower) if chance and k > 1 else None
        t_ch = time.perf_counter() - t0
        tables = face.layer(k)
        H, nq, per_h, N = len(tables.codes), len(tables.hidden), tables.block, tables.size
        nq_lower = comb(n, k - 2) if k > 1 else 1
        vals = np.empty(N)
        hstep = max(1, chunk // per_h)
        out = np.empty((hstep * per_h, k, k))
        t_tab = time.perf_counter() - t0 - t_ch
        t_stage = t_lp = t_gap = 0.0
        lookups = pure = 0
        pos = 0
        for h_lo in range(0, H, hstep):
            h_hi = min(H, h_lo + hstep)
            t1 = time.perf_counter()
            if chance:  # the product's stage games: k*k chance values per (h, Q)
                games = face.stage_games(k, h_lo * per_h, h_hi * per_h, cvals)[0]
                B, lk = len(games), (h_hi - h_lo) * nq * k * k if k > 1 else 0
            else:
                B, lk = _stage_games(h_lo, h_hi, k, n, tables.hidden, face.colex, tables.succ,
                                     tables.sign, lower, nq_lower, int(share), out)
                games = out[:B]
            t2 = time.perf_counter()
            counts = np.full(B, k, np.int64)
            v, x, y = solve_batch(games, counts, counts)
            t3 = time.perf_counter()
            if gaps:
                batch_gaps(games, counts, counts, x, y)
            t4 = time.perf_counter()
            pure += int(((x.max(axis=1) >= 1.0) & (y.max(axis=1) >= 1.0)).sum())
            vals[pos:pos + B] = v
            pos += B
            lookups += lk
            t_stage, t_lp, t_gap = t_stage + t2 - t1, t_lp + t3 - t2, t_gap + t4 - t3
        t_stage += t_ch  # the chance pass is part of building the stage games
        lookups += len(lower) if chance and k > 1 else 0
        assert pos == N
        values[k] = vals
        if not keep_all:
            values.pop(k - 2, None)  # only layer k-1 is read by layer k
        rows.append((k, H, H * nq, N, lookups, t_tab, t_stage, t_lp, t_gap, pure))
    return values, rows


def compare(n: int, db: str, values_by_k: dict[int, np.ndarray]) -> None:
    """Compare every row of a gamedb file with the flat arrays (all layers kept)."""
    face = face_of(n)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    print("layer  rows_in_file  N_k  bijection  max|diff|")
    for k in range(1, n + 1):
        rows = np.array(con.execute(
            "SELECT key, value FROM states WHERE layer = ?", (k,)).fetchall())
        keys, vals = rows[:, 0].astype(np.int64), rows[:, 1]
        idx = face.rank(k, keys)
        N = len(values_by_k[k])
        bij = len(np.unique(idx)) == len(idx) == N and idx.min() == 0 and idx.max() == N - 1
        diff = np.abs(values_by_k[k][idx] - vals).max()
        print(f"{k:5d}  {len(idx):12,d}  {N:,d}  {bij}  {diff:.3g}")


def print_table(n: int) -> None:
    """Per-layer counts, look-ups and float64 array sizes for n cards."""
    rows = layer_counts(n)
    print("k  S_k  H_k  W_k  N_k  N_k/W_k  lookups_shared  lookups_unshared  f64_MiB")
    for k, s_k, h_k, w_k, n_k in rows:
        print(f"{k} {s_k:,d} {h_k:,d} {w_k:,d} {n_k:,d} {n_k / w_k:.0f} "
              f"{w_k * k * k * (k - 1):,d} {n_k * k * k * (k - 1):,d} {n_k * 8 / 2**20:,.1f}")
    pairs = [(rows[i][0], rows[i][4] + rows[i + 1][4]) for i in range(len(rows) - 1)]
    k, pair = max(pairs, key=lambda t: t[1])
    print(f"total {sum(r[4] for r in rows):,d}; peak pair layers {k}+{k - 1}: {pair:,d} "
          f"values = {pair * 8 / 2**30:.2f} GiB float64, {pair * 4 / 2**30:.2f} GiB float32; "
          f"look-ups {sum(r[3] * r[0] ** 2 * (r[0] - 1) for r in rows):,d} shared vs "
          f"{sum(r[4] * r[0] ** 2 * (r[0] - 1) for r in rows):,d} unshared")


def kernel_rates(batch: int = 20_000) -> None:
    """Kernel and gap-check time per game on random k x k float games (mostly mixed)."""
    rng = np.random.default_rng(7)
    print("k  kernel_us/game  gaps_us/game  pure_saddle")
    for k in range(2, 14):
        games = rng.normal(size=(batch, k, k))
        counts = np.full(batch, k, np.int64)
        solve_batch(games[:10], counts[:10], counts[:10])  # load the compiled code
        t0 = time.perf_counter()
        v, x, y = solve_batch(games, counts, counts)
        t1 = time.perf_counter()
        batch_gaps(games, counts, counts, x, y)
        t2 = time.perf_counter()
        pure = ((x.max(axis=1) >= 1.0) & (y.max(axis=1) >= 1.0)).mean()
        print(f"{k} {1e6 * (t1 - t0) / batch:.2f} {1e6 * (t2 - t1) / batch:.2f} {pure:.3f}")


def layer_keys(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys of layer k in index order: goofspiel-v1 (table | prizes | hands, from the
    most significant field) and a hands-first layout (hands | Q | p) whose order is the
    index order."""
    face = face_of(n)
    tables = face.layer(k)
    v2 = [k << 48 | code << (n + 4) | q << 4 | p for code in tables.codes.tolist()
          for q in tables.hidden.tolist() for p in range(1, n + 1) if not q >> (p - 1) & 1]
    return face.keys(k, 0, tables.size), np.array(v2, np.int64)


def write_rates(n: int, k: int, path: str) -> None:
    """Insert layer k's (key, value) rows in index order, both key layouts, and as
    JSON text through json_each; print rows/s and bytes/row."""
    import json
    import os
    v1, v2 = layer_keys(n, k)
    values = np.random.default_rng(1).normal(size=len(v1))
    for name, keys in (("v1 keys, index order", v1), ("hands-first keys, index order", v2),
                       ("hands-first keys, json_each", v2)):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        con = sqlite3.connect(path, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("CREATE TABLE v(key INTEGER PRIMARY KEY, value REAL)")
        t0 = time.perf_counter()
        step = 200_000
        for i in range(0, len(keys), step):
            con.execute("BEGIN")
            if "json" in name:
                text = json.dumps(list(zip(keys[i:i + step].tolist(),
                                           values[i:i + step].tolist())))
                con.execute("INSERT INTO v SELECT value ->> 0, value ->> 1 "
                            "FROM json_each(?)", (text,))
            else:
                con.executemany("INSERT INTO v VALUES (?, ?)",
                                zip(keys[i:i + step].tolist(), values[i:i + step].tolist()))
            con.execute("COMMIT")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sec = time.perf_counter() - t0
        con.close()
        size = os.path.getsize(path)
        print(f"{name}: {len(keys):,d} rows {sec:.2f} s {len(keys) / sec / 1e3:,.0f} k rows/s "
              f"{size / len(keys):.1f} B/row")
        os.remove(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("counts")
    c.add_argument("--check", type=int, default=0)
    c.add_argument("--table", type=int, default=0)
    s = sub.add_parser("solve")
    s.add_argument("n", type=int)
    s.add_argument("--db")
    s.add_argument("--no-share", action="store_true")
    s.add_argument("--chance", action="store_true",
                   help="W from the chance-node values of layer k-1 (one pass)")
    s.add_argument("--chunk", type=int, default=50_000)
    sub.add_parser("kernel")
    w = sub.add_parser("write")
    w.add_argument("n", type=int)
    w.add_argument("k", type=int)
    w.add_argument("--path", default="/tmp/goofspiel_index_write.sqlite")
    args = ap.parse_args()
    if args.cmd == "kernel":
        kernel_rates()
        return
    if args.cmd == "write":
        write_rates(args.n, args.k, args.path)
        return
    if args.cmd == "counts":
        for n in range(2, 14):
            print(n, f"{sum(r[4] for r in layer_counts(n)):,d}")
        if args.table:
            print_table(args.table)
        if args.check:
            n, face = args.check, face_of(args.check)
            for k, s_k, h_k, w, N in layer_counts(n):
                found = len(face.layer(k).codes)
                print(f"k={k:2d} S_k={s_k:,d} H_k={h_k:,d} enumerated={found:,d} "
                      f"W={w:,d} N_k={N:,d} share={N / w:.0f}")
        return
    if args.n > 10:
        raise SystemExit("at most 10 cards on the shared machine")
    t0 = time.perf_counter()
    values, rows = solve(args.n, not args.no_share, args.chunk, keep_all=bool(args.db),
                         chance=args.chance)
    total = time.perf_counter() - t0
    print("k  H_k  W_groups  N_k  lookups  tables_s  stage_s  kernel_s  gaps_s  "
          "stage_us/pos  kernel_us/pos  gaps_us/pos  pure_saddle")
    for k, H, W, N, lk, tt, ts, tl, tg, pure in rows:
        print(f"{k} {H:,d} {W:,d} {N:,d} {lk:,d} {tt:.3f} {ts:.3f} {tl:.3f} {tg:.3f} "
              f"{1e6 * ts / N:.3f} {1e6 * tl / N:.3f} {1e6 * tg / N:.3f} {pure / N:.3f}")
    print(f"total {total:.2f} s (numba compile included on a cold cache)")
    if args.db:
        compare(args.n, args.db, values)


if __name__ == "__main__":
    main()
