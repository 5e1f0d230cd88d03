"""Agreement with an independent solver: OpenSpiel's value iteration on every state it enumerates.

OpenSpiel plays the last round by itself (positions with one card per hand never appear)
and pays ``point_difference`` as (p1 - p2) / 2 to player 1; gamedb pays p1 - p2, so its
values are compared with twice OpenSpiel's. OpenSpiel's positions carry the score, which
gamedb's ``point_difference`` keys leave out: ``diff=`` in the position banks it.

The stage games go to SciPy's HiGHS instead of OpenSpiel's ``lp_solver`` (cvxpy, which
the test extra does not install and whose default ECOS backend cvxpy no longer ships):
the enumeration, transitions and iteration stay OpenSpiel's, and HiGHS is ~10x faster.
The 4-card random runs take ~20 s each (marked slow).
"""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from openspiel_peer import value_iteration  # noqa: E402  (bench/, via conftest)

from gamedb.store import open_db  # noqa: E402


def openspiel_position(text: str, n: int) -> str:
    """Write an OpenSpiel goofspiel state string (``imp_info=False``) as a gamedb position."""
    fields = {name.strip(): value.split() for name, value in
              (line.split(":", 1) for line in text.strip().splitlines())}
    drawn = [int(c) for c in fields["Point card sequence"]]
    hand1, hand2 = fields["P0 hand"], fields["P1 hand"]
    points = [int(float(p)) for p in fields["Points"]]
    prizes = [c for c in range(1, n + 1) if c not in drawn]
    prize = f" prize={drawn[-1]}" if hand1 else ""
    return (f"hand1={','.join(hand1) or '-'} hand2={','.join(hand2) or '-'} "
            f"prizes={','.join(map(str, prizes)) or '-'}{prize} diff={points[0] - points[1]}")


CASES = [(n, order, returns) for n in (3, 4) for order in ("random", "descending", "ascending")
         for returns in ("win_loss", "point_difference")]


@pytest.mark.parametrize("n, order, returns", [
    pytest.param(*case, marks=[pytest.mark.slow] if case[:2] == (4, "random") else [])
    for case in CASES])
def test_every_openspiel_state_has_the_same_value(built, n: int, order: str, returns: str) -> None:  # type: ignore[no-untyped-def]
    game = pyspiel.load_game("goofspiel", {"num_cards": n, "points_order": order,
                                           "returns_type": returns})
    values = value_iteration("highs")[0](game, depth_limit=-1, threshold=1e-12)
    scale = 2.0 if returns == "point_difference" else 1.0
    spec = f"goofspiel(num_cards={n},points_order={order},returns_type={returns})"
    with open_db(built(spec)) as db:
        for text, value in values.items():
            position = openspiel_position(text, n)
            assert db.probe(position).value == pytest.approx(scale * value, abs=1e-7), position
    assert len(values) > 10
