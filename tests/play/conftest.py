"""Small games and agents shared by the play tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from gamedb.games.base import Game
from gamedb.play.agents import Policy

SMALL_GAMES = [
    "jujitsu(num_cards=3)", "jujitsu(num_cards=4)", "jujitsu(num_cards=5)",
    "jujitsu(num_cards=4,ties=discard)",
    "oshi_zumo(coins=4,size=1)", "oshi_zumo(coins=5,size=2)", "oshi_zumo(coins=4,size=2,min_bid=0)",
    "goofspiel(num_cards=3)", "goofspiel(num_cards=4)",
    "goofspiel(num_cards=4,returns_type=point_difference)",
    "goofspiel(num_cards=4,points_order=descending,ties=carry)",
]


class Scrambled:
    """An arbitrary Markov agent: a pseudo-random mix (or pure action) per state."""

    def __init__(self, seed: int, pure: bool):
        self.seed, self.pure = seed, pure
        self.name = f"scrambled-{seed}{'-pure' if pure else ''}"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        acts = game.actions(state)[player - 1]
        rng = np.random.default_rng([self.seed, player, abs(hash(state)) % 2**62])
        if self.pure:
            return {acts[int(rng.integers(len(acts)))]: 1.0}
        weights = rng.random(len(acts)) ** 3
        return {a: float(w / weights.sum()) for a, w in zip(acts, weights)}
