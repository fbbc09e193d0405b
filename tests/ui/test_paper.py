"""The dashboard on a mirror (paper trading): the header says PAPER, and says when the source stops answering."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal

from tests.conftest import ALICE_KEY, client_for
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange
from tui.ui.widgets.header import ProfileHeader


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def paper(clock: FrozenClock) -> AsyncIterator[tuple[LocalExchange, LocalExchange]]:
    """A source exchange on loopback (no market of its own, BTC-PERP's index at 100,000) and a mirror of it on
    ``clock``, a step in; both stopped at the end."""
    source = LocalExchange(SimConfig(port=_free_port(), seed=3, market=False), FrozenClock())
    await source.start()
    source.engine.set_index_price("BTC-PERP", Decimal(100_000))
    source.advance()
    mirror = await open_exchange(SimConfig(seed=5, mirror=source.url), clock)
    await mirror.start()
    try:
        mirror.step(250)
        yield source, mirror
    finally:
        await mirror.stop()
        await source.stop()


async def test_the_header_says_paper_and_when_the_source_is_down(clock: FrozenClock) -> None:
    async with paper(clock) as (source, mirror), client_for(mirror, ALICE_KEY, clock) as client:
        app = dashboard(client, mirror, clock, Signer(ALICE_KEY))
        async with app.run_test(size=(140, 40)) as pilot:
            header = app.main.query_one(ProfileHeader)
            await settle(pilot, lambda: "PAPER" in str(header.render()), what="PAPER in the header")
            assert "source down" not in str(header.render())

            await source.stop()
            assert not await mirror.poll_mirror()
            mirror.step(4_000)
            await settle(pilot, lambda: "source down" in str(header.render()), what="the outage in the header")
            assert " PAPER  ⚠ source down 4s " in str(header.render())


async def test_an_exchange_that_is_no_mirror_shows_no_paper_badge(clock: FrozenClock) -> None:
    sim = LocalExchange(SimConfig(seed=5, market=False), clock)
    await sim.start()
    try:
        async with client_for(sim, ALICE_KEY, clock) as client:
            app = dashboard(client, sim, clock, Signer(ALICE_KEY))
            async with app.run_test(size=(140, 40)) as pilot:
                await feed_ready(app)
                await settle(pilot, lambda: app.feed.state.status.connection == "live", what="live")
                assert app.feed.state.status.paper is None
                assert "PAPER" not in str(app.main.query_one(ProfileHeader).render())
    finally:
        await sim.stop()


async def test_the_header_says_which_instrument_is_held_and_why(clock: FrozenClock) -> None:
    """The source's ticker leaves out BTC-PERP: the header says BTC-PERP is held, and why, while the source answers."""
    from tests.sim.test_mirror_sanity import TickerRewrite, without

    source = LocalExchange(SimConfig(port=_free_port(), seed=3, market=False), FrozenClock())
    proxy = TickerRewrite(source.app)
    source.app = proxy
    await source.start()
    mirror = await open_exchange(SimConfig(seed=5, mirror=source.url), clock)
    await mirror.start()
    try:
        mirror.step(250)
        async with client_for(mirror, ALICE_KEY, clock) as client:
            app = dashboard(client, mirror, clock, Signer(ALICE_KEY))
            async with app.run_test(size=(160, 40)) as pilot:
                header = app.main.query_one(ProfileHeader)
                await settle(pilot, lambda: "PAPER" in str(header.render()), what="PAPER in the header")
                proxy.rewrite = without("BTC-PERP")
                assert await mirror.poll_mirror()
                await settle(pilot, lambda: "held" in str(header.render()), what="the hold in the header")
                assert "⚠ held: BTC-PERP: missing in the source's ticker" in str(header.render())
    finally:
        await mirror.stop()
        await source.stop()
