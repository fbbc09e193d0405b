"""The referrals screen: referrer, codes, tier, rewards to claim and the users this account referred.

n creates a referral code · s sets this account's referrer by code · c claims rewards. Each is a checked
form and a confirmation (default No).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.api.models import ExchangeResponse, ReferralSummary
from tui.trading.grammar import FieldError, parse_choice, parse_text
from tui.ui.widgets.display import fmt_pct, short_address
from tui.ui.widgets.record_format import fmt_amount, fmt_ms, yes_no
from tui.ui.widgets.record_table import Facts, RecordTable

from .data_screen import ActionPlan, DataScreen, ScreenContext
from .form import FormField, FormScreen

__all__ = ["ReferralsScreen", "parse_code"]

USERS = [
    ("user", "User"), ("code", "Code"), ("joined", "Joined"), ("volume", "Referred volume"),
    ("perp", "Perp maker/taker"), ("spot", "Spot maker/taker"), ("stable", "Stable maker/taker"),
    ("perp_rewards", "Perp rewards"), ("spot_rewards", "Spot rewards"),
]  # fmt: skip


def parse_code(field: str, text: str) -> str:
    """A referral code: 3 to 20 letters, digits, ``_`` or ``-``."""
    code = parse_text(field, text, max_len=20, what="code", allowed="_-")
    if len(code) < 3:
        raise FieldError(field, "a code has at least 3 characters")
    return code


def referral_facts(r: ReferralSummary) -> list[tuple[str, str]]:
    tier = r.referral_tier
    return [
        ("Referrer", r.referrer or "-"),
        ("Referrer code", r.referrer_code or "-"),
        ("Referred at", fmt_ms(r.refer_timestamp)),
        ("My codes", ", ".join(r.codes) or "-"),
        ("Affiliate", yes_no(r.is_affiliate)),
        ("Tier volume", fmt_amount(tier.total_referred_volume, 2)),
        ("Fee discount of those you refer", fmt_pct(tier.fee_discount_rate, signed=False)),  # not yours: theirs
        ("Your commission on their fees", fmt_pct(tier.referrer_commission, signed=False)),
        ("To claim perp / spot", f"{fmt_amount(r.to_claim_perp_rewards)} / {fmt_amount(r.to_claim_spot_rewards)}"),
        ("Claimed perp / spot", f"{fmt_amount(r.claimed_perp_rewards)} / {fmt_amount(r.claimed_spot_rewards)}"),
        ("Referred volume", fmt_amount(r.total_referred_volume, 2)),
        ("Rolling volume", fmt_amount(r.rolling_referred_volume, 2)),
        ("Referred users", str(len(r.referred_users))),
        ("Updated", fmt_ms(r.updated_at)),
    ]


class ReferralsScreen(DataScreen):
    SCREEN_TITLE = "Referrals"
    SIGNED_ACTIONS = frozenset({"create_code", "set_referrer", "claim"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create_code", "New code", id="referrals.create_code", tooltip="Create a referral code"),
        Binding("s", "set_referrer", "Set referrer", id="referrals.set_referrer",
                tooltip="Set this account's referrer by their code"),
        Binding("c", "claim", "Claim", id="referrals.claim", tooltip="Claim referral rewards"),
    ]  # fmt: skip

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.summary: ReferralSummary | None = None
        self._collateral: dict[str, int] = {}  # symbol -> id

    def compose_body(self) -> ComposeResult:
        yield Facts(columns=2, id="referral-facts")
        yield Label("Referred users", classes="section")
        yield RecordTable(USERS, id="referred")

    async def fetch(self) -> None:
        if self.account is None:
            self.query_one("#referral-facts", Facts).show([("Account", "none: start with a key or --address")])
            return
        c = self.ctx.client
        if not self._collateral:
            summary, collateral = await asyncio.gather(c.referral_summary(self.account), c.supported_collateral())
            self._collateral = {x.symbol: x.id for x in collateral}
        else:
            summary = await c.referral_summary(self.account)
        self.summary = summary
        self.query_one("#referral-facts", Facts).show(referral_facts(summary))
        rows = []
        for user, u in summary.referred_users.items():
            rows.append((user, [
                short_address(user), u.code, fmt_ms(u.joined_at), fmt_amount(u.referred_volume, 2),
                *(f"{fmt_amount(v.maker_volume, 2)} / {fmt_amount(v.taker_volume, 2)}"
                  for v in (u.perp_volume, u.spot_volume, u.stable_spot_volume)),
                fmt_amount(u.referred_perp_rewards), fmt_amount(u.referred_spot_rewards),
            ]))  # fmt: skip
        self.query_one("#referred", RecordTable).show(rows)

    # ---- actions --------------------------------------------------------------------------------

    def action_create_code(self) -> None:
        def check(values: dict[str, str]) -> ActionPlan:
            code = parse_code("code", values["code"])
            lines = [f"Code      {code}", "Accounts that set it as their referrer pay you a commission."]

            async def send() -> ExchangeResponse[Any]:
                return await self.ctx.client.create_referral_code(code)

            return ActionPlan("Referral code", f"Create referral code {code}?", lines, send,
                              outcome=lambda _: f"code {code} created")  # fmt: skip

        fields = [FormField("code", "Code", placeholder="3-20 letters, digits, _ or -")]
        self.propose("Referral code", FormScreen[ActionPlan]("Create a referral code", fields, check))

    def action_set_referrer(self) -> None:
        summary = self.summary
        if summary is not None and summary.referrer:
            self.notify(f"This account's referrer is already {summary.referrer}.", severity="warning", markup=False)
            return

        def check(values: dict[str, str]) -> ActionPlan:
            code = parse_code("code", values["code"])
            if summary is not None and code in summary.codes:
                raise FieldError("code", "that is one of this account's own codes")
            lines = [f"Code      {code}", "A referrer is set once: it cannot be changed afterwards."]

            async def send() -> ExchangeResponse[Any]:
                return await self.ctx.client.set_referrer(code)

            return ActionPlan("Referrer", f"Set the referrer by code {code}?", lines, send,
                              outcome=lambda _: f"referrer set by code {code}")  # fmt: skip

        fields = [FormField("code", "Referrer's code")]
        self.propose("Referrer", FormScreen[ActionPlan]("Set this account's referrer", fields, check))

    def action_claim(self) -> None:
        summary = self.summary
        if summary is None:
            self.notify("Referrals: not loaded yet.", severity="warning")
            return

        def check(values: dict[str, str]) -> ActionPlan:
            symbol = parse_choice("collateral", values["collateral"], self._collateral)
            market = parse_choice("market", values["market"], ("perp", "spot"))
            due = summary.to_claim_perp_rewards if market == "perp" else summary.to_claim_spot_rewards
            if not due:
                raise FieldError("market", f"no {market} rewards to claim")
            lines = [f"Rewards   {market}, about {fmt_amount(due)} to claim", f"Paid in   {symbol}"]

            async def send() -> ExchangeResponse[Any]:
                return await self.ctx.client.claim_referral_rewards(self._collateral[symbol], spot=market == "spot")

            return ActionPlan("Claim", f"Claim the {market} referral rewards in {symbol}?", lines, send,
                              outcome=lambda _: f"{market} rewards claimed in {symbol}")  # fmt: skip

        market = "perp" if summary.to_claim_perp_rewards or not summary.to_claim_spot_rewards else "spot"
        fields = [FormField("collateral", "Collateral", "USDC"), FormField("market", "Market", market)]
        notes = [f"To claim: perp {fmt_amount(summary.to_claim_perp_rewards)}, "
                 f"spot {fmt_amount(summary.to_claim_spot_rewards)}"]  # fmt: skip
        self.propose("Claim", FormScreen[ActionPlan]("Claim referral rewards", fields, check, notes=notes))
