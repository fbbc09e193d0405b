"""The accounts a running dashboard can switch to: the config's profiles, a session opened for one of them, and
the identities already unlocked this run (switching back to an account asks for no password again).

``session_for`` is the one place that turns a launch and an identity into a session: the command line's start
(``tui.ui.run.dashboard_app``) and every switch use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from tui.api.client import Client
from tui.api.endpoints import MAINNET, TESTNET
from tui.config.accounts import (
    AccountChoice,
    account_choices,
    builtin_key,
    needs_password,
    switch_launch,
    unlock_identity,
)
from tui.config.errors import StartupError
from tui.config.launch import Identity, Launch
from tui.config.profiles import Config
from tui.sim.process import ExchangeProcess, ExchangeStartError
from tui.ui.session import Session, open_session

__all__ = ["Accounts", "session_for"]

EXCHANGE_READY_S = 20.0  # a built-in exchange started for a switch serves within this
MIRROR_READY_S = 10.0  # a paper one has read its source within this, or says why not


def _own_key(ident: Identity) -> bool:
    """Whether the dashboard trades with the account's own key (not an agent's for another account)."""
    signer = ident.signer
    return signer is not None and (ident.account is None or ident.account.lower() == signer.address.lower())


def session_for(
    launch: Launch,
    ident: Identity,
    *,
    local_url: str | None,
    client: Client | None = None,
    close_client: bool | None = None,
    wall_clock: Callable[[], float] = time.time,
    feed_options: Mapping[str, Any] | None = None,
) -> Session:
    """The session of ``launch`` as ``ident``; ``client`` (the tests') replaces the one made from its URLs, and the
    session closes it only when ``close_client`` says so (default: only the client it makes)."""
    profile = launch.profile
    ends = profile.endpoints(local_url)
    own = client is None if close_client is None else close_client
    if client is None:
        client = Client(
            ends.api,
            explorer_url=ends.explorer,
            signer=ident.signer,
            testnet=profile.testnet,
            dialect=profile.dialect,
            account=ident.account,
        )
    return open_session(
        client,
        ends.ws,
        ident.signer,
        account=ident.account,
        profile=launch.label,
        mainnet=launch.mainnet,
        demo_key=ident.demo_key,
        options=launch.options,
        wall_clock=wall_clock,
        fund=_own_key(ident) and ends.api not in (MAINNET.api, TESTNET.api),  # the real exchange has no faucet
        close_client=own,
        feed_options=feed_options or {},
    )


class Accounts:
    """The profiles of ``config`` the dashboard started on ``started`` (as ``ident``) can switch to."""

    def __init__(
        self,
        config: Config,
        started: Launch,
        ident: Identity,
        *,
        local_url: str | None,
        wall_clock: Callable[[], float] = time.time,
        feed_options: Mapping[str, Any] | None = None,
        make_client: Callable[[Launch, Identity], Client] | None = None,
    ) -> None:
        self.config = config
        self.exchanges: dict[tuple[str, str | None], str] = {}  # built-in exchanges by ``builtin_key``: base URL
        if local_url is not None and started.profile.builtin_exchange:
            self.exchanges[builtin_key(started.profile)] = local_url
        self.spawned: list[ExchangeProcess] = []  # those started for a switch: stopped as the dashboard ends
        self.make_client = make_client  # the tests': a client on their frozen clock
        self.started = started
        self.local_url = local_url
        self.wall_clock = wall_clock
        self.feed_options = dict(feed_options or {})
        self.current = started.profile.name
        self._identities = {started.profile.name: ident}  # unlocked this run: kept in memory only, as the first

    def choices(self) -> list[AccountChoice]:
        """Every profile, the one shown now marked, each that cannot be switched to saying why."""
        listed = account_choices(self.config, self.started, self.current, self.exchanges)
        known = {name: ident.account for name, ident in self._identities.items()}  # an environment key's, say
        return [replace(c, address=c.address or known.get(c.name)) for c in listed]

    def launch(self, name: str) -> Launch:
        return switch_launch(self.config, self.started, name)

    def password_for(self, launch: Launch) -> str | None:
        """The keystore to ask a password for before ``launch`` opens (None: unlocked already, or no keystore)."""
        return None if launch.profile.name in self._identities else needs_password(launch)

    def unlock(self, launch: Launch, password: str | None) -> Identity:
        """As whom ``launch`` trades (blocking: a keystore's key derivation; run it off the UI's loop). Raises
        ``keys.WrongPassword`` or ``StartupError``."""
        known = self._identities.get(launch.profile.name)
        if known is not None:
            return known
        ident = unlock_identity(launch, password)
        self._identities[launch.profile.name] = ident
        return ident

    def exchange_for(self, launch: Launch) -> str | None:
        """The built-in exchange ``launch`` trades on, started (a paper one after it has read its source) if this
        dashboard has none like it (None: the profile has a URL). Blocking: off the UI's loop. StartupError, in
        words, when it does not start."""
        profile = launch.profile
        if not profile.builtin_exchange:
            return None
        key = builtin_key(profile)
        if key in self.exchanges:
            return self.exchanges[key]
        exchange = ExchangeProcess(
            network=profile.network, mirror=profile.mirror, mirror_max_move_pct=profile.mirror_max_move_pct
        )
        exchange.spawn()
        self.spawned.append(exchange)
        try:
            url = exchange.wait_ready(MIRROR_READY_S if profile.mirror else EXCHANGE_READY_S)
        except ExchangeStartError as exc:
            self.spawned.remove(exchange)
            exchange.stop()
            raise StartupError(f"its built-in exchange did not start: {exc}") from None
        self.exchanges[key] = url
        return url

    def exchange_for_known(self, launch: Launch) -> str | None:
        """The built-in exchange ``launch`` would trade on, if this dashboard has it already."""
        return self.exchanges.get(builtin_key(launch.profile))

    def stop_exchanges(self) -> None:
        """Tell the built-in exchanges started for switches to stop (they also end with this process)."""
        for exchange in self.spawned:
            exchange.stop_soon()

    def open(self, launch: Launch, ident: Identity) -> Session:
        """A new session for ``launch``: a client of its own, whatever exchange it is on."""
        client = self.make_client(launch, ident) if self.make_client is not None else None
        session = session_for(
            launch,
            ident,
            local_url=self.exchanges.get(builtin_key(launch.profile)),
            client=client,
            close_client=True,  # the switch made it: the app closes it as the session ends
            wall_clock=self.wall_clock,
            feed_options=self.feed_options,
        )
        self.current = launch.profile.name
        return session
