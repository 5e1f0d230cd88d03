"""The explorer page in a real browser: headless Chromium from Debian's packages, driven
by selenium (no browser is downloaded at run time; ``.ci/run`` installs ``chromium`` and
``chromium-driver`` with apt).

Screenshots go to ``$GAMEDB_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import BOOK, BUILT, G7, J8, OZ, WEB_EXTRA, Server

pytest.importorskip("starlette", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed: "
                                'pip install -e ".[web,test]"')
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="Chromium is not installed: apt-get install chromium "
    "chromium-driver (Debian's packages; .ci/run installs them)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GAMEDB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Page:
    """The explorer as a person uses it: pick a file, click actions and draws."""

    def __init__(self, driver: Any, server: Server):
        self.driver, self.server = driver, server

    def open(self, name: str, position: str = "start") -> None:
        self.driver.get("about:blank")  # a new hash alone would not reload the page
        self.driver.get(f"{self.server.url}#db={name}&position={position}")
        self.wait(lambda: self.loads() >= 1)
        assert self.text("error") == ""

    def loads(self) -> int:
        body = self.driver.find_element("tag name", "body")
        return int(body.get_attribute("data-loads") or 0) if body.get_attribute(
            "data-busy") == "0" else -1

    def wait(self, done: Any, timeout: float = 20) -> None:
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda _: done())

    def text(self, element_id: str) -> str:
        return str(self.driver.find_element("id", element_id).text)

    def rows(self, player: int) -> list[Any]:
        return list(self.driver.find_elements(
            "css selector", f'tr.action[data-player="{player}"]'))

    def click_row(self, player: int, action: int) -> None:
        self.driver.find_element(
            "css selector", f'tr.action[data-player="{player}"][data-action="{action}"]').click()

    def move(self, a1: int, a2: int, draw: int | None = None) -> None:
        """Click player 1's and player 2's action (and a draw) and wait for the position."""
        before = self.loads()
        self.click_row(1, a1)
        self.click_row(2, a2)
        if draw is not None:
            self.wait(lambda: self.driver.find_elements("css selector", "#chance:not([hidden]) button.outcome"))
            self.driver.find_elements("css selector", "button.outcome")[draw].click()
        self.wait(lambda: self.loads() > before)
        assert self.text("error") == ""

    def crumbs(self) -> list[str]:
        return [c.text for c in self.driver.find_elements("css selector", "#crumbs > *")]


@pytest.fixture
def page(browser: Any, server: Server) -> Page:
    return Page(browser, server)


def _played(server: Server, name: str, position: str, player: int) -> int:
    """An action the equilibrium plays at a position (read through the API)."""
    shown = server.get("api/show", db=name, position=position).body
    return int(max(shown["strategy"][str(player)].items(), key=lambda kv: kv[1])[0])


@pytest.mark.parametrize("name", [J8, OZ])
def test_three_clicked_moves_follow_the_rules_and_the_breadcrumb_goes_back(
        page: Page, server: Server, shots: Path, name: str) -> None:
    page.open(name)
    start = page.text("where-text")
    assert len(page.rows(1)) > 1 and page.text("value").startswith(("+", "-"))
    position = start
    for step in range(3):
        a1, a2 = _played(server, name, position, 1), _played(server, name, position, 2)
        want = server.get("api/next", db=name, position=position, a1=str(a1), a2=str(a2))
        page.move(a1, a2)
        position = page.text("where-text")
        assert position == want.body["outcomes"][0]["position"]
        assert page.text("value") == _signed(server.get("api/show", db=name, position=position).body["value"])
    assert len(page.crumbs()) == 4
    page.driver.save_screenshot(str(shots / f"serve-{name.split('_')[0]}-three-moves.png"))
    before = page.loads()
    page.driver.find_elements("css selector", "#crumbs a")[0].click()  # back to the start
    page.wait(lambda: page.loads() > before)
    assert page.text("where-text") == start and len(page.crumbs()) == 1


def test_a_chance_draw_is_clicked_like_a_move(page: Page, server: Server, shots: Path) -> None:
    page.open(G7)
    assert "chance draw" in page.text("status")
    page.driver.save_screenshot(str(shots / "serve-goofspiel-chance.png"))
    before = page.loads()
    page.driver.find_elements("css selector", "button.outcome")[6].click()  # prize=7
    page.wait(lambda: page.loads() > before)
    assert "prize=7" in page.text("where-text")
    page.move(7, 1, draw=0)  # the lowest prize left is drawn next
    assert page.text("where-text") == ("hand1=1,2,3,4,5,6 hand2=2,3,4,5,6,7 prizes=2,3,4,5,6 "
                                       "prize=1 diff=7")
    assert page.crumbs()[1:] == ["prize=7", "7 v 1, prize=1"]


def _play_the_highest_to_the_end(page: Page, seat: int, turns: int,
                                 each_turn: Callable[[], None] = lambda: None) -> None:
    """Play against the equilibrium from ``seat``, always the last row (the highest card,
    bid, move, cell or edge: a weak but legal player), for at most ``turns`` turns or
    until the game is over; ``each_turn`` checks the page before each move."""
    before = page.loads()
    page.driver.find_element("id", "play").click()
    page.wait(lambda: page.loads() > before)
    for _ in range(turns):
        page.wait(lambda: page.loads() >= 0)
        if page.text("status").startswith("Game over"):
            break
        each_turn()
        before = page.loads()
        page.rows(seat)[-1].click()
        page.wait(lambda: page.loads() > before)


@pytest.mark.parametrize("name, seat", [(J8, 1), ("nim.sqlite", 2), (G7, 2)])
def test_a_game_against_the_equilibrium_is_played_to_the_end(
        page: Page, shots: Path, name: str, seat: int) -> None:
    page.open(name)
    page.driver.find_element("css selector", f'#seat option[value="{seat}"]').click()

    def only_mine_open() -> None:
        assert page.rows(seat) and all("locked" in r.get_attribute("class")
                                       for r in page.rows(3 - seat))
    _play_the_highest_to_the_end(page, seat, 30, only_mine_open)
    status = page.text("status")
    assert status.startswith("Game over: ") and ("you win" in status or "you lose" in status
                                                 or "a draw" in status)
    assert "you played" in page.text("log-lines") and page.text("error") == ""
    if name == J8:  # every trick is in the log, the last one forced for both
        last = page.text("log-lines").splitlines()[-2]  # the tester kept card 1, as it plays high
        assert last.startswith("1 v ") and last.endswith(" (nothing to choose)"), last
    page.driver.save_screenshot(str(shots / f"serve-play-{name.split('_')[0].split('.')[0]}.png"))


def _signed(value: float) -> str:
    rounded = round(value, 4) + 0.0
    return f"{rounded:+.4f}"


def _cells(page: Page, player: int, column: int) -> dict[int, str]:
    """One column of a player's table: action -> the cell's text."""
    return {int(r.get_attribute("data-action")): r.find_elements("css selector", "td")[column].text
            for r in page.rows(player)}


def test_the_books_last_layer_shows_its_own_strategies_and_play_stops_at_its_end(
        page: Page, server: Server, shots: Path) -> None:
    page.open(BOOK)
    before = page.loads()
    page.driver.find_elements("css selector", "button.outcome")[6].click()  # prize=7
    page.wait(lambda: page.loads() > before)
    page.move(7, 7, draw=0)  # round 1 and the next prize: layer 12, the book's last (no "moves")
    position = page.text("where-text")
    shown = server.get("api/show", db=BOOK, position=position).body
    assert "moves" not in shown and page.text("error") == ""
    for fold in page.driver.find_elements("css selector", "#player1 button.fold"):
        fold.click()  # the cards never played, too
    assert sorted(_cells(page, 1, 0)) == shown["actions"]["1"]  # this position's cards
    want = {int(a): f"{100 * p:.1f}%" for a, p in shown["strategy"]["1"].items()}
    assert {a: c for a, c in _cells(page, 1, 2).items() if a in want} == want
    assert "below the opening book" in page.text("player1")
    page.driver.save_screenshot(str(shots / "serve-book-last-layer.png"))
    page.driver.find_element("id", "play").click()  # a game from the start: two rounds, then the end
    for _ in range(10):
        page.wait(lambda: page.loads() >= 0)
        if "opening book" in page.text("log-lines"):
            break
        mine = page.rows(1)
        if mine and "locked" not in (mine[-1].get_attribute("class") or ""):
            before = page.loads()
            mine[-1].click()
            page.wait(lambda: page.loads() > before)
    assert "The game stops here" in page.text("log-lines") and "opening book" in page.text("log-lines")
    assert page.text("log-lines").count("you played") == 2


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_every_file_fits_the_screen_at_phone_and_desktop_width(
        page: Page, shots: Path, width: int, height: int) -> None:
    page.driver.set_window_size(width, height)
    try:
        for name in [J8, OZ, G7, BOOK, *BUILT]:
            page.open(name)
            wide, screen = page.driver.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            page.driver.save_screenshot(str(shots / f"serve-{width}-{name.split('_')[0].split('.')[0]}.png"))
            assert wide <= screen, f"{name}: the page is {wide} px wide on a {screen} px screen"
    finally:
        page.driver.set_window_size(1280, 1000)


_TOPS = """return Array.from(document.querySelectorAll(arguments[0]),
    (e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))"""
_WORD_AND_FIRST_CARD = """return Array.from(document.querySelectorAll('#board .prizes .what'), (w) => {
    const a = w.getBoundingClientRect(), b = w.nextElementSibling.getBoundingClientRect();
    return [w.textContent, b.top <= a.top + a.height / 2 && a.top + a.height / 2 <= b.bottom];
})"""


@pytest.mark.parametrize("width, height", [(390, 844), (700, 800), (1000, 800), (1280, 800)])
def test_the_position_box_keeps_its_buttons_and_each_word_its_cards(
        page: Page, shots: Path, width: int, height: int) -> None:
    """"Start" wrapped to a row of its own when the file's name was long; on a phone
    the prizes' row broke after "left", its cards on the next line."""
    page.driver.set_window_size(width, height)
    try:
        for name in [J8, BOOK, G7]:
            page.open(name)
            tops = page.driver.execute_script(_TOPS, "#position, #go, #start")
            assert max(tops) - min(tops) <= 2, (name, width, tops)
        page.open(BOOK, "hand1=2,3,4,5,6,7,8,9,10,11,12,13%20hand2=1,3,4,5,6,7,8,9,10,11,12,13"
                        "%20prizes=1,2,4,5,6,7,8,9,10,11,12%20prize=13%20diff=-3")
        page.driver.save_screenshot(str(shots / f"prizes-{width}.png"))
        kept = page.driver.execute_script(_WORD_AND_FIRST_CARD)
        assert [word for word, _ in kept] == ["prize", "left", "taken"]
        assert all(together for _, together in kept), (width, kept)
    finally:
        page.driver.set_window_size(1280, 1000)


def test_back_and_forward_walk_the_line_and_the_address_is_the_position(page: Page, server: Server) -> None:
    page.open(J8)
    start = page.text("where-text")
    page.move(2, 2)
    first = page.text("where-text")
    page.move(4, 4)
    for go, want in ((page.driver.back, first), (page.driver.back, start), (page.driver.forward, first)):
        before = page.loads()
        go()
        page.wait(lambda: page.loads() > before)
        assert page.text("where-text") == want and page.text("error") == ""
        assert page.driver.current_url.startswith(server.url)  # never left the page
        assert "position=" + first.split()[0].replace("=", "%3D").replace(",", "%2C") in \
            page.driver.current_url if want == first else True
    assert len(page.crumbs()) == 2


def test_an_unknown_file_in_the_address_is_said_not_silently_replaced(page: Page, server: Server) -> None:
    page.driver.get("about:blank")
    page.driver.get(f"{server.url}#db=gone.sqlite&position=start")
    page.wait(lambda: page.loads() >= 1)
    assert "no served file is named \"gone.sqlite\"" in page.text("error")


def test_a_link_to_a_position_that_cannot_be_keeps_it_in_the_box_to_mend(
        page: Page, server: Server, shots: Path) -> None:
    """The box was emptied back to its placeholder, so the typo could not be mended, and
    an empty value panel stood below the error."""
    typed = "hand1=1,2 hand2=1,2 pot=0 diff=5"
    page.driver.get("about:blank")
    page.driver.get(f"{server.url}#db={J8}&position={typed.replace(' ', '%20')}")
    page.wait(lambda: page.loads() >= 1)
    assert "cannot happen" in page.text("error")
    box = page.driver.find_element("id", "position")
    assert box.get_attribute("value") == typed
    assert not page.driver.find_element("id", "summary").is_displayed()
    page.driver.save_screenshot(str(shots / "bad-link.png"))
    box.clear()
    box.send_keys("start")
    page.driver.find_element("id", "go").click()
    page.wait(lambda: page.loads() >= 2)
    assert page.text("error") == "" and page.driver.find_element("id", "summary").is_displayed()


def test_a_position_no_play_reaches_is_shown_with_why(page: Page, shots: Path) -> None:
    """A point-difference file answers any score (it is not in the key): a score the
    cards played cannot give was shown as if it could be."""
    odd = ("hand1=2,3,4,5,6,7,8,9,10,11,12,13 hand2=1,3,4,5,6,7,8,9,10,11,12,13 "
           "prizes=1,2,4,5,6,7,8,9,10,11,12 prize=13 diff=1")
    page.open(BOOK, odd.replace(" ", "%20"))
    note = page.driver.find_element("id", "unreachable")
    assert note.is_displayed() and page.text("unreachable") == (
        "No play reaches this position: diff=1 cannot happen when player 1 played 1 and "
        "player 2 2 for the prizes 3. The value is that of the position as written.")
    page.driver.save_screenshot(str(shots / "unreachable.png"))
    page.open(BOOK, odd.replace(" ", "%20").replace("diff=1", "diff=-3"))
    assert not page.driver.find_element("id", "unreachable").is_displayed()


def test_bids_never_played_fold_into_one_row_until_asked(page: Page, server: Server, shots: Path) -> None:
    page.open(OZ)
    shown = server.get("api/show", db=OZ, position="start").body
    every = len(shown["actions"]["1"])
    played = len(shown["strategy"]["1"])
    assert len(page.rows(1)) == played < every
    page.driver.save_screenshot(str(shots / "serve-oshi-folded.png"))
    fold = page.driver.find_element("css selector", "#player1 button.fold")
    assert f"show {every - played} bids never played" == fold.text
    fold.click()
    page.wait(lambda: len(page.rows(1)) == every)


def test_loss_is_never_negative_and_player_2s_value_is_its_own(page: Page, server: Server) -> None:
    page.open(J8)  # card 8 loses 0.1352 for either player: player 1's view says +0.1352 for 2
    moves = server.get("api/show", db=J8, position="start").body["moves"]
    for player in (1, 2):
        values, losses = _cells(page, player, 3), _cells(page, player, 4)
        for move in moves[str(player)]:
            own = move["value"] if player == 1 else -move["value"]
            assert values[move["action"]] == _signed(own)
            assert not losses[move["action"]].startswith("-")
            assert losses[move["action"]] == ("best" if move["loss"] < 5e-7 else f"{move['loss']:.4f}")


def _drawing(page: Page) -> Any:
    return page.driver.find_element("css selector", "#board [data-kind]")


def _texts(page: Page, selector: str) -> list[str]:
    return [e.text for e in page.driver.find_elements("css selector", f"#board {selector}")]


def test_cards_prizes_and_score_are_drawn(page: Page, shots: Path) -> None:
    page.open(G7, "hand1=1,2,3,4,5,6 hand2=2,3,4,5,6,7 prizes=2,3,4,5,6 prize=1 diff=7")
    assert _drawing(page).get_attribute("data-kind") == "cards"
    assert _texts(page, ".card.p1:not(.gone)") == ["1", "2", "3", "4", "5", "6"]
    assert _texts(page, ".card.p1.gone") == ["7"] and _texts(page, ".card.p2.gone") == ["1"]
    assert _texts(page, ".card.prize") == ["1"]
    assert _texts(page, ".card.small:not(.gone)") == ["2", "3", "4", "5", "6"]
    assert _texts(page, ".card.small.gone") == ["7"]  # taken
    assert "player 1 leads by 7" in page.text("board")
    page.driver.save_screenshot(str(shots / "serve-draw-goofspiel.png"))
    page.open(J8, "hand1=1,3,5 hand2=2,4,8 pot=0 diff=-1")
    assert _texts(page, ".card.p1:not(.gone)") == ["1", "3", "5"]
    assert "player 2 leads by 1" in page.text("board") and not _texts(page, ".card.prize")


def test_the_ring_and_coins_are_drawn(page: Page, shots: Path) -> None:
    page.open(OZ, "coins1=17 coins2=34 pos=2")
    drawing = _drawing(page)
    assert drawing.get_attribute("data-kind") == "ring"
    cell = drawing.find_element("css selector", 'rect[data-at="2"]')
    wrestler = drawing.find_element("css selector", "circle.wrestler")
    x, width = float(cell.get_attribute("x")), float(cell.get_attribute("width"))
    assert x <= float(wrestler.get_attribute("cx")) <= x + width
    assert "p1: 17 coins" in drawing.text and "p2: 34 coins" in drawing.text
    assert len(drawing.find_elements("css selector", "rect.off")) == 2
    page.driver.save_screenshot(str(shots / "serve-draw-oshi.png"))


def test_heaps_and_the_board_are_drawn(page: Page, shots: Path) -> None:
    page.open("nim.sqlite", "heaps=1,2,3 mover=2")
    heaps = page.driver.find_elements("css selector", "#board .heap")
    assert [len(h.find_elements("css selector", ".counter")) for h in heaps] == [1, 2, 3]
    assert "player 2 to move" in page.text("board")
    assert "take 1 from heap 1" in page.text("player2")  # moves named for people
    page.open("tictoe.sqlite", "board=X... mover=2")
    assert _texts(page, ".cell") == ["X", "1", "2", "3"]
    page.driver.save_screenshot(str(shots / "serve-draw-tictoe.png"))


def test_the_graph_is_drawn_with_every_edge_named(page: Page, shots: Path) -> None:
    page.open("hackenbush.sqlite", "edges=1,2,4,5,6,7 mover=2")
    drawing = _drawing(page)
    assert drawing.get_attribute("data-kind") == "graph"
    edges = drawing.find_elements("css selector", "path.edge")
    assert sorted(int(e.get_attribute("data-edge")) for e in edges) == list(range(1, 8))
    gone = [int(e.get_attribute("data-edge")) for e in edges if "gone" in e.get_attribute("class")]
    assert gone == [3]
    assert sorted(_texts(page, "text.label"), key=int) == [str(i) for i in range(1, 8)]
    assert page.text("status") == "Player 2 picks an edge."  # player 1 only passes
    page.driver.save_screenshot(str(shots / "serve-draw-hackenbush.png"))


def test_the_value_of_each_pair_of_moves_opens_as_a_matrix_on_demand(
        page: Page, server: Server, shots: Path) -> None:
    position = "hand1=1,3,5 hand2=2,4,8 pot=0 diff=-1"
    page.open(J8, position)
    assert page.driver.find_elements("css selector", "#matrix-table table") == []
    before = page.loads()
    page.driver.find_element("id", "matrix-toggle").click()
    page.wait(lambda: page.loads() > before)
    want = server.get("api/show", db=J8, position=position, matrix="1").body["matrix"]
    rows = page.driver.find_elements("css selector", "#matrix-table tbody tr")
    got = [[float(td.text) for td in r.find_elements("css selector", "td")] for r in rows]
    assert got == [[pytest.approx(v, abs=5e-4) for v in row] for row in want]
    page.driver.save_screenshot(str(shots / "serve-matrix.png"))
    page.driver.set_window_size(390, 844)  # a 50 x 50 matrix scrolls inside its box
    try:
        page.open(OZ)
        before = page.loads()
        page.driver.find_element("id", "matrix-toggle").click()
        page.wait(lambda: page.loads() > before)
        assert len(page.driver.find_elements("css selector", "#matrix-table tbody tr")) == 50
        wide, screen = page.driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide <= screen
        page.driver.save_screenshot(str(shots / "serve-390-matrix-oshi.png"))
    finally:
        page.driver.set_window_size(1280, 1000)


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("name", [J8, OZ, G7, *BUILT])
def test_every_family_is_played_to_the_end_at_phone_and_desktop_width(
        page: Page, shots: Path, name: str, width: int) -> None:
    page.driver.set_window_size(width, 844 if width < 500 else 1000)
    try:
        page.open(name)
        _play_the_highest_to_the_end(page, 1, 60)
        assert page.text("status").startswith("Game over: ") and page.text("error") == ""
        assert page.driver.find_elements("css selector", "#board [data-kind]")  # drawn to the end
        wide, screen = page.driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide <= screen
        page.driver.save_screenshot(str(shots / f"serve-{width}-end-{name.split('_')[0].split('.')[0]}.png"))
    finally:
        page.driver.set_window_size(1280, 1000)


def _click_drawn(page: Page, player: int, action: int, part: str = "") -> None:
    """Click the drawing's element of ``player``'s ``action`` (``part``: a descendant)."""
    drawn = page.driver.find_element(
        "css selector", f'#board .move[data-player="{player}"][data-action="{action}"] {part}')
    drawn.click()


def _moved_by_drawing(page: Page, server: Server, name: str, position: str,
                      clicks: list[tuple[int, int, str]]) -> None:
    """Click ``clicks`` (player, action, part) on the drawing; the position must be where
    /api/next says those actions lead (the pass of the player not on move is picked for
    them, as with the rows)."""
    page.open(name, position)
    before = page.loads()
    for player, action, part in clicks:
        _click_drawn(page, player, action, part)
    page.wait(lambda: page.loads() > before)
    chosen = {player: action for player, action, _ in clicks}
    a1, a2 = chosen.get(1, 0), chosen.get(2, 0)
    want = server.get("api/next", db=name, position=position, a1=str(a1), a2=str(a2))
    assert page.text("where-text") == want.body["outcomes"][0]["position"]
    assert page.text("error") == ""


def test_clicking_cards_heaps_cells_and_edges_on_the_drawing_plays_them(
        page: Page, server: Server, shots: Path) -> None:
    """The drawing's cards, counters, cells and edges are the moves, as the rows are."""
    position = "hand1=1,3,5 hand2=2,4,8 pot=0 diff=-1"
    page.open(J8, position)
    _click_drawn(page, 1, 5)
    picked = page.driver.find_element("css selector", '#board .move[data-player="1"][data-action="5"]')
    assert "picked" in picked.get_attribute("class")  # shown until player 2 picks too
    page.driver.save_screenshot(str(shots / "serve-draw-click-card.png"))
    _moved_by_drawing(page, server, J8, position, [(1, 5, ""), (2, 8, "")])
    # the 2nd counter of the heap of 3 takes it and the one after it: take 2 from heap 3
    _moved_by_drawing(page, server, "nim.sqlite", "heaps=1,2,3 mover=1",
                      [(1, 302, "")])
    _moved_by_drawing(page, server, "tictoe.sqlite", "board=X... mover=2", [(2, 3, "")])
    _moved_by_drawing(page, server, "hackenbush.sqlite", "edges=1,2,4,5,6,7 mover=2",
                      [(2, 7, "text")])  # the loop on the ground, by its number


def test_a_heap_counter_takes_itself_and_the_counters_after_it(page: Page) -> None:
    page.open("nim.sqlite", "heaps=1,2,3 mover=1")
    counters = page.driver.find_elements("css selector", "#board .heap")[2].find_elements(
        "css selector", ".counter")
    assert [int(c.get_attribute("data-action")) for c in counters] == [303, 302, 301]
    assert counters[1].get_attribute("title") == "take 2 from heap 3"


def test_while_playing_only_your_own_moves_on_the_drawing_are_clickable(page: Page) -> None:
    page.open(J8)
    page.driver.find_element("css selector", '#seat option[value="1"]').click()
    before = page.loads()
    page.driver.find_element("id", "play").click()
    page.wait(lambda: page.loads() > before)
    theirs = page.driver.find_elements("css selector", '#board .move[data-player="2"]')
    assert theirs and all("locked" in t.get_attribute("class") for t in theirs)
    before = page.loads()
    _click_drawn(page, 1, 8)
    page.wait(lambda: page.loads() > before)
    assert "you played 8" in page.text("log-lines")
