"""Order-entry validation: every rule the form checks before anything is sent, without Textual."""

from __future__ import annotations

from decimal import Decimal as D

from msgspec.structs import replace

from tui.trading import (
    ConfirmPolicy,
    OrderContext,
    OrderInput,
    close_position_plan,
    confirmation_reasons,
    estimate_fill,
    fmt_decimal,
    market_estimate,
    protection_price,
    scale_group_of,
    scale_plan,
    validate,
)

BTC = OrderContext(
    instrument_id=1,
    symbol="BTC-PERP",
    kind="perp",
    tick=D("0.1"),
    lot=D("0.0001"),
    min_notional=D(10),
    max_leverage=D(50),
    best_bid=D("99999.2"),
    best_ask=D("100039.3"),
    mark=D("100019.2"),
    available=D(100_000),
)
SPOT = OrderContext(
    instrument_id=101,
    symbol="BTC/USDC",
    kind="spot",
    tick=D("0.1"),
    lot=D("0.00001"),
    min_notional=D(10),
    max_leverage=D(1),
    best_bid=D(99_845),
    best_ask=D("99884.9"),
    mark=D("99864.9"),
    available=D(10_000),
    base_available=D("0.1"),
)


def test_a_good_limit_order_becomes_the_wire_item() -> None:
    v = validate(OrderInput(side="buy", price="95000", size="0.01", cloid="c-1"), BTC)
    assert v.ok and v.plan is not None
    item = v.plan.to_wire()
    assert item["price"] == "95000" and item["size"] == "0.01" and item["side"] == "b"
    assert item["tif"] == "GTC" and item["cloid"] == "c-1" and not item["isMarket"]
    assert v.plan.notional == D(950)


def test_price_off_the_tick_names_the_tick_and_a_valid_price() -> None:
    v = validate(OrderInput(price="95000.05", size="0.01"), BTC)
    assert not v.ok
    assert "tick size 0.1" in v.errors["price"] and "95,000" in v.errors["price"]


def test_size_off_the_lot() -> None:
    v = validate(OrderInput(price="95000", size="0.00015"), BTC)
    assert "lot size 0.0001" in v.errors["size"]


def test_missing_and_garbage_numbers() -> None:
    v = validate(OrderInput(price="", size="abc"), BTC)
    assert v.errors["price"] == "price is required"
    assert '"abc" is not a plain decimal' in v.errors["size"]
    assert "greater than 0" in validate(OrderInput(price="0", size="1"), BTC).errors["price"]
    # one grammar at every edge: no sign, exponent, spaces, separators or other scripts' digits
    for price in ("-5", "+1", "1e5", "nan", "1 ", " 1", "１", "100,000", "1.2.3", ".5", "5."):
        said = validate(OrderInput(price=price, size="1"), BTC).errors["price"]
        assert said.startswith(f'price: "{price}" is not a plain decimal'), (price, said)


def test_below_min_notional() -> None:
    v = validate(OrderInput(price="95000", size="0.0001"), BTC)
    assert "below the minimum 10 USDC" in v.errors["size"]


def test_above_available_times_max_leverage() -> None:
    """The leverage in force not read yet: the margin is the value over the max leverage, 9,500 / 50 = 190."""
    poor = replace(BTC, available=D(100))
    v = validate(OrderInput(price="95000", size="0.1"), poor)  # 9,500 > 100 x 50
    assert v.errors["size"] == (
        "margin 190.00 is above available 100.00 USDC"
        " (value 9,500.00 / 50x, the max leverage: the leverage in force is not read yet)"
    )
    assert validate(OrderInput(price="95000", size="0.05"), poor).ok  # 4,750 fits


def test_the_funds_check_uses_the_leverage_in_force() -> None:
    """At 10x in force (max 50), 0.05 at 95,000 needs 475 of margin: refused on 100 available, where the max
    leverage would have let it through (95). As the exchange reserves it, an order needs margin only for what it adds
    to the position's size: long 0.05, selling 0.05 or flipping to 0.01 short needs none; selling 0.12 (0.07 short)
    adds 0.02: 0.02 * 100,000 / 10 = 200, above 100."""
    poor = replace(BTC, available=D(100), leverage=D(10))
    v = validate(OrderInput(price="95000", size="0.05"), poor)
    assert (
        v.errors["size"] == "margin 475.00 is above available 100.00 USDC (value 4,750.00 / 10x, the leverage in force)"
    )
    long = replace(poor, position=D("0.05"))
    assert validate(OrderInput(side="sell", price="100000", size="0.05"), long).ok
    assert validate(OrderInput(side="sell", price="100000", size="0.06"), long).ok
    v = validate(OrderInput(side="sell", price="100000", size="0.12"), long)
    assert v.errors["size"].startswith("margin 200.00 for the 0.02 it adds to the position is above available 100.00")


def test_reduce_only_without_a_position() -> None:
    v = validate(OrderInput(side="sell", price="101000", size="0.01", reduce_only=True), BTC)
    assert "no long position in BTC-PERP" in v.errors["reduce_only"]
    long = replace(BTC, position=D("0.02"))
    assert validate(OrderInput(side="sell", price="101000", size="0.01", reduce_only=True), long).ok
    # the wrong direction: a buy does not reduce a long
    assert (
        "no short position"
        in validate(OrderInput(price="95000", size="0.01", reduce_only=True), long).errors["reduce_only"]
    )


def test_post_only_that_would_cross() -> None:
    v = validate(OrderInput(side="buy", price="100039.3", size="0.01", post_only=True), BTC)
    assert "would cross the best ask 100,039.3" in v.errors["post_only"]
    v = validate(OrderInput(side="sell", price="99999.2", size="0.01", post_only=True), BTC)
    assert "would cross the best bid" in v.errors["post_only"]
    assert validate(OrderInput(side="buy", price="100039.2", size="0.01", post_only=True), BTC).ok
    v = validate(OrderInput(side="buy", price="95000", size="0.01", post_only=True, tif="IOC"), BTC)
    assert "GTC limit" in v.errors["post_only"]


def test_size_in_quote_and_percent_is_floored_to_the_lot() -> None:
    v = validate(OrderInput(side="buy", kind="market", size="1000", size_unit="quote"), BTC)
    assert v.plan is not None and v.plan.size == D("0.0099")  # 1000 / 100039.3, floored
    v = validate(OrderInput(side="buy", price="100000", size="10", size_unit="percent"), BTC)
    assert v.plan is not None and v.plan.size == D("0.1")  # 10% of 100,000 at 100,000
    assert "at most 100" in validate(OrderInput(price="1", size="150", size_unit="percent"), BTC).errors["size"]
    assert "less than one lot" in validate(OrderInput(price="95000", size="1", size_unit="quote"), BTC).errors["size"]


def test_market_orders_carry_a_protection_price_and_are_ioc() -> None:
    # a sell fills at most 1% below the best bid: 99,999.2 x 0.99 = 98,999.208, up to the tick
    v = validate(OrderInput(side="sell", kind="market", size="0.01"), BTC)
    assert v.plan is not None
    item = v.plan.to_wire()
    assert item["isMarket"] and item["price"] == "98999.3" and item["tif"] == "IOC"
    assert v.plan.reference_price == BTC.best_bid
    assert v.plan.describe() == "SELL 0.01 BTC-PERP @ market (at least 98,999.3) (market IOC)"
    # a buy at most 0.5% above the best ask: 100,039.3 x 1.005 = 100,539.4965, down to the tick
    v = validate(OrderInput(side="buy", kind="market", size="0.01"), replace(BTC, slippage_pct=D("0.5")))
    assert v.plan is not None and v.plan.to_wire()["price"] == "100539.4"
    # a stop at market is bounded around its trigger: 99,000 x 0.99
    v = validate(OrderInput(side="sell", kind="stop", trigger="99000", size="0.01"), BTC)
    assert v.plan is not None and v.plan.to_wire()["price"] == "98010" and v.plan.is_market
    # no book and no mark: nothing to bound it by
    empty = replace(BTC, best_bid=None, best_ask=None, mark=None)
    assert "no price to bound" in validate(OrderInput(side="sell", kind="market", size="0.01"), empty).errors["price"]
    assert protection_price("sell", D("0.3"), D(50), D("0.1")) == D("0.2")  # 0.15 up to the tick
    assert protection_price("sell", D("0.1"), D(50), D("0.1")) == D("0.1")  # never below one tick


ASKS = ((D("100039.3"), D("0.005")), (D(100050), D("0.01")), (D(101100), D(1)))


def test_a_market_order_is_estimated_against_the_visible_book() -> None:
    ctx = replace(BTC, asks=ASKS)
    small = validate(OrderInput(side="buy", kind="market", size="0.01"), ctx).plan
    assert small is not None
    # 0.005 at 100,039.3 and 0.005 at 100,050: 100,044.65 on average, 5.35 (0.0053%) above the best ask
    est = estimate_fill("buy", small.size, ctx.asks, small.price)
    assert (est.size, est.average, est.worst, est.beyond) == (D("0.01"), D("100044.65"), D(100050), False)
    assert market_estimate(small, ctx) == "est. avg 100,044.65 · slippage 0.01% · worst 101,039.6 (1%)"
    assert confirmation_reasons(small, ctx, ConfirmPolicy()) == []
    # 0.1 would walk past the bound (101,039.6) to 101,100: only 0.015 fills within it, so the trader is asked
    big = validate(OrderInput(side="buy", kind="market", size="0.1"), ctx).plan
    assert big is not None
    assert confirmation_reasons(big, ctx, ConfirmPolicy()) == [
        "the visible book fills only 0.015 of 0.1 within the 1% limit (101,039.6); the rest may not fill"
    ]
    assert "only 0.015 visible" in (market_estimate(big, ctx) or "")
    # an empty side: nothing may fill
    [reason] = confirmation_reasons(big, replace(ctx, asks=()), ConfirmPolicy())
    assert reason.startswith("the visible book has nothing within the 1% limit")


def test_trigger_orders() -> None:
    v = validate(OrderInput(side="sell", kind="stop", size="0.01"), BTC)
    assert v.errors["trigger"] == "trigger price is required"
    v = validate(OrderInput(side="sell", kind="stop", trigger="101000", size="0.01"), BTC)
    assert "triggers below the mark" in v.errors["trigger"]
    v = validate(OrderInput(side="sell", kind="stop", trigger="99000", size="0.01"), BTC)
    assert v.plan is not None
    item = v.plan.to_wire()
    assert item["triggerPx"] == "99000" and item["isMarket"] and item["tpsl"] == ""
    # take-profit and stop-loss close a position: reduce-only, and they need one
    assert (
        "no long position"
        in validate(OrderInput(side="sell", kind="take_profit", trigger="105000", size="0.01"), BTC).errors[
            "reduce_only"
        ]
    )
    long = replace(BTC, position=D("0.01"))
    v = validate(OrderInput(side="sell", kind="take_profit", trigger="105000", size="0.01"), long)
    assert v.plan is not None and v.plan.reduce_only and v.plan.to_wire()["tpsl"] == "tp"
    v = validate(OrderInput(side="sell", kind="stop_loss", trigger="95000", price="94900", size="0.01"), long)
    assert v.plan is not None and not v.plan.is_market and v.plan.to_wire()["tpsl"] == "sl"
    assert "perps only" in validate(OrderInput(side="sell", kind="stop", trigger="9", size="1"), SPOT).errors["kind"]


def test_spot_checks_the_balance_of_each_side() -> None:
    v = validate(OrderInput(side="buy", price="99000", size="0.2"), SPOT)
    assert "above the available 10,000.00 USDC" in v.errors["size"]
    v = validate(OrderInput(side="sell", price="99000", size="0.2"), SPOT)
    assert "above the 0.1 BTC held" in v.errors["size"]
    v = validate(OrderInput(side="sell", kind="market", size="50", size_unit="percent"), SPOT)
    assert v.plan is not None and v.plan.size == D("0.05")
    assert (
        "perps only"
        in validate(OrderInput(side="sell", price="99000", size="0.01", reduce_only=True), SPOT).errors["reduce_only"]
    )


def test_confirmation_for_large_or_far_through_the_book() -> None:
    policy = ConfirmPolicy()
    small = validate(OrderInput(price="100000", size="0.01"), BTC).plan
    assert small is not None and confirmation_reasons(small, BTC, policy) == []
    big = validate(OrderInput(price="100000", size="0.6"), BTC).plan
    assert big is not None
    assert confirmation_reasons(big, BTC, policy) == ["order value 60,000.00 USDC is above 50,000 USDC"]
    far = validate(OrderInput(price="103000", size="0.01"), BTC).plan
    assert far is not None
    [reason] = confirmation_reasons(far, BTC, policy)
    assert "3.0% through the best ask" in reason
    assert confirmation_reasons(far, BTC, ConfirmPolicy(max_through_pct=D(5))) == []


def test_close_position_is_a_reduce_only_market_order_against_it() -> None:
    assert close_position_plan(BTC) is None
    plan = close_position_plan(replace(BTC, position=D("-0.03")))
    assert plan is not None
    item = plan.to_wire()
    assert item["side"] == "b" and item["size"] == "0.03" and item["ro"] and item["isMarket"]
    assert item["price"] == "101039.6"  # bounded: 1% above the best ask 100,039.3, down to the tick


def test_fmt_decimal() -> None:
    assert fmt_decimal(D("100000.50")) == "100,000.5"
    assert fmt_decimal(D("-1234.000")) == "-1,234"
    assert fmt_decimal(D("1E+3")) == "1,000"
    assert fmt_decimal(None) == "-"


def test_a_scale_order_by_hand() -> None:
    ctx = OrderContext(
        instrument_id=1, symbol="BTC-PERP", kind="perp", tick=D("0.1"), lot=D("0.001"), min_notional=D(10),
        max_leverage=D(50), best_bid=D(100_000), best_ask=D("100000.1"), available=D(100_000),
    )  # fmt: skip
    plan, errors = scale_plan(ctx, "buy", "95000", "99000", "5", "0.1", "flat", "sc1")
    assert errors == {} and plan is not None
    assert [(o.price, o.size, o.cloid) for o in plan.orders] == [
        (D(95000), D("0.02"), "sc1-1"), (D(96000), D("0.02"), "sc1-2"), (D(97000), D("0.02"), "sc1-3"),
        (D(98000), D("0.02"), "sc1-4"), (D(99000), D("0.02"), "sc1-5"),
    ]  # fmt: skip
    assert plan.size == D("0.1") and plan.notional == D(9700) and plan.average == D(97000)
    low, _ = scale_plan(ctx, "buy", "99000", "95000", "4", "1", "low", "sc2")  # either order of prices
    assert low is not None  # weights 4:3:2:1 toward 95,000; 1/10 = 0.1 a unit
    assert [(o.price, o.size) for o in low.orders] == [
        (D(95000), D("0.4")), (D("96333.3"), D("0.3")), (D("97666.6"), D("0.2")), (D(99000), D("0.1")),
    ]  # fmt: skip
    high, _ = scale_plan(ctx, "sell", "101000", "102000", "3", "0.01", "high", "sc3")
    assert high is not None and [o.size for o in high.orders] == [D("0.001"), D("0.003"), D("0.006")]  # rest to 102k
    assert scale_group_of("sc3-2") == "sc3" and scale_group_of("mine-2") is None and scale_group_of("sc3") is None
    for args, field, said in (
        (("buy", "95000", "101000", "3", "0.1", "flat"), "high", "through the best ask"),
        (("sell", "99000", "101000", "3", "0.1", "flat"), "low", "through the best bid"),
        (("buy", "95000", "99000", "1", "0.1", "flat"), "count", "2 to 50"),
        (("buy", "95000", "99000", "51", "0.1", "flat"), "count", "2 to 50"),
        (("buy", "95000", "95000.2", "5", "0.1", "flat"), "count", "do not fit"),
        (("buy", "95000", "99000", "5", "0.0004", "flat"), "size", "under one lot"),
        (("buy", "5000", "9000", "5", "0.005", "flat"), "size", "worth 5.00, under the minimum 10 USDC"),
        (
            ("buy", "95000", "99000", "5", "60", "flat"),
            "size",
            "above available 100,000.00 USDC (value 5,820,000.00 / 50x",
        ),
        (("buy", "95000", "99000", "5", "0.1", "middle"), "weight", "flat, low, high"),
        (("buy", "x", "99000", "5", "0.1", "flat"), "low", "not a plain decimal"),
    ):
        plan, errors = scale_plan(ctx, *args, "sc9")  # type: ignore[arg-type]
        assert plan is None and field in errors and said in errors[field], (args, errors)


def test_a_scale_form_starts_on_the_tick() -> None:
    """1% under a best bid of 100,010.1 is 99,009.999: off the 0.1 tick (what the form pre-filled before);
    floored to 99,009.9. On a 0.5 tick, 1% under 3,500.5 (3,465.495) is 3,465.0."""
    from tui.trading.scale import scale_prices

    assert scale_prices(D("100010.1"), D("0.1")) == (D("99009.9"), D("100010.1"))
    assert scale_prices(D("3500.5"), D("0.5")) == (D("3465.0"), D("3500.5"))
