"""Taking back a resting order for good: cancel it by its cloid, then read from the exchange's record that it is
closed and what it filled, before anything else is sent.

The cancel's answer alone does not settle it: a refusal may mean the order filled in the meantime, a lost answer
may or may not have cancelled it. So the record is asked after every cancel; an order the record still holds open
is cancelled again. ``Withdrawn`` carries what the record says it filled. Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError

from .settle import Settled, Unsettled, settle_order

__all__ = ["withdraw_order"]


async def withdraw_order(
    client: Client,
    account: str,
    cloid: str,
    instrument_id: int,
    *,
    expires_ms: int,
    wait: Callable[[float], Awaitable[bool]],
    retry_s: float,
    on_wait: Callable[[str], None],
) -> Settled | None:
    """Cancel the order ``cloid`` (signed to expire at ``expires_ms``) until the record shows it closed; its
    settled record, or None when ``wait`` (between tries) says to give up first. ``on_wait`` hears why it is
    not settled yet, each time."""
    cancel = True
    while True:
        if cancel:
            try:
                await client.cancel_by_cloid([(cloid, instrument_id)])
            except AccountMismatch as exc:
                on_wait(f"cancel refused: {exc}")
            except ActionRejected:
                pass  # not open any more (filled, or cancelled already): the record says which
            except ClientError as exc:
                on_wait(f"cancel unconfirmed ({exc})")
        try:
            settled = await settle_order(client, account, cloid, expires_ms=expires_ms)
        except Unsettled as exc:
            on_wait(f"cancel unconfirmed: {exc.reason}")
            cancel = False  # nothing known: ask the record again before cancelling again
        else:
            if not settled.open:
                return settled
            on_wait("still open after its cancel: cancelling again")
            cancel = True
        if not await wait(retry_s):
            return None
