"""The rules the interface leaves open, each switchable (docs/sim-rules.md), both ways over real loopback: the
sorted-key signature, one bad order in a batch, duplicate cloids. Each test says what was tried."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests.sim.signed_bodies import HOUR_MS, body, orders, submit
from tui.api import wire
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

KEY = Signer("0x" + "5a" * 32)
BID = {"price": "90000"}  # rests below BTC-PERP's mark of 100,000


@asynccontextmanager
async def exchange(**rules: Any) -> AsyncIterator[tuple[LocalExchange, FrozenClock]]:
    """A local exchange on loopback (test network) with ``rules``, and KEY's account funded by a first action."""
    clock = FrozenClock()
    sim = LocalExchange(SimConfig(seed=7, market=False, limits=Limits(), **rules), clock)
    await sim.start()
    try:
        assert (await submit(sim, body(KEY, "cancelAll", {}, clock.now_ms(), testnet=True)))["error"] == ""
        yield sim, clock
    finally:
        await sim.stop()


def sorted_keys(value: Any) -> Any:
    """``value`` with every object's keys in sorted order, as a client that sorts them signs it."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def sorted_key_body(fields: dict[str, Any], nonce: int) -> dict[str, Any]:
    """placeOrder sent in the SDK's key order but signed over its keys sorted (what PY did for a week, §2.5)."""
    data = wire.action_data("placeOrder", {"expiresAfter": nonce + HOUR_MS, **fields}, nonce)
    signature = KEY.sign_action(sorted_keys(data), wire.tx_type("placeOrder", "sdk"), testnet=True)
    return wire.build_body("placeOrder", data, signature, "sdk")


def open_orders(sim: LocalExchange) -> list[str]:
    return sorted(o.cloid for o in sim.engine.core.accounts[KEY.address.lower()].orders.values())


async def test_a_sorted_key_signature_is_refused_by_default_and_accepted_with_the_option() -> None:
    """Tried: an order of a funded account signed over its keys sorted. By default refused in words, nothing placed
    (the old code accepted it always); with sorted_keys (--sorted-keys) placed on that account."""
    async with exchange() as (sim, clock):
        refused = await submit(sim, sorted_key_body(orders({**BID, "cloid": "s"}), clock.now_ms() + 1))
        assert refused["error"].startswith("signed over the action with its keys sorted")
        assert "--sorted-keys" in refused["error"] and open_orders(sim) == []
    async with exchange(sorted_keys=True) as (sim, clock):
        placed = await submit(sim, sorted_key_body(orders({**BID, "cloid": "s"}), clock.now_ms() + 1))
        assert placed["error"] == "" and placed["address"] == KEY.address and open_orders(sim) == ["s"]


BATCH = orders({**BID, "cloid": "good"}, {**BID, "cloid": "bad", "instrumentId": 999})


async def test_one_bad_order_refuses_the_whole_batch_by_default() -> None:
    """Tried: a batch of a good order and one on an unknown instrument, under the default all-or-nothing: refused,
    nothing placed."""
    async with exchange() as (sim, clock):
        refused = await submit(sim, body(KEY, "placeOrder", BATCH, clock.now_ms() + 1, testnet=True))
        assert "999" in refused["error"] and open_orders(sim) == []


async def test_per_order_places_the_good_orders_and_names_the_bad_one() -> None:
    """Tried: the same batch under --batch per-order: the good one placed, the bad one's slot says why."""
    async with exchange(batch="per-order") as (sim, clock):
        placed = await submit(sim, body(KEY, "placeOrder", BATCH, clock.now_ms() + 1, testnet=True))
        first, second = placed["data"]["status"]
        assert placed["error"] == "" and "oid" in first and "999" in second["error"]
        assert open_orders(sim) == ["good"]
        all_bad = orders({**BID, "instrumentId": 998}, {**BID, "instrumentId": 999})
        refused = await submit(sim, body(KEY, "placeOrder", all_bad, clock.now_ms() + 2, testnet=True))
        assert refused["error"] and open_orders(sim) == ["good"]  # every one bad: the action is refused


def cancel(cloid: str) -> dict[str, Any]:
    return {"cancels": [{"cloid": cloid, "instrumentId": 1}]}


async def test_duplicate_cloids_are_accepted_by_default_and_one_cancel_cancels_all() -> None:
    """Tried: two orders with one cloid (in two actions), then a cancel by that cloid: both rest, both go."""
    async with exchange() as (sim, clock):
        n = clock.now_ms()
        for i in (1, 2):
            assert (await submit(sim, body(KEY, "placeOrder", orders({**BID, "cloid": "dup"}), n + i, testnet=True)))[
                "error"
            ] == ""
        assert open_orders(sim) == ["dup", "dup"]
        cancelled = await submit(sim, body(KEY, "cancelByCloid", cancel("dup"), n + 3, testnet=True))
        assert len(cancelled["data"]["status"]) == 2 and open_orders(sim) == []


async def test_duplicate_cloid_refuse_names_the_open_order() -> None:
    """Tried under --duplicate-cloid refuse: a second order with an open order's cloid (refused, naming it), a batch
    repeating a cloid (the first placed, the second's slot refused), the cloid again once its order is gone (taken)."""
    async with exchange(duplicate_cloid="refuse") as (sim, clock):
        n = clock.now_ms()
        first = await submit(sim, body(KEY, "placeOrder", orders({**BID, "cloid": "dup"}), n + 1, testnet=True))
        oid = first["data"]["status"]["oid"]
        again = await submit(sim, body(KEY, "placeOrder", orders({**BID, "cloid": "dup"}), n + 2, testnet=True))
        assert again["error"] == f"cloid 'dup' is already used by open order {oid}" and open_orders(sim) == ["dup"]
        pair = orders({**BID, "cloid": "twin"}, {**BID, "cloid": "twin"})
        batch = await submit(sim, body(KEY, "placeOrder", pair, n + 3, testnet=True))
        assert "oid" in batch["data"]["status"][0] and "already used" in batch["data"]["status"][1]["error"]
        assert open_orders(sim) == ["dup", "twin"]
        assert (await submit(sim, body(KEY, "cancelByCloid", cancel("dup"), n + 4, testnet=True)))["success"]
        reused = await submit(sim, body(KEY, "placeOrder", orders({**BID, "cloid": "dup"}), n + 5, testnet=True))
        assert reused["error"] == "" and open_orders(sim) == ["dup", "twin"]


def test_the_startup_names_the_rules_chosen_away_from_their_defaults() -> None:
    """Tried: the defaults (nothing to name) and every rule switched (each named by its flag)."""
    assert SimConfig().rules_in_force() == []
    switched = SimConfig(faucet_mode="explicit", sorted_keys=True, batch="per-order", duplicate_cloid="refuse")
    assert switched.rules_in_force() == [
        "--faucet explicit",
        "--sorted-keys",
        "--batch per-order",
        "--duplicate-cloid refuse",
    ]
