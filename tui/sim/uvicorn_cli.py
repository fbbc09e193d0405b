"""uvicorn without its command line, for the exchange ``xtui`` starts (``python -m tui.sim``).

``import uvicorn`` loads ``uvicorn.main``, its command line: click, and the reload and worker supervisors with
multiprocessing (~12 ms of the exchange's start, ~0.7 MB it keeps), none of which the exchange runs: it serves
with ``uvicorn.Server`` and ``uvicorn.Config``. While the package loads, ``uvicorn.main`` is a stand-in that
gives it the real ``Server`` and a ``main`` and ``run`` that say they are not here; a later ``import
uvicorn.main`` loads the real module. Should the package ever ask the stand-in for more, it loads as usual.
"""

from __future__ import annotations

import sys
import types
from typing import Any, NoReturn

__all__ = ["load_uvicorn_without_its_command_line"]


def _not_here(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("uvicorn's command line is not loaded in xtui's exchange")


def _stand_in() -> types.ModuleType:
    module = types.ModuleType("uvicorn.main")

    def attribute(name: str) -> Any:
        if name == "Server":  # the package's own import of it: the real one
            from uvicorn.server import Server

            return Server
        raise AttributeError(name)

    vars(module).update(__getattr__=attribute, main=_not_here, run=_not_here)
    return module


def load_uvicorn_without_its_command_line() -> None:
    """Import ``uvicorn`` (once; nothing if it is loaded already) without ``uvicorn.main``."""
    if "uvicorn" in sys.modules:
        return
    stand_in = sys.modules["uvicorn.main"] = _stand_in()
    try:
        import uvicorn
    except ImportError:  # a uvicorn that wants more of its command line: load it whole
        for name in [n for n in sys.modules if n == "uvicorn" or n.startswith("uvicorn.")]:
            del sys.modules[name]
        import uvicorn  # noqa: F401
    finally:
        if sys.modules.get("uvicorn.main") is stand_in:
            del sys.modules["uvicorn.main"]
