"""Relations between accounts: referral codes and rewards, broker fee approvals, trading agents.

Referrals: a code is 3-20 characters of letters, digits, ``_`` or ``-``, unique regardless of case, at
most ``MAX_CODES`` per account. An account sets a referrer once, by code, never its own nor one of its own
referred users. Commission accrues in ``fills`` (see there) and is claimed to the USDC balance
(derivatives, or spot when ``spot``).

Brokers: ``approve_broker_fee(broker, max_fee_rate)`` with 0 <= rate <= ``MAX_BROKER_FEE`` (re-approving
replaces the rate; 0 leaves only zero-fee orders allowed). placeOrder's ``brokerConfig`` is refused unless
the broker is approved and its fee is within the approved maximum.

Agents: the server verifies the signatures; the engine keeps the registry. One agent address serves one
account; it acts for it while not revoked and ``valid_until`` is in the future. Expired agents are
dropped by ``tick`` (with an ``agent`` event).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tui.api.signing import SigningError, checksum_address

from .accounts import Account
from .core import ExchangeCore
from .errors import Rejected
from .fills import Settlement
from .instruments import USDC_ID
from .requests import ActionResult
from .values import ZERO, dstr, parse_decimal, parse_int
from .views import envelope, paginate

MAX_CODES = 10
MAX_AGENTS = 10
MAX_BROKER_FEE = Decimal("0.01")
_CODE = re.compile(r"[A-Za-z0-9_-]{3,20}")


@dataclass(slots=True)
class Agent:
    owner: Account
    address: str  # EIP-55
    name: str
    created_ms: int
    valid_until: int

    def record(self) -> dict[str, Any]:
        """``all_agents`` item."""
        return {
            "user": self.owner.display,
            "agent_address": self.address,
            "agent_name": self.name,
            "created_at_block_timestamp": self.created_ms,
            "valid_until_timestamp": self.valid_until,
        }


class Relations:
    """Referrals, brokers, agents."""

    def __init__(self, core: ExchangeCore, settlement: Settlement) -> None:
        self.core = core
        self.settlement = settlement
        self.referral_codes: dict[str, Account] = {}  # upper-case code -> owner
        self.agents: dict[str, Agent] = {}  # agent addr (lower) -> agent

    # ------------------------------------------------------------------ referrals
    def create_referral_code(self, account: str, code: str, *, tx_type: int = 1208) -> ActionResult:
        core = self.core
        acct = core.account(account)
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise Rejected("a referral code is 3-20 letters, digits, '_' or '-'")
        if code.upper() in self.referral_codes:
            raise Rejected(f"referral code {code!r} is taken")
        if len(acct.codes) >= MAX_CODES:
            raise Rejected(f"at most {MAX_CODES} referral codes per account")
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        self.referral_codes[code.upper()] = acct
        acct.codes.append(code)
        return ActionResult(tx, tx_type, {})

    def set_referrer(self, account: str, code: str, *, tx_type: int = 1209) -> ActionResult:
        core = self.core
        acct = core.account(account)
        owner = self.referral_codes.get(code.upper()) if isinstance(code, str) else None
        if owner is None:
            raise Rejected(f"unknown referral code {code!r}")
        if owner is acct:
            raise Rejected("you cannot use your own referral code")
        if acct.referrer is not None:
            raise Rejected("a referrer is already set for this account")
        if owner.referrer is acct:
            raise Rejected("that code belongs to an account you referred")
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        acct.referrer = owner
        acct.referrer_code = next(c for c in owner.codes if c.upper() == code.upper())
        acct.refer_ms = now
        owner.referred[acct.addr] = now
        return ActionResult(tx, tx_type, {})

    def claim_referral_rewards(
        self, account: str, collateral_id: int, spot: bool, *, tx_type: int = 1210
    ) -> ActionResult:
        core = self.core
        acct = core.account(account)
        cid = parse_int(collateral_id, "collateralId")
        if not isinstance(spot, bool):
            raise Rejected("spot must be true or false")
        amount = acct.rewards.get((cid, spot), ZERO)
        if not amount:
            raise Rejected(f"no {'spot' if spot else 'perp'} referral rewards to claim in collateral {cid}")
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        del acct.rewards[(cid, spot)]
        acct.claimed_rewards[(cid, spot)] = acct.claimed_rewards.get((cid, spot), ZERO) + amount
        if spot:
            core.credit_spot(acct, cid, amount)
        else:
            core.credit(acct, cid, amount)
        acct.reward_history.append(
            {
                "Account": acct.display,
                "CollateralID": cid,
                "Source": "referral_commission",
                "IsSpot": spot,
                "Amount": dstr(amount),
                "ClaimAmount": dstr(amount),
                "CreatedAt": now,
            }
        )
        core.dirty_accounts.add(acct)
        return ActionResult(tx, tx_type, {})

    def referral_summary(self, user: str) -> dict[str, Any]:
        """``referral_summary`` (volumes in USDC notional; rolling = the last 30 days)."""
        core = self.core
        acct = core.view(user)
        referred: dict[str, Any] = {}
        for addr, joined in acct.referred.items():
            user_acct = core.accounts[addr]
            vols = {
                (k, mk): acct.referred_volume.get((addr, k, mk), ZERO)
                for k in ("perp", "spot", "stable_spot")
                for mk in (True, False)
            }
            referred[user_acct.display] = {
                "code": user_acct.referrer_code,
                "joined_at": joined,
                "referred_volume": sum(vols.values(), ZERO),
                **{
                    f"{k}_volume": {"maker_volume": vols[(k, True)], "taker_volume": vols[(k, False)]}
                    for k in ("perp", "spot", "stable_spot")
                },
                "referred_perp_rewards": acct.referred_rewards.get((addr, False), ZERO),
                "referred_spot_rewards": acct.referred_rewards.get((addr, True), ZERO),
            }
        today = core.clock.now_ms() // 86_400_000
        rolling = sum((acct.daily_volume.get(("referred", d), ZERO) for d in range(today - 29, today + 1)), ZERO)
        tier = self.settlement.referral_tier(acct)
        return {
            "address": acct.display,
            "referrer": acct.referrer.display if acct.referrer else "",
            "referrer_code": acct.referrer_code,
            "refer_timestamp": acct.refer_ms,
            "codes": list(acct.codes),
            "is_affiliate": bool(acct.codes),
            "referred_users": referred,
            "to_claim_perp_rewards": _sum_rewards(acct.rewards, False),
            "to_claim_spot_rewards": _sum_rewards(acct.rewards, True),
            "claimed_perp_rewards": _sum_rewards(acct.claimed_rewards, False),
            "claimed_spot_rewards": _sum_rewards(acct.claimed_rewards, True),
            "total_referred_volume": acct.referred_total,
            "rolling_referred_volume": rolling,
            "referral_tier": {
                "total_referred_volume": tier.volume,
                "fee_discount_rate": tier.fee_discount,
                "referrer_commission": tier.commission,
            },
            "updated_at": max([acct.refer_ms, *acct.referred.values()], default=acct.created_ms),
        }

    def account_info(
        self, user: str, collateral_id: int | None = None, include_history: bool = False
    ) -> dict[str, Any]:
        """``account_info``: the account object, claimable rewards, and (if asked) the claim history."""
        core = self.core
        acct = core.view(user)
        rewards = [
            {
                "Account": acct.display,
                "CollateralID": cid,
                "Source": "referral_commission",
                "IsSpot": spot,
                "Amount": dstr(amount + acct.claimed_rewards.get((cid, spot), ZERO)),
                "ClaimAmount": dstr(amount),
                "CreatedAt": core.clock.now_ms(),
            }
            for (cid, spot), amount in acct.rewards.items()
            if collateral_id in (None, cid)
        ]
        history = [r for r in reversed(acct.reward_history) if collateral_id in (None, r["CollateralID"])]
        account = {
            "address": acct.display,
            "role": 0,
            "margin_mode": "cross",
            "multi_asset_mode": False,
            "hedge_mode": False,
            "referrer": acct.referrer.display if acct.referrer else "",
            "referral_codes": list(acct.codes),
            "referral_timestamp": acct.refer_ms,
            "created_at_block_timestamp": acct.created_ms,
        }
        return {
            **account,  # the Python SDK's AccountInfoResponse reads them at the top, the TypeScript SDK's nested
            "account": account,
            "rewards": rewards,
            "history": history if include_history else [],
        }

    # ------------------------------------------------------------------ brokers
    def approve_broker_fee(self, account: str, broker: str, max_fee_rate: Any, *, tx_type: int = 1207) -> ActionResult:
        core = self.core
        acct = core.account(account)
        rate = parse_decimal(max_fee_rate, "maxFeeRate")
        if rate > MAX_BROKER_FEE:
            raise Rejected(f"maxFeeRate must be at most {dstr(MAX_BROKER_FEE)}")
        display = _checked(broker, "broker")
        if display.lower() == acct.addr:
            raise Rejected("an account cannot be its own broker")
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        core.account(display)
        acct.brokers[display.lower()] = (rate, now)
        return ActionResult(tx, tx_type, {})

    def brokers_check(
        self, user: str | None = None, broker: str | None = None, page: Any = None, limit: Any = None
    ) -> dict[str, Any]:
        """Broker approvals (of ``user`` and/or for ``broker``), most recently updated first."""
        core = self.core
        owners = [core.peek(user)] if user else list(core.accounts.values())
        rows = [
            (a, b, rate, ms)
            for a in owners
            if a is not None
            for b, (rate, ms) in a.brokers.items()
            if broker is None or b == broker.lower()
        ]
        rows.sort(key=lambda r: r[3], reverse=True)
        chunk, meta = paginate(rows, page, limit)
        return envelope(
            [
                {
                    "account": a.display,
                    "broker": core.accounts[b].display,
                    "max_fee_rate": dstr(rate),
                    "updated_at": ms // 1000,
                }
                for a, b, rate, ms in chunk
            ],
            meta,
        )

    # ------------------------------------------------------------------ agents
    def add_agent(self, account: str, name: str, agent: str, valid_until: int, *, tx_type: int = 1201) -> ActionResult:
        core = self.core
        acct = core.account(account)
        display = _checked(agent, "agent")
        key = display.lower()
        now = core.clock.now_ms()
        until = parse_int(valid_until, "validUntil")
        if not isinstance(name, str) or len(name) > 64:
            raise Rejected("agentName must be a string of at most 64 characters")
        if key == acct.addr:
            raise Rejected("an account cannot be its own agent")
        if until <= now:
            raise Rejected("validUntil is in the past")
        existing = self.agents.get(key)
        if existing is not None and existing.owner is not acct:
            raise Rejected(f"{display} is already an agent of another account")
        if existing is None and len(acct.agents) >= MAX_AGENTS:
            raise Rejected(f"at most {MAX_AGENTS} agents per account")
        tx = core.tx(acct, tx_type, now)
        ag = Agent(acct, display, name, now, until)
        self.agents[key] = ag
        acct.agents[key] = ag
        self._agent_event(ag, "added")
        return ActionResult(tx, tx_type, {})

    def revoke_agent(self, account: str, agent: str, *, tx_type: int = 1211) -> ActionResult:
        core = self.core
        acct = core.account(account)
        key = agent.lower() if isinstance(agent, str) else ""
        ag = acct.agents.get(key)
        if ag is None:
            raise Rejected(f"{agent!r} is not an agent of this account")
        tx = core.tx(acct, tx_type, core.clock.now_ms())
        del acct.agents[key]
        del self.agents[key]
        self._agent_event(ag, "revoked")
        return ActionResult(tx, tx_type, {})

    def owner_of(self, signer: str, now_ms: int | None = None) -> str | None:
        """The lower-case account an agent key acts for, or None (not an agent, revoked or expired)."""
        ag = self.agents.get(signer.lower())
        if ag is None:
            return None
        now = self.core.clock.now_ms() if now_ms is None else now_ms
        return ag.owner.addr if ag.valid_until > now else None

    def all_agents(self, user: str) -> list[dict[str, Any]]:
        core = self.core
        acct = core.peek(user)
        now = core.clock.now_ms()
        return [a.record() for a in acct.agents.values() if a.valid_until > now] if acct else []

    def expire_agents(self, now_ms: int | None = None) -> None:
        """Drop the agents whose time is up at ``now_ms`` (default: the clock), each with an ``agent`` event."""
        now = self.core.clock.now_ms() if now_ms is None else now_ms
        for key, ag in [(k, a) for k, a in self.agents.items() if a.valid_until <= now]:
            del self.agents[key]
            del ag.owner.agents[key]
            self._agent_event(ag, "expired")

    def _agent_event(self, ag: Agent, status: str) -> None:
        core = self.core
        if core.listeners:
            core.emit("agent", ag.owner.addr, {**ag.record(), "status": status})


def _sum_rewards(book: dict[tuple[int, bool], Decimal], spot: bool) -> Decimal:
    return sum((v for (cid, s), v in book.items() if s == spot and cid == USDC_ID), ZERO)


def _checked(address: Any, field: str) -> str:
    try:
        return checksum_address(address)
    except (SigningError, TypeError, AttributeError):
        raise Rejected(f"{field} is not an address: {address!r}") from None
