"""``/api/solve``'s solves, in a process of their own, one at a time, each time-limited.

A solve is CPU-bound Python and compiled code: run in the server's own process it held
the interpreter's lock, and every other request waited for it (an ``/api/show`` of
15 ms took 2 s beside a 7 s solve). Here one worker process solves, one request at a
time (another gets 429 at once); it is started on the first solve (spawned, not forked
from the threaded server) and loads the compiled solver once before it says it is
ready, so a small solve takes tens of milliseconds. A solve still running after
``seconds``, or whose worker holds more than ``memory`` bytes resident (watched every
0.1 s; a quarter of the memory available when the server started, at most 4 GiB, by
default), is stopped with its worker (SIGTERM: its temporary file is removed on the
way out; SIGKILL if it does not end) and answered with a 4xx saying so; the next solve
starts a new worker.

Nothing here imports Starlette, or the solver at the top: the worker imports this
module to run ``_serve_solves``.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from pathlib import Path
from multiprocessing.connection import Connection
from typing import Any

#: Seconds an on-demand solve may run by default (``gamedb serve --solve-seconds``).
SOLVE_SECONDS = 30.0
#: Seconds a new worker may take to import and load the compiled solver.
_START_SECONDS = 120.0
#: Seconds a stopped worker gets to clean up before it is killed.
_GRACE = 5.0
#: Seconds between looks at a running solve's memory.
_WATCH = 0.1
#: The most memory a solve may hold by default, whatever the machine has.
MEMORY_CAP = 4 << 30


def default_memory() -> int:
    """The resident bytes a solve may hold: a quarter of the memory available now, at
    most ``MEMORY_CAP`` (``MEMORY_CAP`` where the system does not say)."""
    from gamedb.builder.estimate import available_memory

    available = available_memory()
    return MEMORY_CAP if available is None else min(MEMORY_CAP, available // 4)


class SolveRefused(Exception):
    """A solve that was not answered: a 4xx ``status`` and a one-line message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Solver:
    """Solve positions in a worker process, one at a time, each for at most ``seconds``."""

    def __init__(self, max_positions: int, seconds: float = SOLVE_SECONDS,
                 memory: int | None = None):
        self.max_positions = max_positions
        self.seconds = seconds
        self.memory = default_memory() if memory is None else memory
        self._busy = threading.Lock()
        self._worker: Any = None
        self._pipe: Connection | None = None

    def solve(self, spec: str, position: str) -> dict[str, Any]:
        """Return ``gamedb.subgame.solve_json(spec, position)``.

        Raises:
            SolveRefused: another solve runs (429), the solve took too long (400).
            GameError: a bad spec or position, or a subgame over the cap.
            RuntimeError: the worker failed (a bug in the solve; the worker killed).
        """
        if not self._busy.acquire(blocking=False):
            raise SolveRefused(429, "another solve is running; try again in a moment")
        try:
            pipe = self._started()
            pipe.send((spec, position, self.max_positions))
            self._watched(pipe)
            kind, payload = self._received(pipe)
        finally:
            self._busy.release()
        return _answer(kind, payload, self.max_positions)

    def _watched(self, pipe: Connection) -> None:
        """Wait for the worker's answer within the time and memory limits."""
        deadline = time.monotonic() + self.seconds
        while not pipe.poll(max(0.0, min(_WATCH, deadline - time.monotonic()))):
            held = _resident(self._worker.pid) if self._worker is not None else 0
            if held > self.memory:
                self.stop()
                from gamedb.builder.estimate import size

                raise SolveRefused(400, f"this solve needed more than {size(self.memory)} of "
                                   "memory, the server's limit, and was stopped; run gamedb "
                                   "solve SPEC POSITION on your machine")
            if time.monotonic() >= deadline:
                self.stop()
                raise SolveRefused(400, f"this solve took longer than {self.seconds:g} s, "
                                   "the server's limit, and was stopped; run gamedb solve "
                                   "SPEC POSITION on your machine (no time limit there)")

    def stop(self) -> None:
        """Stop the worker: SIGTERM, then SIGKILL after a grace (idempotent)."""
        worker, self._worker = self._worker, None
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        if worker is None:
            return
        worker.terminate()
        worker.join(_GRACE)
        if worker.exitcode is None:
            worker.kill()
            worker.join()

    def _started(self) -> Connection:
        """The pipe to a ready worker, started (and waited for) if there is none."""
        if self._pipe is not None and self._worker is not None and self._worker.is_alive():
            return self._pipe
        self.stop()
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self._worker = context.Process(target=_serve_solves, args=(theirs,), daemon=True,
                                       name="gamedb-serve-solver")
        self._worker.start()
        theirs.close()
        if not self._pipe.poll(_START_SECONDS):
            self.stop()
            raise RuntimeError(f"the solver's process was not ready in {_START_SECONDS:g} s")
        self._received(self._pipe)  # ("ready", None)
        return self._pipe

    def _received(self, pipe: Connection) -> tuple[str, Any]:
        try:
            kind, payload = pipe.recv()
        except (EOFError, OSError):
            worker = self._worker
            self.stop()
            code = worker.exitcode if worker is not None else None
            raise RuntimeError(f"the solver's process ended without an answer (exit status "
                               f"{code})") from None
        return kind, payload


def _resident(pid: int) -> int:
    """The resident bytes of process ``pid`` (0 where ``/proc`` does not say)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _answer(kind: str, payload: Any, max_positions: int) -> dict[str, Any]:
    from gamedb.games import GameError

    if kind == "game":
        raise GameError(payload)
    if kind == "too big":  # the server's cap: --max-positions is gamedb solve's option
        raise SolveRefused(400, f"{payload} the server's limit of {max_positions:,}; run "
                           "gamedb solve SPEC POSITION --max-positions N on your machine")
    if kind == "bug":
        raise RuntimeError(f"in the solver's process: {payload}")
    answer: dict[str, Any] = payload
    return answer


def _serve_solves(pipe: Connection) -> None:
    """The worker: load the solver, say ``ready``, then answer each ``(spec, position,
    max_positions)`` with ``("ok", answer)``, ``("too big", what)`` for a subgame over
    the cap (``SubgameTooBig.what``), ``("game", message)`` for another bad request or
    ``("bug", message)``, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C is the server's
    signal.signal(signal.SIGTERM, _exit_cleanly)
    import numpy as np

    from gamedb.games import GameError
    from gamedb.solver.matrix_game import solve_games
    from gamedb.subgame import SubgameTooBig, solve_json

    # load the compiled kernel once (1-2 s): matching pennies; a small solve then takes
    # tens of milliseconds
    solve_games(np.array([[[1.0, -1.0], [-1.0, 1.0]]]), np.array([2]), np.array([2]))
    try:
        pipe.send(("ready", None))
    except OSError:
        return
    while True:
        try:
            spec, position, max_positions = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            result: tuple[str, Any] = ("ok", solve_json(spec, position,
                                                        max_positions=max_positions))
        except SubgameTooBig as exc:
            result = ("too big", exc.what)
        except GameError as exc:
            result = ("game", str(exc))
        except Exception as exc:  # noqa: BLE001  (the server logs it and answers 500)
            result = ("bug", f"{type(exc).__name__}: {exc}"[:500])
        try:
            pipe.send(result)
        except OSError:  # the server stopped waiting (its limit) or has ended
            return


def _exit_cleanly(signum: int, frame: Any) -> None:
    raise SystemExit(1)  # unwinds the solve: its temporary folder is removed
