"""The local exchange keeps bounded history, so its memory stays flat however long it runs: blocks and their
transactions, each account's finished orders and fills, the trades of a market and the nonces of a signer.
What is forgotten answers as not found, and a forgotten nonce can never be replayed."""

from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import ALICE_KEY
from tests.sim.engine_support import ALICE, BOB, BTC, make, order
from tests.sim.signed_bodies import body, submit
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.engine.core import derived_address
from tui.sim.engine.instruments import default_config
from tui.sim.market import ROBOT_HISTORY, STEP_MS
from tui.sim.server import signed_actions
from tui.sim.server.local_exchange import LocalExchange, SimConfig


def test_blocks_transactions_and_account_history_stop_at_their_caps() -> None:
    config = dataclasses.replace(default_config(), max_blocks=30, max_txs=60, max_history=25, trades_kept=40)
    ex, clock = make(config, ALICE, BOB)
    first_hashes = []
    for i in range(200):
        ex.place_order(BOB, order(BTC, "s", 100_000, "0.001"))
        ex.place_order(ALICE, order(BTC, "b", 100_000, "0.001", tif="IOC"))
        if i % 3 == 0:
            clock.advance(500)
            ex.produce_block()
            if i < 10:
                first_hashes.extend(t.hash for t in ex.chain.blocks[-1].txs)
    chain = ex.chain
    assert len(chain.blocks) <= 30 and len(chain.txs) <= 60
    assert len(chain.by_hash) == len(chain.txs) and sum(len(d) for d in chain.by_account.values()) == len(chain.txs)
    assert first_hashes and all(chain.tx(h) is None for h in first_hashes)  # forgotten: not found
    assert chain.block(1) is None and chain.block(chain.height) is not None
    for who in (ALICE, BOB):
        acct = ex.accounts[who.lower()]
        assert len(acct.fills) == 25 and len(acct.order_history) == 25
    assert len(ex.markets[BTC].trades) == 40
    # what is kept is the newest: Alice's last fill is the last trade
    assert ex.accounts[ALICE.lower()].fills[-1] is ex.markets[BTC].trades[-1].fill


def test_the_newest_block_stays_even_when_it_alone_holds_more_than_the_cap() -> None:
    config = dataclasses.replace(default_config(), max_blocks=5, max_txs=3)
    ex, clock = make(config, ALICE)
    for _ in range(10):
        ex.place_order(ALICE, order(BTC, "b", 50_000, "0.001"))
    clock.advance(500)
    ex.produce_block()
    assert len(ex.chain.blocks) == 1 and len(ex.chain.txs) == 10


async def test_a_forgotten_nonce_can_never_be_replayed(sim: LocalExchange, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signed_actions, "NONCES_KEPT", 5)
    alice = Signer(ALICE_KEY)
    base = sim.clock.now_ms()
    signed = [body(alice, "cancelAll", {}, base + i, testnet=sim.config.network == "testnet") for i in range(8)]
    for s in signed:
        assert (await submit(sim, s))["error"] == ""
    # five kept, as the exchange answers: the newest forgotten is too old, the oldest kept already used
    assert "too old" in (await submit(sim, signed[2]))["error"]
    assert "already used" in (await submit(sim, signed[3]))["error"]
    oldest = await submit(sim, signed[0])
    assert "too old" in oldest["error"], oldest
    recent = await submit(sim, signed[-1])
    assert "already used" in recent["error"], recent
    fresh = body(alice, "cancelAll", {}, base + 100, testnet=sim.config.network == "testnet")
    assert (await submit(sim, fresh))["error"] == ""


def test_the_market_s_robots_keep_a_short_history_and_a_trader_the_whole_cap() -> None:
    """The synthetic market's maker cancels and quotes again every step: with the traders' cap (10,000 finished
    orders, and as many fills) its history alone held ~5 MB of the exchange within minutes. The robots keep
    ``ROBOT_HISTORY``, newest first as anyone's; a trader keeps ``max_history``."""
    sim = LocalExchange(SimConfig(seed=3, market=True), FrozenClock())
    engine = sim.engine
    robots = [engine.accounts[derived_address(name).lower()] for name in ("market-maker", "market-taker")]
    for _ in range(80):  # 20 s of market: a few thousand quotes cancelled
        sim.step(STEP_MS)
    maker = robots[0]
    assert len(maker.order_history) == ROBOT_HISTORY
    assert maker.order_history[-1].oid == max(o.oid for o in maker.order_history)  # the newest kept
    assert all(a.order_history.maxlen == a.fills.maxlen == ROBOT_HISTORY for a in robots)
    trader = engine.core.account(BOB)
    assert trader.order_history.maxlen == trader.fills.maxlen == engine.config.max_history > ROBOT_HISTORY
