"""``gamedb serve``: a JSON API and an explorer page over strategy databases.

An optional part: it needs the ``web`` extra (``pip install -e ".[web]"``: Starlette and
uvicorn), and nothing outside this package imports it (``tests/test_layers.py``). The
API's shapes are in ``docs/api.md``; ``app.py`` holds the routes, ``server.py`` runs them.
"""

from __future__ import annotations

#: The modules of the ``web`` extra; ``gamedb serve`` names the extra when one is missing.
EXTRA_MODULES = ("starlette", "uvicorn", "anyio")

#: How to install them, for the one-line error.
INSTALL = 'pip install -e ".[web]" (in a checkout) or pip install "gamedb[web]"'
