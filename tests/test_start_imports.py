"""What the dashboard's first frame does not need is not imported before it: the data screens (and plotext,
which the account screen's chart brings) load when first opened. Start-up time is a figure of ``xtui bench``;
this test keeps the imports that cost it from creeping back."""

from __future__ import annotations

import subprocess
import sys

LATER = [
    "tui.ui.screens.account",
    "tui.ui.screens.wallet",
    "tui.ui.screens.explorer",
    "plotext",
    "tui.sim.engine",
    "textual.widgets._text_area",  # no screen of xtui's has one; it brought its document model and tree-sitter
]


def _run(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter (this one has imported everything already)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_the_dashboard_module_leaves_the_data_screens_for_later() -> None:
    out = _run(f"import sys, tui.ui.app; print(' '.join(m for m in {LATER!r} if m in sys.modules))")
    assert out.split() == [], f"imported before the first frame: {out}"


def test_a_data_screen_still_opens_its_module_on_demand_and_plotext_waits_for_a_chart() -> None:
    """The screens' classes are read for their keys soon after the start (the palette, the help): that loads the
    screens, not plotext (~1.6 MB the dashboard kept for good), which comes with the first chart shown."""
    out = _run(
        "import sys; from tui.ui.screens.catalogue import screen_classes as s; s()\n"
        "print('tui.ui.screens.account' in sys.modules, 'plotext' in sys.modules)\n"
        "from tui.ui.screens.account_chart import plot_class; plot_class(); print('plotext' in sys.modules)"
    )
    assert out.split() == ["True", "False", "True"]  # the checks would pass vacuously if plotext were gone


def _imported_when_serving(start: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` the exchange has imported by the time it would serve: ``start`` runs as a user runs
    it, up to ``asyncio.run`` of the server, which prints them instead."""
    return _run(
        "import asyncio, sys\n"
        "def serve(coro):\n"
        "    coro.close()\n"
        f"    print(' '.join(m for m in {modules!r} if m in sys.modules))\n"
        "asyncio.run = serve\n" + start
    ).split()


def test_the_exchange_leaves_the_mirror_and_its_http_client_for_paper_trading() -> None:
    """``xtui sim`` (and the exchange ``xtui`` starts) is up ~170 ms sooner without them."""
    start = "from tui.cli.main import main\nmain(['sim', '--port', '0', '--seed', '7'])\n"
    out = _imported_when_serving(start, ("httpx", "tui.sim.mirror.source"))
    assert out == [], f"imported by the exchange: {out}"


def test_the_dashboard_s_exchange_starts_without_the_rest_of_the_command_line() -> None:
    """The exchange ``xtui`` starts runs as ``python -m tui.sim``: its profiles, its config and its other
    commands are the dashboard's business (~30 ms of the exchange's start, before it answers the dashboard)."""
    start = "import runpy\nsys.argv = ['tui.sim', '--seed', '7']\nrunpy.run_module('tui.sim', run_name='__main__')\n"
    later = ("tui.cli.main", "tui.config.launch", "tui.config.profiles", "httpx", "tui.sim.mirror.source")
    out = _imported_when_serving(start, later)
    assert out == [], f"imported by the exchange: {out}"


def test_the_xtui_command_leaves_httpx_s_own_command_line_client_out() -> None:
    """httpx brings its CLI (click, pygments' lexers) when they are installed; xtui does not run it."""
    out = _run(
        "import sys\n"
        "import tui.cli.main, tui.ui.app, httpx\n"
        "print(' '.join(m for m in ('httpx._main', 'click', 'pygments.lexers') if sys.modules.get(m)))\n"
        "print(callable(httpx.main), callable(httpx.AsyncClient))\n"
    )
    assert out.split() == ["True", "True"], f"imported: {out}"


def test_the_dashboard_defines_no_dataclass_on_its_way_to_the_first_frame() -> None:
    """A dataclass is made by compiling its methods as its module is imported (~1 ms each for a frozen, slotted
    one; a msgspec Struct ~0.02 ms): the ~60 records the dashboard imports before its first frame are Structs.
    (Textual and Rich define ~50 of their own, which are not xtui's to change.)"""
    out = _run(
        "import dataclasses, sys\n"
        "made = []\n"
        "plain = dataclasses._process_class\n"
        "def process(cls, *args):\n"
        "    made.append(f'{cls.__module__}.{cls.__qualname__}')\n"
        "    return plain(cls, *args)\n"
        "dataclasses._process_class = process\n"
        "import tui.cli.main, tui.ui.run, tui.ui.app\n"
        "print(' '.join(m for m in made if m.startswith('tui.')))"
    )
    assert out.split() == [], f"dataclasses defined on the way to the first frame: {out}"


def test_the_dashboard_s_command_line_leaves_the_other_commands_flags_for_them() -> None:
    """``xtui`` parses its flags before it spawns the built-in exchange: the flags of ``xtui sim`` and
    ``xtui export`` brought the matching engine's rules and the CSV writer into every start (~30-60 ms)."""
    later = ("tui.sim.options", "tui.sim.engine", "tui.cli.export")
    out = _run(
        "import sys\n"
        "from tui.cli.main import build_parser\n"
        "build_parser().parse_args(['--seed', '7'])\n"
        f"print(' '.join(m for m in {later!r} if m in sys.modules))\n"
    )
    assert out.split() == [], f"imported to parse the dashboard's flags: {out}"


def test_the_other_commands_still_parse_their_own_flags() -> None:
    """Their flags, defaults, help and errors are all there once the command is named."""
    from tui.cli.main import build_parser

    sim = build_parser().parse_args(["sim", "--seed", "3", "--quiet-market"])
    assert (sim.command, sim.seed, sim.quiet_market, sim.host) == ("sim", 3, True, "127.0.0.1")
    export = build_parser().parse_args(["export", "fills", "--json"])
    assert (export.command, export.kind) == ("export", "fills")
    said = subprocess.run(
        [sys.executable, "-m", "tui", "sim", "--port", "x"], capture_output=True, text=True, check=False
    )
    assert said.returncode == 2 and said.stderr.startswith("xtui sim: error: --port: "), said.stderr
    helped = _run("from tui.cli.main import main\nmain(['export', '--help'])\n")
    assert "--since DATE" in helped


def test_the_dashboard_spawns_its_exchange_before_it_loads_asyncio_and_textual() -> None:
    """The built-in exchange comes up on the other core while the dashboard loads: each module loaded before
    the spawn delays it. asyncio (with ssl, ~25 ms) was loaded by the command line first; it waits now."""
    later = ("asyncio", "ssl", "textual", "httpx", "tui.sim.options")
    out = _run(
        "import os, sys\n"
        "import tui.sim.process as process\n"
        "def spawn(self):\n"
        f"    print(' '.join(m for m in {later!r} if m in sys.modules))\n"
        "    os._exit(0)\n"
        "process.ExchangeProcess.spawn = spawn\n"
        "from tui.cli.main import main\n"
        "main(['--seed', '7'])\n"
    )
    assert out.split() == [], f"loaded before the exchange is spawned: {out}"


def test_the_dashboard_s_exchange_serves_without_uvicorn_s_command_line() -> None:
    """``import uvicorn`` brought its command line (click, the supervisors, multiprocessing): ~12 ms of the
    exchange's start and ~0.7 MB it kept, for a command line it never runs."""
    start = "import runpy\nsys.argv = ['tui.sim', '--seed', '7']\nrunpy.run_module('tui.sim', run_name='__main__')\n"
    out = _imported_when_serving(start, ("uvicorn.main", "click", "multiprocessing"))
    assert out == [], f"imported by the exchange: {out}"


def test_uvicorn_s_command_line_still_loads_when_asked_for() -> None:
    """The stand-in is gone once uvicorn has loaded: whoever imports ``uvicorn.main`` later gets the real one,
    and ``uvicorn.Server`` is the real server either way."""
    out = _run(
        "from tui.sim.uvicorn_cli import load_uvicorn_without_its_command_line as load\n"
        "load()\n"
        "import uvicorn, uvicorn.server\n"
        "print(uvicorn.Server is uvicorn.server.Server)\n"
        "import uvicorn.main\n"
        "print(type(uvicorn.main.main).__module__.split('.')[0], uvicorn.main.Server is uvicorn.Server)\n"
    )
    assert out.split() == ["True", "click", "True"], out
