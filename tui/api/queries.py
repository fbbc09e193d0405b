"""The exchange's /info and /explorer methods, typed: a method each, returning ``tui.api.models`` records. Part of
``Client`` (``tui.api.client``), which sends them; kept apart so that the client module is its transport, signing and
sending, and this one the catalogue of what can be asked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypeVar

from . import models as m

__all__ = ["Queries"]

T = TypeVar("T")


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


class Queries:
    """The typed /info and /explorer calls of ``Client``."""

    if TYPE_CHECKING:
        dialect: str

        async def send(self, endpoint: str, body: Any) -> bytes: ...

    # ---- typed calls -----------------------------------------------------------------------------

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
        """Every instrument of ``type`` ("perps", "spot" or "all")."""
        return await self._info(m.Instruments, "instruments", type=type)

    async def supported_collateral(self, symbol: str = "all") -> list[m.Collateral]:
        """The collateral the exchange takes (``symbol``: one, or "all")."""
        return await self._info(list[m.Collateral], "supported_collateral", symbol=symbol)

    async def ticker(self, symbol: str = "all") -> list[m.Ticker]:
        """Tickers of ``symbol`` (or "all")."""
        return await self._info(list[m.Ticker], "ticker", symbol=symbol)

    async def bbo(self, symbol: str = "all") -> list[m.Bbo]:
        """Best bid and offer of ``symbol`` (or "all")."""
        return await self._info(list[m.Bbo], "bbo", symbol=symbol)

    async def mids(self, symbol: str = "all") -> list[m.Mid]:
        """Mid prices of ``symbol`` (or "all")."""
        return await self._info(list[m.Mid], "mids", symbol=symbol)

    async def orderbook(self, symbol: str, depth: int | None = None) -> m.OrderBook:
        """The order book of ``symbol``, ``depth`` levels a side (None: the exchange's default)."""
        return await self._info(m.OrderBook, "orderbook", symbol=symbol, depth=depth)

    async def trades(self, symbol: str, limit: int | None = None) -> list[m.Trade]:
        """The latest trades of ``symbol``, at most ``limit``."""
        return await self._info(list[m.Trade], "trades", symbol=symbol, limit=limit)

    async def oracle(self, symbol: str) -> m.Oracle:
        """The oracle's index and mark prices of ``symbol``."""
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
        """Balances, margin and positions of ``user``."""
        return await self._info(m.AccountSummary, "account_summary", user=user)

    async def account_info(
        self, user: str, collateral_id: int | None = None, include_history: bool = False
    ) -> m.AccountInfo:
        """What the exchange keeps of ``user``'s account (role, modes, referrals)."""
        key = "collateralID" if self.dialect == "seed" else "collateralId"
        return await self._info(
            m.AccountInfo, "account_info", user=user, **{key: collateral_id}, includeHistory=include_history
        )

    async def account_history(self, user: str) -> list[m.AccountHistoryPoint]:
        """``user``'s account value and volumes over time."""
        return await self._info(list[m.AccountHistoryPoint], "account_history", user=user)

    async def referral_summary(self, user: str) -> m.ReferralSummary:
        """``user``'s referrals and their rewards."""
        return await self._info(m.ReferralSummary, "referral_summary", user=user)

    async def brokers_check(
        self, user: str, broker: str | None = None, page: int | None = None, limit: int | None = None
    ) -> m.Page[m.BrokerApproval]:
        """The brokers ``user`` approved (a page)."""
        return await self._info(
            m.Page[m.BrokerApproval], "brokers_check", user=user, broker=broker, page=page, limit=limit
        )

    async def fills(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Fill]:
        """``user``'s fills (a page)."""
        return await self._info(m.Page[m.Fill], "fills", user=user, page=page, limit=limit)

    async def open_orders(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Order]:
        """``user``'s resting orders (a page)."""
        return await self._info(m.Page[m.Order], "open_orders", user=user, page=page, limit=limit)

    async def order_history(self, user: str, page: int | None = None, limit: int | None = None) -> m.Page[m.Order]:
        """``user``'s past orders (a page)."""
        return await self._info(m.Page[m.Order], "order_history", user=user, page=page, limit=limit)

    async def funding_history(
        self, user: str, page: int | None = None, limit: int | None = None
    ) -> m.Page[m.FundingRecord]:
        """Funding ``user`` paid or received (a page)."""
        return await self._info(m.Page[m.FundingRecord], "funding_history", user=user, page=page, limit=limit)

    async def positions(self, user: str, instrument: str | None = None) -> list[m.Position]:
        """``user``'s open positions (of one ``instrument``, or all)."""
        return await self._info(list[m.Position], "positions", user=user, instrument=instrument)

    async def transfer_history(
        self, user: str, page: int | None = None, limit: int | None = None
    ) -> list[m.TransferRecord]:
        """``user``'s deposits, withdrawals and transfers."""
        return await self._info(list[m.TransferRecord], "transfer_history", user=user, page=page, limit=limit)

    async def instrument_leverage(self, user: str, symbol: str) -> m.LeverageSetting:
        """``user``'s leverage on ``symbol``."""
        return await self._info(m.LeverageSetting, "instrument_leverage", user=user, symbol=symbol)

    async def all_agents(self, user: str) -> list[m.Agent]:
        """The agents ``user`` approved."""
        return await self._info(list[m.Agent], "all_agents", user=user)

    async def user_fees(self, user: str) -> m.UserFees:
        """``user``'s fee rates and the volumes they follow."""
        return await self._info(m.UserFees, "user_fees", user=user)

    async def vaults(self) -> m.VaultList:
        """Every vault."""
        return await self._info(m.VaultList, "vaults")

    async def sub_vaults(self, vault_address: str) -> list[m.SubVault]:
        """The sub-vaults of ``vault_address``."""
        return await self._info(list[m.SubVault], "sub_vaults", vault_address=vault_address)

    async def vault_balance(self, vault_address: str, user: str) -> m.VaultBalance:
        """``user``'s share of ``vault_address``."""
        return await self._info(m.VaultBalance, "vault_balance", vault_address=vault_address, user=user)

    # ---- explorer ----------------------------------------------------------------------------------

    async def block(self, height: int | None = None, block_hash: str | None = None) -> m.BlockDetail:
        """One block, by ``height`` or ``block_hash`` (one of the two)."""
        if (height is None) == (block_hash is None):
            raise ValueError("give a block height or a block hash")
        return await self._explorer(m.BlockDetail, "block", block_height=height, block_hash=block_hash)

    async def blocks(self, offset: int = 0, limit: int = 20) -> m.BlockList:
        """A page of blocks, the newest first."""
        return await self._explorer(m.BlockList, "blocks", offset=offset, limit=limit)

    async def transaction(self, tx_hash: str) -> m.Transaction:
        """One transaction, by its hash."""
        return await self._explorer(m.Transaction, "transaction", tx_hash=tx_hash)

    async def transactions(
        self, offset: int = 0, limit: int = 20, account: str | None = None, tx_type: int | None = None
    ) -> m.TransactionList:
        """A page of transactions, of one ``account`` or ``tx_type`` if given."""
        flt = _clean({"account": account, "tx_type": tx_type})
        return await self._explorer(m.TransactionList, "transactions", offset=offset, limit=limit, filter=flt or None)
