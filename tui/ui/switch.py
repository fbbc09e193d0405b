"""Switching account in place (``@`` and the palette): the profile chosen, the production exchange confirmed, the
client-side tools still running kept or stopped, the key unlocked (a keystore's password asked for in a dialog),
then the new session taken whole (``XtuiApp.switch_session``). Escape at any step leaves the account as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from tui import keys
from tui.config.errors import StartupError
from tui.config.launch import Identity
from tui.ui import order_tools
from tui.ui.screens.accounts import AccountsScreen, PasswordScreen, RunningTool, RunningToolsScreen
from tui.ui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from tui.config.launch import Launch
    from tui.ui.accounts import Accounts
    from tui.ui.session import Session
    from tui.ui.shell import Shell

__all__ = ["running_tools", "switch_account"]


async def switch_account(app: Shell, accounts: Accounts) -> None:
    """Ask which account, and switch to it; every refusal and cancel is said in a notification."""
    name = await app.push_screen_wait(AccountsScreen(accounts.choices()))
    if name is None:
        return
    choice = next(c for c in accounts.choices() if c.name == name)
    if choice.current:
        app.notify(f"Already trading as {app.session.profile}", timeout=3)
        return
    if choice.unavailable:
        app.notify(f"Cannot switch to {name}: {choice.unavailable}", severity="error", timeout=20, markup=False)
        return
    if app.session.desk.in_flight:  # its answer would reach a screen that is gone: wait for it
        app.notify("An order is being sent: switch once it is answered", severity="warning", markup=False)
        return
    try:
        launch = accounts.launch(name)
    except StartupError as exc:
        app.notify(f"Cannot switch to {name}: {exc}", severity="error", timeout=20, markup=False)
        return
    if launch.mainnet:
        lines = ["The production exchange: real money. The header turns red while it is shown."]
        if not await app.push_screen_wait(ConfirmScreen(f"Trade as {launch.label}?", lines)):
            return
    tools = running_tools(app.sessions())
    stop = False
    if tools:
        answer = await app.push_screen_wait(RunningToolsScreen(launch.label, tools))
        if answer is None:
            return
        stop = answer == "stop"
    ident = await _identity(app, accounts, launch)
    if ident is None:
        app.notify(f"Still trading as {app.session.profile}", timeout=4, markup=False)
        return
    if launch.profile.builtin_exchange and accounts.exchange_for_known(launch) is None:
        app.notify(f"Starting the built-in exchange for {launch.label}…", timeout=5, markup=False)
    try:
        await asyncio.to_thread(accounts.exchange_for, launch)
    except StartupError as exc:
        app.notify(f"Cannot switch to {name}: {exc}", severity="error", timeout=30, markup=False)
        return
    try:
        session = accounts.open(launch, ident)
    except (ValueError, StartupError) as exc:
        app.notify(f"Cannot switch to {name}: {exc}", severity="error", timeout=20, markup=False)
        return
    if stop:  # only once nothing can stop the switch any more
        await app.stop_tools()
    await app.switch_session(session)
    kept = f"; {len(tools)} tool(s) go on as their own account" if tools and not stop else ""
    app.notify(f"Trading as {launch.label}{kept}", timeout=5, markup=False)


async def _identity(app: Shell, accounts: Accounts, launch: Launch) -> Identity | None:
    """As whom ``launch`` trades: a keystore asks for its password until it unlocks or is cancelled (None)."""
    keystore = accounts.password_for(launch)
    if keystore is not None:
        unlock = partial(accounts.unlock, launch)
        return await app.push_screen_wait(PasswordScreen(launch.label, keystore, unlock))
    try:
        return await asyncio.to_thread(accounts.unlock, launch, None)
    except (StartupError, keys.KeystoreError) as exc:
        app.notify(f"Cannot switch to {launch.label}: {exc}", severity="error", timeout=20, markup=False)
        return None


def running_tools(sessions: Sequence[Session]) -> list[RunningTool]:
    """The order tools still trading, in every session shown, each job with its account."""
    return [
        RunningTool(job.tool, job.id, s.profile, s.account, job.progress)
        for s, _, jobs in order_tools.running_tools(sessions)
        for job in jobs
    ]
