"""The typed client: a method per /exchange action, /info method and /explorer method.

>>> async with Client("http://127.0.0.1:8080", signer=Signer(key)) as c:
...     book = await c.orderbook("BTC-PERP")
...     ack = await c.place_order([order_item(1, "b", "65000", "0.01")])

Requests follow the ``sdk`` dialect by default (what the exchange's own SDKs send: numeric action types,
cancelByCloid signed as 1312); ``dialect="seed"`` sends the interface's spelling. Results are
``tui.api.models`` records; a response that does not match its record raises ``DecodeError``, a refused
action ``ActionRejected``, an action applied to another account than ``acting_for`` ``AccountMismatch``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from decimal import Decimal
from typing import Any, TypeVar

from . import models as m
from .errors import NoSigningKey
from .http import HttpClient
from .signing import Signer, checksum_address
from .wire import decimal_str

__all__ = ["Client"]

T = TypeVar("T")
Amount = Decimal | str | int


class Client(HttpClient):
    """``HttpClient`` with typed methods. See the module docstring."""

    async def _info(self, type_: type[T], method: str, **params: Any) -> T:
        return m.decode(await self.send("info", {"method": method, "params": _clean(params)}), type_)

    async def _explorer(self, type_: type[T], method: str, **params: Any) -> T:
        return m.decode(await self.send("explorer", {"method": method, "params": _clean(params)}), type_)

    async def iter_pages(self, type_: type[T], method: str, *, limit: int = 100, **params: Any) -> AsyncIterator[T]:
        """Every record of a paginated method, following ``has_next``."""
        page = 1
        while True:
            env = await self._info(m.Page[type_], method, page=page, limit=limit, **params)  # type: ignore[valid-type]
            for item in env.data:
                yield item
            if not env.has_next:
                return
            page += 1

    # ---- market data -------------------------------------------------------------------------------

    async def instruments(self, type: str = "all") -> m.Instruments:
        return await self._info(m.Instruments, "instruments", type=type)

    async def supported_collateral(self, symbol: str = "all") -> list[m.Collateral]:
        return await self._info(list[m.Collateral], "supported_collateral", symbol=symbol)

    async def ticker(self, symbol: str = "all") -> list[m.Ticker]:
        return await self._info(list[m.Ticker], "ticker", symbol=symbol)

    async def bbo(self, symbol: str = "all") -> list[m.Bbo]:
        return await self._info(list[m.Bbo], "bbo", symbol=symbol)

    async def mids(self, symbol: str = "all") -> list[m.Mid]:
        return await self._info(list[m.Mid], "mids", symbol=symbol)

    async def orderbook(self, symbol: str, depth: int | None = None) -> m.OrderBook:
        return await self._info(m.OrderBook, "orderbook", symbol=symbol, depth=depth)

    async def trades(self, symbol: str, limit: int | None = None) -> list[m.Trade]:
        return await self._info(list[m.Trade], "trades", symbol=symbol, limit=limit)

    async def oracle(self, symbol: str) -> m.Oracle:
        return await self._info(m.Oracle, "oracle", symbol=symbol)

    async def chart(
        self, instrument_id: int, chart_type: str, resolution: str, from_s: int, to_s: int
    ) -> list[m.Candle]:
        """Candles; ``from_s``/``to_s`` in Unix seconds. The seed sends the id as ``symbol`` (a string)."""
        ident: dict[str, Any] = (
            {"symbol": str(instrument_id)} if self.dialect == "seed" else {"instrument_id": instrument_id}
        )
        return await self._info(
            list[m.Candle],
            "chart",
            **ident,
            chart_type=chart_type,
            resolution=resolution,
            **{"from": from_s, "to": to_s},
        )

    # ---- account -----------------------------------------------------------------------------------

    async def account_summary(self, user: str) -> m.AccountSummary:
        return await self._info(m.AccountSummary, "account_summary", user=user)

    async def account_info(
        self, user: str, collateral_id: int | None = None, include_history: bool = False
    ) -> m.AccountInfo:
        key = "collateralID" if self.dialect == "seed" else "collateralId"
        return await self._info(
            m.AccountInfo, "account_info", user=user, **{key: collateral_id}, includeHistory=include_history
        )

    async def account_history(self, user: str) -> list[m.AccountHistoryPoint]:
        return await self._info(list[m.AccountHistoryPoint], "account_history", user=user)

    async def referral_summary(self, user: str) -> m.ReferralSummary:
        return await self._info(m.ReferralSummary, "referral_summary", user=user)

    async def brokers_check(
        self, user: str, broker: str | None = None, page: int | None = None, limit: int | None = None
    ) -> m.Page[m.BrokerApproval]:
        return await self._info(
            m.Page[m.BrokerApproval], "brokers_check", user=user, broker=broker, page=page, limit=limit
        )

    async def fills(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Fill]:
        return await self._info(m.Page[m.Fill], "fills", user=user, page=page, limit=limit)

    async def open_orders(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Order]:
        return await self._info(m.Page[m.Order], "open_orders", user=user, page=page, limit=limit)

    async def order_history(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Order]:
        return await self._info(m.Page[m.Order], "order_history", user=user, page=page, limit=limit)

    async def funding_history(
        self, user: str, page: int | None = None, limit: int | None = None
    ) -> m.Page[m.FundingRecord]:
        return await self._info(m.Page[m.FundingRecord], "funding_history", user=user, page=page, limit=limit)

    async def positions(self, user: str, instrument: str | None = None) -> list[m.Position]:
        return await self._info(list[m.Position], "positions", user=user, instrument=instrument)

    async def transfer_history(
        self, user: str, page: int | None = None, limit: int | None = None
    ) -> list[m.TransferRecord]:
        return await self._info(list[m.TransferRecord], "transfer_history", user=user, page=page, limit=limit)

    async def instrument_leverage(self, user: str, symbol: str) -> m.LeverageSetting:
        return await self._info(m.LeverageSetting, "instrument_leverage", user=user, symbol=symbol)

    async def all_agents(self, user: str) -> list[m.Agent]:
        return await self._info(list[m.Agent], "all_agents", user=user)

    async def user_fees(self, user: str) -> m.UserFees:
        return await self._info(m.UserFees, "user_fees", user=user)

    async def vaults(self) -> m.VaultList:
        return await self._info(m.VaultList, "vaults")

    async def sub_vaults(self, vault_address: str) -> list[m.SubVault]:
        return await self._info(list[m.SubVault], "sub_vaults", vault_address=vault_address)

    async def vault_balance(self, vault_address: str, user: str) -> m.VaultBalance:
        return await self._info(m.VaultBalance, "vault_balance", vault_address=vault_address, user=user)

    # ---- explorer ----------------------------------------------------------------------------------

    async def block(self, height: int | None = None, block_hash: str | None = None) -> m.BlockDetail:
        if (height is None) == (block_hash is None):
            raise ValueError("give a block height or a block hash")
        return await self._explorer(m.BlockDetail, "block", block_height=height, block_hash=block_hash)

    async def blocks(self, offset: int = 0, limit: int = 20) -> m.BlockList:
        return await self._explorer(m.BlockList, "blocks", offset=offset, limit=limit)

    async def transaction(self, tx_hash: str) -> m.Transaction:
        return await self._explorer(m.Transaction, "transaction", tx_hash=tx_hash)

    async def transactions(
        self, offset: int = 0, limit: int = 20, account: str | None = None, tx_type: int | None = None
    ) -> m.TransactionList:
        flt = _clean({"account": account, "tx_type": tx_type})
        return await self._explorer(m.TransactionList, "transactions", offset=offset, limit=limit, filter=flt or None)

    # ---- actions -----------------------------------------------------------------------------------

    async def act(self, name: str, fields: dict[str, Any], *, signer: Signer | None = None) -> m.ExchangeResponse[Any]:
        """Sign and send action ``name``; the decoded envelope, or ``ActionRejected``."""
        return m.decode(await self.exchange(name, fields, signer=signer), m.ExchangeResponse[Any])

    async def place_order(
        self,
        orders: list[dict[str, Any]],
        *,
        broker: str | None = None,
        broker_fee: Amount | None = None,
        expires_after: int | None = None,
    ) -> m.ExchangeResponse[Any]:
        """``orders`` built with ``tui.api.wire.order_item``. ``expires_after``: the exchange's ms after which it must
        not apply them (default: the client's ``expiry_ms`` from the nonce); given, an expiry refusal is not signed
        again on the exchange's clock (the caller chose the time, and may be settling by it)."""
        config = None if broker is None else {"broker": checksum_address(broker), "fee": decimal_str(broker_fee or 0)}
        fields: dict[str, Any] = {"orders": orders, "brokerConfig": config}
        if expires_after is not None:
            fields["expiresAfter"] = expires_after
        return await self.act("placeOrder", fields)

    async def cancel_by_oid(self, cancels: Iterable[tuple[int, int]]) -> m.ExchangeResponse[Any]:
        """``cancels``: (oid, instrument_id) pairs."""
        return await self.act("cancelByOid", {"cancels": [{"oid": o, "instrumentId": i} for o, i in cancels]})

    async def cancel_by_cloid(self, cancels: Iterable[tuple[str, int]]) -> m.ExchangeResponse[Any]:
        """``cancels``: (cloid, instrument_id) pairs."""
        return await self.act("cancelByCloid", {"cancels": [{"cloid": c, "instrumentId": i} for c, i in cancels]})

    async def cancel_by_instrument(self, instrument_id: int) -> m.ExchangeResponse[Any]:
        return await self.act("cancelByInstrument", {"instrumentId": instrument_id})

    async def cancel_all(self) -> m.ExchangeResponse[Any]:
        return await self.act("cancelAll", {})

    async def withdraw(
        self, collateral_id: int, amount: Amount, chain_id: int, *, spot: bool = False
    ) -> m.ExchangeResponse[Any]:
        name = "spotWithdrawRequest" if spot else "derivativeWithdrawRequest"
        return await self.act(name, {"collateralId": collateral_id, "amount": decimal_str(amount), "chainId": chain_id})

    async def transfer(
        self, collateral_id: int, amount: Amount, destination: str, *, spot: bool = False
    ) -> m.ExchangeResponse[Any]:
        name = "spotBalanceTransferRequest" if spot else "derivativeBalanceTransferRequest"
        fields = {
            "collateralId": collateral_id,
            "amount": decimal_str(amount),
            "destination": checksum_address(destination),
        }
        return await self.act(name, fields)

    async def internal_transfer(
        self, collateral_id: int, amount: Amount, *, to_derivatives: bool
    ) -> m.ExchangeResponse[Any]:
        fields = {"collateralId": collateral_id, "amount": decimal_str(amount), "toDerivativesAccount": to_derivatives}
        return await self.act("internalBalanceTransferRequest", fields)

    async def vault_deposit(self, vault_address: str, amount: Amount) -> m.ExchangeResponse[Any]:
        fields = {"vaultAddress": checksum_address(vault_address), "amount": decimal_str(amount)}
        return await self.act("depositToVault", fields)

    async def vault_redeem(self, vault_address: str, shares: Amount) -> m.ExchangeResponse[Any]:
        fields = {"vaultAddress": checksum_address(vault_address), "shares": decimal_str(shares)}
        return await self.act("redeemFromVault", fields)

    async def set_leverage(self, instrument_id: int, leverage: Amount) -> m.ExchangeResponse[Any]:
        return await self.act(
            "updatePerpInstrumentLeverage", {"instrumentId": instrument_id, "leverage": decimal_str(leverage)}
        )

    async def approve_broker_fee(self, broker: str, max_fee_rate: Amount) -> m.ExchangeResponse[Any]:
        fields = {"broker": checksum_address(broker), "maxFeeRate": decimal_str(max_fee_rate)}
        return await self.act("approveBrokerFee", fields)

    async def create_referral_code(self, code: str) -> m.ExchangeResponse[Any]:
        return await self.act("createReferralCode", {"code": code})

    async def set_referrer(self, code: str) -> m.ExchangeResponse[Any]:
        return await self.act("setReferrer", {"code": code})

    async def claim_referral_rewards(self, collateral_id: int, *, spot: bool = False) -> m.ExchangeResponse[Any]:
        return await self.act("claimReferralRewards", {"collateralId": collateral_id, "spot": spot})

    async def add_agent(
        self, agent: Signer, name: str, valid_until_ms: int, *, for_account: str = ""
    ) -> m.ExchangeResponse[Any]:
        """Approve ``agent`` to trade for this account. The agent key signs ``{signer, nonce}`` first."""
        if self.signer is None:
            raise NoSigningKey
        nonce = self.nonces.next()
        inner = agent.sign_action({"signer": self.signer.address, "nonce": nonce}, 1201, testnet=self.testnet)
        fields = {
            "agentName": name,
            "agent": agent.address,
            "forAccount": for_account,
            "signature": inner,
            "validUntil": valid_until_ms,
        }
        body = self.sign("addAgent", fields, nonce=nonce)
        return m.decode(await self.submit(body), m.ExchangeResponse[Any])

    async def revoke_agent(self, agent: str, *, for_account: str = "") -> m.ExchangeResponse[Any]:
        return await self.act("revokeAgent", {"agent": checksum_address(agent), "forAccount": for_account})


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}
