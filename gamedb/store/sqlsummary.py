"""Aggregates over every position for SQL, at any size: per-layer summaries of page layers.

``gamedb sql`` can copy the positions of page layers into a temporary ``states``
(``store.sqlpages``), but a copy costs about 3 µs a position: 13-card Goofspiel's
1.34e9 positions would take over an hour. The questions asked of a whole file are
mostly aggregates per layer, and those need no copy. A statement that

* reads ``states`` or ``positions`` (one of them, no join, no subquery but in
  ``WHERE``),
* uses ``value``, ``gap`` and ``key`` only inside ``count``, ``sum``, ``total``,
  ``avg``, ``min`` and ``max`` (of one column, or ``count(*)``), and ``layer``
  inside aggregates, in ``WHERE`` and ``GROUP BY``, and elsewhere only as grouped by
  (``GROUP BY layer``, or the very expression grouped by: outside the grouping SQLite
  takes it from one position of the group, which the summary has not),
* reads an alias in ``GROUP BY``, ``HAVING`` or an expression of ``ORDER BY`` only
  over ``states`` and not named like its columns (there SQLite reads the column),

is *rewritten* onto a small temporary table ``layer_summary`` that holds, per layer,
how many positions it has and the count, sum, least and largest of its values and of
its gaps. Those are computed page by page with NumPy (the values and gaps of a page
only: keys and strategies are not decoded), and for the row layers by SQLite itself
(``GROUP BY layer`` over the rows). SQLite then runs the rewritten statement, so its
``WHERE``, ``HAVING``, ``ORDER BY``, ``LIMIT``, aliases and scalar functions work as
written and the columns keep their names. Only the page layers the ``WHERE`` clause
keeps are read.

Counts, least and largest values are exact. A sum (and so an average) adds each page's
values pairwise (NumPy) and the pages' sums exactly (``math.fsum``), where SQLite adds
rows one by one: the two may differ in the last digits (a relative 1e-15 or so).

>>> rewrite("SELECT layer, count(*), avg(value) FROM states GROUP BY layer").sql
'SELECT layer, coalesce(sum(n), 0) AS "count(*)", (sum(value_sum) / sum(value_n)) AS "avg(value)" FROM temp.layer_summary GROUP BY layer'
>>> rewrite("SELECT max(gap) AS worst FROM positions WHERE layer >= 8").layers
'layer >= 8'
>>> rewrite("SELECT value FROM states WHERE layer = 3") is None  # one value per position
True
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass

import numpy as np

from gamedb.store.pages import PageError, decode_numbers
from gamedb.types import Floats, Progress


#: The temporary table a rewritten statement reads.
SUMMARY = "layer_summary"

#: aggregate(column) -> its expression over ``layer_summary``.
_OVER_SUMMARY = {
    **{f"count({c})": "coalesce(sum(n), 0)" for c in ("*", "key", "layer")},
    **{f"{f}(key)": None for f in ("sum", "total", "avg", "min", "max")},  # not summarised
    "sum(layer)": "sum(layer * n)",
    "total(layer)": "total(layer * n)",
    "avg(layer)": "(sum(layer * n) * 1.0 / sum(n))",
    "min(layer)": "min(layer)",
    "max(layer)": "max(layer)",
    **{k: v for c in ("value", "gap") for k, v in (
        (f"count({c})", f"coalesce(sum({c}_n), 0)"),
        (f"sum({c})", f"sum({c}_sum)"),
        (f"total({c})", f"total({c}_sum)"),
        (f"avg({c})", f"(sum({c}_sum) / sum({c}_n))"),
        (f"min({c})", f"min({c}_min)"),
        (f"max({c})", f"max({c}_max)"))},
}
_SUMMARY_COLUMNS = {"n", *(f"{c}_{s}" for c in ("value", "gap") for s in ("n", "sum", "min", "max"))}
_AGGREGATES = {"count", "sum", "total", "avg", "min", "max"}
_TABLES = {"states", "positions"}
#: Words a summarised statement may use besides ``layer``, aggregates and its aliases.
_KEYWORDS = {
    "select", "from", "where", "group", "by", "having", "order", "asc", "desc", "limit",
    "offset", "and", "or", "not", "in", "between", "is", "null", "as", "nulls", "first",
    "last", "case", "when", "then", "else", "end", "cast", "real", "integer", "text",
    "round", "abs", "coalesce", "ifnull", "nullif", "printf", "format", "typeof",
}

_TOKEN = re.compile(r"""
    (?P<space>\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)
  | (?P<string>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<op><=|>=|<>|!=|==|\|\||[-+*/%<>=(),;~&|])
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A statement rewritten onto ``layer_summary``."""

    sql: str
    """The statement to run once ``layer_summary`` exists."""
    layers: str | None
    """The statement's ``WHERE`` condition (on ``layer`` alone), None without one: the
    layers to summarise."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    start: int
    end: int

    @property
    def word(self) -> str:
        return self.text.lower() if self.kind == "word" else ""


def _tokens(sql: str) -> list[_Token] | None:
    """Split ``sql`` into tokens (None: something this module does not read, such as a
    quoted identifier, a parameter or a dot)."""
    tokens, at = [], 0
    while at < len(sql):
        match = _TOKEN.match(sql, at)
        if match is None:
            return None
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(kind, match.group(), match.start(), match.end()))
        at = match.end()
    return tokens


def rewrite(sql: str) -> Rewritten | None:
    """Return ``sql`` rewritten onto ``layer_summary``, or None if a summary cannot
    answer it (see the module's docstring for what it can)."""
    tokens = _tokens(sql)
    if not tokens or tokens[0].word != "select":
        return None
    if tokens[-1].text == ";":
        tokens = tokens[:-1]
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in sql
    aliases: set[str] = set()
    implicit: set[int] = set()  # the tokens naming an item without AS
    layers_at: list[int] = []  # the tokens ``layer`` outside aggregates
    names_at: list[int] = []  # the tokens reading an alias
    depth, i, from_at, calls = 0, 1, None, 0
    while i < len(tokens):
        token, word = tokens[i], tokens[i].word
        previous = tokens[i - 1]
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif token.text == ";":
            return None
        elif token.text == "*" and not (previous.kind in ("number", "word") and
                                         previous.word not in _KEYWORDS - {"null"}
                                         or previous.text == ")"):
            return None  # SELECT *: one row per position
        elif word in _AGGREGATES and _is_call(tokens, i):
            call = f"{word}({tokens[i + 2].text.lower()})"
            over = _OVER_SUMMARY.get(call)
            if over is None:
                return None
            edits.append((token.start, tokens[i + 3].end, over))
            calls += 1
            i += 4
            continue
        elif word == "from":
            if from_at is not None or depth or i + 1 >= len(tokens) \
                    or tokens[i + 1].word not in _TABLES:
                return None
            from_at = i
            edits.append((tokens[i + 1].start, tokens[i + 1].end, f"temp.{SUMMARY}"))
            if i + 2 < len(tokens) and tokens[i + 2].word not in _CLAUSES:
                return None  # an alias, a join, a comma...
            i += 2
            continue
        elif word == "as" and i + 1 < len(tokens) and tokens[i + 1].kind in ("word", "quoted"):
            if tokens[i + 1].kind == "word":  # a quoted one is never read: see below
                aliases.add(tokens[i + 1].word)
            i += 2
            continue
        elif _implicit_alias(tokens, i, depth, from_at):
            aliases.add(word)
            implicit.add(i)
        elif token.kind == "quoted":
            return None  # a quoted name other than an alias
        elif word == "layer":
            layers_at.append(i)
        elif token.kind == "word" and word in aliases:
            names_at.append(i)
        elif token.kind == "word" and word not in _KEYWORDS:
            return None  # value outside an aggregate, a join, a subquery, DISTINCT...
        i += 1
    if from_at is None or depth or aliases & _SUMMARY_COLUMNS:
        return None  # an alias named like a summary column would read the column
    clauses = _clauses(tokens)
    if not calls and "group" not in clauses:
        return None  # no aggregate, no GROUP BY: one row per position, not per layer
    where_at = clauses.get("where", (0, 0))
    if any(t.word == "select" and not where_at[0] < j < where_at[1]
           for j, t in enumerate(tokens[1:], 1)):
        return None  # a subquery's aggregate is the subquery's (its one row)
    items = _items(tokens, 1, from_at)
    if not _grouped(tokens, clauses, items, implicit, layers_at, names_at,
                    tokens[from_at + 1].word):
        return None
    layers = None
    if "where" in clauses:
        where, stop = clauses["where"]
        if stop == where + 1:
            return None
        if any(t.kind == "word" and t.word != "layer" and t.word not in _KEYWORDS
               for t in tokens[where + 1:stop]):
            return None  # an alias or an aggregate: not a condition on layer alone
        layers = sql[tokens[where + 1].start:tokens[stop - 1].end]
    edits += _named_columns(sql, tokens, items, implicit, edits)
    return Rewritten(_edited(sql[:tokens[-1].end], edits), layers)


#: The clauses of a ``SELECT`` after its list.
_CLAUSES = ("from", "where", "group", "having", "order", "limit")
#: The columns of ``states``: SQLite reads a name in ``GROUP BY``, ``HAVING`` or an
#: expression of ``ORDER BY`` as the table's column before an alias of the same name
#: (``positions`` has columns of its game too: any alias read there is refused).
_STATES_COLUMNS = {"key", "layer", "value", "gap", "strategy1", "strategy2"}


def _clauses(tokens: list[_Token]) -> dict[str, tuple[int, int]]:
    """The statement's clauses (not those of a subquery): clause -> (index of its
    keyword, index where it ends)."""
    starts: list[tuple[int, str]] = []
    depth = 0
    for j, token in enumerate(tokens):
        depth += token.text == "("
        depth -= token.text == ")"
        if not depth and token.word in _CLAUSES and token.word not in {w for _, w in starts}:
            starts.append((j, token.word))
    ends = [s for s, _ in starts[1:]] + [len(tokens)]
    return {word: (start, end) for (start, word), end in zip(starts, ends)}


def _items(tokens: list[_Token], first: int, stop: int) -> list[tuple[int, int]]:
    """``tokens[first:stop]`` split at its commas outside parentheses: (first, last)."""
    items, start, depth = [], first, 0
    for j in range(first, stop + 1):
        text = tokens[j].text if j < stop else ","
        depth += text == "("
        depth -= text == ")"
        if text == "," and not depth:
            items.append((start, j - 1))
            start = j + 1
    return items


def _spelled(tokens: list[_Token]) -> tuple[str, ...]:
    """Tokens as comparable words (lower case) and symbols."""
    return tuple(t.word or t.text for t in tokens)


def _expression(tokens: list[_Token], item: tuple[int, int], implicit: set[int]
                ) -> tuple[str, ...]:
    """A select-list item without its alias, as comparable words and symbols."""
    first, last = item
    if last in implicit:
        last -= 1
    elif last - 1 > first and tokens[last - 1].word == "as":
        last -= 2
    return _spelled(tokens[first:last + 1])


def _grouped(tokens: list[_Token], clauses: dict[str, tuple[int, int]],
             items: list[tuple[int, int]], implicit: set[int], layers_at: list[int],
             names_at: list[int], table: str) -> bool:
    """Whether the summary has the value SQLite gives every ``layer`` outside an
    aggregate and every alias read: per group, ``layer`` is one position's (the
    summary's rows are not positions) unless it is grouped by."""
    def clause(j: int) -> str:
        return max(((start, word) for word, (start, _) in clauses.items() if start <= j),
                   default=(0, "select"))[1]

    selected = [_expression(tokens, item, implicit) for item in items]
    named = {tokens[last].word: expression for (_, last), expression in zip(items, selected)
             if last in implicit or tokens[last - 1].word == "as"}
    grouping = set()
    if "group" in clauses:
        start, stop = clauses["group"]
        for first, last in _items(tokens, start + 2, stop):
            term = _spelled(tokens[first:last + 1])
            if term == ("layer",):
                pass
            elif len(term) == 1 and term[0] in named:
                term = named[term[0]]
            elif len(term) == 1 and term[0].isdigit() and 0 < int(term[0]) <= len(items):
                term = selected[int(term[0]) - 1]
            grouping.add(term)
    order: list[tuple[int, int]] = []
    if "order" in clauses:
        start, stop = clauses["order"]
        order = _items(tokens, start + 2, stop)

    def within(j: int, spans: list[tuple[int, int]]) -> tuple[int, int]:
        return next((first, last) for first, last in spans if first <= j <= last)

    for j in names_at:
        where = clause(j)
        if where == "order" and within(j, order) == (j, j) or where == "limit":
            continue  # ORDER BY alias: the alias
        if table != "states" or tokens[j].word in _STATES_COLUMNS:
            return False
    if ("layer",) in grouping:
        return True
    for j in layers_at:
        where = clause(j)
        if where in ("where", "group"):
            continue
        if where == "select":
            if selected[items.index(within(j, items))] in grouping:
                continue
        elif where == "order":
            first, last = within(j, order)
            while last > first and tokens[last].word in ("asc", "desc", "nulls", "first",
                                                         "last"):
                last -= 1
            if _spelled(tokens[first:last + 1]) in grouping:
                continue
        return False
    return True


def _implicit_alias(tokens: list[_Token], i: int, depth: int, from_at: int | None) -> bool:
    """True if ``tokens[i]`` names a select-list item without ``AS`` (``count(*) n``)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return (tokens[i].kind == "word" and tokens[i].word not in _KEYWORDS and not depth
            and from_at is None and tokens[i - 1].text == ")"
            and after is not None and (after.text == "," or after.word == "from"))


def _is_call(tokens: list[_Token], i: int) -> bool:
    """True if ``tokens[i]`` starts ``name ( argument )`` (one argument)."""
    return (i + 3 < len(tokens) and tokens[i + 1].text == "(" and tokens[i + 3].text == ")"
            and (tokens[i + 2].kind == "word" or tokens[i + 2].text == "*"))


def _named_columns(sql: str, tokens: list[_Token], items: list[tuple[int, int]],
                   implicit: set[int], edits: list[tuple[int, int, str]]
                   ) -> list[tuple[int, int, str]]:
    """Aliases for the select list's rewritten items without one, so each column keeps
    the name SQLite gives it: the item's text up to the next token (comments
    included), without the spaces at its end."""
    named = []
    for first, last in items:
        if last < first or last in implicit or (last - 1 > first
                                                and tokens[last - 1].word == "as"):
            continue
        begin, end = tokens[first].start, tokens[last].end
        if any(begin <= s < end for s, _, _ in edits):
            name = sql[begin:tokens[last + 1].start].rstrip(" \t\n\r\f\v")
            named.append((end, end, ' AS "{}"'.format(name.replace('"', '""'))))
    return named


def _edited(sql: str, edits: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, text in sorted(edits):
        out += [sql[at:start], text]
        at = end
    return "".join(out + [sql[at:]])


def summarize(conn: sqlite3.Connection, layers: str | None,
              on_progress: Progress | None = None) -> int:
    """Create ``temp.layer_summary`` on ``conn`` (read-only is fine) for the layers
    ``layers`` keeps (a condition on ``layer``; None: all); return the page positions
    read.

    Raises:
        PageError: a page does not decode.
    """
    where = f"WHERE ({layers})" if layers else ""
    conn.execute(f"CREATE TEMP TABLE {SUMMARY}(layer INTEGER, n INTEGER, value_n INTEGER, "
                 "value_sum REAL, value_min REAL, value_max REAL, gap_n INTEGER, gap_sum REAL, "
                 "gap_min REAL, gap_max REAL)")
    conn.execute(f"INSERT INTO temp.{SUMMARY} SELECT layer, count(*), count(value), sum(value), "
                 "min(value), max(value), count(gap), sum(gap), min(gap), max(gap) "
                 f"FROM main.states {where} GROUP BY layer")
    paged = _page_layers(conn, where)
    total, done = sum(count for _, _, count in paged), 0
    for layer, codec, _ in paged:
        values, gaps = _Numbers(), _Numbers()
        for count, data in conn.execute("SELECT count, data FROM main.pages WHERE layer = ? "
                                        "ORDER BY page", (layer,)):
            layer_values, layer_gaps = decode_numbers(data, int(count), codec)
            values.add(layer_values)
            if layer_gaps is not None:
                gaps.add(layer_gaps)
            done += int(count)
            if on_progress is not None:
                on_progress(done, total)
        if values.positions:
            conn.execute(f"INSERT INTO temp.{SUMMARY} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (layer, values.positions, *values.row(), *gaps.row()))
    conn.commit()
    return done


def _page_layers(conn: sqlite3.Connection, where: str) -> list[tuple[int, str, int]]:
    """The page layers ``where`` keeps: (layer, codec, positions stored)."""
    try:
        rows = conn.execute(
            "SELECT p.layer, p.codec, (SELECT coalesce(sum(count), 0) FROM main.pages AS g "
            f"WHERE g.layer = p.layer) FROM (SELECT * FROM main.page_layers {where}) AS p "
            "ORDER BY p.layer").fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # before schema 0006: rows only
            return []
        raise
    return [(int(layer), str(codec), int(count)) for layer, codec, count in rows]


class _Numbers:
    """Count, exact sum, least and largest of the numbers added (NaN counts as NULL,
    as SQLite stores it)."""

    def __init__(self) -> None:
        self.positions = 0
        self.count = 0
        self.sums: list[float] = []
        self.low = math.inf
        self.high = -math.inf

    def add(self, numbers: Floats) -> None:
        self.positions += len(numbers)
        nan = np.isnan(numbers)
        if nan.any():
            numbers = numbers[~nan]
        if not len(numbers):
            return
        self.count += len(numbers)
        self.sums.append(float(numbers.sum()))
        self.low = min(self.low, float(numbers.min()))
        self.high = max(self.high, float(numbers.max()))

    def row(self) -> tuple[int, float | None, float | None, float | None]:
        if not self.count:
            return 0, None, None, None
        return self.count, math.fsum(self.sums), self.low, self.high


__all__ = ["PageError", "Rewritten", "SUMMARY", "rewrite", "summarize"]
