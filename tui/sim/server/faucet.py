"""POST /faucet: an address funded on request (``tui.api.faucet`` describes the request, the answer and the header).

Answered to loopback clients only: the faucet mints play money, and an exchange bound to another interface
(``--host``) must not mint it for whoever reaches that interface. Every field is checked here and a bad one is named;
an unknown field is refused rather than ignored, so a misspelt ``amount`` does not silently fund the default.
"""

from __future__ import annotations

import ipaddress
from decimal import Decimal, InvalidOperation
from typing import Any

import msgspec

from tui.api.decimals import is_plain_decimal
from tui.api.faucet import MAX_FAUCET_USDC
from tui.api.signing import SigningError, checksum_address

from ..engine import Exchange
from ..engine.instruments import USDC_ID
from ..engine.values import ZERO, dstr
from .http_posts import Answer, error, json_answer

FIELDS = ("address", "amount", "once")
USDC_PLACES = 6  # the smallest amount of USDC the exchange moves is 10**-6
_decode = msgspec.json.Decoder().decode


class FaucetRequestError(ValueError):
    """A bad faucet request, in words."""


def is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:  # "?" (no client address) or a name: not known to be this machine
        return False


def faucet_answer(engine: Exchange, ip: str, raw: bytes) -> Answer:
    """Fund the address ``raw`` names and say so, or a 400/403 that says what was wrong."""
    if not is_loopback(ip):
        return error(f"faucet: answered to loopback clients only, not {ip[:60]}", 403)
    try:
        address, amount, once = parse_request(raw)
    except FaucetRequestError as exc:
        return error(f"faucet: {exc}", 400)
    funded = engine.faucet(address, amount, once=once)
    acct = engine.core.account(address)
    return json_answer(
        {
            "address": acct.display,
            "funded": funded,
            "amount": dstr(amount if amount is not None else engine.core.config.faucet_usdc) if funded else "0",
            "balance": dstr(acct.balances.get(USDC_ID, ZERO)),
        }
    )


def parse_request(raw: bytes) -> tuple[str, Decimal | None, bool]:
    """(address EIP-55, amount or None for the default, once) from a request body."""
    try:
        body = _decode(raw)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise FaucetRequestError(f"the body is not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(body, dict):
        raise FaucetRequestError('expected an object such as {"address": "0x…"}')
    unknown = sorted(k for k in body if k not in FIELDS)
    if unknown:
        raise FaucetRequestError(f"unknown field {_show(unknown[0])} (the fields are {', '.join(FIELDS)})")
    if "address" not in body:
        raise FaucetRequestError("address: missing")
    return _address(body["address"]), _amount(body.get("amount")), _once(body.get("once", False))


def _address(value: Any) -> str:
    if not isinstance(value, str):
        raise FaucetRequestError(f"address: expected a 0x… string, got {_show(value)}")
    try:
        return checksum_address(value)
    except SigningError:
        raise FaucetRequestError(f"address: {_show(value)} is not an address") from None


def _amount(value: Any) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise FaucetRequestError(f"amount: expected a decimal string of USDC, got {_show(value)}")
    text = str(value)
    if not is_plain_decimal(text):
        raise FaucetRequestError(f"amount: {_show(value)} is not a plain decimal (ASCII digits, at most one point)")
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise FaucetRequestError(f"amount: {_show(value)} is not a number") from None
    if not ZERO < amount <= MAX_FAUCET_USDC:
        raise FaucetRequestError(
            f"amount: must be above 0 and at most {dstr(MAX_FAUCET_USDC)} USDC, got {_show(value)}"
        )
    if amount != amount.quantize(Decimal(1).scaleb(-USDC_PLACES)):
        raise FaucetRequestError(f"amount: USDC has {USDC_PLACES} decimal places, got {_show(value)}")
    return amount


def _once(value: Any) -> bool:
    if not isinstance(value, bool):
        raise FaucetRequestError(f"once: expected true or false, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else msgspec.json.encode(value).decode()
    return text if len(text) <= 40 else text[:37] + "..."
