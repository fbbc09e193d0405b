"""The exchange's signed actions, typed: a method each, sent through ``Client.act`` (``tui.api.client``), which
signs them. Kept apart from the client module so that it is the transport, signing and sending, and this one the
catalogue of what can be done."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from . import models as m
from .signing import Signer, checksum_address
from .wire import decimal_str

__all__ = ["Actions", "Amount"]

Amount = Decimal | str | int


class Actions:
    """The typed /exchange actions of ``Client``."""

    if TYPE_CHECKING:
        signer: Signer | None
        testnet: bool

        async def exchange(
            self, name: str, fields: dict[str, Any], *, signer: Signer | None = None
        ) -> dict[str, Any]: ...

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
        """Cancel every resting order on ``instrument_id``."""
        return await self.act("cancelByInstrument", {"instrumentId": instrument_id})

    async def cancel_all(self) -> m.ExchangeResponse[Any]:
        """Cancel every resting order of the account."""
        return await self.act("cancelAll", {})

    async def withdraw(
        self, collateral_id: int, amount: Amount, chain_id: int, *, spot: bool = False
    ) -> m.ExchangeResponse[Any]:
        """Withdraw ``amount`` of ``collateral_id`` to chain ``chain_id`` (from spot if ``spot``)."""
        name = "spotWithdrawRequest" if spot else "derivativeWithdrawRequest"
        return await self.act(name, {"collateralId": collateral_id, "amount": decimal_str(amount), "chainId": chain_id})

    async def transfer(
        self, collateral_id: int, amount: Amount, destination: str, *, spot: bool = False
    ) -> m.ExchangeResponse[Any]:
        """Send ``amount`` of ``collateral_id`` to ``destination`` (from spot if ``spot``)."""
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
        """Move ``amount`` of ``collateral_id`` between the spot and derivatives accounts."""
        fields = {"collateralId": collateral_id, "amount": decimal_str(amount), "toDerivativesAccount": to_derivatives}
        return await self.act("internalBalanceTransferRequest", fields)

    async def vault_deposit(self, vault_address: str, amount: Amount) -> m.ExchangeResponse[Any]:
        """Deposit ``amount`` into ``vault_address``."""
        fields = {"vaultAddress": checksum_address(vault_address), "amount": decimal_str(amount)}
        return await self.act("depositToVault", fields)

    async def vault_redeem(self, vault_address: str, shares: Amount) -> m.ExchangeResponse[Any]:
        """Redeem ``shares`` of ``vault_address``."""
        fields = {"vaultAddress": checksum_address(vault_address), "shares": decimal_str(shares)}
        return await self.act("redeemFromVault", fields)

    async def set_leverage(self, instrument_id: int, leverage: Amount) -> m.ExchangeResponse[Any]:
        """Set the account's leverage on ``instrument_id``."""
        return await self.act(
            "updatePerpInstrumentLeverage", {"instrumentId": instrument_id, "leverage": decimal_str(leverage)}
        )

    async def approve_broker_fee(self, broker: str, max_fee_rate: Amount) -> m.ExchangeResponse[Any]:
        """Let ``broker`` charge up to ``max_fee_rate`` on this account's orders."""
        fields = {"broker": checksum_address(broker), "maxFeeRate": decimal_str(max_fee_rate)}
        return await self.act("approveBrokerFee", fields)

    async def create_referral_code(self, code: str) -> m.ExchangeResponse[Any]:
        """Create the referral code ``code``."""
        return await self.act("createReferralCode", {"code": code})

    async def set_referrer(self, code: str) -> m.ExchangeResponse[Any]:
        """Be referred by ``code``."""
        return await self.act("setReferrer", {"code": code})

    async def claim_referral_rewards(self, collateral_id: int, *, spot: bool = False) -> m.ExchangeResponse[Any]:
        """Claim the referral rewards in ``collateral_id`` (spot if ``spot``)."""
        return await self.act("claimReferralRewards", {"collateralId": collateral_id, "spot": spot})

    async def revoke_agent(self, agent: str, *, for_account: str = "") -> m.ExchangeResponse[Any]:
        """Withdraw ``agent``'s approval."""
        return await self.act("revokeAgent", {"agent": checksum_address(agent), "forAccount": for_account})
