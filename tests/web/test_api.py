"""The JSON API of ``gamedb serve``, through a real HTTP client against a running server."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from tests.web.conftest import G7, J8, OZ, WEB_EXTRA, Server

pytest.importorskip("starlette", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)

HAS_SUBGAME = importlib.util.find_spec("gamedb.subgame") is not None
POSITIONS = [(J8, "start"), (J8, "hand1=1,3,5 hand2=2,4,6 pot=1 diff=0"),
             (OZ, "coins1=17 coins2=34 pos=3"), (G7, "start"),
             (G7, "hand1=1,2,3,4,5,6,7 hand2=1,2,3,4,5,6,7 prizes=2,3,4,5,6,7 prize=1 diff=0"),
             ("tictoe.sqlite", "board=X... mover=2"), ("nim.sqlite", "heaps=1,2,3 mover=1")]


def _cli_json(*args: str) -> object:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_dbs_lists_every_served_file_with_its_info_and_no_directory(server: Server) -> None:
    answer = server.get("api/dbs")
    assert answer.status == 200
    listed = {d["name"]: d["info"] for d in answer.body["dbs"]}
    assert list(listed) == list(server.paths)
    for name, info in listed.items():
        assert info["path"] == name  # the server never shows where its files live
        want = _cli_json("info", str(server.paths[name]), "--json")
        assert info == want | {"path": name}  # type: ignore[operator]


@pytest.mark.parametrize("name, position", POSITIONS)
def test_show_answers_exactly_what_show_json_prints(server: Server, name: str, position: str) -> None:
    answer = server.get("api/show", db=name, position=position)
    assert answer.status == 200
    assert answer.body == _cli_json("show", str(server.paths[name]), position, "--json")


def test_next_plays_a_pair_of_actions_by_the_rules(server: Server) -> None:
    answer = server.get("api/next", db=OZ, position="coins1=50 coins2=50 pos=0", a1="7", a2="3")
    assert answer.status == 200 and answer.body["outcomes"] == [
        {"prob": 1.0, "position": "coins1=43 coins2=47 pos=1", "label": ""}]
    answer = server.get("api/next", db=G7, position=POSITIONS[4][1], a1="2", a2="1")
    labels = [o["label"] for o in answer.body["outcomes"]]
    assert answer.status == 200 and labels == [f"prize={p}" for p in range(2, 8)]
    # a spec instead of a file: the rules alone
    answer = server.get("api/next", spec="nim(heaps=1-2)", position="heaps=1,2 mover=1",
                        a1="101", a2="0")
    assert answer.body["outcomes"][0]["position"] == "heaps=0,2 mover=2"


TRICKS = ["../" + J8, "/etc/passwd", str(Path("data") / J8), "..", ".", "",
          "%2e%2e%2fetc%2fpasswd", "data/../" + J8, "\\..\\" + J8, J8 + "\x00", "~/" + J8]


@pytest.mark.parametrize("name", TRICKS)
def test_only_served_names_open_a_file(server: Server, name: str) -> None:
    answer = server.get("api/show", db=name, position="start")
    assert answer.status in (400, 404) and "error" in answer.body
    assert "root:" not in json.dumps(answer.body)


@pytest.mark.parametrize("path, params, status, message", [
    ("api/show", {"db": J8}, 400, "missing parameter 'position'"),
    ("api/show", {"position": "start"}, 400, "missing parameter 'db'"),
    ("api/show", {"db": "nope.sqlite", "position": "start"}, 404, "no served file is named"),
    ("api/show", {"db": J8, "position": "hand1=1,2 hand2=3"}, 400, "same size"),
    ("api/show", {"db": J8, "position": "hand1=1,2 hand2=3,4 pot=0 diff=7"}, 400,
     "cannot happen"),
    ("api/show", {"db": J8, "position": "hand1=9 hand2=1 pot=0 diff=0"}, 400, ""),
    ("api/show", {"db": J8, "position": "hand1=2,3,5,6,7,8 hand2=1,4,5,6,7,8 pot=2 diff=0"}, 404,
     "no play reaches it"),
    ("api/show", {"db": J8, "position": "x" * 5000}, 400, "too long"),
    ("api/show", {"db": J8, "position": "hand1=" + "9" * 900 + " hand2=1 pot=0 diff=0"}, 400, ""),
    ("api/next", {"db": J8, "position": "start", "a1": "9", "a2": "1"}, 400,
     "9 is not a legal card of player 1"),
    ("api/next", {"db": J8, "position": "start", "a1": "1"}, 400, "missing parameter 'a2'"),
    ("api/next", {"db": G7, "position": "start", "a1": "1", "a2": "1"}, 400, "chance draw"),
    ("api/next", {"spec": "tetris", "position": "start", "a1": "1", "a2": "1"}, 400,
     "unknown game"),
    ("api/next", {"spec": "jujitsu(num_cards=99)", "position": "start", "a1": "1", "a2": "1"},
     400, "out of range"),
    ("api/nothing", {}, 404, "Not Found"),
    # were silently ignored: only matrix=1 asked for it; spec won over db
    ("api/show", {"db": J8, "position": "start", "matrix": "true"}, 400,
     "parameter 'matrix' is 1 (the matrix) or 0 (none), got 'true'"),
    ("api/next", {"db": J8, "spec": "jujitsu(num_cards=4)", "position": "start", "a1": "1",
                  "a2": "1"}, 400, "give db or spec, not both"),
])
def test_bad_requests_get_a_json_error_with_a_4xx_status(server: Server, path: str, params: dict[str, str],
                                                       status: int, message: str) -> None:
    answer = server.get(path, **params)
    assert answer.status == status and message in answer.body["error"], answer.body


def test_a_method_other_than_get_is_refused_as_json(server: Server) -> None:
    request = urllib.request.Request(f"{server.url}api/dbs", data=b"x" * 100_000, method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    assert error.value.code == 405 and "error" in json.loads(error.value.read())


@pytest.mark.parametrize("size", [100_000, 2_000_000])
def test_a_huge_request_is_refused_and_the_server_lives_on(server: Server, size: int) -> None:
    with socket.create_connection(_address(server), timeout=10) as sock:
        try:
            sock.sendall(b"GET /api/show?db=x&position=" + b"a" * size + b" HTTP/1.1\r\n"
                         b"Host: x\r\n\r\n")
            head = sock.recv(200)
        except (ConnectionResetError, BrokenPipeError):
            head = b""  # the server cut the connection: refused as well
    assert head == b"" or head.split()[1] in (b"400", b"414", b"431"), head
    assert server.get("api/dbs").status == 200


def _address(server: Server) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    return host, int(port)


def test_twenty_concurrent_requests_are_all_answered_and_the_server_lives_on(server: Server) -> None:
    good = [("api/show", {"db": name, "position": pos}) for name, pos in POSITIONS]
    bad = [("api/show", {"db": "../" + J8, "position": "start"}),
           ("api/show", {"db": OZ, "position": "coins1=99 coins2=1 pos=0"}),
           ("api/next", {"db": J8, "position": "start", "a1": "x", "a2": "1"})]
    requests = (good + bad) * 2
    requests = requests[:20]
    want = {i: server.get(path, **params).body for i, (path, params) in enumerate(requests)
            if (path, params) in good}
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda r: server.get(r[0], **r[1]), requests))
    for i, answer in enumerate(answers):
        assert answer.status in (200, 400, 404), answer
        if i in want:
            assert answer.status == 200 and answer.body == want[i]
    assert server.get("api/dbs").status == 200 and server.process.poll() is None


def test_the_page_and_its_files_are_served_without_any_outside_source(server: Server) -> None:
    with urllib.request.urlopen(server.url, timeout=10) as response:
        page = response.read().decode()
        policy = response.headers["Content-Security-Policy"]
    assert "<script src=\"/static/explorer.js\"" in page and "default-src 'self'" in policy
    assert "http://" not in page and "https://" not in page
    for name in ("explorer.js", "explorer.css"):
        with urllib.request.urlopen(f"{server.url}static/{name}", timeout=10) as response:
            body = response.read().decode()
            assert response.status == 200 and body and "https://" not in body


@pytest.mark.skipif(HAS_SUBGAME, reason="gamedb.subgame is present: /api/solve answers")
def test_solve_without_the_subgame_solver_answers_501(server: Server) -> None:
    answer = server.get("api/solve", spec="jujitsu(num_cards=4)", position="start")
    assert answer.status == 501 and "gamedb.subgame" in answer.body["error"]


@pytest.mark.skipif(not HAS_SUBGAME, reason="gamedb.subgame is absent (another branch adds it)")
def test_solve_agrees_with_show_on_a_served_file(server: Server) -> None:
    position = "hand1=2,5,7 hand2=1,4,8 pot=0 diff=1"  # reachable: show answers it too
    solved = server.get("api/solve", spec="jujitsu(num_cards=8,ties=carry)", position=position)
    shown = server.get("api/show", db=J8, position=position)
    assert solved.status == 200 and solved.body["value"] == pytest.approx(shown.body["value"])
    for player in ("1", "2"):
        assert solved.body["strategy"][player].keys() == shown.body["strategy"][player].keys()


@pytest.mark.skipif(not HAS_SUBGAME, reason="gamedb.subgame is absent (another branch adds it)")
def test_solve_of_a_position_no_play_reaches_is_solve_json(server: Server) -> None:
    """As the command: answered (the file lacks it), or refused with the rules' message."""
    from gamedb.subgame import solve_json
    spec, unreachable = "jujitsu(num_cards=6)", "hand1=2,3 hand2=4,5 pot=2 diff=0"
    solved = server.get("api/solve", spec=spec, position=unreachable)
    assert solved.status == 200 and solved.body == solve_json(spec, unreachable)
    refused = server.get("api/solve", spec=spec, position="hand1=2,3 hand2=4,5 pot=1 diff=0")
    assert refused.status == 400
    assert refused.body == {"error": "pot=1 diff=0 cannot happen after 4 tricks"}


@pytest.mark.skipif(not HAS_SUBGAME, reason="gamedb.subgame is absent (another branch adds it)")
def test_solve_refuses_a_subgame_too_big_with_a_4xx(server: Server) -> None:
    """It said "... over --max-positions 200,000; raise it to solve anyway": an option
    of ``gamedb solve`` that neither ``serve`` nor the API has."""
    answer = server.get("api/solve", spec="goofspiel(num_cards=13)", position="start")
    assert answer.status == 400
    said = answer.body["error"]
    assert said.startswith("too many positions below hand1=1,2,3,4,5,6,7,8,9,10,11,12,13 ")
    assert "over the server's limit of " in said and "raise it" not in said
    assert said.endswith("; run gamedb solve SPEC POSITION --max-positions N on your machine")


def test_serve_refuses_a_file_that_is_not_a_gamedb_database(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("hello")
    result = CliRunner().invoke(cli, ["serve", str(junk), "--port", "0"])
    assert result.exit_code == 1 and "not a gamedb database" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_refuses_two_files_of_the_same_name(tmp_path: Path, served_paths: list[Path]) -> None:
    (tmp_path / "a").mkdir()
    copy = tmp_path / "a" / "tictoe.sqlite"
    copy.write_bytes(served_paths[3].read_bytes())
    result = CliRunner().invoke(cli, ["serve", str(served_paths[3]), str(copy)])
    assert result.exit_code == 2 and "two files are named tictoe.sqlite" in result.stderr


def test_serve_on_a_busy_port_is_one_line(served_paths: list[Path]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = str(busy.getsockname()[1])
        result = CliRunner().invoke(cli, ["serve", str(served_paths[3]), "--port", port])
    assert result.exit_code == 1 and "in use" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_without_the_web_extra_names_the_install_command(
        monkeypatch: pytest.MonkeyPatch, served_paths: list[Path]) -> None:
    for name in [m for m in sys.modules if m.startswith(("gamedb.web.", "uvicorn", "starlette"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed
    result = CliRunner().invoke(cli, ["serve", str(served_paths[3])])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == ('Error: gamedb serve needs the web extra (uvicorn is not '
                                     'installed): pip install -e ".[web]" (in a checkout) or '
                                     'pip install "gamedb[web]"')


def test_show_with_matrix_gives_every_pair_of_actions_and_the_moves_values_follow(server: Server) -> None:
    position = "hand1=1,3,5 hand2=2,4,8 pot=0 diff=-1"
    shown = server.get("api/show", db=J8, position=position, matrix="1").body
    rows, cols = shown["actions"]["1"], shown["actions"]["2"]
    matrix = shown["matrix"]
    assert len(matrix) == len(rows) and all(len(r) == len(cols) for r in matrix)
    y = [shown["strategy"]["2"].get(str(b), 0.0) for b in cols]
    for move, row in zip(shown["moves"]["1"], matrix):  # a move's value: its row against y
        assert move["value"] == pytest.approx(sum(v * q for v, q in zip(row, y)), abs=1e-9)
    assert "matrix" not in server.get("api/show", db=J8, position=position).body


@pytest.mark.parametrize("headers", [{"X-Big": "a" * 80_000},
                                     {f"X-H{i}": "b" * 100 for i in range(300)}])
def test_a_request_head_over_16_kib_is_refused_as_docs_api_says(
        server: Server, headers: dict[str, str]) -> None:
    """docs/api.md says "a request line and headers at most 16 KiB"; an 80,000-byte header,
    or 300 of 100 bytes, was answered 200."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{server.url}api/dbs", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 431
    said = json.loads(refused.value.read())["error"]
    assert said.startswith("the request line and headers are ") and "at most 16,384" in said
    small = urllib.request.Request(f"{server.url}api/dbs", headers={"X-Small": "c" * 1000})
    with urllib.request.urlopen(small, timeout=30) as answer:
        assert answer.status == 200


def test_serve_of_one_file_given_twice_says_so(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """It said "two files are named j4.sqlite ... copy it to another name"."""
    path = tmp_path / "j4.sqlite"
    path.symlink_to(built("jujitsu(num_cards=4)"))
    result = CliRunner().invoke(cli, ["serve", str(path), str(tmp_path / "." / "j4.sqlite"),
                                      "--port", "0"])
    assert result.exit_code == 2
    assert "is given twice (the same file); give it once" in result.stderr


def test_a_parameter_given_twice_is_refused(server: Server) -> None:
    """``db=a&db=b`` took the last one without a word."""
    import urllib.error
    import urllib.request

    url = f"{server.url}api/show?db={J8}&db={OZ}&position=start"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=30)
    assert refused.value.code == 400
    assert json.loads(refused.value.read()) == {"error": "parameter 'db' is given twice"}
