"""At start, what an earlier run of xtui left on the exchange, once the account has loaded.

- Each trailing stop kept on disk (``tui.trading.tool_book``) whose stop the exchange still shows resting (found by
  its cloid) is offered once: resume it (Enter, the default), or leave the stop where it is, moved by no one. One
  whose stop is gone (it fired, or was cancelled while xtui was away) is said, and forgotten.
- Each kept OCO whose take-profit and stop both rest is offered once: link them again (Enter, the default), or leave
  both as they are, unlinked ("OCO TP (not running)" / "OCO stop (not running)"). One with a single leg resting is
  not offered: the pair cannot be what it was (the other leg filled or was cancelled while xtui was away), so it is
  said, with the leg that stays (unlinked, shown "(not running)", where ``x`` cancels it), and forgotten. One with
  neither leg resting is said, and forgotten. A trailing stop or a leg killed in the middle of a move or a resize
  is found by the order it was sending (kept before it was sent): that order, when it rests, is the stop or the
  leg; a leg's old order resting beside it is named in the question and stays, unlinked.
- Each open order of an *entry* tool (a chase's) that no tool of this run keeps, left by a crash, is offered once:
  cancel it (Enter, the default), or keep it. Kept, it shows as "chase (not running)" in the open orders, where
  ``x`` cancels it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tui.api.errors import ClientError
from tui.api.models import Order
from tui.trading.outcomes import describe_order
from tui.trading.tool_book import KeptOco
from tui.trading.tool_forms import tool_of
from tui.ui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from tui.ui.session import Session
    from tui.ui.shell import Shell

__all__ = ["ENTRY_TOOLS", "offer_resume"]

log = logging.getLogger("tui.ui")
ENTRY_TOOLS = frozenset({"chase"})  # their orders are entries: withdrawn on every exit xtui handles


async def offer_resume(app: Shell, session: Session) -> None:
    """Offer to resume the kept trailing stops and OCOs, and to cancel what an entry tool left (see the module)."""
    if session.account is None or session.trails is None:
        return
    if session.tool_book.problem:
        app.notify(session.tool_book.problem, title="Order tools", severity="warning", timeout=20, markup=False)
    by_cloid = {o.cloid: o for o in session.feed.state.account.open_orders if o.cloid}
    trails = session.trails
    for kept in session.tool_book.of(session.account):
        sent = [kept.cloid] + ([kept.placing.cloid] if kept.placing is not None else [])
        resting = {cloid: by_cloid[cloid].order_id for cloid in sent if cloid in by_cloid}
        if not resting:
            said = f"{kept.words()}: its stop rests no more (it fired, or was cancelled while xtui was away)"
            log.warning("not resumed: %s", said)
            app.notify(f"Not resumed: {said}.", title="Trailing stops", severity="warning", timeout=15, markup=False)
            continue
        lines = [
            kept.words() + ".",
            "Resume (Enter): xtui goes on moving its stop as the price runs your way.",
            "Leave it (n): the stop stays on the exchange where it is, and nothing moves it.",
        ]
        question = ConfirmScreen(
            f"Resume trailing stop {kept.id} on {kept.spec.symbol}?", lines, yes="Resume (y)", no="Leave it (n)",
            default=True,
        )  # fmt: skip
        if await app.push_screen_wait(question) is True:
            trail = trails.resume(kept, resting)
            app.log_event("trail", f"Trailing stop {trail.id}: resumed from an earlier run: {kept.words()}")
        else:
            app.notify(f"Left: {kept.words()}; nothing moves it.", title="Trailing stops", markup=False)
    try:
        session.tool_book.keep(session.account, trails.kept())  # only what runs now is offered next time
    except OSError as exc:
        log.warning("trailing stops not kept on disk: %s", exc)
    await _offer_ocos(app, session, session.account, by_cloid)
    await _offer_cancel(app, session, _strays(session))


async def _offer_ocos(app: Shell, session: Session, account: str, by_cloid: dict[str, Order]) -> None:
    ocos = session.ocos
    if ocos is None:
        return
    for kept_as_left in session.tool_book.ocos_of(account):
        kept, replaced_cloids = kept_as_left.as_resting(by_cloid)
        replaced = [by_cloid[cloid] for cloid in replaced_cloids]
        tp, stop = (by_cloid.get(leg.cloid) for leg in kept.legs)
        if tp is None or stop is None:
            _not_resumable(app, kept, tp is not None, stop is not None)
            continue
        lines = [
            kept.words() + ".",
            "Resume (Enter): xtui links them again: when one fills it withdraws or reduces the other, and it follows"
            " the position.",
            "Leave them (n): both stay on the exchange as they are, and nothing links them.",
        ]
        lines += [
            f"Also resting: {describe_order(o)} ({o.cloid}), the order a resize was replacing when xtui stopped: it"
            " stays, not linked (x cancels it)."
            for o in replaced
        ]
        question = ConfirmScreen(
            f"Resume OCO {kept.id} on {kept.symbol}?", lines, yes="Resume (y)", no="Leave them (n)", default=True
        )
        if await app.push_screen_wait(question) is True:
            oco = ocos.resume(kept, (tp, stop))
            app.log_event("oco", f"OCO {oco.id}: resumed from an earlier run: {kept.words()}")
        else:
            app.notify(f"Left: {kept.words()}; nothing links its orders.", title="OCO", markup=False)
    try:
        session.tool_book.keep_ocos(account, ocos.kept())  # only what runs now is offered next time
    except OSError as exc:
        log.warning("OCOs not kept on disk: %s", exc)


def _not_resumable(app: Shell, kept: KeptOco, tp: bool, stop: bool) -> None:
    """A kept pair with a leg gone: said (with what stays), and forgotten."""
    if not tp and not stop:
        said = f"{kept.words()}: neither of its orders rests any more (filled, or cancelled while xtui was away)"
    else:
        gone, stays, short = ("take-profit", "stop", "stop") if stop else ("stop", "take-profit", "TP")
        said = (
            f"{kept.words()}: its {gone} rests no more (filled, or cancelled while xtui was away); its {stays} stays"
            f" on the exchange, not linked, shown 'OCO {short} (not running)', where x cancels it"
        )
    log.warning("not resumed: %s", said)
    app.notify(f"Not resumed: {said}.", title="OCO", severity="warning", timeout=20, markup=False)


def _strays(session: Session) -> list[Order]:
    owned = session.owned_cloids()
    return [
        o
        for o in session.feed.state.account.open_orders
        if o.cloid and o.cloid not in owned and tool_of(o.cloid) in ENTRY_TOOLS
    ]


async def _offer_cancel(app: Shell, session: Session, strays: list[Order]) -> None:
    if not strays:
        return
    lines = [f"  {tool_of(o.cloid)}: {describe_order(o)}" for o in strays[:8]]
    lines += [f"  and {len(strays) - 8} more"] if len(strays) > 8 else []
    lines.append("No tool of this run manages them: cancel them (Enter), or keep them (n) as they are.")
    question = ConfirmScreen(
        f"{len(strays)} order(s) of an earlier run's tools rest", lines, yes="Cancel them (y)", no="Keep (n)",
        default=True,
    )  # fmt: skip
    if await app.push_screen_wait(question) is not True:
        return
    try:
        await session.client.cancel_by_oid([(o.order_id, o.instrument_id) for o in strays])
    except ClientError as exc:
        app.notify(f"Not cancelled: {exc}; see Open orders", severity="error", timeout=15, markup=False)
        return
    app.notify(f"Cancelled {len(strays)} order(s) left by an earlier run's tools", markup=False)
