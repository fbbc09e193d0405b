"""The one way to decode a record: ``decode``, ``TypedDecoder``, ``DecodeError`` and the hot-path decoders."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Generic, TypeVar, cast

import msgspec

from .account import AccountInfo
from .frames import WsFrame
from .market import BookUpdate, OrderBook

__all__ = ["BOOK_UPDATE_DECODER", "ORDERBOOK_DECODER", "WS_FRAME_DECODER", "DecodeError", "TypedDecoder", "decode"]

T = TypeVar("T")


class DecodeError(ValueError):
    """A response, frame or object did not match its record; the message names the failing path."""


_JSON_INPUT = (bytes, bytearray, memoryview, str, msgspec.Raw)


def _wrap(exc: Exception) -> DecodeError:
    """The one public error for whatever went wrong while decoding."""
    if isinstance(exc, DecodeError):
        return exc
    if isinstance(exc, msgspec.ValidationError):
        return DecodeError(str(exc))
    if isinstance(exc, msgspec.DecodeError):
        return DecodeError(f"malformed JSON: {exc}")
    if isinstance(exc, RecursionError):
        return DecodeError("input nested too deeply")
    if isinstance(exc, UnicodeError):
        return DecodeError("input is not valid UTF-8 text")
    return DecodeError(f"cannot decode: {type(exc).__name__}: {exc}")


class TypedDecoder(Generic[T]):
    """A reusable JSON decoder for one type that raises only ``DecodeError`` (for hot paths)."""

    __slots__ = ("_decoder", "type")

    def __init__(self, type_: type[T]) -> None:
        self.type = type_
        self._decoder = msgspec.json.Decoder(type_)

    def decode(self, data: bytes | bytearray | memoryview | str | msgspec.Raw) -> T:
        """Decode raw JSON into ``self.type``."""
        try:
            return self._decoder.decode(data)
        except Exception as exc:
            raise _wrap(exc) from exc


_DECODERS: dict[Any, TypedDecoder[Any]] = {}


def _decoder_for(type_: Any) -> TypedDecoder[Any]:
    """The cached decoder for ``type_`` (a fresh one for the rare unhashable type)."""
    try:
        decoder = _DECODERS.get(type_)
    except TypeError:
        return TypedDecoder(type_)
    if decoder is None:
        decoder = _DECODERS[type_] = TypedDecoder(type_)
    return decoder


# Untyped parse that keeps numbers exact, for inputs normalised before typed conversion.
_EXACT_JSON = msgspec.json.Decoder(float_hook=Decimal)

_REWARD_KEYS = {
    "account": "Account", "collateral_id": "CollateralID", "source": "Source", "is_spot": "IsSpot",
    "amount": "Amount", "claim_amount": "ClaimAmount", "created_at": "CreatedAt",
}  # fmt: skip


def _reward_keys(item: Any) -> Any:
    """A reward record with the TS SDK's snake_case keys renamed to the capitalised wire names."""
    if not isinstance(item, dict):
        return item
    out = {}
    for key, value in item.items():
        wire = _REWARD_KEYS.get(key)
        out[wire if wire and wire not in item else key] = value
    return out


def _normalise_account_info(obj: Any) -> Any:
    """Nested form as is; the flat SDK form wrapped into ``account``; null reward lists as empty."""
    if not isinstance(obj, dict):
        return obj
    out = dict(obj) if "account" in obj else {"account": obj}
    for key in ("rewards", "history"):
        items = obj.get(key)
        out[key] = [] if items is None else [_reward_keys(i) for i in items] if isinstance(items, list) else items
    return out


def decode(data: bytes | str | Any, type_: type[T]) -> T:
    """Decode ``data`` into ``type_``: raw JSON (bytes, str, Raw) or an already-parsed object.

    Raises only ``DecodeError``; its message names the failing path, e.g. ``$.data[0].price``.
    ``type_`` may be any msgspec type: a record, ``list[Ticker]``, ``Page[Order]``...
    """
    try:
        if type_ is AccountInfo:
            parsed = _EXACT_JSON.decode(data) if isinstance(data, _JSON_INPUT) else data
            return msgspec.convert(_normalise_account_info(parsed), type_)
        if isinstance(data, _JSON_INPUT):
            return cast(T, _decoder_for(type_).decode(data))
        return msgspec.convert(data, type_)
    except Exception as exc:
        raise _wrap(exc) from exc


# Pre-built decoders for the hot paths.
ORDERBOOK_DECODER = TypedDecoder(OrderBook)
BOOK_UPDATE_DECODER = TypedDecoder(BookUpdate)
WS_FRAME_DECODER = TypedDecoder(WsFrame)
