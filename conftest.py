"""Collection settings for the whole checkout (README command 2: ``python3 -m pytest -q``).

The doctest run imports every module of ``gamedb/``. ``gamedb/web/app.py`` and
``server.py`` need the optional ``web`` extra (Starlette, uvicorn), which command 2 does
not install: without it they are left out here, as ``tests/web`` skips itself; so is
``gamedb/openspiel/policy.py`` without OpenSpiel (``tests/openspiel`` skips itself).
"""

from __future__ import annotations

import importlib

from gamedb.web import EXTRA_MODULES


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


collect_ignore = ([] if all(_importable(name) for name in EXTRA_MODULES)
                  else ["gamedb/web/app.py", "gamedb/web/server.py"])
# The OpenSpiel bridge's policy subclasses OpenSpiel's (the ``openspiel`` extra).
collect_ignore += [] if _importable("pyspiel") else ["gamedb/openspiel/policy.py"]
