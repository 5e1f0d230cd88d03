"""What two players' played cards can have given: shared by the card games' checks of a
typed position (``Game.unreachable``).

In Jujitsu and Goofspiel both players play one card a round and the higher card wins
the round; the cards played so far pair up in some order, and each pairing wins, ties
and loses a number of rounds. Any order of those rounds can be played.
"""

from __future__ import annotations


def trick_counts(mine: list[int], theirs: list[int]) -> set[tuple[int, int]]:
    """Return every (rounds won, rounds tied) of player 1 over the pairings of two
    equally long lists of played cards.

    Cards are visited by value; a card waits for a higher one of the other player (a
    round it loses), or takes a waiting lower one (a round it wins), or ties its equal.

    >>> sorted(trick_counts([2, 4], [1, 3]))
    [(1, 0), (2, 0)]
    """
    states = {(0, 0, 0, 0)}  # waiting cards of player 1, of player 2, won, tied
    for card in range(1, max(mine + theirs, default=0) + 1):
        has1, has2 = card in mine, card in theirs
        if has1 or has2:
            states = {new for state in states for new in _visit(state, has1, has2)}
    return {(won, tied) for wait1, wait2, won, tied in states if not wait1 and not wait2}


def _visit(state: tuple[int, int, int, int], has1: bool,
           has2: bool) -> list[tuple[int, int, int, int]]:
    """The states after the played cards of one value (see ``trick_counts``)."""
    wait1, wait2, won, tied = state
    moves1 = [(1, 0, 0)] + ([(0, -1, 1)] if wait2 else []) if has1 else [(0, 0, 0)]
    moves2 = [(0, 1)] + ([(-1, 0)] if wait1 else []) if has2 else [(0, 0)]
    after = [(wait1 + a1 + b1, wait2 + a2 + b2, won + w, tied)
             for a1, a2, w in moves1 for b1, b2 in moves2]
    return after + ([(wait1, wait2, won, tied + 1)] if has1 and has2 else [])


def prize_splits(prizes: list[int], pot: int | None) -> dict[tuple[int, int, int], int]:
    """Split the played prizes between player 1, player 2 and a third heap: return, for
    every (prizes to player 1, to player 2, in the third heap), the differences of the
    first two heaps' points that some split gives, as a bit set (bit ``d + sum(prizes)``
    for difference ``d``).

    ``pot`` None: the third heap is the discarded prizes, of any points; else it is the
    pot and holds exactly ``pot`` points.

    >>> splits = prize_splits([1, 2], None)
    >>> [d - 3 for d in range(7) if splits[1, 1, 0] >> d & 1]
    [-1, 1]
    """
    total = sum(prizes)
    splits = {(0, 0, 0, 0): 1 << total}  # (to 1, to 2, heap, heap points) -> differences
    for prize in prizes:
        after: dict[tuple[int, int, int, int], int] = {}
        for (one, two, heap, points), differences in splits.items():
            for key, moved in (((one + 1, two, heap, points), differences << prize),
                               ((one, two + 1, heap, points), differences >> prize),
                               ((one, two, heap + 1, points + prize * (pot is not None)),
                                differences)):
                if pot is None or key[3] <= pot:
                    after[key] = after.get(key, 0) | moved
        splits = after
    return {(one, two, heap): differences
            for (one, two, heap, points), differences in splits.items()
            if pot is None or points == pot}


def carried_rounds(prizes: list[int]) -> dict[tuple[int, int, int, int], int]:
    """Play the prizes in this order with ``ties=carry`` (a tied round's points go to the
    next round's winner): return, for every (rounds won by player 1, lost, tied, points
    carried into the next round), the point differences some sequence of outcomes gives,
    as a bit set (bit ``d + sum(prizes)`` for difference ``d``).

    >>> rounds = carried_rounds([3, 1])  # a tie, then a win; or a win, then a tie
    >>> [d - 4 for d in range(9) if rounds[1, 0, 1, 0] >> d & 1]
    [4]
    >>> [d - 4 for d in range(9) if rounds[1, 0, 1, 1] >> d & 1]
    [3]
    """
    states = {(0, 0, 0, 0): 1 << sum(prizes)}
    for prize in prizes:
        after: dict[tuple[int, int, int, int], int] = {}
        for (won, lost, tied, carried), differences in states.items():
            stake = prize + carried
            for key, moved in (((won + 1, lost, tied, 0), differences << stake),
                               ((won, lost + 1, tied, 0), differences >> stake),
                               ((won, lost, tied + 1, stake), differences)):
                after[key] = after.get(key, 0) | moved
        states = after
    return states
