"""Walk a game's rules from its start: the test suite's one reachability search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def decision_states(game: Any) -> Iterator[Any]:
    """Yield every non-terminal position reachable from ``game``'s start, once each, in
    depth-first order (the last successor pushed is visited first)."""
    seen, todo = set(), [s for _, s in game.initial()]
    while todo:
        state = todo.pop()
        if state in seen or game.value(state) is not None:
            continue
        seen.add(state)
        yield state
        acts1, acts2 = game.actions(state)
        todo += [s for a in acts1 for b in acts2 for _, s in game.next(state, a, b)]
