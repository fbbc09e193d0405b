"""Parsers of config values, shared by the file and the ``XTUI_*`` variables.

Each returns the clean value or raises ValueError with a message that says what is wrong but not where;
the caller adds the file line or the variable. A bad value is quoted back with key-shaped runs redacted,
so an error message can never carry a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from tui.api.decimals import is_plain_decimal
from tui.api.endpoints import check_base_url
from tui.api.network import NETWORKS
from tui.api.signing import checksum_address, is_checksum_address
from tui.edges.bounded_parse import decimal_places
from tui.keys import ENV_NAME_RE, NAME_RE
from tui.logs import parse_level, redact

__all__ = [
    "DEFAULT_BELL",
    "ENV_BOOL",
    "FIELD_ALIASES",
    "NOTICE_KINDS",
    "PROFILE_FIELDS",
    "bell_kinds",
    "check_binding",
    "kind_of",
    "log_level",
    "network_conflict",
    "shown",
    "string",
]

_BINDING_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_KEYS = re.compile(r"[^\s,]+(?:\s*,\s*[^\s,]+)*")
_THEME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SYMBOL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]{0,31}")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
# The kinds of account event the dashboard announces (``tui.feed.events.EVENT_KINDS``; a test holds them equal),
# and those that ring the terminal bell unless ``[notices] bell`` says otherwise.
NOTICE_KINDS = ("fill", "trigger", "cancel", "liquidation", "funding")
DEFAULT_BELL = frozenset({"fill", "trigger", "liquidation"})
# How an environment variable spells a boolean.
ENV_BOOL = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def kind_of(value: Any) -> str:
    """What a TOML value is, in words, for "expected X, not Y"."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | Decimal):
        return "a number"
    kinds: dict[type, str] = {dict: "a table", list: "an array", str: "a string"}
    return kinds.get(type(value), "a date or time")


def shown(text: str) -> str:
    """A bad value quoted for an error message: key-shaped runs redacted, long text cut."""
    text = redact(text)
    return repr(text if len(text) <= 60 else text[:57] + "...")


def string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string in quotes, not {kind_of(value)}")
    return value.strip()


def _pattern(regex: re.Pattern[str], what: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = string(value)
        if not regex.fullmatch(text):
            raise ValueError(f"{shown(text)} is not {what}")
        return text

    return parse


def _url(*schemes: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        return check_base_url(string(value), schemes, shown)

    return parse


def _above_zero(high: Decimal) -> Callable[[Any], Decimal]:
    """``_decimal``, and above 0."""
    within = _decimal(high)

    def parse(value: Any) -> Decimal:
        number = within(value)
        if number <= 0:
            raise ValueError(f"expected a number above 0, not {shown(str(value))}")
        return number

    return parse


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, not {kind_of(value)}")
    return value


MAX_NOTIONAL = Decimal(10) ** 15  # USDC: beyond any order, and 1e999999999 is no amount
MAX_PLACES = 18


def _decimal(high: Decimal | None) -> Callable[[Any], Decimal]:
    """A non-negative Decimal from an integer, a TOML float (read exactly) or a string."""

    def parse(value: Any) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
            raise ValueError(f"expected a number, not {kind_of(value)}")
        if isinstance(value, str) and not is_plain_decimal(value):  # the one grammar of every edge
            raise ValueError(f"{shown(value)} is not a plain decimal (ASCII digits and at most one point)")
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"{shown(str(value))} is not a number") from None
        if not number.is_finite() or number < 0 or (high is not None and number > high):
            bound = f"between 0 and {high:,}" if high is not None else "0 or more"
            raise ValueError(f"expected a number {bound}, not {shown(str(value))}")
        if decimal_places(number) > MAX_PLACES:  # 1e-999999999 is no amount
            raise ValueError(f"at most {MAX_PLACES} decimal places, not {shown(str(value))}")
        return number

    return parse


def _address(value: Any) -> str:
    text = string(value)
    if not _ADDRESS.fullmatch(text):
        raise ValueError(f"{shown(text)} is not an account address (0x and 40 hex digits)")
    if not is_checksum_address(text):
        # No corrected form is offered: a checksum failure usually means a typo, and its "fix" is another account.
        raise ValueError(f"{text} fails its EIP-55 checksum (mixed case that does not match): check it for a typo")
    return checksum_address(text)


def _dialect(value: Any) -> str:
    text = string(value)
    if text not in ("seed", "sdk"):
        raise ValueError(f'expected "seed" or "sdk", not {shown(text)}')
    return text


def _network(value: Any) -> str:
    text = string(value).lower()
    if text not in NETWORKS:
        raise ValueError(f'expected "testnet" or "mainnet", not {shown(text)}')
    return text


def network_conflict(values: dict[str, Any]) -> str | None:
    """The message when a profile's ``network`` and ``testnet`` (its alias) say different networks."""
    if "network" in values and "testnet" in values and (values["network"] == "testnet") != values["testnet"]:
        said = "true" if values["testnet"] else "false"
        return f'network = "{values["network"]}" and testnet = {said} disagree: keep one of them'
    return None


def log_level(value: Any) -> str:
    return parse_level(string(value))


def check_binding(binding: str, keys: Any) -> str:
    """One keymap entry, ``binding id = "key[,key...]"``; returns the keys stripped."""
    if not _BINDING_ID.fullmatch(binding):
        raise ValueError(f"{shown(binding)} is not a binding id")
    if not isinstance(keys, str) or not _KEYS.fullmatch(keys.strip()) or len(keys) > 64:
        bad = shown(keys) if isinstance(keys, str) else kind_of(keys)
        raise ValueError(
            f'keymap.{binding}: expected key names separated by commas, like "b" or "ctrl+b,f2", not {bad}'
        )
    return keys.strip()


def _whole(text: Any, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``: a TOML integer, or its ASCII digits (a variable's text)."""
    if isinstance(text, str) and text.strip().isdigit() and text.strip().isascii():
        text = int(text.strip())
    if isinstance(text, bool) or not isinstance(text, int):
        raise ValueError(f"expected a whole number from {low} to {high}, not {kind_of(text)}")
    if not low <= text <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, not {text}")
    return text


def chart_periods(value: Any) -> tuple[int, ...]:
    """``chart_ma_periods = [20, 50]`` (or "20,50" in a variable): the SMA's and EMA's periods, 1 to 3 of them,
    each 2 to 500 candles, in rising order."""
    items = [p for p in value.split(",")] if isinstance(value, str) else value
    if not isinstance(items, list) or not 1 <= len(items) <= 3:
        bad = f"{len(items)} of them" if isinstance(items, list) else kind_of(value)
        raise ValueError(f"expected 1 to 3 periods like [20, 50] (each 2 to 500 candles), not {bad}")
    periods = sorted({_whole(p, 2, 500) for p in items})
    return tuple(periods)


def chart_rsi_period(value: Any) -> int:
    """``chart_rsi_period = 14``: the RSI's period, 2 to 100 candles."""
    return _whole(value, 2, 100)


def bell_kinds(value: Any) -> frozenset[str]:
    """``bell = ["fill", "trigger"]``: the kinds of account event that ring the terminal bell (``[]``: none)."""
    if not isinstance(value, list):
        raise ValueError(f'expected an array of event kinds like ["fill", "trigger"], not {kind_of(value)}')
    kinds = set()
    for item in value:
        kind = item.strip() if isinstance(item, str) else None
        if kind not in NOTICE_KINDS:
            bad = shown(item) if isinstance(item, str) else kind_of(item)
            raise ValueError(f"{bad} is not a kind of event ({', '.join(NOTICE_KINDS)})")
        kinds.add(kind)
    return frozenset(kinds)


PROFILE_FIELDS: dict[str, Callable[[Any], Any]] = {
    "url": _url("http", "https"),
    "mirror": _url("http", "https"),  # paper trading: the built-in exchange follows this exchange's prices
    "mirror_max_move_pct": _above_zero(Decimal(1000)),  # a mirrored price moving more in one poll is held
    "explorer_url": _url("http", "https"),
    "ws_url": _url("ws", "wss"),
    "testnet": _bool,
    "network": _network,  # "testnet" or "mainnet": an alias of testnet
    "dialect": _dialect,
    "account": _address,
    "keystore": _pattern(NAME_RE, "a keystore name (see `xtui keys list`)"),
    "key_env": _pattern(ENV_NAME_RE, "an environment variable name"),
    "agent_keystore": _pattern(NAME_RE, "a keystore name (see `xtui keys list`)"),
    "agent_key_env": _pattern(ENV_NAME_RE, "an environment variable name"),
    "read_only": _bool,
    "low_bandwidth": _bool,
    "confirm_notional": _decimal(MAX_NOTIONAL),
    "confirm_through_book_pct": _decimal(Decimal(100)),
    "max_slippage_pct": _decimal(Decimal(50)),
    "max_order_notional": _above_zero(MAX_NOTIONAL),  # USDC: a larger order is refused (off when not set)
    "daily_loss_limit": _above_zero(MAX_NOTIONAL),  # USDC lost since 00:00 UTC: then only risk-reducing orders
    "liquidation_warn_pct": _above_zero(Decimal(100)),  # bell and event when the mark is this near liquidation
    "ladder_notional": _above_zero(MAX_NOTIONAL),  # USDC: the ladder's size until z sets one (unset: 2x the minimum)
    "theme": _pattern(_THEME, "a theme name"),
    "symbol": _pattern(_SYMBOL, "an instrument symbol"),
    "chart_ma_periods": chart_periods,  # the chart's SMA and EMA lines
    "chart_rsi_period": chart_rsi_period,
}
BOOL_FIELDS = frozenset(name for name, parse in PROFILE_FIELDS.items() if parse is _bool)
FIELD_ALIASES = {"network": "testnet"}  # alias -> the field it sets, which `config show` prints instead
