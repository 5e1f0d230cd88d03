"""Strategy text: one JSON object per stored player in ``states.strategy1/strategy2``.

A position's strategy is stored as ``{"label": prob, ...}`` (stored action labels as
keys, in increasing order; non-zero probabilities only), so a position is one row and
plain SQL reads it with SQLite's JSON functions (the ``strategies`` view unpacks them
with ``json_each``; docs/format.md). Writing ~7 M probabilities through Python's float
``repr`` costs ~1.3 µs each, more than solving them, so ``encode`` formats a whole
chunk in compiled code: each probability as its 17 significant digits, correctly
rounded with exact 128-bit integer arithmetic, which any correctly rounded parser
(Python's ``json``/``float``) reads back to the very same double.

>>> import numpy as np
>>> encode(np.array([[0.5, 0.25, 0.25], [1.0, 0.0, 0.0]]), np.array([[1, 3, 4], [2, 5, -1]]))
['{"1":0.5,"3":0.25,"4":0.25}', '{"2":1.0}']
>>> decode('{"1":0.5,"3":0.25,"4":0.25}')
{1: 0.5, 3: 0.25, 4: 0.25}
"""

from __future__ import annotations

import gc
import itertools
import json
import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from gamedb.games.base import shown
from gamedb.jit import njit
import numpy as np
import numpy.typing as npt

#: Probabilities below this are not stored (the kernel already zeroes them).
MIN_PROB = 1e-12

_U = np.uint64
_POW5 = np.array([5 ** e for e in range(28)], dtype=np.uint64)  # 5**27 < 2**64
_POW10 = np.array([10 ** e for e in range(19)], dtype=np.uint64)
_MASK32 = _U(0xFFFFFFFF)


def encode(probs: npt.NDArray[np.float64], labels: npt.NDArray[np.int64]) -> list[str]:
    """Return one JSON object per row of ``probs`` (B, A) labelled by ``labels`` (B, A).

    Entries below ``MIN_PROB`` (and the padding) are left out.
    """
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    if probs.size and not (probs.max() < 2.0):
        raise ValueError(f"not a probability: {probs.max()}")
    buf, ends = _encode(probs, labels, MIN_PROB)
    text = buf.tobytes().decode("ascii")
    bounds = ends.tolist()
    return [text[a:b] for a, b in zip([0, *bounds[:-1]], bounds)]


def decode(text: str | None) -> dict[int, float]:
    """Return ``{label: prob}`` of one stored strategy (empty for NULL).

    Raises:
        ValueError: the text is not a JSON object of integer labels and probabilities.

    >>> decode('[1, 2]')
    Traceback (most recent call last):
    ...
    ValueError: strategy '[1, 2]' is not a JSON object of action labels and probabilities
    """
    if text is None:
        return {}
    try:
        strategy = {int(label): _probability(p) for label, p in json.loads(text).items()}
    except (ValueError, TypeError, AttributeError, RecursionError):  # Recursion: [[[[...
        strategy = None
    if strategy is None:
        raise ValueError(f"strategy {shown(str(text), 40)} is not a JSON object of action "
                         "labels and probabilities")
    return strategy


def decode_batch(texts: Sequence[str | None]) -> tuple[npt.NDArray[np.int64],
                                                       npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Parse many stored strategies at once: (entries of each, labels, probabilities).

    One ``json.loads`` call reads the whole batch and arrays hold the result (~0.3 µs a
    probability, against ~1 µs through ``decode``); NULL reads as an empty strategy.

    Raises:
        ValueError: some strategy is damaged (``decode`` of each then says which).

    >>> sizes, labels, probs = decode_batch(['{"1":0.5,"3":0.5}', None, '{"2":1.0}'])
    >>> sizes.tolist(), labels.tolist(), probs.tolist()
    ([2, 0, 1], [1, 3, 2], [0.5, 0.5, 1.0])
    """
    return decode_joined(",".join("{}" if t is None else t for t in texts), len(texts))


def decode_joined(body: str, count: int) -> tuple[npt.NDArray[np.int64],
                                                  npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Like ``decode_batch``, of ``count`` strategies already joined by commas (as SQL's
    ``group_concat`` returns them: no Python string per row).

    What ``encode`` writes (``{"label":prob,...}``, labels increasing) is read by NumPy's
    text parser, ~10 times faster than through ``json``; anything else goes through
    ``json``, which refuses what is not a strategy.

    Raises:
        ValueError: some strategy is damaged (``decode`` of each then says which).

    >>> [a.tolist() for a in decode_joined('{"1":0.5,"3":0.5},{},{"2":1.0}', 3)]
    [[2, 0, 1], [1, 3, 2], [0.5, 0.5, 1.0]]
    """
    fast = _decode_encoded(body, count)
    if fast is not None:
        return fast
    try:
        with no_gc():
            parsed = json.loads("[" + body + "]")
        sizes = np.fromiter(map(len, parsed), dtype=np.int64, count=count)
        labels = np.fromiter(map(int, itertools.chain.from_iterable(parsed)), dtype=np.int64,
                             count=int(sizes.sum()))
        probs = np.fromiter(itertools.chain.from_iterable(d.values() for d in parsed),
                            dtype=np.float64, count=len(labels))
    except (ValueError, TypeError, AttributeError, RecursionError):  # Recursion: [[[[...
        raise ValueError("a stored strategy is damaged") from None
    if len(parsed) != count or not ((probs >= 0.0) & (probs <= 1.0)).all():
        raise ValueError("a stored strategy is damaged")
    return sizes, labels, probs


_PUNCTUATION = str.maketrans({"{": None, "}": None, '"': None, ":": ","})


def _decode_encoded(body: str, count: int) -> tuple[npt.NDArray[np.int64],
                                                    npt.NDArray[np.int64],
                                                    npt.NDArray[np.float64]] | None:
    """Read strategies written by ``encode`` with array operations (None: not such text).

    Every check ``json`` would make of such text is made here: ``count`` objects, each
    label quoted and followed by one probability in [0, 1], labels increasing within an
    object; the numbers themselves are parsed correctly rounded by NumPy.
    """
    raw = np.frombuffer(body.encode("utf-8"), np.uint8)
    opens, closes = np.flatnonzero(raw == ord("{")), np.flatnonzero(raw == ord("}"))
    colons = np.flatnonzero(raw == ord(":"))
    if (len(opens) != count or len(closes) != count
            or int((raw == ord('"')).sum()) != 2 * len(colons)):
        return None
    before_open, before_close = np.searchsorted(colons, opens), np.searchsorted(colons, closes)
    if count and not ((opens < closes).all() and (opens[1:] > closes[:-1]).all()
                      and before_open[0] == 0 and before_close[-1] == len(colons)
                      and (before_open[1:] == before_close[:-1]).all()):
        return None  # braces out of order, or a label outside an object
    text = body.translate(_PUNCTUATION)  # {"1":0.5,"3":0.5},{"2":1.0} -> 1,0.5,3,0.5,2,1.0
    while ",," in text:  # only where a strategy is empty
        text = text.replace(",,", ",")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # text NumPy cannot read to its end
            numbers = np.fromstring(text.strip(","), dtype=np.float64, sep=",")
    except (ValueError, DeprecationWarning):
        return None
    if len(numbers) != 2 * len(colons):
        return None
    labels, probs = numbers[0::2], numbers[1::2]
    sizes = np.diff(before_close, prepend=0)
    starts = np.cumsum(sizes) - sizes
    rising = np.ones(len(labels), bool)
    rising[1:] = labels[1:] > labels[:-1]
    rising[starts[sizes > 0]] = True
    if not (rising.all() and (labels == np.round(labels)).all() and (np.abs(labels) < 2**53).all()
            and ((probs >= 0.0) & (probs <= 1.0)).all()):
        return None
    return sizes.astype(np.int64), labels.astype(np.int64), probs


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic objects are made at once.

    Parsing a batch of rows or JSON makes ~10^5 tuples or dicts that live on; each
    allocation burst would trigger collections that scan them all again (half the time
    of reading a file). They hold no cycles, so nothing is lost by waiting.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _probability(p: object) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(p)
    return float(p)


def format_prob(p: float) -> str:
    """Return the text ``encode`` writes for one probability (tests, tools).

    >>> format_prob(0.25), format_prob(1 / 3), format_prob(1.0), format_prob(1e-12)
    ('0.25', '0.33333333333333331', '1.0', '0.00000000000099999999999999998')
    """
    if not MIN_PROB <= p < 2.0:
        raise ValueError(f"not a stored probability: {p}")
    buf, ends = _encode(np.array([[p]]), np.zeros((1, 1), np.int64), 0.0)
    return buf.tobytes().decode("ascii")[len('{"0":'):-1]


@njit(cache=True)
def _mul(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """(hi, lo) of the 128-bit product of two 64-bit integers."""
    a0, a1 = a & _MASK32, a >> _U(32)
    b0, b1 = b & _MASK32, b >> _U(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _U(32)) + (p01 & _MASK32) + (p10 & _MASK32)
    lo = (p00 & _MASK32) | (mid << _U(32))
    hi = p11 + (p01 >> _U(32)) + (p10 >> _U(32)) + (mid >> _U(32))
    return hi, lo


@njit(cache=True)
def _digits(m: np.uint64, q: int, e: int) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """(round, floor) of m * 10**e / 2**q, halves to even, for 17 <= e and q - e >= 1
    (and m * 5**e < 2**128)."""
    hi, lo = _mul(m, _POW5[min(e, 27)])
    for _ in range(e - 27):  # times 5 once more for e = 28
        c, lo = _mul(lo, _U(5))
        hi = hi * _U(5) + c
    s = q - e  # now divide by 2**s
    if s < 64:
        quot = (hi << _U(64 - s)) | (lo >> _U(s)) if s > 0 else lo
        rem = lo & ((_U(1) << _U(s)) - _U(1))
        half = _U(1) << _U(s - 1)
        above, tie = rem > half, rem == half
    else:
        t = s - 64
        quot = hi >> _U(t)
        rem_hi = hi & ((_U(1) << _U(t)) - _U(1)) if t > 0 else _U(0)
        if t == 0:
            above, tie = lo > (_U(1) << _U(63)), lo == (_U(1) << _U(63))
        else:
            half_hi = _U(1) << _U(t - 1)
            above = rem_hi > half_hi or (rem_hi == half_hi and lo > _U(0))
            tie = rem_hi == half_hi and lo == _U(0)
    if above or (tie and (quot & _U(1)) == _U(1)):
        return quot + _U(1), quot
    return quot, quot


@njit(cache=True)
def _write_int(buf: np.ndarray, pos: int, value: int) -> int:  # pragma: no cover
    if value < 0:
        buf[pos] = 45  # '-'
        pos += 1
        value = -value
    n, v = 1, value
    while v >= 10:
        v //= 10
        n += 1
    for i in range(n - 1, -1, -1):
        buf[pos + i] = 48 + value % 10
        value //= 10
    return pos + n


@njit(cache=True)
def _write_prob(buf: np.ndarray, pos: int, p: float) -> int:  # pragma: no cover
    """Write 0 < p < 10 with 17 significant digits, trailing zeros dropped."""
    f, ex = math.frexp(p)
    m = _U(f * 9007199254740992.0)  # f * 2**53: exact
    q = 53 - ex  # p = m / 2**q
    x = int(math.floor(math.log10(p)))
    e = 16 - x
    d, low = _digits(m, q, e)
    if low >= _POW10[17]:  # log10 was rounded across a power of ten: one digit too many
        e -= 1
        d, low = _digits(m, q, e)
    elif low < _POW10[16]:  # or one too few
        e += 1
        d, low = _digits(m, q, e)
    if d == _POW10[17]:  # rounding carried into an 18th digit: 10**17 -> 10**16
        d = _POW10[16]
        e -= 1
    nd = 17  # significant digits left after dropping trailing zeros
    while nd > 1 and d % _U(10) == _U(0):
        d //= _U(10)
        nd -= 1
    if e >= 17:  # 0.000ddd
        buf[pos] = 48
        buf[pos + 1] = 46
        pos += 2
        for _ in range(e - 17):
            buf[pos] = 48
            pos += 1
        end = pos + nd
    else:  # e == 16: d.ddd (d.0 for a single digit)
        if nd == 1:
            buf[pos] = _U(48) + d
            buf[pos + 1] = 46
            buf[pos + 2] = 48
            return pos + 3
        buf[pos + 1] = 46
        end = pos + nd + 1
    point = pos + 1 if e < 17 else -1  # where the '.' already sits, if inside
    for i in range(end - 1, pos - 1, -1):
        if i != point:
            buf[i] = _U(48) + d % _U(10)
            d //= _U(10)
    return end


@njit(cache=True)
def _encode(probs: np.ndarray, labels: np.ndarray,
            min_prob: float) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    b, a = probs.shape
    buf = np.empty(b * (2 + a * 64), np.uint8)
    ends = np.empty(b, np.int64)
    pos = 0
    for i in range(b):
        buf[pos] = 123  # '{'
        pos += 1
        first = True
        for j in range(a):
            p = probs[i, j]
            if not p >= min_prob or p <= 0.0:
                continue
            if not first:
                buf[pos] = 44  # ','
                pos += 1
            first = False
            buf[pos] = 34  # '"'
            pos = _write_int(buf, pos + 1, labels[i, j])
            buf[pos] = 34
            buf[pos + 1] = 58  # ':'
            pos = _write_prob(buf, pos + 2, p)
        buf[pos] = 125  # '}'
        pos += 1
        ends[i] = pos
    return buf[:pos], ends
