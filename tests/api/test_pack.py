"""The bytes the signature hashes: ``signing.pack`` (msgspec's msgpack) against the SDKs' own
``msgpack.packb(use_bin_type=True)``. One byte apart and every order the real exchange gets is refused as signed
by someone else, so the two are compared on every kind of value an action can hold, at every size boundary of the
msgpack format, and on what neither can hold."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.signing import pack

BOUNDARIES = [0, 1, 127, 128, 255, 256, 65_535, 65_536, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1]
INTS = st.one_of(
    st.sampled_from([*BOUNDARIES, *(-b for b in BOUNDARIES[:10]), -32, -33, -(2**63)]),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
)
# lengths at the format's boundaries: fixstr 31, str8 255, str16 65,535; fixarray/fixmap 15
TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from([31, 32, 255, 256, 65_535, 65_536]).map(lambda n: "é" * (n // 2) + "a" * (n % 2)),
)
SCALARS = st.one_of(st.none(), st.booleans(), INTS, st.floats(allow_nan=False), TEXT, st.binary(max_size=300))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=17),
        st.dictionaries(st.text(max_size=12), inner, max_size=17),
    ),
    max_leaves=40,
)


def reference(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_pack_writes_what_the_sdks_msgpack_writes(value: Any) -> None:
    assert pack(value) == reference(value)


def test_an_action_keeps_its_keys_in_the_order_written() -> None:
    """The exchange hashes the map as sent: keys are not sorted (``{"b":1,"a":2}`` stays b then a)."""
    action = {"orders": [{"e": "BTC-PERP", "b": True, "px": "100000", "sz": "0.01", "tif": "GTC"}], "nonce": 1}
    assert pack(action) == reference(action) and pack({"b": 1, "a": 2}) == b"\x82\xa1b\x01\xa1a\x02"


@pytest.mark.parametrize(
    ("value", "error"),
    [(2**64, OverflowError), (-(2**63) - 1, OverflowError), (1j, TypeError), (object(), TypeError)],
    ids=["past uint64", "past int64", "a complex", "an object"],
)
def test_what_msgpack_cannot_hold_is_refused_alike(value: Any, error: type[Exception]) -> None:
    """The exchange's parse lets these through as JSON; both sides refuse to sign them, with the same kind of error
    the local exchange turns into a 400 (``tui.sim.server.actions``)."""
    with pytest.raises(error):
        reference(value)
    with pytest.raises(error):
        pack({"value": value})
