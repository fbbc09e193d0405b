"""One decimal grammar on both sides: for any text, the order form (``tui.trading``), the local exchange's
body parser (``sim.engine.values``), the wallet forms and the config and CLI check (``api.decimals``) take
the same texts, read them as the same number, and refuse the same ones. Hypothesis tries texts that look
like numbers and texts that nearly do (signs, exponents, spaces, other scripts' digits, separators)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from tui.api.decimals import DecimalError, is_plain_decimal, parse_decimal
from tui.sim.engine.errors import Rejected
from tui.sim.engine.values import parse_decimal as exchange_parse
from tui.trading.grammar import parse_positive as form_parse  # what the order form reads its figures with

ALMOST = st.sampled_from([*"0123456789.,+-eE _", "１", "٣", "\u00a0", "NaN", "inf", "0x1"])
TEXTS = st.one_of(
    st.lists(ALMOST, min_size=1, max_size=12).map("".join),
    st.decimals(min_value=Decimal("0.000001"), max_value=Decimal(10**12), places=6).map(str),
    st.text(max_size=8),
)


def read(parse: object, text: str) -> Decimal | None:
    try:
        return parse(text)  # type: ignore[operator, no-any-return]
    except (ValueError, Rejected):
        return None


@given(TEXTS)
@example("1e5")
@example("+1")
@example("1 ")
@example("１")
@example("1,000")
@example(".5")
@example("5.")
@example("0.5")
@example("100000")
def test_every_edge_takes_and_refuses_the_same_texts(text: str) -> None:
    plain = is_plain_decimal(text)
    client = read(lambda t: parse_decimal(t, "price"), text)
    exchange = read(lambda t: exchange_parse(t, "price", positive=True), text)
    form = read(lambda t: form_parse("price", t), text)
    assert (client is not None) == plain
    if not plain:  # refused on every side
        assert exchange is None and form is None, (text, exchange, form)
        return
    assert client is not None
    if client > 0 and abs(client.adjusted()) <= 30:  # a price both sides take: the same number
        assert exchange == form == client, (text, exchange, form, client)
    else:  # zero, or too large or small: both sides refuse it as a price
        assert exchange is None and form is None, (text, exchange, form)


def test_the_refusal_names_the_field_and_the_rule() -> None:
    try:
        parse_decimal("1e5", "size")
    except DecimalError as exc:
        assert str(exc).startswith('size: "1e5" is not a plain decimal (ASCII digits and at most one point')
    else:
        raise AssertionError("1e5 was taken")
