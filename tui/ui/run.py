"""How the dashboard starts: the profile with the flags laid over it (``tui.config.launch``), its key unlocked,
the built-in exchange started when the profile has no URL, then the app.

The built-in exchange is a process of its own (``tui.sim.process``), started first: it comes up on the other
core while this one loads Textual and the dashboard, which are imported only once it is on its way. Its address
is known at once, so the dashboard does not wait for it: the feed's first requests wait in its socket's queue.

Everything that can fail does so as a ``StartupError``: one line on stderr. All of it before Textual takes the
screen, but the built-in exchange's start: if that fails, the dashboard ends with what the exchange said.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tui.config.errors import StartupError
from tui.config.launch import Flags, Identity, Launch, apply_flags, check_names, identity
from tui.config.profiles import resolve
from tui.sim.process import ExchangeProcess, ExchangeStartError

if TYPE_CHECKING:
    from tui.api.client import Client
    from tui.ui.app import XtuiApp

__all__ = ["dashboard_app", "local_exchange", "prepare", "run_dashboard"]


def prepare(profile: str | None = None, flags: Flags | None = None) -> Launch:
    """The profile (``resolve``) with the flags laid over it, its theme and keymap checked by name."""
    return checked(apply_flags(resolve(profile), flags or Flags()))


def checked(launch: Launch) -> Launch:
    """``launch`` once its theme and keymap name what the dashboard knows."""
    from textual.theme import BUILTIN_THEMES

    from tui.ui.bindings import binding_ids
    from tui.ui.themes import ThemeError, known_themes

    try:
        themes = known_themes()
    except ThemeError as exc:
        raise StartupError(f"theme file {exc}") from None
    ours = [name for name in themes if name not in BUILTIN_THEMES]  # what an unknown name's error offers
    check_names(launch, themes, binding_ids() if launch.profile.keymap else (), ours)  # the ids cost imports
    return launch


def dashboard_app(
    launch: Launch,
    ident: Identity,
    *,
    local_url: str | None = None,
    client: Client | None = None,
    wall_clock: Callable[[], float] = time.time,
    feed_options: Mapping[str, Any] | None = None,
) -> XtuiApp:
    """The app for ``launch`` as ``ident``, on the one session it opens for the account. ``client``,
    ``wall_clock`` and ``feed_options`` are the tests': ``client`` replaces the one made from the profile's URLs."""
    from tui.ui.accounts import Accounts, session_for
    from tui.ui.app import XtuiApp
    from tui.ui.themes import xtui_themes

    session = session_for(
        launch, ident, local_url=local_url, client=client, wall_clock=wall_clock, feed_options=feed_options
    )
    accounts = Accounts(
        launch.settings.config, launch, ident, local_url=local_url, wall_clock=wall_clock, feed_options=feed_options
    )
    app = XtuiApp(session, themes=xtui_themes(), accounts=accounts)
    app.on_exit.append(accounts.stop_exchanges)  # those started for a switch end with the dashboard
    return app


def local_exchange(launch: Launch) -> ExchangeProcess | None:
    """The built-in exchange ``launch`` asks for (none for a profile with a URL), not started yet."""
    chosen = launch.profile
    if not chosen.builtin_exchange:
        return None
    # a mirror is paper trading (``tui.sim.mirror.source``): its prices are the source's, so no seed plays there
    return ExchangeProcess(
        network=chosen.network,
        seed=launch.flags.seed,
        mirror=chosen.mirror,
        mirror_max_move_pct=chosen.mirror_max_move_pct,
    )


FIRST_FRAME_S = 0.5  # after the feed's first snapshot, the first frame is drawn within this (~0.2 s here)
FEED_READY_WAIT_S = 5.0  # a feed not ready by then (an exchange slow or away) no longer holds the collector back
FULL_COLLECTION_EVERY_S = 2.0  # the old generation is collected this often (~2-4 ms each: the rest is frozen)


async def _collector_back_after_first_frame(app: XtuiApp, thresholds: tuple[int, int, int]) -> None:
    """Until the first frame is drawn, the collector stays held back as during the imports (its first frame's
    objects set off ~150 young collections, ~25 ms); then its thresholds come back, and what the first frame
    made to keep (the screen, its widgets and styles) is put out of its sight too."""
    import asyncio

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(FEED_READY_WAIT_S):
            await app.feed.wait_ready()
    await asyncio.sleep(FIRST_FRAME_S)
    gc.collect()  # what the first frames threw away (their strips hold themselves): frozen, it would stay for good
    gc.freeze()
    gc.set_threshold(*thresholds)


async def _collect_the_old(every_s: float) -> None:
    """A full collection every ``every_s``, for as long as the dashboard runs.

    Every strip that Textual draws holds itself (a strip cut into one piece is that strip, in its own cache), so
    only the collector frees one. A line kept for a few frames is old by the time it is replaced, and the
    collector's own full passes wait for the old generation to grow by a quarter: one in the first 20 s here,
    while ~1 MB of old lines and their cuts piled up. What notices and other widgets gone drew is let go first
    (``forget_gone_widgets``; a closed screen lets its own go as it closes)."""
    import asyncio

    from tui.ui.render.gone_widgets import forget_gone_widgets

    while True:
        await asyncio.sleep(every_s)
        forget_gone_widgets()
        gc.collect()


async def _exchange_serves(app: XtuiApp, exchange: ExchangeProcess, failed: list[str]) -> None:
    """Once the built-in exchange serves, nothing; if it cannot, the dashboard ends and ``failed`` says why."""
    try:
        await exchange.serving()
    except ExchangeStartError as exc:
        failed.append(str(exc))

        def end() -> None:
            app.exit(return_code=1)

        # Not while the main screen still mounts: the exit would take its panes away under their own on_mount.
        # The screen's queue holds this call behind its mount; a screen that takes no more calls ends it now.
        if not app.main.call_later(end):
            end()


MIRROR_READY_S = 9.0  # from its spawn: a paper exchange whose source cannot be read says so within 10 s


def _mirror_serves(exchange: ExchangeProcess, source: str) -> None:
    """Paper trading: wait, before Textual takes the screen, until the mirror has read its source; a source that
    cannot be read is one line on stderr, however stdin and stdout are connected (a dashboard up on an exchange
    that never came sat on "connecting", and on a stdin that is not a terminal spun a core for ever)."""
    try:
        exchange.wait_ready(max(2.0, MIRROR_READY_S - exchange.age_s))
    except ExchangeStartError as exc:
        said = str(exc)
        raise StartupError(said if source in said else f"{said} (paper trading on {source})") from None


def _on_a_terminal() -> None:
    """The dashboard reads keys from standard input and draws on standard error: without a terminal there, Textual
    read the end of its input for ever at most of a core and drew into a file; now it is one line instead."""
    for name, stream in (("input", sys.stdin), ("error", sys.stderr)):
        if stream is None or not stream.isatty():
            raise StartupError(
                f"the dashboard needs a terminal, and its standard {name} is not one "
                "(from a script: `xtui info`, `xtui export`, `xtui doctor`)"
            )


def run_dashboard(
    profile: str | None = None,
    *,
    url: str | None = None,
    testnet: bool = False,
    mainnet: bool = False,
    address: str | None = None,
    key_env: str | None = None,
    read_only: bool = False,
    theme: str | None = None,
    symbol: str | None = None,
    password_env: str | None = None,
    network: str | None = None,
    low_bandwidth: bool = False,
    seed: int | None = None,
) -> int:
    """Start the dashboard on ``profile`` (``--profile``; else XTUI_PROFILE, default_profile, local).

    Before Textual takes the screen: the profile's warnings are printed, and its key is unlocked (a
    keystore asks for its password here). The built-in exchange starts only for a profile without url, and
    plays the network the profile signs for, and the market of ``seed`` (``--seed``; else a fresh one).
    """
    flags = Flags(url, testnet, mainnet, address, key_env, read_only, theme, symbol, network, low_bandwidth, seed)
    launch = apply_flags(resolve(profile), flags)
    exchange = local_exchange(launch)
    if exchange is not None:
        exchange.spawn()  # it comes up while the dashboard's modules load (asyncio's the first: not before)
    import asyncio

    thresholds = gc.get_threshold()
    try:
        # The dashboard's imports make objects that live as long as the process: the collector is held back
        # while they load, then they are put out of its sight, so neither the imports nor the first frame's
        # many new objects set off full collections that walk every module (~60 ms of start-up). It stays
        # held back until the first frame is drawn (``_collector_back_after_first_frame``).
        gc.set_threshold(100_000, *thresholds[1:])
        launch = checked(launch)  # this imports the dashboard
        gc.freeze()
        for warning in launch.warnings:
            sys.stderr.write(warning + "\n")
        sys.stderr.flush()
        ident = identity(launch, password_env)
        if exchange is not None and launch.profile.mirror is not None:
            _mirror_serves(exchange, launch.profile.mirror)
        _on_a_terminal()

        async def main() -> int:
            from tui.ui.last_session import note_path, show_note
            from tui.ui.signals import SessionEnd

            app = dashboard_app(launch, ident, local_url=exchange.url if exchange is not None else None)
            ending = SessionEnd(app, note_path(launch.label))  # signals end it as q does; what was in flight is logged
            ending.install()
            tasks = [
                asyncio.create_task(_collector_back_after_first_frame(app, thresholds)),
                asyncio.create_task(_collect_the_old(FULL_COLLECTION_EVERY_S)),
                asyncio.create_task(show_note(app, ending.note)),
            ]
            if exchange is not None:
                tasks.append(asyncio.create_task(_exchange_serves(app, exchange, failed)))
                app.on_exit.append(exchange.stop_soon)
            try:
                await app.run_async()
            finally:
                for task in tasks:
                    task.cancel()
                ending.record()
                for line in app.left_resting:  # the terminal is back: said where the trader looks now
                    sys.stderr.write(f"xtui ended; on the exchange still: {line}\n")
            return ending.return_code or app.return_code or 0  # 128 + N after a signal; else as the app ended

        failed: list[str] = []  # why the built-in exchange did not start
        code = asyncio.run(main())  # a hang-up from here on is ignored (``SessionEnd.uninstall``)
        if failed:
            raise StartupError(failed[0])
    finally:
        gc.set_threshold(*thresholds)
        if exchange is not None:
            exchange.stop()
    return code
