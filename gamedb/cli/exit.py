"""How the ``gamedb`` program ends: the steps of Python's exit that anyone can see, and
not the teardown that only spends time.

After a command has finished, Python's own exit frees every object of every module, one
by one: 0.15-0.35 s of CPU with the 700-900 modules a command has loaded (``gamedb show``
took 0.87 s, 0.56 s of it the command; a ``--cluster local:2`` build 0.15 s more than a
``--workers 2`` build, for Dask's modules). ``exit_now`` takes the steps of that exit
that leave a trace, in Python's order:

1. non-daemon threads are waited for (and what ``threading`` runs before: thread pools
   end their workers); a Ctrl-C meanwhile is ignored, as after every command
   (``_common._Group``: nothing is left to stop), or said in one line before it;
2. ``atexit`` functions run (``weakref.finalize`` among them: temporary files go);
3. standard output and error are flushed; a flush that fails (a closed pipe) exits with
   status 120, as Python's does;

and then ends the process with the command's status (``os._exit``). Every file the
commands write is closed by the commands themselves, never left to the teardown
(tests/test_exit.py runs commands and looks for a ``-wal`` or ``-journal`` beside the
file). Only the program does this: ``cli`` called from Python (tests, a program of
its own) returns as it always has.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

#: Python's status when the last flush of standard output fails at exit.
FLUSH_FAILED = 120


def status_of(code: object) -> int:
    """The process status for ``SystemExit(code)``, as Python gives it: None is 0, an
    integer itself, anything else is written to standard error and is 1.

    >>> status_of(None), status_of(2), status_of(True)
    (0, 2, 1)
    """
    if code is None:
        return 0
    if isinstance(code, int):
        return int(code)
    try:
        print(code, file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 1


def exit_now(code: object) -> NoReturn:
    """End the process as ``SystemExit(code)`` would, without the interpreter's teardown
    (this module's docstring). Where this Python lacks the two steps it calls, exit as
    Python does."""
    shutdown = getattr(threading, "_shutdown", None)
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if shutdown is None or run_exitfuncs is None:
        raise SystemExit(code)
    status = status_of(code)
    shutdown()
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            status = FLUSH_FAILED if status == 0 else status
    os._exit(status)


__all__ = ["FLUSH_FAILED", "exit_now", "status_of"]
