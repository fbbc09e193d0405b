"""The HTTP client against the real local exchange over loopback: errors, limits, nonces, pages."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ActionRejected, ApiError, ClientError, ConnectionFailed, NoSigningKey
from tui.api.http import HttpClient, NonceManager
from tui.api.signing import Signer, recover_signer


async def test_info_error_body_is_an_api_error(alice: Client) -> None:
    with pytest.raises(ApiError) as err:
        await alice.info("no_such_method", user=alice.signer.address if alice.signer else "")
    assert err.value.status == 400 and "no_such_method" in err.value.message


async def test_rejected_action_raises_with_the_server_message(alice: Client) -> None:
    with pytest.raises(ActionRejected) as err:
        await alice.place_order([wire.order_item(1, "b", "90000.05", "0.001")])
    assert "tick" in str(err.value)


async def test_place_then_list_then_cancel(alice: Client) -> None:
    assert alice.signer is not None
    ack = await alice.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="c-1")])
    assert ack.ok and ack.tx_hash.startswith("0x") and ack.address == alice.signer.address
    oid = ack.data["status"]["oid"]
    page = await alice.open_orders(alice.signer.address)
    assert [o.order_id for o in page.data] == [oid]
    assert page.data[0].cloid == "c-1" and page.data[0].limit_price == 90000
    cancelled = await alice.cancel_by_oid([(oid, 1)])
    assert cancelled.success is True
    assert (await alice.open_orders(alice.signer.address)).data == []


async def test_thousand_concurrent_signs_give_distinct_increasing_nonces() -> None:
    frozen = [1_700_000_000_000]
    nonces = NonceManager(lambda: frozen[0])  # a clock that never moves: the worst case
    signer = Signer("0x" + "22" * 32)
    async with HttpClient("http://127.0.0.1:9", signer=signer, clock_ms=lambda: frozen[0]) as c:
        c.nonces = nonces

        async def sign_one() -> int:
            await asyncio.sleep(0)
            body = c.sign("cancelAll", {})
            assert recover_signer(body["action"]["data"], 1311, body["signature"]) == signer.address
            return int(body["nonce"])

        got = await asyncio.gather(*(sign_one() for _ in range(1_000)))
    assert len(set(got)) == 1_000
    assert sorted(got) == list(range(frozen[0], frozen[0] + 1_000))


async def test_a_watch_only_client_refuses_to_sign_with_a_client_error() -> None:
    """A client with no key (pointed at a closed port, so a send would fail otherwise) is asked to sign an action
    and to add an agent: both raise ``NoSigningKey``, a ``ClientError`` (what the CLI and the screens catch and
    put in words), not the built-in ``PermissionError`` (an ``OSError``)."""
    async with Client("http://127.0.0.1:9", timeout=2) as watcher:
        with pytest.raises(NoSigningKey, match="watch-only") as signing:
            watcher.sign("cancelAll", {})
        with pytest.raises(NoSigningKey, match="watch-only"):
            await watcher.add_agent(Signer("0x" + "33" * 32), "bot", 2_000_000_000_000)
    assert isinstance(signing.value, ClientError) and not isinstance(signing.value, OSError)


async def test_concurrent_orders_are_all_accepted(alice: Client) -> None:
    acks = await asyncio.gather(*(alice.place_order([wire.order_item(1, "b", "90000", "0.001")]) for _ in range(50)))
    assert all(a.ok for a in acks)
    assert len({a.tx_hash for a in acks}) == 50


async def test_pages_iterate_every_record(alice: Client) -> None:
    assert alice.signer is not None
    for _ in range(7):
        await alice.place_order([wire.order_item(1, "b", "90000", "0.001")])
    first = await alice.open_orders(alice.signer.address, page=1, limit=3)
    assert (first.total_count, first.total_pages, first.has_next, first.has_prev) == (7, 3, True, False)
    seen = [
        o.order_id
        async for o in alice.iter_pages(type(first.data[0]), "open_orders", limit=3, user=alice.signer.address)
    ]
    assert len(seen) == len(set(seen)) == 7


async def test_unreachable_server_is_connection_failed() -> None:
    async with HttpClient("http://127.0.0.1:9", timeout=2) as c:
        with pytest.raises(ConnectionFailed):
            await c.info("ticker", symbol="all")


async def test_non_json_answer_is_an_api_error() -> None:
    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html>maintenance</html>"})

    async with HttpClient("http://test", transport=httpx.ASGITransport(app)) as c:
        with pytest.raises(ApiError, match=r"not JSON|not valid JSON"):
            await c.info("ticker", symbol="all")
