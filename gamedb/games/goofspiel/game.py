"""Goofspiel: the game of pure strategy (GOPS), bidding for prizes with cards.

Both players hold cards 1..n and the prizes are 1..n. Each round one prize is revealed
(a uniform chance draw from those left, or a fixed order), both bid a card at once and
the higher bid scores the prize's points. Equal bids discard the prize (``ties=carry``:
its points are added to the next prize; a pot left at the end goes to nobody).
``win_loss`` pays player 1 the sign of the point difference, ``point_difference`` the
difference itself (OpenSpiel's ``point_difference`` pays half of it to each side).

References: S. M. Ross, "Goofspiel -- the game of pure strategy", J. Appl. Prob. 8,
1971; G. C. Rhoads, L. Bartholdi, "Computer solution to the game of pure strategy",
Games 3, 2012; OpenSpiel ``games/goofspiel.h`` (same parameter names).

Parameters::

    num_cards     int  cards per player and prizes, 1..13      (default: 4, as OpenSpiel)
    points_order  str  random | descending | ascending         (default: random)
    returns_type  str  win_loss | point_difference             (default: win_loss)
    ties          str  discard | carry                         (default: discard)

A state is a position with a prize on the table; the position before a random draw is
a chance node (``chance``), folded into ``initial``/``next`` and never stored.
Canonical keys: only comparisons between the bids matter, so the union of both hands is
relabelled by rank (the prizes keep their values); with ``ties=carry`` only prize + pot
matters (the stake); with ``win_loss`` a position whose score difference exceeds the
points left is decided (terminal, no search); and of a position and its player-swapped
twin (hands exchanged, difference negated, value negated) the smaller key is stored.
With ``point_difference`` the score is not in the key: ``Canonical.offset`` banks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gamedb.bits import Mask, cards, full, mask_of, popcount, without
from gamedb.games.base import (
    BuildCosts, Canonical, Capabilities, Distribution, Expansion, Game, GameError,
    Keys, Param,
)
from gamedb.games.goofspiel.keys import _canonical, _expand, _layout, _raw_layout
from gamedb.games.source import LayerSource
from gamedb.games.layout import KeyLayout
from gamedb.games.pairings import carried_rounds, prize_splits, trick_counts
from gamedb.games.text import (format_cards, parse_cards, parse_fields, parse_int, require_fields,
                               with_defaults)

_ORDERS = ("random", "descending", "ascending")
#: Measured build costs per position (docs/estimate.md: 8 cards win/loss, 10 point difference).
_COSTS = {"win_loss": BuildCosts(320, 720, 110, 60_000),
          "point_difference": BuildCosts(720, 340, 210, 40_000)}


@dataclass(frozen=True, slots=True)
class GoofspielState:
    """A Goofspiel position (``prize == 0``: before a draw, a chance node).

    Key bit layout for ``n`` cards, T = n(n+1)/2 points (least significant bit right)::

        | cards left | 0... | diff + T//2 | table | prizes (n bits) | hands |
        ^ bit 48            ^ win_loss only        ^ after hands     ^ bit 0

    Canonical keys: ``hands`` is the base-3 number sum_r d_r 3^r over the ranks r of the
    union of both hands (d = 0 both hold it, 1 only player 1, 2 only player 2; 21 bits
    for n = 13) and ``table`` is the stake prize + pot. Raw keys (``raw_layout``):
    ``hands`` is hand1 | hand2 << n and ``table`` is prize | pot << bits(n). Card ``c`` of
    a mask is bit ``c - 1``. |diff| <= min(left, played) <= T//2 in undecided positions.
    """

    hand1: Mask
    """Player 1's cards."""
    hand2: Mask
    """Player 2's cards."""
    prizes: Mask
    """Prizes not yet revealed (the one on the table excluded)."""
    prize: int
    """The prize on the table; 0 before the draw."""
    pot: int
    """Points of tied rounds carried to this prize (always 0 with ``ties=discard``)."""
    diff: int
    """Player 1's points minus player 2's so far."""


class Goofspiel(Game[GoofspielState]):
    """Goofspiel with ``num_cards`` cards per player (see the module docstring)."""

    name: ClassVar[str] = "goofspiel"
    params: ClassVar[tuple[Param, ...]] = (
        Param("num_cards", int, 4, "cards per player and prizes", low=1, high=13),
        Param("points_order", str, "random", "order in which prizes are revealed", choices=_ORDERS),
        Param("returns_type", str, "win_loss", "payoff: sign of the point difference, or the "
              "difference", choices=("win_loss", "point_difference")),
        Param("ties", str, "discard", "tied bids: prize discarded, or carried to the next",
              choices=("discard", "carry")),
        Param("dummy", str, "false", "a third suit bids a random card after both players",
              choices=("false", "true")),
        Param("rounds", int, 0, "rounds bid, with the highest cards (0: num_cards)",
              low=0, high=13),
        Param("committed", str, "false", "each player fixes the whole bid order up front "
              "(one matrix game)", choices=("false", "true")),
    )
    dummy: str = "false"
    rounds: int = 0
    committed: str = "false"
    layer_span: ClassVar[int | None] = 1  # every round uses one card of each hand
    state_type: ClassVar[type] = GoofspielState
    rules: ClassVar[str] = """\
Goofspiel (GOPS, the game of pure strategy; Ross 1971): bid cards for prizes.

Rules
  Both players hold the cards 1..num_cards and the prizes are 1..num_cards. Each round
  one prize is revealed: a uniform draw from the prizes left (points_order=random), or
  the highest (descending) or lowest (ascending) left. Both bid a card at once and the
  higher bid scores the prize's points; a bid card is gone. Equal bids discard the
  prize (ties=carry: its points are added to the next prize instead; a pot left at the
  end goes to nobody). returns_type=win_loss pays player 1 the sign of the final point
  difference (+1, 0 or -1), point_difference the difference itself.

Options (each its own module; combinations refused with one line are noted)
  dummy=true   a third suit 1..num_cards is shuffled; after both bids the dummy bids its
               next card (uniform over its remaining cards, which everyone sees). The
               unique highest of the three bids takes the prize; the dummy alone highest:
               nobody scores; the two players tied at the top: the prize is discarded; one
               player tied with the dummy at the top: that player scores half the prize.
               Needs points_order=random and ties=discard; num_cards <= 9.
  rounds=R     only R rounds: each player holds the R highest cards (with 12 rounds of
               13, no aces), all prizes are shuffled and the ones never revealed are
               discarded. Needs points_order=random; combines with dummy=true.
  committed=true  each player fixes the whole order of bids before the first prize: one
               matrix game over the num_cards! orders, paid the exact expectation over
               the prize orders. A move is an order, named by its bids round by round
               (3-1-2) and stored as its index among the orders sorted (1-2-3 is 0). The
               only position is the start. num_cards <= 6; no dummy or rounds.

Positions: space-separated name=value fields, or the word start
  hand1   player 1's cards, comma-separated in any order; - for none
  hand2   player 2's cards (always as many as player 1's)
  prizes  the prizes not yet revealed (the one on the table excluded); - for none
  prize   the prize on the table; leave it out for the position before the draw
          (its value is then the average over the draws, and nobody moves)
  pot     points of tied rounds carried to this prize (default 0; ties=carry only)
  diff    player 1's points minus player 2's so far (default 0; halves with dummy=true)
  dummy   the dummy's remaining cards (dummy=true only)
  A move is a card of your hand. Values are player 1's expected payoff.

Example: two rounds into a 5-card game, prize 3 on the table; player 1 won prize 1
(card 4 against 3) and prize 4 was discarded (5 against 5)
  gamedb build "goofspiel(num_cards=5)" --db g5.sqlite
  gamedb show g5.sqlite "hand1=1,2,3 hand2=1,2,4 prizes=2,5 prize=3 diff=1"
  gamedb show g5.sqlite "hand1=1,2,3 hand2=1,2,4 prizes=2,3,5 diff=1"
  gamedb build "goofspiel(num_cards=3,dummy=true)" --db d3.sqlite
  gamedb show d3.sqlite "hand1=1,3 hand2=2,3 dummy=1,3 prizes=3 prize=2 diff=0.5"
  gamedb build "goofspiel(num_cards=5,rounds=2)" --db r2.sqlite
  gamedb show r2.sqlite start
  gamedb build "goofspiel(num_cards=3,committed=true)" --db c3.sqlite
  gamedb show c3.sqlite start
"""

    def __init__(self, num_cards: int = 4, points_order: str = "random",
                 returns_type: str = "win_loss", ties: str = "discard"):
        super().__init__(num_cards=num_cards, points_order=points_order,
                         returns_type=returns_type, ties=ties)
        self.num_cards, self.points_order = num_cards, points_order
        self.returns_type, self.ties = returns_type, ties
        self.layout, self._layout = _layout(num_cards, ties == "carry",
                                            returns_type == "win_loss",
                                            _ORDERS.index(points_order))
        total = num_cards * (num_cards + 1) // 2
        self.capabilities = Capabilities(
            "card", round_points=_stake, prize_field="prize",
            independent_prizes=points_order == "random" and ties == "discard",
            cards=num_cards, win_loss=returns_type == "win_loss",
            score_in_key=returns_type == "win_loss",
            axes={"prize": (1, num_cards), **({"pot": (0, total)} if ties == "carry" else {}),
                  **({"diff": (-total, total)} if returns_type == "win_loss" else {})},
            build_costs=_COSTS[returns_type])

    @classmethod
    def create(cls, **params: Any) -> Game[Any]:
        """Return plain Goofspiel, or the variant module that plays its options."""
        dummy, rounds = params.pop("dummy", "false"), params.pop("rounds", 0)
        committed = params.pop("committed", "false")
        if rounds == params.get("num_cards", 4):
            rounds = 0
        if (dummy, rounds, committed) == ("false", 0, "false"):
            return cls(**params)
        from gamedb.games.goofspiel.variants import variant  # only these specs need it
        return variant(dummy == "true", rounds, committed == "true", params)

    # -- reference face ------------------------------------------------------------

    def initial(self) -> Distribution[GoofspielState]:
        """Return the first prize's draws (one state for a fixed order)."""
        hand = full(self.num_cards)
        return self._reveal(hand, hand, hand, 0, 0)

    def chance(self, s: GoofspielState) -> Distribution[GoofspielState] | None:
        """Return the draws of a position before a draw, None for any other."""
        if s.prize or not s.hand1 or self.value(s) is not None:
            return None
        return self._reveal(s.hand1, s.hand2, s.prizes, s.pot, s.diff)

    def actions(self, s: GoofspielState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the cards each player may bid."""
        return tuple(cards(s.hand1)), tuple(cards(s.hand2))

    def next(self, s: GoofspielState, a: int, b: int) -> Distribution[GoofspielState]:
        """Bid card ``a`` against card ``b``, then reveal the next prize."""
        stake, pot, diff = s.prize + s.pot, 0, s.diff
        if a == b:
            pot = stake if self.ties == "carry" and s.prizes else 0
        else:
            diff += stake if a > b else -stake
        h1, h2 = without(s.hand1, a), without(s.hand2, b)
        if not s.prizes:
            return [(1.0, GoofspielState(h1, h2, 0, 0, 0, diff))]
        return self._reveal(h1, h2, s.prizes, pot, diff)

    def value(self, s: GoofspielState) -> float | None:
        """Return player 1's payoff at the end or once decided, None before."""
        if not s.hand1:
            return float(np.sign(s.diff)) if self.returns_type == "win_loss" else float(s.diff)
        left = sum(cards(s.prizes)) + s.prize + s.pot
        if self.returns_type == "win_loss" and abs(s.diff) > left:
            return float(np.sign(s.diff))
        return None

    def layer(self, s: GoofspielState) -> int:
        """Return the number of cards left in each hand."""
        return popcount(s.hand1)

    @property
    def raw_layout(self) -> KeyLayout:
        """Real hands as masks, prize and pot apart (see ``GoofspielState``)."""
        return _raw_layout(self.num_cards, self.ties == "carry", self.returns_type == "win_loss")

    def key(self, s: GoofspielState) -> int:
        """Encode a state in this game's layout, without player swap or diff clamp."""
        return int(_canonical(s.hand1, s.hand2, s.prizes, s.prize, s.pot, s.diff,
                              self._layout, False)[0])

    def canonical(self, s: GoofspielState) -> Canonical:
        """Return the stored key of undecided ``s`` and how real cards map to labels."""
        key, swapped = _canonical(s.hand1, s.hand2, s.prizes, s.prize, s.pot, s.diff,
                                  self._layout, True)
        ranks = {card: rank for rank, card in enumerate(cards(s.hand1 | s.hand2), start=1)}
        offset = float(s.diff) if self.returns_type == "point_difference" else 0.0
        return Canonical(int(key), bool(swapped), (ranks, ranks), offset)

    def _reveal(self, h1: Mask, h2: Mask, prizes: Mask, pot: int,
                diff: int) -> Distribution[GoofspielState]:
        order = cards(prizes) if self.points_order == "random" else [
            max(cards(prizes)) if self.points_order == "descending" else min(cards(prizes))]
        draws = list(order)
        return [(1.0 / len(draws), GoofspielState(h1, h2, without(prizes, p), p, pot, diff))
                for p in draws]

    # -- positions as text -----------------------------------------------------------

    def parse_position(self, text: str) -> GoofspielState:
        """Read ``"hand1=1,2,3 hand2=1,2,4 prizes=2,5 prize=3 diff=-1"`` (or ``start``).

        Without ``prize`` the position is before the draw (for a fixed order the draw
        is made at once); ``pot`` (``ties=carry``) and ``diff`` default to 0.
        """
        hand = full(self.num_cards)
        if text.strip() == "start":
            start = GoofspielState(hand, hand, hand, 0, 0, 0)
            return start if self.points_order == "random" else self.initial()[0][1]
        fields = parse_fields(text)
        require_fields(fields, ("hand1", "hand2", "prizes"), ("prize", "pot", "diff"))
        n = self.num_cards
        h1, h2, prizes = (parse_cards(fields[f], field_name=f, n=n)
                          for f in ("hand1", "hand2", "prizes"))
        prize = parse_int(fields, "prize") if "prize" in fields else 0
        pot = parse_int(fields, "pot") if "pot" in fields else 0
        diff = parse_int(fields, "diff") if "diff" in fields else 0
        self._check_reachable(len(h1), len(h2), prizes, prize, pot, diff,
                              with_defaults(fields, pot=pot, diff=diff))
        state = GoofspielState(mask_of(h1), mask_of(h2), mask_of(prizes), prize, pot, diff)
        if not prize and h1 and self.points_order != "random" and self.value(state) is None:
            return self._reveal(state.hand1, state.hand2, state.prizes, pot, diff)[0][1]
        return state

    def format_position(self, s: GoofspielState) -> str:
        """Write a position the way ``parse_position`` reads it."""
        text = (f"hand1={format_cards(list(cards(s.hand1)))} "
                f"hand2={format_cards(list(cards(s.hand2)))} "
                f"prizes={format_cards(list(cards(s.prizes)))}")
        text += f" prize={s.prize}" if s.prize else ""
        text += f" pot={s.pot}" if self.ties == "carry" else ""
        return text + (f" diff={s.diff}" if self.returns_type == "win_loss" or s.diff else "")

    def _check_reachable(self, k1: int, k2: int, prizes: tuple[int, ...], prize: int,
                         pot: int, diff: int, written: str) -> None:
        n = self.num_cards
        if k1 != k2:
            raise GameError(f"hands must have the same size, got {k1} and {k2} cards")
        if prize and not 1 <= prize <= n or prize in prizes:
            raise GameError(f"prize={prize} must be a card of 1..{n} not among prizes")
        if len(prizes) + bool(prize) != k1:
            raise GameError(f"{k1} cards per hand need {k1} prizes left, with the one on "
                            f"the table; got {len(prizes) + bool(prize)}")
        left = sorted((*prizes, prize) if prize else prizes)
        ordered = {"descending": list(range(1, k1 + 1)),
                   "ascending": list(range(n - k1 + 1, n + 1))}.get(self.points_order, left)
        if left != ordered or (prize and self.points_order != "random"
                               and prize != (max if self.points_order == "descending" else min)(left)):
            raise GameError(f"prizes {format_cards(left)} with prize={prize} cannot occur "
                            f"with points_order={self.points_order}")
        played = n * (n + 1) // 2 - sum(left)
        if pot < 0 or (self.ties == "discard" and pot) or abs(diff) + pot > played:
            raise GameError(f"{written} cannot happen after {played} points "
                            f"were played with ties={self.ties}")

    def unreachable(self, s: GoofspielState) -> str | None:
        """Return why no order of the played cards and prizes leads to ``s``, or None.

        The played cards pair up in some order, each pairing winning, tying and losing
        some rounds (``pairings.trick_counts``); ``s`` is reachable exactly when one of
        those counts can also leave its diff and pot with the prizes played
        (``_round_counts``).
        """
        dealt = self._dealt()
        mine, theirs = list(cards(dealt & ~s.hand1)), list(cards(dealt & ~s.hand2))
        played = [p for p in cards(full(self.num_cards) & ~s.prizes) if p != s.prize]
        carry = self.ties == "carry"
        if not s.hand1 and s.prize:  # ``rounds``: the prizes never revealed stay left
            return f"prize={s.prize} cannot be on the table once the hands are empty"
        if carry and not s.hand1 and s.pot:
            return f"pot={s.pot} cannot happen at the end: a pot left then goes to nobody"
        if self._round_counts(played, s.pot, s.diff, bool(s.hand1)) & trick_counts(mine, theirs):
            return None
        written = f"pot={s.pot} " if carry else ""
        return (f"{written}diff={s.diff} cannot happen when player 1 played "
                f"{format_cards(mine)} and player 2 {format_cards(theirs)} for the prizes "
                f"{format_cards(played)}")

    def _dealt(self) -> Mask:
        """Return the cards each player holds at the start."""
        return full(self.num_cards)

    def _round_counts(self, played: list[int], pot: int, diff: int,
                      going_on: bool) -> set[tuple[int, int]]:
        """Return every (rounds won, rounds tied) of player 1 that can leave ``diff`` and
        ``pot`` after these prizes (a pot at the end goes to nobody: any is left then).

        Any played card can have met any played prize: the rounds' cards can come in
        any order. With ``ties=discard`` that is a split of the prizes into won, lost and
        tied ones (``pairings.prize_splits``). With ``carry`` a tied prize goes to the
        winner of the next round that is not tied, or stays in the pot when only ties
        follow: in a random order, any tied prize can precede any round, so a player who
        took any prizes won at least one round and at most one per prize; in a fixed
        order, the rounds are played out (``pairings.carried_rounds``).
        """
        bit, rounds = diff + sum(played), len(played)
        if bit < 0:  # below what losing every prize gives
            return set()
        if self.ties == "carry" and self.points_order != "random":
            dealt = sorted(played, reverse=self.points_order == "descending")
            return {(won, tied) for (won, _, tied, carried), differences
                    in carried_rounds(dealt).items()
                    if (carried == pot or not going_on) and differences >> bit & 1}
        counts = set()
        heap_points = pot if self.ties == "carry" and going_on else None
        for (one, two, heap), differences in prize_splits(played, heap_points).items():
            if not differences >> bit & 1:
                continue
            if self.ties == "discard":
                counts.add((one, heap))
                continue
            for won in range(min(one, 1), one + 1):
                for lost in range(min(two, 1), two + 1):
                    counts.add((won, rounds - won - lost))
        return counts

    # -- layer face ------------------------------------------------------------------

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors of a batch of keys that share one layer."""
        keys = np.asarray(keys, dtype=np.int64)
        k = int(self.layer_of(keys[:1])[0]) if len(keys) else 1
        row, col, succ, weight = _expand(keys, k, self._layout)
        sizes = np.full(len(keys), k, np.int64)
        return Expansion(keys, sizes, sizes.copy(), row, col, succ, weight)

    def indexed_face(self) -> LayerSource | None:
        """Return the perfect index of random prizes with ties discarded: point
        difference (``goofspiel.index``), or win/loss (``goofspiel.winloss``, every
        size up to ``MAX_CARDS`` = 13 cards); None for the other variants."""
        if not self.capabilities.independent_prizes:
            return None
        if self.returns_type == "win_loss":
            from gamedb.games.goofspiel.winloss import MAX_CARDS, WinLossIndex
            return WinLossIndex(self.num_cards, self._layout) if self.num_cards <= MAX_CARDS else None
        from gamedb.games.goofspiel.index import GoofspielIndex  # only this game uses it
        return GoofspielIndex(self.num_cards, self._layout)


def _stake(s: GoofspielState) -> int:
    return s.prize + s.pot
