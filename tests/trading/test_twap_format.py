"""A TWAP's progress is written at its instrument's steps: the average price at the tick (39.990, then 39.996:
never 39.99 then 39.996), the sizes at the lot."""

from __future__ import annotations

from decimal import Decimal

from tui.trading.twap import Twap, TwapSpec

D = Decimal


def test_the_average_is_at_the_tick_and_the_sizes_at_the_lot() -> None:
    spec = TwapSpec("HYPE-PERP", "buy", D(10), 4, 60.0, tick=D("0.001"), lot=D("0.01"))
    twap = Twap(1, spec, filled=D("2.5"), value=D("99.975"), priced=D("2.5"), sent=1)  # avg 39.99
    assert twap.progress() == "2.50 of 10.00 HYPE-PERP at avg 39.990 · slice 1/4"
    twap.value, twap.priced, twap.filled, twap.sent = D("199.98"), D(5), D(5), 2  # avg 39.996
    assert twap.progress() == "5.00 of 10.00 HYPE-PERP at avg 39.996 · slice 2/4"
    twap.value, twap.priced = D("199.9825"), D(5)  # avg 39.9965: half-even to the tick
    assert "at avg 39.996 ·" in twap.progress()


def test_without_steps_the_figures_are_as_written() -> None:
    twap = Twap(1, TwapSpec("BTC-PERP", "sell", D("0.05"), 5, 10.0), filled=D("0.01"))
    assert twap.progress() == "0.01 of 0.05 BTC-PERP · slice 0/5"
