"""How the dashboard starts: the profile with the flags laid over it (``tui.config.launch``), its key unlocked,
the built-in exchange started when the profile has no URL, then the app.

The built-in exchange is a process of its own (``tui.sim.process``), started first: it comes up on the other
core while this one loads Textual and the dashboard, which are imported only once it is on its way.

Everything that can fail does so before Textual takes the screen, as a ``StartupError``: one line on stderr.
"""

from __future__ import annotations

import asyncio
import gc
import sys
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
    from tui.ui.app import known_themes
    from tui.ui.bindings import binding_ids
    from tui.ui.themes import ThemeError

    try:
        themes = known_themes()
    except ThemeError as exc:
        raise StartupError(f"theme file {exc}") from None
    check_names(launch, themes, binding_ids() if launch.profile.keymap else ())  # the ids cost imports
    return launch


def dashboard_app(
    launch: Launch,
    ident: Identity,
    *,
    local_url: str | None = None,
    client: Client | None = None,
    **extra: Any,
) -> XtuiApp:
    """The app for ``launch`` as ``ident``; ``client`` (tests) replaces the one made from the profile's URLs."""
    from tui.api.client import Client
    from tui.ui.app import make_app

    profile = launch.profile
    ends = profile.endpoints(local_url)
    own = client is None
    if client is None:
        client = Client(
            ends.api,
            explorer_url=ends.explorer,
            signer=ident.signer,
            testnet=profile.testnet,
            dialect=profile.dialect,
            account=ident.account,
        )
    return make_app(
        client,
        ends.ws,
        ident.signer,
        account=ident.account,
        profile=launch.label,
        mainnet=launch.mainnet,
        demo_key=ident.demo_key,
        options=launch.options,
        fund=profile.builtin_exchange and ident.signer is not None,
        close_client=own,
        **extra,
    )


def local_exchange(launch: Launch) -> ExchangeProcess | None:
    """The built-in exchange ``launch`` asks for (none for a profile with a URL), not started yet."""
    chosen = launch.profile
    if not chosen.builtin_exchange:
        return None
    # a mirror is paper trading (``tui.sim.mirror``): its prices are the source's, so no seed plays there
    return ExchangeProcess(network=chosen.network, seed=launch.flags.seed, mirror=chosen.mirror)


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
        exchange.spawn()  # it comes up while the dashboard's modules load
    try:
        # The dashboard's imports make objects that live as long as the process: the collector is held back
        # while they load, then they are put out of its sight, so neither the imports nor the first frame's
        # many new objects set off full collections that walk every module (~60 ms of start-up).
        thresholds = gc.get_threshold()
        gc.set_threshold(100_000, *thresholds[1:])
        launch = checked(launch)  # this imports the dashboard
        gc.freeze()
        gc.set_threshold(*thresholds)
        for warning in launch.warnings:
            sys.stderr.write(warning + "\n")
        sys.stderr.flush()
        ident = identity(launch, password_env)
        try:
            local_url = exchange.wait_ready() if exchange is not None else None
        except ExchangeStartError as exc:
            raise StartupError(str(exc)) from None

        async def main() -> None:
            await dashboard_app(launch, ident, local_url=local_url).run_async()

        asyncio.run(main())
    finally:
        if exchange is not None:
            exchange.stop()
    return 0
