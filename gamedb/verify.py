"""Check a database from its own contents: every stage game re-derived and re-checked.

For each stored position the stage matrix is rebuilt from the stored values of its
successors (through the game's layer face), and the stored strategies must form an
equilibrium of it, judged as the solver judges its own solutions
(``gamedb.solver.matrix_game``): the gap ``max_i (M y)_i - min_j (x M)_j`` at most
``tolerance * max(1, payoff range)``, and the stored value within that gap of ``x M y``.

The file is read through the store, layer by layer from the lowest, in bounded
batches: only the values of the layers a successor can fall into are held (as the
builder holds them), so memory follows the largest layers, not the file. A damaged row
(a value that is no number, a strategy that is no JSON object, an unknown action
label, a missing successor...) fails its own position, and its value reads as NaN, so
positions above it fail too; those are listed after the ones whose successors all
passed, which come first: they are the positions that were altered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import (
    TERMINAL, Expansion, Game, GameError, param_values, shown,
)
from gamedb.games.expansion import Root, root_of, top_layer
from gamedb.games.source import LayerSource
from gamedb.solver.backward import ValueTable, batches, stage_matrices
from gamedb.solver.exact import solve_exact
from gamedb.solver.grundy import grundy_layer
from gamedb.solver.matrix_game import TOLERANCE, batch_gaps, solve_games
from gamedb.store import DamagedFile, GameDB, StoredRows, open_db
from gamedb.store.checked import (
    NEGATIVE_GAP_ROUNDING, bare_layers, checked_row, is_grundy, joined_strategies,
    strategies_below,
)
from gamedb.store.codec import decode_batch, decode_joined
from gamedb.store.pages import damage_said
from gamedb.types import Bools, Floats, Progress

#: How many failing positions a report lists (the count covers all of them).
LISTED = 20

#: Positions above which ``exact`` wants ``sample`` (rationals cost ~1-30 ms each).
EXACT_LIMIT = 50_000


@dataclass(frozen=True, slots=True)
class Failure:
    """One stored position that fails the check."""

    key: int
    position: str
    """The position as ``gamedb show`` reads it (the stored representative)."""
    reason: str
    layer: int
    after_successor: bool = False
    """True when a successor failed too: the cause is most likely below it."""


@dataclass(frozen=True, slots=True)
class LayerCheck:
    """What ``verify`` found in one layer."""

    checked: int = 0
    max_gap: float = 0.0
    failures: int = 0


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of ``verify``."""

    states: int
    """Positions the ``layers`` table says are stored."""
    checked: int
    max_gap: float
    failures: int
    failed: list[Failure] = field(default_factory=list)
    """Up to ``LISTED`` failing positions, the altered ones (no failing successor) first."""
    layers: dict[int, LayerCheck] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Damage that is no single position's: layer counts, a missing start position."""
    max_exact_error: float | None = None
    """With ``exact``: largest |stored value - exact rational value|."""
    note: str = ""
    """What was left unchecked and why (an opening book's lowest layer, the positions an
    unfinished build has not solved yet)."""

    @property
    def failing_keys(self) -> list[int]:
        """Keys of the listed failing positions."""
        return [f.key for f in self.failed]

    @property
    def ok(self) -> bool:
        """True when every checked position is an equilibrium within tolerance."""
        return self.failures == 0 and not self.problems and self.checked > 0


@dataclass(frozen=True, slots=True)
class StageGames:
    """A batch of stored positions of one layer with their re-derived stage games."""

    layer: int
    exp: Expansion
    """The positions' expansion (keys, action counts and labels, successors)."""
    payoffs: Floats
    """Stage matrices (B, R, C) rebuilt from stored successor values (padded; NaN where a
    successor is missing)."""
    values: Floats
    """Stored values (B,), NaN where not a number."""
    row_strategies: Floats
    col_strategies: Floats
    reasons: dict[int, str]
    """Batch index -> why the row itself is damaged (checked no further)."""

    @property
    def keys(self) -> npt.NDArray[np.int64]:
        return self.exp.keys

    @property
    def n_rows(self) -> npt.NDArray[np.int64]:
        return self.exp.n_rows

    @property
    def n_cols(self) -> npt.NDArray[np.int64]:
        return self.exp.n_cols


def stage_games(path: str | Path, *, sample: int | None = None,
                seed: int = 0) -> Iterator[StageGames]:
    """Yield the stored positions' stage games and stored solutions, layer by layer.

    Args:
        path: the database file.
        sample: only this many positions drawn at random (all when None).
        seed: seed of the sample.
    """
    with open_db(path) as db:
        check = _Check(db, TOLERANCE, False)
        source = _sampled(db, sample, seed) if sample is not None else _every(db, check)
        for rows, table in source:
            yield from check.stage_games(rows, table)


def rounding_error(meta: dict[str, Any]) -> float:
    """Return the largest error of a file's stored values (``gamedb ship --precision
    float32``), 0 for exact files. A stage game's value and gap move by at most twice the
    error of its entries, so ``verify`` allows that much more."""
    precision = meta.get("precision")
    error = precision.get("max_error") if isinstance(precision, dict) else None
    return error if isinstance(error, float) and 0 <= error < 1 else 0.0


def verify(path: str | Path, *, tolerance: float = TOLERANCE, sample: int | None = None,
           exact: bool = False, seed: int = 0, on_progress: Progress | None = None,
           from_layer: int | None = None) -> VerifyReport:
    """Re-check the stored positions of the file at ``path``.

    Args:
        path: the database file.
        tolerance: largest admissible gap, relative to max(1, payoff range) as in the solver.
        sample: check this many random positions instead of all (for huge files).
        exact: also re-solve every checked stage game in rational arithmetic and require
            the stored value to match the exact value of the stored stage matrix.
        seed: seed of the sample.
        on_progress: called with (positions checked, positions to check).
        from_layer: check only the layers from this one up, each position against its
            successors' stored values read by key. An opening book (``meta.book_from_layer``)
            is checked from the layer above its lowest one by default: the lowest one's
            successors are not in it (they were checked when the book was made).

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch, DamagedFile: as ``open_db``.
    """
    with open_db(path) as db:
        check = _Check(db, tolerance + 2 * rounding_error(db.meta), exact)
        check.problems += meta_problems(db, check.tolerance)
        if exact and (sample or check.states) > EXACT_LIMIT:
            raise GameError(f"--exact on more than {EXACT_LIMIT:,} positions would take hours; "
                            "add --sample N")
        book = _book_layer(db)
        if from_layer is None and book is not None:
            from_layer = book + 1
        total = min(sample, check.states) if sample is not None else check.states
        if from_layer is not None and sample is None:
            total = sum(x.done for x in db.info().layers if x.layer >= from_layer)
            source = _from_layer(db, from_layer)
        else:
            source = _sampled(db, sample, seed, from_layer) if sample is not None \
                else _every(db, check)
        for rows, table in source:
            check.rows(rows, table)
            if on_progress is not None:
                on_progress(check.checked, max(total, check.checked))
        notes = []
        if sample is None and from_layer is None:
            check.whole_file()
            check.grundy()
        elif db.game.capabilities.impartial and book is None:
            notes.append("the Grundy values (table grundy) are checked by a verify of the "
                         "whole file only, without --sample or --from-layer")
        if book is not None:
            verified = db.meta.get("book_source", {}).get("verified", {})
            notes.append(
                f"an opening book: its layer {book} was verified against its successors in "
                f"{db.meta.get('book_source', {}).get('name', 'the full file')} when the "
                f"book was made ({verified.get('positions', '?')} positions, max gap "
                f"{verified.get('max_gap', float('nan')):.1e}); they are not in the book")
        if unfinished := db.unfinished():
            notes.append(f"{unfinished}; run the same build command to resume")
        if error := rounding_error(db.meta):  # a float32 copy: sound within more than 1e-9
            notes.append(f"values rounded to float32 (largest error {error:.1e}): gaps up to "
                         f"{check.tolerance:.1e} allowed, {tolerance:g} plus twice that error")
        return replace(check.report(), note="; ".join(notes))


def meta_problems(db: GameDB, tolerance: float = TOLERANCE) -> list[str]:
    """What ``meta`` says that the file's rows contradict (a tampered spec, start
    position, root value or storage flag): each is a problem, never sound.

    The rows are checked against the game of ``meta.spec``; these entries say how to
    read them, so they are checked against the rows and the spec themselves.
    """
    meta, game = db.meta, db.game
    problems = []
    params = json.loads(json.dumps(param_values(game)))
    # a file older than a parameter lacks it (its default); one it has must agree
    differ = sorted(k for k, v in meta.get("params", {}).items() if params.get(k, v) != v
                    or k not in params)
    if differ:
        name = differ[0]
        problems.append(f"meta params say {name}={shown(json.dumps(meta['params'][name]))}, "
                        f"meta spec {game.spec} says {shown(json.dumps(params.get(name)))}")
    if "family" in meta and meta["family"] != game.name:
        problems.append(f"meta family {meta['family']!r} is not {game.spec}'s ({game.name})")
    root = root_of(game)
    if "root_keys" in meta and sorted(meta["root_keys"]) != sorted(root.keys.tolist()):
        problems.append(f"meta root_keys {shown(str(meta['root_keys']), 60)} are not the start "
                        f"of {game.spec} (keys {root.keys.tolist()}): a changed spec or keys")
    problems += _root_value_problems(db, root, tolerance)
    problems += _flag_problems(db)
    book = _book_layer(db)
    if book is not None and book != meta["book_from_layer"]:
        problems.append(f"meta book_from_layer {meta['book_from_layer']} is not this book's "
                        f"lowest layer, {book}")
    return problems


def _book_layer(db: GameDB) -> int | None:
    """An opening book's lowest layer as its rows have it (None: not a book)."""
    if db.meta.get("book_from_layer") is None:
        return None
    layers = [x.layer for x in db.info().layers if x.states]
    return min(layers) if layers else int(db.meta["book_from_layer"])


def _root_value_problems(db: GameDB, root: Root[Any], tolerance: float) -> list[str]:
    """``meta.root_value`` against the start position's stored values, weighted."""
    said = db.meta.get("root_value")
    if said is None or db.meta.get("status") != "complete":
        return []
    keys, values = db.values_of(np.unique(root.keys))
    stored = dict(zip(keys.tolist(), values.tolist()))
    if any(key not in stored for key in root.keys.tolist()):
        return []  # whole_file says the start position is missing
    value = float(np.dot(root.weight, [stored[key] for key in root.keys.tolist()]))
    if abs(value - said) <= tolerance * max(1.0, abs(value)):
        return []
    return [f"meta root_value {said!r} is not the start position's stored value {value!r}"]


def _flag_problems(db: GameDB) -> list[str]:
    """``meta.values_only`` and ``meta.strategies_from`` against the strategies stored in
    rows and keyed pages: a layer said to keep none must keep none (else its strategies
    are never read), and one said to keep them must (else each of its positions reads
    as damaged)."""
    return _kept_problems(db) + _bare_problems(db)


def _kept_problems(db: GameDB) -> list[str]:
    """The positions of the layers ``meta`` says keep no strategy that keep one, in one line."""
    if db.meta.get("values_only"):
        flag, below = "values_only (no strategy stored)", None
    elif db.meta.get("strategies_from"):
        below = int(db.meta["strategies_from"])
        flag = f"strategies_from {below} (no strategy stored below layer {below})"
    else:
        return []
    with damage_said(db.path, "pages"):
        count, first = strategies_below(db.connection, db.pages, below)
    if first is None:
        return []
    layer = int(db.game.layer_of(np.array([first], np.int64))[0])
    return [f"meta says {flag}, but {count:,} position(s) store strategies, from layer "
            f"{layer}: the flag was changed"]


def _bare_problems(db: GameDB) -> list[str]:
    """The layers ``meta`` says keep strategies that keep none, in one line."""
    bare = stored_bare(db)
    if not bare:
        return []
    split = db.meta.get("strategies_from")
    flag = (f"strategies_from {split} (strategies stored from layer {split} up)" if split
            else "every layer stores strategies (no values_only, no strategies_from)")
    return [f"meta says {flag}, but {sum(bare.values()):,} position(s) store none, from "
            f"layer {min(bare)}: the flag was changed"]


def stored_bare(db: GameDB) -> dict[int, int]:
    """Return the layers ``meta`` says keep strategies (``GameDB.stores_strategies``) that
    keep not one, with how many positions each holds: ``verify`` re-solves their stage
    games, as a values-only layer's, and says that ``meta`` was changed."""
    if db.meta.get("values_only"):
        return {}
    top = top_layer(db.game)
    with damage_said(db.path, "pages"):
        return bare_layers(db.connection, db.pages,
                           range(int(db.meta.get("strategies_from") or 0), top + 1))


def _every(db: GameDB, check: _Check) -> Iterator[tuple[StoredRows, ValueTable]]:
    """Every stored row, layer by layer from the lowest, with the values below it."""
    game, table = db.game, ValueTable()
    span = game.layer_span
    for layer in db.stored_layers():
        table.keep(game, {low for low in table.layers if span is None or low >= layer - span})
        keys, values = [], []
        for rows in db.layer_rows(layer, strategies=False):
            yield rows, table
            keys.append(rows.keys)
            values.append(rows.numbers())  # NaN where damaged: the positions above fail
        table.add(layer, np.concatenate(keys), np.concatenate(values))
        check.layer_done(layer, sum(map(len, keys)))


def _from_layer(db: GameDB, first: int) -> Iterator[tuple[StoredRows, ValueTable]]:
    """Every stored row of the layers ``first`` and up, with its successors' values."""
    for layer in db.stored_layers():
        if layer >= first:
            for rows in db.layer_rows(layer, strategies=False):
                yield from _rows_with_successors(db, rows.keys)


def _sampled(db: GameDB, sample: int, seed: int,
             first: int | None = None) -> Iterator[tuple[StoredRows, ValueTable]]:
    """``sample`` rows drawn at random (from the layers ``first`` and up), each with its
    successors' values read by key."""
    counts = {layer.layer: layer.done for layer in db.info().layers
              if first is None or layer.layer >= first}
    layers = sorted(counts)
    total = sum(counts.values())
    picks = np.sort(np.random.default_rng(seed).choice(total, min(sample, total), replace=False))
    starts = np.cumsum([0] + [counts[layer] for layer in layers])
    face = db.game.indexed_face()
    for i, layer in enumerate(layers):
        mine = picks[(picks >= starts[i]) & (picks < starts[i + 1])] - starts[i]
        if not len(mine):
            continue
        if face is not None and layer in face.layers() and counts[layer] == face.size(layer):
            keys = _keys_by_index(face, layer, mine)  # a whole layer: no pass over its keys
        else:
            keys = _keys_at(db, layer, mine)
        yield from _rows_with_successors(db, keys)


def _keys_by_index(face: LayerSource, layer: int,
                   offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The keys at the given sorted offsets of a whole layer, unranked by the game's
    index (the same keys as ``_keys_at``: offsets count in key order)."""
    blocks = np.array(face.chunks(layer, 1), np.int64)  # whole blocks, in order
    which = np.searchsorted(blocks[:, 0], offsets, side="right") - 1
    chosen = []
    for block in np.unique(which).tolist():
        start, stop = blocks[block]
        keys = face.keys(layer, int(start), int(stop))
        chosen.append(keys[offsets[which == block] - start])
    return np.concatenate(chosen)


def _keys_at(db: GameDB, layer: int, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The keys at the given sorted offsets of a layer (one streamed pass over its keys)."""
    chosen, seen = [], 0
    for rows in db.layer_rows(layer, strategies=False):
        local = offsets[(offsets >= seen) & (offsets < seen + len(rows.keys))] - seen
        chosen.append(rows.keys[local])
        seen += len(rows.keys)
    return np.concatenate(chosen) if chosen else np.empty(0, np.int64)


def _rows_with_successors(db: GameDB, keys: npt.NDArray[np.int64]
                          ) -> Iterator[tuple[StoredRows, ValueTable]]:
    for batch in batches(keys, _per_state(db.game, keys)):
        succ = db.game.expand(batch).succ
        table = ValueTable()
        table.add(0, *db.values_of(np.unique(succ[succ != TERMINAL])))
        yield db.rows_of(batch), table


def _per_state(game: Game[Any], keys: npt.NDArray[np.int64]) -> int:
    return int(np.prod(game.expand(keys[:1]).succ.shape[1:])) if len(keys) else 1


class _Check:
    """Accumulates what ``verify`` finds, batch after batch."""

    def __init__(self, db: GameDB, tolerance: float, exact: bool):
        self.db, self.game, self.tolerance, self.exact = db, db.game, tolerance, exact
        self.layers: dict[int, LayerCheck] = {}
        self.failed: list[Failure] = []
        self.failures, self.checked, self.exact_error = 0, 0, 0.0
        self.failed_keys: list[npt.NDArray[np.int64]] = []
        self.problems: list[str] = []
        self.states = 0
        self.expected: dict[int, int] | None = None
        self.bare = set(stored_bare(db))
        try:
            info = db.info()
        except DamagedFile as exc:  # a damaged layers table: say so, check the rows anyway
            self.problems.append(exc.what)
            self.states = int(db.meta.get("states", 0))
            return
        self.states = info.states
        self.expected = {x.layer: x.done for x in info.layers}

    def _stores(self, layer: int) -> bool:
        """True if ``layer``'s stored strategies are checked: where ``meta`` says they
        are stored, unless the layer keeps none (``stored_bare``: its values are
        re-solved, and ``meta_problems`` says the flag was changed)."""
        return self.db.stores_strategies(layer) and layer not in self.bare

    def rows(self, rows: StoredRows, table: ValueTable) -> None:
        """Check a run of stored rows of one layer against the values in ``table``."""
        for games in self.stage_games(rows, table):
            self._judge(games)

    def stage_games(self, rows: StoredRows, table: ValueTable) -> Iterator[StageGames]:
        """The stage games of a run of rows, in batches the layer face expands at once."""
        values, reasons = self._parse_values(rows)
        start = 0
        for keys in batches(rows.keys, _per_state(self.game, rows.keys)):
            part = slice(start, start + len(keys))
            start += len(keys)
            sub = {i - part.start: r for i, r in reasons.items() if part.start <= i < part.stop}
            yield self._batch(rows, part, values[part], sub, table)

    def _parse_values(self, rows: StoredRows) -> tuple[Floats, dict[int, str]]:
        values = rows.numbers()
        layer = int(self.game.layer_of(rows.keys[:1])[0]) if len(rows.keys) else 0
        stores = self._stores(layer)  # else a NULL gap is how 0004 stores it
        gaps = replace(rows, values=tuple(0.0 if g is None and not stores else g
                                          for g in rows.gaps)).numbers()
        negative = gaps < -NEGATIVE_GAP_ROUNDING * np.maximum(1.0, np.abs(values))
        suspects = np.flatnonzero(np.isnan(values) | np.isnan(gaps) | negative).tolist()
        suspects += [i for i, stored in enumerate(rows.layers) if stored != layer]
        reasons = {}
        for i in sorted(set(suspects)):
            reasons[i] = self._row_reason(rows, i) or (
                f"its layer column says {rows.layers[i]!r}, its key says {layer}")
        return values, reasons

    def _row_reason(self, rows: StoredRows, i: int) -> str | None:
        """What is wrong with row ``i`` itself (None: nothing)."""
        if not rows.texts:  # read without its strategies: read it whole
            rows, i = self.db.rows_of(rows.keys[i:i + 1]), 0
        try:
            layer = int(self.game.layer_of(rows.keys[i:i + 1])[0])
            checked_row(self.db.path, "", rows.values[i], rows.gaps[i], rows.strategy1[i],
                        rows.strategy2[i], stores=self._stores(layer))
        except DamagedFile as exc:
            return exc.what.removeprefix(": ")
        return None

    def _batch(self, rows: StoredRows, part: slice, values: Floats, reasons: dict[int, str],
               table: ValueTable) -> StageGames:
        exp = self.game.expand(rows.keys[part])
        payoffs = self._payoffs(exp, table, reasons)
        x = self._strategies(rows, part, 1, exp.row_actions, reasons)
        y = self._strategies(rows, part, 2, exp.col_actions, reasons)
        layer = int(self.game.layer_of(exp.keys[:1])[0])
        return StageGames(layer, exp, payoffs, values, x, y, reasons)

    def _payoffs(self, exp: Expansion, table: ValueTable, reasons: dict[int, str]) -> Floats:
        """Stage matrices; a position with a successor that is not stored gets NaN."""
        try:
            return stage_matrices(exp, table)
        except LookupError:
            pass
        succ = exp.succ.reshape(len(exp.keys), -1)
        found = np.zeros(succ.shape, bool)
        if len(table.keys):
            at = np.searchsorted(table.keys, succ).clip(0, len(table.keys) - 1)
            found = table.keys[at] == succ
        missing = ~(found | (succ == TERMINAL))
        for i in np.flatnonzero(missing.any(axis=1)).tolist():
            lost = int(succ[i][missing[i]][0])
            reasons.setdefault(i, f"its successor {self._position(lost)} (key {lost}) "
                                  "is not stored")
        ok = ~missing.any(axis=1)
        payoffs = np.full(exp.succ.shape[:3], np.nan)
        if ok.any():
            payoffs[ok] = stage_matrices(_subset(exp, ok), table)
        return payoffs

    def _strategies(self, rows: StoredRows, part: slice, player: int,
                    labels: npt.NDArray[np.int64], reasons: dict[int, str]) -> Floats:
        """Place one player's stored strategies at their action positions (B, A)."""
        out = np.zeros(labels.shape)
        if len(rows.keys[part]) and not self._stores(
                int(self.game.layer_of(rows.keys[part][:1])[0])):
            return out
        try:
            sizes, action, prob = self._decoded(rows, part, player)
        except ValueError:  # rare: read the rows again and find the damaged ones
            full = self.db.rows_of(rows.keys[part])
            texts = full.strategy1 if player == 1 else full.strategy2
            for i in range(len(full.keys)):
                if (reason := self._row_reason(full, i)) is not None:
                    reasons.setdefault(i, reason)
            sizes, action, prob = decode_batch(
                tuple(None if i in reasons else t for i, t in enumerate(texts)))
        where = np.repeat(np.arange(len(sizes)), sizes)
        hits = labels[where] == action[:, None]
        known = hits.any(axis=1)
        for i, label in zip(where[~known].tolist(), action[~known].tolist()):
            reasons.setdefault(i, f"the strategy of stored player {player} names action "
                                  f"label {label}, not an action of this position")
        np.add.at(out, (where[known], np.argmax(hits[known], axis=1)), prob[known])
        return out

    def _decoded(self, rows: StoredRows, part: slice, player: int) -> tuple[
            npt.NDArray[np.int64], npt.NDArray[np.int64], Floats]:
        """Sizes, labels and probabilities of one player's strategies in ``rows[part]``."""
        if not rows.texts:  # streamed without them: join them in SQL
            joined = joined_strategies(self.db.connection, int(rows.keys[part][0]),
                                       int(rows.keys[part][-1]))
            return decode_joined(joined[player - 1], len(rows.keys[part]))
        texts = (rows.strategy1 if player == 1 else rows.strategy2)[part]
        return decode_batch(texts)

    def _judge(self, batch: StageGames) -> None:
        stored = self._stores(batch.layer)
        gaps, bad, why = (self._check if stored else self._check_values)(batch)
        why = why.astype(object)  # reasons of any length (a fixed-width str array cuts them)
        if self.exact:
            errors = _exact_errors(batch)
            self.exact_error = max(self.exact_error, float(np.nanmax(errors, initial=0.0)))
            exp = batch.exp
            _, ranges = batch_gaps(np.nan_to_num(batch.payoffs), exp.n_rows, exp.n_cols,
                                   batch.row_strategies, batch.col_strategies)
            off = ~(errors <= self.tolerance * np.maximum(1.0, ranges))
            why = np.where(off & ~bad, "the stored value differs from the exact value of "
                                       "its stage game", why)
            bad |= off
        for i, reason in batch.reasons.items():
            bad[i], why[i] = True, reason
        self._count(batch, gaps, bad, why)

    def _check(self, batch: StageGames) -> tuple[Floats, Bools, npt.NDArray[Any]]:
        exp, M, x, y = batch.exp, batch.payoffs, batch.row_strategies, batch.col_strategies
        gaps, ranges = batch_gaps(np.nan_to_num(M), exp.n_rows, exp.n_cols, x, y)
        limit = self.tolerance * np.maximum(1.0, ranges)
        played = np.einsum("br,brc,bc->b", x, np.nan_to_num(M), y)
        sums_ok = np.isclose(x.sum(1), 1, atol=1e-9) & np.isclose(y.sum(1), 1, atol=1e-9)
        lost = np.isnan(M).any(axis=(1, 2))
        value_off = ~(np.abs(batch.values - played) <= gaps + limit)
        why = np.select(
            [lost, ~sums_ok, ~(gaps <= limit), value_off],
            ["a successor's stored value is damaged or missing",
             "a stored strategy does not sum to 1",
             "the stored strategies are no equilibrium of its stage game",
             "the stored value is not the value of the stored strategies"], "")
        return np.where(lost, np.nan, gaps), why != "", why

    def _check_values(self, batch: StageGames) -> tuple[Floats, Bools, npt.NDArray[Any]]:
        """Values-only file: re-solve each stage game and compare with the stored value."""
        exp, M = batch.exp, batch.payoffs
        lost: Bools = np.asarray(np.isnan(M).any(axis=(1, 2)))
        solution = solve_games(np.where(lost[:, None, None], 0.0, M), exp.n_rows, exp.n_cols)
        _, ranges = batch_gaps(np.nan_to_num(M), exp.n_rows, exp.n_cols,
                               solution.row_strategies, solution.col_strategies)
        errors = np.abs(solution.values - batch.values)
        off = ~(errors <= self.tolerance * np.maximum(1.0, ranges))
        why = np.select([lost, off], ["a successor's stored value is damaged or missing",
                                      "the stored value is not the value of its stage game"], "")
        return np.where(lost, np.nan, errors), why != "", why

    def _count(self, batch: StageGames, gaps: Floats, bad: Bools, why: npt.NDArray[Any]) -> None:
        before = self.layers.get(batch.layer, LayerCheck())
        worst = float(np.nanmax(gaps, initial=0.0)) if len(gaps) else 0.0
        self.layers[batch.layer] = LayerCheck(before.checked + len(gaps),
                                              max(before.max_gap, worst),
                                              before.failures + int(bad.sum()))
        self.checked += len(gaps)
        self.failures += int(bad.sum())
        if bad.any():
            self._list(batch, np.flatnonzero(bad), why)

    def _list(self, batch: StageGames, failing: npt.NDArray[np.int64],
              why: npt.NDArray[Any]) -> None:
        """Keep the first failing positions, those whose successors all passed first."""
        failed = np.concatenate(self.failed_keys) if self.failed_keys else np.empty(0, np.int64)
        succ = batch.exp.succ[failing].reshape(len(failing), -1)
        after = np.isin(succ, failed).any(axis=1) | (
            np.isnan(batch.payoffs[failing]).any(axis=(1, 2))
            & ~np.isin(failing, list(batch.reasons)))
        for i, later in [*zip(failing[~after][:LISTED].tolist(), [False] * LISTED),
                         *zip(failing[after][:LISTED].tolist(), [True] * LISTED)]:
            key = int(batch.exp.keys[i])
            self.failed.append(Failure(key, self._position(key), str(why[i]), batch.layer, later))
        if len(failed) < 1_000_000:  # bounded: enough to tell causes from consequences
            self.failed_keys.append(batch.exp.keys[failing])
        self.failed.sort(key=lambda f: (f.after_successor, f.layer, f.key))
        del self.failed[LISTED:]

    def _position(self, key: int) -> str:
        try:
            return self.game.format_position(self.game.decode(key))
        except Exception:  # a key no game position has: say so, never fail here
            return "(no position of this game)"

    def layer_done(self, layer: int, found: int) -> None:
        """Compare a layer's stored rows with its row of the ``layers`` table."""
        if self.expected is None:
            return
        expected = self.expected.pop(layer, None)
        if expected is None:
            self.problems.append(f"layer {layer}: {found:,} positions stored, "
                                 "but the layers table has no row for it")
        elif expected != found:
            self.problems.append(f"layer {layer}: the layers table says {expected:,} "
                                 f"position(s), {found:,} are stored")

    def whole_file(self) -> None:
        """After every layer: layers the table lists but no key holds, the start position."""
        for layer, expected in sorted((self.expected or {}).items()):
            if expected:
                self.problems.append(f"layer {layer}: the layers table says {expected:,} "
                                     "position(s), none is stored")
        if self.db.meta.get("status") == "complete":
            for key in self.db.meta.get("root_keys", []):
                if not len(self.db.values_of(np.array([key], np.int64))[0]):
                    self.problems.append(f"the start position {self._position(key)} "
                                         f"(key {key}) is not stored")

    def grundy(self) -> None:
        """A complete impartial file: every stored Grundy value says what the stored value
        says (the mover wins exactly when it is not 0) and is the mex of its moves'
        stored Grundy values (``gamedb.solver.grundy``); lowest layer first, so a
        position above a damaged one is listed after it."""
        if not self.game.capabilities.impartial or self.db.meta.get("status") != "complete":
            return
        known = _Unusable()
        for layer in self.db.stored_layers():
            for rows in self.db.layer_rows(layer, strategies=False):
                cells = self.db.grundy_cells(rows.keys)
                mexes = grundy_layer(self.game, rows.keys, known)
                succ = self.game.expand(rows.keys).succ.reshape(len(rows.keys), -1)
                numbers = rows.numbers()
                for i, key in enumerate(rows.keys.tolist()):
                    cell = cells.get(key)
                    why = self._grundy_reason(key, cell, int(mexes[i]), float(numbers[i]))
                    known[key] = int(cell) if is_grundy(cell) else -1
                    if why is not None:
                        after = any(known.get(k, 0) == -1 or k in known.failed
                                    for k in succ[i].tolist() if k != TERMINAL)
                        known.failed.add(key)
                        self._grundy_failure(key, layer, why, after)

    def _grundy_reason(self, key: int, cell: Any, mex: int, value: float) -> str | None:
        """Why a stored Grundy cell is wrong, or None."""
        if cell is None:
            return "no Grundy value is stored (table grundy)"
        if not is_grundy(cell):
            return f"the Grundy value {cell!r} is not a non-negative integer"
        wins = self._mover_sign(key) * value > 0
        if (cell != 0) != wins:
            return (f"the Grundy value {cell} says the mover {'wins' if cell else 'loses'}, "
                    f"its stored value {value:+g} that the mover {'wins' if wins else 'loses'}")
        if cell != mex:
            return (f"the Grundy value {cell} is stored, the mex of its moves' stored values "
                    f"is {mex}")
        return None

    def _mover_sign(self, key: int) -> int:
        """+1 when player 1 moves at ``key``, -1 when player 2 does (the other passes)."""
        acts1, acts2 = self.game.actions(self.game.decode(key))
        return -1 if acts1 == (0,) and acts2 != (0,) else 1

    def _grundy_failure(self, key: int, layer: int, why: str, after: bool) -> None:
        before = self.layers.get(layer, LayerCheck())
        self.layers[layer] = replace(before, failures=before.failures + 1)
        self.failures += 1
        self.failed.append(Failure(key, self._position(key), why, layer, after))
        self.failed.sort(key=lambda f: (f.after_successor, f.layer, f.key))
        del self.failed[LISTED:]

    def report(self) -> VerifyReport:
        max_gap = max((x.max_gap for x in self.layers.values()), default=0.0)
        return VerifyReport(self.states, self.checked, max_gap, self.failures, self.failed,
                            dict(sorted(self.layers.items())), self.problems,
                            self.exact_error if self.exact else None)


class _Unusable(dict[int, int]):
    """Stored Grundy values by key; -1 for a key without a usable one (mex ignores it),
    and the keys that failed."""

    def __init__(self) -> None:
        super().__init__()
        self.failed: set[int] = set()

    def __missing__(self, key: int) -> int:
        return -1


def _subset(exp: Expansion, mask: Bools) -> Expansion:
    return replace(exp, **{name: getattr(exp, name)[mask] for name in
                           ("keys", "n_rows", "n_cols", "row_actions", "col_actions",
                            "succ", "weight")})


def _exact_errors(batch: StageGames) -> Floats:
    """|stored value - exact value| of each stage game, solved with Fractions."""
    errors = np.full(len(batch.exp.keys), np.nan)
    for i, (rows, cols) in enumerate(zip(batch.exp.n_rows.tolist(), batch.exp.n_cols.tolist())):
        matrix = batch.payoffs[i, :rows, :cols]
        if np.isfinite(matrix).all() and np.isfinite(batch.values[i]):
            errors[i] = abs(float(solve_exact(matrix).value) - batch.values[i])
    return errors
