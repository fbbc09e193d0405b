"""From validated requests to the engine: /info and /explorer parameters, actions, events and time.

Parameters are checked here, at the edge, with messages that name them; the engine receives clean
values. Method names are accepted in snake_case and in the older camelCase (protocol-notes 4).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tui.api.signing import SigningError, checksum_address

from ..clock import Clock
from ..engine import ActionResult, BrokerConfig, Exchange, OrderRequest
from ..engine import Rejected as EngineRejected
from ..engine.instruments import default_config
from ..engine.rules import BatchRule, CloidRule
from ..grammar import int_text
from ..market import SyntheticMarket
from .agent_keys import FormerAgent, FormerAgents
from .pictures import first_picture

if TYPE_CHECKING:
    from ..mirror.source import Mirror


class QueryError(ValueError):
    """A bad /info or /explorer request: HTTP 400 with a message that names the parameter (and quotes at most
    ``MESSAGE_CHARS`` of what was sent)."""

    def __init__(self, message: str) -> None:
        super().__init__(message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 3] + "...")


MESSAGE_CHARS = 240


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
RESOLUTIONS = ("1", "5", "15", "30", "60", "240", "1D", "1W")
CHART_TYPES = ("mark", "index", "ltp")


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


class Params:
    """Typed access to a params object; every failure names the parameter."""

    def __init__(self, method: str, params: dict[str, Any]) -> None:
        self.method = method
        self.raw = params

    def _fail(self, name: str, what: str) -> QueryError:
        return QueryError(f"{self.method}: params.{name}: {what}")

    def has(self, name: str) -> bool:
        return name in self.raw

    def user(self, name: str = "user") -> str:
        value = self.raw.get(name)
        if value is None:
            raise self._fail(name, "missing")
        if not isinstance(value, str):
            raise self._fail(name, f"expected an address string, got {type(value).__name__}")
        try:
            return checksum_address(value)
        except SigningError:
            raise self._fail(name, f"{value[:50]!r} is not an address") from None

    def optional_user(self, name: str) -> str | None:
        return self.user(name) if self.raw.get(name) is not None else None

    def string(self, name: str, default: str | None = None) -> str:
        value = self.raw.get(name, default)
        if value is None:
            raise self._fail(name, "missing")
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise self._fail(name, f"expected a string, got {type(value).__name__}")
        return str(value)

    def integer(self, name: str, default: int | None = None, *, lo: int = 0, hi: int = 2**63) -> int:
        value = self.raw.get(name, default)
        if value is None:
            raise self._fail(name, "missing")
        if isinstance(value, str):  # the one integer grammar (``grammar``): ASCII digits only
            value = int_text(value)
            if value is None:
                raise self._fail(name, f"expected an integer of ASCII digits, got {self.raw.get(name)!r}"[:160])
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._fail(name, f"expected an integer, got {value!r}"[:120])
        if not lo <= value <= hi:
            raise self._fail(name, f"must be between {lo} and {hi}, got {value}")
        return value

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self.raw.get(name, default)
        if not isinstance(value, bool):
            raise self._fail(name, f"expected true or false, got {value!r}"[:120])
        return value

    def page(self) -> tuple[int, int]:
        return self.integer("page", 1, lo=1, hi=10**9), self.integer("limit", 100, lo=1, hi=1000)

    def choice(self, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
        value = self.string(name, default)
        if value not in choices:
            raise self._fail(name, f"must be one of {', '.join(choices)}, got {value!r}"[:160])
        return value


#: a query method: its answer from the engine and its params
Query = Callable[[Exchange, Params], Any]


class Dispatcher:
    """Owns the engine and the synthetic market; the server calls only this."""

    def __init__(
        self,
        clock: Clock,
        *,
        seed: int,
        faucet: Decimal,
        market: bool,
        mirror: Mirror | None = None,
        thin_book: bool = False,
        batch: BatchRule = "all-or-nothing",
        duplicate_cloid: CloidRule = "accept",
    ) -> None:
        self.clock = clock
        base = mirror.markets.config if mirror is not None else default_config(seed)
        config = dataclasses.replace(base, faucet_usdc=faucet, batch=batch, duplicate_cloid=duplicate_cloid)
        self.engine = Exchange(config, clock)
        self.market: SyntheticMarket | None = None
        if mirror is not None:  # the source's prices, makers around them (a mirror always has its makers)
            from ..mirror.market import MirroredMarket  # it brings the HTTP client: paper trading only

            self.market = MirroredMarket(self.engine, seed, mirror)
        elif market:
            self.market = SyntheticMarket(self.engine, seed, thin=thin_book)
        self.former_agents = FormerAgents(self.engine)  # a revoked or expired agent's signature is refused

    # ---- plumbing ----------------------------------------------------------------------------------

    def set_publisher(self, publish: Callable[[str, str, Any], None], wanted: Callable[[str, str], bool]) -> None:
        """Events go to ``publish``; payloads nobody subscribed to are not built (agent events always are:
        ``former_agents`` follows them)."""
        self.engine.add_listener(publish)
        self.engine.interest = lambda channel, key: channel == "agent" or wanted(channel, key)

    def resolve_symbol(self, ref: Any) -> str | None:
        """An instrument's name from its name or id (int or digits); None if unknown."""
        if isinstance(ref, bool) or not isinstance(ref, str | int):
            return None
        try:
            return self.engine.market(ref).name
        except (EngineRejected, KeyError, ValueError):
            return None

    def instrument_id(self, symbol: str) -> int:
        return self.engine.market(symbol).id

    def snapshot(self, channel: str, key: str) -> Any:
        """What a new subscriber of (channel, key) gets first (see ``pictures``)."""
        return first_picture(self.engine, channel, key)

    def tick(self, now_ms: int) -> None:
        if self.market is not None:
            self.market.step(now_ms)
        self.engine.tick(now_ms)

    def produce_block(self) -> None:
        self.engine.produce_block()

    def flush(self) -> None:
        self.engine.flush_events()

    # ---- accounts and actions ----------------------------------------------------------------------

    def known_key(self, signer: str, now_ms: int) -> tuple[str, bool] | None:
        """(account, as_agent) for a key the exchange knows, None for a key never seen.

        A valid agent acts for its owner; a known account is its own. A revoked or expired agent is known (its
        signature is recognised under either network's source) and is refused by ``former_agent``.
        """
        owner = self.engine.owner_of(signer, now_ms)
        if owner is not None:
            return checksum_address(owner), True
        if signer.lower() in self.engine.accounts or self.former_agents.known(signer):
            return checksum_address(signer), False
        return None

    def former_agent(self, signer: str, now_ms: int) -> FormerAgent | None:
        """The revoked or expired agent ``signer`` is, whose actions are refused (see ``agent_keys``)."""
        return self.former_agents.refused(signer, now_ms)

    def ensure_account(self, address: str) -> None:
        self.engine.ensure_account(address)

    def action(self, name: str, account: str, data: dict[str, Any], code: int) -> ActionResult:
        """Apply a checked, authorised action; ``Rejected`` (with nothing changed) when the engine refuses."""
        from .actions import Rejected

        try:
            return ACTIONS[name](self.engine, account, data, code)
        except EngineRejected as exc:
            raise Rejected(str(exc)) from None

    # ---- queries -----------------------------------------------------------------------------------

    def info(self, method: str, params: dict[str, Any]) -> Any:
        name = _snake(method)
        return self._answer(INFO.get(name), f"unknown method {method!r}", Params(name, params))

    def explorer(self, method: str, params: dict[str, Any]) -> Any:
        handler = EXPLORER.get(_snake(method))
        return self._answer(handler, f"unknown explorer method {method!r}", Params(method, params))

    def _answer(self, handler: Query | None, unknown: str, params: Params) -> Any:
        """``handler``'s answer to ``params``; a ``QueryError`` saying ``unknown`` without a handler, or naming the
        method with the engine's refusal."""
        if handler is None:
            raise QueryError(unknown)
        try:
            return handler(self.engine, params)
        except EngineRejected as exc:
            raise QueryError(f"{params.method}: {exc}") from None


def _symbol(e: Exchange, p: Params, name: str = "symbol", *, allow_all: bool = True) -> str:
    value = p.string(name, "all" if allow_all else None)
    if allow_all and value == "all":
        return "all"
    try:
        return e.market(value).name
    except (EngineRejected, KeyError, ValueError):
        raise QueryError(f"{p.method}: params.{name}: unknown instrument {value!r}"[:160]) from None


def _chart(e: Exchange, p: Params) -> Any:
    ident = p.raw.get("instrument_id", p.raw.get("symbol"))
    if ident is None:
        raise QueryError("chart: params.symbol (or instrument_id): missing")
    key = "instrument_id" if p.has("instrument_id") else "symbol"
    name = _symbol(e, Params("chart", {key: ident}), key, allow_all=False)
    frm, to = p.integer("from"), p.integer("to")
    # from/to in seconds or ms: values past 1e11 are taken as ms (protocol-notes 9.2)
    frm_ms = frm if frm > 10**11 else frm * 1000
    to_ms = to if to > 10**11 else to * 1000
    return e.chart(name, p.choice("chart_type", CHART_TYPES, "ltp"), p.choice("resolution", RESOLUTIONS), frm_ms, to_ms)


def _block(e: Exchange, p: Params) -> Any:
    if p.raw.get("block_hash") is not None:
        result = e.block(block_hash=p.string("block_hash"))
    else:
        result = e.block(block_height=p.integer("block_height"))
    if result is None:
        raise QueryError("block: no such block")
    return result


def _transaction(e: Exchange, p: Params) -> Any:
    result = e.transaction(p.string("tx_hash"))
    if result is None:
        raise QueryError("transaction: no such transaction")
    return result


def _transactions(e: Exchange, p: Params) -> Any:
    flt = p.raw.get("filter") or {}
    if not isinstance(flt, dict):
        raise QueryError("transactions: params.filter: expected an object")
    unknown = sorted(set(flt) - {"account", "tx_type"})
    if unknown:
        raise QueryError(f"transactions: params.filter: unknown field {unknown[0]!r} (account, tx_type)"[:160])
    f = Params("transactions", {k: v for k, v in flt.items() if v is not None})
    account = f.optional_user("account")
    tx_type = f.integer("tx_type") if f.has("tx_type") else None
    return e.transactions(p.integer("offset", 0), p.integer("limit", 20, lo=1, hi=1000), account, tx_type)


def _vault_address(p: Params) -> str:
    """``vault_address``, or ``vaultAddress`` as the TypeScript SDK sends it."""
    return p.user("vaultAddress" if p.has("vaultAddress") and not p.has("vault_address") else "vault_address")


def _vault_balance(e: Exchange, p: Params) -> Any:
    return e.vault_balance(_vault_address(p), p.optional_user("user"))


def _account_info(e: Exchange, p: Params) -> Any:
    cid = p.raw.get("collateralID", p.raw.get("collateralId"))
    collateral = Params("account_info", {"collateralID": cid}).integer("collateralID") if cid is not None else None
    return e.account_info(p.user(), collateral, p.boolean("includeHistory"))


def _orders(data: dict[str, Any]) -> list[OrderRequest]:
    return [OrderRequest.from_wire(o) for o in data["orders"]]


ACTIONS: dict[str, Callable[[Exchange, str, dict[str, Any], int], ActionResult]] = {
    "placeOrder": lambda e, a, d, c: e.place_orders(
        a, _orders(d), BrokerConfig.from_wire(d.get("brokerConfig")), tx_type=c
    ),
    "cancelByOid": lambda e, a, d, c: e.cancel_by_oid(
        a, [(x["oid"], x["instrumentId"]) for x in d["cancels"]], tx_type=c
    ),
    "cancelByCloid": lambda e, a, d, c: e.cancel_by_cloid(
        a, [(x["cloid"], x["instrumentId"]) for x in d["cancels"]], tx_type=c
    ),
    "cancelAll": lambda e, a, d, c: e.cancel_all(a, tx_type=c),
    "cancelByInstrument": lambda e, a, d, c: e.cancel_by_instrument(a, d["instrumentId"], tx_type=c),
    "spotWithdrawRequest": lambda e, a, d, c: e.withdraw_spot(
        a, d["collateralId"], d["amount"], d["chainId"], nonce=d["nonce"], tx_type=c
    ),
    "derivativeWithdrawRequest": lambda e, a, d, c: e.withdraw_derivative(
        a, d["collateralId"], d["amount"], d["chainId"], nonce=d["nonce"], tx_type=c
    ),
    "spotBalanceTransferRequest": lambda e, a, d, c: e.transfer_spot(
        a, d["collateralId"], d["amount"], d["destination"], tx_type=c
    ),
    "derivativeBalanceTransferRequest": lambda e, a, d, c: e.transfer_derivative(
        a, d["collateralId"], d["amount"], d["destination"], tx_type=c
    ),
    "internalBalanceTransferRequest": lambda e, a, d, c: e.transfer_internal(
        a, d["collateralId"], d["amount"], d["toDerivativesAccount"], tx_type=c
    ),
    "depositToVault": lambda e, a, d, c: e.vault_deposit(a, d["vaultAddress"], d["amount"], tx_type=c),
    "redeemFromVault": lambda e, a, d, c: e.vault_redeem(a, d["vaultAddress"], d["shares"], tx_type=c),
    "addAgent": lambda e, a, d, c: e.add_agent(a, d["agentName"], d["agent"], d["validUntil"], tx_type=c),
    "revokeAgent": lambda e, a, d, c: e.revoke_agent(a, d["agent"], tx_type=c),
    "updatePerpInstrumentLeverage": lambda e, a, d, c: e.set_leverage(a, d["instrumentId"], d["leverage"], tx_type=c),
    "approveBrokerFee": lambda e, a, d, c: e.approve_broker_fee(a, d["broker"], d["maxFeeRate"], tx_type=c),
    "createReferralCode": lambda e, a, d, c: e.create_referral_code(a, d["code"], tx_type=c),
    "setReferrer": lambda e, a, d, c: e.set_referrer(a, d["code"], tx_type=c),
    "claimReferralRewards": lambda e, a, d, c: e.claim_referral_rewards(a, d["collateralId"], d["spot"], tx_type=c),
}

INFO: dict[str, Query] = {
    "account_summary": lambda e, p: e.account_summary(p.user()),
    "account_info": _account_info,
    "account_history": lambda e, p: e.account_history(p.user()),
    "referral_summary": lambda e, p: e.referral_summary(p.user()),
    "brokers_check": lambda e, p: e.brokers_check(p.optional_user("user"), p.optional_user("broker"), *p.page()),
    "fills": lambda e, p: e.fills(p.user(), *p.page()),
    "open_orders": lambda e, p: e.open_orders(p.user(), *p.page()),
    "order_history": lambda e, p: e.order_history(p.user(), *p.page()),
    "funding_history": lambda e, p: e.funding_history(p.user(), *p.page()),
    "positions": lambda e, p: e.positions(
        p.user(), _symbol(e, p, "instrument", allow_all=False) if p.has("instrument") else None
    ),
    "transfer_history": lambda e, p: e.transfer_history(p.user(), *p.page()),
    "instrument_leverage": lambda e, p: e.instrument_leverage(p.user(), _symbol(e, p, allow_all=False)),
    "all_agents": lambda e, p: e.all_agents(p.user()),
    "instruments": lambda e, p: e.instruments(p.choice("type", ("perps", "spot", "all"), "all")),
    "ticker": lambda e, p: e.ticker(_symbol(e, p)),
    "bbo": lambda e, p: e.bbo(_symbol(e, p)),
    "mids": lambda e, p: e.mids(_symbol(e, p)),
    "orderbook": lambda e, p: e.orderbook(_symbol(e, p, allow_all=False), p.integer("depth", 50, lo=1, hi=1000)),
    "supported_collateral": lambda e, p: e.supported_collateral(p.string("symbol")),
    "chart": _chart,
    "oracle": lambda e, p: e.oracle(p.string("symbol")),
    "trades": lambda e, p: e.trades(_symbol(e, p, allow_all=False), p.integer("limit", 100, lo=1, hi=1000)),
    "user_fees": lambda e, p: e.user_fees(p.user()),
    "vaults": lambda e, p: e.vault_list(),
    "sub_vaults": lambda e, p: e.sub_vaults(_vault_address(p)),
    "vault_balance": _vault_balance,
}
EXPLORER: dict[str, Query] = {
    "block": _block,
    "blocks": lambda e, p: e.blocks(p.integer("offset", 0), p.integer("limit", 20, lo=1, hi=1000)),
    "transaction": _transaction,
    "transactions": _transactions,
}
