"""Key layouts declared once: named fields from which every decoder is derived.

A key is a non-negative int64: the layer in bits ``LAYER_SHIFT`` (48) and up, the
game's fields below. A game declares its fields here, once, as a ``KeyLayout``; from
the declaration come the Python decoder (``KeyLayout.decoder``, generated source, as
fast as a hand-written one), the encoder of unreduced keys (``KeyLayout.encode``), the
SQL views' decoding expressions (``KeyLayout.sql_stages``, read by
``gamedb.store.views``; the standard-library reader ``gamedb/probe.py`` decodes through
those views) and the docs diagram (``KeyLayout.diagram``). The numba kernels read
module-level ints that the game derives from (or feeds into) the same declaration, and
the conformance tests check the kernels' keys against it.

Field kinds:

* ``Field``: an unsigned bit field; value = ``(key >> offset & (2**width - 1)) - bias``.
  A ``cards`` field is a mask of cards 1..width (bit c - 1 is card c): SQL names the
  mask ``NAME_mask`` and writes the cards as a list ``NAME`` (``'1,3,5'`` or ``'-'``).
* ``Constant``: a field the key leaves out (its value is fixed, e.g. a pot of 0).
* ``Ternary``: the one custom kind, Goofspiel's base-3 hands. Digit r of the field is 0
  when both players hold rank r + 1, 1 when only player 1 does, 2 when only player 2
  does; with k cards per hand (the layer) the digits past the union read 0.

>>> lay = KeyLayout("demo-v1", (Field("hand1", 0, 3, cards=True), Field("diff", 3, 4, bias=8)))
>>> key = lay.encode({"hand1": 0b101, "diff": -2}, layer=2)
>>> lay.decode(key)
{'hand1': 5, 'diff': -2}
>>> lay.sql_stages()[0]
[('hand1_mask', 'key & 7'), ('diff', '(key >> 3 & 15) - 8')]
>>> print(lay.diagram())
| layer  | 0... | diff + 8 (4 bits) | hand1 (3 bits) |
^ bit 48        ^ bit 3             ^ bit 0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from typing import Any, Union

#: Every key holds its layer in bits 48 and up (see ``gamedb.games.base.LAYER_SHIFT``).
LAYER_SHIFT = 48

#: SQL decoding: stages of ``(column, expression)``; a stage may name columns of the
#: stages before it.
Stages = list[list[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class Field:
    """An unsigned bit field of a key (see the module docstring)."""

    name: str
    """The state attribute it holds."""
    offset: int
    """Its lowest bit."""
    width: int
    """Its number of bits."""
    bias: int = 0
    """Stored minus real value (``diff + 32`` is stored: bias 32)."""
    cards: bool = False
    """A mask of cards 1..width: SQL adds the card list, the mask is ``NAME_mask``."""
    high: str = ""
    """For a cards field: the SQL column holding its highest card ('' for none)."""

    @property
    def mask(self) -> int:
        """The field's bits, shifted down."""
        return (1 << self.width) - 1

    @property
    def column(self) -> str:
        """The SQL column of the raw field (the mask of a cards field)."""
        return f"{self.name}_mask" if self.cards else self.name

    def read(self, key: int, layer: int = 0) -> dict[str, int]:
        """Return ``{name: value}`` read from ``key``."""
        return {self.name: (key >> self.offset & self.mask) - self.bias}

    def write(self, values: Mapping[str, int]) -> int:
        """Return the bits of ``values[name]`` in place."""
        return (values[self.name] + self.bias) << self.offset

    def sql(self) -> Stages:
        """Return the SQL expression of the field, as one stage."""
        expr = f"key >> {self.offset} & {self.mask}" if self.offset else f"key & {self.mask}"
        if self.bias:
            expr = f"({expr}) {'-' if self.bias > 0 else '+'} {abs(self.bias)}"
        return [[(self.column, expr)]]


@dataclass(frozen=True, slots=True)
class Constant:
    """A field the key leaves out: it always reads ``value``."""

    name: str
    value: int = 0

    @property
    def column(self) -> str:
        """The SQL column."""
        return self.name

    def read(self, key: int, layer: int = 0) -> dict[str, int]:
        """Return ``{name: value}``."""
        return {self.name: self.value}

    def write(self, values: Mapping[str, int]) -> int:
        """Return 0: nothing is stored."""
        return 0

    def sql(self) -> Stages:
        """Return the constant as one stage."""
        return [[(self.name, str(self.value))]]


@dataclass(frozen=True, slots=True)
class Ternary:
    """Two hands over the ranks of their union as one base-3 number (module docstring)."""

    names: tuple[str, str]
    """The two hands (masks over ranks) it holds."""
    offset: int
    width: int
    digits: int
    """Most ranks the union can have."""

    def read(self, key: int, layer: int = 0) -> dict[str, int]:
        """Return both hands of a key whose hands hold ``layer`` cards each."""
        code = key >> self.offset & ((1 << self.width) - 1)
        h1 = h2 = c1 = c2 = 0
        bit = 1
        while c1 < layer or c2 < layer:
            code, digit = divmod(code, 3)
            if digit != 2:
                h1, c1 = h1 | bit, c1 + 1
            if digit != 1:
                h2, c2 = h2 | bit, c2 + 1
            bit <<= 1
        return {self.names[0]: h1, self.names[1]: h2}

    def write(self, values: Mapping[str, int]) -> int:
        """Return the base-3 code of two rank masks."""
        h1, h2 = values[self.names[0]], values[self.names[1]]
        code, power, union = 0, 1, h1 | h2
        while union:
            low = union & -union
            code += power * (0 if h1 & h2 & low else 1 if h1 & low else 2)
            power *= 3
            union ^= low
        return code << self.offset

    def sql(self) -> Stages:
        """Both hands as masks over ranks: the digits, then the masks.

        The union has k + (number of 1 digits) ranks, k being the layer, so hand 1 is
        the union without the 2 digits and hand 2 the union without the 1 digits.
        (Each digit is referenced a fixed number of times: SQLite inlines the stages,
        and a formula that used a mask once per card made a scan 7x slower.)
        """
        n, field = self.digits, f"(key & {(1 << self.width) - 1})" if not self.offset else \
            f"(key >> {self.offset} & {(1 << self.width) - 1})"
        digits = [(f"d{r}", f"{field} / {3 ** r} % 3") for r in range(n)]
        ones = " + ".join(f"(d{r} = 1)" for r in range(n))
        union = f"((1 << ((key >> {LAYER_SHIFT}) + {ones})) - 1)"
        only = {d: " | ".join(f"((d{r} = {d}) << {r})" for r in range(n)) for d in (1, 2)}
        return [digits, [(f"{self.names[0]}_mask", f"{union} & ~({only[2]})"),
                         (f"{self.names[1]}_mask", f"{union} & ~({only[1]})")]]


KeyField = Union[Field, Constant, Ternary]


@dataclass(frozen=True)
class KeyLayout:
    """A key encoding: its name (stored in every file) and its fields below the layer."""

    name: str
    """E.g. ``"jujitsu-v1"``; stored as ``key_layout`` in a file's meta."""
    fields: tuple[KeyField, ...]
    columns: tuple[str, ...] = ()
    """Public columns of the SQL ``positions`` view, in order (default: every field)."""
    text: tuple[tuple[str, str], ...] = ()
    """The position text as ``(label, column)`` parts: ``label=value`` joined by spaces."""
    derived: tuple[tuple[str, str], ...] = ()
    """Extra SQL columns computed from the fields' columns (e.g. a board picture)."""
    _decoders: dict[Any, Callable[[int], Any]] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False)
    """Generated decoders, one per ``make`` (``decoder``)."""

    def __post_init__(self) -> None:
        top = max((f.offset + f.width for f in self.fields if not isinstance(f, Constant)),
                  default=0)
        if top > LAYER_SHIFT:
            raise ValueError(f"{self.name} needs {top} bits below the layer; {LAYER_SHIFT} fit")

    def field(self, name: str) -> KeyField:
        """Return the field called ``name``."""
        return next(f for f in self.fields if getattr(f, "name", None) == name)

    def bit_field(self, name: str) -> Field:
        """Return the plain bit field called ``name`` (for kernels' constants).

        Raises:
            TypeError: ``name`` is a field of another kind.

        >>> layout = KeyLayout("demo-v1", (Field("a", 0, 4), Constant("b")))
        >>> layout.bit_field("a").width
        4
        >>> layout.bit_field("b")
        Traceback (most recent call last):
        TypeError: demo-v1: b is a Constant, not a Field
        """
        found = self.field(name)
        if not isinstance(found, Field):
            raise TypeError(f"{self.name}: {name} is a {type(found).__name__}, not a Field")
        return found

    def decode(self, key: int) -> dict[str, int]:
        """Return every field of ``key`` by name."""
        fields: dict[str, int] = self.decoder(dict)(key)
        return fields

    def decoder(self, make: Callable[..., Any]) -> Callable[[int], Any]:
        """Return a function ``key -> make(field=value, ...)``, generated once per ``make``.

        The plain fields become one expression each (as fast as a hand-written decoder);
        the other kinds are read through their ``read``.
        """
        cache = self._decoders
        if make not in cache:
            cache[make] = _generate_decoder(self.fields, make)
        return cache[make]

    def encode(self, values: Mapping[str, int], layer: int) -> int:
        """Return the key of ``values`` (every field by name) in ``layer``."""
        return sum(f.write(values) for f in self.fields) | layer << LAYER_SHIFT

    def sql_stages(self) -> Stages:
        """Return the SQL decoding of ``key``: fields, cards, derived columns, ``position``."""
        stages: Stages = []
        for f in self.fields:
            for i, stage in enumerate(f.sql()):
                stages[i:i + 1] = [(stages[i] if i < len(stages) else []) + stage]
        cards = [x for f in self.fields if isinstance(f, Field) and f.cards for x in _cards_sql(f)]
        cards += [x for f in self.fields if isinstance(f, Ternary) for x in _hands_sql(f)]
        return [s for s in (*stages, cards, list(self.derived)) if s] + [
            [("position", self.position_sql())]]

    def public_columns(self) -> list[str]:
        """Return the public columns of the ``positions`` view."""
        return list(self.columns) or [getattr(f, "name", "") for f in self.fields]

    def position_sql(self) -> str:
        """Return the SQL text of the position (what ``gamedb show`` reads)."""
        parts = [f"'{' ' if i else ''}{label}=' || {column}"
                 for i, (label, column) in enumerate(self.text)]
        return " || ".join(parts)

    def diagram(self) -> str:
        """Draw the bit layout, most significant field first (the docs' diagram)."""
        stored = sorted((f for f in self.fields if not isinstance(f, Constant)),
                        key=lambda f: -f.offset)
        gap = ["0..."] if stored and stored[0].offset + stored[0].width < LAYER_SHIFT else []
        cells = [("layer", f"^ bit {LAYER_SHIFT}"), *((g, "") for g in gap),
                 *((_label(f), f"^ bit {f.offset}") for f in stored)]
        top, bottom = "|", ""
        for label, mark in cells:  # a mark sits under the bar that opens its cell
            bottom = bottom.ljust(len(top) - 1) + mark
            top += f" {label.ljust(len(mark) - 2)} |"
        return top + "\n" + bottom


def _generate_decoder(fields: tuple[KeyField, ...], make: Callable[..., Any]) -> Callable[[int], Any]:
    """Write ``decode(key)`` as Python source: one expression per field, passed to
    ``make`` by position when its parameters name exactly the fields (the fastest
    call), else by keyword."""
    other = tuple(f for f in fields if not isinstance(f, Field))
    lines = [f"    o{i} = other[{i}].read(key, key >> {LAYER_SHIFT})" for i in range(len(other))]
    exprs = {f.name: f"((key >> {f.offset}) & {f.mask}) - {f.bias}"
             for f in fields if isinstance(f, Field)}
    for i, f in enumerate(other):
        exprs |= {name: f"o{i}[{name!r}]" for name in f.read(0, 0)}
    order = _parameters(make)
    args = ([exprs[name] for name in order] if order is not None and set(order) == set(exprs)
            else [f"{name}={expr}" for name, expr in exprs.items()])
    namespace: dict[str, Any] = {"make": make, "other": other}
    exec("def decode(key):\n" + "".join(line + "\n" for line in lines)
         + f"    return make({', '.join(args)})\n", namespace)
    decode: Callable[[int], Any] = namespace["decode"]
    return decode


def _parameters(make: Callable[..., Any]) -> list[str] | None:
    """The parameter names of a dataclass or a plain function, in order (else None)."""
    if dataclasses.is_dataclass(make):
        return [f.name for f in dataclasses.fields(make)]
    code = getattr(make, "__code__", None)
    return list(code.co_varnames[:code.co_argcount]) if code is not None else None


def _label(f: Field | Ternary) -> str:
    name = " & ".join(f.names) + " in base 3" if isinstance(f, Ternary) else f.name
    bias = f" + {f.bias}" if isinstance(f, Field) and f.bias > 0 else (
        f" - {-f.bias}" if isinstance(f, Field) and f.bias < 0 else "")
    return f"{name}{bias} ({f.width} bit{'s' if f.width > 1 else ''})"


def _card_list(mask: str, n: int) -> str:
    """SQL text '1,3,5' (or '-') of the cards set in ``mask``: bit c-1 is card c."""
    parts = " || ".join(f"CASE WHEN {mask} & {1 << (c - 1)} THEN ',{c}' ELSE '' END"
                        for c in range(1, n + 1))
    return f"coalesce(nullif(substr({parts}, 2), ''), '-')"


def _highest(mask: str, n: int) -> str:
    whens = " ".join(f"WHEN {mask} & {1 << (c - 1)} THEN {c}" for c in range(n, 0, -1))
    return f"CASE {whens} END"


def _cards_sql(f: Field) -> list[tuple[str, str]]:
    out = [(f.name, _card_list(f.column, f.width))]
    return out + ([(f.high, _highest(f.column, f.width))] if f.high else [])


def _hands_sql(f: Ternary) -> list[tuple[str, str]]:
    out = []
    for i, name in enumerate(f.names, start=1):
        out += [(name, _card_list(f"{name}_mask", f.digits)),
                (f"high{i}", _highest(f"{name}_mask", f.digits))]
    return out


def sql_list(columns: Sequence[str], sep: str = ",") -> str:
    """SQL joining ``columns`` with ``sep`` (e.g. Nim's heaps as '1,3,5')."""
    return f" || '{sep}' || ".join(columns)


__all__ = ["LAYER_SHIFT", "Constant", "Field", "KeyLayout", "Stages", "Ternary", "sql_list"]
