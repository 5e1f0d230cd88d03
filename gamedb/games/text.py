"""Positions as text: the ``name=value`` fields that ``parse_position`` reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gamedb.games.base import GameError, parse_integer, shown


def parse_fields(text: str) -> dict[str, str]:
    """Split a position written as space-separated ``name=value`` fields.

    >>> parse_fields("hand1=1,3 hand2=2,4 pot=0")
    {'hand1': '1,3', 'hand2': '2,4', 'pot': '0'}
    """
    fields: dict[str, str] = {}
    for token in text.split():
        name, eq, value = token.partition("=")
        if not eq or not name or not value:
            raise GameError(f"malformed field {token!r}: expected name=value")
        if "=" in value:
            raise GameError(f"malformed field {shown(token)}: fields are separated by "
                            "spaces, not commas (e.g. 'hand1=1,3 hand2=2,4')")
        if name in fields:
            raise GameError(f"field {name!r} given twice")
        fields[name] = value
    return fields


def parse_cards(text: str, *, field_name: str, n: int) -> tuple[int, ...]:
    """Parse a comma-separated card list (``-`` is empty) of cards in 1..n.

    >>> parse_cards("5,1,3", field_name="hand1", n=6)
    (1, 3, 5)
    """
    if text == "-":
        return ()
    rule = f"{field_name} must be comma-separated integers or '-'"
    values = sorted(parse_integer(part, rule, text) for part in text.split(","))
    if len(set(values)) != len(values):
        raise GameError(f"{field_name} repeats a card: {shown(text)}")
    if any(not 1 <= v <= n for v in values):
        raise GameError(f"{field_name} holds a card outside 1..{n}: {shown(text)}")
    return tuple(values)


def format_cards(cards: Sequence[int]) -> str:
    """Write cards the way ``parse_cards`` reads them.

    >>> format_cards([1, 3]), format_cards([])
    ('1,3', '-')
    """
    return ",".join(map(str, cards)) if cards else "-"


def require_fields(fields: Mapping[str, str], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """Raise ``GameError`` for missing or unknown fields."""
    missing = [f for f in required if f not in fields]
    unknown = [f for f in fields if f not in required and f not in optional]
    if unknown:  # named first: a misspelt field is also a missing one
        also = f" (and position is missing {', '.join(missing)})" if missing else ""
        raise GameError(f"unknown field(s) {', '.join(unknown)}{also}; "
                        f"expected {', '.join([*required, *optional])}")
    if missing:
        raise GameError(f"position is missing {', '.join(missing)}")


def with_defaults(fields: Mapping[str, str], **values: int) -> str:
    """Write ``name=value`` pairs for a message, marking those the text left out.

    >>> with_defaults({}, pot=0, diff=0), with_defaults({"pot": "1"}, pot=1, diff=0)
    ('pot=0 diff=0 (defaults)', 'pot=1 diff=0 (diff by default)')
    """
    text = " ".join(f"{name}={value}" for name, value in values.items())
    left_out = [name for name in values if name not in fields]
    if not left_out:
        return text
    if len(left_out) == len(values):
        return f"{text} ({'defaults' if len(values) > 1 else 'default'})"
    return f"{text} ({', '.join(left_out)} by default)"


def parse_int(fields: Mapping[str, str], name: str) -> int:
    """Read an integer field."""
    return parse_integer(fields[name], f"{name} must be an integer")


__all__ = ["format_cards", "parse_cards", "parse_fields", "parse_int", "require_fields",
           "with_defaults"]
